"""Melds, exact deadwood, knock discards, lay-offs and the optimal gin showdown.

Everything works on hands as 52-bit masks (see :mod:`gin_env.cards`). Deadwood is exact
and fast because sets and runs separate: a set takes one card of each of three or four
suits at one rank, and once the sets are chosen, the runs of each suit are independent.
So ``deadwood`` enumerates the few set choices (ranks held three or four times) and reads
each suit's best run cover from a 8,192-entry table built at import.

>>> from gin_env.cards import parse_cards
>>> deadwood(parse_cards("AS 2S 3S 7H 7D 7C KC"))
10
>>> deadwood(parse_cards("QS KS AS"))  # Q-K-A is not a run in gin
21
>>> melds, dead = best_arrangement(to_mask(parse_cards("5H 6H 7H 7S 7D 2C")))
>>> [cards_str(m) for m in melds], cards_str(dead)  # the set of sevens beats the run
(['7S 7H 7D'], '5H 6H 2C')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gin_env.cards import (
    NUM_RANKS,
    POINTS,
    cards_str,
    check_card,
    from_mask,
    mask_points,
    to_mask,
)

__all__ = [
    "MeldTable",
    "GIN_MELDS",
    "ALL_MELDS",
    "RUN_MELDS",
    "SET_MELDS",
    "deadwood",
    "deadwood_mask",
    "best_arrangement",
    "discard_deadwoods",
    "knock_discards",
    "is_meld",
    "candidate_melds",
    "arrangements",
    "layoff_options",
    "best_defence",
    "Showdown",
    "showdown",
]

_SUIT_BITS = (1 << NUM_RANKS) - 1
_RANK_PIPS = tuple(min(r + 1, 10) for r in range(NUM_RANKS))


def _local_runs(ace_high: bool) -> list[int]:
    """13-bit masks of every run within one suit (ace low; also Q-K-A style if ace_high)."""
    runs = []
    for start in range(NUM_RANKS):
        for end in range(start + 3, NUM_RANKS + 1):
            runs.append(((1 << (end - start)) - 1) << start)
    if ace_high:
        # A run that ends with the ace above the king: bits start..12 plus bit 0, never wrapping.
        for start in range(1, NUM_RANKS - 1):
            run = (((1 << (NUM_RANKS - start)) - 1) << start) | 1
            if run != _SUIT_BITS:  # A-2-..-K already listed
                runs.append(run)
    return runs


class MeldTable:
    """Meld rules for one ace convention: the meld list and the per-suit run tables."""

    def __init__(self, ace_high: bool = False) -> None:
        self.ace_high = ace_high
        local_runs = _local_runs(ace_high)
        self.run_melds = tuple(run << (13 * s) for s in range(4) for run in local_runs)
        sets = []
        for r in range(NUM_RANKS):
            four = sum(1 << (13 * s + r) for s in range(4))
            sets.append(four)
            sets.extend(four & ~(1 << (13 * s + r)) for s in range(4))
        self.set_melds = tuple(sets)
        self.melds = self.run_melds + self.set_melds
        self._meld_set = frozenset(self.melds)
        # Runs grouped by their lowest bit, for the table below.
        by_low: list[list[int]] = [[] for _ in range(NUM_RANKS)]
        for run in local_runs:
            by_low[(run & -run).bit_length() - 1].append(run)
        # dw[p]: deadwood of a suit pattern covered by runs only; cover[p]: the runs used.
        size = 1 << NUM_RANKS
        dw = [0] * size
        cover: list[tuple[int, ...]] = [()] * size
        for p in range(1, size):
            low = (p & -p).bit_length() - 1
            best = dw[p ^ (1 << low)] + _RANK_PIPS[low]
            best_cover = cover[p ^ (1 << low)]
            for run in by_low[low]:
                if run & p == run and dw[p ^ run] < best:
                    best = dw[p ^ run]
                    best_cover = (run,) + cover[p ^ run]
            dw[p] = best
            cover[p] = best_cover
        self._dw = dw
        self._cover = cover

    # -- deadwood -------------------------------------------------------------------------
    def deadwood_mask(self, hand: int) -> int:
        """Exact minimum deadwood of a hand mask."""
        a = hand & _SUIT_BITS
        b = (hand >> 13) & _SUIT_BITS
        c = (hand >> 26) & _SUIT_BITS
        d = hand >> 39
        triples = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)
        if not triples:
            dw = self._dw
            return dw[a] + dw[b] + dw[c] + dw[d]
        if triples.bit_count() > _MAX_SET_RANKS:
            return self._rank_dp(hand)[0]
        return self._min_dw(a, b, c, d, triples)

    def _min_dw(self, a: int, b: int, c: int, d: int, triples: int) -> int:
        if not triples:
            dw = self._dw
            return dw[a] + dw[b] + dw[c] + dw[d]
        low = triples & -triples
        rest = triples ^ low
        best = self._min_dw(a, b, c, d, rest)  # no set at this rank
        na, nb, nc, nd = a & ~low, b & ~low, c & ~low, d & ~low
        for sa, sb, sc, sd in _set_choices(a & low, b & low, c & low, d & low):
            v = self._min_dw(
                na if sa else a, nb if sb else b, nc if sc else c, nd if sd else d, rest
            )
            if v < best:
                best = v
        return best

    def deadwood(self, cards: Iterable[int]) -> int:
        return self.deadwood_mask(to_mask(cards))

    # -- arrangement ----------------------------------------------------------------------
    def best_arrangement(self, hand: int) -> tuple[list[int], int]:
        """``(melds, deadwood_mask)`` of an arrangement with minimum deadwood."""
        pats = [(hand >> (13 * s)) & _SUIT_BITS for s in range(4)]
        triples = (
            (pats[0] & pats[1] & pats[2])
            | (pats[0] & pats[1] & pats[3])
            | (pats[0] & pats[2] & pats[3])
            | (pats[1] & pats[2] & pats[3])
        )
        if triples.bit_count() > _MAX_SET_RANKS:
            melds = self._rank_dp(hand)[1]
        else:
            melds = self._enumerated_arrangement(pats, triples)
        melds = sorted(melds, key=lambda m: m & -m)
        melded = 0
        for m in melds:
            melded |= m
        return melds, hand & ~melded

    def _enumerated_arrangement(self, pats: list[int], triples: int) -> list[int]:
        best: tuple[int, list[int]] | None = None
        for sets in self._set_families(pats, triples):
            rest = list(pats)
            for m in sets:
                for s in range(4):
                    rest[s] &= ~((m >> (13 * s)) & _SUIT_BITS)
            value = sum(self._dw[p] for p in rest)
            if best is None or value < best[0]:
                runs = [run << (13 * s) for s in range(4) for run in self._cover[rest[s]]]
                best = (value, sets + runs)
        assert best is not None
        return best[1]

    def _rank_dp(self, hand: int) -> tuple[int, list[int]]:
        """Exact deadwood and melds of any hand, rank by rank: polynomial where the set
        enumeration is exponential (big rummy hands with many ranks held three times).

        The state is each suit's open run length (0, 1, 2, or 3 for three or more); every
        held card is deadwood, in a set at its rank, or in its suit's run. With ``ace_high``
        each suit's ace may instead sit above the king, tried for every subset of suits.
        """
        best: tuple[int, list[int]] | None = None
        aces = [s for s in range(4) if hand >> (13 * s) & 1] if self.ace_high else []
        for k in range(1 << len(aces)):
            high = [s for i, s in enumerate(aces) if k >> i & 1]
            found = _run_set_dp(hand, high)
            if found is not None and (best is None or found[0] < best[0]):
                best = found
        assert best is not None
        return best

    def _set_families(self, pats: list[int], triples: int) -> list[list[int]]:
        families: list[list[int]] = [[]]
        while triples:
            low = triples & -triples
            triples ^= low
            r = low.bit_length() - 1
            here = [pats[s] & low for s in range(4)]
            options: list[list[int]] = [[]] + [
                [sum(1 << (13 * s + r) for s in range(4) if choice[s])]
                for choice in _set_choices(*here)
            ]
            families = [f + o for f in families for o in options]
        return families

    # -- eleven cards ---------------------------------------------------------------------
    def discard_deadwoods(self, hand: int) -> dict[int, int]:
        """``{card: deadwood of hand without card}`` for every card, in one search."""
        a = hand & _SUIT_BITS
        b = (hand >> 13) & _SUIT_BITS
        c = (hand >> 26) & _SUIT_BITS
        d = hand >> 39
        triples = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)
        best: dict[int, int] = {}
        self._discard_search([a, b, c, d], triples, best)
        return best

    def _discard_search(self, pats: list[int], triples: int, best: dict[int, int]) -> None:
        if triples:
            low = triples & -triples
            rest = triples ^ low
            self._discard_search(pats, rest, best)
            present = [p & low for p in pats]
            for choice in _set_choices(*present):
                self._discard_search(
                    [p & ~low if chosen else p for p, chosen in zip(pats, choice, strict=True)],
                    rest,
                    best,
                )
            return
        # Leaf: sets fixed; discarding card c of suit s only changes that suit's run cover.
        dw = self._dw
        values = [dw[p] for p in pats]
        total = values[0] + values[1] + values[2] + values[3]
        for s in range(4):
            p = pats[s]
            base = total - values[s]
            while p:
                bit = p & -p
                p ^= bit
                card = 13 * s + bit.bit_length() - 1
                v = base + dw[pats[s] ^ bit]
                old = best.get(card)
                if old is None or v < old:
                    best[card] = v

    # -- melds of a hand ------------------------------------------------------------------
    def is_meld(self, mask: int) -> bool:
        return mask in self._meld_set

    def candidate_melds(self, hand: int) -> list[int]:
        """Every meld (sub-runs and three-card subsets of sets included) inside a hand."""
        return [m for m in self.melds if m & hand == m]


#: Above this many ranks held three or four times, the set-choice enumeration (up to 6
#: choices a rank) gives way to the rank-by-rank search.
_MAX_SET_RANKS = 4


def _run_set_dp(hand: int, high_aces: list[int]) -> tuple[int, list[int]] | None:
    """Min deadwood and its melds; the aces of ``high_aces`` suits may only follow a king."""
    ranks = 14 if high_aces else 13
    held = [[False] * 4 for _ in range(ranks)]
    for s in range(4):
        for r in range(13):
            if hand >> (13 * s + r) & 1:
                if r == 0 and s in high_aces:
                    held[13][s] = True
                else:
                    held[r][s] = True
    # layers[r][state] = (cost, previous state, assignment); assignment per suit:
    # 0 absent, 1 deadwood, 2 set, 3 run.
    start = (0, 0, 0, 0)
    layer: dict[tuple[int, ...], int] = {start: 0}
    back: list[dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]]] = []
    for r in range(ranks):
        suits = [s for s in range(4) if held[r][s]]
        pips = _RANK_PIPS[r % 13]
        new: dict[tuple[int, ...], int] = {}
        links: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        options = _assignments(len(suits), allow_sets=r < 13)
        for state, cost in layer.items():
            for choice in options:
                assign = [0, 0, 0, 0]
                for s, c in zip(suits, choice, strict=True):
                    assign[s] = c
                nxt = []
                extra = 0
                for s in range(4):
                    if assign[s] == 3:
                        nxt.append(min(state[s] + 1, 3))
                    elif state[s] in (1, 2):
                        break  # an open run shorter than three would end here
                    else:
                        nxt.append(0)
                        if assign[s] == 1:
                            extra += pips
                else:
                    key = tuple(nxt)
                    total = cost + extra
                    if key not in new or total < new[key]:
                        new[key] = total
                        links[key] = (state, tuple(assign))
        layer = new
        back.append(links)
    finals = [(cost, st) for st, cost in layer.items() if all(x in (0, 3) for x in st)]
    if not finals:
        return None
    cost, state = min(finals)
    assigns: list[tuple[int, ...]] = []
    at: tuple[int, ...] = state
    for r in range(ranks - 1, -1, -1):
        at, chosen = back[r][at]
        assigns.append(chosen)
    assigns.reverse()
    return cost, _melds_from_assignments(assigns, high_aces)


def _assignments(n: int, allow_sets: bool) -> list[tuple[int, ...]]:
    """Per-card choices at one rank: deadwood 1, set 2, run 3; sets need 3 or 4 cards."""
    out = []
    for k in range(3**n):
        choice = tuple(k // 3**i % 3 + 1 for i in range(n))
        sets = choice.count(2)
        if sets == 0 or (allow_sets and sets >= 3):
            out.append(choice)
    return out


def _melds_from_assignments(assigns: list[tuple[int, ...]], high_aces: list[int]) -> list[int]:
    def card(r: int, s: int) -> int:
        return 13 * s + (0 if r == 13 else r)

    melds = []
    for r, assign in enumerate(assigns):
        in_set = [s for s in range(4) if assign[s] == 2]
        if in_set:
            melds.append(sum(1 << card(r, s) for s in in_set))
    for s in range(4):
        run = 0
        for r, assign in enumerate(assigns):
            if assign[s] == 3:
                run |= 1 << card(r, s)
            elif run:
                melds.append(run)
                run = 0
        if run:
            melds.append(run)
    return melds


def _set_choices(a: int, b: int, c: int, d: int) -> list[tuple[bool, bool, bool, bool]]:
    """Which suits make a set at one rank, given which suits hold it (3 or 4 of them)."""
    held = (bool(a), bool(b), bool(c), bool(d))
    n = sum(held)
    if n < 3:
        return []
    if n == 3:
        return [held]
    return [held] + [tuple(s != drop for s in range(4)) for drop in range(4)]  # type: ignore[misc]


GIN_MELDS = MeldTable(ace_high=False)
RUN_MELDS = GIN_MELDS.run_melds
SET_MELDS = GIN_MELDS.set_melds
ALL_MELDS = GIN_MELDS.melds

deadwood_mask = GIN_MELDS.deadwood_mask
best_arrangement = GIN_MELDS.best_arrangement
discard_deadwoods = GIN_MELDS.discard_deadwoods
is_meld = GIN_MELDS.is_meld
candidate_melds = GIN_MELDS.candidate_melds


def deadwood(cards: Iterable[int]) -> int:
    """Exact minimum deadwood (gin rules, ace low) of any iterable of distinct card ints."""
    cards = [check_card(c) for c in cards]
    if len(set(cards)) != len(cards):
        raise ValueError(f"cards must be distinct, got {cards_str(cards)}")
    return deadwood_mask(to_mask(cards))


def knock_discards(hand: int, knock_limit: int) -> dict[int, int]:
    """Discards from an 11-card hand that leave deadwood <= ``knock_limit``, with that deadwood."""
    return {c: v for c, v in discard_deadwoods(hand).items() if v <= knock_limit}


# -- showdown ----------------------------------------------------------------------------


def arrangements(hand: int, max_deadwood: int) -> list[tuple[int, ...]]:
    """Every family of disjoint melds in ``hand`` whose deadwood is at most ``max_deadwood``.

    Families include leaving a meld (or part of a long run) unmelded: those cards then
    count as deadwood. Each family is a tuple of meld masks in increasing order.
    """
    melds = candidate_melds(hand)
    total = mask_points(hand)
    melded_pts = [mask_points(m) for m in melds]
    out: list[tuple[int, ...]] = []

    def walk(i: int, used: int, chosen: tuple[int, ...], value: int) -> None:
        if i == len(melds):
            if total - value <= max_deadwood:
                out.append(chosen)
            return
        walk(i + 1, used, chosen, value)
        m = melds[i]
        if not m & used:
            walk(i + 1, used | m, chosen + (m,), value + melded_pts[i])

    walk(0, 0, (), 0)
    return out


def layoff_options(knocker_melds: Iterable[int], defender: int) -> list[int]:
    """Every mask of defender cards that can be laid off together onto the knocker's melds.

    A set of three takes its fourth card; a run takes cards that extend it at either
    end, each laid-off card extending the chain (7H then 6H onto 8H-9H-TH).
    """
    per_meld: list[list[int]] = []
    for meld in knocker_melds:
        cards = from_mask(meld)
        if cards[0] % 13 == cards[1] % 13:  # a set
            if len(cards) == 3:
                r = cards[0] % 13
                fourth = sum(1 << (13 * s + r) for s in range(4)) & ~meld
                per_meld.append([0, fourth] if fourth & defender else [0])
            continue
        options = []
        low, high = cards[0], cards[-1]
        downs = [0]
        c = low - 1
        while c >= 0 and c // 13 == low // 13 and defender >> c & 1:
            downs.append(downs[-1] | 1 << c)
            c -= 1
        ups = [0]
        c = high + 1
        while c // 13 == high // 13 and defender >> c & 1:
            ups.append(ups[-1] | 1 << c)
            c += 1
        options = [dn | up for dn in downs for up in ups]
        per_meld.append(options)
    combos = [0]
    for options in per_meld:
        combos = [done | o for done in combos for o in options if not done & o]
    return combos


@dataclass(frozen=True)
class Defence:
    deadwood: int
    melds: tuple[int, ...]
    layoffs: int  # mask of cards laid off onto the knocker's melds
    deadwood_cards: int


def best_defence(knocker_melds: tuple[int, ...], defender: int, allow_layoffs: bool) -> Defence:
    """The defender's reply that minimises his deadwood (melds, then lay-offs if allowed)."""
    best: Defence | None = None
    options = layoff_options(knocker_melds, defender) if allow_layoffs else [0]
    for layoff in options:
        rest = defender & ~layoff
        dw = deadwood_mask(rest)
        if best is None or dw < best.deadwood:
            melds, dead = best_arrangement(rest)
            best = Defence(dw, tuple(melds), layoff, dead)
    assert best is not None
    return best


@dataclass(frozen=True)
class Showdown:
    """The resolved showdown of a knock. ``kind`` is ``knock``, ``undercut`` or ``gin``."""

    kind: str
    knocker_points: int
    defender_points: int
    knocker_deadwood: int
    defender_deadwood: int
    knocker_melds: tuple[int, ...]
    knocker_deadwood_cards: int
    defender_melds: tuple[int, ...]
    defender_deadwood_cards: int
    layoffs: int

    def describe(self) -> str:
        def melds(ms: tuple[int, ...]) -> str:
            return " | ".join(cards_str(m) for m in ms) or "-"

        return (
            f"{self.kind}: knocker {melds(self.knocker_melds)} "
            f"deadwood [{cards_str(self.knocker_deadwood_cards)}]={self.knocker_deadwood}; "
            f"defender {melds(self.defender_melds)} lays off [{cards_str(self.layoffs)}] "
            f"deadwood [{cards_str(self.defender_deadwood_cards)}]={self.defender_deadwood}"
        )


def showdown(
    knocker: int,
    defender: int,
    knock_limit: int = 10,
    gin_bonus: int = 25,
    undercut_bonus: int = 10,
) -> Showdown:
    """Resolve a knock optimally for both sides (docs/RULES.md section 3, "Knocking").

    ``knocker`` and ``defender`` are the 10-card hands after the knocker's discard. The
    defender minimises his deadwood; the knocker picks, among his arrangements with
    deadwood <= ``knock_limit``, the one that maximises his result given that reply.
    """
    if deadwood_mask(knocker) > knock_limit:
        raise ValueError(
            f"knocker's deadwood {deadwood_mask(knocker)} exceeds knock_limit {knock_limit}"
        )
    if deadwood_mask(knocker) == 0:
        melds, _ = best_arrangement(knocker)
        defence = best_defence((), defender, allow_layoffs=False)
        return Showdown(
            "gin", gin_bonus + defence.deadwood, 0, 0, defence.deadwood, tuple(melds), 0,
            defence.melds, defence.deadwood_cards, 0,
        )  # fmt: skip
    best: tuple[tuple[int, int], Showdown] | None = None
    replies: dict[tuple[int, ...], Defence] = {}
    for family in arrangements(knocker, knock_limit):
        melded = 0
        for m in family:
            melded |= m
        k_dw = mask_points(knocker & ~melded)
        if family not in replies:
            replies[family] = best_defence(family, defender, allow_layoffs=True)
        defence = replies[family]
        d_dw = defence.deadwood
        if k_dw < d_dw:
            kind, k_pts, d_pts = "knock", d_dw - k_dw, 0
        else:
            kind, k_pts, d_pts = "undercut", 0, undercut_bonus + k_dw - d_dw
        # Maximise the knocker's net result; on ties prefer less deadwood shown.
        key = (k_pts - d_pts, -k_dw)
        if best is None or key > best[0]:
            result = Showdown(
                kind, k_pts, d_pts, k_dw, d_dw, family, knocker & ~melded,
                defence.melds, defence.deadwood_cards, defence.layoffs,
            )  # fmt: skip
            best = (key, result)
    assert best is not None
    return best[1]


# Re-exported for doctests and callers that think in masks.
POINTS = POINTS
