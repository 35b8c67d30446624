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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.cards import RANK_CHARS, SUIT_CHARS, card_str, to_mask
from gin_env.text.words import RANK_WORDS, legal_words

__all__ = [
    "MAX_REPLY_CHARS",
    "ReplyError",
    "NotTextError",
    "EmptyReplyError",
    "UnfinishedReplyError",
    "EmptyAnswerError",
    "TooLongReplyError",
    "NoMoveFoundError",
    "SetAsideError",
    "ReplyContext",
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

#: The longest reply read (every character of it, in time linear in its length); a longer
#: one is refused (:class:`TooLongReplyError`), never cut.
MAX_REPLY_CHARS = 1_000_000


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


class TooLongReplyError(ReplyError):
    """The reply is longer than :data:`MAX_REPLY_CHARS`: it is refused, never cut."""

    kind = "too-long"


class NoMoveFoundError(ReplyError):
    """The reply names no move at all."""

    kind = "no-move"


class SetAsideError(ReplyError):
    """The reply names moves only as ones it does not play now (negated, deferred,
    hypothetical, conditional, asked): it is asked again (an adviser's too: "Don't take
    the TS" is not "no advice")."""

    kind = "set-aside"


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
    {"♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C"}
)
_SHOWN_SYMBOLS = str.maketrans(dict(zip("♠♤♥♡♦♢♣♧", "SSHHDDCC", strict=True)))
#: LaTeX suits (``K\\spadesuit``, ``10\\heartsuit``) as the suit's letter.
_LATEX_SUIT = re.compile(r"\s*\\(spade|heart|diamond|club)s?(?:suit)?\b", re.IGNORECASE)
_RANK_ALT = "|".join(sorted(RANK_WORDS + ("10",) + tuple("23456789"), key=len, reverse=True))
_SUIT_ALT = "spades|spade|hearts|heart|diamonds|diamond|clubs|club"
_TOKEN = re.compile(
    rf"\b(?P<lr>{_RANK_ALT})\s*(?:of\s+)?(?P<ls>{_SUIT_ALT})\b"  # seven of hearts, 7 hearts
    r"|\b(?P<sr>10|[2-9akqjt])(?P<ss>[shdc])\b"  # 7h, 10h, th, as
    r"|(?P<w>[a-z]+(?:[-'’][a-z]+)*)"
    r"|(?P<n>\b(?:10|[2-9])\b)"  # a rank alone ("discard the 7")
    r"|(?P<b>[.;!?\n]|—|–|\s-\s|:|,|\(|\))",  # where clauses end
    re.IGNORECASE,
)
_SUIT_OF = {"s": 0, "h": 1, "d": 2, "c": 3}
#: A rank said alone ("your king", "the three eights"), singular or plural.
_RANK_WORD = (
    {"deuce": 1, "deuces": 1, "trey": 2, "treys": 2}
    | {w: i for i, w in enumerate(RANK_WORDS)}
    | {("sixes" if w == "six" else w + "s"): i for i, w in enumerate(RANK_WORDS)}
)
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
    ("discard", "discards", "discarding", "throw", "throwing", "dump", "dumping", "toss",
     "tossing", "drop", "dropping", "rid", "ditch", "ditching", "shed", "shedding", "chuck")
)  # fmt: skip
_DRAW_WORDS = frozenset(("draw", "draws", "drawing"))
_TAKE_WORDS = frozenset(("take", "takes", "taking", "pick", "picking", "grab", "grabbing"))
_PILE_WORDS = frozenset(("pile", "upcard", "discard", "discards"))
_STOCK_WORDS = frozenset(("stock", "deck"))
_PASS_WORDS = frozenset(("pass", "passes", "passing", "decline", "declines"))
_CARD_VERBS = _DISCARD_VERBS | {"knock", "meld", "off", "gin", "the", "suggest"}
_VERB_REACH = 4  # words between a verb and its card ("knock by discarding the 3C")
#: Boundary tokens: a sentence ends (``.``), a question ends (``?``), a clause pauses (``,``).
_END, _ASK, _PAUSE, _COLON, _PAREN = "<.>", "<?>", "<,>", "<:>", "<(>"
_BOUNDARY = {",": _PAUSE, "?": _ASK, ":": _COLON, "(": _PAREN, ")": _PAREN}
#: The tokens that end a sentence (a colon ends what its label says: "Runner-up: ...").
_ENDS = (_END, _ASK, _COLON)
#: Words that, after a pause, start a new clause whose moves the words before do not govern.
_NEW_CLAUSE = frozenset(
    ("so", "but", "instead", "therefore", "thus", "hence", "however", "though", "although",
     "because", "since", "while", "yet", "now", "anyway", "still")
)  # fmt: skip
#: Words that make the next move within a few words not the answer: negation, hypothesis,
#: deferral, reported speech, a move set aside ("instead of", "rather than").
_NOT_THE_NEXT_MOVE = frozenset(
    ("not", "don't", "dont", "won't", "wont", "never", "can't", "cannot", "cant", "shouldn't",
     "wouldn't", "couldn't", "isn't", "aren't", "mustn't", "avoid", "avoiding", "without",
     "would", "could", "might", "considered", "consider", "considering", "contemplated",
     "tempted", "suggests", "suggested", "says", "said", "recommends", "recommended",
     "advises", "advised", "proposes", "proposed", "wants", "wanted", "whether",
     "eventually", "soon", "someday", "normally", "usually", "ordinarily")
)  # fmt: skip
#: Words after which the rest of the sentence is not the answer: a condition, a fallback.
_NOT_THE_REST = frozenset(
    ("if", "unless", "when", "whenever", "once", "otherwise", "else", "alternatively",
     "alternative", "backup", "fallback", "runner-up", "runner", "second-best", "secondary")
)  # fmt: skip
#: Words right after a move that make it not the answer ("knock 4C would...", "... later").
_NOT_AFTER = frozenset(
    ("would", "could", "might", "isn't", "wouldn't", "later", "eventually", "soon",
     "tempting", "risky", "premature", "was", "were", "had", "if", "unless")
)  # fmt: skip
#: "Instead of"/"rather than": the move right after it is set aside.
_SET_ASIDE = (("instead", "of"), ("rather", "than"))
_REACH_BEFORE = 5  # words from a negator or hypothesis to the move it governs
_REACH_AFTER = 2  # words after a move that may still say it is not meant


def sanitize(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, in printable ASCII (suit symbols become
    letters, other characters ``?``, line breaks spaces): what a seat may be shown of
    another's words."""
    text = text.translate(_SHOWN_SYMBOLS)
    text = "".join(c if " " <= c <= "~" else " " if c in "\n\r\t" else "?" for c in text)
    return text.strip()[:limit]


def _tokens(text: str) -> list[tuple[str, int]]:
    """``(word, -1)`` or ``("<card>", card)`` for each word and card of ``text``, and the
    boundaries between clauses (``_END``, ``_ASK``, ``_PAUSE``). An ace in short form
    (``as``, ``ah``...) is a card only with its suit in capitals (``AS``, ``A♠``) or right
    after a verb that takes a card: "as" and "ah" are also words."""
    out: list[tuple[str, int]] = []
    for m in _TOKEN.finditer(text):
        if m.group("w") is not None:
            word = m.group("w").lower().replace("’", "'")
            word = _TYPO.get(word, word)
            alone = _RANK_WORD.get(word)
            out.append(("<rank>", -2 - alone) if alone is not None else (word, -1))
        elif m.group("n") is not None:
            out.append(("<rank>", -2 - _RANK_OF[m.group("n")]))
        elif m.group("b") is not None:
            b = m.group("b")
            out.append((_BOUNDARY.get(b, _END), -1))
        elif m.group("lr") is not None:
            rank, suit = m.group("lr").lower(), m.group("ls")[0].lower()
            out.append(("<card>", _RANK_OF[rank] + 13 * _SUIT_OF[suit]))
        else:
            rank, suit = m.group("sr").lower(), m.group("ss")
            if rank == "a" and not (suit.isupper() or (_last_word(out) in _CARD_VERBS)):
                out.append((m.group(0).lower(), -1))
                continue
            if suit == "s" and rank.isdigit() and _last_word(out) in _COUNTS:
                out.append(("<rank>", -2 - _RANK_OF[rank]))  # "the three 8s": eights
                continue
            out.append(("<card>", _RANK_OF[rank] + 13 * _SUIT_OF[suit.lower()]))
    return out


#: Words before a number that make "8s" the eights, not the eight of spades.
_COUNTS = frozenset(("<rank>", "all", "both", "the", "my", "your", "those", "these"))


def _typos(word: str) -> set[str]:
    """The misspellings of a move's verb read as it: two letters swapped, and for longer
    verbs one letter missing (and for "discard", one wrong); none an English word."""
    out = {word[:k] + word[k + 1] + word[k] + word[k + 2 :] for k in range(len(word) - 1)}
    if len(word) >= 5:
        out |= {word[:k] + word[k + 1 :] for k in range(len(word))}
    if len(word) >= 7:
        out |= {
            word[:k] + c + word[k + 1 :]
            for k in range(len(word))
            for c in "abcdefghijklmnopqrstuvwxyz"
        }
    return out - {word, "nock", "disc", "discord"}


#: A misspelt verb, read as the verb ("tkae", "discrad", "discart").
_TYPO = {t: w for w in ("discard", "take", "draw", "knock", "pass", "meld") for t in _typos(w)}


def _last_word(tokens: list[tuple[str, int]]) -> str:
    return tokens[-1][0] if tokens else ""


def _next_cards(
    tokens: list[tuple[str, int]], i: int, reach: int = _VERB_REACH
) -> tuple[list[int], list[int]]:
    """The run of cards starting within ``reach`` words after ``tokens[i]`` (joined by
    ``and``, ``&`` and commas), and the cards offered beside them with ``or``."""
    cards: list[int] = []
    offered: list[int] = []
    alt = False
    for word, card in tokens[i + 1 : i + 1 + reach + 12]:
        if card >= 0:
            (offered if alt else cards).append(card)
        elif word == _COLON and not cards:
            continue  # "discard: 4S"
        elif word == _PAREN:
            break
        elif word in _ENDS:
            break
        elif cards and word == "or":
            alt = True
        elif cards and word not in ("and", "the", _PAUSE, "maybe", "perhaps", "either"):
            break
        elif (
            not cards
            and word in _ENDS_A_SEARCH
            and not (tokens[i][0] in _KNOCK_WORDS and word in _DISCARD_VERBS)
        ):
            break  # another move begins ("meld the eights, then discard JS")
        elif not cards and word not in (_PAUSE,):
            reach -= 1
            if reach < 0:
                break
    return cards, offered


#: A move named in a reply: ``("id", action)``, ``("knock", -1)`` (a knock whose card is
#: unsaid), ``("meld", card mask)`` or ``("lay off", card * 4 + where)`` (where: 0 either,
#: 1 set, 2 run); ids in the layout of the reply's game.
Mention = tuple[str, int]
#: How a move stands in its reply: the answer; a later step of the same turn ("take the
#: 5S, then discard KH"); offered as an equal ("or"); or set aside (negated, deferred,
#: hypothetical, conditional, a fallback, a question, reported, retracted).
ANSWER, LATER, OFFERED, ASIDE = "answer", "later", "offered", "aside"
FIRST = "first"  # a move after "after" in a sentence that named another move before it
#: Words that name a move: a negation before one of them is spent on it.
_MOVE_WORDS = (
    _DISCARD_VERBS
    | _DRAW_WORDS
    | _TAKE_WORDS
    | _PASS_WORDS
    | {"knock", "knocks", "knocking", "meld", "melds", "melding", "lay", "put", "add", "gin"}
)
#: Words after which the move they lead to is a later step of the turn.
_LATER_WORDS = frozenset(("then", "afterwards", "next", "later"))
_KNOCK_WORDS = frozenset(("knock", "knocks", "knocking", "gin"))
#: Words that end a verb's search for its card: another move, a later step ("knock by
#: discarding the 3C" is one move: a knock's search goes on through a discard verb).
_ENDS_A_SEARCH = _MOVE_WORDS | _LATER_WORDS
#: Words that wish for a move, undone by a "but" after it ("I'd like to knock, but...").
_WISH = frozenset(("like", "love", "wish", "tempted", "hoping", "hope", "want", "tempting"))


def _standing(toks: list[tuple[str, int]], i: int, j: int) -> str:
    """How the move whose verb is ``toks[i]`` (its last card ``toks[j]``) stands."""
    words = [w for w, _ in toks]
    start = i
    while start > 0 and words[start - 1] not in _ENDS:
        start -= 1
    end = j + 1
    while end < len(words) and words[end] not in _ENDS:
        end += 1
    if end < len(words) and words[end] == _ASK:
        return ASIDE  # a question ("Knock 4C? No.")
    # The clause: back to a pause followed by a word that starts a new one ("..., so").
    clause = start
    for k in range(i - 1, start - 1, -1):
        if words[k] == _PAUSE and k + 1 < i and words[k + 1] in _NEW_CLAUSE:
            clause = k + 1
            break
    before = [w for w in words[clause:i] if w != _PAUSE]
    if any(w in _NOT_THE_REST for w in before):
        return ASIDE
    if start > 0 and words[start - 1] == _COLON:
        label = words[max(0, start - 4) : start - 1]
        if any(w in _NOT_THE_REST or w in _ADVISER_NAMES for w in label):
            return ASIDE  # "Runner-up: knock 2S", "Adviser: knock 2S"
    if "after" in before[-2:] and any(w in _MOVE_WORDS for w in words[start : i - 2]):
        return FIRST  # "discard 3H after laying off 6D": the lay-off comes first
    near = before[-_REACH_BEFORE:]
    spent = max((k for k, w in enumerate(near) if w in _MOVE_WORDS), default=-1)
    rest = words[i:end]
    for k, w in enumerate(near):
        if k <= spent:
            continue  # a negation before an earlier move is spent on it
        if w in _NOT_THE_NEXT_MOVE and not _meant_anyway(near, k, rest):
            return ASIDE
        if w == "no" and (k + 1 == len(near) or near[k + 1] in _NO_BEFORE):
            return ASIDE
        if w in _WISH and "but" in rest:
            return ASIDE
        if w == "off" and k > 0 and near[k - 1] == "hold":
            return ASIDE  # "I'd hold off on knocking"
    if before[-1:] == ["keep"] or any(w in ("after", "before") for w in before[-2:]):
        return ASIDE  # "keep drawing for gin", "after drawing the 5S"
    if tuple(before[-2:]) in _SET_ASIDE or tuple(before[-3:-1]) in _SET_ASIDE:
        return ASIDE
    if "or" in before[-2:]:
        return OFFERED  # "discard 4D, or knock 4D if you feel lucky": two moves stand
    after = [w for w in words[j + 1 : end] if w != _PAUSE][: _REACH_AFTER + 1]
    if any(w in _NOT_AFTER for w in after[:_REACH_AFTER]) or _deferred(after):
        return ASIDE
    if after[:2] in (["is", "not"], ["was", "not"], ["is", "too"], ["seems", "too"]):
        return ASIDE
    if "or" in before[-2:] or ("either" in before and "or" in words[start:end]):
        return OFFERED
    if any(w in _LATER_WORDS for w in before[-3:]) or before[-2:] == ["after", "that"]:
        return LATER
    return ANSWER


def _meant_anyway(near: list[str], k: int, rest: list[str]) -> bool:
    """``near[k]`` is "would"/"could" that still commits: "I would discard KS", "you'd do
    best to..." ("I would knock, but..." does not)."""
    w = near[k]
    if w not in ("would", "could"):
        return False
    if any(x in ("but", "if", "however", "except", "unless") for x in rest):
        return False
    if w == "would" and k > 0 and near[k - 1] in ("i", "we"):
        return True
    return any(x in ("best", "better", "prefer", "recommend") for x in near[k + 1 : k + 4])


def _deferred(after: list[str]) -> bool:
    """ "... next turn", "... next time": the move is for later."""
    for a, b in zip(after, after[1:], strict=False):
        if a == "next" and b in ("turn", "time", "round", "draw", "hand"):
            return True
    return False


def _mentions(text: str, game: str) -> list[tuple[Mention, str]]:
    """Every move a reply names, in order, with how it stands (:data:`ANSWER`,
    :data:`LATER`, :data:`OFFERED` or :data:`ASIDE`)."""
    toks = _tokens(text)
    words = [w for w, _ in toks]
    found: list[tuple[Mention, str, int]] = []
    rummy = game == "rummy"
    discard_base = R.DISCARD if rummy else A.DISCARD
    # A whole reply of one card (with filler words) is a discard.
    content = [t for t in toks if t[0] not in _FILLER and t[0] not in (_END, _PAUSE)]
    if len(content) == 1 and content[0][1] >= 0:
        return [(("id", discard_base + content[0][1]), ANSWER)]
    if len(content) == 1 and content[0][0] == "<rank>":
        return [(("rank", -2 - content[0][1]), ANSWER)]  # "The nine."

    def add(mention: Mention, i: int, j: int) -> None:
        found.append((mention, _standing(toks, i, j), i))

    def cards_after(i: int, reach: int = _VERB_REACH) -> tuple[list[int], list[int], int]:
        """The cards a verb at ``i`` takes, those offered beside them, and the index of
        the last; "it" and "that" are the card named last before the verb."""
        if words[i + 1 : i + 2] in (["it"], ["that"], ["this"]):
            named = [c for _, c in toks[:i] if c >= 0]
            return named[-1:], [], i + 1
        cards, offered = _next_cards(toks, i, reach)
        n, k = len(cards) + len(offered), i
        while n and k + 1 < len(toks):
            k += 1
            n -= toks[k][1] >= 0
        return cards, offered, k

    def rank_after(i: int, between: frozenset[str] = _BEFORE_A_RANK) -> int | None:
        """A rank said alone right after a verb ("discard the 7", "dump your king")."""
        for k in range(i + 1, min(i + 5, len(toks))):
            w, c = toks[k]
            if w == "<rank>":
                follows = words[k + 1 : k + 2]
                return None if follows and follows[0] in _NOT_A_CARD else -2 - c
            if w not in between:
                return None
        return None

    for i, word in enumerate(words):
        nxt = words[i + 1 : i + 2]
        prev = words[i - 1] if i else ""
        if word in _DISCARD_VERBS:
            if nxt == ["pile"]:
                continue  # the discard pile
            cards, offered, j = cards_after(i)
            rank = None if cards else rank_after(i)
            if rank is not None:
                add(("rank", rank), i, i)
            for c in cards:
                add(("id", discard_base + c), i, j)
            for c in offered:
                found.append((("id", discard_base + c), OFFERED, i))
        elif not rummy and word in ("knock", "knocks", "knocking", "gin"):
            if word == "gin" and prev == "big":
                add(("id", A.BIG_GIN), i, i)
            elif word == "gin" and (
                nxt == ["rummy"] or prev in _GOAL_BEFORE or nxt and nxt[0] in _GIN_NOUN_AFTER
            ):
                continue  # the game, or gin as a goal ("aiming for gin", "gin is close")
            elif word != "gin" and (nxt and nxt[0] in _NOUN_AFTER or prev in _KNOCK_NOUN_BEFORE):
                continue  # "the knock limit", "a 10-point knock"
            else:
                cards, offered, j = cards_after(i, _VERB_REACH + 1)
                if not cards:
                    cards = _lone_card_before(toks, i)  # "Eight of clubs, knocking."
                rank = None if cards else rank_after(i, _KNOCK_BEFORE_A_RANK)
                if rank is not None:
                    add(("knock rank", rank), i, i)  # "knock with the ten"
                elif not cards:
                    add(("gin" if word == "gin" else "knock", -1), i, i)
                for c in cards:
                    add(("id", A.KNOCK + c), i, j)
                for c in offered:
                    found.append((("id", A.KNOCK + c), OFFERED, i))
        elif not rummy and word in ("big-gin", "biggin"):
            add(("id", A.BIG_GIN), i, i)
        elif word in _DRAW_WORDS:
            if prev == "a":
                continue  # "the hand is a draw"
            pile = _names_the_pile(toks, i)
            if pile:
                card, j = _card_taken(toks, i)
                add(("take", card), i, j)
            else:
                add(("id", A.DRAW_STOCK), i, i)
        elif (
            word == "stock"
            and (prev == "from" or words[max(0, i - 2) : i] == ["from", "the"] or len(content) < 3)
            and not (_DRAW_WORDS | _TAKE_WORDS).intersection(words[max(0, i - 6) : i])
        ):
            add(("id", A.DRAW_STOCK), i, i)
        elif not rummy and word in ("play", "playing") and i + 1 < len(toks):
            cards, _, j = cards_after(i, 2)  # gin's only card play is a discard
            for c in cards:
                add(("id", A.DISCARD + c), i, j)
        elif word in _TAKE_WORDS:
            if word in ("pick", "picking") and nxt != ["up"]:
                continue
            if _ADVISER_WORDS.intersection(words[i + 1 : i + 4]):
                add(("suggestion", -1), i, i)  # "I'll take my adviser's suggestion"
                continue
            if (
                nxt
                and nxt[0] in _TAKE_IDIOM
                or words[i + 1 : i + 3] in (["a", "look"], ["a", "chance"], ["a", "risk"])
            ):
                continue  # "take the risk", "take a look"
            stock = any(w in _STOCK_WORDS for w in words[i + 1 : i + 7])
            if stock:
                add(("id", A.DRAW_STOCK), i, i)
            else:
                card, j = _card_taken(toks, i)
                add(("take", card), i, j)
        elif not rummy and word in _PASS_WORDS:
            add(("id", A.PASS), i, i)
        elif not rummy and (
            word in ("no-advice", "noadvice")
            or (word == "no" and nxt in (["advice"], ["suggestion"]))
        ):
            found.append((("id", A.NO_ADVICE), ANSWER, i))
        elif word == "<card>" and not any(w in _MOVE_WORDS for w in words[max(0, i - 4) : i]):
            then = words[i + 1 : i + 3]
            alone = i == 0 or words[i - 1] in _ENDS or "get" in words[max(0, i - 3) : i]
            if (
                then[:1] in (["goes"], ["away"])
                or then == ["face", "down"]
                or (then[:1] == ["out"] and alone)
            ):
                add(("id", discard_base + toks[i][1]), i, i)  # "8C face down", "KC goes"
            elif (
                rummy
                and then[:1] in (["on"], ["onto"])
                and (
                    _MELD_WORDS.intersection(words[i + 2 : i + 7])
                    or _plural_rank(toks, i + 2, i + 7)
                )
            ):
                rest = words[i + 2 : i + 7]
                where = (
                    1
                    if "set" in rest or _plural_rank(toks, i + 2, i + 7)
                    else 2
                    if "run" in rest
                    else 0
                )
                add(("lay off", toks[i][1] * 4 + where), i, i)  # "6D on the set"
        elif word in ("prefer", "choose", "choosing", "pick") or (
            word == "with" and prev in ("go", "going", "goes")
        ):
            if nxt in (["up"], ["to"]):
                continue
            if words[i + 1 : i + 4] and _ADVISER_WORDS.intersection(words[i + 1 : i + 4]):
                add(("suggestion", -1), i, i)  # "I'll go with the adviser"
                continue
            cards, _, j = cards_after(i, 2)
            for c in cards[:1] if len(cards) == 1 else cards:
                add(("id", discard_base + c), i, j)
        elif word in (
            "follow",
            "following",
            "agree",
            "accept",
            "trust",
        ) and _ADVISER_WORDS.intersection(words[i + 1 : i + 5]):
            add(("suggestion", -1), i, i)  # "I'll follow my adviser's suggestion"
        elif not rummy and word == "let" and words[i + 1 : i + 3] in (["it", "go"], ["it", "pass"]):
            add(("id", A.PASS), i, i)
        elif rummy and word in ("extend", "extending") and "with" in words[i + 1 : i + 8]:
            k = i + 1 + words[i + 1 : i + 8].index("with")
            cards, _, j = cards_after(k, 2)
            rest = words[i + 1 : k]
            where = 1 if "set" in rest else 2 if "run" in rest else 0
            for c in cards:
                add(("lay off", c * 4 + where), i, j)
        elif word in ("put", "place", "placing", "putting", "add", "adding") or (
            rummy and word in ("lay", "play") and nxt not in (["off"], ["down"], ["it"])
        ):
            cards, offered, j = cards_after(i, 3)
            then = words[j + 1 : j + 5]
            if not rummy and cards and "face" in then and "down" in then:
                add(("id", A.DISCARD + cards[0]), i, j)  # a knock's discard, face down
            elif rummy and nxt == ["down"]:
                cards, _, j = cards_after(i + 1)
                if len(cards) >= 3:
                    add(("meld", to_mask(cards) if len(set(cards)) == len(cards) else 0), i, j)
            elif rummy and cards and then[:1] in (["on"], ["to"], ["onto"]):
                where = (
                    1 if "set" in then or "sets" in then else 2 if "run" in words[j : j + 6] else 0
                )
                for c in cards:
                    add(("lay off", c * 4 + where), i, j)
        elif rummy and (
            word in ("meld", "melds", "melding") or (word in ("lay", "laying") and nxt == ["down"])
        ):
            cards, _, j = cards_after(i, _VERB_REACH + 1)
            if len(cards) >= 3:
                # A card named twice makes no meld (mask 0: no move of the layout).
                distinct = len(set(cards)) == len(cards)
                add(("meld", to_mask(cards) if distinct else 0), i, j)
            elif not cards:
                ranks = [-2 - c for w, c in toks[i + 1 : i + 6] if w == "<rank>"]
                if ranks:
                    add(("meld rank", ranks[-1]), i, i)  # "lay down the three eights"
        elif rummy and (
            word in ("layoff", "lay-off")
            or (
                word in ("lay", "laying")
                and (nxt == ["off"] or words[i + 1 : i + 3] == ["it", "off"])
            )
        ):
            pronoun = words[i + 1 : i + 2] == ["it"]  # "lay it off": the card named before
            cards, offered, j = cards_after(i - pronoun + (word != "layoff"), _VERB_REACH + 1)
            if cards:
                rest = words[i + 1 : i + 9]
                where = 1 if "set" in rest else 2 if "run" in rest else 0
                for c in cards:
                    add(("lay off", c * 4 + where), i, j)
                for c in offered:
                    found.append((("lay off", c * 4 + where), OFFERED, i))
    if not found:
        # Cards with no verb, offered as equals ("your call: KC or 9S").
        for k in range(1, len(toks) - 1):
            if words[k] == "or" and toks[k - 1][1] >= 0 and toks[k + 1][1] >= 0:
                return [(("id", discard_base + toks[k + d][1]), OFFERED) for d in (-1, 1)]
    retracted = max((k for k in range(len(words)) if _retracts(words, k)), default=-1)
    if any(how == FIRST for _, how, _ in found):
        # "X after Y": Y is the turn's first step, X (before it in the sentence) a later one.
        firsts = [i for _, how, i in found if how == FIRST]
        found = [
            (
                m,
                LATER
                if how == ANSWER and any(_same_sentence(words, i, f) for f in firsts)
                else how,
                i,
            )
            for m, how, i in found
        ]
        found = [(m, ANSWER if how == FIRST else how, i) for m, how, i in found]
    return [(m, ASIDE if i < retracted else how) for m, how, i in found]


def _same_sentence(words: list[str], a: int, b: int) -> bool:
    lo, hi = min(a, b), max(a, b)
    return a < b and not any(w in _ENDS for w in words[lo:hi])


def _names_the_pile(toks: list[tuple[str, int]], i: int) -> bool:
    """Whether the draw at ``toks[i]`` is from the pile ("draw from the discard pile"), not
    the stock ("draw, then discard KS")."""
    for k in range(i + 1, min(i + 5, len(toks))):
        w = toks[k][0]
        if w in (_END, _ASK, _PAUSE, "or", "then", "and"):
            return False
        if w in _PILE_WORDS and not (k + 1 < len(toks) and toks[k + 1][0] in ("<card>", "<rank>")):
            return True
    return False


def _lone_card_before(toks: list[tuple[str, int]], i: int) -> list[int]:
    """The one card named before ``toks[i]`` in its sentence or the one before it ("8C face
    down, knock!"), or none when there are more."""
    cards: set[int] = set()
    ends = 0
    for k in range(i - 1, -1, -1):
        w, c = toks[k]
        if w in (_END, _ASK):
            ends += 1
            if ends == 2 or cards:
                break
        elif c >= 0:
            cards.add(c)
    if not cards:
        # "Knock! Use the 8C.": the sentence after, when it names no other move.
        after: set[int] = set()
        for k in range(i + 1, len(toks)):
            w, c = toks[k]
            if c >= 0:
                after.add(c)
            elif w in _MOVE_WORDS - {"use"}:
                return []
            elif w in (_END, _ASK) and after:
                break
        cards = after
    return list(cards) if len(cards) == 1 else []


def _plural_rank(toks: list[tuple[str, int]], a: int, b: int) -> bool:
    """Whether a rank is said among ``toks[a:b]`` ("on the sixes": a set)."""
    return any(w == "<rank>" for w, _ in toks[a:b])


def _card_taken(toks: list[tuple[str, int]], i: int) -> tuple[int, int]:
    """The card named with a take at ``toks[i]`` ("take the 7H", "draw from the discard
    pile (the JS)") and its index, or ``(-1, i)``."""
    for k in range(i + 1, min(i + 9, len(toks))):
        w, c = toks[k]
        if c >= 0:
            return c, k
        if w in (_END, _ASK) or (w in _ENDS_A_SEARCH and toks[k + 1 : k + 2] != [("pile", -1)]):
            return -1, i
    return -1, i


#: Words after "actually" that take back what came before ("actually, let's wait").
_AFTER_ACTUALLY = frozenset(
    ("no", "not", "scratch", "wait", "let's", "let", "i'll", "better", "on", "hmm", "i")
)


def _retracts(words: list[str], k: int) -> bool:
    """Whether ``words[k]`` takes back the moves named before it ("wait, no", "actually
    no", "scratch that", "on second thought", a sentence that is only "No")."""
    w = words[k]
    after = [x for x in words[k + 1 : k + 4] if x != _PAUSE]
    if w == "wait":
        return not after or after[0] not in ("for", "until", "to", "and")
    if w == "actually":
        return bool(after) and (after[0] in _AFTER_ACTUALLY or after[0] in _MOVE_WORDS)
    if w == "scratch":
        return after[:1] == ["that"]
    if w == "hold":
        return after[:1] == ["on"]
    if w == "second":
        return after[:1] in (["thought"], ["thoughts"])
    if w == "no":
        starts = k == 0 or words[k - 1] in _ENDS
        return starts and words[k + 1 : k + 2] in ([_PAUSE], [_END], [])
    return w == "correction"


#: "no" negates the move after it when it goes on with one of these ("no need to knock").
_NO_BEFORE = frozenset(
    ("need", "way", "point", "reason", "sense", "use", "longer", "more", "knock", "knocking",
     "discard", "discarding", "draw", "drawing", "take", "taking", "pass", "passing", "to")
)  # fmt: skip
#: Words before "gin" that make it a goal, not a knock ("going for gin").
_GOAL_BEFORE = frozenset(
    ("for", "towards", "toward", "to", "at", "near", "of", "a", "from", "chasing", "chase",
     "want", "wants", "need", "needs", "hoping", "hope", "make", "making", "build", "building")
)  # fmt: skip
#: Words after "gin"/"knock" that make it a noun ("the knock limit", "gin bonus").
_NOUN_AFTER = frozenset(
    (
        "limit",
        "limits",
        "bonus",
        "bonuses",
        "point",
        "points",
        "value",
        "hand",
        "hands",
        "chance",
        "chances",
        "potential",
        "threshold",
    )
)
#: Words after "gin" that make it a noun ("gin is one card away").
_GIN_NOUN_AFTER = _NOUN_AFTER | {
    "is", "was", "would", "will", "seems", "looks", "isn't", "within", "close", "soon",
}  # fmt: skip
#: Words before "knock" that make it a noun ("a 10-point knock").
_KNOCK_NOUN_BEFORE = frozenset(
    ("a", "the", "point", "weak", "weakest", "strong", "strongest", "early", "late", "this",
     "that", "any", "your", "possible", "good", "bad", "safe", "risky", "cheap", "quick",
     "low", "lowest", "best", "worst", "hypothetical", "premature")
)  # fmt: skip
#: Words between a verb and a rank said alone ("discard your king").
_BEFORE_A_RANK = frozenset(
    ("the", "your", "my", "that", "this", "lone", "loose", "single", "of", "off")
)
#: Words between a knock and a rank said alone ("knock with the ten").
_KNOCK_BEFORE_A_RANK = _BEFORE_A_RANK | {"with", "using", "now"}
#: Words after a rank that make it a count, not a card ("discard three cards").
_NOT_A_CARD = frozenset(("cards", "card", "deadwood", "points", "point", "of", "or", "times"))
#: Words that name a meld on the table ("6D on the set").
_MELD_WORDS = frozenset(("set", "run", "meld", "sixes", "table", "sequence"))
#: Words that name the adviser ("I'll follow my adviser", "go with the advice").
_ADVISER_WORDS = frozenset(
    ("adviser", "adviser's", "advisor", "advisor's", "advice", "suggestion", "partner")
)
#: Who the adviser is, as a label ("Adviser: knock 2S" quotes him).
_ADVISER_NAMES = frozenset(("adviser", "adviser's", "advisor", "advisor's"))
#: "take" in idioms that take no card.
_TAKE_IDIOM = frozenset(("risk", "risks", "chance", "chances", "note", "advantage", "time", "care"))


def _resolve(
    mentions: list[Mention], legal: Sequence[int], game: str, seen: ReplyContext | None = None
) -> set[int]:
    """The ids the mentions can be (-1: a move that exists in no layout). A knock without
    its card takes the card of a discard named with it ("knock, discarding 3C"), or is
    any legal knock; a discard named with a knock is the knock's discard."""
    legal_set = set(legal)
    out: set[int] = set()
    seen = seen or ReplyContext()
    suggested = seen.suggestion if seen.suggestion not in (None, A.NO_ADVICE) else -1
    mentions = [
        ("id", A.TAKE_DISCARD) if k == "take"
        else ("id", suggested) if k == "suggestion"
        else ("knock", -1) if k == "gin"
        else (k, v)
        for k, v in mentions
    ]  # fmt: skip
    if any(k == "knock rank" for k, _ in mentions):
        held = [
            ("id", a + A.KNOCK - A.DISCARD)
            for k, v in mentions
            if k == "knock rank"
            for a in _of_rank("rank", v, legal, game, seen.hand) or [-1 - A.KNOCK + A.DISCARD]
        ]
        mentions = [m for m in mentions if m[0] != "knock rank"] + held
    if any(k == "rank" for k, _ in mentions):
        # A rank said alone: the card it names, as a discard (or a knock's discard below).
        named = [
            ("id", a)
            for k, v in mentions
            if k == "rank"
            for a in _of_rank(k, v, legal, game, seen.hand) or [-1]
        ]
        mentions = [m for m in mentions if m[0] != "rank"] + named
    ranked = [(k, v) for k, v in mentions if k == "meld rank"]
    if ranked:
        mentions = [m for m in mentions if m not in ranked]
        for kind, rank in ranked:
            out.update(_of_rank(kind, rank, legal, game) or [-1])
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


def _of_rank(
    kind: str, rank: int, legal: Sequence[int], game: str, hand: Sequence[int] | None = None
) -> list[int]:
    """The discards of the cards of ``rank`` (``kind`` "rank"): of the ``hand``'s when it
    is known (two of them: two moves), else the legal ones; or the legal melds that are
    sets of ``rank`` ("meld rank")."""
    if kind == "rank" and hand is not None:
        base = R.DISCARD if game == "rummy" else A.DISCARD
        return [base + c for c in hand if c % 13 == rank]
    if game == "rummy":
        if kind == "meld rank":
            return [
                a for a in legal
                if R.MELD <= a < R.MELD + len(R.MELDS)
                and {c % 13 for c in range(52) if R.MELDS[a - R.MELD] >> c & 1} == {rank}
            ]  # fmt: skip
        return [a for a in legal if R.decode(a)[0] == "discard" and R.decode(a)[1] % 13 == rank]
    return [a for a in legal if A.DISCARD <= a < A.KNOCK and (a - A.DISCARD) % 13 == rank]


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
    for verb in ("discard", "knock", "meld", "take", "draw", "pass", "lay off"):
        card = obj.get(verb)
        if isinstance(card, str) and card.strip() and "move" not in obj and "action" not in obj:
            return f"{verb} {card}"  # {"knock": "4C"}
    moves = obj.get("moves")
    if isinstance(moves, list) and moves and all(isinstance(m, str) for m in moves):
        return " then ".join(moves)  # a turn's steps in order: the first is the move
    keys: tuple[str, ...] = ("move", "action", "suggestion", "advice", "decision", "play")
    keys += ("choice", "answer") + (("type", "kind", "name", "source") if depth else ())
    for key in keys:
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
class ReplyContext:
    """What the replying seat sees that a reply may point at instead of naming it: the card
    a take would take (``top``: a take naming another card is refused), the hand the move
    is for (``hand``: a rank said alone, "discard the king", names its one card of that
    rank, and two of them leave the reply ambiguous) and the adviser's suggestion the
    captain was shown (``suggestion``: "I'll follow my adviser"). Every field may be None
    (not known): the reader then reads without it. :func:`gin_env.text.views.reply_context`
    makes one from a seat's view."""

    top: int | None = None
    hand: tuple[int, ...] | None = None
    suggestion: int | None = None


#: A context, or a function that makes one when the reader needs it (most replies are
#: read by the strict path, which needs none).
Context = ReplyContext | Callable[[], ReplyContext] | None


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
#: What a reply quotes of its prompt: the legal moves restated, the reply format's examples.
_QUOTED = re.compile(
    r"(?im)^[ \t]*(?:legal moves|options)[ \t]*:.*$"
    r"|\((?:[^()\n]*?,){3,}[^()\n]*\)"  # a parenthesis that lists moves
    r'|(?:e\.g\.|like|format|example|examples)[^"\n]{0,30}\(?(?:"[^"\n]{1,40}",?\s*(?:or\s*)?)+\)?'
)
_CARD_LINE = re.compile(r"[ \t]*card[ \t]*[:=][ \t]*(\S+)", re.IGNORECASE)
#: Words before a marker that make it a fallback's ("Runner-up move:"), not the answer's.
_FALLBACK = re.compile(
    r"(?:runner[- ]?up|backup|back-up|alternative|alternate|second|fallback|plan\s*b|"
    r"other|secondary|worst|rejected|not|avoid)\b[^\n]{0,30}?\Z",
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
        line_start = text.rfind("\n", 0, m.start()) + 1
        if _FALLBACK.search(text, max(line_start, m.start() - 40), m.start()):
            continue  # "Runner-up move: ...", "Backup answer: ...": not the answer
        end = text.find("\n", m.end())
        content = text[m.end() : end if end >= 0 else len(text)]
        card_line = _CARD_LINE.match(text, end + 1) if end >= 0 else None
        if card_line is not None:
            content += " " + card_line.group(1)  # "action: knock\ncard: 4C"
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


_RETRACTION = re.compile(
    r"\b(?:wait|actually,?\s+no|scratch that|second thoughts?|correction)\b", re.IGNORECASE
)


#: Words between two explicit answers that say the later one replaces the earlier.
_CHANGE_OF_MIND = re.compile(
    r"\b(?:wait|actually|second thoughts?|correction|scratch that|changed? my mind|revis\w*|"
    r"instead|rather|reconsider\w*|reflection|rethink\w*|hmm|no[,.!:;—-]|nope|oops|sorry)",
    re.IGNORECASE,
)


def _headline(text: str) -> str | None:
    """The reply's first line when it is a move alone and reasoning follows it ("Knock 5D.
    \n\nWhy, in detail: ..."): an answer given first, as a marker's would be."""
    body = text.lstrip()
    line, _, rest = body.partition("\n")
    if not rest.strip() or len(line) > 40:
        return None
    return (
        line
        if _strict(line.strip(_DECORATION), "gin") is not None
        or _strict(line.strip(_DECORATION), "rummy") is not None
        else None
    )


def _explicit(text: str, game: str) -> tuple[str, str] | None:
    """``(content, how)`` of the last explicit answer in ``text`` (JSON with a move, a
    ``\\boxed{}``, a marker), or None."""
    found: list[tuple[int, str, str]] = []
    if "{" in text:
        found += [(p, c, "json") for p, c in _json_moves(text)]
        if _BOXED in text:
            found += [(p, c, "boxed") for p, c in _boxed(text)]
    found += [(p, c, "marker") for p, c in _marked(text)]
    head = _headline(text)
    if head is not None and not _RETRACTION.search(text):
        found.append((-1, head, "headline"))
    if not found:
        return None
    found.sort(key=lambda f: f[0])
    at, content, how = found[-1]
    if len(found) > 1:
        before_at, before, _ = found[-2]
        differ = before.strip(_DECORATION).lower() != content.strip(_DECORATION).lower()
        names = _strict(before, game) is not None or bool(_mentions(before, game))
        if differ and names and not _CHANGE_OF_MIND.search(text, max(before_at, 0), at):
            # Two answers that differ with no change of mind between them: both stand.
            return f"{before.strip(_DECORATION)} or {content.strip(_DECORATION)}", how
    return content, how


def read_reply(reply: object, legal: Sequence[int], game: str, context: Context = None) -> Reading:
    """The one legal move ``reply`` names, with what it was read from (see the module's
    docstring); :class:`ReplyError` for an empty, ambiguous or illegal reply, naming the
    legal moves. ``game`` is ``"three_handed"``, ``"gin"`` or ``"rummy"``; ``context``
    (:class:`ReplyContext`, or a function making one) is what the seat sees that a reply
    may point at."""
    if not isinstance(reply, str):
        why = f"the reply must be text, got {type(reply).__name__}"
        raise _refuse(NotTextError, why, legal, game)
    legal_set = set(legal)
    strict = _strict(reply, game) if len(reply) < 40 else None
    if strict is not None and strict in legal_set:  # the common case, at once
        return Reading(strict, reply.strip(), "", "strict")
    if len(reply) > MAX_REPLY_CHARS:
        why = f"the reply has {len(reply):,} characters; at most {MAX_REPLY_CHARS:,} are read"
        raise _refuse(TooLongReplyError, why, legal, game)
    answer, reasoning = split_reasoning(reply)
    text = _QUOTED.sub(" ", answer).translate(_SYMBOLS)
    if "\\" in text:
        text = _LATEX_SUIT.sub(lambda m: m.group(1)[0].upper(), text)
    if not text.strip():
        if reasoning:
            why = "the reply ends inside its reasoning (no answer after it)"
            raise _refuse(UnfinishedReplyError, why, legal, game)
        raise _refuse(EmptyReplyError, "the reply is empty", legal, game)
    explicit = _explicit(text, game)
    if explicit is not None:
        content, how = explicit
        if not content.strip(_DECORATION):
            raise _refuse(EmptyAnswerError, f"the reply's answer ({how}) is empty", legal, game)
        action, _ = _one(content, legal, legal_set, game, context)
        return Reading(action, content.strip(), reasoning, how)
    action, how = _one(text, legal, legal_set, game, context)
    return Reading(action, text.strip(), reasoning, how)


def parse_reply(reply: object, legal: Sequence[int], game: str, context: Context = None) -> int:
    """The id of the one legal move ``reply`` names (:func:`read_reply`'s ``action``)."""
    return read_reply(reply, legal, game, context).action


#: The moves of a turn's first step: drawing (and the upcard's offer, and advising on it).
_DRAW_PHASE = frozenset((A.DRAW_STOCK, A.TAKE_DISCARD, A.PASS, R.DRAW_STOCK, R.TAKE_DISCARD))


def _one(
    text: str, legal: Sequence[int], legal_set: set[int], game: str, context: Context = None
) -> tuple[int, str]:
    """The move ``text`` names and how (``strict`` or ``sentence``). Only the moves it
    commits to count (:func:`_standing`); a text that commits to two different moves, or
    offers another as an equal ("discard KS or KC"), is refused, never guessed."""
    strict = _strict(text, game)
    if strict is not None:
        if strict in legal_set:
            return strict, "strict"
        why = f"{_words_of(strict, game)} is not a legal move now"
        raise _refuse(IllegalMoveError, why, legal, game)
    seen = context() if callable(context) else context or ReplyContext()
    top = seen.top
    mentions = _mentions(text, game)
    # The answer: the moves committed to; a later step of the turn ("take the 5S, then
    # discard KH") only when nothing comes before it.
    answers = [m for m, how in mentions if how == ANSWER] or [
        m for m, how in mentions if how == LATER
    ]
    if any(a in legal_set for a in _DRAW_PHASE):
        # Drawing, a discard or meld is the turn's next step: "take the 5S and discard KH".
        draws = [m for m in answers if m[0] == "take" or m[0] == "id" and m[1] in _DRAW_PHASE]
        answers = draws or answers
    if top is not None:
        for kind, card in answers:
            if kind == "take" and card >= 0 and card != top:
                why = (
                    f"take {card_str(card)} is not a legal move now "
                    f"(the pile's top card is {card_str(top)})"
                )
                raise _refuse(IllegalMoveError, why, legal, game)
    if game == "rummy" and any(m[0] in ("meld", "meld rank", "lay off") for m in answers):
        # A discard ends a rummy turn: "meld 8S 8H 8C and discard JS" melds first.
        answers = [m for m in answers if m[0] in ("meld", "meld rank", "lay off")]
    if any(m[0] == "gin" for m in answers) and not any(
        m[0] == "rank" or m[0] == "id" and A.DISCARD <= m[1] < A.BIG_GIN for m in answers
    ):
        why = "the reply says gin but not the card it discards"
        raise _refuse(AmbiguousReplyError, why, legal, game)
    named = _resolve(answers, legal, game, seen)
    if A.PASS in named and A.PASS not in legal_set and len(named) > 1:
        named.discard(A.PASS)  # "passing on the TD and drawing": no pass to make now
    offered = named | _resolve([m for m, how in mentions if how == OFFERED], legal, game, seen)
    if len(offered) > 1:
        both = " and ".join(sorted(_words_of(a, game) for a in offered))
        why = f"the reply names more than one move ({both})"
        raise _refuse(AmbiguousReplyError, why, legal, game)
    if named and named <= legal_set:
        return next(iter(named)), "sentence"
    if named:
        words = ", ".join(sorted(_words_of(a, game) for a in named))
        raise _refuse(IllegalMoveError, f"{words} is not a legal move now", legal, game)
    if mentions:
        why = "the reply names moves only as ones it does not play now"
        raise _refuse(SetAsideError, why, legal, game)
    raise _refuse(NoMoveFoundError, "no move found in the reply", legal, game)


def _names_a_card(reply: object) -> bool:
    """Whether a reply names a card or a rank: an adviser's message that does, with no move
    read, is asked again ("Scarta il 7 di cuori"), never taken for no advice."""
    return isinstance(reply, str) and any(
        w in ("<card>", "<rank>") for w, _ in _tokens(split_reasoning(reply)[0].translate(_SYMBOLS))
    )


def parse_advice(reply: object, legal: Sequence[int], context: Context = None) -> int:
    """An adviser's message read as a suggestion: the one legal move it names, or
    ``NO_ADVICE`` when it names none (:data:`NO_MOVE_NAMED`); :class:`ReplyError` when it
    names several or only illegal ones (as :func:`parse_reply`)."""
    try:
        return parse_reply(reply, legal, "three_handed", context)
    except NO_MOVE_NAMED:
        if A.NO_ADVICE in legal and not _names_a_card(reply):
            return A.NO_ADVICE
        raise


assert RANK_CHARS == "A23456789TJQK" and SUIT_CHARS == "SHDC"  # the words above follow these
