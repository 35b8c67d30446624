"""The DMC action encoding's deadwood column: the batch over the compiled kernels
(:func:`agents.dmc.pair_deadwoods`) side by side with the row-by-row reference
(:func:`agents.dmc.pair_deadwoods_reference`), on the same positions of random play.

Run ``python benchmarks/bench_dmc_features.py --batches 60``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import dmc  # noqa: E402
from gin_env.vector import VectorGinEnv  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--batches", type=int, default=60, help="positions: batches of --rows")
    parser.add_argument("--rows", type=int, default=256, help="games per batch")
    ns = parser.parse_args(argv)
    env = VectorGinEnv(ns.rows, "gin", seed=1, backend="numba")
    out = env.reset()
    rng = np.random.default_rng(0)
    batches = []
    for _ in range(ns.batches):
        batches.append((out["observation"].copy(), np.nonzero(out["action_mask"])))
        out = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in out["action_mask"]]))
    dmc.pair_deadwoods(batches[0][0], *batches[0][1])  # load the compiled kernels once
    times = {}
    for fn in (dmc.pair_deadwoods, dmc.pair_deadwoods_reference):
        t = time.process_time()
        for obs, (rows, acts) in batches:
            fn(obs, rows, acts)
        times[fn.__name__] = (time.process_time() - t) / ns.batches
    base = times["pair_deadwoods_reference"]
    for name, sec in times.items():
        print(f"{name:<26} {sec * 1000:8.2f} ms CPU per {ns.rows} rows  x{base / sec:6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
