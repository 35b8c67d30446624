"""Action ids of basic rummy (``rummy_v0``): one ``Discrete(527)`` for every seat and option.

A turn is a sequence of decisions by one player: draw, then any number of melds and
lay-offs, then a discard. Each decision is one id:

| ids       | name           | meaning                                                        |
|-----------|----------------|----------------------------------------------------------------|
| 0         | `DRAW_STOCK`   | draw the top of the stock; when the stock is empty, first turn |
|           |                | the discard pile over (unshuffled) as the new stock            |
| 1         | `TAKE_DISCARD` | take the top of the discard pile                               |
| 2 + c     | `DISCARD`      | discard card c (0..51); discarding the last card goes out      |
| 54 + m    | `MELD`         | lay down meld ``MELDS[m]`` (m = 0..368) from the hand          |
| 423 + c   | `LAY_OFF_SET`  | lay off card c onto the set of its rank on the table           |
| 475 + c   | `LAY_OFF_RUN`  | lay off card c onto a run on the table that it extends         |

- ``MELDS`` is the meld list of ``MeldTable(ace_high=True)`` (runs then sets, 369 melds),
  so the layout does not depend on ``ace_high_or_low``: without it the 40 runs that end
  with the ace above the king (Q-K-A and longer) are simply never legal.
- There is no "go out" id: a player goes out when his hand becomes empty, by his last
  discard or, without a discard, by his last meld or lay-off.
- A card extends at most one set (its rank) and at most two runs of its suit (it is the
  card just above one and just below the other). Which of two such runs takes it changes
  nothing later (the two runs become adjacent either way), so ``LAY_OFF_RUN`` picks the run
  the card extends upward (the card becomes its new high card). Set or run does matter
  (7H on the sevens blocks 8H from the 4H-5H-6H run), so that choice is the player's.
- A lay-off chain is just successive lay-offs: 7H then 6H onto 8H-9H-TH.

>>> from gin_env.cards import parse_card, parse_cards, to_mask
>>> action_str(discard(parse_card("7H")))
'discard 7H'
>>> a = meld(to_mask(parse_cards("5H 6H 7H")))
>>> action_str(a), parse_action("meld 7h 6h 5h") == a
('meld 5H 6H 7H', True)
>>> action_str(lay_off_run(parse_card("8H")))
'lay off 8H on run'
"""

from __future__ import annotations

from typing import Final

from gin_env.cards import NUM_CARDS, card_str, cards_str, parse_card, parse_cards, to_mask
from gin_env.melds import MeldTable

__all__ = [
    "DRAW_STOCK",
    "TAKE_DISCARD",
    "DISCARD",
    "MELD",
    "LAY_OFF_SET",
    "LAY_OFF_RUN",
    "NUM_ACTIONS",
    "MELDS",
    "NUM_MELDS",
    "MELD_ID",
    "ACE_HIGH_TABLE",
    "KINDS",
    "discard",
    "meld",
    "lay_off_set",
    "lay_off_run",
    "encode",
    "decode",
    "action_str",
    "parse_action",
]

# The ace-high table lists every meld of either ace convention, so it fixes the layout.
ACE_HIGH_TABLE: Final = MeldTable(ace_high=True)
MELDS: Final[tuple[int, ...]] = ACE_HIGH_TABLE.melds
NUM_MELDS: Final = len(MELDS)  # 369
MELD_ID: Final[dict[int, int]] = {m: i for i, m in enumerate(MELDS)}

DRAW_STOCK: Final = 0
TAKE_DISCARD: Final = 1
DISCARD: Final = 2
MELD: Final = DISCARD + NUM_CARDS  # 54
LAY_OFF_SET: Final = MELD + NUM_MELDS  # 423
LAY_OFF_RUN: Final = LAY_OFF_SET + NUM_CARDS  # 475
NUM_ACTIONS: Final = LAY_OFF_RUN + NUM_CARDS  # 527

KINDS: Final = ("draw_stock", "take_discard", "discard", "meld", "lay_off_set", "lay_off_run")


def discard(card: int) -> int:
    return DISCARD + _card(card)


def meld(mask: int) -> int:
    """Id of laying down the meld ``mask`` (a card mask); ``ValueError`` if it is no meld."""
    try:
        return MELD + MELD_ID[mask]
    except (KeyError, TypeError):
        shown = cards_str(mask) if isinstance(mask, int) and 0 <= mask < 1 << NUM_CARDS else mask
        raise ValueError(
            f"not a meld: {shown!r} (a meld is a set of 3-4 cards of a rank or a run of 3 or "
            "more in a suit)"
        ) from None


def lay_off_set(card: int) -> int:
    return LAY_OFF_SET + _card(card)


def lay_off_run(card: int) -> int:
    return LAY_OFF_RUN + _card(card)


def encode(kind: str, value: int = -1) -> int:
    """Inverse of :func:`decode`: ``value`` is a card, a meld mask, or -1 for the draws."""
    if kind == "draw_stock":
        return DRAW_STOCK
    if kind == "take_discard":
        return TAKE_DISCARD
    if kind == "discard":
        return discard(value)
    if kind == "meld":
        return meld(value)
    if kind == "lay_off_set":
        return lay_off_set(value)
    if kind == "lay_off_run":
        return lay_off_run(value)
    raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")


def decode(action: int) -> tuple[str, int]:
    """``(kind, value)`` of an id: value is the card, the meld mask, or -1 for the draws."""
    if isinstance(action, bool) or not isinstance(action, int):
        try:
            action = int(action)  # numpy integers
        except (TypeError, ValueError):
            raise ValueError(
                f"action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}"
            ) from None
    if action == DRAW_STOCK:
        return "draw_stock", -1
    if action == TAKE_DISCARD:
        return "take_discard", -1
    if DISCARD <= action < MELD:
        return "discard", action - DISCARD
    if MELD <= action < LAY_OFF_SET:
        return "meld", MELDS[action - MELD]
    if LAY_OFF_SET <= action < LAY_OFF_RUN:
        return "lay_off_set", action - LAY_OFF_SET
    if LAY_OFF_RUN <= action < NUM_ACTIONS:
        return "lay_off_run", action - LAY_OFF_RUN
    raise ValueError(f"action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}")


def action_str(action: int) -> str:
    """Text of an id, e.g. ``'draw'``, ``'meld 5H 6H 7H'``, ``'lay off 8H on set'``."""
    kind, value = decode(action)
    if kind == "draw_stock":
        return "draw"
    if kind == "take_discard":
        return "take discard"
    if kind == "discard":
        return f"discard {card_str(value)}"
    if kind == "meld":
        return f"meld {cards_str(value)}"
    where = "set" if kind == "lay_off_set" else "run"
    return f"lay off {card_str(value)} on {where}"


def parse_action(text: str) -> int:
    """Inverse of :func:`action_str` (case-insensitive), for scenario scripts."""
    words = text.strip().lower().split()
    if words == ["draw"]:
        return DRAW_STOCK
    if words == ["take", "discard"] or words == ["take"]:
        return TAKE_DISCARD
    if len(words) == 2 and words[0] == "discard":
        return discard(parse_card(words[1]))
    if len(words) >= 2 and words[0] == "meld":
        return meld(to_mask(parse_cards(" ".join(words[1:]))))
    if len(words) == 5 and words[:2] == ["lay", "off"] and words[3] == "on":
        if words[4] == "set":
            return lay_off_set(parse_card(words[2]))
        if words[4] == "run":
            return lay_off_run(parse_card(words[2]))
    raise ValueError(
        f"bad action text {text!r}: expected 'draw', 'take discard', 'discard 7H', "
        "'meld 5H 6H 7H', 'lay off 8H on set' or 'lay off 8H on run'"
    )


def _card(card: int) -> int:
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < NUM_CARDS:
        raise ValueError(f"card must be an int in 0..51, got {card!r}")
    return card
