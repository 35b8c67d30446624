"""The one worker pool of the evaluation, the studies and the tuner.

:class:`WorkerPool` keeps ``workers`` spawned processes for many maps (the generations of
a tuning run); :func:`pool_map` runs ``fn(*job)`` for every job, in order, over a pool of
its own (in this process when ``workers <= 1``); :func:`pool_until` keeps ``workers``
jobs running until a deadline (data generation on a time budget). All use spawned
processes: a worker starts from a clean interpreter, so what it computes depends on its
job alone, never on state the parent had when it forked.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from contextlib import contextmanager
from typing import Any

from tqdm import tqdm

__all__ = ["WorkerPool", "pool_map", "pool_until", "one_blas_thread"]

#: The variables that set the BLAS libraries' thread counts in a process started under them.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Processes started inside run one BLAS thread each. Workers side by side already fill
    the cores; their small matrix products (the numpy DMC players) lose far more to BLAS
    threads waiting on a busy machine than they gain (4x and more measured on 2 cores)."""
    saved = {k: os.environ.get(k) for k in BLAS_THREADS}
    os.environ.update(dict.fromkeys(BLAS_THREADS, "1"))
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class _Star:
    """``fn(*job)``, picklable for the pool."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __call__(self, job: tuple[Any, ...]) -> Any:
        return self.fn(*job)


class WorkerPool:
    """``workers`` spawned processes kept until :meth:`close` (or the end of a ``with``);
    with one worker every job runs in this process. ``initializer(*initargs)`` runs once in
    each process that plays jobs."""

    def __init__(
        self,
        workers: int,
        initializer: Callable[..., None] | None = None,
        initargs: tuple[Any, ...] = (),
    ) -> None:
        self.workers = workers
        self._pool = None
        if workers > 1:
            ctx = mp.get_context("spawn")
            with one_blas_thread():
                self._pool = ctx.Pool(workers, initializer=initializer, initargs=initargs)
        elif initializer is not None:
            initializer(*initargs)

    def imap(
        self, fn: Callable[..., Any], jobs: Iterable[tuple[Any, ...]], chunksize: int = 1
    ) -> Iterator[Any]:
        """``fn(*job)`` for every job, lazily, in the jobs' order."""
        if self._pool is None:
            return (fn(*job) for job in jobs)
        return self._pool.imap(_Star(fn), jobs, chunksize=chunksize)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def pool_map(
    fn: Callable[..., Any],
    jobs: Sequence[tuple[Any, ...]],
    workers: int = 1,
    progress: bool = False,
    desc: str = "",
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    threads: int = 0,
) -> list[Any]:
    """``[fn(*job) for job in jobs]``, over ``workers`` spawned processes (in this process
    for one worker or one job). ``initializer(*initargs)`` runs once in each process that
    plays jobs (this one too, when it plays them); ``progress`` shows a bar.

    ``threads > 1`` plays that many jobs at once in threads of this process instead
    (``workers`` is then unused): for players that wait on a server (language models),
    where latency, not the engine, is the cost, and whose counters stay in this process."""
    bar = tqdm(total=len(jobs), desc=desc, disable=not progress, leave=False)
    out: list[Any] = []
    try:
        _pool_map(fn, jobs, workers, initializer, initargs, threads, bar, out)
    except Exception as err:
        # What finished before a job failed (a language model's endpoint given up): the
        # caller says which games ended, and scores none of them.
        err.finished_jobs = len(out)  # type: ignore[attr-defined]
        err.total_jobs = len(jobs)  # type: ignore[attr-defined]
        bar.close()
        raise
    bar.close()
    return out


def _pool_map(
    fn: Callable[..., Any],
    jobs: Sequence[tuple[Any, ...]],
    workers: int,
    initializer: Callable[..., None] | None,
    initargs: tuple[Any, ...],
    threads: int,
    bar: Any,
    out: list[Any],
) -> None:
    if threads > 1 and len(jobs) > 1:
        if initializer is not None:
            initializer(*initargs)
        threaded = ThreadPoolExecutor(threads)
        try:
            for r in threaded.map(_Star(fn), jobs):
                out.append(r)
                bar.update()
        finally:
            threaded.shutdown(wait=True, cancel_futures=True)  # after a failure: start no more
    elif workers <= 1 or len(jobs) <= 1:
        if initializer is not None:
            initializer(*initargs)
        for job in jobs:
            out.append(fn(*job))
            bar.update()
    else:
        with WorkerPool(workers, initializer, initargs) as pool:
            chunk = max(1, min(16, len(jobs) // (workers * 8)))
            for r in pool.imap(fn, jobs, chunksize=chunk):
                out.append(r)
                bar.update()


def pool_until(
    fn: Callable[..., Any],
    job: Callable[[int], tuple[Any, ...]],
    workers: int,
    deadline: float,
    on_result: Callable[[Any], None],
    start: int = 0,
) -> int:
    """Run ``fn(*job(i))`` for ``i = start, start + 1, ...`` in ``workers`` spawned
    processes, starting no job after ``deadline`` (a ``time.time()``) and finishing those
    started; ``on_result`` gets each result as it comes. Returns the number of jobs run."""
    done_count = 0
    index = start
    ctx = mp.get_context("spawn")
    with one_blas_thread(), ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        running: set[Future[Any]] = set()
        while True:
            while len(running) < workers and time.time() < deadline:
                running.add(pool.submit(fn, *job(index)))
                index += 1
            if not running:
                break
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for f in done:
                on_result(f.result())
                done_count += 1
    return done_count
