"""Agents' moves and hints off the server's event loop: worker processes that hold the
agents of the tables and answer ``observation -> action``.

The loop owns every table: it reads the observation of the seat to act, sends it to a
worker (:meth:`Thinkers.act`), and plays the action it gets back, after checking that the
table has not moved on meanwhile. A worker never sees a table, only an agent's spec, the
table's rules and one observation, so no table can be changed anywhere but on the loop.

Each worker is a process of its own (an agent that thinks for seconds holds up neither the
loop nor, through Python's one lock, its sockets), with a single thread: the calls it gets
are answered one at a time, in order. A table always goes to the same worker (by its id),
so the agents that keep a memory of the hand or of their opponent keep it from move to
move; a worker keeps at most :data:`MAX_AGENTS` agents (the least recently used go first,
and one is made again from its spec when needed). A worker that dies is started again on
the next call, its agents made afresh, as after a restart of the server; and a worker ends
when the server's process does, however it ends (it watches a pipe only the server holds
open). Workers are forked from a ``forkserver`` that has imported the agents once, so a new
one is ready at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import zlib
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection, wait
from typing import Any

import agents

__all__ = ["Thinkers", "MAX_AGENTS"]

#: Agents one worker keeps (tables x seats, and each table's hint agent).
MAX_AGENTS = 4096

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


def _think(table: str, slot: str, spec: str, rules: Any, observation: Any) -> int:
    """In the worker: the action of ``table``'s agent in ``slot`` (made from ``spec`` at the
    table's ``rules`` when the worker has none, or one of another spec)."""
    key = (table, slot)
    held = _AGENTS.get(key)
    if held is None or held[0] != spec:
        held = _AGENTS[key] = (spec, agents.seat(spec, rules))
        while len(_AGENTS) > MAX_AGENTS:
            _AGENTS.popitem(last=False)
    else:
        _AGENTS.move_to_end(key)
    return int(held[1].act(observation))


def _forget(tables: list[str]) -> int:
    """In the worker: drop the agents of ``tables``; the number of agents left."""
    gone = set(tables)
    for key in [k for k in _AGENTS if k[0] in gone]:
        del _AGENTS[key]
    return len(_AGENTS)


def _ready() -> int:
    return os.getpid()


# -- the server's side ------------------------------------------------------------------------
def _context() -> Any:
    """How workers start: forked from a clean server process that has imported the agents
    once (``forkserver``: a worker starts in milliseconds, and no thread of the web server
    is forked), else (no fork on this system) spawned."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["gin_web.thinkers"])  # (and so the agents)
    return context


class Thinkers:
    """``workers`` worker processes (each started when first needed), their priority
    lowered by ``nice``; a table's calls all go to one of them."""

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
        self._alive: tuple[Connection, Connection] | None = None  # (workers' end, ours)

    def _index(self, table: str) -> int:
        return zlib.crc32(table.encode("utf-8", "surrogatepass")) % len(self._pools)

    def _pool(self, index: int) -> ProcessPoolExecutor:
        pool = self._pools[index]
        if pool is None:
            if self._alive is None:
                self._alive = multiprocessing.Pipe(duplex=False)
            pool = self._pools[index] = ProcessPoolExecutor(
                1, mp_context=_context(), initializer=_start, initargs=(self.nice, self._alive[0])
            )
        return pool

    def start(self) -> list[Future[int]]:
        """Start every worker now (the first move of a table is then not slowed by a start);
        their pids, as futures."""
        return [self._pool(i).submit(_ready) for i in range(len(self._pools))]

    async def act(self, table: str, slot: str, spec: str, rules: Any, observation: Any) -> int:
        """The action of ``table``'s agent in ``slot`` (``spec`` at ``rules``) for
        ``observation``, thought in the table's worker. A worker that died is started
        again and asked once more (its agents are made afresh). A thought longer than
        ``timeout`` seconds is a ``TimeoutError``: the worker is killed (the other tables'
        calls there are asked again of a new one), and the move is not asked again."""
        index = self._index(table)
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self._pool(index)
            thought = loop.run_in_executor(pool, _think, table, slot, spec, rules, observation)
            try:
                return await asyncio.wait_for(thought, self.timeout)
            except BrokenProcessPool:
                self._drop(index, pool)
                if attempt == 2:
                    raise
            except TimeoutError:
                self._drop(index, pool, kill=True)
                raise TimeoutError(
                    f"agent {spec!r} thought longer than {self.timeout:g} s"
                ) from None
        raise AssertionError("unreachable")

    def _drop(self, index: int, pool: ProcessPoolExecutor, kill: bool = False) -> None:
        """Forget a broken worker (``kill``: a hung one, ended here first)."""
        if self._pools[index] is pool:
            self._pools[index] = None
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
        for index, tids in by_worker.items():
            pool = self._pools[index]
            if pool is not None:
                with contextlib.suppress(RuntimeError, BrokenProcessPool):  # (shut down)
                    pool.submit(_forget, tids)

    def close(self) -> None:
        """Stop the workers (a move in progress is dropped: a worker thinking ends too)."""
        for i, pool in enumerate(self._pools):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
                self._pools[i] = None
        if self._alive is not None:
            for end in self._alive:
                end.close()
            self._alive = None
