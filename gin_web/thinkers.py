"""Agents' moves and hints off the server's event loop: worker processes that hold the
agents of the tables and answer ``observation -> action``.

The loop owns every table: it reads the observation of the seat to act, sends it to a
worker (:meth:`Thinkers.act`), and plays the action it gets back, after checking that the
table has not moved on meanwhile. A worker never sees a table, only an agent's spec, the
table's rules and one observation, so no table can be changed anywhere but on the loop.
The agents themselves are built in the workers too (:meth:`Thinkers.build`, when a table
starts: a spec that cannot play the table comes back as its message), never on the loop.

Each worker is a process of its own (an agent that thinks for seconds holds up neither the
loop nor, through Python's one lock, its sockets), with a single thread: it is given one
call at a time. The calls waiting for a worker are queued here by priority
(:data:`PERSON` before :data:`SETUP` before :data:`HINT` before :data:`BACKGROUND`), and
within a priority taken in turn from each client (the address a call is for), so a
person's move never waits behind another client's hints or stand-ins, and no client's
many tables hold up another's: at most the one call the worker is thinking on.

A table always goes to the same worker (by its id, or its first table's for a rematch:
:meth:`Thinkers.follow`), so the agents that keep a memory of the hand or of their
opponent keep it from move to move; a worker keeps at most :data:`MAX_AGENTS` agents (the
least recently used go first, and one is made again from its spec when needed). A worker
that dies is started again on the next call, its agents made afresh, as after a restart of
the server; and a worker ends when the server's process does, however it ends (it watches
a pipe only the server holds open). Workers are forked from a ``forkserver`` that has
imported the agents once, so a new one is ready at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import zlib
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

import agents

__all__ = ["Thinkers", "MAX_AGENTS", "PERSON", "SETUP", "HINT", "BACKGROUND", "worker_context"]

#: Agents one worker keeps (tables x seats, and each table's hint agent).
MAX_AGENTS = 4096
#: The priorities of a call, first served first: an agent's move at a table where a person
#: plays now; building a new table's agents; a hint; a move where nobody plays now (a
#: stand-in for people who left).
PERSON, SETUP, HINT, BACKGROUND = 0, 1, 2, 3

# -- the worker's side ------------------------------------------------------------------------
_AGENTS: OrderedDict[tuple[str, str], tuple[str, Any]] = OrderedDict()


def _start(nice: int, server: Connection) -> None:
    """A worker's first step (the agents' package is imported with this module, before any
    move): lower its priority by ``nice`` (0: as the server's), and watch ``server``, the
    read end of a pipe that only the server's process writes to, so that the worker ends
    when the server does, however it ends."""
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    threading.Thread(target=_end_with, args=(server,), daemon=True).start()


def _end_with(server: Connection) -> None:
    """In the worker: wait until the server's end of the pipe is closed, then end."""
    with contextlib.suppress(Exception):
        wait([server])
    os._exit(0)


def _keep(key: tuple[str, str], spec: str, agent: Any) -> None:
    _AGENTS[key] = (spec, agent)
    _AGENTS.move_to_end(key)
    while len(_AGENTS) > MAX_AGENTS:
        _AGENTS.popitem(last=False)


def _think(table: str, slot: str, spec: str, rules: Any, observation: Any) -> int:
    """In the worker: the action of ``table``'s agent in ``slot`` (made from ``spec`` at the
    table's ``rules`` when the worker has none, or one of another spec)."""
    key = (table, slot)
    held = _AGENTS.get(key)
    if held is None or held[0] != spec:
        _keep(key, spec, agents.seat(spec, rules))
        held = _AGENTS[key]
    else:
        _AGENTS.move_to_end(key)
    return int(held[1].act(observation))


def _build(
    table: str, slots: Sequence[tuple[str, str, str]], rules: Any, reuse: str | None
) -> str | None:
    """In the worker: make ``table``'s agents, ``(slot, spec, what it is called)`` each, at
    ``rules`` (an agent of the same slot and spec of the table ``reuse``, a finished match
    this one follows, is taken over instead of made again); the first one that cannot play
    the table's message (``"seat 1: ..."``), or None."""
    for slot, spec, name in slots:
        old = _AGENTS.pop((reuse, slot), None) if reuse is not None else None
        if old is not None and old[0] == spec:
            _keep((table, slot), spec, old[1])
            continue
        try:
            _keep((table, slot), spec, agents.seat(spec, rules))
        except (ValueError, TypeError, FileNotFoundError, KeyError) as err:
            _forget([table])
            return f"{name}: {err}"
    return None


def _forget(tables: list[str]) -> int:
    """In the worker: drop the agents of ``tables``; the number of agents left."""
    gone = set(tables)
    for key in [k for k in _AGENTS if k[0] in gone]:
        del _AGENTS[key]
    return len(_AGENTS)


def _ready() -> int:
    return os.getpid()


# -- the server's side ------------------------------------------------------------------------
def worker_context() -> Any:
    """How workers start: forked from a clean server process that has imported the agents
    once (``forkserver``: a worker starts in milliseconds, and no thread of the web server
    is forked), else (no fork on this system) spawned."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["gin_web.thinkers"])  # (and so the agents)
    return context


@dataclass(eq=False)
class _Call:
    """A call waiting for its worker, or being thought on."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    future: asyncio.Future[Any]
    what: str  # what thinks (the timeout's message)
    tries: int = 0


@dataclass
class _Queue:
    """The calls waiting for one worker: by priority, then by client, each client's in
    order; the clients of a priority are served in turn."""

    waiting: dict[int, OrderedDict[str, deque[_Call]]] = field(default_factory=dict)
    thinking: _Call | None = None
    timer: asyncio.TimerHandle | None = None

    def put(self, priority: int, client: str, call: _Call, first: bool = False) -> None:
        clients = self.waiting.setdefault(priority, OrderedDict())
        calls = clients.setdefault(client, deque())
        calls.appendleft(call) if first else calls.append(call)

    def take(self) -> _Call | None:
        for priority in sorted(self.waiting):
            clients = self.waiting[priority]
            while clients:
                client, calls = next(iter(clients.items()))
                call = calls.popleft()
                if calls:
                    clients.move_to_end(client)  # the next client's turn
                else:
                    del clients[client]
                if not call.future.done():  # (an asker that left: passed over)
                    return call
            del self.waiting[priority]
        return None

    def __len__(self) -> int:
        return sum(len(c) for clients in self.waiting.values() for c in clients.values())


class Thinkers:
    """``workers`` worker processes (each started when first needed), their priority
    lowered by ``nice``; a table's calls all go to one of them, one call at a time, the
    waiting ones taken by priority and in turn by client."""

    def __init__(self, workers: int, nice: int = 0, timeout: float = 60.0) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an int >= 1, got {workers!r}")
        if isinstance(nice, bool) or not isinstance(nice, int) or not 0 <= nice <= 19:
            raise ValueError(f"nice must be an int in 0..19, got {nice!r}")
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not (0 < timeout < float("inf"))
        ):
            raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        self.nice, self.timeout = nice, float(timeout)
        self._pools: list[ProcessPoolExecutor | None] = [None] * workers
        self._queues = [_Queue() for _ in range(workers)]
        self._alive: tuple[Connection, Connection] | None = None  # (workers' end, ours)
        self._home: dict[str, str] = {}  # a rematch's table -> the table whose worker it uses
        self._closed = False

    def _index(self, table: str) -> int:
        home = self._home.get(table, table)
        return zlib.crc32(home.encode("utf-8", "surrogatepass")) % len(self._pools)

    def follow(self, table: str, before: str) -> None:
        """``table`` uses the worker of ``before`` (a rematch: the agents move over)."""
        self._home[table] = self._home.get(before, before)

    def _pool(self, index: int) -> ProcessPoolExecutor:
        pool = self._pools[index]
        if pool is None:
            if self._alive is None:
                self._alive = multiprocessing.Pipe(duplex=False)
            pool = self._pools[index] = ProcessPoolExecutor(
                1,
                mp_context=worker_context(),
                initializer=_start,
                initargs=(self.nice, self._alive[0]),
            )
        return pool

    def start(self) -> list[Future[int]]:
        """Start every worker now (the first move of a table is then not slowed by a start);
        their pids, as futures."""
        return [self._pool(i).submit(_ready) for i in range(len(self._pools))]

    def waiting(self) -> int:
        """Calls queued for the workers, not yet thought on."""
        return sum(len(q) for q in self._queues)

    async def act(
        self,
        table: str,
        slot: str,
        spec: str,
        rules: Any,
        observation: Any,
        priority: int = PERSON,
        client: str = "",
    ) -> int:
        """The action of ``table``'s agent in ``slot`` (``spec`` at ``rules``) for
        ``observation``, thought in the table's worker (queued by ``priority``, in turn
        with ``client``'s other calls). A worker that died is started again and asked once
        more (its agents are made afresh). A thought longer than ``timeout`` seconds is a
        ``TimeoutError``: the worker is killed (the calls waiting for it go to a new one),
        and the move is not asked again."""
        args = (table, slot, spec, rules, observation)
        return int(await self._call(table, _think, args, priority, client, repr(spec)))

    async def build(
        self,
        table: str,
        slots: Sequence[tuple[str, str, str]],
        rules: Any,
        reuse: str | None = None,
        client: str = "",
    ) -> str | None:
        """Make ``table``'s agents in its worker, ``(slot, spec, name)`` each (``reuse``: a
        finished table whose agents of the same slots and specs are taken over); the
        message of the first that cannot play the table (``"seat 1: ..."``), or None."""
        if reuse is not None:
            self.follow(table, reuse)
        args = (table, list(slots), rules, reuse)
        result = await self._call(table, _build, args, SETUP, client, "building the agents")
        return None if result is None else str(result)

    async def _call(
        self,
        table: str,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        priority: int,
        client: str,
        what: str,
    ) -> Any:
        index = self._index(table)
        call = _Call(fn, args, asyncio.get_running_loop().create_future(), what)
        self._queues[index].put(priority, client, call)
        self._next(index)
        return await call.future

    # -- one call at a time per worker ------------------------------------------------------
    def _next(self, index: int) -> None:
        """Give the worker its next call, if it is free."""
        queue = self._queues[index]
        while queue.thinking is None:
            call = queue.take()
            if call is None:
                return
            if self._closed:
                call.future.cancel()
                continue
            try:
                pool = self._pool(index)
                thought = pool.submit(call.fn, *call.args)
            except (BrokenProcessPool, RuntimeError) as err:  # (broken or shut down)
                self._drop(index)
                if call.tries >= 1:
                    call.future.set_exception(err)
                    continue
                call.tries += 1
                queue.put(-1, "", call, first=True)
                continue
            loop = asyncio.get_running_loop()
            queue.thinking = call
            queue.timer = loop.call_later(self.timeout, self._too_long, index, call)

            def done(f: Future[Any], call: _Call = call, loop: Any = loop) -> None:
                with contextlib.suppress(RuntimeError):  # (the loop closed meanwhile)
                    loop.call_soon_threadsafe(self._done, index, call, f)

            thought.add_done_callback(done)

    def _done(self, index: int, call: _Call, thought: Future[Any]) -> None:
        queue = self._queues[index]
        if queue.thinking is not call:  # (timed out: already answered)
            return
        queue.thinking = None
        if queue.timer is not None:
            queue.timer.cancel()
        err = thought.exception() if not thought.cancelled() else BrokenProcessPool("cancelled")
        if isinstance(err, BrokenProcessPool):
            self._drop(index)
            if call.tries < 1 and not call.future.done():  # asked once more of a new worker
                call.tries += 1
                queue.put(-1, "", call, first=True)
            elif not call.future.done():
                call.future.set_exception(err)
        elif not call.future.done():
            if err is not None:
                call.future.set_exception(err)
            else:
                call.future.set_result(thought.result())
        self._next(index)

    def _too_long(self, index: int, call: _Call) -> None:
        """A call thought on past the timeout: its worker is killed, the call answered
        with a ``TimeoutError``, and the next call goes to a new worker."""
        queue = self._queues[index]
        if queue.thinking is not call:
            return
        queue.thinking = None
        self._drop(index, kill=True)
        if not call.future.done():
            call.future.set_exception(
                TimeoutError(f"agent {call.what} thought longer than {self.timeout:g} s")
            )
        self._next(index)

    def _drop(self, index: int, kill: bool = False) -> None:
        """Forget a broken worker (``kill``: a hung one, ended here first)."""
        pool = self._pools[index]
        self._pools[index] = None
        if pool is None:
            return
        if kill:
            # The executor has no public way to end a task that runs: end its process.
            for process in list(getattr(pool, "_processes", {}).values()):
                with contextlib.suppress(OSError):
                    process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def forget(self, tables: list[str]) -> None:
        """Drop the agents of ``tables`` from their workers (a worker not started has none)."""
        by_worker: dict[int, list[str]] = {}
        for tid in tables:
            by_worker.setdefault(self._index(tid), []).append(tid)
            self._home.pop(tid, None)
        for index, tids in by_worker.items():
            pool = self._pools[index]
            if pool is not None:
                with contextlib.suppress(RuntimeError, BrokenProcessPool):  # (shut down)
                    pool.submit(_forget, tids)

    def cancel_waiting(self) -> None:
        """Cancel the calls waiting and being thought on (on the loop, as the server
        stops)."""
        self._closed = True
        for queue in self._queues:
            while (call := queue.take()) is not None:
                call.future.cancel()
            if queue.thinking is not None:
                queue.thinking.future.cancel()
                queue.thinking = None
            if queue.timer is not None:
                queue.timer.cancel()

    def close(self) -> None:
        """Stop the workers (a move in progress is dropped: a worker thinking ends too)."""
        self._closed = True
        for i, pool in enumerate(self._pools):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
                self._pools[i] = None
        if self._alive is not None:
            for end in self._alive:
                end.close()
            self._alive = None
