"""The paired difference of two DMC checkpoints against one opponent on the same duplicate
deals: each deal's points per hand of arm A less arm B's, with its 95% CI (the deals are
common, so the difference's CI is narrower than the two arms' CIs side by side).

    python -m studies.dmc_paired A_CHECKPOINT B_CHECKPOINT --pairs 500 --seed 2026 --workers 2

Each arm plays exactly the deals ``python -m training.train_dmc margins ... --margins 0``
plays (``gin_eval.gin.play_gin_pair``, deal by deal), so each arm's mean here is
that command's ``points_per_hand``; one JSON line is printed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gin_env.config import GinConfig
from gin_eval.gin import play_gin_pair
from gin_eval.pool import pool_map
from gin_eval.stats import mean_ci
from training.train_dmc import load_models, to_agent


def per_deal(
    checkpoint: str, opponent: str, pairs: int, seed: int, workers: int = 1
) -> list[float]:
    models, args, _ = load_models(Path(checkpoint))
    agent = to_agent(models, args, name="dmc")
    jobs = [(agent, opponent, seed, i, GinConfig(), agent.env_options()) for i in range(pairs)]
    return [
        sum(h["a_points"] for h in r["hands"]) / 2 for r in pool_map(play_gin_pair, jobs, workers)
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m studies.dmc_paired", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("a", help="checkpoint folder of arm A")
    parser.add_argument("b", help="checkpoint folder of arm B")
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--workers", type=int, default=1, help="processes (default: 1)")
    ns = parser.parse_args(argv)
    t = time.time()
    a = per_deal(ns.a, ns.opponent, ns.pairs, ns.seed, ns.workers)
    b = per_deal(ns.b, ns.opponent, ns.pairs, ns.seed, ns.workers)
    out = {"a": ns.a, "b": ns.b, "opponent": ns.opponent, "seed": ns.seed, "pairs": ns.pairs}
    for key, sample in (
        ("a", a),
        ("b", b),
        ("a_minus_b", [x - y for x, y in zip(a, b, strict=True)]),
    ):
        m, lo, hi = mean_ci(sample)
        out[f"{key}_points_per_hand"], out[f"{key}_ci95"] = m, [lo, hi]
    out["seconds"] = round(time.time() - t)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
