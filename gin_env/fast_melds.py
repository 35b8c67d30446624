"""Compiled rule kernels: deadwood, discard deadwoods and the optimal showdown under numba.

The same rules as :mod:`gin_env.melds` (the readable reference), over hands as ``int64``
52-bit masks (bit ``c`` = card ``c`` = ``suit * 13 + rank``), compiled with
``numba.njit(cache=True)`` so the batched engine can call them from its own compiled loops.
Every kernel gives exactly the reference's result; ``tests/test_fast_melds.py`` checks it
on many thousands of random hands and on the golden showdown cases.

- :func:`deadwood_nb` ``(hand) -> int``: exact minimum deadwood (gin melds, ace low).
- :func:`discard_deadwoods_nb` ``(hand, out)``: ``out[c]`` = deadwood of ``hand`` without
  ``c`` for every card ``c`` in the hand, ``-1`` elsewhere (``out`` is an ``int64[52]``).
- :func:`showdown_nb` ``(knocker, defender, knock_limit, gin_bonus, undercut_bonus)``
  ``-> (kind, knocker_points, defender_points, knocker_deadwood, defender_deadwood)`` with
  ``kind`` 0 knock, 1 undercut, 2 gin (the constants ``KNOCK``, ``UNDERCUT``, ``GIN``).

The tables (per-suit run deadwood, meld masks, lay-off data) are numpy arrays built once at
import; numba freezes them into the compiled code as constants. The first call of each
kernel in a fresh environment compiles it (about ten seconds for the three kernels, see
``benchmarks/bench_fast_melds.py``); ``cache=True`` stores the machine code in
``__pycache__`` beside this file, so later processes load it in under a second.

>>> from gin_env.cards import parse_cards, to_mask
>>> deadwood_nb(to_mask(parse_cards("AS 2S 3S 7H 7D 7C KC")))
10
>>> showdown_nb(to_mask(parse_cards("AS 2S 3S 4H 5H 6H 7D 7C 7S 2D")),
...             to_mask(parse_cards("5S 6S 8D 9D TD KH KD KC QH QS")), 10, 25, 10)
(0, 29, 0, 2, 31)
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

__all__ = [
    "KNOCK",
    "UNDERCUT",
    "GIN",
    "RUN_DEADWOOD",
    "MELD_MASKS",
    "deadwood_nb",
    "discard_deadwoods_nb",
    "showdown_nb",
    "deadwood_batch",
    "discard_deadwoods_batch",
    "showdown_batch",
]

KNOCK = 0
UNDERCUT = 1
GIN = 2

_NUM_RANKS = 13
_SUIT_BITS = (1 << _NUM_RANKS) - 1
_FULL_DECK = (1 << 52) - 1
_RANK_PIPS = np.array([min(r + 1, 10) for r in range(_NUM_RANKS)], dtype=np.int64)
_INF = 1 << 30


def _local_runs() -> list[int]:
    """13-bit masks of every run within one suit, ace low, in the reference's order."""
    return [
        ((1 << (end - start)) - 1) << start
        for start in range(_NUM_RANKS)
        for end in range(start + 3, _NUM_RANKS + 1)
    ]


def _build_run_deadwood() -> np.ndarray:
    """``dw[p]``: deadwood of a 13-bit suit pattern ``p`` covered by runs only."""
    by_low: list[list[int]] = [[] for _ in range(_NUM_RANKS)]
    for run in _local_runs():
        by_low[(run & -run).bit_length() - 1].append(run)
    dw = [0] * (1 << _NUM_RANKS)
    for p in range(1, 1 << _NUM_RANKS):
        low = (p & -p).bit_length() - 1
        best = dw[p ^ (1 << low)] + int(_RANK_PIPS[low])
        for run in by_low[low]:
            if run & p == run and dw[p ^ run] < best:
                best = dw[p ^ run]
        dw[p] = best
    return np.array(dw, dtype=np.int64)


def _build_pattern_pips() -> np.ndarray:
    pips = np.zeros(1 << _NUM_RANKS, dtype=np.int64)
    for p in range(1, 1 << _NUM_RANKS):
        low = (p & -p).bit_length() - 1
        pips[p] = pips[p ^ (1 << low)] + _RANK_PIPS[low]
    return pips


def _build_melds() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every gin meld (runs per suit, then sets per rank: the four, then each three), as in
    ``gin_env.melds.ALL_MELDS``, with what lay-offs need: kind (0 run, 1 set of three,
    2 set of four), the set's missing fourth card, and a run's lowest and highest card."""
    masks: list[int] = []
    kinds: list[int] = []
    fourth: list[int] = []
    low: list[int] = []
    high: list[int] = []
    for s in range(4):
        for run in _local_runs():
            m = run << (13 * s)
            masks.append(m)
            kinds.append(0)
            fourth.append(0)
            low.append((m & -m).bit_length() - 1)
            high.append(m.bit_length() - 1)
    for r in range(_NUM_RANKS):
        four = sum(1 << (13 * s + r) for s in range(4))
        masks.append(four)
        kinds.append(2)
        fourth.append(0)
        low.append(-1)
        high.append(-1)
        for s in range(4):
            masks.append(four & ~(1 << (13 * s + r)))
            kinds.append(1)
            fourth.append(1 << (13 * s + r))
            low.append(-1)
            high.append(-1)
    return (
        np.array(masks, dtype=np.int64),
        np.array(kinds, dtype=np.int64),
        np.array(fourth, dtype=np.int64),
        np.array(low, dtype=np.int64),
        np.array(high, dtype=np.int64),
    )


#: Deadwood of each 13-bit suit pattern covered by runs only (8,192 entries).
RUN_DEADWOOD = _build_run_deadwood()
_PATTERN_PIPS = _build_pattern_pips()
#: Every gin meld as a 52-bit mask, in the order of ``gin_env.melds.ALL_MELDS``.
MELD_MASKS, _MELD_KIND, _MELD_FOURTH, _MELD_LOW, _MELD_HIGH = _build_melds()
_NUM_MELDS = len(MELD_MASKS)
_RUNS_PER_SUIT = len(_local_runs())
#: Times a rank's bit in suit 0, the four cards of that rank.
_RANK_SPREAD = 1 | 1 << 13 | 1 << 26 | 1 << 39
#: Above this many ranks held three or four times, deadwood uses the rank-by-rank search
#: (as the reference does) instead of enumerating set choices.
_MAX_SET_RANKS = 4
#: Lay-off choices a run can offer: (down + 1) * (up + 1) with down + up <= 10 cards.
_OPT_STRIDE = 36


# -- small helpers ---------------------------------------------------------------------------


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]
    """Population count (LLVM ``ctpop``) of an integer."""
    sig = x(x)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return sig, codegen


@numba.njit(cache=True, inline="always")
def _bit_index(bit: int) -> int:
    """Index of the lowest set bit of ``bit`` (nonzero)."""
    return trailing_zeros(bit)  # type: ignore[call-arg]


@numba.njit(cache=True, inline="always")
def popcount(x: int) -> int:
    return _ctpop(x)  # type: ignore[call-arg]


@numba.njit(cache=True, inline="always")
def _mask_points(hand: int) -> int:
    pips = _PATTERN_PIPS
    return (
        pips[hand & _SUIT_BITS]
        + pips[(hand >> 13) & _SUIT_BITS]
        + pips[(hand >> 26) & _SUIT_BITS]
        + pips[(hand >> 39) & _SUIT_BITS]
    )


@numba.njit(cache=True, inline="always")
def _runs_deadwood(hand: int) -> int:
    dw = RUN_DEADWOOD
    return (
        dw[hand & _SUIT_BITS]
        + dw[(hand >> 13) & _SUIT_BITS]
        + dw[(hand >> 26) & _SUIT_BITS]
        + dw[(hand >> 39) & _SUIT_BITS]
    )


@numba.njit(cache=True)
def _check_hand(hand: int) -> None:
    if hand < 0 or hand > _FULL_DECK:
        raise ValueError("hand must be a 52-bit card mask (0 <= hand < 2**52)")


@numba.njit(cache=True, inline="always")
def _triple_ranks(hand: int) -> int:
    """13-bit mask of the ranks the hand holds in three or four suits."""
    a = hand & _SUIT_BITS
    b = (hand >> 13) & _SUIT_BITS
    c = (hand >> 26) & _SUIT_BITS
    d = (hand >> 39) & _SUIT_BITS
    return (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)


# -- deadwood --------------------------------------------------------------------------------


@numba.njit(cache=True)
def _deadwood_sets(hand: int, triples: int) -> int:
    """Minimum deadwood over every choice of sets at the ranks of ``triples`` (no set, the
    three or four cards, or with four cards each three of them), the runs read from the
    table once the sets are chosen."""
    if not triples:
        return _runs_deadwood(hand)
    low = triples & -triples
    rest = triples ^ low
    best = _deadwood_sets(hand, rest)  # no set at this rank
    if best == 0:
        return 0
    col = hand & (low * _RANK_SPREAD)
    v = _deadwood_sets(hand & ~col, rest)
    if v < best:
        best = v
    if popcount(col) == 4:
        c = col
        while c and best:
            bit = c & -c
            c ^= bit
            v = _deadwood_sets(hand & ~(col ^ bit), rest)
            if v < best:
                best = v
    return best


@numba.njit(cache=True)
def _deadwood_rank_dp(hand: int) -> int:
    """Exact deadwood rank by rank (for hands with many triple ranks): the state is each
    suit's open run length (0, 1, 2, or 3 for three or more), two bits a suit; at each rank
    every held card continues its suit's run, joins the rank's set (three or four cards) or
    is deadwood, and a run shorter than three may not end."""
    cost = np.empty(256, dtype=np.int64)
    nxt = np.empty(256, dtype=np.int64)
    for state in range(256):
        cost[state] = _INF
    cost[0] = 0
    for r in range(_NUM_RANKS):
        held = ((hand >> r) & 1) | ((hand >> (12 + r)) & 2)
        held |= ((hand >> (24 + r)) & 4) | ((hand >> (36 + r)) & 8)
        pips = _RANK_PIPS[r]
        for state in range(256):
            nxt[state] = _INF
        run = held  # the suits whose card continues a run: every subset of held
        while True:
            rest = held & ~run
            in_set = rest  # every subset of the rest that makes a set (or none)
            while True:
                n_set = popcount(in_set)
                if n_set == 0 or n_set >= 3:
                    extra = popcount(rest & ~in_set) * pips
                    for state in range(256):
                        base = cost[state]
                        if base >= _INF:
                            continue
                        new_state = 0
                        ok = True
                        for s in range(4):
                            length = (state >> (2 * s)) & 3
                            if (run >> s) & 1:
                                new_state |= min(length + 1, 3) << (2 * s)
                            elif length == 1 or length == 2:
                                ok = False
                        if ok and base + extra < nxt[new_state]:
                            nxt[new_state] = base + extra
                if in_set == 0:
                    break
                in_set = (in_set - 1) & rest
            if run == 0:
                break
            run = (run - 1) & held
        for state in range(256):
            cost[state] = nxt[state]
    best = _INF
    for state in range(256):
        closed = True
        for s in range(4):
            length = (state >> (2 * s)) & 3
            if length == 1 or length == 2:
                closed = False
        if closed and cost[state] < best:
            best = cost[state]
    return best


@numba.njit(cache=True)
def deadwood_nb(hand: int) -> int:
    """Exact minimum deadwood of a 52-bit hand mask (any number of cards)."""
    _check_hand(hand)
    triples = _triple_ranks(hand)
    if not triples:
        return _runs_deadwood(hand)
    if popcount(triples) > _MAX_SET_RANKS:
        return _deadwood_rank_dp(hand)
    return _deadwood_sets(hand, triples)


# -- discard deadwoods -----------------------------------------------------------------------


@numba.njit(cache=True)
def _discard_leaf(rest: int, out: np.ndarray) -> None:
    """Sets fixed (``rest`` is what they leave): discarding card c of suit s only changes
    that suit's run cover."""
    dw = RUN_DEADWOOD
    total = _runs_deadwood(rest)
    for s in range(4):
        p = (rest >> (13 * s)) & _SUIT_BITS
        base = total - dw[p]
        q = p
        while q:
            bit = q & -q
            q ^= bit
            card = 13 * s + _bit_index(bit)
            v = base + dw[p ^ bit]
            if v < out[card]:
                out[card] = v


@numba.njit(cache=True)
def _discard_sets(rest: int, triples: int, out: np.ndarray) -> None:
    if not triples:
        _discard_leaf(rest, out)
        return
    low = triples & -triples
    others = triples ^ low
    _discard_sets(rest, others, out)  # no set at this rank
    col = rest & (low * _RANK_SPREAD)
    _discard_sets(rest & ~col, others, out)
    if popcount(col) == 4:
        c = col
        while c:
            bit = c & -c
            c ^= bit
            _discard_sets(rest & ~(col ^ bit), others, out)


@numba.njit(cache=True)
def discard_deadwoods_nb(hand: int, out: np.ndarray) -> None:
    """``out[c]`` = deadwood of ``hand`` without card ``c`` for every ``c`` in the hand,
    ``-1`` for the cards not in it. ``out`` is an ``int64`` array of 52 entries."""
    _check_hand(hand)
    if out.shape[0] != 52:
        raise ValueError("out must hold 52 entries")
    for c in range(52):
        out[c] = _INF if hand >> c & 1 else -1
    triples = _triple_ranks(hand)
    if triples:
        _discard_sets(hand, triples, out)
    else:
        _discard_leaf(hand, out)


# -- showdown --------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _net(k_dw: int, d_dw: int, undercut_bonus: int) -> int:
    """The knocker's points minus the defender's for one arrangement and reply."""
    if k_dw < d_dw:
        return d_dw - k_dw
    return -(undercut_bonus + k_dw - d_dw)


@numba.njit(cache=True)
def _best_defence(
    family: np.ndarray,
    n_family: int,
    defender: int,
    d0: int,
    opts: np.ndarray,
    nopts: np.ndarray,
    idx: np.ndarray,
) -> int:
    """The defender's least deadwood after laying off onto the knocker's melds
    ``MELD_MASKS[family[:n_family]]`` (sets of three take the fourth card, runs take chains
    at either end), as ``melds.best_defence(...).deadwood``. ``d0`` is his deadwood without
    lay-offs; ``opts`` (36 entries a meld, flat), ``nopts`` and ``idx`` are scratch."""
    k = 0
    for j in range(n_family):
        m = family[j]
        kind = _MELD_KIND[m]
        if kind == 2:
            continue
        if kind == 1:
            fourth = _MELD_FOURTH[m]
            if fourth & defender:
                opts[k * _OPT_STRIDE] = 0
                opts[k * _OPT_STRIDE + 1] = fourth
                nopts[k] = 2
                k += 1
            continue
        low = _MELD_LOW[m]
        high = _MELD_HIGH[m]
        suit_lo = (low // 13) * 13
        nd = 0
        c = low - 1
        while c >= suit_lo and defender >> c & 1:
            nd += 1
            c -= 1
        nu = 0
        c = high + 1
        while c < suit_lo + 13 and defender >> c & 1:
            nu += 1
            c += 1
        if nd == 0 and nu == 0:
            continue
        n = 0
        down = 0
        for i in range(nd + 1):
            if i:
                down |= 1 << (low - i)
            up = 0
            for j2 in range(nu + 1):
                if j2:
                    up |= 1 << (high + j2)
                opts[k * _OPT_STRIDE + n] = down | up
                n += 1
        nopts[k] = n
        k += 1
    best = d0
    if k == 0 or best == 0:
        return best
    idx[:k] = 0
    idx[0] = 1  # the all-zero choice (no lay-off) is ``best`` already
    while True:
        i = 0
        if idx[0] >= nopts[0]:
            # carry
            idx[0] = 0
            i = 1
            while i < k:
                idx[i] += 1
                if idx[i] < nopts[i]:
                    break
                idx[i] = 0
                i += 1
            if i == k:
                return best
        laid = 0
        ok = True
        for j in range(k):
            o = opts[j * _OPT_STRIDE + idx[j]]
            if laid & o:
                ok = False
                break
            laid |= o
        if ok:
            v = deadwood_nb(defender & ~laid)
            if v < best:
                best = v
                if best == 0:
                    return 0
        idx[0] += 1


@numba.njit(cache=True)
def _candidate_melds(hand: int, cand: np.ndarray, fill: bool) -> int:
    """The number of melds inside ``hand`` (and with ``fill`` their ids in ``cand``), in
    the order of ``MELD_MASKS``; only suits with three in a row and ranks held three
    times are scanned."""
    n = 0
    for s in range(4):
        p = (hand >> (13 * s)) & _SUIT_BITS
        if p & (p >> 1) & (p >> 2):
            for j in range(_RUNS_PER_SUIT * s, _RUNS_PER_SUIT * (s + 1)):
                m = MELD_MASKS[j]
                if m & hand == m:
                    if fill:
                        cand[n] = j
                    n += 1
    t = _triple_ranks(hand)
    while t:
        low = t & -t
        t ^= low
        first = 4 * _RUNS_PER_SUIT + 5 * _bit_index(low)
        for j in range(first, first + 5):
            m = MELD_MASKS[j]
            if m & hand == m:
                if fill:
                    cand[n] = j
                n += 1
    return n


@numba.njit(cache=True)
def showdown_nb(
    knocker: int, defender: int, knock_limit: int, gin_bonus: int, undercut_bonus: int
) -> tuple[int, int, int, int, int]:
    """Resolve a knock optimally for both sides, as :func:`gin_env.melds.showdown`.

    Returns ``(kind, knocker_points, defender_points, knocker_deadwood, defender_deadwood)``
    with ``kind`` 0 knock, 1 undercut, 2 gin. The defender minimises his deadwood (with
    lay-offs unless gin); the knocker picks, among all his arrangements with deadwood
    <= ``knock_limit`` (melds left unmelded included), the one that maximises his net
    result, preferring less deadwood shown on ties.
    """
    _check_hand(knocker)
    _check_hand(defender)
    if knocker & defender:
        raise ValueError("knocker and defender hands must not share cards")
    k_min = deadwood_nb(knocker)
    if k_min > knock_limit:
        raise ValueError("knocker's deadwood exceeds knock_limit")
    d0 = deadwood_nb(defender)
    if k_min == 0:
        return (GIN, gin_bonus + d0, 0, 0, d0)
    n = _candidate_melds(knocker, np.empty(0, dtype=np.int64), False)
    # One scratch buffer for the whole search, cut into views.
    frames = 2 * n + 2
    buf = np.empty(n + (n + 1) * (4 + _OPT_STRIDE) + 5 * frames, dtype=np.int64)
    cand = buf[:n]
    at = n
    reach = buf[at : at + n + 1]
    at += n + 1
    family = buf[at : at + n + 1]
    at += n + 1
    nopts = buf[at : at + n + 1]
    at += n + 1
    idx = buf[at : at + n + 1]
    at += n + 1
    opts = buf[at : at + (n + 1) * _OPT_STRIDE]
    at += (n + 1) * _OPT_STRIDE
    # Depth-first over families, leaving each meld out before putting it in (the
    # reference's order). A frame: next meld index, cards used, points melded, the
    # family's length and the meld it adds on entry (-1 none).
    st_i = buf[at : at + frames]
    at += frames
    st_used = buf[at : at + frames]
    at += frames
    st_val = buf[at : at + frames]
    at += frames
    st_len = buf[at : at + frames]
    at += frames
    st_meld = buf[at : at + frames]
    _candidate_melds(knocker, cand, True)
    # reach[i]: the cards the melds i.. could still meld.
    reach[n] = 0
    for i in range(n - 1, -1, -1):
        reach[i] = reach[i + 1] | MELD_MASKS[cand[i]]
    total = _mask_points(knocker)
    prune_by_key = undercut_bonus >= 0
    have = False
    best_net = 0
    best_k = 0
    best_d = 0
    top = 0
    st_i[0] = 0
    st_used[0] = 0
    st_val[0] = 0
    st_len[0] = 0
    st_meld[0] = -1
    while top >= 0:
        i = st_i[top]
        used = st_used[top]
        val = st_val[top]
        flen = st_len[top]
        meld = st_meld[top]
        top -= 1
        if meld >= 0:
            family[flen - 1] = meld
        # Lowest deadwood any family below can reach.
        k_low = total - val - _mask_points(reach[i] & ~used)
        if k_low > knock_limit:
            continue
        if have and prune_by_key:
            ub = _net(k_low, d0, undercut_bonus)
            if ub < best_net or (ub == best_net and -k_low <= -best_k):
                continue
        if i == n:
            k_dw = total - val
            d_dw = _best_defence(family, flen, defender, d0, opts, nopts, idx)
            net = _net(k_dw, d_dw, undercut_bonus)
            if not have or net > best_net or (net == best_net and -k_dw > -best_k):
                have = True
                best_net = net
                best_k = k_dw
                best_d = d_dw
            continue
        m = MELD_MASKS[cand[i]]
        if not m & used:
            top += 1
            st_i[top] = i + 1
            st_used[top] = used | m
            st_val[top] = val + _mask_points(m)
            st_len[top] = flen + 1
            st_meld[top] = cand[i]
        top += 1
        st_i[top] = i + 1
        st_used[top] = used
        st_val[top] = val
        st_len[top] = flen
        st_meld[top] = -1
    if best_k < best_d:
        return (KNOCK, best_d - best_k, 0, best_k, best_d)
    return (UNDERCUT, 0, undercut_bonus + best_k - best_d, best_k, best_d)


# -- batches (for benchmarks and numpy callers) -----------------------------------------------


@numba.njit(cache=True)
def deadwood_batch(hands: np.ndarray) -> np.ndarray:
    """``deadwood_nb`` of every mask in an ``int64`` array."""
    out = np.empty(hands.shape[0], dtype=np.int64)
    for i in range(hands.shape[0]):
        out[i] = deadwood_nb(hands[i])
    return out


@numba.njit(cache=True)
def discard_deadwoods_batch(hands: np.ndarray) -> np.ndarray:
    """``[len(hands), 52]``: ``discard_deadwoods_nb`` of every mask in an ``int64`` array."""
    out = np.empty((hands.shape[0], 52), dtype=np.int64)
    for i in range(hands.shape[0]):
        discard_deadwoods_nb(hands[i], out[i])
    return out


@numba.njit(cache=True)
def showdown_batch(
    knockers: np.ndarray,
    defenders: np.ndarray,
    knock_limit: int,
    gin_bonus: int,
    undercut_bonus: int,
) -> np.ndarray:
    """``[len(knockers), 5]``: ``showdown_nb`` of every (knocker, defender) pair."""
    out = np.empty((knockers.shape[0], 5), dtype=np.int64)
    for i in range(knockers.shape[0]):
        r = showdown_nb(knockers[i], defenders[i], knock_limit, gin_bonus, undercut_bonus)
        out[i, 0] = r[0]
        out[i, 1] = r[1]
        out[i, 2] = r[2]
        out[i, 3] = r[3]
        out[i, 4] = r[4]
    return out
