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
from dataclasses import dataclass, field
from typing import Any, Protocol

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
    "TableSummary",
    "Viewed",
    "GIN_PHASES",
    "RUMMY_PHASES",
    "phase_id",
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
def phase_id(phase: Any) -> str:
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
    the scores); ``paid`` is rummy's payments (every loser pays the winner);
    ``games_after`` is Hollywood's three games after the hand (each the two players' scores),
    as the engine scored them."""

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
    games_after: tuple[tuple[int, ...], ...] = ()

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
            "games": [list(g) for g in self.games_after],
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
    gin: bool = False  # a knock that left no deadwood: the hand ended in gin

    def words(self) -> str:
        """The move in plain words, without its player: ``"takes 7H"``, ``"knocks,
        discarding 3C"``, ``"goes gin, discarding 3C"``, ``"suggests discard 9S"``,
        ``"gives no advice"``, ``"advises"``."""
        if self.advice:
            if self.action is None:
                return "advises"
            if self.action == A.NO_ADVICE:
                return "gives no advice"
            return f"suggests {A.action_str(self.action)}"
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
            "knock": f"goes gin, discarding{card}" if self.gin else f"knocks, discarding{card}",
            "big_gin": "lays down big gin",
        }.get(kind, A.action_str(self.action))

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "action": self.action,
            "card": None if self.card is None else card_str(self.card),
            "advice": self.advice,
            "role": self.role,
            "gin": self.gin,
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
class Viewed(Protocol):
    """A table that gives seats' views (:class:`gin_env.table_state.TableState`)."""

    def view(self, player: int | None, open_hands: bool = False) -> SeatView: ...


def seat_view(state: Viewed, player: int | None, open_hands: bool = False) -> SeatView:
    """The view of ``player`` (a player index; None: a spectator) at the table in play
    ``state`` (``env.table_state`` of a reset env of any game): its ``view``, which builds
    it from the moves recorded as they were applied (:mod:`gin_env.table_state`).
    ``open_hands`` shows every hand (watching an agents-only table; a finished match)."""
    return state.view(player, open_hands)


def clear_caches() -> None:
    """Forget the arrangements and discards' deadwood kept by hand (keyed by the cards, not
    by a table): a view is then built from the table alone. For tests and benchmarks."""
    for kept in (arranged, discard_table, phase_id):
        kept.cache_clear()
