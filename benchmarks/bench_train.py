"""Learner decisions per second, end to end, of the trainers side by side in one run.

Each contender is a real training run through its trainer's ``train`` (acting, learning,
bookkeeping; no evaluation, one checkpoint at the end), on two-player gin:

- ``ppo``: ``training.train_ppo`` (sb3-contrib MaskablePPO on the league env, 4 envs, its
  default network and rollout sizes), the path the project had;
- ``dmc``: ``training.train_dmc`` with the action encoding ``basic`` on the compiled
  batched engine (``--backend`` numba by default), 256 games, network 256-256-256;
- ``dmc-l2``: the same with ``features=l2`` (L2, compiled, runs at every learner decision);
- ``dmc-vs-l2``: ``basic`` with L2 opponents (compiled) in half of the hands
  (``opponent_share=0.5``, ``opponents=heuristic``), the learner in the other seat;
- ``dmc-py``: ``basic`` on the python backend of the engine (optional: ``--python``);
- ``dmc-l2-py`` / ``dmc-vs-l2-py``: ``dmc-l2`` and ``dmc-vs-l2`` with the Python L2 row by
  row in place of the compiled one (the path before it; optional: ``--python-l2``).
- ``dmc-actors`` / ``dmc-vs-l2-actors``: ``dmc`` and ``dmc-vs-l2`` with ``--actors`` actor
  processes feeding the learner (:mod:`training.dmc_actors`; ``--actors 0`` skips them).

CPU seconds count the actor processes too (``RUSAGE_CHILDREN``); with actors the wall-time
rate is the one that says what the run gains.

Rates are decisions per second of this process's CPU time (``time.process_time``: a
shared machine skews them less than wall time), with the wall-time rate beside, and the
ratio of each to PPO in the same run. The torch thread count is 1 for every contender.
Run ``python benchmarks/bench_train.py --steps 40000``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import agents  # noqa: E402
import agents.batched  # noqa: E402
from agents.batched import PerRow  # noqa: E402
from gin_env.config import Table  # noqa: E402

__all__ = ["run_ppo", "run_dmc", "main"]


def run_ppo(steps: int, folder: Path) -> dict[str, float]:
    from training.train_ppo import Args, train  # train extra: the trainer needs torch, sb3

    args = Args(
        run_dir=str(folder / "ppo"),
        total_steps=steps,
        eval_every=10**12,
        gate_every=10**12,
        checkpoint_every=10**12,
        progress=False,
        seed=1,
    )
    return _timed(lambda: train(args)["num_timesteps"])


def run_dmc(
    steps: int,
    folder: Path,
    features: str,
    backend: str,
    opponent_share: float = 0.0,
    actors: int = 0,
) -> dict[str, float]:
    from training.train_dmc import Args, train  # train extra: the trainer needs torch

    args = Args(
        run_dir=str(folder / f"dmc-{features}-{backend}-{opponent_share}-{actors}"),
        actors=actors,
        total_steps=steps,
        backend=backend,
        features=features,
        opponent_share=opponent_share,
        opponents="heuristic",
        eval_every=10**12,
        checkpoint_every=10**12,
        progress=False,
        seed=1,
        keep_best=False,
    )
    return _timed(lambda: train(args)["steps"])


def python_l2(spec: str, table: Table) -> Any:
    """``seat_batched`` as it was before L2 was compiled: L2 row by row (for ``--python-l2``)."""
    return PerRow(agents.seat(spec, table), name=spec)


def _cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def _timed(fn: Any) -> dict[str, float]:
    cpu, wall = _cpu(), time.perf_counter()
    steps = fn()
    cpu, wall = _cpu() - cpu, time.perf_counter() - wall
    return {
        "steps": float(steps),
        "cpu_s": cpu,
        "wall_s": wall,
        "per_cpu_s": steps / cpu,
        "per_wall_s": steps / wall,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--steps", type=int, default=40_000, help="decisions per DMC contender")
    parser.add_argument("--ppo-steps", type=int, default=8_192, help="decisions for PPO")
    parser.add_argument("--backend", default="numba", help="engine backend of the DMC runs")
    parser.add_argument("--python", action="store_true", help="also DMC on the python backend")
    parser.add_argument(
        "--python-l2", action="store_true", help="also the L2 runs with the Python L2 row by row"
    )
    parser.add_argument("--actors", type=int, default=1, help="actor processes (0: skip those)")
    parser.add_argument("--no-ppo", action="store_true", help="skip PPO (ratios to DMC instead)")
    ns = parser.parse_args(argv)
    import torch  # train extra: torch

    torch.set_num_threads(1)
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run_dmc(2_000, folder / "warmup", "basic", ns.backend)  # compile / import once
        if not ns.no_ppo:
            rows["ppo"] = run_ppo(ns.ppo_steps, folder)
        rows["dmc"] = run_dmc(ns.steps, folder, "basic", ns.backend)
        rows["dmc-l2"] = run_dmc(ns.steps, folder, "l2", ns.backend)
        rows["dmc-vs-l2"] = run_dmc(ns.steps, folder, "basic", ns.backend, opponent_share=0.5)
        if ns.actors:
            rows["dmc-actors"] = run_dmc(ns.steps, folder, "basic", ns.backend, 0.0, ns.actors)
            rows["dmc-vs-l2-actors"] = run_dmc(
                ns.steps, folder, "basic", ns.backend, 0.5, ns.actors
            )
        if ns.python:
            rows["dmc-py"] = run_dmc(ns.steps, folder, "basic", "python")
        if ns.python_l2:
            compiled = agents.batched.seat_batched
            agents.batched.seat_batched = python_l2  # type: ignore[assignment]
            try:
                steps = max(2_000, ns.steps // 4)
                rows["dmc-l2-py"] = run_dmc(steps, folder, "l2", ns.backend)
                rows["dmc-vs-l2-py"] = run_dmc(steps, folder, "basic", ns.backend, 0.5)
            finally:
                agents.batched.seat_batched = compiled
    ref = "dmc" if ns.no_ppo else "ppo"
    base = rows[ref]["per_cpu_s"]
    print(f"{'trainer':<17} {'decisions':>10} {'per CPU s':>10} {'per wall s':>11} {'x ' + ref:>7}")
    for name, r in rows.items():
        print(
            f"{name:<17} {int(r['steps']):>10,} {r['per_cpu_s']:>10,.0f} "
            f"{r['per_wall_s']:>11,.0f} {r['per_cpu_s'] / base:>7.1f}"
        )
    for name in ("dmc-l2", "dmc-vs-l2"):
        if f"{name}-py" in rows:
            ratio = rows[name]["per_cpu_s"] / rows[f"{name}-py"]["per_cpu_s"]
            print(f"{name}: compiled L2 / Python L2 = {ratio:.1f}x per CPU s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
