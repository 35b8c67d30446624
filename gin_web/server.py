"""The tables of one web server: their links, their sockets, who is at each seat, the store,
and how long each is kept.

A :class:`Server` holds the tables at play (restored from :mod:`gin_web.store` when it
starts), registers new ones, expires those nobody came to or plays at, saves each finished
match, and tells people what they should know (a store that cannot save, a table stopped at
its cap). What it does is spread over modules that each do one thing: the WebSocket
protocol (:mod:`gin_web.sockets`), the agents' moves and hints (:mod:`gin_web.scheduler`),
the limits (:mod:`gin_web.limits`) and the replay worker (:mod:`gin_web.replay_pool`); the
HTTP routes (:mod:`gin_web.routes`) and the app (:mod:`gin_web.app`) call it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.websockets import WebSocket

from gin_web import sockets
from gin_web.limits import MAX_TABLES, Caps, Limits
from gin_web.replay_pool import ReplayPool
from gin_web.scheduler import Scheduler
from gin_web.sockets import Conn
from gin_web.store import Store
from gin_web.tables import Decision, LiveTable, Seat, restore_table

__all__ = ["Server"]


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
        self.active: dict[str, float] = {}  # table -> when a move was last made or seen
        self.opened: set[str] = set()  # tables a person has opened
        self.notices: dict[str, str] = {}  # table -> what its people are told (store trouble)
        self.caps = Caps(self.limits)
        self.scheduler = Scheduler(self, self.caps)
        self.replays = ReplayPool(self.limits)
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

    # -- the server's life ------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """While the app runs: the agents' workers started, the restored tables' agents
        playing on, the sweeper expiring tables; then every task stopped and
        :meth:`close`."""
        self.loop = asyncio.get_running_loop()
        # The people's agents' workers, ready before the first move (a worker that cannot
        # start fails the moves that need it, each with its message, not the server).
        ready = self.scheduler.start_workers()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.gather(*ready), 60)
        for table in list(self.tables.values()):  # restored tables: agents to move go on
            try:
                self.scheduler.start(table)
                for seat in table.seats:  # nobody is connected yet: the clock runs
                    if seat.human:
                        self._left(table, seat)
            except Exception as err:  # one table never keeps the server from starting
                print(f"gin_web: table {table.id} not resumed: {err!r}", flush=True)

        async def sweeper() -> None:
            while True:
                await asyncio.sleep(self.limits.sweep_seconds)
                self.sweep()

        sweep = asyncio.create_task(sweeper())
        try:
            yield
        finally:
            sweep.cancel()
            self.scheduler.cancel()
            await asyncio.to_thread(self.close)

    def close(self) -> None:
        """Stop the replay worker and the agents' workers, commit what the store holds."""
        self.replays.close()
        self.scheduler.close()
        self.store.close()

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
        self.caps.check_room(client, agents_only, self.tables, self._live)

    def _live(self, tid: str) -> bool:
        table = self.tables.get(tid)
        return table is not None and not table.over and tid not in self.stopped

    def add_table(self, table: LiveTable, client: str = "") -> dict[str, Any]:
        if len(self.tables) >= MAX_TABLES:
            self._drop_finished(0.0)
        self.caps.check_held(len(self.tables))
        self.store.add_table(table.id, table.config())
        self._register(table)
        self.caps.owner[table.id] = client
        links = {
            table.names[seat.player]: f"/t/{seat.token}"
            for seat in table.seats
            if seat.token is not None
        }
        self.scheduler.start(table)
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
        for d in (self.active, self.notices):
            d.pop(tid, None)
        self.caps.forget(tid)
        self.opened.discard(tid)
        self.stopped.discard(tid)
        self.scheduler.forget(tid)
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
            if (
                table.over
                or tid in self.stopped
                or self.conns.get(tid)
                or self.scheduler.running(tid)
            ):
                continue
            idle = now - self.active.get(tid, now)
            if not table.agent_only and tid not in self.opened and idle > lim.unopened_expire:
                self.expire(table, "nobody came")
            elif idle > lim.idle_expire:
                self.expire(table, "idle")
        self._drop_finished(lim.finished_keep)

    def stop(self, table: LiveTable) -> None:
        """A table of agents at its cap of hands stops for good (said to its watchers)."""
        self.stopped.add(table.id)
        self.store.expire(table.id, "cap")
        message = self.caps.cap_notice()
        self.notices[table.id] = message
        for conn in list(self.conns.get(table.id, [])):
            conn.put({"type": "notice", "message": message})

    def _decision(self, game: str, d: Decision) -> None:
        self.store.add_decision(game, d)

    def touch(self, table: LiveTable) -> None:
        """A move was made or a socket came or went at ``table`` (its idle clock starts)."""
        self.active[table.id] = time.monotonic()

    def after_change(self, table: LiveTable) -> None:
        """A move was played at ``table``: its idle clock starts, and a match just over is
        saved."""
        self.touch(table)
        if table.over and table.id not in self.saved:
            self.store.add_match(table.id, table.game, table.record())
            self.saved.add(table.id)

    # -- what people are told ---------------------------------------------------------------
    def _store_trouble(self, table_id: str | None, message: str) -> None:
        """From the store's writer thread: tell the people of the table (of every table
        when it is none's) that saving fails, or that it works again ("")."""
        loop = self.loop
        if loop is None or loop.is_closed():
            if message:
                print(f"gin_web: {message}", flush=True)
            return
        with contextlib.suppress(RuntimeError):  # (the loop closed meanwhile)
            loop.call_soon_threadsafe(self.notice, table_id, message)

    def notice(self, table_id: str | None, message: str) -> None:
        """Tell the people of a table (of every table: None) ``message`` (``""`` clears
        it)."""
        ids = list(self.tables) if table_id is None else [table_id]
        for tid in ids:
            if not message and not self.notices.get(tid):
                continue
            self.notices[tid] = message
            for conn in list(self.conns.get(tid, [])):
                conn.put({"type": "notice", "message": message})

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

    # -- who is at each seat ----------------------------------------------------------------
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

    def arrive(self, conn: Conn) -> None:
        """A person's page is open and shown: his seat is his again."""
        seat = None if conn.player is None else conn.table.seats[conn.player]
        if seat is None:
            return
        seat.connections += 1
        seat.left_at = None
        seat.stand_in = False  # the person is back: the stand-in agent steps aside
        if conn.table.to_act == conn.player:
            conn.table.turn_started = time.monotonic()

    def depart(self, conn: Conn) -> None:
        """A person's page closed or is hidden: once none is left, his seat is away."""
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
            self.scheduler.start(table)

    # -- what the routes ask ----------------------------------------------------------------
    async def handle(self, ws: WebSocket) -> None:
        """A socket on ``/ws/<link>`` (:func:`gin_web.sockets.handle`)."""
        await sockets.handle(self, ws)

    async def replay(self, data: Any) -> str:
        """A replay's frames as JSON text, built in the replay worker
        (:meth:`gin_web.replay_pool.ReplayPool.frames`)."""
        return await self.replays.frames(data)
