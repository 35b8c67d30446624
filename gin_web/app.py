"""The ASGI app of ``gin-rummy serve`` (Starlette; extra ``web``).

HTTP routes::

    GET  /                    the lobby (the page: gin_web/static/index.html)
    GET  /t/<link>            a seat's or a spectator's page (the link is the invite)
    GET  /replay              the replay viewer
    GET  /rules               the rules page (docs/RULES.md, rendered by the page)
    GET  /people              people against agents: each agent's results against people
    GET  /api/games           the games, their options with defaults and help, the named
                              tables, the agents
    POST /api/tables          start a table: {"game", "options", "seats", "delay",
                              "takeover", "hint_agent", "seed"}; returns its links (never
                              its seed; a seed is taken only at a table of agents)
    POST /api/rematch         {"link": <token>}: the same table again, new links
    GET  /api/matches         the finished matches kept in SQLite
    GET  /api/matches/<id>    one of them as a replay file (download)
    POST /api/replay          a replay file -> its frames, every hand face up
    GET  /api/rules           the text of docs/RULES.md
    GET  /api/people          people against agents as the evaluation's JSON

The WebSocket ``/ws/<link>`` carries the play. The server sends ``{"type": "state", ...}``
(:meth:`gin_web.tables.LiveTable.view` of the link's seat) after every change, ``{"type":
"error", "message"}`` for a refused message, ``{"type": "hint", ...}``, ``{"type":
"chat", ...}`` and ``{"type": "notice", "message"}`` (the server cannot save right now,
a table of agents stopped at its cap; ``""`` clears it). A client sends JSON text frames of
at most :data:`MAX_MESSAGE` bytes:

- ``{"type": "move", "action": <id>, "seq": <move number>}`` (``seq`` optional: with it a
  move sent for a table that has moved on is refused instead of played);
- ``{"type": "hint"}``: what the table's hint agent would play (L2 by default);
- ``{"type": "chat", "text": "..."}``: a message to the partner (captain and adviser);
- ``{"type": "presence", "here": true|false}``: the page is shown or hidden (a hidden
  page's seat counts as away, and its takeover clock runs);
- ``{"type": "ping"}`` (the page sends one every 20 s; a socket silent for
  :attr:`Limits.silent_close` seconds is closed).

Anything else (not JSON, NaN or infinities, nested too deep, not an object, an unknown type
or field, a wrong type, a move out of turn or illegal, a spectator's move, a binary frame,
an oversized frame, more messages or hints than a link may send) gets an error for that
client and changes nothing. A person who reconnects with the same link gets the same seat
back, also from a restarted server (:mod:`gin_web.store` keeps the tables at play).

The event loop owns every table and never thinks for an agent: agents' moves and hints are
thought in worker processes (:mod:`gin_web.thinkers`; those of tables of agents only at a
lower priority), and replay frames are built in another (:mod:`gin_web.replays`); the loop
reads each observation and plays each move it gets back, so no table is changed elsewhere.

Every table deals from a secret of :data:`gin_web.tables.SECRET_BITS` bits that leaves the
server only in the record of the finished match. Requests must name this server (its
``Host`` among the names it answers to: a rebound DNS name is refused) and come from its own
page or from no page at all (``Origin``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import sqlite3
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

import agents
from agents import families
from agents.tuned import TABLES as NAMED_GIN_TABLES
from gin_env import games
from gin_env.config import table_changes
from gin_web import people
from gin_web.guards import (
    LOOPBACK_HOSTS,
    Bucket,
    HostCheck,
    Limits,
    cross_site,
    parse_json,
)
from gin_web.replays import replay_json
from gin_web.store import Store
from gin_web.tables import (
    GAMES,
    HUMAN,
    Decision,
    LiveTable,
    MoveError,
    Seat,
    game_options,
    link_key,
    new_table,
    option_choices,
    restore_table,
)
from gin_web.thinkers import Thinkers

__all__ = [
    "Server",
    "Limits",
    "create_app",
    "parse_json",
    "LOOPBACK_HOSTS",
    "OPTION_HELP",
    "MAX_MESSAGE",
    "MAX_BODY",
    "MAX_REPLAY",
]

STATIC = Path(__file__).parent / "static"
#: The project's rules, served as the rules page (present in a clone; a wheel has none).
RULES_FILE = Path(__file__).resolve().parents[1] / "docs" / "RULES.md"
#: The largest WebSocket message a client may send (a move is ~50 bytes).
MAX_MESSAGE = 4096
#: The largest JSON body of a table request, and of a replay file.
MAX_BODY = 16_384
MAX_REPLAY = 1_000_000
#: Messages other than states waiting for one client, at most.
MAX_PENDING = 64
#: The most tables a server holds at once (finished ones are dropped first).
MAX_TABLES = 2000
#: The page runs only its own script and talks only to this server (no inline script, no
#: other site), whatever text a table shows.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}
#: Agents the lobby does not offer, nor seats for a client (code that runs the server still
#: seats them by name): wrappers of another agent, and agents that think for seconds or ask
#: a remote model, which would hold up every table sharing their worker process
#: (:mod:`gin_web.thinkers`).
NOT_IN_LOBBY = ("adviser", "captain", "search", "match-search", "llm", "words")
_FIELDS = {
    "move": {"type", "action", "seq"},
    "hint": {"type"},
    "chat": {"type", "text"},
    "presence": {"type", "here"},
    "ping": {"type"},
}
#: One line of help for every option the lobby offers (a test holds it complete).
OPTION_HELP = {
    "adviser": "suggest: the adviser suggests a move before each of the captain's "
    "decisions; none: no adviser turns",
    "adviser_sees_hand": "the adviser sees the captain's hand (else he advises blind)",
    "knock_limit": "the most deadwood a knocker may keep (0: gin only)",
    "gin_bonus": "points for going gin, on top of the other hand's deadwood",
    "undercut_bonus": "points to a defender whose deadwood is as low as the knocker's or lower",
    "big_gin_bonus": "empty: off; else the bonus for laying down all 11 cards melded",
    "allow_discard_of_taken_card": "may the card just taken from the pile be thrown straight back",
    "max_turns_per_hand": "a hand that reaches this many turns ends as a draw",
    "oklahoma": "the upcard sets the knock limit (an ace: gin only); a spade upcard "
    "doubles the hand's points",
    "target_score": "the match ends when a player reaches this score",
    "dealer_rule": "who deals next: alternate, the winner, the loser, or alternate after "
    "a scored hand only",
    "hollywood": "score three games at once; the match goes to whoever wins two",
    "num_players": "players at the table (2 to 6)",
    "ace_high_or_low": "the ace may also end a run Q-K-A (never K-A-2)",
    "max_turns": "a hand with no winner after this many turns ends without one",
}


@dataclass(eq=False)
class Conn:
    """One open WebSocket: its table, its seat (None: a spectator), face-up watching, and
    what waits to be sent to it.

    A table never waits on a client: messages go into the connection's outbox, which its
    own task sends. Each state is the whole view, so a client that reads slowly gets the
    latest state instead of every one (the outbox keeps one pending state), and at most
    :data:`MAX_PENDING` other messages."""

    ws: WebSocket
    table: LiveTable
    player: int | None
    open_hands: bool = False
    key: str = ""  # the link's key
    client: str = ""  # the client's address
    here: bool = True  # the page is shown (a hidden page's seat is away)
    refused: int = 0  # messages refused for the socket's rate
    messages: Bucket = field(default_factory=lambda: Bucket(20.0, 40.0))
    hints: Bucket = field(default_factory=lambda: Bucket(1.0, 5.0))
    outbox: deque[tuple[bool, str]] = field(default_factory=deque)  # (is a state, text)
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    def put(self, message: dict[str, Any]) -> None:
        self.put_text(message.get("type") == "state", json.dumps(message))

    def put_text(self, state: bool, text: str) -> None:
        if state:  # a newer state makes a pending one useless
            kept = [m for m in self.outbox if not m[0]]
            if len(kept) != len(self.outbox):
                self.outbox = deque(kept)
        elif sum(1 for m in self.outbox if not m[0]) >= MAX_PENDING:
            return  # a client that reads nothing gets no more errors to read
        self.outbox.append((state, text))
        self.ready.set()

    async def pump(self) -> None:
        """Send the outbox, in order, until the socket fails or the task is cancelled."""
        with contextlib.suppress(Exception):  # a closed socket: its handler cleans up
            while True:
                await self.ready.wait()
                self.ready.clear()
                while self.outbox:
                    _, text = self.outbox.popleft()
                    await self.ws.send_text(text)


class Server:
    """The tables of one server, their links and connections, and the store."""

    def __init__(self, data_dir: str | Path, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.store = Store(data_dir, on_trouble=self._store_trouble)
        self.tables: dict[str, LiveTable] = {}
        self.links: dict[str, tuple[LiveTable, int | None]] = {}  # by link_key
        self.conns: dict[str, list[Conn]] = {}
        self.saved: set[str] = set()
        self.stopped: set[str] = set()  # tables of agents stopped at their cap
        self.owner: dict[str, str] = {}  # table -> the address that started it
        self.active: dict[str, float] = {}  # table -> when a move was last made or seen
        self.opened: set[str] = set()  # tables a person has opened
        self.notices: dict[str, str] = {}  # table -> what its people are told (store trouble)
        self._creators: dict[str, Bucket] = {}
        self._running: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._replay_slot = asyncio.Semaphore(1)
        self._lane_until = 0.0  # tables where nobody plays wait for this (_lane_pace)
        self._people_moved = 0.0  # when a person last moved (those tables give way)
        self._hinting: dict[tuple[str, int, int], asyncio.Future[int]] = {}
        # Agents think in worker processes: those of tables with people at the server's
        # priority, those of tables of agents only at a lower one (they never hold up the
        # people's agents).
        limits = self.limits
        self.thinkers = Thinkers(limits.think_workers, timeout=limits.think_seconds)
        self.lane_thinkers = Thinkers(
            limits.lane_workers, nice=limits.lane_nice, timeout=limits.think_seconds
        )
        self._pool: ProcessPoolExecutor | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.restored = 0
        self.not_restored: list[str] = []
        for tid, config, moves in self.store.open_tables(MAX_TABLES):
            try:
                table = restore_table(tid, config, moves)
            except (ValueError, TypeError, KeyError) as err:  # a table that no longer plays
                print(f"gin_web: table {tid} not restored: {err}", flush=True)
                self.not_restored.append(tid)
                continue
            self._register(table)
            self.opened.add(tid)  # (its people may come back: the idle clock decides)
            self.restored += 1

    # -- tables -----------------------------------------------------------------------------
    def _register(self, table: LiveTable) -> None:
        game, tid = table.game, table.id
        table.on_decision = lambda d: self._decision(game, d)
        table.on_move = lambda n, p, a: self.store.add_move(tid, n, p, a)
        self.tables[tid] = table
        self.conns[tid] = []
        self.active[tid] = time.monotonic()
        for seat in table.seats:
            if seat.key is not None:
                self.links[seat.key] = (table, seat.player)
        self.links[table.spectator_key] = (table, None)

    def check_room(self, client: str, agents_only: bool) -> None:
        """May ``client`` start a table now? A ``ValueError`` says why not."""
        lim = self.limits
        bucket = self._creators.get(client)
        if bucket is None:
            if len(self._creators) > 10_000:  # (forget the quiet ones)
                self._creators = {k: b for k, b in self._creators.items() if b.level < b.burst}
            bucket = self._creators[client] = Bucket(lim.tables_per_second, lim.tables_burst)
        mine = sum(1 for t, who in self.owner.items() if who == client and self._live(t))
        if mine >= lim.client_tables:
            raise ValueError(
                f"this address has {mine} unfinished tables, the most one may have "
                f"({lim.client_tables}); finish some or let them expire"
            )
        if agents_only:
            playing = sum(1 for t in self.tables.values() if t.agent_only and self._live(t.id))
            if playing >= lim.agent_tables:
                raise ValueError(
                    f"this server plays at most {lim.agent_tables} tables of agents at once; "
                    "try again when one has ended"
                )
        if not bucket.take():
            raise ValueError(
                f"too many tables started: at most {lim.tables_burst:.0f} at once, then "
                f"{lim.tables_per_second:g} a second"
            )

    def _live(self, tid: str) -> bool:
        table = self.tables.get(tid)
        return table is not None and not table.over and tid not in self.stopped

    def add_table(self, table: LiveTable, client: str = "") -> dict[str, Any]:
        if len(self.tables) >= MAX_TABLES:
            self._drop_finished(0.0)
        if len(self.tables) >= MAX_TABLES:
            raise ValueError(f"this server holds {MAX_TABLES} tables already; try again later")
        self.store.add_table(table.id, table.config())
        self._register(table)
        self.owner[table.id] = client
        links = {
            table.names[seat.player]: f"/t/{seat.token}"
            for seat in table.seats
            if seat.token is not None
        }
        self.start_agents(table)
        if table.takeover is not None:  # the clock runs for seats nobody has opened yet
            for seat in table.seats:
                if seat.human:
                    self._left(table, seat)
        # The seed is not in the answer: it fixes every deal (the record of the finished
        # match holds it).
        return {
            "table": table.id,
            "game": table.game,
            "seats": links,
            "spectator": f"/t/{table.spectator_token}",
        }

    def _drop_finished(self, older_than: float) -> None:
        now = time.monotonic()
        for tid, table in list(self.tables.items()):
            done = table.over or tid in self.stopped
            if done and not self.conns.get(tid) and now - self.active.get(tid, 0) >= older_than:
                self._forget(table)

    def _forget(self, table: LiveTable) -> None:
        tid = table.id
        self.tables.pop(tid, None)
        self.conns.pop(tid, None)
        for d in (self.owner, self.active, self.notices):
            d.pop(tid, None)
        self.opened.discard(tid)
        self.stopped.discard(tid)
        self.thinkers.forget([tid])
        self.lane_thinkers.forget([tid])
        for key in [s.key for s in table.seats if s.key] + [table.spectator_key]:
            self.links.pop(key, None)

    def expire(self, table: LiveTable, why: str) -> None:
        """Stop a table for good: out of memory, not restored again (its moves stay)."""
        self.store.expire(table.id, why)
        self._forget(table)

    def sweep(self) -> None:
        """Expire the tables nobody came to (:attr:`Limits.unopened_expire`) or nobody has
        played at nor watched for :attr:`Limits.idle_expire`; drop finished tables nobody
        watches after :attr:`Limits.finished_keep`."""
        now = time.monotonic()
        lim = self.limits
        for tid, table in list(self.tables.items()):
            if table.over or tid in self.stopped or self.conns.get(tid) or tid in self._running:
                continue
            idle = now - self.active.get(tid, now)
            if not table.agent_only and tid not in self.opened and idle > lim.unopened_expire:
                self.expire(table, "nobody came")
            elif idle > lim.idle_expire:
                self.expire(table, "idle")
        self._drop_finished(lim.finished_keep)

    def _decision(self, game: str, d: Decision) -> None:
        self.store.add_decision(game, d)

    def _after_change(self, table: LiveTable) -> None:
        self.active[table.id] = time.monotonic()
        if table.over and table.id not in self.saved:
            self.store.add_match(table.id, table.game, table.record())
            self.saved.add(table.id)

    def _store_trouble(self, table_id: str | None, message: str) -> None:
        """From the store's writer thread: tell the people of the table (of every table
        when it is none's) that saving fails, or that it works again ("")."""
        loop = self.loop
        if loop is None or loop.is_closed():
            if message:
                print(f"gin_web: {message}", flush=True)
            return
        with contextlib.suppress(RuntimeError):  # (the loop closed meanwhile)
            loop.call_soon_threadsafe(self._notice, table_id, message)

    def _notice(self, table_id: str | None, message: str) -> None:
        ids = list(self.tables) if table_id is None else [table_id]
        for tid in ids:
            if not message and not self.notices.get(tid):
                continue
            self.notices[tid] = message
            for conn in list(self.conns.get(tid, [])):
                conn.put({"type": "notice", "message": message})

    # -- agents -----------------------------------------------------------------------------
    def _capped(self, table: LiveTable) -> bool:
        """A table with no person playing (agents, or stand-ins for people who left) stops
        after :attr:`Limits.agent_hands` hands."""
        nobody = all(not s.human or s.stand_in for s in table.seats)
        return nobody and table.hand_index >= self.limits.agent_hands

    def _stop(self, table: LiveTable) -> None:
        self.stopped.add(table.id)
        self.store.expire(table.id, "cap")
        message = (
            f"this table stopped after {self.limits.agent_hands} hands without a person "
            "playing (the cap of such a table)"
        )
        self.notices[table.id] = message
        for conn in list(self.conns.get(table.id, [])):
            conn.put({"type": "notice", "message": message})

    def _nobody(self, table: LiveTable) -> bool:
        """Does no person play at ``table`` now (agents, or stand-ins for people who left)?"""
        return all(not s.human or s.stand_in for s in table.seats)

    def start_agents(self, table: LiveTable) -> None:
        """Let the agents play until a person is to act (a task: the loop stays free, and
        each move is thought in a worker process, :mod:`gin_web.thinkers`)."""
        if table.id in self._running or table.id in self.stopped:
            return
        if not table.waiting_for_agent():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop yet (a table made before the server runs)
            return
        self._running.add(table.id)
        task = loop.create_task(self._run_agents(table))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _agent_move(self, table: LiveTable) -> float:
        """One move of the agent to act: its observation read here, the move thought in the
        table's worker (tables of agents only: in the workers of lower priority), played
        here if the table is still where it was (the person may have come back and moved
        meanwhile). Returns the loop's own time spent on it, in seconds."""
        player = table.to_act
        if player is None:
            return 0.0
        start = time.perf_counter()
        slot, spec = table.thinker(player)
        seq = table.step_count
        observation = table.observation(player)
        spent = time.perf_counter() - start
        action = await self._thinkers(table).act(
            table.id, slot, spec, table.env.config, observation
        )
        start = time.perf_counter()
        if table.id in self.tables and table.play_thought(player, seq, action):
            self._after_change(table)
        return spent + time.perf_counter() - start

    def _thinkers(self, table: LiveTable) -> Thinkers:
        """The workers that think for ``table``: those of lower priority for a table of
        agents only."""
        return self.lane_thinkers if table.agent_only else self.thinkers

    async def _lane_pace(self, spent: float) -> None:
        """Tables where nobody plays, at full speed, take at most a quarter of the loop (an
        eighth while people play at other tables) and play :attr:`Limits.lane_moves` moves
        a second at most, all together: each of their moves' time on the loop books three
        (seven) times as long for everyone else, or a move's share of that second if
        longer, and the next such move, at any of those tables, waits for it. (The rate
        also bounds what their moves cost beyond the loop's own time: the writes, the
        messages to the workers.)"""
        busy = time.monotonic() - self._people_moved < 1.0
        now = time.monotonic()
        booked = max(spent * (8 if busy else 4), 1.0 / self.limits.lane_moves)
        self._lane_until = max(self._lane_until, now) + booked
        await asyncio.sleep(max(0.0, self._lane_until - now - self.limits.slice_seconds))

    async def _run_agents(self, table: LiveTable) -> None:
        """The agents' moves, one after another, each thought in a worker. With a delay, the
        delay comes *before* each move after the first, so that the person to act next is
        never kept waiting. Without, where nobody plays, the table shares the loop by
        :meth:`_lane_pace` and its watchers get a state every :attr:`Limits.watch_seconds`
        (nobody follows a table at full speed move by move) and when it stops, failed or
        not. :meth:`play` runs it inline after a person's move, a task the other times."""
        try:
            first = True
            shown = time.monotonic()
            while table.waiting_for_agent() and table.id in self.tables:
                if self._capped(table):
                    self._stop(table)
                    break
                if table.delay > 0 and not first:
                    await asyncio.sleep(table.delay)
                    if not (table.waiting_for_agent() and table.id in self.tables):
                        break
                first = False
                spent = await self._agent_move(table)
                if table.delay > 0:
                    await self.broadcast(table)
                elif self._nobody(table):
                    if time.monotonic() - shown >= self.limits.watch_seconds:
                        shown = time.monotonic()
                        start = time.perf_counter()
                        await self.broadcast(table)
                        spent += time.perf_counter() - start
                    await self._lane_pace(spent)
        except Exception as err:  # an agent that fails: said to the table, the server goes on
            print(f"gin_web: table {table.id}: an agent failed: {err!r}", flush=True)
            self._notice(table.id, f"an agent failed ({type(err).__name__}); the table waits")
        finally:
            self._running.discard(table.id)
        await self.broadcast(table)

    async def play(self, table: LiveTable) -> None:
        """After a person's move: the agents' moves before the next state when the table
        has no delay (so the person's next state comes in one message), else in a task."""
        self._people_moved = time.monotonic()
        self._after_change(table)
        if table.delay > 0 or table.id in self._running:
            await self.broadcast(table)
            self.start_agents(table)
            return
        self._running.add(table.id)
        await self._run_agents(table)

    async def hint(self, table: LiveTable, player: int) -> tuple[int, int]:
        """``(action, move number)``: what the table's hint agent would play in ``player``'s
        seat, thought in the table's worker; the same position asked again (from another
        socket, or before the first answer came) is thought once. A :class:`MoveError`
        when it is not his turn."""
        known = table.known_hint(player)
        seq = table.step_count
        if known is not None:
            return known, seq
        key = (table.id, seq, player)
        thought = self._hinting.get(key)
        if thought is None:
            thought = asyncio.ensure_future(self._thinkers(table).act(
                table.id, "hint", table.hint_agent, table.env.config, table.observation(player)
            ))  # fmt: skip
            self._hinting[key] = thought
            thought.add_done_callback(lambda f: self._hint_done(key, f))
        action = await asyncio.shield(thought)
        table.keep_hint(seq, player, action)
        return action, seq

    def _hint_done(self, key: tuple[str, int, int], thought: asyncio.Future[int]) -> None:
        self._hinting.pop(key, None)
        if not thought.cancelled():
            thought.exception()  # (retrieved: its askers got it, or left)

    # -- connections ------------------------------------------------------------------------
    async def send(self, conn: Conn, message: dict[str, Any]) -> None:
        conn.put(message)

    async def broadcast(self, table: LiveTable) -> None:
        """Each connection's view; one view (and one JSON text) per seat and kind of
        watching, however many sockets watch it."""
        made: dict[tuple[int | None, bool], str] = {}
        for conn in list(self.conns.get(table.id, [])):
            key = (conn.player, conn.open_hands)
            text = made.get(key)
            if text is None:
                text = made[key] = json.dumps(table.view(conn.player, conn.open_hands))
            conn.put_text(True, text)

    def _left(self, table: LiveTable, seat: Seat) -> None:
        """The seat's person is away (left, hid his page, or never came): the takeover
        clock starts."""
        seat.left_at = time.monotonic()
        if table.takeover is None:
            return
        left = seat.left_at
        with contextlib.suppress(RuntimeError):  # no loop: no clock (a table made offline)
            asyncio.get_running_loop().call_later(
                table.takeover, self.takeover_check, table, seat.player, left
            )

    def _arrive(self, conn: Conn) -> None:
        seat = None if conn.player is None else conn.table.seats[conn.player]
        if seat is None:
            return
        seat.connections += 1
        seat.left_at = None
        seat.stand_in = False  # the person is back: the stand-in agent steps aside
        if conn.table.to_act == conn.player:
            conn.table.turn_started = time.monotonic()

    def _depart(self, conn: Conn) -> None:
        seat = None if conn.player is None else conn.table.seats[conn.player]
        if seat is None:
            return
        seat.connections -= 1
        if seat.connections == 0:
            self._left(conn.table, seat)

    def takeover_check(self, table: LiveTable, player: int, left_at: float) -> None:
        seat = table.seats[player]
        if seat.connections == 0 and seat.left_at == left_at and not table.over:
            seat.stand_in = True
            self.start_agents(table)

    async def _refuse(self, ws: WebSocket, message: str, code: int) -> None:
        await ws.send_text(json.dumps({"type": "error", "message": message}))
        await ws.close(code=code)

    async def handle(self, ws: WebSocket) -> None:
        await ws.accept()
        if cross_site(ws.headers):
            await self._refuse(ws, "cross-site connection", 4403)
            return
        token = ws.path_params.get("token", "")
        key = link_key(token)
        found = self.links.get(key)
        if found is None:
            await self._refuse(ws, "unknown link", 4404)
            return
        table, player = found
        open_hands = ws.query_params.get("open") in ("1", "true")
        if open_hands and not table.agent_only:
            await self._refuse(ws, "hands are shown face up only at a table of agents", 4403)
            return
        client = ws.client.host if ws.client else ""
        lim = self.limits
        on_link = sum(1 for cs in self.conns.values() for c in cs if c.key == key)
        if on_link >= lim.link_sockets:
            await self._refuse(ws, f"this link has {on_link} sockets open, the most it may "
                               f"have ({lim.link_sockets}); close one", 4429)  # fmt: skip
            return
        from_client = sum(1 for cs in self.conns.values() for c in cs if c.client == client)
        if from_client >= lim.client_sockets:
            await self._refuse(ws, f"this address has {from_client} sockets open, the most "
                               f"it may have ({lim.client_sockets})", 4429)  # fmt: skip
            return
        conn = Conn(
            ws,
            table,
            player,
            open_hands,
            key=key,
            client=client,
            messages=Bucket(lim.messages_per_second, lim.messages_burst),
            hints=Bucket(lim.hints_per_second, lim.hints_burst),
        )
        pump = asyncio.create_task(conn.pump())
        self.conns.setdefault(table.id, []).append(conn)
        if player is not None:
            self.opened.add(table.id)
        self.active[table.id] = time.monotonic()
        self._arrive(conn)
        await self.broadcast(table)
        if self.notices.get(table.id):
            conn.put({"type": "notice", "message": self.notices[table.id]})
        try:
            while True:
                try:
                    msg = await asyncio.wait_for(ws.receive(), lim.silent_close)
                except TimeoutError:
                    conn.put({"type": "error", "message": f"no message for "
                              f"{lim.silent_close:g} s: the socket is closed"})  # fmt: skip
                    await asyncio.sleep(0.05)  # (the pump sends it)
                    await ws.close(code=4408)
                    break
                if msg["type"] == "websocket.disconnect":
                    break
                try:
                    await self.on_message(conn, msg)
                except Exception as err:  # the server's own failure: said, the socket stays
                    print(f"gin_web: a message failed: {err!r}", flush=True)
                    await self.error(conn, f"the server failed on this message "
                                     f"({type(err).__name__}); nothing was changed")  # fmt: skip
        except WebSocketDisconnect:
            pass
        finally:
            pump.cancel()
            with contextlib.suppress(ValueError):
                self.conns.get(table.id, []).remove(conn)
            if conn.here:
                self._depart(conn)
            self.active[table.id] = time.monotonic()
            with contextlib.suppress(Exception):
                await self.broadcast(table)

    async def error(self, conn: Conn, message: str) -> None:
        await self.send(conn, {"type": "error", "message": message, "seq": conn.table.step_count})

    async def flooded(self, conn: Conn, message: str) -> None:
        """A message refused for the socket's rate; past :attr:`Limits.flood_close` of them
        the socket is closed (code 4429): no person sends that many."""
        conn.refused += 1
        if conn.refused < self.limits.flood_close:
            await self.error(conn, message)
            return
        await self.error(conn, f"{message}; this socket sent {conn.refused} messages over its "
                         "limit and is closed")  # fmt: skip
        await asyncio.sleep(0.05)  # (the pump sends it)
        with contextlib.suppress(Exception):
            await conn.ws.close(code=4429)

    async def on_message(self, conn: Conn, msg: Mapping[str, Any]) -> None:
        lim = self.limits
        if not conn.messages.take():
            await self.flooded(conn, f"too many messages: at most {lim.messages_burst:.0f} at "
                               f"once, then {lim.messages_per_second:g} a second")  # fmt: skip
            return
        text = msg.get("text")
        if text is None:
            await self.error(conn, "binary frames are not accepted: send JSON text")
            return
        if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
            await self.error(conn, f"message too large: at most {MAX_MESSAGE} bytes")
            return
        try:
            data = parse_json(text)
        except ValueError as err:
            await self.error(conn, f'{err}; send an object such as {{"type": "move", ...}}')
            return
        if not isinstance(data, dict):
            await self.error(conn, f"a message is a JSON object, got {type(data).__name__}")
            return
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in _FIELDS:
            await self.error(conn, f"unknown message type {kind!r}; allowed: {', '.join(_FIELDS)}")
            return
        extra = sorted(set(data) - _FIELDS[kind])
        if extra:
            await self.error(
                conn, f"unknown field(s) {', '.join(map(repr, extra))} in a {kind} message; "
                f"it has: {', '.join(sorted(_FIELDS[kind]))}"
            )  # fmt: skip
            return
        table = conn.table
        if kind == "ping":
            await self.send(conn, {"type": "pong", "seq": table.step_count})
            return
        if kind == "presence":
            here = data.get("here")
            if not isinstance(here, bool):
                await self.error(conn, f"here must be true or false, got {here!r}")
                return
            if here != conn.here:
                conn.here = here
                (self._arrive if here else self._depart)(conn)
                if here and conn.player is not None:
                    self.start_agents(table)  # (nothing to do unless a stand-in is to act)
                await self.broadcast(table)
            return
        if conn.player is None:
            await self.error(conn, f"a spectator cannot send {kind} messages")
            return
        if kind == "move":
            if "action" not in data:
                await self.error(conn, "a move needs an action id ('action')")
                return
            if table.id in self.stopped:
                await self.error(conn, "this table has stopped: no move is played")
                return
            try:
                table.move(conn.player, data["action"], data.get("seq"))
            except MoveError as err:
                await self.error(conn, str(err))
                return
            await self.play(table)
        elif kind == "hint":
            if not conn.hints.take():
                await self.flooded(conn, f"too many hints: at most {lim.hints_burst:.0f} at once, "
                                   f"then {lim.hints_per_second:g} a second")  # fmt: skip
                return
            try:
                action, seq = await self.hint(table, conn.player)
            except MoveError as err:
                await self.error(conn, str(err))
                return
            await self.send(conn, {"type": "hint", "action": action, "agent": table.hint_agent,
                                   "label": table.action_label(action), "seq": seq})  # fmt: skip
        elif kind == "chat":
            await self.chat(conn, data.get("text"))

    async def chat(self, conn: Conn, text: Any) -> None:
        table = conn.table
        if not isinstance(text, str) or not text.strip() or len(text) > 500:
            await self.error(conn, "a chat message is text of 1..500 characters")
            return
        if table.spec.players != 3:
            await self.error(conn, "team messages are for the captain and his adviser")
            return
        match = table.env.match
        team = {match.captain, match.adviser}
        if conn.player not in team:
            await self.error(conn, "team messages are for the captain and his adviser")
            return
        out = {"type": "chat", "from": table.names[conn.player or 0], "text": text.strip()}
        for other in list(self.conns.get(table.id, [])):
            if other.player in team:
                await self.send(other, out)

    # -- replays ----------------------------------------------------------------------------
    async def replay(self, data: Any) -> str:
        """A replay's frames as JSON text (``{"frames": [...]}``), built in a worker
        process (the server's loop and its tables never wait on it, nor share a lock with
        it), one replay at a time: a second request waits up to 10 s, then is told to try
        again."""
        try:
            await asyncio.wait_for(self._replay_slot.acquire(), 10)
        except TimeoutError:
            raise ValueError("the server is busy with another replay; try again") from None
        try:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            lim = self.limits
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(
                    self._pool, replay_json, data, lim.replay_moves, lim.replay_frames_bytes
                )
            except BrokenProcessPool:
                self._pool = None
                raise ValueError("the replay worker stopped; try again") from None
        finally:
            self._replay_slot.release()

    def close(self) -> None:
        """Stop the replay worker and the agents' workers, commit what the store holds."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        self.thinkers.close()
        self.lane_thinkers.close()
        self.store.close()


class Unavailable(RuntimeError):
    """The store cannot be read now (a 503)."""


def _bad(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request, limit: int, seconds: float) -> Any:
    async def read() -> bytes:
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > limit:
                raise ValueError(f"request too large: at most {limit} bytes")
        return raw

    try:
        raw = await asyncio.wait_for(read(), seconds)
    except TimeoutError:
        raise ValueError(f"the request's body took over {seconds:g} s to arrive") from None
    if not raw.strip():
        raise ValueError("the body is empty: send a JSON object")
    return parse_json(raw)


def named_tables() -> dict[str, dict[str, dict[str, Any]]]:
    """The tables the lobby offers by name, per game: the rules each changes from the
    game's defaults (two-player gin: the tuned agents' tables, Oklahoma and Hollywood;
    three-handed: Oklahoma)."""
    gin = {name: table_changes(rules) for name, rules in NAMED_GIN_TABLES.items()}
    gin["oklahoma"] = {"oklahoma": True}
    gin["hollywood"] = {"hollywood": True}
    three = {"default": {}, "oklahoma": {"oklahoma": True}}
    return {
        short: {"default": {}} if spec.family == "rummy" else gin if spec.players == 2 else three
        for short, spec in ((short, games.get(name)) for short, name in GAMES.items())
    }


def create_app(
    data_dir: str | Path,
    hosts: Iterable[str] = LOOPBACK_HOSTS,
    limits: Limits | None = None,
) -> Starlette:
    """The app; its tables live in memory, its matches and decisions in ``data_dir``. It
    answers to the names in ``hosts`` only (:class:`HostCheck`); the server itself is
    ``app.state.server``."""
    server = Server(data_dir, limits)
    allowed_hosts = tuple(hosts)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)

    async def game_list(request: Request) -> Response:
        out = {}
        named = named_tables()
        for short, name in GAMES.items():
            spec = games.get(name)
            fits = _lobby_agents(short)
            options = game_options(name)
            out[short] = {
                "env": name,
                "players": spec.players,
                "options": options,
                "help": {k: OPTION_HELP.get(k, "") for k in options},
                "choices": option_choices(name),
                "tables": named[short],
                "agents": fits,
                "default_agent": families.default_agent(spec),
            }
        return JSONResponse(out)

    def client_of(request: Request) -> str:
        return request.client.host if request.client else ""

    async def create_table(request: Request) -> Response:
        if cross_site(request.headers):
            return _bad("cross-site request refused", 403)
        try:
            body = await _body(request, MAX_BODY, server.limits.body_seconds)
            if not isinstance(body, dict):
                raise ValueError("the body is a JSON object")
            allowed = {"game", "options", "seats", "seed", "delay", "takeover", "hint_agent"}
            extra = sorted(set(body) - allowed)
            if extra:
                raise ValueError(f"unknown field(s) {', '.join(extra)}; allowed: "
                                 f"{', '.join(sorted(allowed))}")  # fmt: skip
            if "options" in body and not isinstance(body["options"], dict):
                raise ValueError("options is an object of rule options")
            _check_lobby_agents(body)
            seats = body.get("seats")
            people_sit = seats is None or (isinstance(seats, list) and HUMAN in seats)
            if body.get("seed") is not None and people_sit:
                raise ValueError(
                    "seed: a table with a person deals from the server's secret; a seed may "
                    "be chosen only at a table of agents (seats all agents)"
                )
            agents_only = isinstance(seats, list) and HUMAN not in seats
            server.check_room(client_of(request), agents_only)
            table = new_table(
                body.get("game", "three"),
                body.get("options"),
                seats,
                seed=body.get("seed"),
                delay=body.get("delay", 0.0),
                takeover=body.get("takeover"),
                hint_agent=body.get("hint_agent"),
            )
            return JSONResponse(server.add_table(table, client_of(request)))
        except ValueError as err:
            return _bad(str(err))

    async def rematch(request: Request) -> Response:
        if cross_site(request.headers):
            return _bad("cross-site request refused", 403)
        try:
            body = await _body(request, MAX_BODY, server.limits.body_seconds)
            if not isinstance(body, dict) or set(body) != {"link"}:
                raise ValueError('a rematch request is {"link": <the token of your seat>}')
            token = body["link"]
            found = server.links.get(link_key(token)) if isinstance(token, str) else None
            if found is None or found[1] is None:
                raise ValueError("unknown link: a rematch is asked for from a seat's link")
            old = found[0]
            if not old.over:
                raise ValueError("the match is not over yet: a rematch follows a finished match")
            server.check_room(client_of(request), old.agent_only)
            table = new_table(
                old.game,
                old.options,
                [s.kind for s in old.seats],
                delay=old.delay,
                takeover=old.takeover,
                hint_agent=old.hint_agent,
            )
            return JSONResponse(server.add_table(table, client_of(request)))
        except ValueError as err:
            return _bad(str(err))

    async def read(what: Callable[..., Any], *args: Any) -> Any:
        """A read of the store, in a thread; a database that cannot be read now (locked by
        another process past its wait) is a 503 that says so."""
        try:
            return await asyncio.to_thread(what, *args)
        except sqlite3.Error as err:
            message = f"the server cannot read its data right now ({err}); try again"
            raise Unavailable(message) from None

    async def match_list(request: Request) -> Response:
        try:
            return JSONResponse(await read(server.store.matches))
        except Unavailable as err:
            return _bad(str(err), 503)

    async def match_file(request: Request) -> Response:
        try:
            record = await read(server.store.match, request.path_params["mid"])
        except Unavailable as err:
            return _bad(str(err), 503)
        if record is None:
            return _bad("no such match", 404)
        name = f"match_{request.path_params['mid']}.json"
        return Response(
            json.dumps(record, indent=1),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def replay(request: Request) -> Response:
        if cross_site(request.headers):
            return _bad("cross-site request refused", 403)
        try:
            data = await _body(request, MAX_REPLAY, server.limits.body_seconds)
            text = await server.replay(data)
            return Response(text, media_type="application/json")
        except ValueError as err:
            return _bad(str(err))

    async def rules(request: Request) -> Response:
        if not RULES_FILE.is_file():
            return _bad("the rules page needs a clone of the project (docs/RULES.md)", 404)
        return JSONResponse({"path": "docs/RULES.md", "text": RULES_FILE.read_text("utf-8")})

    async def people_results(request: Request) -> Response:
        try:
            records = await read(server.store.records)
        except Unavailable as err:
            return _bad(str(err), 503)
        result = await asyncio.to_thread(people.results, records)
        if request.query_params.get("download") in ("1", "true"):
            text = json.dumps(people.with_provenance(result), indent=1)
            return Response(text, media_type="application/json", headers={
                "Content-Disposition": 'attachment; filename="people_vs_agents.json"'})  # fmt: skip
        return JSONResponse(result)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.loop = asyncio.get_running_loop()
        # The people's agents' workers, ready before the first move (a worker that cannot
        # start fails the moves that need it, each with its message, not the server).
        ready = [asyncio.wrap_future(f) for f in server.thinkers.start()]
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.gather(*ready), 60)
        for table in list(server.tables.values()):  # restored tables: agents to move go on
            try:
                server.start_agents(table)
                for seat in table.seats:  # nobody is connected yet: the clock runs
                    if seat.human:
                        server._left(table, seat)
            except Exception as err:  # one table never keeps the server from starting
                print(f"gin_web: table {table.id} not resumed: {err!r}", flush=True)

        async def sweeper() -> None:
            while True:
                await asyncio.sleep(server.limits.sweep_seconds)
                server.sweep()

        sweep = asyncio.create_task(sweeper())
        try:
            yield
        finally:
            sweep.cancel()
            for task in list(server._tasks):
                task.cancel()
            await asyncio.to_thread(server.close)

    app = Starlette(
        lifespan=lifespan,
        routes=[
            Route("/", page),
            Route("/t/{token}", page),
            Route("/replay", page),
            Route("/rules", page),
            Route("/people", page),
            Route("/api/games", game_list),
            Route("/api/tables", create_table, methods=["POST"]),
            Route("/api/rematch", rematch, methods=["POST"]),
            Route("/api/matches", match_list),
            Route("/api/matches/{mid}", match_file),
            Route("/api/replay", replay, methods=["POST"]),
            Route("/api/rules", rules),
            Route("/api/people", people_results),
            WebSocketRoute("/ws/{token}", server.handle),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
    )
    app.state.server = server
    app.add_middleware(HostCheck, hosts=allowed_hosts)
    return app


def _lobby_agents(game: str) -> list[str]:
    """The agents a client may seat at ``game``: registered names that play it, bare (no
    spec options, no file paths), less :data:`NOT_IN_LOBBY`."""
    spec = games.get(GAMES.get(game, game))
    return [a for a in agents.names() if _fits(spec, a) and a not in NOT_IN_LOBBY]


def _check_lobby_agents(body: dict[str, Any]) -> None:
    """A client names agents only from the lobby's list: a spec with options or a path could
    make the server read its files, call another host (``llm:base_url=...``) or think for
    minutes (``search:budget=...``). Code that runs the server seats any agent by name."""
    game = body.get("game", "three")
    if not isinstance(game, str):
        return  # new_table names the bad game
    try:
        allowed = _lobby_agents(game)
    except (ValueError, KeyError):
        return  # an unknown game: new_table names it and the games there are
    seats = body.get("seats")
    named = [(f"seat {p}", s) for p, s in enumerate(seats)] if isinstance(seats, list) else []
    hint = body.get("hint_agent")
    if hint == HUMAN:
        raise ValueError(
            f"hint_agent: 'human' is a kind of seat, not an agent; choose one of: "
            f"{', '.join(allowed)}"
        )
    named.append(("hint_agent", hint))
    for where, name in named:
        if not isinstance(name, str) or name == HUMAN:
            continue  # new_table names a seat that is not a string
        if name not in agents.names():
            raise ValueError(
                f"{where}: unknown agent {name[:60]!r}; a client may seat: {', '.join(allowed)}"
            )
        if name in NOT_IN_LOBBY:
            raise ValueError(
                f"{where}: agent {name!r} is not seated for clients (it wraps another agent or "
                f"thinks for seconds); a client may seat: {', '.join(allowed)}"
            )


def _fits(spec: games.GameSpec, name: str) -> bool:
    try:
        families.agent_spec(spec, name)
    except ValueError:
        return False
    return True


def answered_hosts(host: str, extra: Iterable[str] = ()) -> list[str]:
    """The names a server bound to ``host`` answers to: the loopback names, the address it
    is bound to (unless it is every address), and ``extra`` (``--allow-host``)."""
    names = list(LOOPBACK_HOSTS)
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    names.extend(extra)
    return names


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    data_dir: str | Path = "runs/web",
    allow_hosts: Iterable[str] = (),
    limits: Limits | None = None,
) -> None:
    """Run the app with uvicorn (WebSockets by the ``websockets`` library) until stopped."""
    import uvicorn  # web extra: uvicorn

    app = create_app(data_dir, answered_hosts(host, allow_hosts), limits)
    # No per-message compression: it would cost the one loop more than the bytes it saves
    # on loopback and local networks (a state is a few KiB). No proxy headers: a client's
    # address (its limits) is the one it connects from, not one it names (X-Forwarded-For).
    uvicorn.run(app, host=host, port=port, ws_max_size=65_536, log_level="warning",
                ws_ping_interval=20.0, ws_ping_timeout=20.0, timeout_keep_alive=5,
                ws_per_message_deflate=False, proxy_headers=False)  # fmt: skip
