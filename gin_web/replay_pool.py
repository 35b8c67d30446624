"""The replay viewer's worker: a replay's frames (:func:`gin_web.replays.replay_json`) built
in a process of its own, so that the server's loop and its tables never wait on one, nor
share a lock with it; one replay at a time."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from gin_web.limits import Limits
from gin_web.replays import replay_json

__all__ = ["ReplayPool"]


class ReplayPool:
    """One worker process (started on the first replay, spawned: it shares nothing with the
    server) and the slot of the one replay it builds at a time."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._slot = asyncio.Semaphore(1)
        self._pool: ProcessPoolExecutor | None = None

    async def frames(self, data: Any) -> str:
        """A replay's frames as JSON text (``{"frames": [...]}``), within
        :attr:`Limits.replay_moves` and :attr:`Limits.replay_frames_bytes`; a second
        request waits up to 10 s for the first, then is told to try again (a
        ``ValueError``, as a bad file is)."""
        try:
            await asyncio.wait_for(self._slot.acquire(), 10)
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
            self._slot.release()

    def close(self) -> None:
        """Stop the worker (a replay being built is cancelled)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
