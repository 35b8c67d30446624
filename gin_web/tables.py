"""A table of the web app: one env of the project, its seats (people and agents), and what
each seat may see.

The env is the only authority: every move goes through ``env.step`` after the seat and
the move were checked against the env's own action mask, and a move that fails changes
nothing. What a client receives is built here by :meth:`LiveTable.view`, from the seat's side
of the table only: its own hand (the adviser the captain's, when the rules show it to
him), the public cards (the discard pile, the cards a player took from it, the melds on
the table), the counts, and, once a hand is over, the hands as the showdown shows them.
Nothing here knows about WebSockets (:mod:`gin_web.app`) or SQLite (:mod:`gin_web.store`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import agents
from agents import families
from gin_env import actions as A
from gin_env import games
from gin_env import rummy_actions as R
from gin_env.cards import card_str, from_mask
from gin_env.config import DEALER_RULES
from gin_env.match import CAPTAIN
from gin_env.melds import GIN_MELDS, deadwood_mask
from gin_env.record import match_record
from gin_env.three_handed_gin_v0 import ADVISER_MODES

__all__ = [
    "GAMES",
    "Seat",
    "HUMAN",
    "MoveError",
    "Decision",
    "LiveTable",
    "game_options",
    "option_choices",
    "new_table",
    "link_key",
    "restore_table",
    "check_settings",
    "SECRET_BITS",
]

#: The games a table plays, by the name the lobby uses.
GAMES = {"three": "three_handed_gin_v0", "gin": "gin_v0", "rummy": "rummy_v0"}
#: A seat's kind in the lobby: a person, or an agent by name.
HUMAN = "human"
#: Table options that are not rules (the web app's own).
_ADVISER_OPTIONS = {"adviser": "suggest", "adviser_sees_hand": True}
_RUMMY_OPTIONS = {"num_players": 2, "ace_high_or_low": False, "max_turns": 500, "target_score": 100}
#: Log lines kept per hand (a hand has at most a few hundred moves).
_LOG_LIMIT = 400
#: Bits of the secret a table deals from when no seed was chosen: no seat can search them
#: from its cards, and none learns them before the match ends (:meth:`LiveTable.record`).
SECRET_BITS = 128
#: The largest seed a client may choose (at a table of agents only).
MAX_CHOSEN_SEED = 2**63 - 1
#: The longest a person's seat may stay empty before an agent stands in, in seconds.
MAX_TAKEOVER = 86_400.0


class MoveError(ValueError):
    """A move refused: not this seat's turn, not legal, or not a move at all."""


def game_options(game: str) -> dict[str, Any]:
    """The options a table of ``game`` takes, with their defaults: the rules of the env
    (checked by the env itself) and, three-handed, the adviser's options."""
    spec = games.get(GAMES.get(game, game))
    if spec.family == "rummy":
        return dict(_RUMMY_OPTIONS)
    config = spec.module.raw_env.config_class
    rules = {f.name: f.default for f in dataclasses.fields(config)}
    return {**(_ADVISER_OPTIONS if spec.players == 3 else {}), **rules}


def option_choices(game: str) -> dict[str, list[str]]:
    """The allowed values of the options that take a word (for the lobby's menus)."""
    spec = games.get(GAMES.get(game, game))
    out: dict[str, list[str]] = {}
    if spec.players == 3:
        out["adviser"] = list(ADVISER_MODES)
    if "dealer_rule" in game_options(spec.name):
        out["dealer_rule"] = list(DEALER_RULES)
    return out


@dataclass
class Seat:
    """One player of the table: a person (with an invite token) or an agent."""

    player: int
    kind: str  # HUMAN or the agent's spec
    token: str | None = None  # the invite link's token (only while the table is new)
    key: str | None = None  # its link_key: what the server and its store keep
    agent: Any = None
    connections: int = 0
    left_at: float | None = None  # when the last connection of a person closed
    stand_in: bool = False  # an agent plays for a person who left (takeover option)

    @property
    def human(self) -> bool:
        return self.kind == HUMAN


@dataclass(frozen=True)
class Decision:
    """A person's decision, as the data set keeps it."""

    table: str
    player: int
    role: str
    hand: int
    step: int
    observation: np.ndarray
    mask: np.ndarray
    action: int
    suggestion: int | None
    seconds: float


@dataclass
class _Event:
    """One line of a hand's log; ``audience`` None is everyone, else those players."""

    text: str
    audience: frozenset[int] | None = None
    hidden: str = ""  # what the others read instead ("" : they read nothing)


@dataclass
class LiveTable:
    """A table: ``env`` (a PettingZoo raw env of the project), its seats, its links."""

    id: str
    game: str  # the env name
    options: dict[str, Any]
    seed: int
    env: Any
    seats: list[Seat]
    spectator_token: str
    spectator_key: str = ""
    delay: float = 0.0  # seconds between agent moves (watching)
    takeover: float | None = None  # seconds a person's seat may stay empty on his turn
    hint_agent: str = "heuristic"
    seeded: bool = False  # the seed was chosen (agents-only tables); else a secret
    created: float = field(default_factory=time.time)
    step_count: int = 0
    turn_started: float = field(default_factory=time.monotonic)
    log: list[_Event] = field(default_factory=list)
    on_decision: Callable[[Decision], None] | None = None
    on_move: Callable[[int, int, int], None] | None = None  # (move number, player, action)
    rummy_moves: list[tuple[int, int]] = field(default_factory=list)  # basic rummy's record
    _hinter: Any = None
    _hint_at: tuple[int, int, int] | None = None  # (move number, player, action) last hinted

    # -- facts ------------------------------------------------------------------------------
    @property
    def spec(self) -> games.GameSpec:
        return games.get(self.game)

    @property
    def family(self) -> str:
        return self.spec.family

    @property
    def names(self) -> list[str]:
        return list(self.env.possible_agents)

    @property
    def over(self) -> bool:
        if self.family == "gin":
            return bool(self.env.match.is_over)
        return bool(self.env.game.match_over)

    @property
    def to_act(self) -> int | None:
        """The player to act, or None once the match is over."""
        if self.over:
            return None
        if self.family == "gin":
            return self.env.match.current_player  # type: ignore[no-any-return]
        return int(self.env.game.current)

    @property
    def agent_only(self) -> bool:
        return not any(s.human for s in self.seats)

    def waiting_for_agent(self) -> bool:
        """Is an agent (or a stand-in for a person who left) to act?"""
        p = self.to_act
        if p is None:
            return False
        seat = self.seats[p]
        return not seat.human or seat.stand_in

    def role(self, player: int) -> str:
        """``player``'s role in the hand on the table ("" in basic rummy: no roles)."""
        if self.family != "gin":
            return ""
        return str(self.env.role_names[self.env.match.record.roles[player]])

    def legal(self, player: int) -> list[int]:
        """The legal ids of ``player`` (empty when it is not his turn): the engine's list,
        the one its action mask is made of."""
        if self.to_act != player:
            return []
        if self.family == "gin":
            return [int(a) for a in self.env.legal_actions()]
        return [int(a) for a in self.env.game.legal_actions()]

    # -- moves ------------------------------------------------------------------------------
    def move(self, player: int, action: Any, seq: Any = None) -> None:
        """A person's move: checked (his turn, the table's move number ``seq`` when given,
        a legal id of the env's mask), recorded as a decision, then played. A refused move
        raises :class:`MoveError` and changes nothing."""
        if self.over:
            raise MoveError("the match is over: no move is legal")
        if isinstance(action, bool) or not isinstance(action, int):
            raise MoveError(f"action must be an integer action id, got {action!r}")
        if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int)):
            raise MoveError(f"seq must be the integer move number of the table, got {seq!r}")
        if self.to_act != player:
            raise MoveError(f"it is not your turn: {self.names[self.to_act or 0]} is to act")
        if seq is not None and seq != self.step_count:
            raise MoveError(
                f"stale move: it was sent for move {seq}, the table is at move {self.step_count}"
            )
        legal = self.legal(player)
        if action not in legal:
            words = ", ".join(f"{a} ({self.action_label(a)})" for a in legal)
            raise MoveError(f"illegal move {action}: legal now are {words}")
        if self.on_decision is not None and self.seats[player].human:
            ob = self.env.observe(self.names[player])
            self.on_decision(
                Decision(
                    table=self.id,
                    player=player,
                    role=self.role(player),
                    hand=self.hand_index,
                    step=self.step_count,
                    observation=np.asarray(ob["observation"], np.float32),
                    mask=np.asarray(ob["action_mask"], np.int8),
                    action=action,
                    suggestion=self.suggestion_for(player),
                    seconds=time.monotonic() - self.turn_started,
                )
            )
        self.play_move(player, action)

    def agent_move(self) -> int:
        """Let the agent (or stand-in) to act play one move; return the action."""
        p = self.to_act
        if p is None:
            raise MoveError("the match is over")
        seat = self.seats[p]
        if seat.agent is None:  # a stand-in for a person: the hint agent plays
            seat.agent = self._make_agent(self.hint_agent)
        action = int(seat.agent.act(self.env.observe(self.names[p])))
        self.play_move(p, action)
        return action

    def hint(self, player: int) -> int:
        """What the table's hint agent would play in ``player``'s seat (from his view)."""
        if self.to_act != player:
            raise MoveError("a hint is for your own turn: it is not your turn")
        if self._hint_at is not None and self._hint_at[:2] == (self.step_count, player):
            return self._hint_at[2]  # the same position: the same hint, not thought again
        if self._hinter is None:
            self._hinter = self._make_agent(self.hint_agent)
        action = int(self._hinter.act(self.env.observe(self.names[player])))
        self._hint_at = (self.step_count, player, action)
        return action

    def _make_agent(self, spec: str) -> Any:
        return make_agent(spec, self.env)

    def play_recorded(self, player: int, action: int) -> None:
        """A move of a record played again (a restored table, a replay): checked against the
        engine's legal ids of the player to act (:meth:`legal`), then played."""
        if self.to_act != player:
            raise ValueError(
                f"move {self.step_count} is by player {player}, but {self.to_act} is to act"
            )
        if action not in self.legal(player):
            raise ValueError(f"move {self.step_count}: action {action} is not legal there")
        self.play_move(player, action)

    def play_move(self, player: int, action: int) -> None:
        """Play a move the env will check (agents' moves, replays): log it, step the env."""
        self.log_move(player, action)
        del self.log[:-_LOG_LIMIT]  # (a rummy hand may run to max_turns moves)
        before = self.hand_index
        try:
            self.env.step(action)
        except ValueError:
            self.log.pop()  # the env refused it and changed nothing: nor does the log
            raise
        if self.family == "rummy":
            self.rummy_moves.append((player, action))
        self.step_count += 1
        if self.on_move is not None:
            self.on_move(self.step_count - 1, player, action)
        self.turn_started = time.monotonic()
        if self.hand_index != before or self._hand_over():
            self.log = []

    def _hand_over(self) -> bool:
        if self.family == "gin":
            return bool(self.env.match.hand.is_over)
        return self.env.game.result is not None

    @property
    def hand_index(self) -> int:
        if self.family == "gin":
            return int(self.env.match.record.index)
        return int(self.env.game.hand_number) - 1

    # -- the log ----------------------------------------------------------------------------
    def action_label(self, action: int) -> str:
        return A.action_str(action) if self.family == "gin" else R.action_str(action)

    def log_move(self, player: int, action: int) -> None:
        """The move in words, before it is played, for those who may know it."""
        role = self.role(player)
        who = f"{self.names[player]} ({role})" if role else self.names[player]
        if self.family == "rummy":
            game = self.env.game
            if action == R.TAKE_DISCARD:
                text = f"{who} takes {card_str(game.top_discard)}"
            elif action == R.DRAW_STOCK:
                text = f"{who} draws from the stock"
            else:
                text = f"{who} {R.action_str(action)}"
            self.log.append(_Event(text))
            return
        match = self.env.match
        if getattr(match, "advising", False):
            text = f"{who} suggests {A.action_str(action)}"
            team = frozenset((match.captain, match.adviser))
            self.log.append(_Event(text, team, hidden=f"{who} advises"))
            return
        kind, card = A.decode(action)
        top = match.hand.top_discard
        if kind == "take" and top is not None:
            text = f"{who} takes {card_str(top)}"
        elif kind == "draw":
            text = f"{who} draws from the stock"
        elif kind == "pass":
            text = f"{who} passes on the upcard"
        elif kind in ("discard", "knock") and card is not None:
            verb = "knocks, discarding" if kind == "knock" else "discards"
            text = f"{who} {verb} {card_str(card)}"
        else:
            text = f"{who} {A.action_str(action)}"
        self.log.append(_Event(text))
        del self.log[:-_LOG_LIMIT]

    # -- what a seat sees -------------------------------------------------------------------
    def suggestion_for(self, player: int | None) -> int | None:
        """The adviser's suggestion as ``player`` sees it: the captain (and the adviser who
        made it) only."""
        if self.family != "gin" or player is None:
            return None
        match = self.env.match
        suggestion = getattr(match, "suggestion", None)
        if suggestion is None or player not in (match.captain, match.adviser):
            return None
        return int(suggestion)

    def view(self, player: int | None, open_hands: bool = False) -> dict[str, Any]:
        """The table as ``player`` (None: a spectator) may see it, JSON-ready. With
        ``open_hands`` (watching an agent-only table) every hand is shown."""
        base: dict[str, Any] = {
            "type": "state",
            "seq": self.step_count,
            "table": self.id,
            "game": self.game,
            "you": player,
            "role": None if player is None else self.role(player),
            "scores": self._scores(),
            "over": self.over,
            "winner": self._winner(),
            "to_act": self.to_act,
            "open": open_hands,
            "players": [
                {
                    "name": self.names[s.player],
                    "kind": s.kind,
                    "role": self.role(s.player),
                    "present": (not s.human) or s.connections > 0,
                    "stand_in": s.stand_in,
                }
                for s in self.seats
            ],
            "log": [
                e.text if (e.audience is None or open_hands or player in e.audience) else e.hidden
                for e in self.log
                if e.audience is None or open_hands or player in e.audience or e.hidden
            ],
        }
        legal = [] if player is None else self.legal(player)
        base["legal"] = [self._move_entry(a) for a in legal]
        if self.family == "gin":
            base.update(self._gin_view(player, open_hands))
        else:
            base.update(self._rummy_view(player, open_hands))
        return base

    def _move_entry(self, action: int) -> dict[str, Any]:
        if self.family == "gin":
            kind, card = A.decode(action)
            entry = {"id": action, "kind": kind, "label": A.action_str(action),
                     "card": None if card is None else card_str(card)}  # fmt: skip
            hand = self.env.match.hand
            if kind == "knock" and card is not None and not getattr(self.env.match, "advising",
                                                                    False):  # fmt: skip
                # The deadwood the knock leaves (0: gin), as the rules count it.
                entry["deadwood"] = deadwood_mask(hand.hands[hand.current] & ~(1 << card))
            return entry
        return {"id": action, "kind": _rummy_kind(action), "label": R.action_str(action),
                "card": _rummy_card(action)}  # fmt: skip

    def _scores(self) -> list[int]:
        if self.family == "gin":
            return [int(s) for s in self.env.match.scores]
        return [int(s) for s in self.env.game.scores]

    def _winner(self) -> int | None:
        if not self.over:
            return None
        if self.family == "gin":
            return int(self.env.match.winner)
        scores = self.env.game.scores
        return int(max(range(len(scores)), key=lambda p: scores[p]))

    def _gin_view(self, player: int | None, open_hands: bool) -> dict[str, Any]:
        env = self.env
        match = env.match
        hand = match.hand
        rec = match.record
        names = self.names
        # Whose cards this seat sees: its own; the adviser the captain's, if the rules say so.
        shown: dict[int, int] = {}  # hand seat (0 non-dealer, 1 dealer) -> player
        for s, p in enumerate(rec.players):
            if open_hands or p == player:
                shown[s] = p
            elif (
                player is not None
                and player not in rec.players
                and env.num_players == 3
                and env.adviser_sees_hand
                and rec.roles[p] == CAPTAIN
            ):
                shown[s] = p
        seats = []
        for s, p in enumerate(rec.players):
            entry: dict[str, Any] = {
                "player": p,
                "name": names[p],
                "role": self.role(p),
                "dealer": s == hand.dealer,
                "count": hand.hands[s].bit_count(),
                "took": [card_str(c) for c in from_mask(hand.took[s])],
            }
            if s in shown:
                entry["cards"] = arranged(hand.hands[s])
            seats.append(entry)
        standings = match.standings()
        view: dict[str, Any] = {
            "target": match.target_score,
            # Hollywood scoring: the three games' scores and winners.
            "games": standings.get("games"),
            "game_winners": standings.get("game_winners"),
            "hand": {
                "index": rec.index,
                "phase": hand.phase.name.lower(),
                "advising": bool(getattr(match, "advising", False)),
                "stock": hand.stock_size,
                "pile": [card_str(c) for c in hand.discard_pile],
                "knock_limit": hand.knock_limit,
                "seats": seats,
                "sitting_out": [p for p in range(env.num_players) if p not in rec.players],
            },
            "sheet": [_sheet_row(self, r) for r in match.history if r.result is not None],
        }
        suggestion = (
            match.suggestion
            if open_hands and getattr(match, "suggestion", None) is not None
            else self.suggestion_for(player)
        )
        view["suggestion"] = None if suggestion is None else self._move_entry(int(suggestion))
        done = [r for r in match.history if r.result is not None]
        view["showdown"] = _showdown(self, done[-1]) if done else None
        return view

    def _rummy_view(self, player: int | None, open_hands: bool) -> dict[str, Any]:
        game = self.env.game
        n = self.env.num_players
        seats = []
        for p in range(n):
            entry: dict[str, Any] = {
                "player": p,
                "name": self.names[p],
                "dealer": p == game.dealer,
                "count": game.hands[p].bit_count(),
                "took": [card_str(c) for c in from_mask(game.public_cards[p] & game.hands[p])],
            }
            if open_hands or p == player:
                entry["cards"] = arranged(game.hands[p])
            seats.append(entry)
        view: dict[str, Any] = {
            "target": game.config.target_score,
            "hand": {
                "index": self.hand_index,
                "phase": game.phase.name.lower(),
                "stock": len(game.stock),
                "pile": [card_str(c) for c in game.discard_pile],
                "seats": seats,
                "melds": [
                    {"owner": m.owner, "cards": [card_str(c) for c in from_mask(m.cards)]}
                    for m in game.table
                ],
                "taken": None if game.taken_card < 0 else card_str(game.taken_card),
            },
            "suggestion": None,
            "sheet": [
                {
                    "hand": i,
                    "winner": r.winner,
                    "payments": list(r.payments),
                    "rummy": r.rummy,
                    "truncated": r.truncated,
                }
                for i, r in enumerate(game.results)
            ],
            "showdown": None,
        }
        if game.results:
            last = game.results[-1]
            view["showdown"] = {
                "hand": len(game.results) - 1,
                "winner": last.winner,
                "payments": list(last.payments),
                "rummy": last.rummy,
                "truncated": last.truncated,
                # The cards left in each hand are counted out loud: public once it is over.
                "left": [[card_str(c) for c in from_mask(m)] for m in last.cards_left],
            }
        return view

    def config(self) -> dict[str, Any]:
        """What rebuilds the table after a restart (with its moves): JSON-ready, the links
        as their keys only."""
        return {
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "seats": [s.kind for s in self.seats],
            "keys": [s.key for s in self.seats],
            "spectator_key": self.spectator_key,
            "delay": self.delay,
            "takeover": self.takeover,
            "hint_agent": self.hint_agent,
            "created": self.created,
            "seeded": self.seeded,
        }

    # -- the record -------------------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """The match as a replay record (the project's match format for the gin games;
        basic rummy: its moves, deals by seed)."""
        who = {self.names[s.player]: s.kind for s in self.seats}
        # How the deals were fixed: a seed chosen for a table of agents, or the table's
        # secret, kept from every seat until now (the record holds it: the match replays).
        deal = "chosen seed" if self.seeded else "secret"
        if self.family == "gin":
            return {**match_record(self.seed, self.options, self.env, who), "deal": deal}
        game = self.env.game
        return {
            "format": "gin-web-rummy-1",
            "game": self.game,
            "seed": self.seed,
            "deal": deal,
            "options": dict(self.options),
            "agents": who,
            "moves": [list(m) for m in self.rummy_moves],
            "scores": [int(s) for s in game.scores],
            "winner": self._winner(),
        }


def arranged(hand_mask: int) -> dict[str, Any]:
    """A hand sorted as a person holds it: melds first (the arrangement with the least
    deadwood), then the deadwood by suit and rank, and the deadwood count."""
    melds, rest = GIN_MELDS.best_arrangement(hand_mask)
    return {
        "melds": [[card_str(c) for c in from_mask(m)] for m in melds],
        "deadwood_cards": [card_str(c) for c in from_mask(rest)],
        "deadwood": deadwood_mask(hand_mask),
    }


def _sheet_row(table: LiveTable, rec: Any) -> dict[str, Any]:
    r = rec.result
    return {
        "hand": rec.index,
        "roles": [table.env.role_names[x] for x in rec.roles],
        "kind": r.kind,
        "winner": None if r.winner is None else rec.players[r.winner],
        "points": r.points,
        "scores": list(rec.scores_after),
    }


def _showdown(table: LiveTable, rec: Any) -> dict[str, Any]:
    """A finished hand as the showdown shows it to everyone: both arrangements, lay-offs,
    deadwood, the kind (knock, undercut, gin) and the points."""
    r = rec.result
    out: dict[str, Any] = {
        "hand": rec.index,
        "kind": r.kind,
        "reason": r.reason,
        "points": r.points,
        "winner": None if r.winner is None else rec.players[r.winner],
        "knocker": None if r.knocker is None else rec.players[r.knocker],
        "scores": list(rec.scores_after),
        "roles": [table.env.role_names[x] for x in rec.roles],
        "hands": [
            {"player": p, "cards": [card_str(c) for c in from_mask(r.final_hands[s])]}
            for s, p in enumerate(rec.players)
        ],
    }
    sd = r.showdown
    if sd is not None:

        def cards(mask: int) -> list[str]:
            return [card_str(c) for c in from_mask(mask)]

        out["knocker_melds"] = [cards(m) for m in sd.knocker_melds]
        out["knocker_deadwood_cards"] = cards(sd.knocker_deadwood_cards)
        out["knocker_deadwood"] = sd.knocker_deadwood
        out["defender_melds"] = [cards(m) for m in sd.defender_melds]
        out["defender_deadwood_cards"] = cards(sd.defender_deadwood_cards)
        out["defender_deadwood"] = sd.defender_deadwood
        out["layoffs"] = cards(sd.layoffs)
    return out


def _rummy_kind(action: int) -> str:
    if action == R.DRAW_STOCK:
        return "draw"
    if action == R.TAKE_DISCARD:
        return "take"
    if action < R.MELD:
        return "discard"
    if action < R.LAY_OFF_SET:
        return "meld"
    return "lay-off"


def _rummy_card(action: int) -> str | None:
    if R.DISCARD <= action < R.MELD:
        return card_str(action - R.DISCARD)
    if action >= R.LAY_OFF_RUN:
        return card_str(action - R.LAY_OFF_RUN)
    if action >= R.LAY_OFF_SET:
        return card_str(action - R.LAY_OFF_SET)
    return None


def link_key(token: str) -> str:
    """What is kept of an invite link: its token's SHA-256 (the store never holds a link
    that would open a seat)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def restore_table(
    table_id: str, config: Mapping[str, Any], moves: Sequence[Sequence[int]]
) -> LiveTable:
    """The table ``config`` (:meth:`LiveTable.config`) after ``moves`` ``(player, action)``:
    a fresh env from the same seed, the same seats, every move played again through it."""
    spec = games.get(config["game"])
    seed = config["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SECRET_BITS:
        raise ValueError(f"seed must be an int in 0..2**{SECRET_BITS}-1, got {seed!r}")
    check_settings(config["delay"], config["takeover"])
    env = spec.make_env(**config["options"])
    env.reset(seed=seed)
    seats = []
    for p, (kind, key) in enumerate(zip(config["seats"], config["keys"], strict=True)):
        agent = None if kind == HUMAN else make_agent(kind, env)
        seats.append(Seat(p, kind, key=key, agent=agent))
    table = LiveTable(
        id=table_id,
        game=spec.name,
        options=dict(config["options"]),
        seed=config["seed"],
        env=env,
        seats=seats,
        spectator_token="",
        spectator_key=config["spectator_key"],
        delay=config["delay"],
        takeover=config["takeover"],
        hint_agent=config["hint_agent"],
        created=config["created"],
        seeded=bool(config.get("seeded", False)),
    )
    for player, action in moves:
        try:
            table.play_recorded(int(player), int(action))
        except ValueError as err:
            raise ValueError(f"table {table_id}: {err}") from None
    return table


def make_agent(name: str, env: Any) -> Any:
    """An agent for a seat of ``env``: :func:`agents.seat` at the env's table (its typed
    rules), so the table's rules reach the agents that read them."""
    return agents.seat(name, env.config)


def new_table(
    game: str,
    options: Mapping[str, Any] | None = None,
    seats: Sequence[str] | None = None,
    seed: int | None = None,
    delay: float = 0.0,
    takeover: float | None = None,
    hint_agent: str | None = None,
) -> LiveTable:
    """A new table, every choice checked: the game (``three``, ``gin``, ``rummy`` or an env
    name), ``options`` (the rules: the env checks each with its own message), ``seats``
    (``"human"`` or an agent spec per player; default one person then agents), the seed
    (default random), the seconds between agent moves, the ``takeover`` timeout, and the
    agent that gives hints (default the game's L2/default agent)."""
    if not isinstance(game, str) or GAMES.get(game, game) not in GAMES.values():
        raise ValueError(f"game must be one of {', '.join(GAMES)}; got {game!r}")
    spec = games.get(GAMES.get(game, game))
    options = dict(options or {})
    allowed = game_options(spec.name)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for {spec.name}; "
            f"allowed: {', '.join(allowed)}"
        )
    if spec.family == "rummy":
        options.setdefault("target_score", _RUMMY_OPTIONS["target_score"])
    try:
        env = spec.make_env(**options)
    except (TypeError, ValueError) as err:
        raise ValueError(f"bad option for {spec.name}: {err}") from None
    n = env.num_players
    if seats is None:
        seats = [HUMAN] + [families.default_agent(spec)] * (n - 1)
    if not isinstance(seats, list | tuple) or len(seats) != n:
        raise ValueError(f"seats must list {n} entries (one per player), got {seats!r}")
    seeded = seed is not None
    if seed is None:
        seed = secrets.randbits(SECRET_BITS)
    elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_CHOSEN_SEED:
        raise ValueError(f"seed must be an int in 0..2**63-1, got {seed!r}")
    check_settings(delay, takeover)
    if hint_agent == HUMAN:
        raise ValueError("hint_agent: 'human' is a kind of seat, not an agent; name an agent")
    hint = hint_agent or families.default_agent(spec)
    env.reset(seed=seed)
    made: list[Seat] = []
    for p, kind in enumerate(seats):
        if not isinstance(kind, str) or not kind.strip():
            raise ValueError(f"seat {p}: expected 'human' or an agent name, got {kind!r}")
        if kind == HUMAN:
            token = secrets.token_urlsafe(18)
            made.append(Seat(p, HUMAN, token=token, key=link_key(token)))
            continue
        try:
            agent = make_agent(kind, env)
        except (ValueError, TypeError, FileNotFoundError, KeyError) as err:
            raise ValueError(f"seat {p}: {err}") from None
        made.append(Seat(p, kind, agent=agent))
    try:
        make_agent(hint, env)
    except (ValueError, TypeError, FileNotFoundError, KeyError) as err:
        raise ValueError(f"hint agent: {err}") from None
    spectator = secrets.token_urlsafe(18)
    return LiveTable(
        id=secrets.token_hex(8),
        game=spec.name,
        options=options,
        seed=seed,
        env=env,
        seats=made,
        spectator_token=spectator,
        spectator_key=link_key(spectator),
        delay=float(delay),
        takeover=None if takeover is None else float(takeover),
        hint_agent=hint,
        seeded=seeded,
    )


def check_settings(delay: Any, takeover: Any) -> None:
    """The table's own settings: ``delay`` a finite number of seconds in 0..10, ``takeover``
    None or a finite number of seconds in (0, :data:`MAX_TAKEOVER`] (NaN and infinities
    are refused: a timer of NaN seconds cannot be set)."""
    if (
        isinstance(delay, bool)
        or not isinstance(delay, int | float)
        or not math.isfinite(delay)
        or not 0 <= delay <= 10
    ):
        raise ValueError(f"delay must be a number of seconds in 0..10, got {delay!r}")
    if takeover is not None and (
        isinstance(takeover, bool)
        or not isinstance(takeover, int | float)
        or not math.isfinite(takeover)
        or not 0 < takeover <= MAX_TAKEOVER
    ):
        raise ValueError(
            "takeover must be None or a positive number of seconds up to "
            f"{MAX_TAKEOVER:.0f}, got {takeover!r}"
        )
