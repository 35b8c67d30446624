"""The figures of the team-versus-solo studies, and redrawing them from their JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from gin_eval.plots import plot_duplicate, plot_edges, pyplot
from gin_eval.reports import or_nan
from gin_eval.stats import half_width
from studies.team_vs_solo.advice import learned_rows
from studies.team_vs_solo.files import DUPLICATE_STEMS, find_result

__all__ = ["plot_advice", "plot_follow", "plot_balance", "plot_learned", "replot"]


def plot_advice(r: dict[str, Any], path: Path | None = None, key: str = "gain") -> Any:
    """Heat map of the captain x adviser matrix: ``gain`` (or team points) with CIs; saved
    to ``path``, or the figure returned when ``path`` is None (for a notebook)."""
    plt = pyplot()
    caps = list(r["cells"])
    advs = list(next(iter(r["cells"].values())))
    ci_key = "gain_ci95" if key == "gain" else "ci95"
    val_key = "gain" if key == "gain" else "team_points_per_hand"
    v = np.array([[r["cells"][c][a].get(val_key, np.nan) for a in advs] for c in caps], float)
    fig, ax = plt.subplots(figsize=(1.5 * len(advs) + 2.5, 0.6 * len(caps) + 1.8))
    # Colours saturate at +-10 points so that gains of a few points stay visible.
    lim = min(10.0, max(1.0, float(np.nanmax(np.abs(v)))))
    im = ax.imshow(v, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
    for i, c in enumerate(caps):
        for j, a in enumerate(advs):
            cell = r["cells"][c][a]
            ci = cell.get(ci_key)
            text = f"{v[i, j]:+.1f}" + ("" if ci is None else f"\n±{half_width(ci):.1f}")
            dark = abs(v[i, j]) > 0.6 * lim
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if dark else "black")  # fmt: skip
    ax.set_xticks(range(len(advs)), advs, fontsize=8)
    ax.set_yticks(range(len(caps)), caps, fontsize=8)
    ax.set_xlabel("adviser")
    ax.set_ylabel("captain")
    what = (
        f"team points/hand gain over adviser '{r['baseline']}' (paired by deal)"
        if key == "gain"
        else "team points per hand"
    )
    ax.set_title(
        f"{what}\nbox {r['box']}, {r['hands']} hands per cell, adviser sees hand: {r['sees_hand']}",
        fontsize=8,
    )
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.tight_layout()
    if path is None:
        return fig
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def plot_follow(r: dict[str, Any], path: Path) -> None:
    """Per captain and adviser: how often the captain plays the suggestion, and the team's
    points in hands where it followed every suggestion versus overrode one."""
    plt = pyplot()
    caps = list(r["cells"])
    advs = [a for a in next(iter(r["cells"].values())) if r["cells"][caps[0]][a]["suggestions"]]
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8))
    x = np.arange(len(caps))
    width = 0.8 / max(1, len(advs))
    for j, a in enumerate(advs):
        rate = [or_nan(r["cells"][c][a]["follow_rate"]) for c in caps]
        axes[0].bar(x + j * width, rate, width, label=a)
        gap = [
            or_nan(r["cells"][c][a]["when_followed"]["team_points_per_hand"])
            - or_nan(r["cells"][c][a]["when_overrode"]["team_points_per_hand"])
            for c in caps
        ]
        axes[1].bar(x + j * width, gap, width, label=a)
    for ax in axes:
        ax.set_xticks(x + 0.4 - width / 2, caps, fontsize=8)
        ax.set_xlabel("captain")
    axes[0].set_ylabel("share of suggestions played")
    axes[0].set_title("follow rate (agreement, for captains that ignore advice)", fontsize=9)
    axes[1].set_ylabel("points / hand")
    axes[1].set_title("team points: hands followed throughout minus hands overridden",
                      fontsize=9)  # fmt: skip
    axes[1].axhline(0, color="black", lw=0.8)
    if advs:
        axes[0].legend(fontsize=7, title="adviser", title_fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_balance(r: dict[str, Any], path: Path) -> None:
    """Box share of hands and of matches per rule option, with 95% CIs."""
    plt = pyplot()
    labels = list(r["options"])
    fig, ax = plt.subplots(figsize=(10, 4))
    x = np.arange(len(labels))
    for off, key, name in ((-0.2, "box_hand_share", "hands"), (0.2, "box_match_share", "matches")):
        vals = np.array([r["options"][k][key] for k in labels])
        cis = np.array([r["options"][k][f"{key}_ci95"] for k in labels])
        ax.bar(x + off, vals, 0.4, yerr=[vals - cis[:, 0], cis[:, 1] - vals], capsize=3,
               label=f"share of {name} won by the box")  # fmt: skip
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_xticks(x, [lab.replace(" (", "\n(") for lab in labels], fontsize=7)
    ax.set_ylabel("share")
    ax.set_title(
        f"box vs team at equal skill ({r['agent']} everywhere, {r['matches']} matches each)",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_learned(r: dict[str, Any], path: Path) -> None:
    """The gain from advice over the muted adviser (95% CI, paired by deal) of every
    trained captain with each adviser: bars, fixed-adviser captains then the cross-play."""
    plt = pyplot()
    rows = [x for x in learned_rows(r) if x["adviser"] != "muted"]
    fig, ax = plt.subplots(figsize=(max(7.0, 0.8 * len(rows) + 2), 3.8))
    vals = np.array([x["gain"] for x in rows])
    err = np.array([[x["gain"] - x["gain_low"], x["gain_high"] - x["gain"]] for x in rows])
    colors = ["#4472c4" if x["group"] == "fixed" else
              ("#70ad47" if x["captain"] == x["adviser"] else "#ed7d31") for x in rows]  # fmt: skip
    ax.bar(range(len(rows)), vals, yerr=err.T, capsize=3, color=colors)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(range(len(rows)), [f"{x['captain']}\n+ {x['adviser']}" for x in rows],
                  fontsize=7, rotation=30, ha="right")  # fmt: skip
    ax.set_ylabel("team points/hand: advised - muted")
    ax.set_title(f"Trained captains: gain from advice (95% CI, paired by deal), box {r['box']}, "
                 f"{r['hands']} hands\nblue: fixed L2 adviser; green: own adviser; "
                 "orange: another seed's", fontsize=8)  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def replot(out: Path) -> list[Path]:
    """Redraw every ``team_*.png`` whose JSON is in ``out`` or a folder under it (each
    figure beside its JSON); return the figures drawn."""
    drawn: list[Path] = []

    def load(stem: str) -> tuple[dict[str, Any], Path] | None:
        path = find_result(out, stem)
        return None if path is None else (json.loads(path.read_text()), path.parent)

    def draw(plot: Any, r: dict[str, Any], path: Path) -> None:
        plot(r, path)
        drawn.append(path)

    for stem in DUPLICATE_STEMS:
        if (found := load(stem)) is not None:
            r, at = found
            draw(plot_duplicate, r, at / f"{stem}.png")
            draw(plot_edges, r["duplicate"], at / f"{stem}_edges.png")
    for stem, plots in (
        ("team_advice", ((plot_advice, "team_advice"), (plot_follow, "team_follow"))),
        ("team_ablations", ((plot_advice, "team_ablations"),)),
        ("team_hidden", ((plot_advice, "team_hidden"),)),
        ("team_balance", ((plot_balance, "team_balance"),)),
        ("team_learned", ((plot_learned, "team_learned"),)),
    ):
        if (found := load(stem)) is not None:
            r, at = found
            for plot, name in plots:
                draw(plot, r, at / f"{name}.png")
    return drawn
