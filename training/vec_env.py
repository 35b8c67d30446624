"""stable-baselines3's ``VecEnv`` over the batched engine, for ``MaskablePPO`` unchanged.

:class:`SB3VectorEnv` adapts :class:`agents.vector.LearnerVectorEnv` (N games, one learner
seat in each, batched opponents) to SB3's ``VecEnv`` interface. ``env_method("action_masks")``
(what sb3-contrib's ``get_action_masks`` calls) returns every game's learner mask, so::

    from sb3_contrib import MaskablePPO
    from training.vec_env import make_sb3_vec_env

    vec = make_sb3_vec_env(64, "gin", opponents="heuristic", seed=0, episode="hand")
    MaskablePPO("MlpPolicy", vec).learn(100_000)

It lives in the training layer because it needs stable-baselines3 (a training dependency);
:mod:`agents.vector` holds the Gymnasium ``VectorEnv`` it wraps (that one needs agents for
the opponents, so it cannot be in ``gin_env``). Episode ends are terminations (see
:mod:`agents.vector`): no ``terminal_observation`` is given, and SB3 bootstraps only
truncated episodes from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from agents.vector import LearnerVectorEnv

__all__ = ["SB3VectorEnv", "make_sb3_vec_env"]


class SB3VectorEnv(VecEnv):
    """SB3's ``VecEnv`` over a :class:`~agents.vector.LearnerVectorEnv` (one SB3 env per
    game). ``seed(s)`` then ``reset()`` seeds game ``i`` with ``s + i``."""

    def __init__(self, env: LearnerVectorEnv) -> None:
        if not isinstance(env, LearnerVectorEnv):
            raise ValueError(f"SB3VectorEnv wraps a LearnerVectorEnv, got {type(env).__name__}")
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        obs, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        obs, rewards, terminated, truncated, infos = self.env.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        seats = infos["learner_seat"]
        out = [{"learner_seat": int(seats[i])} for i in range(self.num_envs)]
        for i in np.flatnonzero(truncated).tolist():
            out[i]["TimeLimit.truncated"] = True
        return obs, rewards.astype(np.float32), dones, out

    def action_masks(self) -> np.ndarray:
        """``[num_envs, 109]`` bool: the learner's legal actions in every game."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    # -- the per-env access SB3 expects (one object holds every game) ---------------------
    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "action_masks":
            return [self.action_masks] * len(self._indices(indices))
        value = getattr(self.env, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs


def make_sb3_vec_env(
    num_envs: int,
    game: str = "gin",
    opponents: Any = "random",
    learner: int | str = "random",
    seed: int | None = None,
    backend: str = "auto",
    monitor: bool = True,
    **options: Any,
) -> VecEnv:
    """An SB3 ``VecEnv`` of ``num_envs`` games on the batched engine (episode statistics by
    ``VecMonitor`` unless ``monitor=False``); the arguments are
    :class:`~agents.vector.LearnerVectorEnv`'s."""
    env = LearnerVectorEnv(num_envs, game, opponents, learner, seed, backend, **options)
    vec: VecEnv = SB3VectorEnv(env)
    if seed is not None:
        vec.seed(seed)
    return VecMonitor(vec) if monitor else vec
