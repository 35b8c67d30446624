"""A table of the web app: one env of the project, its seats (people and agents), and what
each seat may see.

The env's table in play (``env.table_state``, a :class:`~gin_env.table_state.TableState`)
is the only authority, and the only part of the env read here besides its observations:
every move goes through ``env.step`` after the seat and the move were checked, once, against
the table's summary (:meth:`LiveTable.summary`: the legal ids are the env's own action
mask's), and a move that fails changes nothing. The summary is read once per move, whatever
asks for it. What a client receives is built here by :meth:`LiveTable.view` (one
:meth:`~gin_env.table_state.TableState.view` of the seat), from the seat's side of the
table only: its own hand (the adviser the captain's, when the rules show it to
him), the public cards (the discard pile, the cards a player took from it, the melds on
the table), the counts, and, once a hand is over, the hands as the showdown shows them.
Nothing here knows about WebSockets (:mod:`gin_web.sockets`) or SQLite (:mod:`gin_web.store`).
"""

from __future__ import annotations

import base64
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
from gin_env import games
from gin_env.cards import card_str
from gin_env.config import DEALER_RULES
from gin_env.record import table_record
from gin_env.seat_view import Arranged, HandPoints, SeatView, TableSummary, action_label
from gin_env.table_state import TableState
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
    "rematch_token",
    "SECRET_BITS",
]

#: The games a table plays, by the name the lobby uses (:func:`gin_env.games.cli_names`).
GAMES = games.cli_names(version=0)
#: A seat's kind in the lobby: a person, or an agent by name.
HUMAN = "human"
#: Table options that are not rules (the web app's own).
_ADVISER_OPTIONS = {"adviser": "suggest", "adviser_sees_hand": True}
#: Where the lobby's default differs from the game's: rummy is a match to 100 here.
_WEB_DEFAULTS = {"rummy_v0": {"target_score": 100}}
#: Log lines kept per hand (a hand has at most a few hundred moves).
_LOG_LIMIT = 400
#: Bits of the secret a table deals from when no seed was chosen: no seat can search them
#: from its cards, and none learns them before the match ends (:meth:`LiveTable.record`).
SECRET_BITS = 128
#: The largest seed a client may choose (at a table of agents only).
MAX_CHOSEN_SEED = 2**63 - 1
#: The longest a person's seat may stay empty before an agent stands in, in seconds.
MAX_TAKEOVER = 86_400.0
#: The roles that hear the adviser's suggestion (three-handed): the captain and the adviser.
_TEAM = ("captain", "adviser")


class MoveError(ValueError):
    """A move refused: not this seat's turn, not legal, or not a move at all."""


def game_options(game: str) -> dict[str, Any]:
    """The options a table of ``game`` takes, with their defaults: the rules of the env
    (checked by the env itself) and, three-handed, the adviser's options."""
    spec = games.get(GAMES.get(game, game))
    rules = {f.name: f.default for f in dataclasses.fields(spec.table_class)}
    adviser = _ADVISER_OPTIONS if spec.players == 3 else {}
    return {**adviser, **rules, **_WEB_DEFAULTS.get(spec.name, {})}


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
    claim: str | None = None  # a rematch's seat not yet taken: the key of the seat before
    agent: Any = None  # (made only where the table is played offline: agent_move)
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
class LiveTable:
    """A table: ``env`` (a PettingZoo raw env of the project, reset: its table in play is
    :attr:`table_state`), its seats, its links."""

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
    on_decision: Callable[[Decision], None] | None = None
    on_move: Callable[[int, int, int], None] | None = None  # (move number, player, action)
    moves: list[tuple[int, int]] = field(default_factory=list)  # every move (rummy's record)
    _hinter: Any = None
    _hint_at: tuple[int, int, int] | None = None  # (move number, player, action) last hinted
    _summary: tuple[int, TableSummary] | None = field(default=None, repr=False)  # (move, it)

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
    def table_state(self) -> TableState:
        """The table in play (the env's): who acts, the legal moves, every seat's view."""
        state = self.env.table_state
        assert state is not None, "a table's env is reset when the table is made"
        return state

    def summary(self) -> TableSummary:
        """The table's public state between moves (:meth:`TableState.summary`), read once
        per move: kept until the next move is played (:meth:`play_move`)."""
        kept = self._summary
        if kept is None or kept[0] != self.step_count:
            kept = self._summary = (self.step_count, self.table_state.summary())
        return kept[1]

    @property
    def over(self) -> bool:
        return self.summary().over

    @property
    def to_act(self) -> int | None:
        """The player to act, or None once the match is over."""
        return self.summary().to_act

    @property
    def agent_only(self) -> bool:
        return not any(s.human for s in self.seats)

    @property
    def someone_here(self) -> bool:
        """Does a person play here now (his page open and shown, no stand-in for him)?"""
        return any(s.human and s.connections > 0 and not s.stand_in for s in self.seats)

    @property
    def nobody(self) -> bool:
        """Does no person play at the table now (agents, or stand-ins for people who
        left)?"""
        return all(not s.human or s.stand_in for s in self.seats)

    def agent_slots(self) -> list[tuple[str, str, str]]:
        """The agents the table's workers make when it starts: ``(slot, spec, name)`` of
        each agent's seat and of the hint agent (a stand-in is made when first needed)."""
        seats = [(f"seat {s.player}", s.kind) for s in self.seats if not s.human]
        return [
            *((slot, kind, slot) for slot, kind in seats),
            ("hint", self.hint_agent, "hint agent"),
        ]

    def waiting_for_agent(self) -> bool:
        """Is an agent (or a stand-in for a person who left) to act?"""
        p = self.to_act
        if p is None:
            return False
        seat = self.seats[p]
        return not seat.human or seat.stand_in

    def role(self, player: int) -> str:
        """``player``'s role in the hand on the table ("" in basic rummy: no roles)."""
        return self.summary().roles[player]

    def legal(self, player: int) -> list[int]:
        """The legal ids of ``player`` (empty when it is not his turn): the engine's list,
        the one its action mask is made of."""
        state = self.summary()
        return list(state.legal) if state.to_act == player else []

    # -- moves ------------------------------------------------------------------------------
    def move(self, player: int, action: Any, seq: Any = None) -> None:
        """A person's move: checked (his turn, the table's move number ``seq`` when given,
        a legal id of the env's mask), recorded as a decision, then played. A refused move
        raises :class:`MoveError` and changes nothing. The table's summary is read once and
        the action checked once (an integer id among the legal ones), here."""
        state = self.summary()
        if state.over:
            raise MoveError("the match is over: no move is legal")
        if isinstance(action, bool) or not isinstance(action, int):
            raise MoveError(f"action must be an integer action id, got {action!r}")
        if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int)):
            raise MoveError(f"seq must be the integer move number of the table, got {seq!r}")
        if state.to_act != player:
            raise MoveError(f"it is not your turn: {self.names[state.to_act or 0]} is to act")
        if seq is not None and seq != self.step_count:
            raise MoveError(
                f"stale move: it was sent for move {seq}, the table is at move {self.step_count}"
            )
        if action not in state.legal:
            words = ", ".join(f"{a} ({self.action_label(a)})" for a in state.legal)
            raise MoveError(f"illegal move {action}: legal now are {words}")
        if self.on_decision is not None and self.seats[player].human:
            ob = self.env.observe(self.names[player])
            self.on_decision(
                Decision(
                    table=self.id,
                    player=player,
                    role=state.roles[player],
                    hand=state.hand_index,
                    step=self.step_count,
                    observation=np.asarray(ob["observation"], np.float32),
                    mask=np.asarray(ob["action_mask"], np.int8),
                    action=action,
                    suggestion=self._suggestion(player, state),
                    seconds=time.monotonic() - self.turn_started,
                )
            )
        self.play_move(player, action)

    def agent_move(self) -> int:
        """Let the agent (or stand-in) to act play one move, here; return the action. (The
        server asks its workers instead: :meth:`thinker`, :meth:`observation`,
        :meth:`play_thought`.)"""
        p = self.to_act
        if p is None:
            raise MoveError("the match is over")
        seat = self.seats[p]
        if seat.agent is None:  # made when first needed (a stand-in: the hint agent plays)
            seat.agent = self._make_agent(self.thinker(p)[1])
        action = int(seat.agent.act(self.observation(p)))
        self.play_move(p, action)
        return action

    def thinker(self, player: int) -> tuple[str, str]:
        """Who thinks for ``player``'s seat: ``(slot, agent spec)``, the seat's agent, or the
        hint agent standing in for a person who left."""
        seat = self.seats[player]
        return f"seat {player}", self.hint_agent if seat.human else seat.kind

    def observation(self, player: int) -> dict[str, np.ndarray]:
        """``player``'s observation now, copied (it may be sent elsewhere to think on)."""
        ob = self.env.observe(self.names[player])
        return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in ob.items()}

    def play_thought(self, player: int, seq: int, action: int) -> bool:
        """Play an agent's ``action`` for ``player``, thought at move ``seq``, when the table
        is still there (his turn at that move, an agent's turn); False, with nothing played,
        when it has moved on meanwhile (the person came back and moved)."""
        if self.step_count != seq or self.to_act != player or not self.waiting_for_agent():
            return False
        self.play_move(player, action)
        return True

    def hint(self, player: int) -> int:
        """What the table's hint agent would play in ``player``'s seat (from his view),
        thought here. (The server asks its workers: :meth:`known_hint`, :meth:`keep_hint`.)"""
        known = self.known_hint(player)
        if known is not None:
            return known
        if self._hinter is None:
            self._hinter = self._make_agent(self.hint_agent)
        action = int(self._hinter.act(self.observation(player)))
        self.keep_hint(self.step_count, player, action)
        return action

    def known_hint(self, player: int) -> int | None:
        """The hint already thought for ``player`` at this move, or None; a
        :class:`MoveError` when it is not his turn."""
        if self.to_act != player:
            raise MoveError("a hint is for your own turn: it is not your turn")
        if self._hint_at is not None and self._hint_at[:2] == (self.step_count, player):
            return self._hint_at[2]  # the same position: the same hint, not thought again
        return None

    def keep_hint(self, seq: int, player: int, action: int) -> None:
        """Keep the hint thought for ``player`` at move ``seq`` (if the table is still
        there: the same hint is then not thought again)."""
        if seq == self.step_count:
            self._hint_at = (seq, player, action)

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
        self.env.step(action)  # the env checks it: a refused move changes nothing
        self.moves.append((player, action))
        self.step_count += 1
        self._summary = None  # the table moved on: the next read is of the new state
        if self.on_move is not None:
            self.on_move(self.step_count - 1, player, action)
        self.turn_started = time.monotonic()

    @property
    def hand_index(self) -> int:
        return self.summary().hand_index

    # -- the log ----------------------------------------------------------------------------
    def action_label(self, action: int) -> str:
        return action_label(self.family, action)

    # -- what a seat sees -------------------------------------------------------------------
    def suggestion_for(self, player: int | None) -> int | None:
        """The adviser's suggestion as ``player`` sees it (as his seat view has it: the
        captain and the adviser who made it only), read from the table in play."""
        return None if player is None else self._suggestion(player, self.summary())

    def _suggestion(self, player: int, state: TableSummary) -> int | None:
        suggestion = self.table_state.suggestion
        if suggestion is None or state.roles[player] not in _TEAM:
            return None
        return suggestion

    def view(self, player: int | None, open_hands: bool = False) -> dict[str, Any]:
        """The table as ``player`` (None: a spectator) may see it, JSON-ready: the seat's
        :class:`~gin_env.seat_view.SeatView` (every fact the core computes for it) in the
        page's layout, with what only the web table knows (names, presence, the move
        number). With ``open_hands`` (watching an agent-only table) every hand is shown."""
        sv = self.table_state.view(player, open_hands)
        base: dict[str, Any] = {
            "type": "state",
            "seq": self.step_count,
            "table": self.id,
            "game": self.game,
            "you": player,
            "spectator": sv.spectator,
            "role": sv.role or None,
            "scores": list(sv.scores),
            "over": sv.over,
            "winner": sv.winner,
            "to_act": sv.to_act,
            "open": open_hands,
            "players": [
                {
                    "name": self.names[s.player],
                    "kind": s.kind,
                    "role": sv.roles[s.player],
                    "present": (not s.human) or s.connections > 0,
                    "stand_in": s.stand_in,
                }
                for s in self.seats
            ],
            "log": self._log_lines(sv),
            "log_hand": sv.moves_hand,
            "legal": [sv.move_entry(a) for a in sv.legal],
            "target": sv.target,
            "suggestion": None if sv.suggestion is None else sv.move_entry(sv.suggestion),
            "sheet": [self._sheet_row(row) for row in sv.sheet],
            "showdown": None if sv.showdown is None else self._showdown(sv),
            "hand": self._hand_view(sv),
        }
        base["games"] = sv.games  # Hollywood scoring: the three games and who closed them
        base["game_winners"] = sv.game_winners
        return base

    def _who(self, player: int, sv: SeatView) -> str:
        role = sv.roles[player]
        return f"{self.names[player]} ({role})" if role else self.names[player]

    def _log_lines(self, sv: SeatView) -> list[str]:
        """This hand's moves as the seat saw them (the view's: the move that ended a hand
        stays until the next hand's first move), with the players' names."""
        lines = [f"{self.names[m.player]} ({m.role}) {m.words()}" if m.role
                 else f"{self.names[m.player]} {m.words()}" for m in sv.moves]  # fmt: skip
        return lines[-_LOG_LIMIT:]

    def _hand_view(self, sv: SeatView) -> dict[str, Any]:
        seats = []
        for p in range(sv.num_players):
            if p in sv.sitting_out:
                continue
            entry: dict[str, Any] = {
                "player": p,
                "name": self.names[p],
                "role": sv.roles[p],
                "dealer": p == sv.dealer,
                "count": sv.counts[p],
                "took": [card_str(c) for c in sv.took.get(p, ())],
                "discarded": [card_str(c) for c in sv.discarded.get(p, ())],
            }
            if p in sv.hands:
                entry["cards"] = _arranged_json(sv.hands[p])
            seats.append(entry)
        hand: dict[str, Any] = {
            "index": sv.hand_index,
            "phase": sv.phase_id,
            "phase_words": sv.phase,
            "advising": sv.advising,
            "stock": sv.stock,
            "pile": [card_str(c) for c in sv.pile],
            "upcard": None if sv.upcard is None else card_str(sv.upcard),
            "taken": None if sv.taken is None else card_str(sv.taken),
            "seats": seats,
            "sitting_out": list(sv.sitting_out),
            "turn": sv.turn,
        }
        hand["knock_limit"] = sv.knock_limit  # None in rummy
        hand["multiplier"] = sv.multiplier  # 2: Oklahoma's spade double
        hand["melds"] = [  # rummy's table
            {"owner": owner, "cards": [card_str(c) for c in cards]} for owner, cards in sv.melds
        ]
        return hand

    def _sheet_row(self, row: HandPoints) -> dict[str, Any]:
        # (payments, rummy, truncated: the names the page has read since the first release)
        return {**row.to_dict(), "explained": row.explained(), "payments": list(row.paid),
                "rummy": row.kind == "rummy", "truncated": row.kind == "draw"}  # fmt: skip

    def _showdown(self, sv: SeatView) -> dict[str, Any]:
        assert sv.showdown is not None
        out = sv.showdown.to_dict()
        # Rummy's cards left in each hand are counted out loud: public once it is over.
        out["left"] = [hand["cards"] for hand in out["hands"]]
        return {**out, **self._sheet_row(sv.showdown.points)}

    def config(self) -> dict[str, Any]:
        """What rebuilds the table after a restart (with its moves): JSON-ready, the links
        as their keys only."""
        return {
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "seats": [s.kind for s in self.seats],
            "keys": [s.key for s in self.seats],
            "claims": [s.claim for s in self.seats],
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
        record = table_record(self.seed, self.options, self.env, who, self.moves)
        return {**record, "deal": deal}


def _arranged_json(hand: Arranged) -> dict[str, Any]:
    """A hand as the page holds it: melds first (the least deadwood), then the deadwood."""
    out = hand.to_dict()
    del out["cards"]
    return out


def link_key(token: str) -> str:
    """What is kept of an invite link: its token's SHA-256 (the store never holds a link
    that would open a seat)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def restore_table(
    table_id: str, config: Mapping[str, Any], moves: Sequence[Sequence[int]]
) -> LiveTable:
    """The table ``config`` (:meth:`LiveTable.config`) after ``moves`` ``(player, action)``:
    a fresh env from the same seed, the same seats, every move played again through it."""
    if not isinstance(config, Mapping):
        raise ValueError(f"its config is not an object: {type(config).__name__}")
    spec = games.get(config["game"])
    seed = config["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SECRET_BITS:
        raise ValueError(f"seed must be an int in 0..2**{SECRET_BITS}-1, got {seed!r}")
    check_settings(config["delay"], config["takeover"])
    if not isinstance(config["options"], dict):
        raise ValueError("options must be an object of rule options")
    hint = config["hint_agent"]
    if not isinstance(hint, str):
        raise ValueError(f"hint_agent must be an agent's name, got {hint!r}")
    env = spec.make_env(**config["options"])
    env.reset(seed=seed)
    kinds, keys = config["seats"], config["keys"]
    claims = config.get("claims") or [None] * len(kinds)
    if not (isinstance(kinds, list) and len(kinds) == env.num_players == len(keys) == len(claims)):
        raise ValueError(f"seats must list {env.num_players} entries, with their keys")
    seats = []
    for p, (kind, key, claim) in enumerate(zip(kinds, keys, claims, strict=True)):
        for what, value in (("key", key), ("claim", claim)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"seat {p}: its {what} must be text, got {value!r}")
        if not isinstance(kind, str):
            raise ValueError(f"seat {p}: expected 'human' or an agent name, got {kind!r}")
        # The agents are made in the server's workers when they first move, not here.
        seats.append(Seat(p, kind, key=key, claim=claim))
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
        hint_agent=hint,
        created=config["created"],
        seeded=bool(config.get("seeded", False)),
    )
    for n, move in enumerate(moves):
        try:
            player, action = move
            table.play_recorded(int(player), int(action))
        except (ValueError, TypeError) as err:
            raise ValueError(f"table {table_id}: move {n} ({move!r}): {err}") from None
    return table


def rematch_token(token: str) -> str:
    """The link of a seat's rematch, made from the seat's own link (so whoever holds the
    seat, and only he, gets the same seat of the rematch, after a restart too; the store
    keeps neither link, only their SHA-256)."""
    digest = hashlib.sha256(b"gin-web rematch\0" + token.encode("utf-8", "surrogatepass"))
    return base64.urlsafe_b64encode(digest.digest()[:18]).decode("ascii")


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
    agent that gives hints (default the game's L2/default agent). No agent is made here
    (an agent of another game is refused by its name): the server makes them in its
    workers (:meth:`gin_web.thinkers.Thinkers.build`), where one that cannot play the
    table says so, and a table played offline makes them as they first move."""
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
    options = {**_WEB_DEFAULTS.get(spec.name, {}), **options}
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
        _check_family(spec, kind, f"seat {p}")
        made.append(Seat(p, kind))
    if not isinstance(hint, str) or not hint.strip():
        raise ValueError(f"hint agent: expected an agent name, got {hint!r}")
    _check_family(spec, hint, "hint agent")
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


def _check_family(spec: games.GameSpec, kind: str, where: str) -> None:
    """An agent of another family of games is refused at once (its name is enough); the
    rest of an agent's checks come when it is made (:func:`make_agent`, or the server's
    workers: :meth:`gin_web.thinkers.Thinkers.build`)."""
    try:
        families.agent_spec(spec, kind)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None


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
