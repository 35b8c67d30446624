"""Three-handed gin rummy, two-player gin and basic rummy as PettingZoo environments.

Envs: :mod:`gin_env.three_handed_gin_v0`, :mod:`gin_env.gin_v0`, :mod:`gin_env.rummy_v0`.
Gymnasium single-agent ids (see :mod:`gin_env.wrappers`): ``gin_env/ThreeHandedGin-v0``,
``gin_env/Gin-v0``, ``gin_env/Rummy-v0``.
"""

from __future__ import annotations

from typing import Any

import gymnasium

__version__ = "0.1.0"


def make_three_handed(learner: str = "player_0", opponents: Any = None, **options: Any) -> Any:
    from gin_env import three_handed_gin_v0
    from gin_env.wrappers import SingleAgentEnv

    return SingleAgentEnv(three_handed_gin_v0.raw_env(**options), learner, opponents)


def make_gin(learner: str = "player_0", opponents: Any = None, **options: Any) -> Any:
    from gin_env import gin_v0
    from gin_env.wrappers import SingleAgentEnv

    return SingleAgentEnv(gin_v0.raw_env(**options), learner, opponents)


def make_rummy(learner: str = "player_0", opponents: Any = None, **options: Any) -> Any:
    from gin_env import rummy_v0
    from gin_env.wrappers import SingleAgentEnv

    return SingleAgentEnv(rummy_v0.raw_env(**options), learner, opponents)


def _register() -> None:
    ids = {
        "gin_env/ThreeHandedGin-v0": "gin_env:make_three_handed",
        "gin_env/Gin-v0": "gin_env:make_gin",
        "gin_env/Rummy-v0": "gin_env:make_rummy",
    }
    for env_id, entry in ids.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=entry)


_register()
