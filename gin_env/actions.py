"""The action ids of the gin games, owned here and nowhere else.

Every agent of ``gin_v0`` and ``three_handed_gin_v0`` shares one ``Discrete(109)`` space:

====  ==============  ============================================================
id    name            meaning
====  ==============  ============================================================
0     ``DRAW_STOCK``  draw the top card of the stock
1     ``TAKE_DISCARD``  take the upcard (upcard offer) or the top of the discard pile
2     ``PASS``        decline the upcard during the upcard offer
3     ``NO_ADVICE``   the adviser suggests nothing
4+c   ``DISCARD``     discard card ``c`` (0..51)
56+c  ``KNOCK``       discard card ``c`` and knock (gin when no deadwood is left)
108   ``BIG_GIN``     lay down all 11 cards as melds (only with ``big_gin_bonus``)
====  ==============  ============================================================

The module is pure Python so the rules engine can speak in the same ids.

>>> action_str(DISCARD + 9), action_str(KNOCK + 13), parse_action("knock 3c")
('discard TS', 'knock AH', 97)
>>> decode(60)
('knock', 4)
"""

from __future__ import annotations

import operator

from gin_env.cards import NUM_CARDS, card_str, parse_card
from gin_env.config import IllegalAction  # the rules raise it; the action ids' home names it

__all__ = [
    "IllegalAction",
    "DRAW_STOCK",
    "TAKE_DISCARD",
    "PASS",
    "NO_ADVICE",
    "DISCARD",
    "KNOCK",
    "BIG_GIN",
    "NUM_ACTIONS",
    "discard",
    "knock",
    "decode",
    "action_str",
    "parse_action",
    "check_action",
]

DRAW_STOCK = 0
TAKE_DISCARD = 1
PASS = 2
NO_ADVICE = 3
DISCARD = 4
KNOCK = DISCARD + NUM_CARDS
BIG_GIN = KNOCK + NUM_CARDS
NUM_ACTIONS = BIG_GIN + 1

_SIMPLE = {DRAW_STOCK: "draw", TAKE_DISCARD: "take", PASS: "pass", NO_ADVICE: "no-advice"}
_SIMPLE_BY_NAME = {name: a for a, name in _SIMPLE.items()} | {
    "stock": DRAW_STOCK,
    "big-gin": BIG_GIN,
    "biggin": BIG_GIN,
    "none": NO_ADVICE,
}


def discard(card: int) -> int:
    return DISCARD + card


def knock(card: int) -> int:
    return KNOCK + card


def check_action(action: object, n: int = NUM_ACTIONS) -> int:
    """``action`` as a plain int if it is an integer id in ``0..n-1``; else a ``ValueError``
    that names the value and the range.

    The one action check of every route into a game here (the AEC envs raw and wrapped,
    rummy's with its ``n``, the Gymnasium wrappers, the vector envs): an integer type only,
    a Python or numpy int or a 0-d integer array. A bool, a float (``2.0`` and
    ``np.array(3.7)`` too), a string or None is refused, never rounded or cast.

    >>> check_action(60)
    60
    >>> check_action(2.5)
    Traceback (most recent call last):
    ...
    ValueError: action must be an int in 0..108, got 2.5 (a float)
    """
    if type(action) is int:
        a = action
    else:
        try:
            if isinstance(action, bool):
                raise TypeError
            a = operator.index(action)  # type: ignore[arg-type]
        except TypeError:
            raise ValueError(
                f"action must be an int in 0..{n - 1}, got {action!r} (a {type(action).__name__})"
            ) from None
    if not 0 <= a < n:
        raise ValueError(f"action must be an int in 0..{n - 1}, got {action!r}")
    return a


def decode(action: int) -> tuple[str, int | None]:
    """``(kind, card)``: kind is draw/take/pass/no-advice/discard/knock/big-gin."""
    a = check_action(action)
    if a in _SIMPLE:
        return _SIMPLE[a], None
    if a < KNOCK:
        return "discard", a - DISCARD
    if a < BIG_GIN:
        return "knock", a - KNOCK
    return "big-gin", None


def action_str(action: int) -> str:
    kind, card = decode(action)
    return kind if card is None else f"{kind} {card_str(card)}"


def parse_action(text: str) -> int:
    """Parse ``draw``, ``take``, ``pass``, ``no-advice``, ``big-gin``, ``7h`` (a discard),
    ``discard 7h`` or ``knock 3c``; raise ``ValueError`` quoting bad text."""
    words = text.strip().lower().split()
    if len(words) == 1 and words[0] in _SIMPLE_BY_NAME:
        return _SIMPLE_BY_NAME[words[0]]
    try:
        if len(words) == 1:
            return DISCARD + parse_card(words[0])
        if len(words) == 2 and words[0] in ("discard", "knock", "gin"):
            base = DISCARD if words[0] == "discard" else KNOCK
            return base + parse_card(words[1])
    except ValueError as err:
        raise ValueError(f"bad move {text!r}: {err}") from None
    raise ValueError(
        f"bad move {text!r}: expected draw, take, pass, no-advice, big-gin, "
        "a card to discard (e.g. 7h), 'discard 7h' or 'knock 3c'"
    )
