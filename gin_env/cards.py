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
    "mask_points",
    "check_card",
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
    return card % NUM_RANKS


def suit(card: int) -> int:
    """Suit 0..3 in the order S, H, D, C."""
    return card // NUM_RANKS


def points(card: int) -> int:
    """Pip value: ace 1, two to ten face value, J Q K 10."""
    return POINTS[card]


def make_card(rank_: int, suit_: int) -> int:
    return suit_ * NUM_RANKS + rank_


def check_card(card: object) -> int:
    """Return ``card`` if it is a card int 0..51, else raise ``ValueError``."""
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < NUM_CARDS:
        raise ValueError(f"card must be an int in 0..51, got {card!r}")
    return card


def parse_card(text: str) -> int:
    """Parse ``"TS"``, ``"10s"``, ``"ah"`` or ``"Q♥"``; raise ``ValueError`` quoting bad text."""
    if not isinstance(text, str):
        raise ValueError(f"card text must be a str, got {text!r}")
    t = text.strip().upper()
    if t[-1:] in _SUIT_SYMBOLS:
        t = t[:-1] + _SUIT_SYMBOLS[t[-1]]
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
    check_card(card)
    return RANK_CHARS[card % NUM_RANKS] + SUIT_CHARS[card // NUM_RANKS]


def cards_str(cards: Iterable[int] | int) -> str:
    """Text of a card list or a hand mask, e.g. ``'AS 2S 3S'``."""
    if isinstance(cards, int):
        cards = from_mask(cards)
    return " ".join(card_str(c) for c in cards)


def to_mask(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def from_mask(mask: int) -> list[int]:
    """Card ints of a mask, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_points(mask: int) -> int:
    total = 0
    while mask:
        low = mask & -mask
        total += POINTS[low.bit_length() - 1]
        mask ^= low
    return total
