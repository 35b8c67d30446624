"""L2 compiled over a batch: :class:`BatchedHeuristic` plays exactly
:class:`agents.heuristic.HeuristicAgent`'s moves for every row of ``[N, 436]`` observations.

:mod:`agents.heuristic` stays the readable reference; this module is the same decisions as
numba kernels (``cache=True``) over card masks, in the same order of floating-point
operations (so ties and thresholds fall the same way), with the reference's tables
(:data:`agents.heuristic.PIP_MASKS` ...) and the meld kernels of :mod:`gin_env.fast_melds`
(the compiled twins of :mod:`gin_env.melds`). ``tests/test_heuristic_batched.py`` plays
both on the same rows, over every rule option set, both games, every role and many
parameter sets, and asks for identical moves.

- :class:`BatchedHeuristic` ``(params, rules)``: L2 in any seat (box, captain taking no
  advice, adviser suggesting its own move), for any :class:`~agents.heuristic.HeuristicParams`
  and the table's rules (its undercut bonus moves the knock threshold, ``knock_undercut``).
- :class:`BatchedCaptain` / :class:`BatchedAdviser`: :class:`agents.advice.Captain` (follow,
  weigh by the heuristic's scores, ignore) and :class:`agents.advice.Adviser` around a batched
  policy, the captain's judge scored by the same kernels.

One part of the family is not compiled: ``lookahead=True`` needs the dead cards of the
reference's best arrangement (:func:`gin_env.melds.best_arrangement`, whose ties pick which
card is the highest dead one); those are computed in Python per row and handed to the
kernel. Every other decision runs compiled.

The first call in a fresh checkout compiles the kernels (about 20 seconds on a busy
machine); numba caches them in ``__pycache__``, and later processes load them in about a
second.

>>> import numpy as np
>>> from gin_env.vector import VectorGinEnv
>>> env = VectorGinEnv(3, seed=0, backend="python")
>>> out = env.reset()
>>> acts = BatchedHeuristic().act(out["observation"], out["action_mask"])
>>> bool(out["action_mask"][np.arange(3), acts].all())
True
"""

from __future__ import annotations

from dataclasses import astuple, fields
from typing import Any

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from agents.advice import check_captain_mode
from agents.base import ROLE_ADVISER, ROLE_CAPTAIN, table_rules
from agents.batched_policy import check_batch
from agents.heuristic import (
    ABOVE_PIPS,
    FULL,
    PIP_MASKS,
    RANK_SPREAD,
    SUIT_BITS,
    UNDERCUT_BASE,
    HeuristicParams,
    kept_max_dead,
    max_dead,
)
from agents.match_equity import knock_shifts
from gin_env import actions as A
from gin_env.cards import NUM_CARDS, POINTS
from gin_env.config import HandRules
from gin_env.encoding import FULL_STOCK, OBS_SLICES, first_set, part_masks, top_discards
from gin_env.fast_melds import deadwood_nb, discard_deadwoods_nb
from gin_env.hand import Phase
from gin_env.melds import best_arrangement

__all__ = ["BatchedHeuristic", "BatchedCaptain", "BatchedAdviser", "Rows", "params_vector"]

# -- the parameter vector --------------------------------------------------------------------

#: Index of each :class:`HeuristicParams` field in the vector the kernels read.
_FIELD = {f.name: i for i, f in enumerate(fields(HeuristicParams))}
_KNOWN = {
    "potential_weight", "potential_draws", "potential_floor", "potential_div", "lookahead",
    "danger_weight", "exact_draw", "passed_factor", "high_factor", "took_hazard",
    "knock_weight", "take_margin", "knock_early", "knock_late", "knock_shown_meld",
    "gin_outs", "gin_stock", "gin_deadwood", "knock_bend", "knock_undercut",
    "take_margin_late", "keep_late", "danger_took", "danger_late", "knock_last_pips",
    "keep_took", "danger_pips", "match_knock", "match_gin",
}  # fmt: skip
if set(_FIELD) != _KNOWN:  # a new field of the reference must be taught to the kernels
    raise ImportError(
        "agents.heuristic_batched does not know HeuristicParams fields "
        f"{sorted(set(_FIELD) ^ _KNOWN)}: add them to its kernels"
    )
P_POT_WEIGHT = _FIELD["potential_weight"]
P_POT_DRAWS = _FIELD["potential_draws"]
P_POT_FLOOR = _FIELD["potential_floor"]
P_POT_DIV = _FIELD["potential_div"]
P_LOOKAHEAD = _FIELD["lookahead"]
P_DANGER = _FIELD["danger_weight"]
P_EXACT_DRAW = _FIELD["exact_draw"]
P_PASSED = _FIELD["passed_factor"]
P_HIGH = _FIELD["high_factor"]
P_TOOK_HAZARD = _FIELD["took_hazard"]
P_KNOCK_WEIGHT = _FIELD["knock_weight"]
P_TAKE_MARGIN = _FIELD["take_margin"]
P_KNOCK_EARLY = _FIELD["knock_early"]
P_KNOCK_LATE = _FIELD["knock_late"]
P_KNOCK_SHOWN = _FIELD["knock_shown_meld"]
P_GIN_OUTS = _FIELD["gin_outs"]
P_GIN_STOCK = _FIELD["gin_stock"]
P_GIN_DEADWOOD = _FIELD["gin_deadwood"]
P_KNOCK_BEND = _FIELD["knock_bend"]
P_KNOCK_UNDERCUT = _FIELD["knock_undercut"]
P_TAKE_LATE = _FIELD["take_margin_late"]
P_KEEP_LATE = _FIELD["keep_late"]
P_DANGER_TOOK = _FIELD["danger_took"]
P_DANGER_LATE = _FIELD["danger_late"]
P_KNOCK_LAST = _FIELD["knock_last_pips"]
P_KEEP_TOOK = _FIELD["keep_took"]
P_DANGER_PIPS = _FIELD["danger_pips"]
P_MATCH_KNOCK = _FIELD["match_knock"]
P_MATCH_GIN = _FIELD["match_gin"]


def params_vector(params: HeuristicParams) -> np.ndarray:
    """The fields of ``params`` as the float64 vector the kernels read (booleans 0 / 1)."""
    return np.array([float(v) for v in astuple(params)], np.float64)


# -- tables (the reference's) -----------------------------------------------------------------

_POINTS = np.asarray(POINTS, np.int64)
_PIP_MASKS = np.asarray(PIP_MASKS, np.int64)
_ABOVE = np.asarray(ABOVE_PIPS, np.int64)
_FULL = FULL
_SUIT = SUIT_BITS
_SPREAD = RANK_SPREAD
_UNDERCUT_BASE = UNDERCUT_BASE
_INF = np.inf
_DRAW_STOCK, _TAKE, _PASS, _NO_ADVICE = A.DRAW_STOCK, A.TAKE_DISCARD, A.PASS, A.NO_ADVICE
_DISCARD, _KNOCK, _BIG_GIN = A.DISCARD, A.KNOCK, A.BIG_GIN
_PHASE_DISCARD = int(Phase.DISCARD)

# -- small helpers ----------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@numba.njit(cache=True, inline="always")
def _low_card(bit: int) -> int:
    return trailing_zeros(bit)  # type: ignore[call-arg]


@numba.njit(cache=True)
def _meld_outs(hand: int) -> int:
    """:func:`agents.heuristic.meld_outs`."""
    a = hand & _SUIT
    b = (hand >> 13) & _SUIT
    c = (hand >> 26) & _SUIT
    d = hand >> 39
    pairs = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
    out = pairs * _SPREAD
    for s in range(4):
        p = (hand >> (13 * s)) & _SUIT
        fill = ((p >> 1) & (p >> 2)) | ((p << 1) & (p >> 1)) | ((p << 1) & (p << 2))
        out |= (fill & _SUIT) << (13 * s)
    return out & _FULL & ~hand


@numba.njit(cache=True)
def _min_discard(hand: int, scratch: np.ndarray) -> int:
    """``min(discard_deadwoods(hand).values())``."""
    discard_deadwoods_nb(hand, scratch)
    best = 1 << 30
    for c in range(52):
        if scratch[c] >= 0 and scratch[c] < best:
            best = scratch[c]
    return best


@numba.njit(cache=True)
def _stock_fill(stock: int) -> float:
    return min(1.0, max(0.0, (stock - 2) / 29))


@numba.njit(cache=True)
def _draws_left(stock: int, took_n: int, prm: np.ndarray) -> float:
    draws = min(prm[P_POT_DRAWS], max(0.0, (stock - prm[P_POT_FLOOR]) / prm[P_POT_DIV]))
    return draws / (1 + prm[P_TOOK_HAZARD] * took_n)


@numba.njit(cache=True)
def _last_discard(banned: int, top: int, opp_disc: int) -> int:
    """:func:`agents.heuristic.opponent_last_discard`."""
    card = banned if banned >= 0 else top
    return card if card >= 0 and opp_disc >> card & 1 else -1


@numba.njit(cache=True)
def _keep_weight(stock: int, took_n: int, prm: np.ndarray) -> float:
    return 1 + prm[P_KEEP_LATE] * (1 - _stock_fill(stock)) + prm[P_KEEP_TOOK] * took_n


@numba.njit(cache=True)
def _knock_limit(
    stock: int, took_n: int, prm: np.ndarray, undercut: int, last: int, ks: float
) -> int:
    """:meth:`HeuristicAgent.knock_limit` (``last``: his last discard, -1 if unknown;
    ``ks``: ``match_knock`` times the match shift)."""
    frac = _stock_fill(stock)
    limit = prm[P_KNOCK_LATE] + (prm[P_KNOCK_EARLY] - prm[P_KNOCK_LATE]) * frac
    limit += prm[P_KNOCK_BEND] * 4 * frac * (1 - frac)
    limit += prm[P_KNOCK_UNDERCUT] * (undercut - _UNDERCUT_BASE) / 10
    limit -= prm[P_KNOCK_SHOWN] * took_n
    if prm[P_KNOCK_LAST] != 0 and last >= 0:
        limit += prm[P_KNOCK_LAST] * (_POINTS[last] - 5) / 5
    if prm[P_MATCH_KNOCK] != 0:
        limit += ks
    return int(np.rint(limit))  # Python's round: half to even


# -- the reference's pieces -------------------------------------------------------------------


@numba.njit(cache=True)
def _potential(hand: int, unseen: int, base: int) -> float:
    n = _popcount(unseen)
    if n == 0:
        return 0.0
    total = 0
    q = _meld_outs(hand) & unseen
    while q:
        bit = q & -q
        q ^= bit
        gain = base + _POINTS[_low_card(bit)] - deadwood_nb(hand | bit)
        if gain > 0:
            total += gain
    return total / n


@numba.njit(cache=True)
def _improvement(hand: int, unseen: int, dw: int, md: int) -> float:
    n = _popcount(unseen)
    if n == 0 or dw == 0:
        return 0.0
    outs = _meld_outs(hand) & unseen
    total = 0.0
    q = outs
    while q:
        bit = q & -q
        q ^= bit
        after = deadwood_nb(hand | bit) - md
        total += dw - min(dw, max(0, after))
    rest = unseen & ~outs
    for p in range(1, md):
        k = _popcount(rest & _PIP_MASKS[p])
        if k:
            total += k * (md - p)
    return total / n


@numba.njit(cache=True)
def _expected_deadwood(hand: int, unseen: int, scratch: np.ndarray) -> float:
    n = _popcount(unseen)
    dw = deadwood_nb(hand)
    if n == 0:
        return float(dw)
    best10 = _min_discard(hand, scratch)
    outs = _meld_outs(hand) & unseen
    total = 0
    q = outs
    while q:
        bit = q & -q
        q ^= bit
        total += _min_discard(hand | bit, scratch)
    rest = unseen & ~outs
    for p in range(1, 11):
        k = _popcount(rest & _PIP_MASKS[p])
        if k:
            total += k * min(dw, p + best10)
    return total / n


@numba.njit(cache=True)
def _knock_chance(hand: int, unseen: int, limit: int, scratch: np.ndarray) -> float:
    n = _popcount(unseen)
    if n == 0 or limit < 0:
        return 0.0
    dw = deadwood_nb(hand)
    best10 = _min_discard(hand, scratch)
    outs = _meld_outs(hand) & unseen
    hits = 0
    q = outs
    while q:
        bit = q & -q
        q ^= bit
        if _min_discard(hand | bit, scratch) <= limit:
            hits += 1
    rest = unseen & ~outs
    if dw <= limit:
        hits += _popcount(rest)
    else:
        for p in range(1, min(10, limit - best10) + 1):
            hits += _popcount(rest & _PIP_MASKS[p])
    return hits / n


@numba.njit(cache=True, inline="always")
def _w(c: int, took: int, unseen: int, high: int, p: float, p_high: float) -> float:
    bit = 1 << c
    if took & bit:
        return 1.0
    if not unseen & bit:
        return 0.0
    return p_high if high & bit else p


@numba.njit(cache=True, inline="always")
def _pair(
    x: int, y: int, took: int, unseen: int, high: int, p: float, p_high: float, passed: int,
    pf: float,
) -> float:  # fmt: skip
    chance = _w(x, took, unseen, high, p, p_high) * _w(y, took, unseen, high, p, p_high)
    if chance and passed and _meld_outs(1 << x | 1 << y) & passed:
        chance *= pf
    return chance


@numba.njit(cache=True)
def _danger(
    card: int, took: int, unseen: int, hidden: int, passed: int, pf: float, high_pips: int,
    hf: float,
) -> float:  # fmt: skip
    """:func:`agents.heuristic.danger`, its partner pairs in :func:`partner_pairs`' order."""
    high = unseen & _ABOVE[high_pips]
    weight = _popcount(unseen & ~high) + hf * _popcount(high)
    p = hidden / weight if weight else 0.0
    p_high = min(1.0, p * hf)
    p = min(1.0, p)
    r, s = card % 13, card // 13
    # The same rank in the other suits, in suit order.
    o0 = r if s > 0 else 13 + r
    o1 = 13 + r if s > 1 else 26 + r
    o2 = 26 + r if s > 2 else 39 + r
    total = 0.0
    total += _pair(o0, o1, took, unseen, high, p, p_high, passed, pf)
    total += _pair(o0, o2, took, unseen, high, p, p_high, passed, pf)
    total += _pair(o1, o2, took, unseen, high, p, p_high, passed, pf)
    base = 13 * s
    if r - 2 >= 0:
        total += _pair(base + r - 2, base + r - 1, took, unseen, high, p, p_high, passed, pf)
    if r - 1 >= 0 and r + 1 < 13:
        total += _pair(base + r - 1, base + r + 1, took, unseen, high, p, p_high, passed, pf)
    if r + 2 < 13:
        total += _pair(base + r + 1, base + r + 2, took, unseen, high, p, p_high, passed, pf)
    return min(total, 1.0)


@numba.njit(cache=True)
def _keep_scores(
    hand11: int, banned: int, top: int, pile: int, took: int, opp_disc: int, own_disc: int,
    stock: int, prm: np.ndarray, undercut: int, la_md: np.ndarray, dws: np.ndarray,
    scores: np.ndarray, scratch: np.ndarray, ks: float,
) -> None:  # fmt: skip
    """:meth:`HeuristicAgent.keep_scores`: ``dws`` (-1 off the hand) and ``scores`` (inf
    for the cards it does not score: off the hand, or ``banned``). ``la_md[c]``: with
    ``lookahead``, :func:`kept_max_dead` of each discard."""
    discard_deadwoods_nb(hand11, dws)
    took_n = _popcount(took)
    unseen = _FULL & ~(hand11 | pile | took)
    weight = prm[P_POT_WEIGHT] * _draws_left(stock, took_n, prm)
    best = 1 << 30
    for c in range(52):
        if dws[c] >= 0 and c != banned and dws[c] < best:
            best = dws[c]
    last = _last_discard(banned, top, opp_disc)
    limit = _knock_limit(stock, took_n, prm, undercut, last, ks)
    late = 1 - _stock_fill(stock)
    keep = _keep_weight(stock, took_n, prm)
    dweight = prm[P_DANGER] + prm[P_DANGER_TOOK] * took_n + prm[P_DANGER_LATE] * late
    # :meth:`HeuristicAgent.dangers`' context
    hidden = max(0, 10 - took_n)
    passed = (own_disc | opp_disc) & ~took
    high = _POINTS[last] if last >= 0 else 10
    pf, hf = prm[P_PASSED], prm[P_HIGH]
    lookahead = prm[P_LOOKAHEAD] != 0
    kw = prm[P_KNOCK_WEIGHT]
    for c in range(52):
        scores[c] = _INF
        v = dws[c]
        if v < 0 or c == banned:
            continue
        if v > best + 12:  # never wins: not worth its work
            scores[c] = v + 100.0
            continue
        risk = _danger(c, took, unseen, hidden, passed, pf, high, hf)
        kept = hand11 & ~(1 << c)
        if not weight:
            pot = 0.0
        elif lookahead:
            pot = _improvement(kept, unseen, v, la_md[c])
        else:
            pot = _potential(kept, unseen, v)
        charge = dweight * risk * (1 + prm[P_DANGER_PIPS] * _POINTS[c] / 10)
        s = v * keep - weight * pot + charge
        if kw and v > limit and v <= best + 10:
            s -= kw * _knock_chance(kept, unseen, limit, scratch)
        scores[c] = s


@numba.njit(cache=True)
def _blind_score(
    hand: int, pile: int, took: int, stock: int, prm: np.ndarray, la_blind: int,
    scratch: np.ndarray,
) -> float:  # fmt: skip
    """:meth:`HeuristicAgent.blind_score`."""
    took_n = _popcount(took)
    unseen = _FULL & ~(hand | pile | took)
    dw = deadwood_nb(hand)
    keep = _keep_weight(stock, took_n, prm)
    if prm[P_LOOKAHEAD] != 0:
        pot = _improvement(hand, unseen, dw, la_blind)
    else:
        pot = _potential(hand, unseen, dw)
    if prm[P_EXACT_DRAW] != 0:
        return _expected_deadwood(hand, unseen, scratch) * keep - pot * prm[P_POT_WEIGHT] * (
            _draws_left(stock, took_n, prm)
        )
    return dw * keep - pot * (1 + prm[P_POT_WEIGHT] * _draws_left(stock, took_n, prm))


@numba.njit(cache=True)
def _gin_outs(hand10: int, unseen: int, scratch: np.ndarray) -> int:
    n = 0
    q = _meld_outs(hand10) & unseen
    while q:
        bit = q & -q
        q ^= bit
        if _min_discard(hand10 | bit, scratch) == 0:
            n += 1
    return n


@numba.njit(cache=True)
def _banned(hand: int, legal: np.ndarray) -> int:
    """:func:`agents.heuristic.banned_card`."""
    for c in range(52):
        if hand >> c & 1 and not legal[_DISCARD + c]:
            return c
    return -1


@numba.njit(cache=True)
def _move(
    hand: int, top: int, pile: int, took: int, opp_disc: int, own_disc: int, stock: int,
    phase: int, advising: bool, legal: np.ndarray, prm: np.ndarray, undercut: int,
    la_md: np.ndarray, la_blind: int, dws: np.ndarray, scores: np.ndarray,
    scratch: np.ndarray, match_k: float, match_g: float,
) -> int:  # fmt: skip
    """:meth:`HeuristicAgent.act` on one row (``match_k`` / ``match_g``: ``match_knock`` /
    ``match_gin`` times the match shift)."""
    n_legal = 0
    first = -1
    for a in range(legal.shape[0]):
        if legal[a]:
            n_legal += 1
            if first < 0:
                first = a
    held = _popcount(hand)
    if advising and held != 10 and held != 11:
        return _NO_ADVICE if legal[_NO_ADVICE] else first
    # The moves of the hand (NO_ADVICE dropped unless it is all there is).
    n_game = n_legal - (1 if legal[_NO_ADVICE] else 0)
    if n_game == 0:
        return first
    if n_game == 1:
        for a in range(legal.shape[0]):
            if legal[a] and a != _NO_ADVICE:
                return a
    if phase == _PHASE_DISCARD:
        if legal[_BIG_GIN]:
            return _BIG_GIN
        banned = _banned(hand, legal)
        _keep_scores(hand, banned, top, pile, took, opp_disc, own_disc, stock, prm,
                     undercut, la_md, dws, scores, scratch, match_k)  # fmt: skip
        k, kd, ks = -1, 0, 0.0
        for c in range(52):
            if not legal[_KNOCK + c]:
                continue
            sc = scores[c] if scores[c] != _INF else 0.0
            if k < 0:
                k, kd, ks = c, dws[c], sc
            elif dws[c] < kd or (dws[c] == kd and sc < ks):
                k, kd, ks = c, dws[c], sc
        if k >= 0:
            dw = dws[k]
            knock = True
            if dw != 0:
                gin_dw = prm[P_GIN_DEADWOOD]
                if prm[P_MATCH_GIN] != 0:
                    gin_dw -= match_g
                if dw <= gin_dw and stock > prm[P_GIN_STOCK]:
                    unseen = _FULL & ~(hand | pile | took)
                    if _gin_outs(hand & ~(1 << k), unseen, scratch) >= prm[P_GIN_OUTS]:
                        knock = False
                if knock:
                    last = _last_discard(banned, top, opp_disc)
                    knock = dw <= _knock_limit(stock, _popcount(took), prm, undercut, last, match_k)
            if knock:
                return _KNOCK + k
        best = -1
        for c in range(52):
            if not legal[_DISCARD + c]:
                continue
            if best < 0:
                best = c
                continue
            sb, sc = scores[best], scores[c]
            if sc < sb or (sc == sb and _POINTS[c] > _POINTS[best]):
                best = c
        return _DISCARD + best
    blind = _PASS if legal[_PASS] else _DRAW_STOCK
    if not legal[_TAKE] or top < 0:
        return blind
    _keep_scores(hand | 1 << top, top, top, pile, took, opp_disc, own_disc, stock, prm,
                 undercut, la_md, dws, scores, scratch, match_k)  # fmt: skip
    best_score = _INF
    least = 1 << 30
    for c in range(52):
        if scores[c] != _INF:
            best_score = min(best_score, scores[c])
            least = min(least, dws[c])
    if best_score == _INF:
        return blind
    took_n = _popcount(took)
    if least <= _knock_limit(
        stock, took_n, prm, undercut, _last_discard(-1, top, opp_disc), match_k
    ):
        return _TAKE
    margin = prm[P_TAKE_MARGIN] + prm[P_TAKE_LATE] * (1 - _stock_fill(stock))
    if best_score + margin < _blind_score(hand, pile, took, stock, prm, la_blind, scratch):
        return _TAKE
    return blind


@numba.njit(cache=True)
def heuristic_kernel(
    hand: np.ndarray, top: np.ndarray, pile: np.ndarray, took: np.ndarray,
    opp_disc: np.ndarray, own_disc: np.ndarray, stock: np.ndarray, phase: np.ndarray,
    advising: np.ndarray, legal: np.ndarray, prm: np.ndarray, undercut: int,
    la_md: np.ndarray, la_blind: np.ndarray, ks: np.ndarray, gs: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """L2's move in every row (``la_md`` ``[N, 52]`` / ``la_blind`` ``[N]``: the lookahead's
    highest dead cards, zeros without it; ``ks`` / ``gs`` ``[N]``: the match levers'
    shifts)."""
    n = hand.shape[0]
    out = np.empty(n, np.int64)
    dws = np.empty(52, np.int64)
    scratch = np.empty(52, np.int64)
    scores = np.empty(52, np.float64)
    for i in range(n):
        out[i] = _move(hand[i], top[i], pile[i], took[i], opp_disc[i], own_disc[i],
                       stock[i], phase[i], advising[i], legal[i], prm, undercut, la_md[i],
                       la_blind[i], dws, scores, scratch, ks[i], gs[i])  # fmt: skip
    return out


@numba.njit(cache=True)
def captain_score_kernel(
    hand: np.ndarray, top: np.ndarray, pile: np.ndarray, took: np.ndarray,
    opp_disc: np.ndarray, own_disc: np.ndarray, stock: np.ndarray, phase: np.ndarray,
    legal: np.ndarray, action: np.ndarray, prm: np.ndarray, undercut: int,
) -> np.ndarray:  # fmt: skip
    """:meth:`agents.advice.Captain._score` of ``action[i]`` in every row (the judge:
    default parameters, so no lookahead)."""
    n = hand.shape[0]
    out = np.empty(n, np.float64)
    dws = np.empty(52, np.int64)
    scratch = np.empty(52, np.int64)
    scores = np.empty(52, np.float64)
    la_md = np.zeros(52, np.int64)
    for i in range(n):
        a = action[i]
        if phase[i] == _PHASE_DISCARD and _DISCARD <= a < _BIG_GIN:
            card = (a - _DISCARD) % 52 if a < _KNOCK else a - _KNOCK
            banned = _banned(hand[i], legal[i])
            _keep_scores(hand[i], banned, top[i], pile[i], took[i], opp_disc[i],
                         own_disc[i], stock[i], prm, undercut, la_md, dws, scores,
                         scratch, 0.0)  # fmt: skip
            if a >= _KNOCK:
                out[i] = float(dws[card]) - 10.0
            elif scores[card] != _INF:
                out[i] = scores[card]
            else:
                out[i] = float(dws[card]) if dws[card] >= 0 else 100.0
        elif a == _TAKE and top[i] >= 0:
            _keep_scores(hand[i] | 1 << top[i], top[i], top[i], pile[i], took[i],
                         opp_disc[i], own_disc[i], stock[i], prm, undercut, la_md, dws,
                         scores, scratch, 0.0)  # fmt: skip
            best = _INF
            for c in range(52):
                best = min(best, scores[c])
            out[i] = best if best != _INF else 100.0
        else:
            out[i] = float(deadwood_nb(hand[i])) - _POINTS[0]
    return out


# -- the batched players ------------------------------------------------------------------------

_S = OBS_SLICES


class Rows:
    """The parts of each row's observation the heuristic reads (:class:`agents.base.ObservedSeat`
    as arrays)."""

    def __init__(self, obs: np.ndarray) -> None:
        self.role = np.argmax(obs[:, _S["role"]], axis=1)
        self.phase = np.argmax(obs[:, _S["phase"]], axis=1).astype(np.int64)
        self.advising = obs[:, _S["advising"].start] > 0.5
        # The card parts through the one decoder's batch helpers (gin_env.encoding).
        self.hand = part_masks(obs, "hand")
        self.top = top_discards(obs)
        self.pile = part_masks(obs, "discard_pile")
        self.took = part_masks(obs, "opponent_took")
        self.opp_disc = part_masks(obs, "opponent_discarded")
        self.own_disc = part_masks(obs, "partner_discarded")
        stock = obs[:, _S["stock_size"].start].astype(np.float64) * FULL_STOCK
        self.stock = np.rint(stock).astype(np.int64)
        self.suggestion = first_set(obs[:, _S["suggestion"]])
        self.scores = obs[:, _S["scores"]].astype(np.float64)


class BatchedHeuristic:
    """L2 (:class:`~agents.heuristic.HeuristicAgent` with ``params`` at a table of ``rules``)
    over a batch: the reference's move in every row, from the compiled kernels."""

    name = "heuristic"

    def __init__(
        self, params: HeuristicParams | None = None, rules: HandRules | None = None
    ) -> None:
        self.params = params if params is not None else HeuristicParams()
        if not isinstance(self.params, HeuristicParams):
            raise ValueError(f"params must be HeuristicParams, got {self.params!r}")
        self.rules = table_rules(rules)
        #: The table as given (its match target and dealer rule, for the match shifts).
        self.match_rules = rules
        self._prm = params_vector(self.params)
        self._shifts: np.ndarray | None = None

    def match_shifts(self, rows: Rows) -> np.ndarray:
        """:meth:`HeuristicAgent.match_shift` of every row."""
        if self._shifts is None:
            self._shifts = knock_shifts(self.match_rules)
        target = self._shifts.shape[0] - 1
        me = np.where(rows.role < 2, rows.role, 1)
        idx = np.arange(len(me))
        mine = np.rint(rows.scores[idx, me] * target).astype(np.int64)
        his = np.rint(rows.scores[idx, 1 - me] * target).astype(np.int64)
        return self._shifts[mine, his]

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        obs, legal = check_batch(observations, masks)
        rows = Rows(obs)
        return self.moves(rows, legal)

    def moves(self, rows: Rows, legal: np.ndarray) -> np.ndarray:
        n = len(rows.hand)
        la_md = np.zeros((n, NUM_CARDS), np.int64)
        la_blind = np.zeros(n, np.int64)
        if self.params.lookahead:
            self._lookahead(rows, legal, la_md, la_blind)
        ks = np.zeros(n)
        gs = np.zeros(n)
        if self.params.match_knock or self.params.match_gin:
            shift = self.match_shifts(rows)
            ks = self.params.match_knock * shift
            gs = self.params.match_gin * shift
        return heuristic_kernel(
            rows.hand, rows.top, rows.pile, rows.took, rows.opp_disc, rows.own_disc,
            rows.stock, rows.phase, rows.advising, np.ascontiguousarray(legal), self._prm,
            self.rules.undercut_bonus, la_md, la_blind, ks, gs,
        )  # fmt: skip

    @staticmethod
    def _lookahead(rows: Rows, legal: np.ndarray, la_md: np.ndarray, la_blind: np.ndarray) -> None:
        """The highest dead card of the reference's best arrangements, for every hand the
        kernel scores with ``lookahead`` (Python: the arrangement's ties decide it)."""
        for i in range(len(rows.hand)):
            hand = int(rows.hand[i])
            if rows.phase[i] == _PHASE_DISCARD:
                hand11 = hand
            else:
                la_blind[i] = max_dead(hand)
                if not legal[i, _TAKE] or rows.top[i] < 0:
                    continue
                hand11 = hand | 1 << int(rows.top[i])
            if hand11.bit_count() < 2:
                continue
            dead11 = best_arrangement(hand11)[1]
            for c in range(NUM_CARDS):
                if hand11 >> c & 1:
                    la_md[i, c] = kept_max_dead(hand11, dead11, c)

    def __repr__(self) -> str:
        return f"BatchedHeuristic({self.params!r})"


class BatchedAdviser:
    """:class:`agents.advice.Adviser` over a batch: at the adviser's chair, what ``policy``
    would play as captain (nothing when the captain's hand is hidden); elsewhere
    ``policy``."""

    def __init__(self, policy: Any, name: str | None = None) -> None:
        self.policy = policy
        self.name = name if name is not None else f"adviser({getattr(policy, 'name', '?')})"

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        obs, legal = check_batch(observations, masks)
        rows = Rows(obs)
        advise = rows.advising & (rows.role == ROLE_ADVISER)
        stripped = legal.copy()
        strip = advise & legal[:, _NO_ADVICE] & (legal.sum(axis=1) > 1)
        stripped[strip, _NO_ADVICE] = False
        out = np.asarray(self.policy.act(obs, stripped, rng), np.int64).copy()
        out[advise & (rows.hand == 0)] = _NO_ADVICE
        return out

    def __repr__(self) -> str:
        return f"BatchedAdviser({self.policy!r})"


class BatchedCaptain:
    """:class:`agents.advice.Captain` over a batch: ``policy`` as captain doing ``mode``
    (follow / weigh / ignore) with the advice, the weighing scored by the heuristic's
    judge (default :class:`HeuristicParams`, as the reference's)."""

    def __init__(self, policy: Any, mode: str = "weigh", margin: float = 2.0) -> None:
        self.policy = policy
        self.mode = check_captain_mode(mode)
        self.margin = float(margin)
        self._judge = params_vector(HeuristicParams())
        self.name = f"captain-{mode}({getattr(policy, 'name', '?')})"

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        obs, legal = check_batch(observations, masks)
        rows = Rows(obs)
        n = len(rows.hand)
        sugg = rows.suggestion
        idx = np.arange(n)
        valid = (sugg >= 0) & (sugg != _NO_ADVICE)
        has_advice = (rows.role == ROLE_CAPTAIN) & ~rows.advising & valid
        has_advice[has_advice] &= legal[idx[has_advice], sugg[has_advice]]
        if self.mode == "follow":
            out = np.empty(n, np.int64)
            own_rows = np.flatnonzero(~has_advice)
            out[has_advice] = sugg[has_advice]
            if len(own_rows):
                out[own_rows] = self.policy.act(obs[own_rows], legal[own_rows], rng)
            return out
        own = np.asarray(self.policy.act(obs, legal, rng), np.int64).copy()
        if self.mode == "ignore":
            return own
        weigh = np.flatnonzero(has_advice & (own != sugg))
        if len(weigh):
            args = (
                rows.hand[weigh], rows.top[weigh], rows.pile[weigh], rows.took[weigh],
                rows.opp_disc[weigh], rows.own_disc[weigh], rows.stock[weigh],
                rows.phase[weigh], np.ascontiguousarray(legal[weigh]),
            )  # fmt: skip
            s_sugg = captain_score_kernel(*args, sugg[weigh], self._judge, _UNDERCUT_BASE)
            s_own = captain_score_kernel(*args, own[weigh], self._judge, _UNDERCUT_BASE)
            own[weigh] = np.where(s_sugg <= s_own + self.margin, sugg[weigh], own[weigh])
        return own

    def __repr__(self) -> str:
        return f"BatchedCaptain({self.policy!r}, mode={self.mode!r})"
