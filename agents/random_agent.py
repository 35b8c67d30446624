"""L0: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from agents.base import legal_actions

__all__ = ["RandomAgent"]


class RandomAgent:
    """Level 0: picks uniformly among the legal actions of the mask (advice included)."""

    name = "random"

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        rng = rng if rng is not None else np.random.default_rng()
        legal = legal_actions(observation)
        return int(legal[int(rng.integers(len(legal)))])

    def __repr__(self) -> str:
        return "RandomAgent()"
