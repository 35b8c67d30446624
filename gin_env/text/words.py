"""The game in words.

What a seat knows comes in as its :class:`~gin_env.seat_view.SeatView`, the one view of a
table every front end renders (built from the env by :func:`gin_env.seat_view.seat_view`,
or from an observation alone by :func:`gin_env.text.views.facts`); :func:`describe` writes
it as English, with the legal moves in words (:func:`move_words`). :func:`rules_in_brief`
is the table's brief for a system prompt: the game, the roles and how they rotate, who
deals, what each role plays for and every rule in force. Replies are read back as action
ids by :mod:`gin_env.text.replies`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gin_env import actions as A
from gin_env import games
from gin_env import rummy_actions as R
from gin_env.cards import (
    NUM_RANKS,
    card_str,
)
from gin_env.seat_view import HandPoints, SeatView

__all__ = [
    "GAMES",
    "ROLE_WORDS",
    "PHASE_WORDS",
    "RANK_WORDS",
    "SUIT_WORDS",
    "card_name",
    "Rulebook",
    "rules_in_brief",
    "rules_line",
    "describe",
    "move_words",
    "legal_words",
]

#: The games the words know, by their short names (``gin_env.games``).
GAMES = tuple(dict.fromkeys(spec.text_game for spec in games.GAMES.values()))
#: The roles of the gin games in role-id order, by the words' game (``gin_env.games``).
ROLE_WORDS = {spec.text_game: spec.roles for spec in games.GAMES.values() if spec.family == "gin"}
PHASE_WORDS = (
    "upcard offer (non-dealer first)",
    "upcard offer (the dealer's turn, after the non-dealer passed)",
    "draw",
    "discard",
    "over",
)
#: How many finished hands a seat's words list on the score sheet (the totals cover all).
SHEET_LINES = 3
RANK_WORDS = (
    "ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king",
)  # fmt: skip
SUIT_WORDS = ("spades", "hearts", "diamonds", "clubs")


def card_name(card: int) -> str:
    """``'seven of hearts'``."""
    return f"{RANK_WORDS[card % NUM_RANKS]} of {SUIT_WORDS[card // NUM_RANKS]}"


# -- the table the words are about -------------------------------------------------------------
@dataclass(frozen=True)
class Rulebook:
    """The game the words are about (a name of :data:`GAMES`) and its rules as a dict of
    option names (``knock_limit``, ``target_score``... as the envs take them). Not a table:
    the rules of a table are :data:`gin_env.config.Table`; this is what the words read of
    one (:func:`gin_env.text.views.table_of` makes it from a table)."""

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
def rules_in_brief(table: Rulebook) -> str:
    """The table's brief, for a system prompt: the game, the roles and how they rotate, who
    deals, what each role plays for, and every rule in force (Oklahoma's limit and double,
    Hollywood's games, the bonuses and what they add)."""
    if table.game == "rummy":
        n = table.rule("num_players", 2)
        deal = 10 if n == 2 else 7 if n <= 4 else 6
        target = table.rule("target_score", None)
        ace = (
            "Aces are low or high (Q-K-A is a run, K-A-2 is not)."
            if table.rule("ace_high_or_low", False)
            else "Aces are low (A-2-3 is a run, Q-K-A is not)."
        )
        deals = (
            "The winner of a hand deals the next."
            if n == 2
            else "The deal passes to the left (the next seat) after every hand."
        )
        return (
            f"Basic rummy, {n} players, {deal} cards each, dealt one at a time from the "
            "dealer's left; the player left of the dealer plays first. On your turn: draw the "
            "top of the stock or take the top of the discard pile (a card taken from the pile "
            "may not be discarded that turn), then lay down any melds (sets of 3-4 cards of one "
            "rank, runs of 3+ cards in a row of one suit) and lay off cards onto any meld on the "
            "table, then discard one card (going out may end without a discard). The first to "
            "get rid of every card wins the hand and each other player pays him the pips left "
            "in his hand (ace 1, 2-10 face value, J Q K 10), double if he went out all at once "
            "without having melded before (rummy). When the stock runs out the discard pile "
            "is turned over to make a new one. Everyone plays for himself. "
            + ace
            + f" {deals} A hand ends without a winner after "
            + f"{table.rule('max_turns', 500)} turns. "
            + (f"The first to {target} points wins the match." if target else "One hand is played.")
        )
    limit = table.rule("knock_limit", 10)
    knock = (
        "gin only (no knocking with deadwood)"
        if limit == 0
        else f"knock with {limit} or less deadwood"
    )
    if table.rule("oklahoma", False):
        knock = (
            "Oklahoma: knock with at most the first upcard's value in deadwood (ace: gin "
            "only; J Q K 10); a spade as the first upcard doubles every point of the hand"
        )
    gin_bonus = table.rule("gin_bonus", 25)
    parts = [
        "Gin rummy: 10 cards each; melds are sets (3-4 cards of one rank) and runs (3+ "
        "cards in a row of one suit, ace low). Deadwood is the pips of unmelded cards "
        "(ace 1, 2-10 face value, J Q K 10).",
        "The non-dealer may take the upcard or pass, then the dealer; if both pass, the "
        "non-dealer draws from the stock. Then each turn: draw the top of the stock or take "
        "the top of the discard pile, then discard one card. "
        f"You may end the hand by discarding and knocking ({knock}).",
        "After a knock the defender lays off cards on the knocker's melds; if the knocker's "
        "deadwood is lower he scores the difference. If the defender's deadwood is no higher "
        "than the knocker's he undercuts and scores the difference plus "
        f"{table.rule('undercut_bonus', 10)}. Gin (no deadwood) allows no lay-offs and "
        f"scores {gin_bonus} plus the defender's deadwood.",
    ]
    big = table.rule("big_gin_bonus", None)
    if big is not None:
        parts.append(
            f"Big gin (all 11 cards melded after drawing) scores {big} plus the defender's "
            "deadwood."
        )
    if not table.rule("allow_discard_of_taken_card", False):
        parts.append("A card taken from the discard pile may not be discarded that turn.")
    parts.append(
        "The hand is a draw, scoring nothing, when two cards are left in the stock or after "
        f"{table.rule('max_turns_per_hand', 200)} turns."
    )
    target = table.rule("target_score", 100)
    if table.game == "three_handed":
        parts.append(
            "Three-handed: the box plays alone against the captain, and always deals. The "
            "third player, the adviser, holds no cards: he sees the captain's hand"
            + ("" if table.adviser_sees_hand else " only when the rules say so (not here)")
            + " and suggests each of the captain's moves; the captain decides. Scores are "
            "individual: only the box or the captain scores a hand, never the adviser, and "
            "the captain and adviser play as a team against the box. When the box wins a "
            "hand he stays in the box (captain and adviser swap); when the captain wins he "
            "takes the box, the old box sits out as adviser and the old adviser becomes "
            "captain; a drawn hand keeps everyone in place. "
            f"The first player to {target} points wins the match."
        )
    else:
        rule = table.rule("dealer_rule", "alternate")
        deals = {
            "alternate": "The deal alternates.",
            "winner": "The winner of a hand deals the next (a drawn hand: the same dealer).",
            "loser": "The loser of a hand deals the next (a drawn hand: the same dealer).",
            "alternate_scored": (
                "The deal alternates after a scored hand; a drawn hand is dealt again by the "
                "same dealer."
            ),
        }.get(rule, f"Dealer rule: {rule}.")
        if table.rule("hollywood", False):
            parts.append(
                "Hollywood scoring: three games are scored at once; a player's first winning "
                "hand counts in game 1, his second in games 1 and 2, his third and later in "
                f"all three; each game ends at {target} and the match goes to whoever wins "
                f"two. {deals}"
            )
        else:
            parts.append(f"The first to {target} points wins the match. {deals}")
    return " ".join(parts)


_RULES_LINES: dict[tuple[Any, ...], str] = {}


#: The last line written per Rulebook, by its id: (the Rulebook, its rules then, the line).
_RULES_LINE_OF: dict[int, tuple[Rulebook, dict[str, Any], str]] = {}


def rules_line(table: Rulebook) -> str:
    """The table's rules in one line, as every seat's view states them."""
    last = _RULES_LINE_OF.get(id(table))
    if last is not None and last[0] is table and last[1] == table.rules:
        return last[2]
    line = _rules_line_of(table)
    if len(_RULES_LINE_OF) > 256:
        _RULES_LINE_OF.clear()
    _RULES_LINE_OF[id(table)] = (table, dict(table.rules), line)
    return line


def _rules_line_of(table: Rulebook) -> str:
    key = (table.game, *sorted(table.rules.items()))
    found = _RULES_LINES.get(key)
    if found is None:
        if len(_RULES_LINES) > 256:
            _RULES_LINES.clear()
        found = _RULES_LINES[key] = _rules_line(table)
    return found


def _rules_line(table: Rulebook) -> str:
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


_card_text = _CARD_TEXT.__getitem__


def _cards(cards: Sequence[int]) -> str:
    return " ".join(map(_card_text, cards))


def _list(cards: Sequence[int]) -> str:
    return _cards(cards) if cards else "none"


def _short(view: SeatView) -> str:
    if view.family == "rummy":
        return "rummy"
    return "three_handed" if view.num_players == 3 else "gin"


def describe(
    view: SeatView, table: Rulebook | None = None, note: str | None = None,
    message: str | None = None,
) -> str:  # fmt: skip
    """The seat's view in words, ending with its legal moves and how to reply. ``table``
    gives the rules line (default: the view's own rules); ``note`` is added before the
    moves (the reason a last reply was refused); ``message`` is the adviser's words, shown
    to the captain only."""
    if table is None:
        table = Rulebook(_short(view), dict(view.rules))
    lines = (
        _describe_rummy(view, table)
        if view.family == "rummy"
        else _describe_gin(view, table, message)
    )
    if note:
        lines.append(f"Your last reply was not used: {note}")
    return "\n".join(lines)


def _points_line(row: HandPoints, name: Any) -> str:
    if row.winner is None:
        why = {"stock": "two cards left in the stock", "max_turns": "turn limit"}
        return f"hand {row.hand + 1}: a draw ({why.get(row.reason, 'no winner')})"
    kind = row.kind.replace("_", " ")
    by = "" if row.knocker in (None, row.winner) else f" against {name(row.knocker)}'s knock"
    return f"hand {row.hand + 1}: {name(row.winner)} scored {row.explained()} ({kind}{by})"


def _sheet_lines(view: SeatView, name: Any) -> list[str]:
    if not view.sheet:
        return []
    rows = view.sheet[-SHEET_LINES:]
    skipped = len(view.sheet) - len(rows)
    head = f"Score sheet ({skipped} earlier hands not shown): " if skipped else "Score sheet: "
    return [head + "; ".join(_points_line(r, name) for r in rows) + "."]


def _describe_gin(v: SeatView, table: Rulebook, message: str | None) -> list[str]:
    three = v.num_players == 3
    roles = v.roles
    me = v.player
    role = "" if me is None else roles[me]
    in_hand = [p for p in range(v.num_players) if p not in v.sitting_out]
    box = roles.index("box") if three and "box" in roles else None
    captain = roles.index("captain") if three and "captain" in roles else None
    # Whose hand the words are about: the seat's own; the adviser's (and a spectator's) the
    # captain's side; the other player in the hand is the opponent.
    mine = me if me in in_hand else (captain if three else None)
    opp = next((p for p in in_hand if p != mine), None) if mine is not None else None

    def name(p: Any) -> str:
        if p == me:
            return "you"
        return f"the {roles[p]}" if roles[p] else f"player {p}"

    title = "Three-handed gin rummy" if three else "Two-player gin rummy"
    lines = [f"{title}. " + ("You are watching." if me is None else f"You are the {role}.")]
    if three and me is not None:
        lines.append(
            {
                "box": "You play alone against the captain, who is advised by the adviser.",
                "captain": "You play against the box; your adviser suggests each of your moves.",
                "adviser": (
                    "You do not play this hand: you advise the captain, who plays against the box."
                ),
            }.get(role, "")
        )
    lines.append(rules_line(table))
    limit = (
        "gin only"
        if v.knock_limit == 0
        else "unknown"
        if v.knock_limit is None
        else f"{v.knock_limit} deadwood"
    )
    # A view read from an observation alone has no hand number (hand_index -1).
    number = f" (hand {v.hand_index + 1})" if v.hand_index >= 0 else ""
    this_hand = f"This hand{number}: knock limit {limit}"
    if v.multiplier != 1:
        this_hand += f"; every point counts {v.multiplier} times (spade upcard)"
    if box is not None:
        this_hand += "; the box deals"
    elif v.dealer is not None and v.pile_in_order:
        this_hand += f"; {name(v.dealer)} dealt"
    lines.append(this_hand + ".")
    scores = ", ".join(
        f"{roles[p]} {s}" if p != me else f"you ({roles[p]}) {s}"
        for p, s in enumerate(v.scores[: v.num_players])
        if roles[p] and roles[p] != "-"
    )
    target = f" (match to {v.target})" if v.target else ""
    lines.append(f"Scores: {scores}{target}.")
    if v.games is not None:
        lines.append(
            "Hollywood games: "
            + "; ".join(
                f"game {g + 1}: " + ", ".join(f"{roles[p]} {x}" for p, x in enumerate(game))
                for g, game in enumerate(v.games)
            )
            + "."
        )
    lines.extend(_sheet_lines(v, name))
    lines.append(f"Phase: {v.phase}; turn {v.turn}; stock: {v.stock} cards.")
    seen = v.hands.get(mine) if mine is not None else None
    if mine is not None and me != mine and seen is None:
        lines.append("You cannot see the captain's hand.")
    elif seen is not None and mine is not None:
        whose = "Your hand" if mine == me else f"The {roles[mine]}'s hand"
        lines.append(f"{whose} ({len(seen.cards)} cards): {_cards(seen.cards)}")
        meld_text = "; ".join(_cards(m) for m in seen.melds) or "none"
        lines.append(f"  best melds: {meld_text}")
        lines.append(f"  deadwood: {_list(seen.deadwood_cards)} = {seen.deadwood} points")
    what = "Upcard" if v.phase.startswith("upcard") else "Top of the discard pile"
    lines.append(f"{what}: {'none' if v.upcard is None else _CARD_TEXT[v.upcard]}.")
    if v.pile_in_order:
        if v.pile:
            lines.append(f"Under it, bottom to top: {_list(v.pile[:-1])}.")
    else:
        under = tuple(c for c in v.pile if c != v.upcard)
        lines.append(f"Also in the discard pile: {_list(under)}.")
    if v.taken is not None and mine is not None and v.to_act == mine:
        lines.append(f"{name(mine).capitalize()} just took {_CARD_TEXT[v.taken]} from the pile.")
    if opp is not None and mine is not None:
        o, m = name(opp), name(mine)
        lines.append(f"Cards {o} took from the pile and still holds: {_list(v.took.get(opp, ()))}.")
        lines.append(f"Cards {o} discarded: {_list(v.discarded.get(opp, ()))}.")
        own = v.discarded.get(mine, ())
        lines.append(f"Cards {m} discarded: {_list(own)}.")
        # What he passed: those discards he let lie (not the top card: his choice is to come).
        gone = set(v.took.get(opp, ())) | set(v.discarded.get(opp, ()))
        passed = [c for c in own if c not in gone and c != v.upcard]
        if own:
            lines.append(f"Of those, {o} passed (did not take): {_list(passed)}.")
    if v.phase == "upcard offer to the dealer" and mine is not None and v.to_act == mine:
        lines.append("The non-dealer passed the upcard.")
    if v.suggestion is not None and v.suggestion >= 0 and role == "captain":
        lines.append(f"Your adviser suggests: {_suggestion_words(v.suggestion)}.")
    if message and role == "captain":
        lines.append(f'Your adviser says: "{message}"')
    if v.showdown is not None and _hand_just_ended(v):
        lines.append(_showdown_words(v, name))
    if v.over or not v.legal:
        lines.append(_no_move(v))
        return lines
    if v.advising:
        lines.append(
            "Suggest one of the captain's moves (or no advice): "
            + ", ".join(
                _suggestion_words(a) if a == A.NO_ADVICE else _annotated(v, a) for a in v.legal
            )
            + "."
        )
        lines.append(
            "Reply with a short message to the captain that names the move you suggest, e.g. "
            '"discard 7H: it is your highest loose card", or "no advice".'
        )
        return lines
    lines.append("Legal moves: " + ", ".join(_annotated(v, a) for a in v.legal) + ".")
    lines.append(
        'Reply with one legal move, e.g. "discard 7H", or as JSON: {"move": "discard 7H"}.'
    )
    return lines


def _no_move(v: SeatView) -> str:
    if v.over:
        return "The match is over."
    return (
        "The hand is over; you have no move." if v.phase == "hand over" else "It is not your turn."
    )


def _hand_just_ended(v: SeatView) -> bool:
    """Is the last finished hand this one (over), or the one before while the next has
    had no turn yet?"""
    if not v.sheet:
        return False
    last = v.sheet[-1].hand
    return last == v.hand_index or (last == v.hand_index - 1 and v.turn == 0)


def _showdown_words(v: SeatView, name: Any) -> str:
    sd = v.showdown
    assert sd is not None
    row = sd.points
    text = "Last hand's showdown: " + _points_line(row, name) + "."
    if sd.knocker_melds or sd.defender_melds:
        text += (
            f" Knocker's melds {'; '.join(_cards(m) for m in sd.knocker_melds) or 'none'}, "
            f"deadwood {_list(sd.knocker_deadwood_cards)} = {sd.knocker_deadwood}; "
            f"defender's melds {'; '.join(_cards(m) for m in sd.defender_melds) or 'none'}, "
            f"laid off {_list(sd.layoffs)}, deadwood {_list(sd.defender_deadwood_cards)} = "
            f"{sd.defender_deadwood}."
        )
    return text


def _suggestion_words(action: int) -> str:
    return "no advice" if action == A.NO_ADVICE else _GIN_WORDS[action]


def _annotated(v: SeatView, action: int) -> str:
    """A move with what it leaves: discards and knocks from 11 cards say the deadwood
    (a knock that leaves none is gin)."""
    words = _GIN_WORDS[action]
    left = v.leaves.get(action)
    if left is not None:
        words += " (gin)" if action >= A.KNOCK and left == 0 else f" (leaves {left} deadwood)"
    return words


def _describe_rummy(v: SeatView, table: Rulebook) -> list[str]:
    n = v.num_players
    me = 0 if v.player is None else v.player

    def seat(p: int) -> str:
        if v.player is not None and p == me:
            return "you"
        return f"seat {(p - me) % n}"

    phase = v.phase
    first = (
        f"Basic rummy, {n} players. You are seat 0 below; seat k plays k turns after you."
        if v.player is not None
        else f"Basic rummy, {n} players. You are watching; seats are counted from seat 0."
    )
    lines = [first]
    dealer = "?" if v.dealer is None else seat(v.dealer)
    lines.append(f"Dealer: {dealer}. Phase: {phase}; turn {v.turn}.")
    lines.append(rules_line(table))
    if v.target is not None or v.sheet:
        order = sorted(range(n), key=lambda p: (p - me) % n)
        target = f" (match to {v.target})" if v.target else ""
        lines.append(
            "Scores: " + ", ".join(f"{seat(p)} {v.scores[p]}" for p in order) + f"{target}."
        )
    lines.extend(_sheet_lines(v, seat))
    mine = v.hands.get(me) if v.player is not None else None
    if mine is not None:
        lines.append(f"Your hand ({len(mine.cards)} cards): {_list(mine.cards)}")
        if mine.cards:
            meld_text = "; ".join(_cards(m) for m in mine.melds) or "none"
            lines.append(f"  best melds: {meld_text}")
            lines.append(f"  deadwood: {_list(mine.deadwood_cards)} = {mine.deadwood} points")
    if v.taken is not None and v.to_act == v.player:
        lines.append(
            f"You took {card_str(v.taken)} from the pile this turn: you may not discard it."
        )
    order_words = "bottom to top" if v.pile_in_order else "as a set"
    lines.append(f"Discard pile, {order_words}: {_cards(v.pile) or 'empty'}.")
    lines.append(
        f"Stock: {v.stock} cards"
        + (f" (known to hold {_cards(v.stock_known)})" if v.stock_known else "")
        + "."
    )
    if v.melds:
        lines.append(
            "On the table: "
            + "; ".join(f"{_cards(cards)} ({seat(owner)})" for owner, cards in v.melds)
            + "."
        )
    else:
        lines.append("On the table: no melds.")
    for p in sorted(range(n), key=lambda p: (p - me) % n):
        if v.player is not None and p == me:
            continue
        known = v.took.get(p, ())
        hand = v.hands.get(p)
        lines.append(
            f"{seat(p).capitalize()}: {v.counts[p]} cards"
            + (f" ({_cards(hand.cards)})" if hand is not None else "")
            + (f", known to hold {_cards(known)}" if known and hand is None else "")
            + ("" if not v.melded_before or v.melded_before[p] else ", has not melded yet")
            + "."
        )
    if v.showdown is not None and v.phase == "hand over":
        row = v.showdown.points
        lines.append("Last hand: " + _points_line(row, seat) + ".")
    if v.over or not v.legal:
        lines.append(_no_move(v))
        return lines
    lines.append("Legal moves: " + ", ".join(_RUMMY_WORDS[a] for a in v.legal) + ".")
    lines.append(
        'Reply with one legal move, e.g. "discard 7H", "meld 5H 6H 7H", "lay off 8H on run", '
        'or as JSON: {"move": "draw"}.'
    )
    return lines
