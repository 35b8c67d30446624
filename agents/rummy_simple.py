"""A simple heuristic policy for ``rummy_v0``, seeing only an observation and its mask.

- Draw: take the top discard when it makes a meld with the hand, else draw from the stock.
- Then meld whenever possible (the melds of the hand's best arrangement first), lay off
  whenever possible, and finally discard the highest-pip card, keeping cards that are one
  card short of a meld (a pair, or two cards of a suit at most two ranks apart) if it can.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gin_env.cards import NUM_RANKS, POINTS
from gin_env.melds import GIN_MELDS
from gin_env.rummy_actions import (
    ACE_HIGH_TABLE,
    DISCARD,
    DRAW_STOCK,
    LAY_OFF_SET,
    MELD,
    MELDS,
    TAKE_DISCARD,
)
from gin_env.rummy_encoding import mask_of, views

__all__ = ["RummySimpleAgent"]


class RummySimpleAgent:
    """Meld and lay off whenever possible; take the discard only if it makes a meld."""

    name = "rummy_simple"

    def act(self, observation: dict[str, Any], rng: np.random.Generator | None = None) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if not legal:
            raise ValueError("no legal action: this agent is not to act")
        parts = views(np.asarray(observation["observation"]))
        hand = mask_of(parts["hand"])
        table = ACE_HIGH_TABLE if parts["ace_high_or_low"][0] > 0.5 else GIN_MELDS
        if DRAW_STOCK in legal:
            top = int(np.argmax(parts["top_discard"]))
            bit = 1 << top
            if TAKE_DISCARD in legal and any(m & bit for m in table.candidate_melds(hand | bit)):
                return TAKE_DISCARD
            return DRAW_STOCK
        melds = [a for a in legal if MELD <= a < LAY_OFF_SET]
        if melds:
            best, _ = table.best_arrangement(hand)
            wanted = {MELD + i for i, m in enumerate(MELDS) if m in best}
            return next((a for a in melds if a in wanted), melds[0])
        lay_offs = [a for a in legal if a >= LAY_OFF_SET]
        if lay_offs:
            return lay_offs[0]
        discards = [a for a in legal if DISCARD <= a < MELD]
        return max(discards, key=lambda a: _discard_key(a - DISCARD, hand))


def _discard_key(card: int, hand: int) -> tuple[bool, int, int]:
    """Higher is a better discard: not close to a meld, then more pips."""
    rank, suit = card % NUM_RANKS, card // NUM_RANKS
    same_rank = sum(1 << (13 * s + rank) for s in range(4)) & ~(1 << card)
    near = 0
    for d in (-2, -1, 1, 2):
        if 0 <= rank + d < NUM_RANKS:
            near |= 1 << (13 * suit + rank + d)
    return (not hand & (same_rank | near), POINTS[card], card)
