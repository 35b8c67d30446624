"""The agents' moves and the hints of the web server: who thinks when, never on the loop.

The event loop owns every table and never thinks for an agent, nor makes one: each agent is
made (:meth:`Scheduler.prepare`) and each of its moves (and each hint) thought in a worker
process (:mod:`gin_web.thinkers`; those of tables of agents only in workers of lower
priority), and played back here on the loop if the table is still where it was. A table's
agents play one after another until a person is to act.

Who waits for whom: in the people's workers, an agent's move at a table where a person
plays now comes first, then the making of a new table's agents, then hints, then the moves
where nobody plays now (stand-ins for people who left); within each, the clients
(addresses) take turns. Every agent's move where nobody plays, and every one past
:attr:`~gin_web.limits.Limits.free_moves` since a person's last move at its table, keeps
one pace, all tables together (:meth:`Scheduler._lane_pace`: at most
:attr:`~gin_web.limits.Limits.lane_moves` a second), whatever delay a table has (a delay
only adds to it); a table with no person playing stops at its cap of hands
(:meth:`gin_web.limits.Caps.capped`), and the stand-ins of a table nobody has opened yet
wait for its first person.

The scheduler holds no table: it plays those of its host (:class:`Host`, the server), tells
it of every change, and asks it to show the tables to their sockets.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from gin_web.limits import Caps
from gin_web.tables import LiveTable
from gin_web.thinkers import BACKGROUND, HINT, PERSON, Thinkers

__all__ = ["Scheduler", "Host"]


class Host(Protocol):
    """What the scheduler needs of the server whose tables it plays."""

    tables: dict[str, LiveTable]
    stopped: set[str]  # tables of agents stopped at their cap
    opened: set[str]  # tables a person has opened

    def after_change(self, table: LiveTable) -> None:
        """A move was played at ``table`` (its match saved once it is over)."""

    def stop(self, table: LiveTable) -> None:
        """``table`` reached its cap of hands: it stops for good."""

    def notice(self, table_id: str | None, message: str) -> None:
        """Tell the people of a table something (``""``: nothing any more)."""

    async def broadcast(self, table: LiveTable) -> None:
        """Send each socket of ``table`` its state."""

    def owner(self, table_id: str) -> str:
        """The address that started the table ("" when unknown)."""


class Scheduler:
    """The agents' moves and the hints of the host's tables, thought in worker processes:
    those of tables with people at the server's priority, those of tables of agents only at
    a lower one (they never hold up the people's agents)."""

    def __init__(self, host: Host, caps: Caps) -> None:
        self.host = host
        self.caps = caps
        limits = caps.limits
        self.limits = limits
        self.thinkers = Thinkers(limits.think_workers, timeout=limits.think_seconds)
        self.lane_thinkers = Thinkers(
            limits.lane_workers, nice=limits.lane_nice, timeout=limits.think_seconds
        )
        self._running: set[str] = set()  # tables whose agents are playing now
        self._tasks: set[asyncio.Task[Any]] = set()
        self._lane_until = 0.0  # paced moves wait for this (_lane_pace)
        self._people_moved = 0.0  # when a person last moved (paced tables give way)
        self._streak: dict[str, int] = {}  # table -> agents' moves since a person's
        self._hinting: dict[tuple[str, int, int], asyncio.Future[int]] = {}

    # -- the workers ------------------------------------------------------------------------
    def start_workers(self) -> list[asyncio.Future[Any]]:
        """Start the people's agents' workers; each is ready when its future is done."""
        return [asyncio.wrap_future(f) for f in self.thinkers.start()]

    def _thinkers(self, table: LiveTable) -> Thinkers:
        """The workers that think for ``table``: those of lower priority for a table of
        agents only."""
        return self.lane_thinkers if table.agent_only else self.thinkers

    async def prepare(
        self, table: LiveTable, client: str = "", reuse: LiveTable | None = None
    ) -> str | None:
        """Make ``table``'s agents in its worker before it starts (``reuse``: the finished
        table it is the rematch of, whose agents move over); the message of one that
        cannot play the table (``"seat 1: ..."``), or None."""
        return await self._thinkers(table).build(
            table.id,
            table.agent_slots(),
            table.table_state.table,
            reuse=None if reuse is None else reuse.id,
            client=client,
        )

    def running(self, table_id: str) -> bool:
        """Are the agents of the table playing now?"""
        return table_id in self._running

    def waiting(self) -> int:
        """Calls queued for the workers (people's and lane), not yet thought on."""
        return self.thinkers.waiting() + self.lane_thinkers.waiting()

    def forget(self, table_id: str) -> None:
        """The table is gone: its workers forget its agents."""
        self._streak.pop(table_id, None)
        self.thinkers.forget([table_id])
        self.lane_thinkers.forget([table_id])

    def cancel(self) -> None:
        """Cancel the tasks of the agents playing now and the calls waiting for a worker
        (the server stops)."""
        for task in list(self._tasks):
            task.cancel()
        self.thinkers.cancel_waiting()
        self.lane_thinkers.cancel_waiting()

    def close(self) -> None:
        """Stop the workers."""
        self.thinkers.close()
        self.lane_thinkers.close()

    # -- agents' moves ----------------------------------------------------------------------
    def _may_play(self, table: LiveTable) -> bool:
        """Is an agent to act, and may it (a stand-in plays only at a table a person has
        opened: nobody plays a table for nobody)?"""
        if not table.waiting_for_agent() or table.id not in self.host.tables:
            return False
        seat = table.seats[table.to_act or 0]
        return not seat.human or table.id in self.host.opened

    def start(self, table: LiveTable) -> None:
        """Let the agents play until a person is to act (a task: the loop stays free, and
        each move is thought in a worker process, :mod:`gin_web.thinkers`)."""
        if table.id in self._running or table.id in self.host.stopped:
            return
        if not self._may_play(table):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop yet (a table made before the server runs)
            return
        self._running.add(table.id)
        task = loop.create_task(self._run_agents(table))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def after_person(self, table: LiveTable) -> None:
        """After a person's move: the agents' moves before the next state when the table
        has no delay (so the person's next state comes in one message), else in a task."""
        self._people_moved = time.monotonic()
        self._streak[table.id] = 0
        self.host.after_change(table)
        if table.delay > 0 or table.id in self._running:
            await self.host.broadcast(table)
            self.start(table)
            return
        self._running.add(table.id)
        await self._run_agents(table)

    async def _agent_move(self, table: LiveTable) -> float:
        """One move of the agent to act: its observation read here, the move thought in the
        table's worker (tables of agents only: in the workers of lower priority; where
        nobody plays now, after every other call), played here if the table is still where
        it was (the person may have come back and moved meanwhile). Returns the loop's own
        time spent on it, in seconds."""
        player = table.to_act
        if player is None:
            return 0.0
        start = time.perf_counter()
        slot, spec = table.thinker(player)
        seq = table.step_count
        observation = table.observation(player)
        priority = PERSON if table.agent_only or table.someone_here else BACKGROUND
        spent = time.perf_counter() - start
        action = await self._thinkers(table).act(
            table.id,
            slot,
            spec,
            table.table_state.table,
            observation,
            priority=priority,
            client=self.host.owner(table.id),
        )
        start = time.perf_counter()
        if table.id in self.host.tables and table.play_thought(player, seq, action):
            self._streak[table.id] = self._streak.get(table.id, 0) + 1
            self.host.after_change(table)
        return spent + time.perf_counter() - start

    def _paced(self, table: LiveTable) -> bool:
        """Does ``table``'s next agent's move keep the shared pace? Yes where nobody plays
        now, and past :attr:`Limits.free_moves` agents' moves since a person's last move
        there (a person watching agents play on, a hand where he sits out)."""
        return table.nobody or self._streak.get(table.id, 0) >= self.limits.free_moves

    async def _lane_pace(self, spent: float) -> None:
        """The paced moves, all tables together, take at most a quarter of the loop (an
        eighth while people play at other tables) and come :attr:`Limits.lane_moves` a
        second at most: each one's time on the loop books three (seven) times as long for
        everyone else, or a move's share of that second if longer, and the next paced move,
        at any table, waits for it. (The rate also bounds what their moves cost beyond the
        loop's own time: the writes, the messages to the workers.)"""
        busy = time.monotonic() - self._people_moved < 1.0
        now = time.monotonic()
        booked = max(spent * (8 if busy else 4), 1.0 / self.limits.lane_moves)
        self._lane_until = max(self._lane_until, now) + booked
        await asyncio.sleep(max(0.0, self._lane_until - now - self.limits.slice_seconds))

    async def _run_agents(self, table: LiveTable) -> None:
        """The agents' moves, one after another, each thought in a worker. With a delay, the
        delay comes *before* each move after the first, so that the person to act next is
        never kept waiting. A paced move (:meth:`_paced`) then waits its turn of the shared
        pace, delay or not; watchers of a table playing without delay get a state every
        :attr:`Limits.watch_seconds` (nobody follows a table at full speed move by move)
        and when it stops, failed or not. :meth:`after_person` runs it inline after a
        person's move, a task the other times."""
        host = self.host
        try:
            first = True
            shown = time.monotonic()
            while self._may_play(table):
                if self.caps.capped(table.nobody, table.hand_index):
                    host.stop(table)
                    break
                if table.delay > 0 and not first:
                    await asyncio.sleep(table.delay)
                    if not self._may_play(table):
                        break
                first = False
                paced = self._paced(table)
                spent = await self._agent_move(table)
                if table.delay > 0 or not paced:
                    if table.delay > 0:
                        await host.broadcast(table)
                elif time.monotonic() - shown >= self.limits.watch_seconds:
                    shown = time.monotonic()
                    start = time.perf_counter()
                    await host.broadcast(table)
                    spent += time.perf_counter() - start
                if paced:
                    await self._lane_pace(spent)
        except Exception as err:  # an agent that fails: said to the table, the server goes on
            print(f"gin_web: table {table.id}: an agent failed: {err!r}", flush=True)
            host.notice(table.id, f"an agent failed ({type(err).__name__}); the table waits")
        finally:
            self._running.discard(table.id)
        await host.broadcast(table)

    # -- hints ------------------------------------------------------------------------------
    async def hint(self, table: LiveTable, player: int, client: str = "") -> tuple[int, int]:
        """``(action, move number)``: what the table's hint agent would play in ``player``'s
        seat, thought in the table's worker after the agents' moves waiting there (and in
        turn with ``client``'s other hints); the same position asked again (from another
        socket, or before the first answer came) is thought once. A
        :class:`~gin_web.tables.MoveError` when it is not his turn."""
        known = table.known_hint(player)
        seq = table.step_count
        if known is not None:
            return known, seq
        key = (table.id, seq, player)
        thought = self._hinting.get(key)
        if thought is None:
            thought = asyncio.ensure_future(self._thinkers(table).act(
                table.id, "hint", table.hint_agent, table.table_state.table,
                table.observation(player), priority=HINT, client=client,
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
