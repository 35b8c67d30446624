"""L1: the classic simple strategy of gin rummy.

- Take the upcard / top discard only if it is melded in the best arrangement of the hand
  with it (it completes or extends a meld) and lowers the deadwood.
- Discard the highest-value card left out of the best arrangement (the discard that leaves
  the least deadwood; ties go to the higher card).
- Knock as soon as the rules allow (gin when there is no deadwood).
- As adviser, suggest what it would play; as captain, ignore the advice.
"""

from __future__ import annotations

import numpy as np

from agents.base import PHASE_DISCARD, ObservedSeat, ViewAgent, game_actions
from gin_env import actions as A
from gin_env.cards import POINTS
from gin_env.melds import best_arrangement, deadwood_mask, discard_deadwoods

__all__ = ["SimpleAgent", "take_melds"]


def take_melds(hand: int, card: int) -> bool:
    """Does taking ``card`` put it into a meld and lower the deadwood of ``hand`` (10 cards)?"""
    bit = 1 << card
    dws = discard_deadwoods(hand | bit)
    rest = [(v, -POINTS[c], c) for c, v in dws.items() if c != card]
    if not rest:
        return False
    value, _, drop = min(rest)
    if value >= deadwood_mask(hand):
        return False
    _, dead = best_arrangement((hand | bit) & ~(1 << drop))
    return not dead & bit


class SimpleAgent(ViewAgent):
    """Level 1: take only to meld, discard the highest deadwood card, knock at once."""

    name = "simple"

    def choose(self, view: ObservedSeat, rng: np.random.Generator | None = None) -> int:
        legal = game_actions(view.legal)
        if len(legal) == 1:
            return legal[0]
        if view.phase == PHASE_DISCARD:
            dws = discard_deadwoods(view.hand)
            knocks = [a for a in legal if a >= A.KNOCK and a < A.BIG_GIN]
            if A.BIG_GIN in legal:
                return A.BIG_GIN
            if knocks:
                return min(knocks, key=lambda a: (dws[a - A.KNOCK], -POINTS[a - A.KNOCK], a))
            discards = [a for a in legal if A.DISCARD <= a < A.KNOCK]
            return min(discards, key=lambda a: (dws[a - A.DISCARD], -POINTS[a - A.DISCARD], a))
        # Upcard offer or draw: take only a card that melds and lowers the deadwood.
        if A.TAKE_DISCARD in legal and view.top_discard >= 0:
            if take_melds(view.hand, view.top_discard):
                return A.TAKE_DISCARD
        return A.PASS if A.PASS in legal else A.DRAW_STOCK
