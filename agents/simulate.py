"""Playing hands on the rules engine without an env: for search rollouts and quick tuning.

Every move here goes through :class:`~gin_env.hand.GinHand` (``step``, ``legal_actions``),
so rollouts play the table's own rules (knock limit, Oklahoma, bonuses, big gin, the draw
at two stock cards, the turn limit): there is no second copy of the rules. A hand in
mid-play comes from :meth:`GinHand.from_state <gin_env.hand.GinHand.from_state>`, a
determinised world from :meth:`GinHand.resample <gin_env.hand.GinHand.resample>`.

:func:`view_of` gives a seat's :class:`~agents.base.ObservedSeat` of a hand, the same knowledge
the env's observation carries; :func:`play_out` finishes a hand with policies;
:func:`greedy_playout` finishes it with the greedy policy (:func:`greedy_action`), the
search's fast rollout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import ObservedSeat, ViewAgent
from gin_env import actions as A
from gin_env.cards import NUM_CARDS, POINTS
from gin_env.config import HandRules
from gin_env.fast_melds import discard_deadwoods_nb
from gin_env.hand import GinHand, HandResult, Phase
from gin_env.melds import discard_deadwoods

__all__ = [
    "view_of",
    "play_out",
    "play_deal",
    "seat_points",
    "greedy_discard",
    "greedy_takes",
    "greedy_action",
    "greedy_playout",
]


def view_of(hand: GinHand, seat: int) -> ObservedSeat:
    """What ``seat`` knows of ``hand`` (it must be the seat to act)."""
    pile = 0
    for c in hand.discard_pile:
        pile |= 1 << c
    return ObservedSeat(
        role=0 if seat == hand.dealer else 1,
        phase=int(hand.phase),
        advising=False,
        hand=hand.hands[seat],
        top_discard=hand.discard_pile[-1] if hand.discard_pile else -1,
        discard_pile=pile,
        opponent_took=hand.took[1 - seat],
        opponent_discarded=hand.discarded[1 - seat],
        own_discarded=hand.discarded[seat],
        stock_size=hand.stock_size,
        suggestion=-1,
        legal=hand.legal_actions(),
    )


def play_out(
    hand: GinHand, policies: Sequence[ViewAgent], rng: np.random.Generator | None = None
) -> HandResult:
    """Play ``hand`` to its end, seat ``s`` choosing with ``policies[s]``."""
    while hand.phase is not Phase.OVER:
        seat = hand.current
        legal = hand.legal_actions()
        if len(legal) == 1:
            hand.step(legal[0])
            continue
        hand.step(policies[seat].choose(view_of(hand, seat), rng))
    assert hand.result is not None
    return hand.result


def seat_points(result: HandResult, seat: int) -> int:
    """The hand's points from ``seat``'s side: + when it scored, - when the other did."""
    if result.winner is None:
        return 0
    return result.points if result.winner == seat else -result.points


def play_deal(
    deck: Sequence[int],
    policies: Sequence[ViewAgent],
    dealer: int = 1,
    rules: HandRules | None = None,
    rng: np.random.Generator | None = None,
) -> HandResult:
    """Deal ``deck`` and play the hand through (no env; for tuning and tests)."""
    return play_out(GinHand(deck, rules, dealer=dealer), policies, rng)


# -- the greedy policy and its fast rollouts (search) -----------------------------------------
def greedy_discard(hand11: int, banned: int = -1) -> tuple[int, int]:
    """(card, deadwood left) of the discard that leaves the least deadwood, ties to the
    higher card: what a greedy player throws from an 11-card hand."""
    best = (1 << 30, 0, -1)
    for c, v in discard_deadwoods(hand11).items():
        if c != banned:
            key = (v, -POINTS[c], c)
            if key < best:
                best = key
    return best[2], best[0]


_KERNEL: Any = None
_OUT = np.empty(NUM_CARDS, np.int64)


def greedy_takes(hand10: int, card: int) -> bool:
    """Does taking ``card`` lower the deadwood of ``hand10`` after the best discard?

    (The compiled kernel of :mod:`gin_env.fast_melds`, exact as :mod:`gin_env.melds`: this
    is the rollouts' hottest question.)"""
    global _KERNEL
    if _KERNEL is None:
        _KERNEL = discard_deadwoods_nb
    hand11 = hand10 | 1 << card
    _KERNEL(hand11, _OUT)
    now = int(_OUT[card])  # the deadwood of ``hand10`` itself
    return any(0 <= v < now for v in _OUT.tolist())  # -1: a card not held


def greedy_action(hand: GinHand) -> int:
    """The greedy player's move in ``hand`` for the seat to act: take the upcard / top
    discard when it lowers the deadwood, throw the legal discard that leaves the least
    deadwood (ties to the higher card), knock (or lay down big gin) as soon as the engine
    allows it."""
    legal = hand.legal_actions()
    if hand.phase is Phase.DISCARD:
        if A.BIG_GIN in legal:
            return A.BIG_GIN
        dws = hand.discard_deadwoods()
        best = (1 << 30, 0, -1)
        for a in legal:
            if a >= A.KNOCK:
                break  # the engine lists the discards first, then the knocks
            c = a - A.DISCARD
            key = (dws[c], -POINTS[c], c)
            if key < best:
                best = key
        card = best[2]
        return A.KNOCK + card if A.KNOCK + card in legal else A.DISCARD + card
    top = hand.top_discard
    if A.TAKE_DISCARD in legal and top is not None and greedy_takes(hand.hands[hand.current], top):
        return A.TAKE_DISCARD
    return A.PASS if A.PASS in legal else A.DRAW_STOCK


def greedy_playout(hand: GinHand, max_turns: int = 60) -> HandResult | None:
    """Play ``hand`` (changed in place) to its end with :func:`greedy_action` for both
    seats; None when ``max_turns`` more turns (discards) have not ended it (a rollout's
    horizon, scored as a draw by the search)."""
    stop = hand.turns + max_turns
    while hand.phase is not Phase.OVER:
        if hand.turns >= stop:
            return None
        hand.step(greedy_action(hand))
    return hand.result
