"""Box against team at equal skill: one agent in every seat, matches under rule options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gin_env.config import ThreeHandedConfig, table_changes
from gin_env.match import ROLE_NAMES
from gin_eval.checks import AgentSpec, OptionError, check_count, label_of
from gin_eval.luck import (
    check_three,
)
from gin_eval.play import play_seated_match
from gin_eval.pool import pool_map
from gin_eval.stats import cluster_ratio_ci, wilson_ci

__all__ = ["BALANCE_OPTIONS", "balance", "balance_rows"]


#: The tables of the balance study, by label.
BALANCE_OPTIONS: dict[str, ThreeHandedConfig] = {
    "standard (undercut 10, knock 10, advice on)": ThreeHandedConfig(),
    "undercut bonus 0": ThreeHandedConfig(undercut_bonus=0),
    "undercut bonus 25": ThreeHandedConfig(undercut_bonus=25),
    "knock limit 5": ThreeHandedConfig(knock_limit=5),
    "knock limit 0 (gin only)": ThreeHandedConfig(knock_limit=0),
    "adviser off": ThreeHandedConfig(adviser="none"),
}


def balance(
    matches: int,
    options: Mapping[str, ThreeHandedConfig] | None = None,
    agent: AgentSpec = "heuristic",
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
) -> dict[str, Any]:
    """``agent`` in every seat, ``matches`` matches at each table of ``options`` (label ->
    table; default :data:`BALANCE_OPTIONS`) on the same seeds.

    Per option: the share of hands the box wins / the team wins / drawn and the box's points
    per hand (95% CIs clustered by match), the share of matches won by a player who held the
    box in the deciding hand, and the match win rate of the player who started in each role
    (Wilson CIs).
    """
    check_count("matches", matches)
    check_count("workers", workers)
    options = dict(options or BALANCE_OPTIONS)
    for label, table in options.items():
        if not isinstance(table, ThreeHandedConfig):
            raise OptionError(f"option {label!r}: a ThreeHandedConfig table, got {table!r}")
        check_three([agent], table)
    out: dict[str, Any] = {
        "agent": label_of(agent),
        "matches": matches,
        "seed": seed,
        "options": {},
    }
    for label, table in options.items():
        jobs = [([agent] * 3, seed, i, table) for i in range(matches)]
        res = pool_map(play_seated_match, jobs, workers, progress, label)
        n = np.array([len(r["hands"]) for r in res], float)
        bw = np.array([sum(h["box_won"] for h in r["hands"]) for r in res], float)
        tw = np.array([sum(h["team_won"] for h in r["hands"]) for r in res], float)
        bp = np.array([sum(h["box_points"] for h in r["hands"]) for r in res], float)
        decided = [r for r in res if r["winner"] is not None]
        box_matches = sum(r["winner_role"] == "box" for r in decided)
        start = {}
        for role, rname in enumerate(ROLE_NAMES):
            k = sum(r["first_roles"][r["winner"]] == role for r in decided)
            start[rname] = {"match_win_rate": k / len(decided), "ci95": wilson_ci(k, len(decided))}
        box_share, team_share = cluster_ratio_ci(bw, n), cluster_ratio_ci(tw, n)
        pph = cluster_ratio_ci(bp, n)
        out["options"][label] = {
            "adviser": table.adviser,
            "rules": {k: v for k, v in table_changes(table).items() if k != "adviser"},
            "hands": int(n.sum()),
            "hands_per_match": float(n.mean()),
            "box_hand_share": box_share[0],
            "box_hand_share_ci95": box_share[1:],
            "team_hand_share": team_share[0],
            "team_hand_share_ci95": team_share[1:],
            "draw_share": float(1 - (bw.sum() + tw.sum()) / n.sum()),
            "box_points_per_hand": pph[0],
            "box_points_ci95": pph[1:],
            "matches_decided": len(decided),
            "box_match_share": box_matches / len(decided),
            "box_match_share_ci95": wilson_ci(box_matches, len(decided)),
            "match_win_by_first_role": start,
        }
    return out


def balance_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for label, o in r["options"].items():
        rows.append(
            {
                "option": label,
                "hands": o["hands"],
                "box_hands": o["box_hand_share"],
                "box_hands_low": o["box_hand_share_ci95"][0],
                "box_hands_high": o["box_hand_share_ci95"][1],
                "team_hands": o["team_hand_share"],
                "draws": o["draw_share"],
                "box_pts": o["box_points_per_hand"],
                "box_pts_low": o["box_points_ci95"][0],
                "box_pts_high": o["box_points_ci95"][1],
                "box_matches": o["box_match_share"],
                "box_matches_low": o["box_match_share_ci95"][0],
                "box_matches_high": o["box_match_share_ci95"][1],
                **{
                    f"win_first_{k}": v["match_win_rate"]
                    for k, v in o["match_win_by_first_role"].items()
                },
            }
        )
    return rows
