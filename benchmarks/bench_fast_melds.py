"""Speed of the compiled rule kernels (gin_env.fast_melds) beside the reference and OpenSpiel.

Run ``python benchmarks/bench_fast_melds.py [--seconds S] [--no-compile]``. For deadwood,
discard deadwoods and the showdown it prints calls per second of

- the readable reference, ``gin_env.melds`` (pure Python);
- the numba kernel called once per hand from Python (dispatch overhead included);
- the numba kernel called from a compiled loop over an array of hands, one output buffer
  reused (how the batched engine calls it);
- OpenSpiel's ``GinRummyUtils(13, 4, 10).min_deadwood`` where it answers the same question
  (when ``pyspiel`` is installed: ``pip install open_spiel``);

with the ratios of the compiled figure to the reference and to OpenSpiel. The inputs are
seeded random hands, each new to the call (the kernels keep no cache). Unless
``--no-compile``, it also times the first calls in fresh processes: with an empty numba
cache (the compile) and again with the cache just written.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gin_env import fast_melds as F  # noqa: E402
from gin_env.melds import deadwood_mask, discard_deadwoods, showdown  # noqa: E402

SEED = 12345
# OpenSpiel's suits are s, c, d, h; ours S, H, D, C.
_TO_OPEN_SPIEL_SUIT = (0, 3, 2, 1)

_FIRST_CALLS = """
import time
t0 = time.perf_counter()
import numpy as np
from gin_env import fast_melds as F
t1 = time.perf_counter()
F.deadwood_nb(7)
F.discard_deadwoods_nb(7, np.empty(52, dtype=np.int64))
F.showdown_nb(0b111 | 0b111 << 13 | 0b111 << 26 | 1 << 3, 1 << 51, 10, 25, 10)
t2 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f}")
"""


@numba.njit
def _deadwood_loop(hands: np.ndarray) -> int:
    acc = 0
    for i in range(hands.shape[0]):
        acc += F.deadwood_nb(hands[i])
    return acc


@numba.njit
def _discard_loop(hands: np.ndarray) -> int:
    out = np.empty(52, dtype=np.int64)  # one buffer, reused, as the engine does
    acc = 0
    for i in range(hands.shape[0]):
        F.discard_deadwoods_nb(hands[i], out)
        acc += out.max()
    return acc


@numba.njit
def _showdown_loop(knockers: np.ndarray, defenders: np.ndarray) -> int:
    acc = 0
    for i in range(knockers.shape[0]):
        acc += F.showdown_nb(knockers[i], defenders[i], 10, 25, 10)[1]
    return acc


def rate(run: Callable[[int], int], seconds: float) -> float:
    """Units per second: ``run(i)`` does some work on input ``i`` and returns its units."""
    done = 0
    i = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        done += run(i)
        i += 1
        if (i & 15) == 0 and time.perf_counter() >= deadline:
            break
    return done / (time.perf_counter() - start)


def random_masks(n_cards: int, count: int, seed: int) -> tuple[np.ndarray, list[list[int]]]:
    rng = random.Random(seed * 100 + n_cards)
    hands = [rng.sample(range(52), n_cards) for _ in range(count)]
    masks = np.array([sum(1 << c for c in h) for h in hands], dtype=np.int64)
    return masks, hands


def knockable_pairs(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random deals where the first 11 cards can knock: the knocker discards his best card."""
    rng = np.random.default_rng(seed)
    knockers: list[int] = []
    defenders: list[int] = []
    bits = np.int64(1) << np.arange(52, dtype=np.int64)
    while len(knockers) < count:
        deals = rng.permuted(np.tile(np.arange(52), (20_000, 1)), axis=1)[:, :21]
        elevens = bits[deals[:, :11]].sum(axis=1)
        tens = bits[deals[:, 11:]].sum(axis=1)
        dws = F.discard_deadwoods_batch(elevens)
        dws[dws < 0] = 1 << 30
        best = dws.argmin(axis=1)
        ok = dws[np.arange(len(best)), best] <= 10
        for e, d, c in zip(elevens[ok], tens[ok], best[ok], strict=True):
            knockers.append(int(e) & ~(1 << int(c)))
            defenders.append(int(d))
    return (
        np.array(knockers[:count], dtype=np.int64),
        np.array(defenders[:count], dtype=np.int64),
    )


def first_call_times() -> tuple[tuple[float, float], tuple[float, float]]:
    """(import s, first calls s) in a fresh process with an empty numba cache, then again."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        out = []
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-c", _FIRST_CALLS],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            a, b = done.stdout.split()
            out.append((float(a), float(b)))
    return out[0], out[1]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="time per measurement (default 1)"
    )
    parser.add_argument(
        "--no-compile", action="store_true", help="skip timing the compile in fresh processes"
    )
    args = parser.parse_args(argv)
    seconds = args.seconds
    try:
        import pyspiel  # type: ignore[import-not-found]  # bench extra: open_spiel

        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    except ImportError:
        utils = None

    if not args.no_compile:
        (cold_import, cold_calls), (warm_import, warm_calls) = first_call_times()
        print(
            f"first calls of the three kernels: {cold_calls:.2f} s compiling "
            f"(empty cache; import {cold_import:.2f} s), {warm_calls:.3f} s from the cache "
            f"(import {warm_import:.2f} s)"
        )

    n = 100_000
    masks10, hands10 = random_masks(10, n, SEED)
    masks11, hands11 = random_masks(11, n, SEED + 1)
    knockers, defenders = knockable_pairs(2_000, SEED + 2)
    py10 = masks10.tolist()
    py11 = masks11.tolist()
    pk, pd = knockers.tolist(), defenders.tolist()
    out52 = np.empty(52, dtype=np.int64)
    # Warm every kernel up (compile or load) outside the timed loops.
    _deadwood_loop(masks10[:10])
    _discard_loop(masks11[:10])
    _showdown_loop(knockers[:10], defenders[:10])
    F.showdown_nb(pk[0], pd[0], 10, 25, 10)

    def batch_rate(fn: Callable[[], object], count: int) -> float:
        start = time.perf_counter()
        reps = 0
        while True:
            fn()
            reps += 1
            if time.perf_counter() - start >= seconds:
                break
        return reps * count / (time.perf_counter() - start)

    def open_spiel(hands: list[list[int]]) -> float | None:
        if utils is None:
            return None
        os_hands = [[_TO_OPEN_SPIEL_SUIT[c // 13] * 13 + c % 13 for c in h] for h in hands]
        return rate(lambda i: (utils.min_deadwood(os_hands[i % n]), 1)[1], seconds)

    rows: list[tuple[str, float, float, float, float | None]] = [
        (
            "deadwood, 10 cards",
            rate(lambda i: (deadwood_mask(py10[i % n]), 1)[1], seconds),
            rate(lambda i: (F.deadwood_nb(py10[i % n]), 1)[1], seconds),
            batch_rate(lambda: _deadwood_loop(masks10), n),
            open_spiel(hands10),
        ),
        (
            "deadwood, 11 cards",
            rate(lambda i: (deadwood_mask(py11[i % n]), 1)[1], seconds),
            rate(lambda i: (F.deadwood_nb(py11[i % n]), 1)[1], seconds),
            batch_rate(lambda: _deadwood_loop(masks11), n),
            None,
        ),
        # OpenSpiel's 11-card min_deadwood is the deadwood after the best discard: what
        # discard_deadwoods answers (for all 11 discards at once).
        (
            "discard_deadwoods, 11 cards",
            rate(lambda i: (discard_deadwoods(py11[i % n]), 1)[1], seconds),
            rate(lambda i: (F.discard_deadwoods_nb(py11[i % n], out52), 1)[1], seconds),
            batch_rate(lambda: _discard_loop(masks11), n),
            open_spiel(hands11),
        ),
        (
            "showdown (knockable deals)",
            rate(lambda i: (showdown(pk[i % len(pk)], pd[i % len(pd)]), 1)[1], seconds),
            rate(
                lambda i: (F.showdown_nb(pk[i % len(pk)], pd[i % len(pd)], 10, 25, 10), 1)[1],
                seconds,
            ),  # fmt: skip
            batch_rate(lambda: _showdown_loop(knockers, defenders), len(pk)),
            None,
        ),
    ]

    width = max(len(r[0]) for r in rows)
    header = (
        f"{'calls per second':<{width}}  {'melds.py':>10}  {'nb/call':>11}  {'nb compiled':>12}"
        f"  {'OpenSpiel':>10}  {'compiled/ref':>12}  {'compiled/OS':>11}"
    )
    print(header)
    print("-" * len(header))
    for label, ref, per_call, compiled, theirs in rows:
        line = (
            f"{label:<{width}}  {ref:>10,.0f}  {per_call:>11,.0f}  {compiled:>12,.0f}"
            f"  {'-' if theirs is None else f'{theirs:,.0f}':>10}  {compiled / ref:>11.1f}x"
            f"  {'-' if theirs is None else f'{compiled / theirs:.1f}x':>11}"
        )
        print(line)
    if utils is None:
        print("(OpenSpiel not installed: pip install open_spiel to compare)")
    print(
        "nb/call: one kernel call per hand from Python; nb compiled: the kernel in a compiled "
        "loop over an array of hands, as the batched engine calls it."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
