"""Tables of results: plain text for the terminal, and the small formatters the markdown
reports of the studies share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from gin_env.match import ROLE_NAMES
from gin_eval.stats import half_width, wilson_ci

__all__ = ["text_table", "plus_minus", "or_nan", "duplicate_rows", "rate_ci", "three_table"]


def text_table(
    rows: Iterable[dict[str, Any]], formats: Mapping[str, Callable[[Any], str]] | None = None
) -> str:
    """Right-aligned columns (the first row's keys), floats to three decimals, or as
    ``formats`` says for a column (a function of the value).

    >>> print(text_table([{"agent": "L2", "pts": 1.5}]))
    agent    pts
       L2  1.500
    """
    rows = list(rows)
    if not rows:
        return ""
    cols = list(rows[0])
    formats = formats or {}

    def fmt(c: str, v: Any) -> str:
        if c in formats:
            return formats[c](v)
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    width = {c: max(len(c), *(len(fmt(c, r[c])) for r in rows)) for c in cols}
    lines = ["  ".join(c.rjust(width[c]) for c in cols)]
    lines += ["  ".join(fmt(c, r[c]).rjust(width[c]) for c in cols) for r in rows]
    return "\n".join(lines)


def plus_minus(ci: Sequence[float] | None) -> str:
    """``" ± h"``, the half-width of a 95% CI to two decimals (empty for None)."""
    return "" if ci is None else f" ± {half_width(ci):.2f}"


def or_nan(x: float | None) -> float:
    """``x`` as a float, NaN for None (for CSV columns and plots)."""
    return float("nan") if x is None else float(x)


def duplicate_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The CSV rows of a three-handed duplicate result
    (:func:`gin_eval.duplicate.duplicate_three`): one per agent and role."""
    rows = []
    for name in r["agents"]:
        st = r["per_agent"][name]
        for role in ROLE_NAMES:
            x = st["roles"][role]
            if not x.get("hands"):
                continue
            rows.append(
                {
                    "design": r["design"],
                    "agent": name,
                    "match_win": or_nan(st["match_win_rate"]),
                    "match_win_low": or_nan((st["match_win_rate_ci95"] or [None])[0]),
                    "match_win_high": or_nan((st["match_win_rate_ci95"] or [None, None])[1]),
                    "role": role,
                    "hands": x["hands"],
                    "hand_win": x["hand_win_rate"],
                    "pts": x["points_per_hand"],
                    "pts_low": x["ci95"][0],
                    "pts_high": x["ci95"][1],
                    "edge": or_nan(x["edge"]),
                    "edge_low": or_nan(x["edge_ci95"][0] if x["edge_ci95"] else None),
                    "edge_high": or_nan(x["edge_ci95"][1] if x["edge_ci95"] else None),
                    "paired_hands": x["paired_hands"],
                    "paired_edge": or_nan(x["paired_edge"]),
                    "paired_low": or_nan(
                        x["paired_edge_ci95"][0] if x["paired_edge_ci95"] else None
                    ),
                    "paired_high": or_nan(
                        x["paired_edge_ci95"][1] if x["paired_edge_ci95"] else None
                    ),
                }
            )
            if "adjusted_ci95" in x:
                adj_pe = x.get("adjusted_paired_edge_ci95") or [None, None]
                rows[-1].update(
                    adj_pts=x["adjusted_points_per_hand"],
                    adj_pts_low=x["adjusted_ci95"][0],
                    adj_pts_high=x["adjusted_ci95"][1],
                    adj_paired_edge=or_nan(x.get("adjusted_paired_edge")),
                    adj_paired_low=or_nan(adj_pe[0]),
                    adj_paired_high=or_nan(adj_pe[1]),
                )
    return rows


def rate_ci(rate: float | None, n: int) -> str:
    """``"45.7% [41.3, 50.1]"``: a rate of ``n`` trials with its 95% Wilson CI; ``-``
    without trials.

    >>> rate_ci(0.5, 10)
    '50.0% [23.7, 76.3]'
    """
    if rate is None or not n:
        return "-"
    lo, hi = wilson_ci(min(n, max(0, round(rate * n))), n)
    return f"{rate:.1%} [{100 * lo:.1f}, {100 * hi:.1f}]"


def three_table(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The terminal table of plain three-handed matches
    (:func:`gin_eval.three_handed.three_handed`): per adviser mode, agent and role, how
    many hands the agent played in the role, the hands it (its side) won and its points
    per hand, each with its 95% CI, beside its matches won (95% Wilson CI) on the agent's
    first row. The CSV keeps its own columns."""
    rows = []
    for mode in ("adviser_on", "adviser_off"):
        if mode not in r:
            continue
        for name, st in r[mode]["agents"].items():
            for k, role in enumerate(ROLE_NAMES):
                x = st["roles"][role]
                ci = x.get("ci95")
                pts = x.get("points_per_hand")
                points = "-" if pts is None else f"{pts:+.2f}"
                if pts is not None and ci is not None:
                    points += f" [{ci[0]:+.2f}, {ci[1]:+.2f}]"
                rows.append(
                    {
                        "adviser": mode[8:] if k == 0 else "",
                        "agent": name if k == 0 else "",
                        "matches": str(st["matches"]) if k == 0 else "",
                        "matches won": rate_ci(st["match_win_rate"], st["matches"])
                        if k == 0
                        else "",
                        "role": role,
                        "hands": str(x.get("hands", 0)),
                        "hands won": rate_ci(x.get("hand_win_rate"), x.get("hands", 0)),
                        "points per hand": points,
                    }
                )
    return rows
