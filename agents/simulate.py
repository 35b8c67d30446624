"""Playing hands on the rules engine without an env: for search rollouts and quick tuning.

:func:`hand_from_state` builds a :class:`~gin_env.hand.GinHand` in the middle of play (the
engine has no such constructor, so this sets the documented fields of a freshly dealt
hand); :func:`view_of` gives a seat's :class:`~agents.base.SeatView` of a hand, the same
knowledge the env's observation carries; :func:`play_out` finishes a hand with policies.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import SeatView, ViewAgent
from gin_env.cards import NUM_CARDS, POINTS, from_mask
from gin_env.config import HandRules
from gin_env.hand import DRAW_AT_STOCK, GinHand, HandResult, Phase
from gin_env.melds import deadwood_mask, discard_deadwoods, showdown

__all__ = [
    "hand_from_state",
    "view_of",
    "play_out",
    "play_deal",
    "seat_points",
    "greedy_discard",
    "greedy_takes",
    "fast_playout",
]


def hand_from_state(
    hands: tuple[int, int],
    discard_pile: Sequence[int],
    stock: Sequence[int],
    *,
    dealer: int,
    current: int,
    phase: Phase,
    took: tuple[int, int] = (0, 0),
    discarded: tuple[int, int] = (0, 0),
    turns: int = 0,
    taken: int | None = None,
    must_draw_stock: bool = False,
    rules: HandRules | None = None,
) -> GinHand:
    """A hand in the given state: ``stock`` top first, ``discard_pile`` bottom first."""
    in_play = hands[0] | hands[1]
    for c in discard_pile:
        in_play |= 1 << c
    order = from_mask(in_play)
    deck = order + list(stock)
    if len(deck) != NUM_CARDS or len(set(deck)) != NUM_CARDS:
        raise ValueError("hands, discard_pile and stock must hold the 52 cards exactly once")
    hand = GinHand(deck, rules, dealer=dealer)
    hand.hands = [hands[0], hands[1]]
    hand.discard_pile = list(discard_pile)
    hand.stock_pos = len(order)
    hand.phase = phase
    hand.current = current
    hand.took = [took[0], took[1]]
    hand.discarded = [discarded[0], discarded[1]]
    hand.turns = turns
    hand.taken = taken
    hand.must_draw_stock = must_draw_stock
    hand._legal = None
    hand._discard_dw = None
    return hand


def view_of(hand: GinHand, seat: int) -> SeatView:
    """What ``seat`` knows of ``hand`` (it must be the seat to act)."""
    pile = 0
    for c in hand.discard_pile:
        pile |= 1 << c
    return SeatView(
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


# -- fast greedy playouts on masks (search rollouts) ------------------------------------------
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


def greedy_takes(hand10: int, card: int) -> bool:
    """Does taking ``card`` lower the deadwood of ``hand10`` after the best discard?"""
    return greedy_discard(hand10 | 1 << card, card)[1] < deadwood_mask(hand10)


def fast_playout(
    hands: list[int],
    pile: list[int],
    stock: list[int],
    current: int,
    rules: HandRules,
    *,
    must_draw_stock: bool = False,
    max_turns: int = 60,
) -> tuple[int | None, int]:
    """Play a hand from ``current``'s draw to its end with the greedy policy for both seats
    (take a discard that lowers the deadwood, throw the discard that leaves the least,
    knock as soon as allowed) straight on masks: tens of times faster than :func:`play_out`.

    ``hands``, ``pile`` (bottom first) and ``stock`` (top first) are consumed. Returns
    (scoring seat or None for a draw, points).
    """
    limit = rules.knock_limit
    pos = 0
    for _ in range(max_turns):
        seat = current
        hand = hands[seat]
        banned = -1
        if not must_draw_stock and pile and greedy_takes(hand, pile[-1]):
            banned = pile.pop()
            hand |= 1 << banned
        else:
            hand |= 1 << stock[pos]
            pos += 1
        must_draw_stock = False
        card, dw = greedy_discard(hand, banned)
        hand &= ~(1 << card)
        hands[seat] = hand
        pile.append(card)
        if dw <= limit:
            sd = showdown(hand, hands[1 - seat], limit, rules.gin_bonus, rules.undercut_bonus)
            if sd.kind == "undercut":
                return 1 - seat, sd.defender_points
            return seat, sd.knocker_points
        if len(stock) - pos <= DRAW_AT_STOCK:
            return None, 0
        current = 1 - seat
    return None, 0
