"""The game in words (standard library only).

What a seat knows comes in as plain facts (:class:`GinFacts`, :class:`RummyFacts`, built
from the seat's observation by :mod:`gin_env.text.views`); :func:`describe` writes them as
English, with the legal moves in words (:func:`move_words`). Replies are read back as
action ids by :mod:`gin_env.text.replies`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.cards import (
    NUM_RANKS,
    card_str,
    mask_points,
)
from gin_env.melds import GIN_MELDS, best_arrangement, discard_deadwoods

__all__ = [
    "GAMES",
    "ROLE_WORDS",
    "PHASE_WORDS",
    "RANK_WORDS",
    "SUIT_WORDS",
    "card_name",
    "GinFacts",
    "RummyFacts",
    "rules_in_brief",
    "rules_line",
    "describe",
    "move_words",
    "legal_words",
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
RANK_WORDS = (
    "ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king",
)  # fmt: skip
SUIT_WORDS = ("spades", "hearts", "diamonds", "clubs")


def card_name(card: int) -> str:
    """``'seven of hearts'``."""
    return f"{RANK_WORDS[card % NUM_RANKS]} of {SUIT_WORDS[card // NUM_RANKS]}"


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
