"""The game in words, and replies in words read back as action ids (standard library only).

What a seat knows comes in as plain facts (:class:`GinFacts`, :class:`RummyFacts`, built
from the seat's observation by :mod:`gin_env.text.views`); :func:`describe` writes them as
English, with the legal moves in words (:func:`move_words`). :func:`parse_reply` reads a
reply and returns the id of the one legal move it names, or raises :class:`ReplyError`
naming the legal moves.

Replies it reads, in this order:

1. a JSON object with a ``"move"`` (or ``"action"``) string, anywhere in the reply:
   ``{"move": "discard 7H"}``;
2. a line ``move: ...`` (or ``answer:``, ``action:``, ``final move:``), the last one wins;
3. the whole reply as one strict move: ``draw``, ``take``, ``pass``, ``no-advice``,
   ``big-gin``, ``discard 7H``, ``knock 3C``; in rummy ``take discard``,
   ``meld 5H 6H 7H``, ``lay off 8H on run``; a card alone is a discard (``10h``,
   ``seven of hearts``, ``Q♥``);
4. a move inside a sentence: ``I'll discard the seven of hearts``, ``knock with the 3
   of clubs``, ``I'd draw from the stock``, ``take the upcard``, ``no advice``. A card
   counts only right after the verb that uses it (``discard``, ``knock``, ``meld``, ``lay
   off``...), so a card merely mentioned is not a move.

A reply that names two different legal moves is ambiguous and refused; one that names
only illegal moves is refused as illegal; either way the message lists the legal moves.
Only the last :data:`MAX_REPLY_CHARS` characters of a longer reply are read (a model
that thinks aloud puts its answer last).

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
discard 2S is not a legal move now. Legal moves: discard 7H, discard KC, knock 7H
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.cards import (
    NUM_RANKS,
    RANK_CHARS,
    SUIT_CHARS,
    card_str,
    mask_points,
    to_mask,
)
from gin_env.melds import GIN_MELDS, best_arrangement, discard_deadwoods

__all__ = [
    "GAMES",
    "ROLE_WORDS",
    "PHASE_WORDS",
    "MAX_REPLY_CHARS",
    "ReplyError",
    "GinFacts",
    "RummyFacts",
    "rules_in_brief",
    "rules_line",
    "describe",
    "move_words",
    "legal_words",
    "parse_reply",
    "parse_advice",
    "sanitize",
]

#: The games the words know, by their short names (``gin_env.games``).
GAMES = ("three_handed", "gin", "rummy")
ROLE_WORDS = {
    "three_handed": ("box", "captain", "adviser"),
    "gin": ("dealer", "non-dealer", "-"),
}
PHASE_WORDS = (
    "upcard offer (non-dealer first)",
    "upcard offer (the dealer's turn, after the non-dealer passed)",
    "draw",
    "discard",
    "over",
)
#: Replies longer than this are read from their end.
MAX_REPLY_CHARS = 4000
_RANK_WORDS = (
    "ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king",
)  # fmt: skip
_SUIT_WORDS = ("spades", "hearts", "diamonds", "clubs")


class ReplyError(ValueError):
    """A reply that names no legal move, or more than one; the message says why and
    lists the legal moves."""


def card_name(card: int) -> str:
    """``'seven of hearts'``."""
    return f"{_RANK_WORDS[card % NUM_RANKS]} of {_SUIT_WORDS[card // NUM_RANKS]}"


# -- facts ---------------------------------------------------------------------------------
@dataclass(slots=True)
class GinFacts:
    """What one seat of a gin hand knows (two-player or three-handed).

    ``role`` indexes :data:`ROLE_WORDS`; ``phase`` :data:`PHASE_WORDS`; ``hand`` is the
    seen hand as a card mask (the adviser's: the captain's, 0 when it is hidden);
    ``top`` is -1 for an empty pile; ``scores`` by role; ``suggestion`` is -1 for none.
    """

    game: str
    role: int
    phase: int
    advising: bool
    hand: int
    top: int
    pile: int
    opponent_took: int
    opponent_discarded: int
    own_discarded: int
    stock: int
    turn: int
    scores: tuple[int, ...]
    suggestion: int
    legal: list[int]
    message: str | None = None  # the adviser's words to the captain


@dataclass(slots=True)
class RummyFacts:
    """What one seat of basic rummy knows. Per-seat lists are relative: index 0 is the
    seat itself, 1 the player to its left (who plays next), and so on."""

    num_players: int
    phase: int  # 0 draw, 1 play, 2 over
    hand: int
    taken: int  # the card taken from the pile this turn, or -1
    pile: list[int]  # bottom to top
    stock: int
    stock_known: int
    sets: int
    runs: int
    melds_by_seat: list[int]
    known_held: list[int]
    hand_sizes: list[int]
    melded_before: list[bool]
    dealer: int
    to_act: int
    scores: list[int] | None
    turn: int
    legal: list[int]
    ace_high: bool = False


@dataclass(frozen=True)
class Table:
    """The table a seat sits at: the game (a name of :data:`GAMES`) and its rules as a
    dict of option names (``knock_limit``, ``target_score``... as the envs take them)."""

    game: str
    rules: dict[str, Any] = field(default_factory=dict)
    adviser_sees_hand: bool = True

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game must be one of {', '.join(GAMES)}; got {self.game!r}")

    def rule(self, name: str, default: Any) -> Any:
        value = self.rules.get(name, default)
        return default if value is None and default is not None else value


# -- the rules in brief -----------------------------------------------------------------------
def rules_in_brief(table: Table) -> str:
    """The table's rules in a few sentences (for a system prompt or the top of a view)."""
    if table.game == "rummy":
        n = table.rule("num_players", 2)
        deal = 10 if n == 2 else 7 if n <= 4 else 6
        target = table.rule("target_score", None)
        ace = (
            "Aces are low or high (Q-K-A is a run, K-A-2 is not)."
            if table.rule("ace_high_or_low", False)
            else "Aces are low (A-2-3 is a run, Q-K-A is not)."
        )
        return (
            f"Basic rummy, {n} players, {deal} cards each. On your turn: draw the top of the "
            "stock or take the top of the discard pile (a card taken from the pile may not be "
            "discarded that turn), then lay down any melds (sets of 3-4 cards of one rank, "
            "runs of 3+ cards in a row of one suit) and lay off cards onto any meld on the "
            "table, then discard one card. The first to get rid of every card wins the hand "
            "and each other player pays him the pips left in his hand (ace 1, 2-10 face "
            "value, J Q K 10), double if he went out all at once (rummy). "
            + ace
            + (f" The match goes to {target} points." if target else " One hand is played.")
        )
    limit = table.rule("knock_limit", 10)
    knock = (
        "gin only (no knocking with deadwood)"
        if limit == 0
        else f"knock with {limit} or less deadwood"
    )
    if table.rule("oklahoma", False):
        knock = (
            "knock with at most the upcard's value in deadwood (ace: gin only); a spade "
            "upcard doubles the hand"
        )
    parts = [
        "Gin rummy: 10 cards each; melds are sets (3-4 cards of one rank) and runs (3+ "
        "cards in a row of one suit, ace low). Deadwood is the pips of unmelded cards "
        "(ace 1, 2-10 face value, J Q K 10).",
        "The non-dealer may take the upcard or pass, then the dealer; then each turn: draw "
        "the top of the stock or take the top of the discard pile, then discard one card. "
        f"You may end the hand by discarding and knocking ({knock}).",
        "After a knock the other player lays off cards on the knocker's melds; the lower "
        "deadwood wins the difference. Gin (no deadwood) scores "
        f"{table.rule('gin_bonus', 25)} bonus and allows no lay-offs; if the defender has "
        f"deadwood no higher than the knocker's he undercuts and scores the difference plus "
        f"{table.rule('undercut_bonus', 10)}.",
    ]
    big = table.rule("big_gin_bonus", None)
    if big is not None:
        parts.append(f"Big gin (all 11 cards melded after drawing) scores {big} bonus.")
    if not table.rule("allow_discard_of_taken_card", False):
        parts.append("A card taken from the discard pile may not be discarded that turn.")
    parts.append(
        "The hand is a draw when two cards are left in the stock or after "
        f"{table.rule('max_turns_per_hand', 200)} turns. The match goes to "
        f"{table.rule('target_score', 100)} points."
    )
    if table.game == "three_handed":
        parts.append(
            "Three-handed: the box plays alone against the captain; the third player is the "
            "captain's adviser, who does not play but suggests each of the captain's moves "
            "(the captain may ignore it). The box stays in while he wins; scores are "
            "individual and the adviser never scores."
        )
    return " ".join(parts)


_RULES_LINES: dict[tuple[Any, ...], str] = {}


def rules_line(table: Table) -> str:
    """The table's rules in one line, as every seat's view states them."""
    key = (table.game, *sorted(table.rules.items()))
    found = _RULES_LINES.get(key)
    if found is None:
        if len(_RULES_LINES) > 256:
            _RULES_LINES.clear()
        found = _RULES_LINES[key] = _rules_line(table)
    return found


def _rules_line(table: Table) -> str:
    if table.game == "rummy":
        target = table.rule("target_score", None)
        return (
            f"Table rules: {table.rule('num_players', 2)} players; aces "
            + ("low or high" if table.rule("ace_high_or_low", False) else "low")
            + f"; a hand ends without a winner after {table.rule('max_turns', 500)} turns; "
            + (f"match to {target}." if target else "one hand.")
        )
    big = table.rule("big_gin_bonus", None)
    limit = (
        "the upcard's value (Oklahoma; a spade upcard doubles)"
        if table.rule("oklahoma", False)
        else str(table.rule("knock_limit", 10))
    )
    taken = "may" if table.rule("allow_discard_of_taken_card", False) else "may not"
    return (
        f"Table rules: knock limit {limit}; gin bonus {table.rule('gin_bonus', 25)}; "
        f"undercut bonus {table.rule('undercut_bonus', 10)}; big gin "
        + ("off" if big is None else f"bonus {big}")
        + f"; a card taken from the pile {taken} be discarded that turn; a hand is a draw "
        f"after {table.rule('max_turns_per_hand', 200)} turns; match to "
        f"{table.rule('target_score', 100)}."
    )


# -- moves in words -----------------------------------------------------------------------------
#: Every id's words, read once from the action layouts.
_GIN_WORDS = tuple(A.action_str(a) for a in range(A.NUM_ACTIONS))
_RUMMY_WORDS = tuple(R.action_str(a) for a in range(R.NUM_ACTIONS))


def move_words(action: int, game: str) -> str:
    """A legal move's words as :func:`parse_reply` reads them strictly: ``'draw'``,
    ``'discard 7H'``, ``'knock 3C'``; rummy ``'meld 5H 6H 7H'``, ``'lay off 8H on run'``."""
    words = _RUMMY_WORDS if game == "rummy" else _GIN_WORDS
    if isinstance(action, bool) or not 0 <= action < len(words):
        raise ValueError(f"action must be an int in 0..{len(words) - 1}, got {action!r}")
    return words[action]


def legal_words(legal: Sequence[int], game: str) -> list[str]:
    return [move_words(a, game) for a in legal]


# -- describing a seat ------------------------------------------------------------------------
_CARD_TEXT = tuple(card_str(c) for c in range(52))
_ARRANGED: dict[tuple[int, bool], list[str]] = {}


def _cards(mask: int) -> str:
    """``cards_str`` of a mask without its checks (the masks here come from observations)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(_CARD_TEXT[low.bit_length() - 1])
        mask ^= low
    return " ".join(out)


def _hand_lines(hand: int, table_melds: Any = GIN_MELDS) -> list[str]:
    # A hand is described again at every prompt of a turn: its arrangement is kept.
    key = (hand, table_melds is GIN_MELDS)
    found = _ARRANGED.get(key)
    if found is not None:
        return found
    melds, dead = (
        best_arrangement(hand) if table_melds is GIN_MELDS else table_melds.best_arrangement(hand)
    )
    meld_text = "; ".join(_cards(m) for m in melds) or "none"
    dead_text = _cards(dead) or "none"
    if len(_ARRANGED) > 4096:
        _ARRANGED.clear()
    found = _ARRANGED[key] = [
        f"  best melds: {meld_text}",
        f"  deadwood: {dead_text} = {mask_points(dead)} points",
    ]
    return found


def _list(mask: int) -> str:
    return _cards(mask) if mask else "none"


def describe(facts: GinFacts | RummyFacts, table: Table, note: str | None = None) -> str:
    """The seat's view in words, ending with its legal moves and how to reply. ``note`` is
    added before the moves (the reason a last reply was refused)."""
    if isinstance(facts, RummyFacts):
        lines = _describe_rummy(facts, table)
    else:
        lines = _describe_gin(facts, table)
    if note:
        lines.append(f"Your last reply was not used: {note}")
    return "\n".join(lines)


def _describe_gin(f: GinFacts, table: Table) -> list[str]:
    three = table.game == "three_handed"
    roles = ROLE_WORDS[table.game]
    me = roles[f.role]
    title = "Three-handed gin rummy" if three else "Two-player gin rummy"
    lines = [f"{title}. You are the {me}."]
    if three:
        lines.append(
            {
                0: "You play alone against the captain, who is advised by the adviser.",
                1: "You play against the box; your adviser suggests each of your moves.",
                2: "You do not play this hand: you advise the captain, who plays against the box.",
            }[f.role]
        )
    score_words = ", ".join(
        f"{roles[i]} {s}" for i, s in enumerate(f.scores[: len(roles)]) if roles[i] != "-"
    )
    lines.append(rules_line(table))
    lines.append(f"Scores: {score_words}.")
    lines.append(f"Phase: {PHASE_WORDS[f.phase]}; turn {f.turn}; stock: {f.stock} cards.")
    whose = "The captain's hand" if f.role == 2 else "Your hand"
    if f.role == 2 and f.hand == 0:
        lines.append("You cannot see the captain's hand.")
    elif f.hand:
        count = f.hand.bit_count()
        lines.append(f"{whose} ({count} cards): {_cards(f.hand)}")
        lines.extend(_hand_lines(f.hand))
    top = "none" if f.top < 0 else card_str(f.top)
    what = "Upcard" if f.phase < 2 else "Top of the discard pile"
    lines.append(f"{what}: {top}.")
    under = f.pile & ~(1 << f.top) if f.top >= 0 else f.pile
    lines.append(f"Also in the discard pile: {_list(under)}.")
    opp = "the captain" if f.role == 0 and three else "the box" if three else "your opponent"
    mine = "the captain" if f.role == 2 else "you"
    lines.append(f"Cards {opp} took from the pile and still holds: {_list(f.opponent_took)}.")
    lines.append(f"Cards {opp} discarded: {_list(f.opponent_discarded)}.")
    lines.append(f"Cards {mine} discarded: {_list(f.own_discarded)}.")
    # What he passed: those discards he let lie (not the top card: his choice is to come).
    passed = f.own_discarded & ~f.opponent_took & ~f.opponent_discarded
    if f.top >= 0:
        passed &= ~(1 << f.top)
    if f.own_discarded:
        lines.append(f"Of those, {opp} passed (did not take): {_list(passed)}.")
    if f.phase == 1:
        lines.append(f"{'The non-dealer' if f.role == 0 else 'Your opponent'} passed the upcard.")
    if f.role == 1 and three and f.suggestion >= 0:
        lines.append(f"Your adviser suggests: {_suggestion_words(f.suggestion)}.")
    if f.role == 1 and three and f.message:
        lines.append(f'Your adviser says: "{f.message}"')
    if f.phase == 4 or not f.legal:
        lines.append("The hand is over; you have no move.")
        return lines
    if f.advising:
        lines.append(
            "Suggest one of the captain's moves (or no advice): "
            + ", ".join(
                _suggestion_words(a) if a == A.NO_ADVICE else _annotated(f, a) for a in f.legal
            )
            + "."
        )
        lines.append(
            "Reply with a short message to the captain that names the move you suggest, e.g. "
            '"discard 7H: it is your highest loose card", or "no advice".'
        )
        return lines
    lines.append("Legal moves: " + ", ".join(_annotated(f, a) for a in f.legal) + ".")
    lines.append(
        'Reply with one legal move, e.g. "discard 7H", or as JSON: {"move": "discard 7H"}.'
    )
    return lines


def _suggestion_words(action: int) -> str:
    return "no advice" if action == A.NO_ADVICE else _GIN_WORDS[action]


def _annotated(f: GinFacts, action: int) -> str:
    """A move with what it leaves: discards and knocks from 11 cards say the deadwood."""
    words = _GIN_WORDS[action]
    if action >= A.DISCARD and action < A.BIG_GIN and f.hand.bit_count() == 11:
        left = _discard_table(f.hand).get((action - A.DISCARD) % 52)
        if left is not None:
            words += f" (leaves {left} deadwood)"
    return words


_DISCARD_CACHE: dict[int, dict[int, int]] = {}


def _discard_table(hand: int) -> dict[int, int]:
    # One search gives every discard's deadwood; the hand repeats across a turn's prompts.
    found = _DISCARD_CACHE.get(hand)
    if found is None:
        if len(_DISCARD_CACHE) > 4096:
            _DISCARD_CACHE.clear()
        found = _DISCARD_CACHE[hand] = discard_deadwoods(hand)
    return found


def _describe_rummy(f: RummyFacts, table: Table) -> list[str]:
    n = f.num_players
    lines = [f"Basic rummy, {n} players. You are seat 0 below; seat k plays k turns after you."]

    def seat(k: int) -> str:
        return "you" if k == 0 else f"seat {k}"

    phase = ("draw", "play (meld, lay off, discard)", "over")[f.phase]
    lines.append(f"Dealer: {seat(f.dealer)}. Phase: {phase}; turn {f.turn}.")
    lines.append(rules_line(table))
    if f.scores is not None:
        lines.append("Scores: " + ", ".join(f"{seat(k)} {s}" for k, s in enumerate(f.scores)) + ".")
    lines.append(f"Your hand ({f.hand.bit_count()} cards): {_list(f.hand)}")
    if f.hand:
        melds = R.ACE_HIGH_TABLE if f.ace_high else GIN_MELDS
        lines.extend(_hand_lines(f.hand, melds))
    if f.taken >= 0:
        lines.append(
            f"You took {card_str(f.taken)} from the pile this turn: you may not discard it."
        )
    pile = " ".join(card_str(c) for c in f.pile) or "empty"
    lines.append(f"Discard pile, bottom to top: {pile}.")
    lines.append(
        f"Stock: {f.stock} cards"
        + (f" (known to hold {_cards(f.stock_known)})" if f.stock_known else "")
        + "."
    )
    lines.append(f"On the table: sets {_list(f.sets)}; runs {_list(f.runs)}.")
    for k in range(1, n):
        known = f.known_held[k]
        lines.append(
            f"Seat {k}: {f.hand_sizes[k]} cards"
            + (f", known to hold {_cards(known)}" if known else "")
            + (f", laid down {_cards(f.melds_by_seat[k])}" if f.melds_by_seat[k] else "")
            + ("" if f.melded_before[k] else ", has not melded yet")
            + "."
        )
    if f.melds_by_seat[0]:
        lines.append(f"You laid down: {_cards(f.melds_by_seat[0])}.")
    if f.phase == 2 or not f.legal:
        lines.append(
            "The hand is over; you have no move." if f.phase == 2 else "It is not your turn."
        )
        return lines
    lines.append("Legal moves: " + ", ".join(_RUMMY_WORDS[a] for a in f.legal) + ".")
    lines.append(
        'Reply with one legal move, e.g. "discard 7H", "meld 5H 6H 7H", "lay off 8H on run", '
        'or as JSON: {"move": "draw"}.'
    )
    return lines


# -- reading replies -------------------------------------------------------------------------
_SYMBOLS = str.maketrans(
    {"♠": "s", "♤": "s", "♥": "h", "♡": "h", "♦": "d", "♢": "d", "♣": "c", "♧": "c"}
)
_SHOWN_SYMBOLS = str.maketrans(dict(zip("♠♤♥♡♦♢♣♧", "SSHHDDCC", strict=True)))
_RANK_ALT = "|".join(sorted(_RANK_WORDS + ("10",) + tuple("23456789"), key=len, reverse=True))
_SUIT_ALT = "spades|spade|hearts|heart|diamonds|diamond|clubs|club"
_TOKEN = re.compile(
    rf"\b(?P<lr>{_RANK_ALT})\s*(?:of\s+)?(?P<ls>{_SUIT_ALT})\b"  # seven of hearts, 7 hearts
    r"|\b(?P<sr>10|[2-9akqjt])(?P<ss>[shdc])\b"  # 7h, 10h, th, as
    r"|(?P<w>[a-z]+(?:[-'][a-z]+)*)",
    re.IGNORECASE,
)
_SUIT_OF = {"s": 0, "h": 1, "d": 2, "c": 3}
_RANK_OF = {w: i for i, w in enumerate(_RANK_WORDS)} | {
    **{str(i + 1): i for i in range(1, 10)},
    "a": 0, "t": 9, "j": 10, "q": 11, "k": 12,
}  # fmt: skip
_MARKED = re.compile(
    r"(?im)^[\s*#>_`-]*(?:final\s+)?(?:move|answer|action|suggestion)\s*[:=]\s*(.+)$"
)
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
    ("discard", "discards", "discarding", "throw", "throwing", "dump", "toss", "drop", "ditch")
)
_DRAW_WORDS = frozenset(("draw", "draws", "drawing"))
_TAKE_WORDS = frozenset(("take", "takes", "taking", "pick", "picking"))
_PILE_WORDS = frozenset(("pile", "upcard", "discard", "discards"))
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
        elif word in _TAKE_WORDS:
            if word in ("pick", "picking") and nxt != ["up"]:
                continue
            stock = "stock" in words[i + 1 : i + 5]
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


def _json_move(text: str) -> str | None:
    """The ``move`` (or ``action``) string of the first JSON object in ``text`` with one."""
    decoder = _DECODER
    start = text.find("{")
    tries = 0
    while start >= 0 and tries < 20:
        tries += 1
        try:
            obj, _ = decoder.raw_decode(text, start)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            for key in ("move", "action", "suggestion"):
                value = obj.get(key)
                if isinstance(value, str):
                    return value
        start = text.find("{", start + 1)
    return None


def _refuse(reason: str, legal: Sequence[int], game: str) -> ReplyError:
    moves = ", ".join(sorted(legal_words(legal, game), key=_move_order))
    return ReplyError(f"{reason}. Legal moves: {moves}")


def _move_order(words: str) -> tuple[int, str]:
    return (len(words.split()), words)


def parse_reply(reply: object, legal: Sequence[int], game: str) -> int:
    """The id of the one legal move ``reply`` names (see the module's docstring);
    :class:`ReplyError` for an empty, ambiguous or illegal reply, naming the legal moves.
    ``game`` is ``"three_handed"``, ``"gin"`` or ``"rummy"``."""
    if not isinstance(reply, str):
        raise _refuse(f"the reply must be text, got {type(reply).__name__}", legal, game)
    text = reply[-MAX_REPLY_CHARS:].translate(_SYMBOLS)
    if not text.strip():
        raise _refuse("the reply is empty", legal, game)
    legal_set = set(legal)
    # 1. JSON, 2. a marked line: each read as a reply on its own, strictly first.
    for part in (_json_move(text), _last_marked(text)):
        if part is not None:
            return _one(part, legal, legal_set, game)
    return _one(text, legal, legal_set, game)


def _last_marked(text: str) -> str | None:
    found = _MARKED.findall(text)
    return found[-1] if found else None


def _one(text: str, legal: Sequence[int], legal_set: set[int], game: str) -> int:
    strict = _strict(text, game)
    if strict is not None:
        if strict in legal_set:
            return strict
        raise _refuse(f"{_words_of(strict, game)} is not a legal move now", legal, game)
    named = _resolve(_mentions(text, game), legal, game)
    hits = named & legal_set
    if len(hits) == 1:
        return hits.pop()
    if len(hits) > 1:
        both = " and ".join(sorted(_words_of(a, game) for a in hits))
        raise _refuse(f"the reply names more than one move ({both})", legal, game)
    if named:
        words = ", ".join(sorted(_words_of(a, game) for a in named))
        raise _refuse(f"{words} is not a legal move now", legal, game)
    raise _refuse("no move found in the reply", legal, game)


def parse_advice(reply: object, legal: Sequence[int]) -> int:
    """An adviser's message read as a suggestion: the one legal move it names, or
    ``NO_ADVICE`` when it names none; :class:`ReplyError` when it names several or only
    illegal ones (as :func:`parse_reply`)."""
    try:
        return parse_reply(reply, legal, "three_handed")
    except ReplyError as err:
        if str(err).startswith(("no move found", "the reply is empty")) and A.NO_ADVICE in legal:
            return A.NO_ADVICE
        raise


assert RANK_CHARS == "A23456789TJQK" and SUIT_CHARS == "SHDC"  # the words above follow these
