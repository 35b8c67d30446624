"""Evaluation during training, shared by the trainers: an agent against fixed opponents
through :mod:`training.evaluate`, on a seed of the run's choosing.

- gin: duplicate deals (:func:`training.evaluate.gin_duplicate`), ``pairs`` deals each
  played twice with the seats swapped: hands won and points per hand, with 95% CIs;
- three-handed: ``pairs`` matches against two copies of the opponent
  (:func:`training.evaluate.three_handed`): match win rate (95% CI) and the points per
  hand in each role.

The result is a flat ``{"step": n, "<opponent>/<metric>": value}`` row, ready for a CSV,
TensorBoard and a learning curve. Select checkpoints on one seed and report them on
another: the selection seed's figures are biased upwards by the selection.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["evaluate_agent", "write_eval_csv", "plot_curves"]


def evaluate_agent(
    agent: Any,
    game: str,
    opponents: Sequence[str],
    pairs: int,
    seed: int,
    step: int = 0,
    workers: int = 1,
) -> dict[str, float]:
    from training import evaluate
    from training.stats import wilson_ci

    out: dict[str, float] = {"step": float(step)}
    for name in opponents:
        if game == "gin":
            res = evaluate.gin_duplicate(
                agent, name, pairs, seed=seed, workers=workers, progress=False
            )
            out[f"{name}/hand_win_rate"] = float(res["hand_win_rate"])
            out[f"{name}/points_per_hand"] = float(res["points_per_hand"])
            out[f"{name}/points_ci_low"] = float(res["ci95"][0])
            out[f"{name}/points_ci_high"] = float(res["ci95"][1])
        else:
            res = evaluate.three_handed(
                [agent, name, name], pairs, seed=seed, workers=workers, progress=False
            )["adviser_on"]
            mine = res["agents"][getattr(agent, "name", type(agent).__name__)]
            wins = round(mine["match_win_rate"] * mine["matches"])
            lo, hi = wilson_ci(wins, mine["matches"])
            out[f"{name}/match_win_rate"] = float(mine["match_win_rate"])
            out[f"{name}/match_ci_low"] = float(lo)
            out[f"{name}/match_ci_high"] = float(hi)
            for role, st in mine["roles"].items():
                if st["points_per_hand"] is not None:
                    out[f"{name}/{role}_points_per_hand"] = float(st["points_per_hand"])
                    out[f"{name}/{role}_hand_win_rate"] = float(st["hand_win_rate"])
    return out


def write_eval_csv(path: str | Path, rows: Sequence[dict[str, float]]) -> None:
    if not rows:
        return
    keys = sorted({k for r in rows for k in r}, key=lambda k: (k not in ("step", "hours"), k))
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)


def plot_curves(
    path: str | Path, rows: Sequence[dict[str, float]], metric: str, title: str
) -> Path | None:
    """``metric`` (e.g. ``hand_win_rate``) against each opponent, by decisions (left) and
    by hours of training (right, when the rows have ``hours``)."""
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted({k for r in rows for k in r if k.endswith("/" + metric)})
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, x_key, label in (
        (axes[0], "step", "learner decisions"),
        (axes[1], "hours", "hours of training"),
    ):
        xs = [r.get(x_key, np.nan) for r in rows]
        for key in keys:
            ax.plot(
                xs, [r.get(key, np.nan) for r in rows], marker="o", label=f"vs {key.split('/')[0]}"
            )
        ax.axhline(0.5 if "hand" in metric else 1 / 3, color="grey", lw=0.8, ls="--")
        ax.set_xlabel(label)
        ax.set_ylabel(metric.replace("_", " "))
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
