"""Tables of results: plain text for the terminal, and the small formatters the markdown
reports of the studies share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from gin_env.match import ROLE_NAMES
from gin_eval.stats import half_width

__all__ = ["text_table", "plus_minus", "or_nan", "duplicate_rows"]


def text_table(rows: Iterable[dict[str, Any]]) -> str:
    """Right-aligned columns (the first row's keys), floats to three decimals.

    >>> print(text_table([{"agent": "L2", "pts": 1.5}]))
    agent    pts
       L2  1.500
    """
    rows = list(rows)
    if not rows:
        return ""
    cols = list(rows[0])

    def fmt(v: Any) -> str:
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    width = {c: max(len(c), *(len(fmt(r[c])) for r in rows)) for c in cols}
    lines = ["  ".join(c.rjust(width[c]) for c in cols)]
    lines += ["  ".join(fmt(r[c]).rjust(width[c]) for c in cols) for r in rows]
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
