"""The tables of one web server: their links, their sockets, who is at each seat, the store,
and how long each is kept.

A :class:`Server` holds the tables at play (restored from :mod:`gin_web.store` when it
starts; a finished or stopped table, and one that no longer fits in memory, is read back
from the store when one of its links is opened), registers new ones and rematches, makes
room for the next table (the finished tables nobody watches first, then the oldest tables
nobody has opened, then the oldest tables of agents), expires those nobody came to or
plays at, saves each finished match, and tells people what they should know (a store that
cannot save, a table stopped at its cap, a rematch). What it does is spread over modules
that each do one thing: the WebSocket protocol (:mod:`gin_web.sockets`), the agents' moves
and hints (:mod:`gin_web.scheduler`), the limits (:mod:`gin_web.limits`) and the side
worker (:mod:`gin_web.replay_pool`); the HTTP routes (:mod:`gin_web.routes`) and the app
(:mod:`gin_web.app`) call it. Everything it does on the event loop is bookkeeping: a table
read back, a list or a report is made in a thread or a worker, each count is kept as
tables and sockets come and go.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.websockets import WebSocket

from gin_web import sockets
from gin_web.limits import Caps, Limits, Refused
from gin_web.replay_pool import ReplayPool
from gin_web.scheduler import Scheduler
from gin_web.sockets import Conn
from gin_web.store import Store
from gin_web.tables import (
    Decision,
    LiveTable,
    Seat,
    link_key,
    new_table,
    rematch_token,
    restore_table,
)

__all__ = ["Server"]

#: What a link of a table that ended without a match says, by why it ended.
_ENDED = {
    "nobody came": "this table expired: nobody came to it",
    "idle": "this table expired: nobody played at it nor watched it for hours",
    "reclaimed": "this table was closed to make room for new tables (nobody had opened it, "
    "or it was a table of agents)",
}


def _who(client: str) -> str:
    """What the store keeps of an address: its SHA-256 (to list its matches to it)."""
    return hashlib.sha256(client.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class Server:
    """The tables of one server, their links and connections, and the store.

    ``publish``: every finished match is listed to anyone (``/api/matches``); else a match
    is listed only to the addresses that started, sat at or watched its table, and to the
    holders of its links."""

    def __init__(
        self, data_dir: str | Path, limits: Limits | None = None, publish: bool = False
    ) -> None:
        self.limits = limits or Limits()
        self.publish = publish
        self.store = Store(data_dir, on_trouble=self._store_trouble)
        self.tables: dict[str, LiveTable] = {}
        self.links: dict[str, tuple[LiveTable, int | None]] = {}  # by link_key
        self.conns: dict[str, list[Conn]] = {}
        self.saved: set[str] = set()
        self.stopped: set[str] = set()  # tables of agents stopped at their cap
        self.active: dict[str, float] = {}  # table -> when a move was last made or seen
        self.opened: set[str] = set()  # tables a person has opened
        self.notices: dict[str, str] = {}  # table -> what its people are told (store trouble)
        self.rematches: dict[str, str] = {}  # a finished table -> its rematch
        self.caps = Caps(self.limits)
        self.scheduler = Scheduler(self, self.caps)
        self.replays = ReplayPool(self.limits)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.restored = 0
        self.not_restored: list[str] = []
        self.matches_saved = 0  # in this run (people against agents is made again after one)
        # The order in which tables are reclaimed when room is needed (oldest first).
        self._done: dict[str, None] = {}  # finished or stopped tables
        self._unopened: dict[str, float] = {}  # person tables nobody opened -> since when
        self._agent_tables: dict[str, None] = {}  # tables of agents only, playing
        self._visitors: dict[str, set[str]] = {}  # table -> the addresses kept as its visitors
        self._loading: dict[str, asyncio.Future[LiveTable | str]] = {}
        self._restoring = asyncio.Semaphore(1)  # tables read back from the store, one at a time
        self._rematching: dict[str, asyncio.Future[LiveTable]] = {}
        self._people: tuple[int, float, float, dict[str, Any]] | None = None
        self._people_task: tuple[int, asyncio.Future[dict[str, Any]]] | None = None
        for tid, config, moves in self.store.open_tables(self.limits.max_tables):
            try:
                table = restore_table(tid, config, moves)
            except (ValueError, TypeError, KeyError) as err:  # a table that no longer plays
                self.store.skipped.append((tid, f"{type(err).__name__}: {err}"))
                continue
            self._register(table)
            self.caps.opened_table(tid, "", table.agent_only)
            if table.agent_only:
                self._agent_tables[tid] = None
            elif config.get("opened", True):
                self.opened.add(tid)  # (its people may come back: the idle clock decides)
            else:
                self._unopened[tid] = time.monotonic()
            self.restored += 1
        for tid, why in self.store.skipped:  # each said, none keeps the server from starting
            print(f"gin_web: table {tid} not restored: {why}", flush=True)
            self.not_restored.append(tid)

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
        keeper = asyncio.create_task(_keep_collector(self.limits))
        try:
            yield
        finally:
            keeper.cancel()
            gc.unfreeze()
            sweep.cancel()
            self.scheduler.cancel()
            await asyncio.to_thread(self.close)

    def close(self) -> None:
        """Stop the side worker and the agents' workers, commit what the store holds."""
        self.replays.close()
        self.scheduler.close()
        self.store.close()

    def owner(self, table_id: str) -> str:
        """The address that started the table ("" when unknown: a restored table)."""
        return self.caps.owner.get(table_id, "")

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
        """May ``client`` start a table now (its share, and room on the server once what
        may be reclaimed is)? A ``ValueError`` says why not."""
        if not self.caps.room_for_table(len(self.tables)) and self._victim() is None:
            raise Refused(self.caps.full_message(len(self.tables)))
        self.caps.check_room(client, agents_only)

    def _config(self, table: LiveTable) -> dict[str, Any]:
        """What the store keeps to rebuild the table: its config, and whether a person has
        opened it (a table nobody opened expires soon, and its stand-ins wait)."""
        return {**table.config(), "opened": table.id in self.opened}

    def add_table(
        self, table: LiveTable, client: str = "", rematch_of: str | None = None
    ) -> dict[str, Any]:
        """Hold ``table`` (room made for it first: :meth:`make_room`), keep it in the store
        and start its agents; its links (each person's seat and the spectators'), never its
        seed."""
        self.make_room()
        self.store.add_table(table.id, self._config(table))
        self.store.add_links(table.id, self._link_rows(table))
        self._register(table)
        self.caps.opened_table(table.id, client, table.agent_only)
        if table.agent_only:
            self._agent_tables[table.id] = None
        else:
            self._unopened[table.id] = time.monotonic()
        if client:
            self.visit(table.id, client)
        if rematch_of is not None:
            self.rematches[rematch_of] = table.id
            self.store.add_rematch(rematch_of, table.id)
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

    def _link_rows(self, table: LiveTable) -> list[tuple[str, int | None]]:
        rows: list[tuple[str, int | None]] = [
            (s.key, s.player) for s in table.seats if s.key is not None
        ]
        return [*rows, (table.spectator_key, None)]

    def visit(self, table_id: str, client: str) -> None:
        """``client`` started, sat at or watched the table: its match is listed to it."""
        seen = self._visitors.setdefault(table_id, set())
        who = _who(client)
        if who not in seen and len(seen) < 64:
            seen.add(who)
            self.store.add_visit(table_id, who)

    # -- room -------------------------------------------------------------------------------
    def _victim(self) -> LiveTable | None:
        """The table to reclaim first when room is needed: a finished one nobody watches,
        else the oldest nobody has opened, else the oldest table of agents; None when
        every table has people at it."""
        for tid in self._done:
            if not self.conns.get(tid):
                return self.tables[tid]
        for tid in self._unopened:
            return self.tables[tid]
        for tid in self._agent_tables:
            return self.tables[tid]
        return None

    def make_room(self) -> None:
        """Reclaim tables (:meth:`_victim`) until one more fits (count and memory); a
        ``ValueError`` saying the server is full when none can be."""
        while not self.caps.room_for_table(len(self.tables)):
            victim = self._victim()
            if victim is None:
                raise Refused(self.caps.full_message(len(self.tables)))
            self.reclaim(victim)

    def reclaim(self, table: LiveTable) -> None:
        """Let ``table`` go to make room: a finished or stopped one leaves memory (its links
        read it back from the store), another ends for good, its watchers told."""
        done = table.id in self._done
        if not done:
            self.store.expire(table.id, "reclaimed")
        message = _ENDED["reclaimed"]
        for conn in list(self.conns.get(table.id, [])):
            conn.put({"type": "notice", "message": message})
            conn.put({"type": "error", "message": message})
            asyncio.ensure_future(_close_soon(conn.ws))
        self._forget(table)

    def _finished(self, table: LiveTable) -> None:
        """The table's match is over, or it stopped: it counts as done (reclaimed first)."""
        tid = table.id
        self.caps.done(tid)
        self._done[tid] = None
        self._unopened.pop(tid, None)
        self._agent_tables.pop(tid, None)

    def _drop_finished(self, older_than: float) -> None:
        now = time.monotonic()
        for tid in list(self._done):
            if not self.conns.get(tid) and now - self.active.get(tid, 0) >= older_than:
                self._forget(self.tables[tid])

    def _forget(self, table: LiveTable) -> None:
        tid = table.id
        self.tables.pop(tid, None)
        self.conns.pop(tid, None)
        for d in (self.active, self.notices, self._done, self._unopened, self._agent_tables,
                  self._visitors):  # fmt: skip
            d.pop(tid, None)  # type: ignore[attr-defined]
        self.caps.forget(tid)
        self.opened.discard(tid)
        self.stopped.discard(tid)
        self.saved.discard(tid)
        self.scheduler.forget(tid)
        for key in [s.key for s in table.seats if s.key] + [table.spectator_key]:
            self.links.pop(key, None)

    def expire(self, table: LiveTable, why: str) -> None:
        """Stop a table for good: out of memory, not restored again (its moves stay)."""
        self.store.expire(table.id, why)
        self._forget(table)

    def sweep(self) -> None:
        """Expire the tables nobody came to (:attr:`Limits.unopened_expire`, whatever their
        stand-ins do) or nobody has played at nor watched for :attr:`Limits.idle_expire`;
        drop finished tables nobody watches after :attr:`Limits.finished_keep`."""
        now = time.monotonic()
        lim = self.limits
        for tid, since in list(self._unopened.items()):
            if now - since > lim.unopened_expire and not self.conns.get(tid):
                self.expire(self.tables[tid], "nobody came")
        for tid, table in list(self.tables.items()):
            if tid in self._done or self.conns.get(tid) or self.scheduler.running(tid):
                continue
            if now - self.active.get(tid, now) > lim.idle_expire:
                self.expire(table, "idle")
        self._drop_finished(lim.finished_keep)

    def stop(self, table: LiveTable) -> None:
        """A table with nobody playing, at its cap of hands, stops for good (said to its
        watchers)."""
        self.stopped.add(table.id)
        self.store.expire(table.id, "cap")
        self._finished(table)
        message = self.caps.cap_notice()
        self.notices[table.id] = message
        for conn in list(self.conns.get(table.id, [])):
            conn.put({"type": "notice", "message": message})

    def _decision(self, game: str, d: Decision) -> None:
        self.store.add_decision(game, d)

    def touch(self, table: LiveTable) -> None:
        """A move was made or a socket came or went at ``table`` (its idle clock starts)."""
        self.active[table.id] = time.monotonic()

    def first_open(self, table: LiveTable) -> None:
        """A person opened the table for the first time: it is kept (the store says so, for
        a restart) and its stand-ins may play."""
        self.opened.add(table.id)
        if self._unopened.pop(table.id, None) is not None and not table.over:
            self.store.add_table(table.id, self._config(table))

    def after_change(self, table: LiveTable) -> None:
        """A move was played at ``table``: its idle clock starts, and a match just over is
        saved."""
        self.touch(table)
        if table.over and table.id not in self.saved:
            self.store.add_match(table.id, table.game, table.record())
            self.saved.add(table.id)
            self.matches_saved += 1
            self._finished(table)

    # -- tables read back from the store ----------------------------------------------------
    async def find(self, key: str) -> tuple[LiveTable, int | None] | str:
        """The table and seat of a link's key: in memory, or read back from the store (a
        finished match, a table that left memory); else why not, in words."""
        found = self.links.get(key)
        if found is not None:
            return found
        row = await asyncio.to_thread(self.store.find_link, key)
        if row is None:
            return "unknown link"
        table = await self.load(row[0])
        if isinstance(table, str):
            return table
        return self.links.get(key) or "unknown link"

    async def load(self, tid: str) -> LiveTable | str:
        """The table ``tid``, read back from the store when not in memory (played again from
        its moves in a thread, one at a time; a finished match shows its end, a table
        stopped at its cap too); why it cannot be, in words."""
        table = self.tables.get(tid)
        if table is not None:
            return table
        pending = self._loading.get(tid)
        if pending is None:
            pending = self._loading[tid] = asyncio.ensure_future(self._load(tid))
            pending.add_done_callback(lambda _: self._loading.pop(tid, None))
        return await asyncio.shield(pending)

    async def _load(self, tid: str) -> LiveTable | str:
        async with self._restoring:
            got = await asyncio.to_thread(self.store.table, tid)
            if got is None:
                return "unknown link"
            if isinstance(got, str):
                print(f"gin_web: table {tid} not read back: {got}", flush=True)
                return f"this table cannot be shown: {got}"
            config, moves, why = got
            if why is not None and why != "cap":
                return _ENDED.get(why, f"this table has ended ({why})")
            try:
                table = await asyncio.to_thread(restore_table, tid, config, moves)
            except (ValueError, TypeError, KeyError) as err:
                print(f"gin_web: table {tid} not read back: {err}", flush=True)
                return f"this table cannot be shown: {err}"
        if tid in self.tables:  # (read back meanwhile by another way)
            return self.tables[tid]
        if not self.caps.room_for_table(len(self.tables)):
            try:
                self.make_room()
            except ValueError as err:
                return str(err)
        self._register(table)
        self.caps.opened_table(tid, "", table.agent_only)
        self.opened.add(tid)
        if table.over:
            self.saved.add(tid)
            self._finished(table)
        elif why == "cap":
            self.stopped.add(tid)
            self.notices[tid] = self.caps.cap_notice()
            self._finished(table)
        else:  # a table at play that was not held (more than the server holds at start)
            self.scheduler.start(table)
        return table

    # -- rematches --------------------------------------------------------------------------
    async def rematch(self, token: str, client: str) -> dict[str, Any]:
        """``POST /api/rematch``: the rematch of the finished table of the seat link
        ``token`` (made by the first person who asks, whoever he is; a table has one
        rematch), and this person's own seat at it. A ``ValueError`` says why not."""
        found = await self.find(link_key(token))
        if isinstance(found, str) or found[1] is None:
            raise ValueError("unknown link: a rematch is asked for from a seat's link")
        old, player = found
        if not old.over:
            raise ValueError("the match is not over yet: a rematch follows a finished match")
        assert player is not None
        pending = self._rematching.get(old.id)
        if pending is None:
            pending = self._rematching[old.id] = asyncio.ensure_future(
                self._rematch_table(old, client)
            )
            pending.add_done_callback(lambda _: self._rematching.pop(old.id, None))
        new = await asyncio.shield(pending)
        return self._claim(old, new, player, token)

    async def _rematch_table(self, old: LiveTable, client: str) -> LiveTable:
        tid = self.rematches.get(old.id) or await asyncio.to_thread(self.store.rematch_of, old.id)
        if tid is not None:
            found = await self.load(tid)
            if isinstance(found, str):
                raise ValueError(f"this table's rematch cannot be opened: {found}")
            self.rematches[old.id] = tid
            return found
        self.check_room(client, old.agent_only)
        await self.caps.table_turn(client)
        table = new_table(
            old.game,
            old.options,
            [s.kind for s in old.seats],
            delay=old.delay,
            takeover=old.takeover,
            hint_agent=old.hint_agent,
        )
        for seat, before in zip(table.seats, old.seats, strict=True):
            if seat.human:  # each person's seat is his once he asks (:meth:`_claim`)
                seat.token = seat.key = None
                seat.claim = before.key
        table.spectator_token = rematch_token(old.spectator_key)
        table.spectator_key = link_key(table.spectator_token)
        refused = await self.scheduler.prepare(table, client, reuse=old)
        if refused is not None:
            raise ValueError(refused)
        try:
            self.add_table(table, client, rematch_of=old.id)
        except ValueError:  # (full meanwhile: its agents are let go)
            self.scheduler.forget(table.id)
            raise
        # The people at the table now get their own seats at once; the others when they ask.
        for conn in list(self.conns.get(old.id, [])):
            if conn.player is not None and conn.token:
                with contextlib.suppress(ValueError):
                    self._claim(old, table, conn.player, conn.token)
        self.notice(old.id, "a rematch has started: your seat at it is on this page "
                    "(Rematch gives it to you)")  # fmt: skip
        await self.broadcast(old)
        return table

    def _claim(self, old: LiveTable, table: LiveTable, player: int, token: str) -> dict[str, Any]:
        """The seat ``player`` of the rematch ``table`` for the holder of the old seat's
        link ``token``: its link is made from that one (:func:`rematch_token`), the same
        each time it is asked."""
        seat = table.seats[player]
        mine = rematch_token(token)
        key = link_key(mine)
        if seat.key is None:
            if seat.claim is None or seat.claim != link_key(token):
                raise ValueError("this seat of the rematch belongs to another link")
            seat.key, seat.claim = key, None
            self.links[key] = (table, player)
            self.store.add_table(table.id, self._config(table))
            self.store.add_links(table.id, [(key, player)])
        elif seat.key != key:
            raise ValueError("this seat of the rematch belongs to another link")
        name = table.names[player]
        return {
            "table": table.id,
            "game": table.game,
            "you": name,
            "seat": f"/t/{mine}",
            "seats": {name: f"/t/{mine}"},
            "spectator": f"/t/{rematch_token(old.spectator_key)}",
        }

    def rematch_link(self, conn: Conn) -> str | None:
        """The path of the seat of ``conn``'s person at the rematch of its table, if there
        is one and he has it."""
        new = self.rematches.get(conn.table.id)
        table = None if new is None else self.tables.get(new)
        if table is None or conn.player is None or not conn.token:
            return None
        mine = rematch_token(conn.token)
        return f"/t/{mine}" if table.seats[conn.player].key == link_key(mine) else None

    # -- lists ------------------------------------------------------------------------------
    async def match_page(
        self, client: str, limit: int, offset: int, tokens: list[str]
    ) -> dict[str, Any]:
        """A page of the finished matches this client may see (every one when the server
        publishes them), read in a thread."""
        keys = [link_key(t) for t in tokens]
        rows, more = await asyncio.to_thread(
            self.store.match_page, limit, offset, _who(client), keys, self.publish
        )
        return {"matches": rows, "offset": offset, "limit": limit,
                "next": offset + limit if more else None}  # fmt: skip

    async def people(self) -> dict[str, Any]:
        """People against agents over the stored matches, made in the side worker again
        once a match was saved since (the askers meanwhile share one making of it); where
        making it took long (a large store), at most once in 30 times that long (at most
        every 2 minutes): anyone may add matches, and no one may keep the side worker busy."""
        version = self.matches_saved
        kept = self._people
        if kept is not None:
            made_version, made_at, took, result = kept
            wait = min(120.0, 30 * took) if took > 0.25 else 0.0
            if made_version == version or time.monotonic() - made_at < wait:
                return result
        if self._people_task is None or self._people_task[0] != version:
            self._people_task = (version, asyncio.ensure_future(self._make_people(version)))
        return await asyncio.shield(self._people_task[1])

    async def _make_people(self, version: int) -> dict[str, Any]:
        start = time.monotonic()
        await asyncio.to_thread(self.store.flush)
        result = await self.replays.people(self.store.path)
        self._people = (version, time.monotonic(), time.monotonic() - start, result)
        return result

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
        watching, however many sockets watch it (a seat's view holds its link to the
        rematch, once there is one)."""
        made: dict[tuple[int | None, bool], str] = {}
        rematch = table.id in self.rematches
        for conn in list(self.conns.get(table.id, [])):
            key = (conn.player, conn.open_hands)
            text = made.get(key)
            if text is None:
                view = table.view(conn.player, conn.open_hands)
                if rematch and conn.player is not None:
                    view["rematch"] = self.rematch_link(conn)
                text = made[key] = json.dumps(view)
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
        """A replay's frames as JSON text, built in the side worker
        (:meth:`gin_web.replay_pool.ReplayPool.frames`)."""
        return await self.replays.frames(data)


async def _keep_collector(limits: Limits) -> None:
    """Python's cycle collector, kept from holding the loop: a full collection examines
    every object (at 1,500 sockets and as many tables, 100 ms and more, all at once), so
    what has lived :attr:`Limits.gc_seconds` (the imports, the tables, the sockets) is set
    aside (``gc.freeze``, which costs nothing), and the collections that come by themselves
    examine only what is new; every :attr:`Limits.gc_full_seconds` everything is collected
    once again (the cycles among what was set aside and has since died, freed)."""
    gc.collect()
    gc.freeze()
    full = time.monotonic()
    while True:
        await asyncio.sleep(limits.gc_seconds)
        if time.monotonic() - full >= limits.gc_full_seconds:
            full = time.monotonic()
            gc.unfreeze()
            gc.collect()
        gc.freeze()


async def _close_soon(ws: WebSocket) -> None:
    await asyncio.sleep(0.05)  # (its pump sends what it was told first)
    with contextlib.suppress(Exception):
        await ws.close(code=4410)
