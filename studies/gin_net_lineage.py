"""gin-net's whole lineage in one figure: the run carried on from gin-1h (results/gin_net)
and its branch against L2 alone (results/gin_net_l2), points a hand on the selection seed.

    python -m studies.gin_net_lineage   # writes results/gin_net/lineage.png

Reads only the committed checkpoints' state files (their evaluations are data)."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _state(folder: str) -> dict:
    return json.loads((ROOT / folder / "resume" / "state.json").read_text())


def main(out: Path = ROOT / "results" / "gin_net" / "lineage.png") -> Path:
    """Draw the figure into ``out``; returns it."""
    run, branch = _state("results/gin_net"), _state("results/gin_net_l2")
    run_evals, branch_evals = run["evals"], branch["evals"]
    # gin-1h's decisions before the run started from its (finished) checkpoint, and the
    # run's decisions when the branch started from it, as the branch recorded them.
    gin_1h = _state("results/gin_1h")["steps"]
    start = branch["started_from"]["steps"]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for key, colour in (("heuristic", "tab:blue"), ("simple", "tab:orange")):
        xs = [(gin_1h + e["step"]) / 1e6 for e in run_evals]
        ax.plot(xs, [e[f"{key}/points_per_hand"] for e in run_evals], "o-", ms=3, color=colour,
                label=f"vs {key}, against L1 and L2")  # fmt: skip
        xs = [(gin_1h + start + e["step"]) / 1e6 for e in branch_evals]
        ax.plot(xs, [e[f"{key}/points_per_hand"] for e in branch_evals], "s--", ms=3,
                color=colour, label=f"vs {key}, branch against L2 alone")  # fmt: skip
    for step, rate in run["learning_rates"][1:]:
        ax.axvline((gin_1h + step) / 1e6, color="grey", lw=0.8, ls=":")
        ax.text((gin_1h + step) / 1e6, ax.get_ylim()[1], f" lr {rate:g}", va="top", fontsize=8)
    ax.axvline((gin_1h + start) / 1e6, color="grey", lw=0.8, ls="-.")
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xlabel("learner decisions from scratch (millions; gin-1h's hour first)")
    ax.set_ylabel("points a hand, selection seed 10007")
    ax.set_title("gin-net: 300 pairs a point to 74 M, 1,000 after")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    return out


if __name__ == "__main__":
    print(main())
