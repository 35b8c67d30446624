"""Replies in words read back as action ids (standard library only).

:func:`parse_reply` reads a reply and returns the id of the one legal move it names, or
raises :class:`ReplyError` naming the legal moves; :func:`parse_advice` reads an adviser's
suggestion; :func:`sanitize` is what a seat may be shown of another's words.

Replies as models write them:

1. *reasoning is set aside*: ``<think>...</think>`` (and ``<thinking>``, ``<reasoning>``)
   blocks, and the text before a closing tag that has no opening one, are not read for a
   move but kept (:func:`read_reply` returns them); a block never closed leaves no answer;
2. *the last explicit answer wins*, wherever it stands: a JSON object with a ``"move"``
   (or ``"action"``, with its ``"card"`` or ``"cards"``; fenced or not), a
   ``\\boxed{...}``, or a marker in mid-line or on its own line, bold or not (``final
   answer:``, ``**Move:**``, ``action =``, ``my move is``, ``## Answer`` with the answer on
   the next line); only that answer is read;
3. else the whole reply as one strict move: ``draw``, ``take``, ``pass``, ``no-advice``,
   ``big-gin``, ``discard 7H``, ``knock 3C``; in rummy ``take discard``,
   ``meld 5H 6H 7H``, ``lay off 8H on run``; a card alone is a discard (``10h``,
   ``seven of hearts``, ``Q♥``, ``10♠``);
4. else a move inside a sentence: ``I'll discard the seven of hearts``, ``knock with the 3
   of clubs``, ``I'll take a card from the stock``, ``pick up the discard``, ``get rid of
   the king``. A card counts only right after the verb that uses it (``discard``,
   ``knock``, ``meld``, ``lay off``...), so a card merely mentioned is not a move.

A reply (or its explicit answer) that names two different moves is refused, never
guessed: reading a reply as a move the model did not mean is worse than refusing it. One
that names only illegal moves is refused as illegal; either way the message lists the
legal moves. Only the last :data:`MAX_REPLY_CHARS` characters of the answer are read.

A refusal says its kind by its type, a subclass of :class:`ReplyError` (its ``kind`` is the
same as a short constant), and carries its ``reason`` and its ``legal_moves`` apart from the
message: code branches on those, never on the message's words.

>>> from gin_env import actions as A
>>> from gin_env.cards import parse_card
>>> legal = [A.DISCARD + parse_card("7H"), A.KNOCK + parse_card("7H"), A.DISCARD + parse_card("KC")]
>>> parse_reply("I'll throw away the seven of hearts.", legal, "gin") == legal[0]
True
>>> parse_reply('{"move": "knock 7h"}', legal, "gin") == legal[1]
True
>>> try:
...     parse_reply("discard 2S", legal, "gin")
... except ReplyError as err:
...     print(err)
...     print(type(err).__name__, err.kind, "|", err.reason, "|", ", ".join(err.legal_moves))
discard 2S is not a legal move now. Legal moves: discard 7H, discard KC, knock 7H
IllegalMoveError illegal | discard 2S is not a legal move now | discard 7H, discard KC, knock 7H
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.cards import RANK_CHARS, SUIT_CHARS, to_mask
from gin_env.text.words import RANK_WORDS, legal_words

__all__ = [
    "MAX_REPLY_CHARS",
    "ReplyError",
    "NotTextError",
    "EmptyReplyError",
    "UnfinishedReplyError",
    "EmptyAnswerError",
    "NoMoveFoundError",
    "AmbiguousReplyError",
    "IllegalMoveError",
    "NO_MOVE_NAMED",
    "Reading",
    "read_reply",
    "parse_reply",
    "parse_advice",
    "split_reasoning",
    "sanitize",
]

#: Replies longer than this are read from their end.
MAX_REPLY_CHARS = 4000


class ReplyError(ValueError):
    """A reply that names no legal move, or more than one; the message says why and
    lists the legal moves (``"<reason>. Legal moves: <moves>"``).

    Its kind is its type (one subclass per kind, also named by the class constant
    ``kind``); ``reason`` is the message's first part and ``legal_moves`` the legal moves'
    words, so that no caller reads them out of the message. Made with ``legal_moves=None``
    the message is the reason alone."""

    #: The kind of refusal, as a constant (each subclass has its own).
    kind: ClassVar[str] = "unusable"

    def __init__(self, reason: str, legal_moves: Sequence[str] | None = None) -> None:
        self.reason = reason
        self.legal_moves: tuple[str, ...] = tuple(legal_moves or ())
        self._listed = legal_moves is not None
        listed = f"{reason}. Legal moves: {', '.join(self.legal_moves)}"
        super().__init__(listed if self._listed else reason)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled whole, across processes
        return (type(self), (self.reason, self.legal_moves if self._listed else None))


class NotTextError(ReplyError):
    """The reply is not a ``str``."""

    kind = "not-text"


class EmptyReplyError(ReplyError):
    """The reply is empty (or white space) once its reasoning is set aside."""

    kind = "empty"


class UnfinishedReplyError(ReplyError):
    """The reply ends inside its reasoning: no answer follows it."""

    kind = "unfinished"


class EmptyAnswerError(ReplyError):
    """The reply marks an explicit answer (JSON, ``\\boxed{}``, a marker) that is empty."""

    kind = "empty-answer"


class NoMoveFoundError(ReplyError):
    """The reply names no move at all."""

    kind = "no-move"


class AmbiguousReplyError(ReplyError):
    """The reply names more than one move."""

    kind = "ambiguous"


class IllegalMoveError(ReplyError):
    """The reply names a move that is not legal now (or no move of the game)."""

    kind = "illegal"


#: The refusals of a reply that names no move at all: an adviser's reply of these kinds is
#: no advice (:func:`parse_advice`).
NO_MOVE_NAMED: tuple[type[ReplyError], ...] = (NoMoveFoundError, EmptyReplyError)


# -- reading replies -------------------------------------------------------------------------
_SYMBOLS = str.maketrans(
    {"♠": "s", "♤": "s", "♥": "h", "♡": "h", "♦": "d", "♢": "d", "♣": "c", "♧": "c"}
)
_SHOWN_SYMBOLS = str.maketrans(dict(zip("♠♤♥♡♦♢♣♧", "SSHHDDCC", strict=True)))
_RANK_ALT = "|".join(sorted(RANK_WORDS + ("10",) + tuple("23456789"), key=len, reverse=True))
_SUIT_ALT = "spades|spade|hearts|heart|diamonds|diamond|clubs|club"
_TOKEN = re.compile(
    rf"\b(?P<lr>{_RANK_ALT})\s*(?:of\s+)?(?P<ls>{_SUIT_ALT})\b"  # seven of hearts, 7 hearts
    r"|\b(?P<sr>10|[2-9akqjt])(?P<ss>[shdc])\b"  # 7h, 10h, th, as
    r"|(?P<w>[a-z]+(?:[-'][a-z]+)*)",
    re.IGNORECASE,
)
_SUIT_OF = {"s": 0, "h": 1, "d": 2, "c": 3}
_RANK_OF = {w: i for i, w in enumerate(RANK_WORDS)} | {
    **{str(i + 1): i for i in range(1, 10)},
    "a": 0, "t": 9, "j": 10, "q": 11, "k": 12,
}  # fmt: skip
_FILLER = frozenset(
    (
        "the",
        "a",
        "my",
        "i",
        "will",
        "i'll",
        "play",
        "card",
        "move",
        "please",
        "ok",
        "okay",
        "to",
        "you",
        "should",
        "suggest",
        "it",
        "is",
    )
)
_DISCARD_VERBS = frozenset(
    ("discard", "discards", "discarding", "throw", "throwing", "dump", "toss", "drop", "rid")
)
_DRAW_WORDS = frozenset(("draw", "draws", "drawing"))
_TAKE_WORDS = frozenset(("take", "takes", "taking", "pick", "picking"))
_PILE_WORDS = frozenset(("pile", "upcard", "discard", "discards"))
_STOCK_WORDS = frozenset(("stock", "deck"))
_PASS_WORDS = frozenset(("pass", "passes", "passing", "decline", "declines"))
_CARD_VERBS = _DISCARD_VERBS | {"knock", "meld", "off", "gin", "the", "suggest"}
_VERB_REACH = 4  # words between a verb and its card ("knock by discarding the 3C")


def sanitize(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, in printable ASCII (suit symbols become
    letters, other characters ``?``, line breaks spaces): what a seat may be shown of
    another's words."""
    text = text.translate(_SHOWN_SYMBOLS)
    text = "".join(c if " " <= c <= "~" else " " if c in "\n\r\t" else "?" for c in text)
    return text.strip()[:limit]


def _tokens(text: str) -> list[tuple[str, int]]:
    """``(word, -1)`` or ``("<card>", card)`` for each word and card of ``text``. An ace in
    short form (``as``, ``ah``...) is a card only in capitals or right after a verb that
    takes a card: "as" and "ah" are also words."""
    out: list[tuple[str, int]] = []
    for m in _TOKEN.finditer(text):
        if m.group("w") is not None:
            out.append((m.group("w").lower(), -1))
        elif m.group("lr") is not None:
            rank, suit = m.group("lr").lower(), m.group("ls")[0].lower()
            out.append(("<card>", _RANK_OF[rank] + 13 * _SUIT_OF[suit]))
        else:
            rank, suit = m.group("sr").lower(), m.group("ss").lower()
            whole = m.group(0)
            if rank == "a" and not (whole.isupper() or (out and out[-1][0] in _CARD_VERBS)):
                out.append((whole.lower(), -1))
                continue
            out.append(("<card>", _RANK_OF[rank] + 13 * _SUIT_OF[suit]))
    return out


def _next_cards(tokens: list[tuple[str, int]], i: int, reach: int = _VERB_REACH) -> list[int]:
    """The run of cards starting within ``reach`` words after ``tokens[i]`` (joined by
    ``and`` and commas)."""
    cards: list[int] = []
    for word, card in tokens[i + 1 : i + 1 + reach + 12]:
        if card >= 0:
            cards.append(card)
        elif cards and word not in ("and", "the"):
            break
        elif not cards:
            reach -= 1
            if reach < 0:
                break
    return cards


#: A move named in a reply: ``("id", action)``, ``("knock", -1)`` (a knock whose card is
#: unsaid), ``("meld", card mask)`` or ``("lay off", card * 4 + where)`` (where: 0 either,
#: 1 set, 2 run); ids in the layout of the reply's game.
Mention = tuple[str, int]


def _mentions(text: str, game: str) -> list[Mention]:
    """Every move a reply names, in order."""
    toks = _tokens(text)
    words = [w for w, _ in toks]
    found: list[Mention] = []
    rummy = game == "rummy"
    discard_base = R.DISCARD if rummy else A.DISCARD
    # A whole reply of one card (with filler words) is a discard.
    content = [t for t in toks if t[0] not in _FILLER]
    if len(content) == 1 and content[0][1] >= 0:
        return [("id", discard_base + content[0][1])]
    for i, word in enumerate(words):
        nxt = words[i + 1 : i + 2]
        if word in _DISCARD_VERBS:
            cards = _next_cards(toks, i)
            if cards:
                found.append(("id", discard_base + cards[0]))
        elif not rummy and word in ("knock", "knocks", "knocking", "gin"):
            if word == "gin" and i > 0 and words[i - 1] == "big":
                found.append(("id", A.BIG_GIN))
            elif not (word == "gin" and nxt == ["rummy"]):  # "gin rummy" is the game
                cards = _next_cards(toks, i, _VERB_REACH + 1)
                found.append(("id", A.KNOCK + cards[0]) if cards else ("knock", -1))
        elif not rummy and word in ("big-gin", "biggin"):
            found.append(("id", A.BIG_GIN))
        elif word in _DRAW_WORDS:
            pile = any(w in _PILE_WORDS for w in words[i + 1 : i + 5])
            found.append(("id", A.TAKE_DISCARD if pile else A.DRAW_STOCK))
        elif word == "stock":
            found.append(("id", A.DRAW_STOCK))
        elif not rummy and word in ("play", "playing") and i + 1 < len(toks):
            cards = _next_cards(toks, i, 2)  # gin's only card play is a discard
            if cards:
                found.append(("id", A.DISCARD + cards[0]))
        elif word in _TAKE_WORDS:
            if word in ("pick", "picking") and nxt != ["up"]:
                continue
            stock = any(w in _STOCK_WORDS for w in words[i + 1 : i + 7])
            found.append(("id", A.DRAW_STOCK if stock else A.TAKE_DISCARD))
        elif not rummy and word in _PASS_WORDS:
            found.append(("id", A.PASS))
        elif not rummy and (
            word in ("no-advice", "noadvice")
            or (word == "no" and nxt in (["advice"], ["suggestion"]))
        ):
            found.append(("id", A.NO_ADVICE))
        elif rummy and (
            word in ("meld", "melds", "melding") or (word == "lay" and nxt == ["down"])
        ):
            cards = _next_cards(toks, i, _VERB_REACH + 1)
            if len(cards) >= 3:
                # A card named twice makes no meld (mask 0: no move of the layout).
                distinct = len(set(cards)) == len(cards)
                found.append(("meld", to_mask(cards) if distinct else 0))
        elif rummy and (word in ("layoff", "lay-off") or (word == "lay" and nxt == ["off"])):
            cards = _next_cards(toks, i, _VERB_REACH + 1)
            if cards:
                rest = words[i + 1 : i + 9]
                where = 1 if "set" in rest else 2 if "run" in rest else 0
                found.append(("lay off", cards[0] * 4 + where))
    return found


def _resolve(mentions: list[Mention], legal: Sequence[int], game: str) -> set[int]:
    """The ids the mentions can be (-1: a move that exists in no layout). A knock without
    its card takes the card of a discard named with it ("knock, discarding 3C"), or is
    any legal knock; a discard named with a knock is the knock's discard."""
    legal_set = set(legal)
    out: set[int] = set()
    if game == "rummy":
        for kind, value in mentions:
            if kind == "meld":
                meld = R.MELD_ID.get(value)
                out.add(-1 if meld is None else R.MELD + meld)
            elif kind == "lay off":
                card, where = divmod(value, 4)
                ids = ([R.LAY_OFF_SET + card] if where != 2 else []) + (
                    [R.LAY_OFF_RUN + card] if where != 1 else []
                )
                hits = [a for a in ids if a in legal_set]
                out.update(hits if hits else ids[:1])
            else:
                out.add(value)
        return out
    ids = [v for k, v in mentions if k == "id"]
    knocked = any(k == "knock" for k, _ in mentions) or any(A.KNOCK <= v < A.BIG_GIN for v in ids)
    discards = [v - A.DISCARD for v in ids if A.DISCARD <= v < A.KNOCK]
    for kind, value in mentions:
        if kind == "knock":
            with_card = [A.KNOCK + c for c in discards if A.KNOCK + c in legal_set]
            out.update(with_card or [a for a in legal if A.KNOCK <= a < A.BIG_GIN] or [-1])
        elif A.DISCARD <= value < A.KNOCK and knocked and value + A.KNOCK - A.DISCARD in legal_set:
            out.add(value + A.KNOCK - A.DISCARD)  # the discard half of a knock
        else:
            out.add(value)
    return out


def _words_of(action: int, game: str) -> str:
    if action < 0:
        return "an unknown move"
    if game == "rummy":
        return R.action_str(action) if action < R.NUM_ACTIONS else "an unknown move"
    return A.action_str(action) if action < A.NUM_ACTIONS else "an unknown move"


def _strict(text: str, game: str) -> int | None:
    """The id of ``text`` as one strict move (or a card alone), else None."""
    t = text.strip().strip(".!`'\"*").strip().lower()
    if not t:
        return None
    try:
        if game == "rummy":
            return R.parse_action(t)
        return A.parse_action(t)
    except ValueError:
        return None


_DECODER = json.JSONDecoder()


def _json_moves(text: str) -> list[tuple[int, str]]:
    """``(position, move)`` of every JSON object in ``text`` that says a move: a
    ``"move"`` (or ``"action"``, ``"suggestion"``) string, or an ``"action"`` with its
    ``"card"`` (or ``"cards"``), the move itself possibly such an object."""
    found: list[tuple[int, str]] = []
    start = text.find("{")
    tries = 0
    while start >= 0 and tries < 50:
        tries += 1
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        move = _move_of(obj) if isinstance(obj, dict) else None
        if move is not None:
            found.append((start, move))
        start = text.find("{", end)
    return found


def _move_of(obj: dict[str, Any], depth: int = 0) -> str | None:
    for key in ("move", "action", "suggestion"):
        value = obj.get(key)
        if isinstance(value, dict) and depth < 2:
            return _move_of(value, depth + 1)
        if not isinstance(value, str):
            continue
        card = obj.get("card", obj.get("cards"))
        if isinstance(card, str) and card.strip():
            return f"{value} {card}"
        if isinstance(card, list) and card and all(isinstance(c, str) for c in card):
            return f"{value} {' '.join(card)}"
        return value
    return None


def _refuse(kind: type[ReplyError], reason: str, legal: Sequence[int], game: str) -> ReplyError:
    return kind(reason, sorted(legal_words(legal, game), key=_move_order))


def _move_order(words: str) -> tuple[int, str]:
    return (len(words.split()), words)


@dataclass(frozen=True)
class Reading:
    """What :func:`read_reply` read: the move (``action``), the text it was read from
    (``answer``: the explicit answer when the reply marks one, else the reply without its
    reasoning), the reasoning set aside (``reasoning``: ``<think>`` blocks and the like,
    kept for the transcript) and ``how`` the move was found (``strict``, ``json``,
    ``boxed``, ``marker`` or ``sentence``)."""

    action: int
    answer: str
    reasoning: str
    how: str


_THINK_OPEN = re.compile(r"<(think|thinking|reasoning|thought)>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning|thought)>", re.IGNORECASE)
#: Answer markers anywhere in a reply: "final answer:", "**Move**:", "move =", "my move
#: is", "the final answer is"; and a heading line "## Answer" (the answer on the next line).
_MARKER = re.compile(
    r"(?<![\w-])(?:"
    r"(?:final\s+)?(?:answer|move|action|decision|choice|suggestion)\s*(?:\*\*|__)?\s*[:=]"
    r"|(?:my|the)\s+(?:final\s+)?(?:answer|move|decision|choice)\s+(?:is|will\s+be)\b\s*:?"
    r"|final\s+answer\s+is\b\s*:?"
    r")(?:\s*(?:\*\*|__))?",
    re.IGNORECASE,
)
_HEADING = re.compile(r"(?im)^[ \t]*#+[ \t]*(?:final[ \t]+)?(?:answer|move)[ \t]*:?[ \t]*$")
_BOXED = "\\boxed{"
_LATEX_TEXT = re.compile(r"\\(?:text|mathrm|textbf|texttt)\s*\{([^{}]*)\}")
_DECORATION = " \t*_#>`$.,;:!\"'~"


def split_reasoning(text: str) -> tuple[str, str]:
    """``(answer, reasoning)``: ``text`` without its reasoning blocks (``<think>...
    </think>``, ``<thinking>``, ``<reasoning>``; text before a closing tag that has no
    opening one, as templates that open the block in the prompt leave it), and those
    blocks joined. A block opened and never closed leaves no answer."""
    reasoning: list[str] = []
    if "<" not in text:
        return text, ""
    close = _THINK_CLOSE.search(text)
    first_open = _THINK_OPEN.search(text)
    if close is not None and (first_open is None or close.start() < first_open.start()):
        reasoning.append(text[: close.start()])
        text = text[close.end() :]
    out: list[str] = []
    pos = 0
    while True:
        m = _THINK_OPEN.search(text, pos)
        if m is None:
            out.append(text[pos:])
            break
        out.append(text[pos : m.start()])
        end = _THINK_CLOSE.search(text, m.end())
        if end is None:  # never closed: the rest is reasoning, no answer follows it
            reasoning.append(text[m.end() :])
            break
        reasoning.append(text[m.end() : end.start()])
        pos = end.end()
    return "".join(out), "\n".join(r.strip() for r in reasoning)


def _boxed(text: str) -> list[tuple[int, str]]:
    """``(position, content)`` of every ``\\boxed{...}`` (braces matched)."""
    found = []
    pos = text.find(_BOXED)
    while pos >= 0:
        depth, i = 1, pos + len(_BOXED)
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        inner = text[pos + len(_BOXED) : i - 1 if depth == 0 else i]
        for _ in range(3):
            inner = _LATEX_TEXT.sub(r"\1", inner)
        found.append((pos, inner.replace("\\", " ")))
        pos = text.find(_BOXED, i)
    return found


def _marked(text: str) -> list[tuple[int, str]]:
    """``(position, content)`` of every answer marker: the rest of its line (the next
    non-empty line when the marker ends its line)."""
    found = []
    for m in _MARKER.finditer(text):
        end = text.find("\n", m.end())
        content = text[m.end() : end if end >= 0 else len(text)]
        if not content.strip(_DECORATION) and end >= 0:
            content = _next_line(text, end)
        found.append((m.start(), content))
    for m in _HEADING.finditer(text):
        found.append((m.start(), _next_line(text, m.end())))
    return found


def _next_line(text: str, pos: int) -> str:
    for line in text[pos:].splitlines():
        if line.strip(_DECORATION):
            return line
    return ""


def _explicit(text: str) -> tuple[str, str] | None:
    """``(content, how)`` of the last explicit answer in ``text`` (JSON with a move, a
    ``\\boxed{}``, a marker), or None."""
    found: list[tuple[int, str, str]] = []
    if "{" in text:
        found += [(p, c, "json") for p, c in _json_moves(text)]
        if _BOXED in text:
            found += [(p, c, "boxed") for p, c in _boxed(text)]
    found += [(p, c, "marker") for p, c in _marked(text)]
    if not found:
        return None
    _, content, how = max(found, key=lambda f: f[0])
    return content, how


def read_reply(reply: object, legal: Sequence[int], game: str) -> Reading:
    """The one legal move ``reply`` names, with what it was read from (see the module's
    docstring); :class:`ReplyError` for an empty, ambiguous or illegal reply, naming the
    legal moves. ``game`` is ``"three_handed"``, ``"gin"`` or ``"rummy"``."""
    if not isinstance(reply, str):
        why = f"the reply must be text, got {type(reply).__name__}"
        raise _refuse(NotTextError, why, legal, game)
    legal_set = set(legal)
    strict = _strict(reply, game) if len(reply) < 40 else None
    if strict is not None and strict in legal_set:  # the common case, at once
        return Reading(strict, reply.strip(), "", "strict")
    answer, reasoning = split_reasoning(reply)
    text = answer[-MAX_REPLY_CHARS:].translate(_SYMBOLS)
    if not text.strip():
        if reasoning:
            why = "the reply ends inside its reasoning (no answer after it)"
            raise _refuse(UnfinishedReplyError, why, legal, game)
        raise _refuse(EmptyReplyError, "the reply is empty", legal, game)
    explicit = _explicit(text)
    if explicit is not None:
        content, how = explicit
        if not content.strip(_DECORATION):
            raise _refuse(EmptyAnswerError, f"the reply's answer ({how}) is empty", legal, game)
        action, _ = _one(content, legal, legal_set, game)
        return Reading(action, content.strip(), reasoning, how)
    action, how = _one(text, legal, legal_set, game)
    return Reading(action, text.strip(), reasoning, how)


def parse_reply(reply: object, legal: Sequence[int], game: str) -> int:
    """The id of the one legal move ``reply`` names (:func:`read_reply`'s ``action``)."""
    return read_reply(reply, legal, game).action


def _one(text: str, legal: Sequence[int], legal_set: set[int], game: str) -> tuple[int, str]:
    """The move ``text`` names and how (``strict`` or ``sentence``); a text that names two
    different moves (legal or not) is refused, never guessed."""
    strict = _strict(text, game)
    if strict is not None:
        if strict in legal_set:
            return strict, "strict"
        why = f"{_words_of(strict, game)} is not a legal move now"
        raise _refuse(IllegalMoveError, why, legal, game)
    named = _resolve(_mentions(text, game), legal, game)
    if len(named) > 1:
        both = " and ".join(sorted(_words_of(a, game) for a in named))
        why = f"the reply names more than one move ({both})"
        raise _refuse(AmbiguousReplyError, why, legal, game)
    if named and named <= legal_set:
        return next(iter(named)), "sentence"
    if named:
        words = ", ".join(sorted(_words_of(a, game) for a in named))
        raise _refuse(IllegalMoveError, f"{words} is not a legal move now", legal, game)
    raise _refuse(NoMoveFoundError, "no move found in the reply", legal, game)


def parse_advice(reply: object, legal: Sequence[int]) -> int:
    """An adviser's message read as a suggestion: the one legal move it names, or
    ``NO_ADVICE`` when it names none (:data:`NO_MOVE_NAMED`); :class:`ReplyError` when it
    names several or only illegal ones (as :func:`parse_reply`)."""
    try:
        return parse_reply(reply, legal, "three_handed")
    except NO_MOVE_NAMED:
        if A.NO_ADVICE in legal:
            return A.NO_ADVICE
        raise


assert RANK_CHARS == "A23456789TJQK" and SUIT_CHARS == "SHDC"  # the words above follow these
