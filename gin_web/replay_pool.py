"""The side worker of the web server: a replay's frames (:func:`gin_web.replays.replay_json`)
and people against agents over every stored match (:func:`people_json`), each built in a
process of its own, so that the server's loop and its tables never wait on one, nor share a
lock with it; one at a time, at a lower priority, and each in a fresh process (what one
built is given back to the system when it ends)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from gin_web import people
from gin_web.limits import Limits
from gin_web.replays import replay_json
from gin_web.thinkers import worker_context

__all__ = ["ReplayPool", "people_json"]

#: How much lower the side worker's priority is than the server's (0..19).
SIDE_NICE = 5


def _start() -> None:
    with contextlib.suppress(OSError):
        os.nice(SIDE_NICE)


def people_json(db_path: str) -> str:
    """In the side worker: :func:`gin_web.people.results` over the finished matches of the
    SQLite file ``db_path`` with a person at the table (read-only), as JSON text."""
    db = sqlite3.connect(f"file:{Path(db_path).as_posix()}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute(
            "SELECT id, game, record FROM matches WHERE record LIKE '%\"human\"%' ORDER BY finished"
        ).fetchall()
    finally:
        db.close()
    records = []
    for mid, game, text in rows:
        with contextlib.suppress(ValueError, TypeError):  # (a hand-edited row: left out)
            records.append((mid, game, json.loads(text)))
    return json.dumps(people.results(records))


class ReplayPool:
    """The side worker (started when needed, from the agents' workers' clean fork server:
    it shares nothing with the server's process; a fresh process for each task) and the
    slot of the one task it does at a time."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._slot = asyncio.Semaphore(1)
        self._pool: ProcessPoolExecutor | None = None

    async def _run(self, fn: Any, *args: Any) -> Any:
        try:
            await asyncio.wait_for(self._slot.acquire(), 10)
        except TimeoutError:
            raise ValueError("the server is busy with another replay; try again") from None
        try:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(1, mp_context=worker_context(), initializer=_start)
            pool = self._pool
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(pool, fn, *args)
            except BrokenProcessPool:
                raise ValueError("the replay worker stopped; try again") from None
            finally:  # a fresh process for the next task: what this one built is let go
                self._pool = None
                pool.shutdown(wait=False)
        finally:
            self._slot.release()

    async def frames(self, data: Any) -> str:
        """A replay's frames as JSON text (``{"frames": [...]}``), within
        :attr:`Limits.replay_moves` and :attr:`Limits.replay_frames_bytes`; a second
        request waits up to 10 s for the first, then is told to try again (a
        ``ValueError``, as a bad file is)."""
        lim = self.limits
        return str(await self._run(replay_json, data, lim.replay_moves, lim.replay_frames_bytes))

    async def people(self, db_path: str | Path) -> dict[str, Any]:
        """People against agents over the stored matches (:func:`people_json`)."""
        text = await self._run(people_json, str(db_path))
        return json.loads(text)  # type: ignore[no-any-return]

    def close(self) -> None:
        """Stop the worker (a task being done is cancelled)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
