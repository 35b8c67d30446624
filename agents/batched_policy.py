"""What every policy over a batch of games shares: the protocol, the checks of a batch, and
its card parts as masks (:func:`gin_env.encoding.card_masks`, the layout's own batch
reader, named here too). The batched players (:mod:`agents.batched`, the compiled L2 of
:mod:`agents.heuristic_batched`) build on it."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from gin_env import actions as A
from gin_env.encoding import OBS_SIZE, OBS_SIZE_V1, card_masks

__all__ = ["BatchedPolicy", "card_masks", "check_batch"]


class BatchedPolicy(Protocol):
    """A policy over a batch: one legal action id per row."""

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray: ...


def check_batch(observations: Any, masks: Any) -> tuple[np.ndarray, np.ndarray]:
    """The observations and the masks as bool, checked: shapes, and a legal action in every
    row (a ValueError naming the row otherwise)."""
    obs = np.asarray(observations)
    mask = np.asarray(masks)
    if obs.ndim != 2 or obs.shape[1] not in (OBS_SIZE, OBS_SIZE_V1):
        raise ValueError(
            f"observations must have shape (N, {OBS_SIZE}) (or (N, {OBS_SIZE_V1}), layout v1), "
            f"got {obs.shape}"
        )
    # The v1 layout keeps the v0 entries first, where the batched players read them; row
    # by row, an agent gets the whole observation (a v1-trained network needs it).
    if mask.shape != (obs.shape[0], A.NUM_ACTIONS):
        raise ValueError(
            f"masks must have shape ({obs.shape[0]}, {A.NUM_ACTIONS}) (one per observation), "
            f"got {mask.shape}"
        )
    legal = mask.astype(bool, copy=False)
    empty = np.flatnonzero(~legal.any(axis=1))
    if len(empty):
        raise ValueError(f"row {int(empty[0])} has no legal action: no seat is to act there")
    return obs, legal
