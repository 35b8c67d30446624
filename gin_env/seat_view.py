"""A seat's view of a table: every fact a front end shows, computed once.

The terminal (:mod:`gin_cli.terminal`), the web page (``gin_web``) and the words
(:mod:`gin_env.text.words`) only render a :class:`SeatView`; none of them reads the engine
for itself, so a fact added or fixed here reaches all three at once, and none can show a
seat more than its rules let it see.

:meth:`gin_env.table_state.TableState.view` (or :func:`seat_view`) builds the view of
``player`` (None: a spectator) at the table in play of any game (``gin_v0``,
``three_handed_gin_v0``, ``rummy_v0`` and their v1 layouts), from the moves it recorded as
they were applied:

- the hands the seat sees (its own; the adviser the captain's when the table lets him; all
  of them with ``open_hands``, for watching agents or after the match), each arranged
  (:class:`Arranged`: melds, deadwood cards, deadwood);
- what is public: the card counts, the discard pile in order, the upcard, the card just
  taken, the cards each player took from the pile and still holds, the stock's size;
- this hand's knock limit (Oklahoma's: the upcard's value) and its multiplier (Oklahoma's
  spade double), the roles, whose turn, the phase in words;
- the scores, the target, Hollywood's three games, and the score sheet: every finished
  hand's points with their parts (:class:`HandPoints`: deadwood difference, knock, gin,
  undercut and big-gin bonuses, the double; rummy: who paid what);
- the adviser's suggestion (to the captain and the adviser only), the seat's legal moves,
  the last hand's showdown (public once the hand is over), and this hand's moves as the
  seat saw them (the card drawn from the stock only to whoever may see it; a suggestion
  only to the captain's team).

:meth:`SeatView.to_dict` is its JSON form (cards as ``"7H"``), the web page's state.

>>> from gin_env import three_handed_gin_v0
>>> env = three_handed_gin_v0.raw_env()
>>> env.reset(seed=1)
>>> view = seat_view(env.table_state, 0)
>>> view.game, view.player, len(view.hands[0].cards), view.knock_limit, view.sheet
('three_handed_gin_v0', 0, 10, 10, ())
>>> sorted(view.hands)  # the box sees his own hand only
[0]
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.cards import card_str, cards_of_mask, from_mask
from gin_env.melds import GIN_MELDS, deadwood_mask, discard_deadwoods

if TYPE_CHECKING:
    from gin_env.table_state import TableState

__all__ = [
    "Arranged",
    "HandPoints",
    "Move",
    "SeatView",
    "ShowdownView",
    "TableSummary",
    "action_entry",
    "arranged",
    "clear_caches",
    "discard_table",
    "seat_view",
]

#: Phases in words, by the engine's phase name.
GIN_PHASES = {
    "upcard_nondealer": "upcard offer to the non-dealer",
    "upcard_dealer": "upcard offer to the dealer",
    "draw": "draw",
    "discard": "discard",
    "over": "hand over",
}
RUMMY_PHASES = {"draw": "draw", "play": "meld, lay off, discard", "over": "hand over"}


@functools.lru_cache(maxsize=64, typed=True)  # an enum member's name is slow to read
def _phase_id(phase: Any) -> str:
    """The engine's phase as its id: ``"upcard_nondealer"``, ``"discard"``, ``"play"``..."""
    return str(phase.name.lower())


#: What each discard from an 11-card hand leaves in deadwood: one search per hand, kept (a
#: hand is viewed again within a turn: re-asks, other seats, the web page).
discard_table = functools.lru_cache(maxsize=4096)(discard_deadwoods)


_cards = cards_of_mask


def _names(cards: Sequence[int]) -> list[str]:
    return [card_str(c) for c in cards]


@dataclass(frozen=True)
class Arranged:
    """A hand as a person holds it: the least-deadwood melds, then the deadwood."""

    cards: tuple[int, ...]
    melds: tuple[tuple[int, ...], ...]
    deadwood_cards: tuple[int, ...]
    deadwood: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "cards": _names(self.cards),
            "melds": [_names(m) for m in self.melds],
            "deadwood_cards": _names(self.deadwood_cards),
            "deadwood": self.deadwood,
        }


@functools.lru_cache(maxsize=4096)  # a hand is viewed again and again within a turn
def arranged(hand: int, ace_high: bool = False) -> Arranged:
    """The hand ``hand`` (a card mask) arranged; ``ace_high`` for rummy's Q-K-A runs."""
    table = R.ACE_HIGH_TABLE if ace_high else GIN_MELDS
    melds, rest = table.best_arrangement(hand)
    return Arranged(
        _cards(hand),
        tuple(_cards(m) for m in melds),
        _cards(rest),
        sum(min(c % 13 + 1, 10) for c in from_mask(rest)) if ace_high else deadwood_mask(hand),
    )


@dataclass(frozen=True)
class HandPoints:
    """One finished hand on the score sheet.

    ``points`` is what the hand scored (to ``winner``); ``parts`` add up to
    ``points // multiplier`` (``multiplier`` 2 is Oklahoma's spade double); ``scored`` is
    each player's gain this hand (the sheet adds up: the sum of ``scored`` over the rows is
    the scores); ``paid`` is rummy's payments (every loser pays the winner)."""

    hand: int
    kind: str  # gin: knock, undercut, gin, big_gin, draw; rummy: out, rummy, draw
    winner: int | None
    knocker: int | None
    points: int
    parts: tuple[tuple[str, int], ...]
    multiplier: int
    scored: tuple[int, ...]
    scores_after: tuple[int, ...]
    roles: tuple[str, ...] = ()
    reason: str = ""
    paid: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "kind": self.kind,
            "winner": self.winner,
            "knocker": self.knocker,
            "points": self.points,
            "parts": [[name, n] for name, n in self.parts],
            "multiplier": self.multiplier,
            "scored": list(self.scored),
            "scores": list(self.scores_after),
            "roles": list(self.roles),
            "reason": self.reason,
            "paid": list(self.paid),
        }

    def explained(self) -> str:
        """The points in words: ``"12 = undercut bonus 10 + deadwood difference 2"``,
        ``"x 2 (spade double)"``."""
        if self.kind == "draw" or not self.parts:
            return str(self.points)
        sum_ = " + ".join(f"{name} {n}" for name, n in self.parts)
        if self.multiplier != 1:
            return f"{self.points} = ({sum_}) x {self.multiplier} (spade double)"
        return f"{self.points} = {sum_}"


@dataclass(frozen=True)
class ShowdownView:
    """A finished hand laid open: every final hand, the knocker's and the defender's
    arrangements and lay-offs (gin), the cards left (rummy), and its points."""

    points: HandPoints
    hands: tuple[tuple[int, tuple[int, ...]], ...]  # (player, final cards)
    knocker_melds: tuple[tuple[int, ...], ...] = ()
    knocker_deadwood_cards: tuple[int, ...] = ()
    knocker_deadwood: int = 0
    defender_melds: tuple[tuple[int, ...], ...] = ()
    defender_deadwood_cards: tuple[int, ...] = ()
    defender_deadwood: int = 0
    layoffs: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.points.to_dict(),
            "explained": self.points.explained(),
            "hands": [{"player": p, "cards": _names(c)} for p, c in self.hands],
            "knocker_melds": [_names(m) for m in self.knocker_melds],
            "knocker_deadwood_cards": _names(self.knocker_deadwood_cards),
            "knocker_deadwood": self.knocker_deadwood,
            "defender_melds": [_names(m) for m in self.defender_melds],
            "defender_deadwood_cards": _names(self.defender_deadwood_cards),
            "defender_deadwood": self.defender_deadwood,
            "layoffs": _names(self.layoffs),
        }


@dataclass(frozen=True)
class Move:
    """One move of the hand as the seat saw it: ``card`` is the card it moved when the seat
    may know it (the pile's top taken, a discard, a stock card the seat drew), else None;
    ``advice`` marks an adviser's suggestion (``action`` is None for a seat that may not see
    what he suggested)."""

    player: int
    action: int | None
    card: int | None
    advice: bool = False
    role: str = ""  # the player's role in the hand of the move
    family: str = "gin"  # the action layout: "gin" or "rummy"

    def words(self) -> str:
        """The move in plain words, without its player: ``"takes 7H"``, ``"knocks,
        discarding 3C"``, ``"suggests discard 9S"``, ``"advises"``."""
        if self.advice:
            return "advises" if self.action is None else f"suggests {A.action_str(self.action)}"
        assert self.action is not None
        if self.family == "rummy":
            if self.action == R.DRAW_STOCK:
                return "draws from the stock"
            if self.action == R.TAKE_DISCARD and self.card is not None:
                return f"takes {card_str(self.card)}"
            return R.action_str(self.action)
        kind, _ = A.decode(self.action)
        card = "" if self.card is None else f" {card_str(self.card)}"
        if kind == "draw":  # (the card, where the seat may know it, is in ``card``)
            return "draws from the stock"
        return {
            "take": f"takes{card}",
            "pass": "passes on the upcard",
            "discard": f"discards{card}",
            "knock": f"knocks, discarding{card}",
            "big_gin": "lays down big gin",
        }.get(kind, A.action_str(self.action))

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "action": self.action,
            "card": None if self.card is None else card_str(self.card),
            "advice": self.advice,
            "role": self.role,
            "words": self.words(),
        }


@dataclass(slots=True)
class SeatView:
    """What ``player`` (None: a spectator) may see of the table, in plain values."""

    game: str  # the env's name
    family: str  # "gin" or "rummy"
    player: int | None
    num_players: int
    roles: tuple[str, ...]  # each player's role this hand ("" in rummy)
    to_act: int | None
    phase: str  # in words
    advising: bool  # the adviser is to suggest the captain's move
    hand_index: int
    hands: dict[int, Arranged]  # the hands this seat sees, by player
    counts: tuple[int, ...]  # cards each player holds
    pile: tuple[int, ...]  # the discard pile, bottom to top
    upcard: int | None  # the top of the pile
    taken: int | None  # the card taken from the pile this turn
    took: dict[int, tuple[int, ...]]  # cards each player took from the pile and still holds
    stock: int
    knock_limit: int | None  # this hand's (None: rummy)
    multiplier: int  # this hand's points are multiplied by it (Oklahoma's spade double)
    scores: tuple[int, ...]
    target: int | None
    over: bool
    winner: int | None
    sheet: tuple[HandPoints, ...]
    suggestion: int | None
    legal: tuple[int, ...]
    showdown: ShowdownView | None
    moves: tuple[Move, ...]  # this hand's (the last hand's once it is over)
    sitting_out: tuple[int, ...] = ()
    dealer: int | None = None
    games: list[list[int]] | None = None  # Hollywood's three games
    game_winners: list[int | None] | None = None
    melds: tuple[tuple[int, tuple[int, ...]], ...] = ()  # rummy's table: (owner, cards)
    open_hands: bool = False
    rules: dict[str, Any] = field(default_factory=dict)
    discarded: dict[int, tuple[int, ...]] = field(default_factory=dict)  # this hand, public
    turn: int = 0
    pile_in_order: bool = True  # False: a view from an observation that holds the pile as a set
    melded_before: tuple[bool, ...] = ()  # rummy: who has laid down a meld this hand
    stock_known: tuple[int, ...] = ()  # rummy: stock cards everyone saw (a turned-over pile)
    phase_id: str = ""  # the engine's name of the phase (``upcard_nondealer``...)
    leaves: dict[int, int] = field(default_factory=dict)  # legal discard/knock -> deadwood left
    moves_hand: int = 0  # the hand ``moves`` are of (the last one, before this one's first move)

    @property
    def spectator(self) -> bool:
        return self.player is None

    def move_entry(self, action: int) -> dict[str, Any]:
        """:func:`action_entry` of one of the seat's moves, with the deadwood a discard or
        knock leaves (``deadwood``; a knock leaving 0 is gin)."""
        entry = action_entry(self.family, action)
        if action in self.leaves:
            entry["deadwood"] = self.leaves[action]
        return entry

    @property
    def role(self) -> str:
        return "" if self.player is None else self.roles[self.player]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (cards as ``"7H"``, moves with their labels)."""
        label = functools.partial(action_label, self.family)
        return {
            "game": self.game,
            "family": self.family,
            "you": self.player,
            "spectator": self.spectator,
            "role": self.role or None,
            "roles": list(self.roles),
            "to_act": self.to_act,
            "phase": self.phase,
            "advising": self.advising,
            "hand_index": self.hand_index,
            "hands": {str(p): h.to_dict() for p, h in self.hands.items()},
            "counts": list(self.counts),
            "pile": _names(self.pile),
            "upcard": None if self.upcard is None else card_str(self.upcard),
            "taken": None if self.taken is None else card_str(self.taken),
            "took": {str(p): _names(c) for p, c in self.took.items()},
            "stock": self.stock,
            "knock_limit": self.knock_limit,
            "multiplier": self.multiplier,
            "scores": list(self.scores),
            "target": self.target,
            "over": self.over,
            "winner": self.winner,
            "sheet": [row.to_dict() for row in self.sheet],
            "suggestion": None
            if self.suggestion is None
            else {"id": self.suggestion, "label": label(self.suggestion)},
            "legal": [{"id": a, "label": label(a)} for a in self.legal],
            "showdown": None if self.showdown is None else self.showdown.to_dict(),
            "moves": [m.to_dict() for m in self.moves],
            "sitting_out": list(self.sitting_out),
            "dealer": self.dealer,
            "games": self.games,
            "game_winners": self.game_winners,
            "melds": [{"owner": o, "cards": _names(c)} for o, c in self.melds],
            "open": self.open_hands,
            "discarded": {str(p): _names(c) for p, c in self.discarded.items()},
            "turn": self.turn,
            "rules": dict(self.rules),
            "phase_id": self.phase_id,
            "leaves": {str(a): n for a, n in self.leaves.items()},
            "moves_hand": self.moves_hand,
        }


# -- the table's summary, for a front end that runs it ----------------------------------------
@dataclass(frozen=True)
class TableSummary:
    """What a front end that runs a table needs to know of it between moves, whatever the
    game: whether the match is over, who is to act and his legal ids, the hand on the
    table, each player's role, the winner. Public facts only
    (:meth:`gin_env.table_state.TableState.summary`)."""

    family: str
    over: bool
    to_act: int | None
    legal: tuple[int, ...]  # the player to act's (the engine's list, its mask's ids)
    hand_index: int
    hand_over: bool
    roles: tuple[str, ...]  # each player's role in the hand on the table ("" in rummy)
    scores: tuple[int, ...]
    winner: int | None


def action_label(family: str, action: int) -> str:
    """An action id's words in the game's layout (``discard 7H``, ``meld 5H 6H 7H``)."""
    return A.action_str(action) if family == "gin" else R.action_str(action)


def action_entry(family: str, action: int) -> dict[str, Any]:
    """An action id as a front end lists it, JSON-ready: ``id``, ``kind`` (``draw``,
    ``take``, ``pass``, ``discard``, ``knock``, ``no-advice``, ``big-gin``; rummy ``meld``,
    ``lay-off``), ``label`` and ``card`` (the card it names, or None)."""
    if family == "gin":
        kind, card = A.decode(action)
        return {"id": action, "kind": kind, "label": A.action_str(action),
                "card": None if card is None else card_str(card)}  # fmt: skip
    rkind, value = R.decode(action)
    kinds = {"draw_stock": "draw", "take_discard": "take", "lay_off_set": "lay-off",
             "lay_off_run": "lay-off"}  # fmt: skip
    card = value if rkind in ("discard", "lay_off_set", "lay_off_run") else -1
    return {"id": action, "kind": kinds.get(rkind, rkind), "label": R.action_str(action),
            "card": None if card < 0 else card_str(card)}  # fmt: skip


# -- building it ------------------------------------------------------------------------------
def seat_view(state: TableState, player: int | None, open_hands: bool = False) -> SeatView:
    """The view of ``player`` (a player index; None: a spectator) at the table in play
    ``state`` (``env.table_state`` of a reset env of any game): :meth:`TableState.view`.
    ``open_hands`` shows every hand (watching an agents-only table; a finished match)."""
    return state.view(player, open_hands)


def clear_caches() -> None:
    """Forget the arrangements and discards' deadwood kept by hand (keyed by the cards, not
    by a table): a view is then built from the table alone. For tests and benchmarks."""
    for kept in (arranged, discard_table, _phase_id):
        kept.cache_clear()


def gin_points(state: TableState, rec: Any) -> HandPoints:
    """The score-sheet row of the finished gin hand of ``rec``."""
    r = rec.result
    winner = None if r.winner is None else rec.players[r.winner]
    scored = [0] * state.num_players
    if winner is not None:
        scored[winner] = r.points
    return HandPoints(
        hand=rec.index,
        kind=r.kind,
        winner=winner,
        knocker=None if r.knocker is None else rec.players[r.knocker],
        points=r.points,
        parts=r.breakdown(),
        multiplier=r.multiplier,
        scored=tuple(scored),
        scores_after=tuple(rec.scores_after),
        roles=tuple(state.role_names[x] for x in rec.roles),
        reason=r.reason,
    )


def gin_showdown(rec: Any, row: HandPoints) -> ShowdownView:
    """The showdown of the finished gin hand of ``rec``, whose row is ``row``."""
    r = rec.result
    sd = r.showdown
    if sd is None:  # a drawn hand is thrown in unseen
        return ShowdownView(row, ())
    hands = tuple((p, _cards(r.final_hands[s])) for s, p in enumerate(rec.players))
    return ShowdownView(
        row,
        hands,
        tuple(_cards(m) for m in sd.knocker_melds),
        _cards(sd.knocker_deadwood_cards),
        sd.knocker_deadwood,
        tuple(_cards(m) for m in sd.defender_melds),
        _cards(sd.defender_deadwood_cards),
        sd.defender_deadwood,
        _cards(sd.layoffs),
    )


def _gin_moves(
    moves: Sequence[tuple[int, int, int, bool]],
    roles: tuple[str, ...],
    sees: set[int],
    advice_seen: bool,
) -> tuple[Move, ...]:
    """A hand's moves as recorded when applied, as a seat saw them: a card drawn from the
    stock only to whoever sees that hand, a suggestion only to the captain's team."""
    out = []
    for who, action, card, advice in moves:
        if advice:
            out.append(Move(who, action if advice_seen else None, None, True, roles[who]))
            continue
        shown = None if card < 0 or (action == A.DRAW_STOCK and who not in sees) else card
        out.append(Move(who, action, shown, False, roles[who]))
    return tuple(out)


def gin_view(state: TableState, player: int | None, open_hands: bool) -> SeatView:
    """:meth:`TableState.view` of a gin table."""
    match = state.match
    assert match is not None
    hand = match.hand
    rec = match.record
    n = state.num_players
    three = n == 3
    outside = tuple(p for p in range(n) if p not in rec.players)
    adviser = outside[0] if outside else None
    captain = rec.players[0] if three else None
    roles = tuple(state.role_names[r] for r in rec.roles)
    sees = state.sees(player, open_hands)
    hands = {p: arranged(hand.hands[s]) for s, p in enumerate(rec.players) if p in sees}
    counts = [0] * n
    took: dict[int, tuple[int, ...]] = {}
    discarded: dict[int, tuple[int, ...]] = {}
    for s, p in enumerate(rec.players):
        counts[p] = hand.hands[s].bit_count()
        took[p] = _cards(hand.took[s] & hand.hands[s])
        discarded[p] = _cards(hand.discarded[s])
    done = [r for r in match.history if r.result is not None]
    over = bool(match.is_over)
    to_act = None if over else match.current_player
    suggestion = state.suggestion
    if suggestion is not None and not (open_hands or player in (captain, adviser)):
        suggestion = None
    legal = tuple(state.legal_actions()) if to_act == player is not None else ()
    # What each legal discard or knock leaves in deadwood (0 after a knock: gin), from the
    # hand of the seat to act (or of the captain the adviser advises, if he sees it).
    leaves: dict[int, int] = {}
    acting = next((p for p in (to_act, captain) if p in hands), None) if legal else None
    if acting is not None and len(hands[acting].cards) == 11:
        seat = rec.players.index(acting)
        # The engine keeps the seat to act's (its legal knocks need them).
        left = hand.discard_deadwoods() if seat == hand.current else discard_table(hand.hands[seat])
        leaves = {a: left[(a - A.DISCARD) % 52] for a in legal if A.DISCARD <= a < A.BIG_GIN}
    # The moves of the hand on the table; once it is over (the next not yet begun), its own.
    last = not state.moves and bool(done) and not rec.actions
    moves_rec = done[-1] if last else rec
    if last:
        moves_roles = tuple(state.role_names[r] for r in moves_rec.roles)
        m_out = tuple(p for p in range(n) if p not in moves_rec.players)
        m_sees = set(range(n)) if open_hands else set() if player is None else {player}
        if player is not None and not open_hands and player in m_out and state.adviser_sees_hand:
            m_sees.add(moves_rec.players[0])
        team = (moves_rec.players[0], m_out[0] if m_out else None)
        moves = _gin_moves(state.last_moves, moves_roles, m_sees, open_hands or player in team)
    else:
        moves = _gin_moves(state.moves, roles, sees, open_hands or player in (captain, adviser))
    phase_id = _phase_id(hand.phase)
    standings = match.standings()
    return SeatView(
        game=state.name,
        family="gin",
        player=player,
        num_players=n,
        roles=roles,
        to_act=to_act,
        phase=GIN_PHASES.get(phase_id, phase_id),
        advising=state.advising,
        hand_index=int(rec.index),
        hands=hands,
        counts=tuple(counts),
        pile=tuple(hand.discard_pile),
        upcard=hand.top_discard,
        taken=hand.taken if phase_id == "discard" else None,
        took=took,
        stock=hand.stock_size,
        knock_limit=hand.knock_limit,
        multiplier=hand.multiplier,
        scores=tuple(map(int, match.scores)),
        target=match.target_score,
        over=over,
        winner=None if not over else match.winner,
        sheet=tuple(state.finished(r)[0] for r in done),
        suggestion=suggestion,
        legal=legal,
        showdown=state.finished(done[-1])[1] if done else None,
        moves=moves,
        sitting_out=outside,
        dealer=rec.players[1],
        games=standings.get("games"),
        game_winners=standings.get("game_winners"),
        open_hands=open_hands,
        rules=dict(state.rules),
        discarded=discarded,
        turn=hand.turns,
        phase_id=phase_id,
        leaves=leaves,
        moves_hand=int(moves_rec.index),
    )


def _rummy_points(game: Any, index: int, result: Any, scores_after: tuple[int, ...]) -> HandPoints:
    n = len(result.payments)
    winner = result.winner
    scored = [0] * n
    if winner is not None:
        scored[winner] = result.payments[winner]
    gain = 0 if winner is None else result.payments[winner]
    parts: tuple[tuple[str, int], ...] = ()
    if winner is not None:
        pips = gain // (2 if result.rummy else 1)
        parts = (("pips left in the others' hands", pips),)
    return HandPoints(
        hand=index,
        kind="draw" if winner is None else "rummy" if result.rummy else "out",
        winner=winner,
        knocker=None,
        points=gain,
        parts=parts,
        multiplier=2 if result.rummy else 1,
        scored=tuple(scored),
        scores_after=scores_after,
        reason="max_turns" if result.truncated else "",
        paid=tuple(result.payments),
    )


def rummy_view(state: TableState, player: int | None, open_hands: bool) -> SeatView:
    """:meth:`TableState.view` of a rummy table."""
    game = state.game
    assert game is not None
    n = state.num_players
    ace_high = bool(game.config.ace_high_or_low)
    sees = state.sees(player, open_hands)
    over = bool(game.match_over)
    to_act = None if over else int(game.current)
    # The score sheet adds up: a row's ``scored`` is what the scores gained (the winner the
    # payments; ``paid`` says who paid them).
    running = [0] * n
    sheet = []
    for i, r in enumerate(game.results):
        row = _rummy_points(game, i, r, ())
        running = [a + b for a, b in zip(running, row.scored, strict=True)]
        sheet.append(_with_scores(row, tuple(running)))
    showdown = None
    if game.results:
        last = game.results[-1]
        showdown = ShowdownView(sheet[-1], tuple((p, _cards(last.cards_left[p])) for p in range(n)))
    phase = _phase_id(game.phase)
    legal = tuple(state.legal_actions()) if to_act == player is not None else ()
    return SeatView(
        game=state.name,
        family="rummy",
        player=player,
        num_players=n,
        roles=("",) * n,
        to_act=to_act,
        phase=RUMMY_PHASES.get(phase, phase),
        advising=False,
        hand_index=state.hand_index,
        hands={p: arranged(game.hands[p], ace_high) for p in sorted(sees)},
        counts=tuple(h.bit_count() for h in game.hands),
        pile=tuple(game.discard_pile),
        upcard=None if game.top_discard < 0 else int(game.top_discard),
        taken=None if game.taken_card < 0 else int(game.taken_card),
        took={p: _cards(game.public_cards[p] & game.hands[p]) for p in range(n)},
        stock=len(game.stock),
        knock_limit=None,
        multiplier=1,
        scores=state.scores,
        target=game.config.target_score,
        over=over,
        winner=state.winner,
        sheet=tuple(sheet),
        suggestion=None,
        legal=legal,
        showdown=showdown,
        moves=_rummy_moves(game, player, open_hands),
        moves_hand=int(game.hand_number) - (1 if not game.history and game.last_history else 0) - 1,
        dealer=int(game.dealer),
        melds=tuple((m.owner, _cards(m.cards)) for m in game.table),
        open_hands=open_hands,
        rules=dict(state.rules),
        turn=int(game.turns),
        melded_before=tuple(bool(x) for x in game.melded_before),
        phase_id=phase,
    )


def _rummy_moves(game: Any, player: int | None, open_hands: bool) -> tuple[Move, ...]:
    """The hand's moves as ``player`` saw them (the last hand's, before this one's first
    move), from the moves the game recorded as they were made: a card drawn from the stock
    only to the drawer, every other card is laid face up."""
    if game.history:
        moves = [(s, a, c) for (s, a), c in zip(game.history, game.moved, strict=True)]
    else:
        moves = game.last_history
    return tuple(
        Move(
            seat,
            action,
            None if card < 0 or (action == R.DRAW_STOCK and seat != player and not open_hands)
            else card,
            family="rummy",
        )
        for seat, action, card in moves
    )  # fmt: skip


def _with_scores(row: HandPoints, scores: tuple[int, ...]) -> HandPoints:
    return replace(row, scores_after=scores)
