"""Cards as ints and hands as 52-bit masks.

A card is ``suit * 13 + rank`` with rank 0 = ace ... 12 = king and suits in the
order spades, hearts, diamonds, clubs. A hand is an int whose bit ``c`` is set when
it holds card ``c``; a meld fits a hand when ``meld & ~hand == 0``.

>>> parse_card("TS"), parse_card("10s"), parse_card("ah")
(9, 9, 13)
>>> card_str(51)
'KC'
>>> [card_str(c) for c in parse_cards("AS 2S, 3s")]
['AS', '2S', '3S']
>>> points(parse_card("QD")), points(parse_card("AC"))
(10, 1)
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

__all__ = [
    "NUM_CARDS",
    "NUM_RANKS",
    "NUM_SUITS",
    "RANK_CHARS",
    "SUIT_CHARS",
    "FULL_DECK",
    "rank",
    "suit",
    "points",
    "make_card",
    "parse_card",
    "parse_cards",
    "card_str",
    "cards_str",
    "to_mask",
    "from_mask",
    "cards_of_mask",
    "mask_points",
    "check_card",
    "check_mask",
]

NUM_RANKS = 13
NUM_SUITS = 4
NUM_CARDS = 52
RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "SHDC"
FULL_DECK = (1 << NUM_CARDS) - 1

_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
POINTS = tuple(min(c % NUM_RANKS + 1, 10) for c in range(NUM_CARDS))


def rank(card: int) -> int:
    """Rank 0 (ace) .. 12 (king)."""
    return check_card(card) % NUM_RANKS


def suit(card: int) -> int:
    """Suit 0..3 in the order S, H, D, C."""
    return check_card(card) // NUM_RANKS


def points(card: int) -> int:
    """Pip value: ace 1, two to ten face value, J Q K 10."""
    return POINTS[check_card(card)]


def make_card(rank_: int, suit_: int) -> int:
    """The card of rank 0..12 (ace .. king) and suit 0..3 (S, H, D, C)."""
    r, s = _as_int(rank_), _as_int(suit_)
    if r is None or not 0 <= r < NUM_RANKS:
        raise ValueError(f"rank must be an int in 0..12 (ace .. king), got {rank_!r}")
    if s is None or not 0 <= s < NUM_SUITS:
        raise ValueError(f"suit must be an int in 0..3 (S, H, D, C), got {suit_!r}")
    return s * NUM_RANKS + r


def _as_int(value: object) -> int | None:
    """``value`` as a plain int if it is an integer (a numpy int too), else None: a bool,
    a float (3.0 included), a string or an array is not a card's number."""
    if type(value) is int:
        return value
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def check_card(card: object) -> int:
    """Return ``card`` as a plain int if it is a card int 0..51 (a numpy int too), else raise
    ``ValueError``."""
    c = _as_int(card)
    if c is None or not 0 <= c < NUM_CARDS:
        raise ValueError(f"card must be an int in 0..51, got {card!r}")
    return c


def check_mask(mask: object) -> int:
    """Return ``mask`` as a plain int if it is a hand mask (bits 0..51 only), else raise
    ``ValueError``."""
    m = _as_int(mask)
    if m is None or not 0 <= m <= FULL_DECK:
        raise ValueError(
            f"a hand mask must be an int in 0..2**52-1 (bit c set for card c), got {mask!r}"
        )
    return m


def parse_card(text: str) -> int:
    """Parse ``"TS"``, ``"10s"``, ``"ah"`` or ``"Q♥"``; raise ``ValueError`` quoting bad text."""
    if not isinstance(text, str):
        raise ValueError(f"card text must be a str, got {text!r}")
    t = text.strip()
    if t[-1:] in _SUIT_SYMBOLS:
        t = t[:-1] + _SUIT_SYMBOLS[t[-1]]
    # Before upper(): "ſ" (long s) and other letters outside ASCII upper-case to S, K...
    t = t.upper() if t.isascii() else ""
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANK_CHARS or t[1] not in SUIT_CHARS:
        raise ValueError(
            f"bad card {text!r}: expected rank {'/'.join(RANK_CHARS)} (or 10) "
            f"then suit {'/'.join(SUIT_CHARS)}, e.g. 'TS', '10s', 'ah'"
        )
    return make_card(RANK_CHARS.index(t[0]), SUIT_CHARS.index(t[1]))


def parse_cards(text: str) -> list[int]:
    """Parse cards separated by spaces or commas; duplicates raise ``ValueError``, and so
    does anything but a str (as :func:`parse_card` does)."""
    if not isinstance(text, str):
        raise ValueError(f"cards text must be a str such as 'AS 2S 3S', got {text!r}")
    cards = [parse_card(word) for word in text.replace(",", " ").split()]
    if len(set(cards)) != len(cards):
        raise ValueError(f"duplicate card in {text!r}")
    return cards


def card_str(card: int) -> str:
    card = check_card(card)
    return RANK_CHARS[card % NUM_RANKS] + SUIT_CHARS[card // NUM_RANKS]


def cards_str(cards: Iterable[int] | int) -> str:
    """Text of a card list or a hand mask, e.g. ``'AS 2S 3S'``."""
    if isinstance(cards, str | bytes):
        raise ValueError(f"cards must be card ints or a hand mask, got {cards!r}")
    if isinstance(cards, int) or not hasattr(cards, "__iter__"):  # a mask (a numpy int too)
        cards = from_mask(cards)  # type: ignore[arg-type]
    return " ".join(card_str(c) for c in cards)


def to_mask(cards: Iterable[int]) -> int:
    """The hand mask of distinct card ints; a non-card or a card given twice raises."""
    mask = 0
    for c in cards:
        if type(c) is not int or not 0 <= c < NUM_CARDS:
            c = check_card(c)
        if mask >> c & 1:
            raise ValueError(f"card {c} ({card_str(c)}) given twice: a hand holds each card once")
        mask |= 1 << c
    return mask


def from_mask(mask: int) -> list[int]:
    """Card ints of a mask, in increasing order."""
    if type(mask) is not int or not 0 <= mask <= FULL_DECK:
        mask = check_mask(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


#: The cards of every 13-bit suit mask, per suit (32,768 tuples): built on the first
#: :func:`cards_of_mask`, not at import.
_SUIT_CARDS: tuple[tuple[tuple[int, ...], ...], ...] = ()


def _suit_cards() -> tuple[tuple[tuple[int, ...], ...], ...]:
    global _SUIT_CARDS
    _SUIT_CARDS = tuple(
        tuple(tuple(13 * s + r for r in range(13) if m >> r & 1) for m in range(1 << 13))
        for s in range(4)
    )
    return _SUIT_CARDS


def cards_of_mask(mask: int) -> tuple[int, ...]:
    """:func:`from_mask`'s cards as a tuple, in four table lookups, for the hot paths that
    read masks the engine made (the mask is not checked)."""
    table = _SUIT_CARDS or _suit_cards()
    return (
        table[0][mask & 0x1FFF]
        + table[1][mask >> 13 & 0x1FFF]
        + table[2][mask >> 26 & 0x1FFF]
        + table[3][mask >> 39 & 0x1FFF]
    )


def mask_points(mask: int) -> int:
    """Pip total of the cards of a hand mask."""
    if type(mask) is not int or not 0 <= mask <= FULL_DECK:
        mask = check_mask(mask)
    total = 0
    while mask:
        low = mask & -mask
        total += POINTS[low.bit_length() - 1]
        mask ^= low
    return total
