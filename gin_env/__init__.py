"""Three-handed gin rummy, two-player gin and basic rummy as PettingZoo environments.

Envs: :mod:`gin_env.three_handed_gin_v0`, :mod:`gin_env.gin_v0`, :mod:`gin_env.rummy_v0`,
and the observation layout v1 (the rules in view): :mod:`gin_env.three_handed_gin_v1`,
:mod:`gin_env.gin_v1`. The rules: ``docs/RULES.md``; layouts by id:
``gin_env.encoding.LAYOUTS`` (rummy's: ``gin_env.rummy_encoding.LAYOUTS``).
Gymnasium single-agent ids (see :mod:`agents.single_agent`): ``gin_env/ThreeHandedGin-v0``,
``gin_env/Gin-v0``, ``gin_env/Rummy-v0``, and the v1 layout's
``gin_env/ThreeHandedGinRulesInView-v0``, ``gin_env/GinRulesInView-v0`` (named apart, not
``-v1``: the v1 layout is another observation, not a successor of v0, which Gymnasium would
call out of date). The ids and names are listed in :mod:`gin_env.games`. Every option of
:class:`~agents.single_agent.SingleAgentEnv` (``learner``, ``opponents``, ``illegal``,
``illegal_reward``, ``extras``) and of the env goes through ``gymnasium.make``; an unknown
one is a ``ValueError`` listing both kinds. ``gymnasium.make_vec(id, num_envs,
vectorization_mode="vector_entry_point", ...)`` of a gin id gives the compiled batched
engine, :class:`agents.vector.LearnerVectorEnv`.
"""

from __future__ import annotations

import gymnasium

from gin_env import games

__version__ = "0.1.0"


def _register() -> None:
    # Each game's id runs one entry point with the game's name (``games.GameSpec``): the
    # learner-vs-opponents env, and for the batched engine's games its vector env.
    for name, spec in games.GAMES.items():
        if spec.gym_id not in gymnasium.registry:
            gymnasium.register(
                spec.gym_id,
                entry_point=spec.entry_point,
                vector_entry_point=spec.vector_entry_point,
                kwargs={"game": name},
            )


_register()
