"""The table in the terminal: a seat's :class:`~gin_env.seat_view.SeatView` as rich markup.

Nothing here reads the engine: every line renders the view the core computes once for
every front end (the web page and the words render the same one), from the table in play
(:class:`~gin_env.table_state.TableState`). :func:`explain_illegal` too says why a typed
move is not legal from the table's legal moves and the view of the seat to act, so it never
tells a seat more than that seat sees.
"""

from __future__ import annotations

from collections.abc import Sequence

from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.cards import card_str, from_mask, suit
from gin_env.seat_view import Arranged, HandPoints, Move, SeatView, ShowdownView
from gin_env.table_state import TableState

__all__ = [
    "card_markup",
    "cards_markup",
    "human_view",
    "render_view",
    "move_line",
    "showdown_lines",
    "explain_illegal",
    "legal_words",
]


def card_markup(card: int) -> str:
    colour = "bold red" if suit(card) in (1, 2) else "bold"
    return f"[{colour}]{card_str(card)}[/]"


def cards_markup(cards: Sequence[int] | int) -> str:
    if isinstance(cards, int):
        cards = from_mask(cards)
    return " ".join(card_markup(c) for c in cards) or "-"


def _arranged(hand: Arranged) -> str:
    """A hand grouped as melds then deadwood (the arrangement with the least deadwood)."""
    parts = [f"({cards_markup(m)})" for m in hand.melds]
    if hand.deadwood_cards:
        parts.append(cards_markup(hand.deadwood_cards))
    return "  ".join(parts) + f"   [dim]deadwood {hand.deadwood}[/]"


def _label(view: SeatView, names: Sequence[str], player: int, role: str | None = None) -> str:
    role = view.roles[player] if role is None else role
    return f"{names[player]} ({role})" if role else names[player]


def human_view(state: TableState, player: int, names: Sequence[str]) -> str:
    """The table in play ``state`` (an env's ``table_state``) from ``player``'s seat, the
    players called ``names`` (rich markup): :func:`render_view` of the seat's view."""
    return render_view(state.view(player), names)


def render_view(view: SeatView, names: Sequence[str]) -> str:
    """The seat's view as the terminal shows it: the hand, roles, scores, this hand's knock
    limit and double, the opponents' counts and the cards they took from the pile, the pile
    (top last), the stock, the adviser's suggestion and the moves a discard or knock
    leaves."""
    if view.family == "rummy":
        return _render_rummy(view, names)
    me = view.player
    scores = "  ".join(f"{names[p]} {s}" for p, s in enumerate(view.scores))
    who = "watching" if me is None else f"you are [bold]{names[me]}[/], {view.role}"
    limit = "gin only" if view.knock_limit == 0 else f"knock at {view.knock_limit}"
    double = f", points x{view.multiplier} (spade upcard)" if view.multiplier != 1 else ""
    lines = [
        f"[bold cyan]Hand {view.hand_index + 1}[/]   {who}   scores: {scores} "
        f"(to {view.target})   [dim]{limit}{double}[/]"
    ]
    if view.sheet:
        lines.append(f"  [dim]last hand: {_points(view.sheet[-1], names)}[/]")
    if view.games is not None:
        games = "; ".join(
            f"game {g + 1}: " + " ".join(str(x) for x in game) for g, game in enumerate(view.games)
        )
        lines.append(f"  [dim]Hollywood {games}[/]")
    for p in range(view.num_players):
        if p == me or p in view.hands:
            continue
        if p in view.sitting_out:
            lines.append(f"  {_label(view, names, p)} sits out")
            continue
        tag = " (dealer)" if p == view.dealer else ""
        took = view.took.get(p, ())
        lines.append(
            f"  {_label(view, names, p)}{tag}: {view.counts[p]} cards"
            + (f", took from the pile: {cards_markup(took)}" if took else "")
        )
    shown = view.pile[-6:]
    more = f"{len(view.pile) - len(shown)} more, " if len(view.pile) > len(shown) else ""
    label = "upcard" if view.phase_id.startswith("upcard") else "discard pile"
    lines.append(f"  stock {view.stock}   {label} (top last): {more}{cards_markup(shown)}")
    for p, hand in view.hands.items():
        whose = "your" if p == me else f"{names[p]}'s"
        dealer = " (you deal)" if p == view.dealer and p == me else ""
        lines.append(f"  {whose} hand{dealer}: {_arranged(hand)}")
    if view.taken is not None and view.to_act == me:
        lines.append(f"  you took {card_markup(view.taken)}: it may not go back this turn")
    if view.suggestion is not None and view.role == "captain":
        lines.append(f"  [yellow]your adviser suggests: {A.action_str(view.suggestion)}[/]")
    if view.leaves:
        knocks = [a for a in view.legal if a >= A.KNOCK and a in view.leaves]
        if knocks:
            words = [
                f"{card_str(a - A.KNOCK)} ({'gin' if view.leaves[a] == 0 else view.leaves[a]})"
                for a in knocks
            ]
            lines.append("  [dim]you may knock with " + ", ".join(words) + "[/]")
    return "\n".join(lines)


def _render_rummy(view: SeatView, names: Sequence[str]) -> str:
    me = view.player
    scores = "  ".join(f"{names[p]} {s}" for p, s in enumerate(view.scores))
    target = f" (to {view.target})" if view.target else ""
    lines = [f"[bold cyan]Hand {view.hand_index + 1}[/]   scores: {scores}{target}"]
    if view.sheet:
        lines.append(f"  [dim]last hand: {_points(view.sheet[-1], names)}[/]")
    for p in range(view.num_players):
        if p == me:
            continue
        tag = " (dealer)" if p == view.dealer else ""
        took = view.took.get(p, ())
        lines.append(
            f"  {names[p]}{tag}: {view.counts[p]} cards"
            + (f", known to hold {cards_markup(took)}" if took else "")
        )
    for owner, cards in view.melds:
        lines.append(f"  on the table ({names[owner]}): {cards_markup(cards)}")
    shown = view.pile[-8:]
    more = f"{len(view.pile) - len(shown)} more, " if len(view.pile) > len(shown) else ""
    lines.append(f"  stock {view.stock}   discard pile (top last): {more}{cards_markup(shown)}")
    for p, hand in view.hands.items():
        whose = "your" if p == me else f"{names[p]}'s"
        lines.append(f"  {whose} hand: {_arranged(hand)}")
    if view.taken is not None and view.to_act == me:
        lines.append(f"  you took {card_markup(view.taken)}: it may not be discarded this turn")
    return "\n".join(lines)


def move_line(view: SeatView, move: Move, names: Sequence[str]) -> str:
    """One move as the seat learnt it (rich markup); "" for a suggestion it may not hear."""
    if move.advice and move.action is None:
        return ""
    who = _label(view, names, move.player, move.role)
    words = move.words()
    if move.card is not None:
        words = words.replace(card_str(move.card), card_markup(move.card))
    if move.action is not None and A.KNOCK <= move.action < A.BIG_GIN and not move.advice:
        words = words.replace("knocks", "[bold yellow]knocks[/]", 1)
    return f"{who} {words}"


def _points(row: HandPoints, names: Sequence[str]) -> str:
    if row.winner is None:
        return "a draw: nobody scores"
    word = {"undercut": "undercut! ", "gin": "gin! ", "big_gin": "big gin! ", "rummy": "rummy! "}
    return f"{word.get(row.kind, '')}{names[row.winner]} scores {row.explained()}"


def showdown_lines(showdown: ShowdownView, names: Sequence[str]) -> list[str]:
    """A finished hand: both arrangements, the lay-offs, the points with their parts (the
    bonuses, Oklahoma's double) and who scored."""
    row = showdown.points
    label = {
        p: f"{names[p]} ({row.roles[p]})" if row.roles else names[p] for p, _ in showdown.hands
    }
    lines = [f"[bold cyan]Hand {row.hand + 1} over[/]"]
    if row.paid:  # rummy: the cards left and what each paid
        for p, cards in showdown.hands:
            paid = f"   pays {-row.paid[p]}" if row.paid[p] < 0 else ""
            lines.append(f"  {label[p]}: {cards_markup(cards)}{paid}")
    elif row.knocker is not None:

        def melds(ms: Sequence[Sequence[int]]) -> str:
            return "  ".join(f"({cards_markup(m)})" for m in ms) or "no melds"

        defender = next(p for p, _ in showdown.hands if p != row.knocker)
        verb = "goes gin" if row.kind in ("gin", "big_gin") else "knocks"
        lines.append(
            f"  {label[row.knocker]} {verb}: {melds(showdown.knocker_melds)}   deadwood "
            f"{cards_markup(showdown.knocker_deadwood_cards)} = {showdown.knocker_deadwood}"
        )
        lays = f"   lays off {cards_markup(showdown.layoffs)}" if showdown.layoffs else ""
        lines.append(
            f"  {label[defender]} defends: {melds(showdown.defender_melds)}{lays}   deadwood "
            f"{cards_markup(showdown.defender_deadwood_cards)} = {showdown.defender_deadwood}"
        )
    lines.append(f"  [bold yellow]{_points(row, names)}[/]")
    if row.games_after:  # Hollywood: the three games, not the first one still open
        games = ", ".join(
            f"{g + 1}: " + "-".join(str(s) for s in game) for g, game in enumerate(row.games_after)
        )
        lines.append(f"  games ({'-'.join(names)}): {games}")
    else:
        scores = "  ".join(f"{names[p]} {s}" for p, s in enumerate(row.scores_after))
        lines.append(f"  scores: {scores}")
    return lines


def explain_illegal(state: TableState, action: int | A.IllegalAction) -> str:
    """Why ``action`` (an action id, or the :class:`~gin_env.actions.IllegalAction` the table
    refused it with) is not legal for the player to act at the table in play ``state``, in
    the game's words: read from the table's legal moves and the view of the seat to act
    (a hand that seat does not see is never named)."""
    if isinstance(action, A.IllegalAction):
        legal: Sequence[int] = action.legal
        action = action.action
    else:
        legal = state.legal_actions()
    if state.family != "gin":
        return f"{R.action_str(action)} is not legal now"
    view = state.view(state.to_act)
    kind, card = A.decode(action)
    if kind == "no-advice" and not view.advising:
        return "only the adviser can give no advice"
    if kind == "big-gin":
        return "big gin is not on: it needs the big_gin_bonus option and 11 melded cards"
    phase = view.phase_id
    if phase.startswith("upcard"):
        top = "-" if view.upcard is None else card_str(view.upcard)
        return f"the upcard {top} is on offer: 'take' it or 'pass'"
    if phase == "draw":
        if kind == "take" and A.TAKE_DISCARD not in legal:
            return "both players passed the upcard, so the first draw comes from the stock"
        if kind == "pass":
            return "the upcard offer is over: 'draw' from the stock or 'take' the top discard"
        return "draw first: 'draw' from the stock or 'take' the top of the discard pile"
    if phase == "discard":
        if card is None:
            return "you have drawn already: discard a card (e.g. 7h) or knock (e.g. knock 7h)"
        held = _deciding_hand(view)
        if held is not None and card not in held.cards:
            return f"{card_str(card)} is not in the hand"
        if card == view.taken and not view.rules.get("allow_discard_of_taken_card", False):
            return f"{card_str(card)} was just taken from the discard pile: it may not go back"
        if held is None and view.advising:  # the adviser blind: only what he saw taken
            return (
                "you do not see the captain's hand: suggest the discard of a card you saw "
                "the captain take from the discard pile, or none"
            )
        left = view.leaves.get(A.DISCARD + card)
        if kind == "knock" and left is not None:
            return (
                f"no knock: discarding {card_str(card)} leaves deadwood {left}, "
                f"above the knock limit {view.knock_limit}"
            )
    return f"{A.action_str(action)} is not legal now"


def _deciding_hand(view: SeatView) -> Arranged | None:
    """The hand whose move is decided, if the seat to act sees it: its own, or the captain's
    that the adviser advises on (when the table lets him see it)."""
    captain = view.roles.index("captain") if "captain" in view.roles else None
    return next((view.hands[p] for p in (view.to_act, captain) if p in view.hands), None)


def legal_words(legal: Sequence[int]) -> str:
    """A gin seat's legal moves, grouped: ``draw; take; discard one of ...; knock with ...``."""
    simple = [A.action_str(a) for a in legal if A.decode(a)[1] is None]
    discards = [card_str(c) for a in legal if (c := A.decode(a)[1]) is not None and a < A.KNOCK]
    knocks = [card_str(c) for a in legal if (c := A.decode(a)[1]) is not None and a >= A.KNOCK]
    parts = list(simple)
    if discards:
        parts.append("discard one of " + " ".join(discards))
    if knocks:
        parts.append("knock with " + " ".join(knocks))
    return "; ".join(parts)


def rummy_legal_words(legal: Sequence[int]) -> str:
    return ", ".join(R.action_str(a) for a in legal)
