"""Test helpers: an independent brute-force meld/deadwood/showdown oracle, deck builders and
random policies. Nothing here imports ``gin_env.melds``: the oracle must stay independent of
the engine it checks (only the card numbering, ``suit * 13 + rank``, is shared: it is fixed by
DESIGN.md)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from gin_env import actions as A
from gin_env.cards import parse_cards

RANKS = 13
SUITS = 4


def card(rank: int, suit: int) -> int:
    return suit * RANKS + rank


def pip(c: int) -> int:
    """Ace 1, two..ten face value, J Q K 10 (written out again on purpose)."""
    return (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)[c % RANKS]


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def hand(text: str) -> int:
    """A hand mask from text, e.g. ``hand("AS 2S 3S")``."""
    return mask_of(parse_cards(text))


def pips(mask: int) -> int:
    return sum(pip(c) for c in cards_of(mask))


# -- brute-force melds -------------------------------------------------------------------


def build_melds(ace_high: bool = False) -> list[int]:
    """Every set and run as a card mask, built from ranks and suits.

    Runs are consecutive ranks of one suit, ace low (A-2-3). With ``ace_high`` the ace may
    also sit above the king (Q-K-A), but a run never wraps (K-A-2).
    """
    melds = []
    for r in range(RANKS):
        for size in (3, 4):
            for suits in _combinations(range(SUITS), size):
                melds.append(mask_of(card(r, s) for s in suits))
    # Positions 0..12 are A..K; position 13 is the ace again when ace_high.
    top = RANKS + 1 if ace_high else RANKS
    for s in range(SUITS):
        for start in range(top):
            for length in range(3, top - start + 1):
                positions = range(start, start + length)
                ranks = [p % RANKS for p in positions]
                if len(set(ranks)) != len(ranks):
                    continue  # A..K..A would use the ace twice
                melds.append(mask_of(card(r, s) for r in ranks))
    return sorted(set(melds))


def _combinations(items: Iterable[int], k: int) -> list[tuple[int, ...]]:
    items = list(items)
    if k == 0:
        return [()]
    out = []
    for i, x in enumerate(items):
        for rest in _combinations(items[i + 1 :], k - 1):
            out.append((x,) + rest)
    return out


GIN_MELDS_BF = build_melds(ace_high=False)
ACE_HIGH_MELDS_BF = build_melds(ace_high=True)
_MELD_SET = frozenset(GIN_MELDS_BF)


def is_real_meld(mask: int) -> bool:
    """A set of 3-4 cards of one rank or a run of 3+ consecutive cards of one suit (ace low)."""
    cs = cards_of(mask)
    if len(cs) < 3:
        return False
    ranks = [c % RANKS for c in cs]
    suits = [c // RANKS for c in cs]
    if len(set(ranks)) == 1:
        return len(cs) <= 4
    if len(set(suits)) == 1:
        ranks.sort()
        return ranks == list(range(ranks[0], ranks[0] + len(ranks)))
    return False


def brute_deadwood(mask: int, melds: Sequence[int] = GIN_MELDS_BF) -> int:
    """Exact minimum deadwood by plain recursion: the lowest card is deadwood or in a meld."""
    inside = [m for m in melds if m & mask == m]
    memo: dict[int, int] = {}

    def go(rest: int) -> int:
        if not rest:
            return 0
        if rest in memo:
            return memo[rest]
        low = (rest & -rest).bit_length() - 1
        best = pip(low) + go(rest & ~(1 << low))
        for m in inside:
            if m >> low & 1 and m & rest == m:
                best = min(best, go(rest & ~m))
        memo[rest] = best
        return best

    return go(mask)


def meld_families(mask: int, melds: Sequence[int] = GIN_MELDS_BF) -> list[tuple[int, ...]]:
    """Every family of disjoint melds inside ``mask`` (the empty family included)."""
    inside = [m for m in melds if m & mask == m]
    out: list[tuple[int, ...]] = []

    def walk(i: int, used: int, chosen: tuple[int, ...]) -> None:
        if i == len(inside):
            out.append(chosen)
            return
        walk(i + 1, used, chosen)
        if not inside[i] & used:
            walk(i + 1, used | inside[i], chosen + (inside[i],))

    walk(0, 0, ())
    return out


def brute_defender_deadwood(knocker_melds: tuple[int, ...], defender: int) -> int:
    """Defender's least deadwood, laying off one card at a time onto the (growing) melds."""
    seen: dict[tuple[tuple[int, ...], int], int] = {}

    def go(kmelds: tuple[int, ...], rest: int) -> int:
        key = (kmelds, rest)
        if key in seen:
            return seen[key]
        best = brute_deadwood(rest)
        for c in cards_of(rest):
            for i, m in enumerate(kmelds):
                grown = m | 1 << c
                if is_real_meld(grown):
                    nxt = tuple(sorted(kmelds[:i] + (grown,) + kmelds[i + 1 :]))
                    best = min(best, go(nxt, rest & ~(1 << c)))
        seen[key] = best
        return best

    return go(tuple(sorted(knocker_melds)), defender)


def brute_showdown(
    knocker: int,
    defender: int,
    knock_limit: int = 10,
    gin_bonus: int = 25,
    undercut_bonus: int = 10,
) -> tuple[str, int, int]:
    """``(kind, knocker_points, defender_points)`` by naive enumeration of both sides."""
    if brute_deadwood(knocker) == 0:
        return "gin", gin_bonus + brute_deadwood(defender), 0
    best: tuple[int, str, int, int] | None = None
    for family in meld_families(knocker):
        k_dw = pips(knocker & ~mask_of_melds(family))
        if k_dw > knock_limit:
            continue
        d_dw = brute_defender_deadwood(family, defender)
        if k_dw < d_dw:
            outcome = (d_dw - k_dw, "knock", d_dw - k_dw, 0)
        else:
            pts = undercut_bonus + k_dw - d_dw
            outcome = (-pts, "undercut", 0, pts)
        if best is None or outcome[0] > best[0]:
            best = outcome
    assert best is not None, "knocker has no legal arrangement"
    return best[1], best[2], best[3]


def mask_of_melds(melds: Iterable[int]) -> int:
    m = 0
    for x in melds:
        m |= x
    return m


# -- decks -------------------------------------------------------------------------------


def make_deck(nondealer: str, dealer: str, upcard: str, stock: str = "") -> list[int]:
    """A deck that deals ``nondealer`` and ``dealer`` (10 cards each, as text), turns
    ``upcard`` and puts ``stock`` on top of the stock; the other cards follow in order."""
    nd, dl, up, st = (parse_cards(t) for t in (nondealer, dealer, upcard, stock))
    assert len(nd) == 10 and len(dl) == 10 and len(up) == 1, (nd, dl, up)
    deck: list[int] = []
    for a, b in zip(nd, dl, strict=True):
        deck += [a, b]
    deck += up + st
    rest = [c for c in range(52) if c not in set(deck)]
    deck += rest
    assert sorted(deck) == list(range(52)), "cards repeat across the deck"
    return deck


def random_deck(rng: random.Random) -> list[int]:
    deck = list(range(52))
    rng.shuffle(deck)
    return deck


# -- policies ----------------------------------------------------------------------------


def knocky_policy(
    legal: Sequence[int],
    rng: random.Random,
    discard_deadwoods: dict[int, int] | None = None,
    knock_p: float = 0.95,
    greedy_p: float = 0.7,
) -> int:
    """Random play that knocks (or lays down big gin) whenever it can, with high probability.

    With ``discard_deadwoods`` (card -> deadwood left after discarding it) it also discards
    greedily with probability ``greedy_p``, so hands reach a knock before the stock runs out.
    """
    if A.BIG_GIN in legal and rng.random() < knock_p:
        return A.BIG_GIN
    knocks = [a for a in legal if A.KNOCK <= a < A.BIG_GIN]
    if knocks and rng.random() < knock_p:
        return rng.choice(knocks)
    discards = [a for a in legal if A.DISCARD <= a < A.KNOCK]
    if discards and discard_deadwoods and rng.random() < greedy_p:
        return min(discards, key=lambda a: (discard_deadwoods[a - A.DISCARD], rng.random()))
    return rng.choice(legal)


#: The 52-card parts of a gin observation vector.
CARD_PARTS = (
    "hand",
    "top_discard",
    "discard_pile",
    "opponent_took",
    "opponent_discarded",
    "partner_discarded",
)


def env_choice(env: Any, obs: dict[str, Any], rng: random.Random) -> int:
    """Knock-happy random play through an env (greedy discards 70% of the time, peeking at
    the engine for the deadwood after each discard)."""
    from gin_env.hand import Phase

    legal = [int(a) for a in obs["action_mask"].nonzero()[0]]
    hand = env.unwrapped.match.hand
    dws = hand.discard_deadwoods() if hand.phase is Phase.DISCARD else None
    return knocky_policy(legal, rng, dws)
