"""Compiled per-move facts for the DMC action encoding ``features="facts"`` (numba).

For every (row, action) pair of a batch, :func:`pair_facts_batch` computes what the seat
can tell about the move from its own observation alone (its hand, the discard pile, the
cards the opponent took from the pile and still holds, the discards): never a hidden card.
The readable reference, row by row over :mod:`gin_env.melds`, is
:func:`agents.dmc.pair_facts_reference`; ``tests/test_dmc_facts.py`` checks that both give
the same numbers on thousands of states.

Inputs, one entry per row (int64 52-bit card masks, bit ``c`` = card ``suit * 13 + rank``):

- ``hands``: the seat's hand (0 when it is not seen);
- ``tops``: the top of the discard pile, -1 when there is none;
- ``unseen``: the cards the seat has not seen (not in its hand, the pile, any discard, or
  among the opponent's pick-ups): the stock and the opponent's hidden cards;
- ``dead``: seen cards in neither hand (the pile, discards no one took back);
- ``opp``: the cards the opponent took from the pile and still holds.

The hand after the move (``H'``): for a discard or knock with card ``c``, the 11-card hand
without ``c``; for take, the 10-card hand plus the top card less its best discard (the
least deadwood, the lowest card on ties, never the card taken); for draw and pass the
10-card hand. Other moves (big gin, no advice) and unseen hands get zeros.

======  ================  ==============================================================
column  name              meaning
======  ================  ==============================================================
0       melded            cards of ``H'`` that lie in some meld inside ``H'``, / 10
1       outs              unseen cards ``u`` that would join a meld: deadwood(H' + u) <
                          deadwood(H') + points(u), / 20
2       starts            two-card meld starts among ``H'``'s cards in no meld (two of a
                          rank, or one suit within two ranks) with an unseen completing
                          card, / 10
3       danger            discard / knock ``c``: 1 when the opponent holds a pick-up that
                          melds with ``c`` (same rank, or same suit within two ranks)
4       danger_count      the number of those pick-ups, / 4
5       mates_gone        ``c``'s rank-mates the opponent cannot get (in ``H'``, or dead), / 3
6       neighbours_gone   ``c``'s suit neighbours within two ranks the opponent cannot get
                          (in ``H'``, or dead), / 4
7       points            ``c``'s points, / 10
8       take_melds        take: 1 when the top card makes a meld with the hand now
9       take_gain         take: deadwood of the hand less ``H'``'s, / 50 (negative when
                          taking makes the hand worse)
======  ================  ==============================================================
"""

from __future__ import annotations

import numba
import numpy as np

from gin_env import actions as A
from gin_env.fast_melds import deadwood_nb, discard_deadwoods_nb, popcount

__all__ = ["FACTS", "NUM_FACTS", "FACT_SCALES", "pair_facts_batch", "meld_cover", "meld_completers"]

FACTS = (
    "melded",
    "outs",
    "starts",
    "danger",
    "danger_count",
    "mates_gone",
    "neighbours_gone",
    "points",
    "take_melds",
    "take_gain",
)
NUM_FACTS = len(FACTS)
#: Each fact's count or value is divided by this.
FACT_SCALES = (10.0, 20.0, 10.0, 1.0, 4.0, 3.0, 4.0, 10.0, 1.0, 50.0)

_SUIT = (1 << 13) - 1
_SPREAD = 1 | 1 << 13 | 1 << 26 | 1 << 39
_PIPS = np.array([min(c % 13 + 1, 10) for c in range(52)], dtype=np.int64)
_SCALES = np.array(FACT_SCALES, dtype=np.float32)
_DRAW, _TAKE, _PASS = A.DRAW_STOCK, A.TAKE_DISCARD, A.PASS
_DISCARD, _BIG_GIN = A.DISCARD, A.BIG_GIN


def _card_tables() -> tuple[np.ndarray, np.ndarray]:
    """Per card: its three rank-mates, and its suit neighbours within two ranks."""
    mates = np.zeros(52, np.int64)
    near = np.zeros(52, np.int64)
    for c in range(52):
        s, r = divmod(c, 13)
        mates[c] = sum(1 << (13 * t + r) for t in range(4) if t != s)
        near[c] = sum(1 << (13 * s + q) for q in range(max(r - 2, 0), min(r + 3, 13)) if q != r)
    return mates, near


_MATES, _NEAR = _card_tables()


@numba.njit(cache=True, inline="always")
def _suits(hand: int) -> tuple[int, int, int, int]:
    return hand & _SUIT, (hand >> 13) & _SUIT, (hand >> 26) & _SUIT, (hand >> 39) & _SUIT


@numba.njit(cache=True)
def meld_cover(hand: int) -> int:
    """The cards of ``hand`` that lie in some meld inside ``hand``."""
    cover = 0
    for s in range(4):
        p = (hand >> (13 * s)) & _SUIT
        w = p & (p >> 1) & (p >> 2)  # lowest ranks of three in a row
        cover |= (w | w << 1 | w << 2) << (13 * s)
    a, b, c, d = _suits(hand)
    triples = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)
    return cover | (hand & triples * _SPREAD)


@numba.njit(cache=True)
def meld_completers(hand: int) -> int:
    """The cards not in ``hand`` that make a meld with two (or three) of its cards: the
    third of a rank held twice or more, or the card beside, between or before two in a row
    of a suit."""
    out = 0
    for s in range(4):
        p = (hand >> (13 * s)) & _SUIT
        q = (p >> 1 & p >> 2) | (p << 1 & p >> 1) | (p << 1 & p << 2)
        out |= (q & _SUIT) << (13 * s)
    a, b, c, d = _suits(hand)
    twice = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
    return (out | twice * _SPREAD) & ~hand


@numba.njit(cache=True)
def _hand_facts(hand: int, unseen: int, out: np.ndarray) -> None:
    """Columns 0..2 (melded, outs, starts) of a hand ``H'``, unscaled."""
    cover = meld_cover(hand)
    out[0] = popcount(cover)
    dw = deadwood_nb(hand)
    cand = meld_completers(hand) & unseen
    n = 0
    while cand:
        bit = cand & -cand
        cand ^= bit
        u = popcount(bit - 1)
        if deadwood_nb(hand | bit) < dw + _PIPS[u]:
            n += 1
    out[1] = n
    loose = hand & ~cover
    la, lb, lc, ld = _suits(loose)
    ua, ub, uc, ud = _suits(unseen)
    # Two of a rank (never three: three of a rank are a meld), the others' one unseen.
    twice = (la & lb) | (la & lc) | (la & ld) | (lb & lc) | (lb & ld) | (lc & ld)
    starts = popcount(twice & (ua | ub | uc | ud))
    for s in range(4):
        q = (loose >> (13 * s)) & _SUIT
        u = (unseen >> (13 * s)) & _SUIT
        side = q & q >> 1  # ranks r with r + 1: r - 1 or r + 2 completes
        starts += popcount(side & ((u << 1) | (u >> 2)))
        gap = q & q >> 2  # ranks r with r + 2: r + 1 completes
        starts += popcount(gap & (u >> 1))
    out[2] = starts


@numba.njit(cache=True)
def pair_facts_batch(
    hands: np.ndarray,
    tops: np.ndarray,
    unseen: np.ndarray,
    dead: np.ndarray,
    opp: np.ndarray,
    rows: np.ndarray,
    acts: np.ndarray,
) -> np.ndarray:
    """``[P, NUM_FACTS]`` float32: the facts of each pair ``(rows[p], acts[p])`` (the
    module's table), from the row masks ``hands``, ``tops``, ``unseen``, ``dead``, ``opp``."""
    out = np.zeros((rows.shape[0], NUM_FACTS), dtype=np.float32)
    raw = np.zeros(NUM_FACTS, dtype=np.float64)
    table = np.empty(52, dtype=np.int64)
    for p in range(rows.shape[0]):
        b = rows[p]
        a = acts[p]
        hand = hands[b]
        n = popcount(hand)
        for k in range(NUM_FACTS):
            raw[k] = 0.0
        if n == 11 and _DISCARD <= a < _BIG_GIN:
            c = (a - _DISCARD) % 52
            after = hand & ~(1 << c)
            _hand_facts(after, unseen[b], raw)
            near = (_MATES[c] | _NEAR[c]) & opp[b]
            raw[3] = 1.0 if near else 0.0
            raw[4] = popcount(near)
            gone = dead[b] | after
            raw[5] = popcount(_MATES[c] & gone)
            raw[6] = popcount(_NEAR[c] & gone)
            raw[7] = _PIPS[c]
        elif n == 10 and (a == _DRAW or a == _PASS):
            _hand_facts(hand, unseen[b], raw)
        elif n == 10 and a == _TAKE and tops[b] >= 0:
            t = tops[b]
            more = hand | (1 << t)
            discard_deadwoods_nb(more, table)
            best = -1
            for c in range(52):
                if c != t and table[c] >= 0 and (best < 0 or table[c] < table[best]):
                    best = c
            _hand_facts(more & ~(1 << best), unseen[b], raw)
            raw[8] = 1.0 if (meld_completers(hand) >> t) & 1 else 0.0
            raw[9] = deadwood_nb(hand) - table[best]
        for k in range(NUM_FACTS):
            out[p, k] = raw[k] / _SCALES[k]
    return out
