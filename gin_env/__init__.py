"""Three-handed gin rummy, two-player gin and basic rummy as PettingZoo environments.

Envs: :mod:`gin_env.three_handed_gin_v0`, :mod:`gin_env.gin_v0`, :mod:`gin_env.rummy_v0`,
and the observation layout v1 (the rules in view): :mod:`gin_env.three_handed_gin_v1`,
:mod:`gin_env.gin_v1`. The rules: ``docs/RULES.md``; layouts by id:
``gin_env.encoding.LAYOUTS``.
Gymnasium single-agent ids (see :mod:`gin_env.wrappers`): ``gin_env/ThreeHandedGin-v0``,
``gin_env/Gin-v0``, ``gin_env/Rummy-v0``, and the v1 layout's ``gin_env/ThreeHandedGin-v1``,
``gin_env/Gin-v1`` (the ids and names are listed in :mod:`gin_env.games`).
"""

from __future__ import annotations

from typing import Any

import gymnasium

from gin_env import games
from gin_env.wrappers import SingleAgentEnv

__version__ = "0.1.0"


def _single_agent(game: str, learner: str, opponents: Any, options: dict[str, Any]) -> Any:

    return SingleAgentEnv(games.get(game).make_env(**options), learner, opponents)


def make_three_handed(learner: str = "player_0", opponents: Any = None, **options: Any) -> Any:
    return _single_agent("three_handed_gin_v0", learner, opponents, options)


def make_gin(learner: str = "player_0", opponents: Any = None, **options: Any) -> Any:
    return _single_agent("gin_v0", learner, opponents, options)


def make_rummy(learner: str = "player_0", opponents: Any = None, **options: Any) -> Any:
    return _single_agent("rummy_v0", learner, opponents, options)


def make_three_handed_v1(learner: str = "player_0", opponents: Any = None, **options: Any) -> Any:
    return _single_agent("three_handed_gin_v1", learner, opponents, options)


def make_gin_v1(learner: str = "player_0", opponents: Any = None, **options: Any) -> Any:
    return _single_agent("gin_v1", learner, opponents, options)


#: The Gymnasium entry point of each game (``gin_env.games.GameSpec.gym_id`` is its id).
_ENTRY_POINTS = {
    "three_handed_gin_v0": "gin_env:make_three_handed",
    "gin_v0": "gin_env:make_gin",
    "rummy_v0": "gin_env:make_rummy",
    "three_handed_gin_v1": "gin_env:make_three_handed_v1",
    "gin_v1": "gin_env:make_gin_v1",
}


def _register() -> None:

    for name, spec in games.GAMES.items():
        if spec.gym_id not in gymnasium.registry:
            gymnasium.register(spec.gym_id, entry_point=_ENTRY_POINTS[name])


_register()
