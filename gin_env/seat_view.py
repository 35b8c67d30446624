"""A seat's view of a table: every fact a front end shows, computed once.

The terminal (:mod:`gin_cli.terminal`), the web page (``gin_web``) and the words
(:mod:`gin_env.text.words`) only render a :class:`SeatView`; none of them reads the engine
for itself, so a fact added or fixed here reaches all three at once, and none can show a
seat more than its rules let it see.

:func:`seat_view` builds the view of ``player`` (None: a spectator) at a live env of any
game (``gin_v0``, ``three_handed_gin_v0``, ``rummy_v0`` and their v1 layouts):

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
>>> view = seat_view(env, 0)
>>> view.game, view.player, len(view.hands[0].cards), view.knock_limit, view.sheet
('three_handed_gin_v0', 0, 10, 10, ())
>>> sorted(view.hands)  # the box sees his own hand only
[0]
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.cards import card_str, cards_of_mask, from_mask
from gin_env.melds import GIN_MELDS, deadwood_mask, discard_deadwoods

__all__ = [
    "Arranged",
    "HandPoints",
    "Move",
    "SeatView",
    "ShowdownView",
    "TableState",
    "action_entry",
    "arranged",
    "clear_caches",
    "discard_table",
    "seat_view",
    "table_state",
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


# -- the table's state, for a front end that runs it ---------------------------------------------
@dataclass(frozen=True)
class TableState:
    """What a front end that runs a table needs to know of it between moves, whatever the
    game: whether the match is over, who is to act and his legal ids, the hand on the
    table, each player's role, the winner. Public facts only."""

    family: str
    over: bool
    to_act: int | None
    legal: tuple[int, ...]  # the player to act's (the engine's list, its mask's ids)
    hand_index: int
    hand_over: bool
    roles: tuple[str, ...]  # each player's role in the hand on the table ("" in rummy)
    scores: tuple[int, ...]
    winner: int | None


def table_state(env: Any) -> TableState:
    """The :class:`TableState` of a reset raw env of any game."""
    if hasattr(env, "match"):
        match = env.match
        over = bool(match.is_over)
        return TableState(
            family="gin",
            over=over,
            to_act=None if over else match.current_player,
            legal=() if over else tuple(int(a) for a in env.legal_actions()),
            hand_index=int(match.record.index),
            hand_over=bool(match.hand.is_over),
            roles=tuple(env.role_names[r] for r in match.record.roles),
            scores=tuple(int(s) for s in match.scores),
            winner=int(match.winner) if over and match.winner is not None else None,
        )
    game = env.game
    over = bool(game.match_over)
    scores = tuple(int(s) for s in game.scores)
    return TableState(
        family="rummy",
        over=over,
        to_act=None if over else int(game.current),
        legal=() if over else tuple(int(a) for a in game.legal_actions()),
        hand_index=max(int(game.hand_number) - 1, 0),
        hand_over=game.result is not None,
        roles=("",) * len(scores),
        scores=scores,
        winner=_rummy_winner(game) if over else None,
    )


def _rummy_winner(game: Any) -> int | None:
    # A match: the highest score; a single hand (no target): its winner (None: truncated).
    if game.config.target_score is None and game.results:
        last = game.results[-1].winner
        return None if last is None else int(last)
    return int(max(range(len(game.scores)), key=lambda p: game.scores[p]))


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
def seat_view(env: Any, player: int | None, open_hands: bool = False) -> SeatView:
    """The view of ``player`` (a player index; None: a spectator) at ``env``, a reset raw
    env of any game (``raw_env`` of :mod:`gin_env.gin_v0`, :mod:`gin_env.three_handed_gin_v0`,
    :mod:`gin_env.rummy_v0` or their v1). ``open_hands`` shows every hand (watching an
    agents-only table; a finished match)."""
    if player is not None and not (
        isinstance(player, int) and not isinstance(player, bool) and 0 <= player < env.num_players
    ):
        raise ValueError(
            f"player must be None or an int in 0..{env.num_players - 1}; got {player!r}"
        )
    if hasattr(env, "match"):
        if env.match is None:
            raise RuntimeError("call reset() before taking a seat's view")
        return _gin_view(env, player, open_hands)
    if getattr(env, "game", None) is None:
        raise RuntimeError("call reset() before taking a seat's view")
    return _rummy_view(env, player, open_hands)


#: How many entries each of the caches below keeps before it starts afresh.
_KEPT = 512
#: Each finished hand's row and showdown, built once: ``id(record) -> (record, row,
#: showdown)`` (the record held, so its id is not reused while its entry lives).
_FINISHED: dict[int, tuple[Any, HandPoints, ShowdownView]] = {}


def _finished(env: Any, rec: Any) -> tuple[HandPoints, ShowdownView]:
    """The score-sheet row and the showdown of the finished hand of ``rec``."""
    found = _FINISHED.get(id(rec))
    if found is not None and found[0] is rec:
        return found[1], found[2]
    row = _gin_points(env, rec)
    showdown = _gin_showdown(env, rec, row)
    _kept(_FINISHED, id(rec), (rec, row, showdown))
    return row, showdown


def _gin_points(env: Any, rec: Any) -> HandPoints:
    r = rec.result
    winner = None if r.winner is None else rec.players[r.winner]
    scored = [0] * env.num_players
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
        roles=tuple(env.role_names[x] for x in rec.roles),
        reason=r.reason,
    )


def _gin_showdown(env: Any, rec: Any, row: HandPoints) -> ShowdownView:
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


def _seen_by(env: Any, rec: Any, player: int | None, open_hands: bool) -> set[int]:
    """Whose cards ``player`` sees in the hand of ``rec``: his own; the adviser the
    captain's, if the rules say so; everyone's with ``open_hands``."""
    if open_hands:
        return set(range(env.num_players))
    if player is None:
        return set()
    sees = {player}
    if player not in rec.players and env.adviser_sees_hand:
        sees.add(rec.players[0])  # the adviser sees the captain (the hand's non-dealer)
    return sees


@dataclass(slots=True)
class _Hand:
    """What the views of one gin hand read of its record again and again, read once; and
    its moves as each sight saw them, kept as the hand goes (``sight -> (moves, actions
    read, the pile then, the next stock card)``), so a view built once per decision replays
    only the moves made since the last one."""

    roles: tuple[str, ...]
    adviser: int | None
    team: tuple[int | None, ...]  # the captain and his adviser
    sitting_out: tuple[int, ...]
    moves: dict[Any, tuple[tuple[Move, ...], int, tuple[int, ...], int]] = field(
        default_factory=dict
    )


#: Kept per source (a gin hand's record, rummy's list of moves), by its id; each entry holds
#: its source, so the id is not reused while the entry lives. A new entry replaces a whole
#: one in one assignment: a reader sees the old or the new.
_HANDS: dict[int, tuple[Any, _Hand]] = {}
_RUMMY_MOVES: dict[Any, tuple[Any, tuple[Move, ...]]] = {}


def clear_caches() -> None:
    """Forget every result kept from one view to the next (the hands' moves and finished
    hands, arrangements, discards' deadwood, the rules): a view is then built from the
    table alone. For tests and benchmarks; a view never needs it."""
    for cache in (_HANDS, _RUMMY_MOVES, _FINISHED, _RULES):
        cache.clear()
    for kept in (arranged, discard_table, _phase_id):
        kept.cache_clear()


def _kept(cache: dict[Any, Any], key: Any, value: Any) -> None:
    if len(cache) >= _KEPT and key not in cache:
        cache.clear()
    cache[key] = value


def _hand_of(env: Any, rec: Any) -> _Hand:
    found = _HANDS.get(id(rec))
    if found is not None and found[0] is rec:
        return found[1]
    outside = tuple(p for p in range(env.num_players) if p not in rec.players)
    adviser = outside[0] if outside else None
    roles = tuple(env.role_names[r] for r in rec.roles)
    hand = _Hand(roles, adviser, (rec.players[0], adviser), outside)
    _kept(_HANDS, id(rec), (rec, hand))
    return hand


def _gin_moves(env: Any, rec: Any, player: int | None, open_hands: bool) -> tuple[Move, ...]:
    """The moves of the hand of ``rec`` as ``player`` saw them, replaying the pile from the
    deal: a taken card is the pile's top, a drawn card the stock's."""
    facts = _hand_of(env, rec)
    sees = _seen_by(env, rec, player, open_hands)
    adviser = facts.adviser
    advice_seen = open_hands or player in facts.team
    sight = (tuple(sorted(sees)), advice_seen)
    actions = rec.actions
    done: tuple[Move, ...] = ()
    start, pile, stock = 0, [rec.deck[20]], 21
    kept = facts.moves.get(sight)
    if kept is not None and kept[1] <= len(actions):
        done, start, pile_then, stock = kept
        if start == len(actions):
            return done
        pile = list(pile_then)
    roles = facts.roles
    out = []
    for who, action in actions[start:]:
        if who == adviser:
            out.append(Move(who, action if advice_seen else None, None, True, roles[who]))
            continue
        card: int | None = None
        if action == A.TAKE_DISCARD:
            card = pile.pop()
        elif action == A.DRAW_STOCK:
            drawn = rec.deck[stock]
            stock += 1
            card = drawn if who in sees else None
        elif A.DISCARD <= action < A.BIG_GIN:
            card = (action - A.DISCARD) % 52
            pile.append(card)
        out.append(Move(who, action, card, False, roles[who]))
    moves = done + tuple(out)
    facts.moves[sight] = (moves, len(actions), tuple(pile), stock)
    return moves


def _gin_view(env: Any, player: int | None, open_hands: bool) -> SeatView:
    match = env.match
    hand = match.hand
    rec = match.record
    three = env.num_players == 3
    adviser = match.adviser if three else None
    captain = rec.players[0] if three else None
    sees = _seen_by(env, rec, player, open_hands)
    hands = {p: arranged(hand.hands[s]) for s, p in enumerate(rec.players) if p in sees}
    counts = [0] * env.num_players
    took: dict[int, tuple[int, ...]] = {}
    discarded: dict[int, tuple[int, ...]] = {}
    for s, p in enumerate(rec.players):
        counts[p] = hand.hands[s].bit_count()
        took[p] = _cards(hand.took[s] & hand.hands[s])
        discarded[p] = _cards(hand.discarded[s])
    done = [r for r in match.history if r.result is not None]
    over = bool(match.is_over)
    to_act = None if over else match.current_player
    suggestion = getattr(match, "suggestion", None)
    if suggestion is not None and not (open_hands or player in (captain, adviser)):
        suggestion = None
    legal = tuple(map(int, env.legal_actions())) if to_act == player is not None else ()
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
    moves_rec = rec if rec.actions or not done else done[-1]
    phase_id = _phase_id(hand.phase)
    facts = _hand_of(env, rec)
    standings = match.standings()
    return SeatView(
        game=env.metadata["name"],
        family="gin",
        player=player,
        num_players=env.num_players,
        roles=facts.roles,
        to_act=to_act,
        phase=GIN_PHASES.get(phase_id, phase_id),
        advising=bool(getattr(match, "advising", False)),
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
        sheet=tuple(_finished(env, r)[0] for r in done),
        suggestion=None if suggestion is None else int(suggestion),
        legal=legal,
        showdown=_finished(env, done[-1])[1] if done else None,
        moves=_gin_moves(env, moves_rec, player, open_hands),
        sitting_out=facts.sitting_out,
        dealer=rec.players[1],
        games=standings.get("games"),
        game_winners=standings.get("game_winners"),
        open_hands=open_hands,
        rules=_rules(env.config),
        discarded=discarded,
        turn=hand.turns,
        phase_id=phase_id,
        leaves=leaves,
        moves_hand=int(moves_rec.index),
    )


#: A table's rules (a frozen dataclass) as a dict, by the config's id (the config held).
_RULES: dict[int, tuple[Any, dict[str, Any]]] = {}


def _rules(config: Any) -> dict[str, Any]:
    """The rules as a dict of option names: a fresh dict each view (its values are plain)."""
    found = _RULES.get(id(config))
    if found is None or found[0] is not config:
        found = (config, asdict(config))
        _kept(_RULES, id(config), found)
    return dict(found[1])


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


def _rummy_view(env: Any, player: int | None, open_hands: bool) -> SeatView:
    game = env.game
    n = env.num_players
    ace_high = bool(game.config.ace_high_or_low)
    sees = set(range(n)) if open_hands else set()
    if player is not None:
        sees.add(player)
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
    scores = tuple(int(s) for s in game.scores)
    winner = _rummy_winner(game) if over else None
    phase = _phase_id(game.phase)
    legal = tuple(int(a) for a in game.legal_actions()) if to_act == player is not None else ()
    return SeatView(
        game=env.metadata["name"],
        family="rummy",
        player=player,
        num_players=n,
        roles=("",) * n,
        to_act=to_act,
        phase=RUMMY_PHASES.get(phase, phase),
        advising=False,
        hand_index=max(int(game.hand_number) - 1, 0),
        hands={p: arranged(game.hands[p], ace_high) for p in sorted(sees)},
        counts=tuple(h.bit_count() for h in game.hands),
        pile=tuple(game.discard_pile),
        upcard=None if game.top_discard < 0 else int(game.top_discard),
        taken=None if game.taken_card < 0 else int(game.taken_card),
        took={p: _cards(game.public_cards[p] & game.hands[p]) for p in range(n)},
        stock=len(game.stock),
        knock_limit=None,
        multiplier=1,
        scores=scores,
        target=game.config.target_score,
        over=over,
        winner=winner,
        sheet=tuple(sheet),
        suggestion=None,
        legal=legal,
        showdown=showdown,
        moves=_rummy_moves(game, player, open_hands),
        moves_hand=int(game.hand_number) - (1 if not game.history and game.last_history else 0) - 1,
        dealer=int(game.dealer),
        melds=tuple((m.owner, _cards(m.cards)) for m in game.table),
        open_hands=open_hands,
        rules=_rules(game.config),
        turn=int(game.turns),
        melded_before=tuple(bool(x) for x in game.melded_before),
        phase_id=phase,
    )


def _rummy_moves(game: Any, player: int | None, open_hands: bool) -> tuple[Move, ...]:
    """The hand's moves as ``player`` saw them (the last hand's, before this one's first
    move): a card drawn from the stock only to the drawer, every other card is laid face
    up. Only the moves made since the last call for the same hand and sight are read."""
    source = game.history if game.history else game.last_history
    key = (id(source), "open" if open_hands else player)
    found = _RUMMY_MOVES.get(key)
    done: tuple[Move, ...] = ()
    if found is not None and found[0] is source and len(found[1]) <= len(source):
        done = found[1]
        if len(done) == len(source):
            return done
    start = len(done)
    if game.history:
        new = [(s, a, c) for (s, a), c in zip(source[start:], game.moved[start:], strict=True)]
    else:
        new = source[start:]
    moves = done + tuple(
        Move(
            seat,
            action,
            None if card < 0 or (action == R.DRAW_STOCK and seat != player and not open_hands)
            else card,
            family="rummy",
        )
        for seat, action, card in new
    )  # fmt: skip
    _kept(_RUMMY_MOVES, key, (source, moves))
    return moves


def _with_scores(row: HandPoints, scores: tuple[int, ...]) -> HandPoints:
    return replace(row, scores_after=scores)
