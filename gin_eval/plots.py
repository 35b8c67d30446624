"""The figures of the evaluation harness and of the trainers: bars with CIs, the one
learning curve of every trainer, and the three-handed duplicate figures.

matplotlib (the ``eval`` extra) is imported on first use, by :func:`pyplot`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gin_env.optional import require
from gin_eval.reports import duplicate_rows

__all__ = ["pyplot", "plot_bars", "even_level", "plot_curves", "plot_duplicate", "plot_edges"]


def pyplot(needed_for: str = "plots") -> Any:
    """``matplotlib.pyplot`` with the file backend (Agg), unless pyplot is already in use
    (a notebook keeps its own backend); a missing matplotlib names the ``eval`` extra."""
    matplotlib = require("matplotlib", needed_for=needed_for)
    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # eval extra: matplotlib

    return plt


def plot_bars(
    path: Path | None,
    labels: list[str],
    values: list[float],
    errs: list[tuple[float, float]] | None,
    title: str,
    ylabel: str,
) -> None:
    """Bars of ``values`` with their 95% CIs ``errs`` (``(low, high)``) at ``path``
    (nothing for None: ``--no-plot``)."""
    if path is None:  # --no-plot
        return
    plt = pyplot("eval plots")

    fig, ax = plt.subplots(figsize=(max(4, 1.3 * len(labels) + 2), 3.5))
    yerr = None
    if errs is not None:
        yerr = np.array(
            [
                [v - lo for v, (lo, _) in zip(values, errs, strict=True)],
                [hi - v for v, (_, hi) in zip(values, errs, strict=True)],
            ]
        )
    ax.bar(labels, values, yerr=yerr, capsize=4, color="#4472c4")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def even_level(metric: str) -> float:
    """Where an even player sits on a learning curve's ``metric``: 0 points a hand, half of
    the two-player hands, a third of the three-handed matches."""
    if "points" in metric:
        return 0.0
    return 0.5 if "hand" in metric else 1 / 3


def plot_curves(
    path: str | Path,
    rows: Sequence[dict[str, float]],
    metric: str,
    title: str,
    marks: Sequence[tuple[float, str]] = (),
) -> Path | None:
    """``metric`` (e.g. ``hand_win_rate``) against each opponent, by decisions (left) and
    by hours of training (right, when the rows have ``hours``); ``marks``: (decisions,
    label) of changes in the run (a dotted line, on the right at the first row past it)."""
    if not rows:
        return None
    plt = pyplot("learning curves")

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
        ax.axhline(even_level(metric), color="grey", lw=0.8, ls="--")
        for step, text in marks:
            # On the hours axis: the hours of the first evaluation past the change.
            x = (
                step
                if x_key == "step"
                else next((r.get(x_key, np.nan) for r in rows if r.get("step", 0) >= step), np.nan)
            )
            if np.isfinite(x):
                ax.axvline(x, color="black", lw=0.8, ls=":")
                ax.annotate(text, (x, 0.02), xycoords=("data", "axes fraction"), rotation=90,
                            fontsize=8, ha="right")  # fmt: skip
        ax.set_xlabel(label)
        ax.set_ylabel(metric.replace("_", " "))
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_duplicate(r: dict[str, Any], path: Path) -> None:
    """CI half-widths, plain versus duplicate, per agent and role (points and edge)."""
    plt = pyplot()
    rows = r["half_widths"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 3.8), sharey=True)
    labels = [f"{x['agent']}\n{x['role']}" for x in rows]
    x = np.arange(len(rows))
    for ax, key, title in zip(
        axes,
        ("points", "edge", "paired_edge"),
        (
            "points per hand in the role",
            "edge (difference of means)",
            "edge: duplicate paired by hand vs plain",
        ),
        strict=True,
    ):
        plain = [row.get(f"{key}_half_plain", np.nan) for row in rows]
        dup = [row.get(f"{key}_half_duplicate", np.nan) for row in rows]
        bars = [("plain deals", plain, "#a5a5a5"), ("duplicate", dup, "#4472c4")]
        if r.get("adjusted") and key != "edge":
            how = {"draws": "corrected, deal + draws", "value": "corrected, learned V"}.get(
                r.get("adjust") or "", "adjusted, deal"
            )
            if key == "points":
                adj = [row.get("points_adj_half_plain", np.nan) for row in rows]
                bars.insert(1, (f"plain, {how}", adj, "#d9d9d9"))
            adj = [row.get(f"{key}_adj_half_duplicate", np.nan) for row in rows]
            bars.append((f"duplicate, {how}", adj, "#a9c4eb"))
        width = 0.8 / len(bars)
        for k, (label, values, color) in enumerate(bars):
            offset = (k - (len(bars) - 1) / 2) * width
            ax.bar(x + offset, values, width, label=label, color=color)
        ax.set_xticks(x, labels, fontsize=7, rotation=30, ha="right")
        ax.set_title(f"95% CI half-width: {title}", fontsize=9)
        ax.set_ylabel("points / hand")
    axes[0].legend(fontsize=8)
    what = "matches" if r.get("unit", "match") == "match" else "single hands"
    if r.get("adjusted"):  # four bars a group: room above them for the legends
        axes[0].set_ylim(0, axes[0].get_ylim()[1] * 1.35)
        for ax in (axes[0], axes[2]):
            ax.legend(fontsize=7, ncol=2, loc="upper center")
    fig.suptitle(f"{r['matches_per_design']} {what} per design", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_edges(r: dict[str, Any], path: Path) -> None:
    """Bar plot of each agent's paired edge by role (95% CI) of a three-handed duplicate
    result (the edge over the others in the role, for the plain design)."""
    plt = pyplot()
    rows = duplicate_rows(r)
    fig, ax = plt.subplots(figsize=(max(5, 0.9 * len(rows) + 2), 3.6))
    key = "paired" if r["design"] == "duplicate" else "edge"
    vals = np.array([row[f"{key}_edge" if key == "paired" else "edge"] for row in rows])
    err = np.array(
        [[v - row[f"{key}_low"], row[f"{key}_high"] - v] for v, row in zip(vals, rows, strict=True)]
    )
    ax.bar(range(len(rows)), vals, yerr=err.T, capsize=3, color="#4472c4")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(
        range(len(rows)),
        [f"{x['agent']}\n{x['role']}" for x in rows],
        fontsize=7,
        rotation=30,
        ha="right",
    )
    ax.set_ylabel("points / hand")
    ax.set_title(f"{r['design']} three-handed: edge over the others in the role (95% CI)"
                 + (", paired by hand" if key == "paired" else ""), fontsize=9)  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
