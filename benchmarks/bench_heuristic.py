"""The compiled L2 against the Python L2 in one run, and a learner's decisions per second
with L2 opponents on the batched engine.

1. L2's decisions per CPU second on the same rows: the reference
   (:class:`agents.heuristic.HeuristicAgent`, row by row through :class:`agents.batched.PerRow`)
   and the compiled :class:`agents.heuristic_batched.BatchedHeuristic` (batches of
   ``--batch`` rows), its ratio to the reference, and a check that both played the same
   moves. The rows are every decision L2 met in games of L2 against itself (gin and
   three-handed, default rules and the EAAI table, default and widened parameters), so the
   mix of forced moves, draws and discards is play's.
2. :class:`agents.vector.LearnerVectorEnv` (``--envs`` games, random learner moves): learner
   decisions per CPU second against ``simple``, the compiled ``heuristic``, and the Python
   L2 row by row (the path before the compiled one), side by side.

DMC's own rate with L2 opponents is ``benchmarks/bench_train.py`` (``dmc-vs-l2``).
Rates are per second of this process's CPU time (``time.process_time``), wall time beside.
Run ``python benchmarks/bench_heuristic.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.batched import PerRow  # noqa: E402
from agents.heuristic import HeuristicAgent, HeuristicParams  # noqa: E402
from agents.heuristic_batched import BatchedHeuristic  # noqa: E402
from agents.vector import LearnerVectorEnv  # noqa: E402
from gin_env.config import HandRules  # noqa: E402
from gin_env.vector import VectorGinEnv  # noqa: E402

__all__ = ["collect_rows", "time_l2", "time_learner", "main"]

EAAI = HandRules(gin_bonus=25, undercut_bonus=25, allow_discard_of_taken_card=True)
WIDE = HeuristicParams(knock_bend=2.0, knock_undercut=-2.0, take_margin_late=1.0, danger_took=1.0)


def collect_rows(
    game: str, rules: HandRules, params: HeuristicParams, n_envs: int, steps: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Every decision of ``steps`` steps of ``n_envs`` games of L2 against itself, at a
    table of ``rules``."""
    env = VectorGinEnv(n_envs, game, seed=seed, **dataclasses.asdict(rules))
    l2 = BatchedHeuristic(params, rules)
    out = env.reset()
    obs, masks = [], []
    for _ in range(steps):
        obs.append(out["observation"])
        masks.append(out["action_mask"])
        out = env.step(l2.act(out["observation"], out["action_mask"]))
    return np.concatenate(obs), np.concatenate(masks)


def _clock(fn: Any, min_cpu: float) -> tuple[Any, float, float, int]:
    """Runs ``fn`` until ``min_cpu`` CPU seconds: (last result, CPU s, wall s, calls)."""
    cpu, wall, calls = time.process_time(), time.perf_counter(), 0
    while True:
        result = fn()
        calls += 1
        if time.process_time() - cpu >= min_cpu:
            return result, time.process_time() - cpu, time.perf_counter() - wall, calls


def time_l2(
    obs: np.ndarray, masks: np.ndarray, params: HeuristicParams, rules: HandRules,
    batch: int, min_cpu: float,
) -> dict[str, float]:  # fmt: skip
    ref = PerRow(HeuristicAgent(params, rules))
    fast = BatchedHeuristic(params, rules)
    n = len(obs)
    want, cpu_ref, wall_ref, k_ref = _clock(lambda: ref.act(obs, masks), min_cpu)

    def compiled() -> np.ndarray:
        return np.concatenate(
            [fast.act(obs[i : i + batch], masks[i : i + batch]) for i in range(0, n, batch)]
        )

    got, cpu_fast, wall_fast, k_fast = _clock(compiled, min_cpu)
    return {
        "rows": n,
        "same": float(np.array_equal(want, got)),
        "python_per_cpu_s": n * k_ref / cpu_ref,
        "python_per_wall_s": n * k_ref / wall_ref,
        "compiled_per_cpu_s": n * k_fast / cpu_fast,
        "compiled_per_wall_s": n * k_fast / wall_fast,
    }


def time_learner(n_envs: int, opponents: Any, steps: int) -> dict[str, float]:
    """Learner decisions per second of a LearnerVectorEnv with random learner moves."""
    env = LearnerVectorEnv(n_envs, "gin", opponents=opponents, seed=5, episode="hand")
    rng = np.random.default_rng(0)
    env.reset(seed=5)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(steps):
        masks = env.action_masks()
        pick = rng.random(masks.shape) * masks
        env.step(np.argmax(pick, axis=1))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"per_cpu_s": n_envs * steps / cpu, "per_wall_s": n_envs * steps / wall}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--envs", type=int, default=64, help="games collected / stepped at once")
    parser.add_argument("--steps", type=int, default=60, help="steps of play per row set")
    parser.add_argument("--batch", type=int, default=256, help="rows per compiled call")
    parser.add_argument("--cpu", type=float, default=2.0, help="CPU seconds per timing")
    parser.add_argument("--learner-steps", type=int, default=60, help="LearnerVectorEnv steps")
    ns = parser.parse_args(argv)

    # Compile / load the kernels once, outside the timings.
    obs, masks = collect_rows("gin", {}, HeuristicParams(), 4, 4, 0)
    BatchedHeuristic().act(obs, masks)

    print("L2 decisions per second, Python reference vs compiled, same rows")
    print(
        f"{'rows':<32} {'n':>6} {'Python/cpu s':>13} {'compiled/cpu s':>15} {'ratio':>7}"
        f" {'(wall ratio)':>13} same"
    )
    total = {"python": 0.0, "compiled": 0.0}
    for game in ("gin", "three_handed"):
        for rname, rules in (("default", HandRules()), ("eaai", EAAI)):
            for pname, params in (("defaults", HeuristicParams()), ("widened", WIDE)):
                obs, masks = collect_rows(game, rules, params, ns.envs, ns.steps, 11)
                r = time_l2(obs, masks, params, rules, ns.batch, ns.cpu)
                total["python"] += r["rows"] / r["python_per_cpu_s"]
                total["compiled"] += r["rows"] / r["compiled_per_cpu_s"]
                ratio = r["compiled_per_cpu_s"] / r["python_per_cpu_s"]
                wall = r["compiled_per_wall_s"] / r["python_per_wall_s"]
                label = f"{game}/{rname}/{pname}"
                print(
                    f"{label:<32} {int(r['rows']):>6} {r['python_per_cpu_s']:>13,.0f}"
                    f" {r['compiled_per_cpu_s']:>15,.0f} {ratio:>6.1f}x {wall:>12.1f}x"
                    f" {'yes' if r['same'] else 'NO'}"
                )
    print(f"all row sets: compiled / Python = {total['python'] / total['compiled']:.1f}x CPU time")

    print(f"\nLearnerVectorEnv, {ns.envs} gin games, learner decisions per second")
    rates = {
        label: time_learner(ns.envs, opp, ns.learner_steps)
        for label, opp in (
            ("simple (batched L1)", "simple"),
            ("heuristic (compiled L2)", "heuristic"),
            ("Python L2 row by row", PerRow(HeuristicAgent())),
        )
    }
    slow = rates["Python L2 row by row"]["per_cpu_s"]
    for label, r in rates.items():
        print(
            f"{label:<26} {r['per_cpu_s']:>9,.0f}/cpu s {r['per_wall_s']:>9,.0f}/wall s"
            f"  {r['per_cpu_s'] / slow:>5.1f}x the Python L2's"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
