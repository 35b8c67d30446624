"""Markdown tables of the team-versus-solo results (what the write-up quotes)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from gin_env.match import ROLE_NAMES
from gin_eval.luck import (
    COVARIATES,
    DRAW_CORRECTIONS,
)
from gin_eval.reports import plus_minus
from gin_eval.stats import half_width
from studies.team_vs_solo.advice import learned_rows
from studies.team_vs_solo.files import DUPLICATE_STEMS, find_result

__all__ = ["duplicate_report", "adjusted_report", "learned_report", "report"]


def duplicate_report(r: dict[str, Any]) -> str:
    """Markdown of a :func:`duplicate_vs_plain` result."""
    unit = r.get("unit", "match")
    lines = [
        f"Duplicate vs plain, {r['matches_per_design']} "
        f"{'matches' if unit == 'match' else 'single hands'} per design "
        f"({r['hands']['duplicate']} / {r['hands']['plain']} hands); 95% CI half-widths:",
        "",
        "| agent | role | points/hand (dup) | half-width plain | dup | ratio "
        "| edge half-width plain | paired edge (dup) | ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in r["half_widths"]:
        d = r["duplicate"]["per_agent"][row["agent"]]["roles"][row["role"]]
        lines.append(
            f"| {row['agent']} | {row['role']} | {d['points_per_hand']:+.2f} "
            f"| {row['points_half_plain']:.2f} | {row['points_half_duplicate']:.2f} "
            f"| {row['points_ratio']:.2f} | {row['edge_half_plain']:.2f} "
            f"| {d['paired_edge']:+.2f}{plus_minus(d['paired_edge_ci95'])} "
            f"| {row['paired_edge_ratio']:.2f} |"
        )
    ratios = [row["points_ratio"] for row in r["half_widths"]]
    paired = [row["paired_edge_ratio"] for row in r["half_widths"]]
    lines += [
        "",
        f"Median ratio plain/duplicate: points per hand {np.median(ratios):.2f}, "
        f"edge (paired by hand in the duplicate design) {np.median(paired):.2f}.",
    ]
    if r.get("adjusted"):
        lines += ["", adjusted_report(r)]
    per_agent = r["duplicate"]["per_agent"]
    if unit == "match":
        lines += ["", "| agent | match win % (duplicate) |", "|---|---:|"]
    for name, st in per_agent.items():
        if st["match_win_rate"] is None:
            continue
        lines.append(
            f"| {name} | {100 * st['match_win_rate']:.1f}"
            f" ± {100 * half_width(st['match_win_rate_ci95']):.1f} |"
        )
    return "\n".join(lines)


def adjusted_report(r: dict[str, Any]) -> str:
    """Markdown of the regression adjustment in a :func:`duplicate_vs_plain` result: every
    ratio is against the plain design's **unadjusted** half-width."""
    d = r["duplicate"]
    luck = "Corrected for the luck of the deal and of every stock draw (AIVAT-style; "
    # Per mode (results written before the modes had names are "deal"): how the sentence
    # opens, what joins the deck's covariates, and the draw corrections.
    opening, with_deck, draws = {
        "deal": ("Adjusted for the deal (", "", ""),
        "draws": (luck, "", f", and {len(DRAW_CORRECTIONS)} draw corrections of mean 0"),
        "value": (
            luck,
            " and the learned V after the deal",
            ", and the learned V's draw corrections of mean 0, per seat",
        ),
    }[r.get("adjust") or "deal"]
    lines = [
        f"{opening}{len(COVARIATES)} covariates of the deck{with_deck}, their mean from "
        f"{d['covariate_deals']} shuffled decks{draws}; beta cross-fitted over two folds of "
        "deals, per role on all agents' hands for the points, per agent and role for the "
        "paired edge); 95% CI half-widths and ratios plain unadjusted / each:",
        "",
        "| agent | role | points/hand adj. (dup) | plain | plain adj. | ratio | dup adj. "
        "| ratio | paired edge adj. (dup) | ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in r["half_widths"]:
        x = d["per_agent"][row["agent"]]["roles"][row["role"]]
        lines.append(
            f"| {row['agent']} | {row['role']} | {x['adjusted_points_per_hand']:+.2f} "
            f"| {row['points_half_plain']:.2f} | {row['points_adj_half_plain']:.2f} "
            f"| {row['points_ratio_plain_adjusted']:.2f} "
            f"| {row['points_adj_half_duplicate']:.2f} | {row['points_ratio_adjusted']:.2f} "
            f"| {x['adjusted_paired_edge']:+.2f}{plus_minus(x['adjusted_paired_edge_ci95'])} "
            f"| {row.get('paired_edge_ratio_adjusted', math.nan):.2f} |"
        )
    med = {
        key: np.median([row[key] for row in r["half_widths"]])
        for key in (
            "points_ratio_plain_adjusted",
            "points_ratio_adjusted",
            "paired_edge_ratio_adjusted",
        )  # fmt: skip
    }
    shares = d.get("adjustment_by_role", {})
    if shares:
        lines += [
            "",
            "Share of a hand's variance in the duplicate design, by role (removed by the "
            "covariates / common to the six replays of the deal): "
            + "; ".join(
                f"{role} {v['covariate_r2']:.2f} / "
                + ("-" if v["deal_share"] is None else f"{v['deal_share']:.2f}")
                for role, v in sorted(shares.items(), key=lambda kv: ROLE_NAMES.index(kv[0]))
            )
            + ".",
        ]
    plain_shares = r.get("plain", {}).get("adjustment_by_role", {})
    if plain_shares:
        lines += [
            "",
            "Share removed in the plain design: "
            + "; ".join(
                f"{role} {v['covariate_r2']:.2f}"
                for role, v in sorted(plain_shares.items(), key=lambda kv: ROLE_NAMES.index(kv[0]))
            )
            + ".",
        ]
    lines += [
        "",
        f"Median ratio plain / adjusted: points per hand, plain adjusted "
        f"{med['points_ratio_plain_adjusted']:.2f}, duplicate adjusted "
        f"{med['points_ratio_adjusted']:.2f}; paired edge adjusted "
        f"{med['paired_edge_ratio_adjusted']:.2f}.",
    ]
    return "\n".join(lines)


def learned_report(r: dict[str, Any]) -> str:
    lines = [
        f"team_learned: trained captains, box {r['box']}, {r['hands']} hands per cell "
        f"(seed {r['seed']}), 95% CIs paired by deal",
        "",
        "| group | captain | adviser | team pts/hand | gain over muted | follows "
        "| pts followed throughout (n) | overrode once+ (n) | vs own adviser |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for x in learned_rows(r):
        if x["adviser"] == "muted":
            continue

        def f(v: float) -> str:
            return "-" if math.isnan(v) else f"{v:+.2f}"

        def pm(lo: float, hi: float) -> str:
            return "" if math.isnan(lo) else f" ± {(hi - lo) / 2:.2f}"

        follow = "-" if math.isnan(x["follow_rate"]) else f"{100 * x['follow_rate']:.1f}%"
        lines.append(
            f"| {x['group']} | {x['captain']} | {x['adviser']} "
            f"| {f(x['team_pts'])}{pm(x['ci_low'], x['ci_high'])} "
            f"| {f(x['gain'])}{pm(x['gain_low'], x['gain_high'])} | {follow} "
            f"| {f(x['pts_followed'])} ({x['followed_hands']}) "
            f"| {f(x['pts_overrode'])} ({x['overrode_hands']}) "
            f"| {f(x['vs_own'])}{pm(x['vs_own_low'], x['vs_own_high'])} |"
        )
    for label, g in r.get("agreement", {}).items():
        if g["agreement"] is not None:
            lo, hi = g["agreement_ci95"]
            lines.append(
                f"\n{label}'s adviser suggests what {g['reference']} would in "
                f"{100 * g['agreement']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] of "
                f"{g['suggestions']} suggestions ({g['hands']} deals)."
            )
    return "\n".join(lines)


def report(out: Path) -> str:
    """Markdown tables of every ``team_*.json`` in ``out`` (what the write-up quotes)."""
    parts = []

    def load(stem: str) -> dict[str, Any] | None:
        path = find_result(out, stem)
        return None if path is None else json.loads(path.read_text())

    found = [load(stem) for stem in DUPLICATE_STEMS]
    parts += [duplicate_report(x) for x in found if x is not None]
    for stem in ("team_advice", "team_ablations", "team_hidden"):
        if (r := load(stem)) is None:
            continue
        caps = list(r["cells"])
        advs = list(r["cells"][caps[0]])
        lines = [
            f"{stem}: team points per hand gain over adviser '{r['baseline']}' (paired by "
            f"deal, 95% CI), box {r['box']}, {r['hands']} hands per cell, adviser sees the "
            f"hand: {r['sees_hand']}",
            "",
            "| captain | " + " | ".join(advs) + " |",
            "|---|" + "---:|" * len(advs),
        ]
        for c in caps:
            cells = [r["cells"][c][a] for a in advs]
            lines.append(
                f"| {c} (alone {r['cells'][c][advs[0]]['team_points_per_hand']:+.2f}) | "
                + " | ".join(f"{x['gain']:+.2f}{plus_minus(x['gain_ci95'])}" for x in cells)
                + " |"
            )
        lines += [
            "",
            "| captain | adviser | follows | team pts, hands followed throughout (n) "
            "| overrode at least once (n) |",
            "|---|---|---:|---:|---:|",
        ]
        for c in caps:
            for a in advs:
                x = r["cells"][c][a]
                if not x["suggestions"]:
                    continue
                f, o = x["when_followed"], x["when_overrode"]

                def fmt(v: float | None) -> str:
                    return "-" if v is None else f"{v:+.2f}"

                lines.append(
                    f"| {c} | {a} | {100 * x['follow_rate']:.1f}% "
                    f"| {fmt(f['team_points_per_hand'])}{plus_minus(f['ci95'])} ({f['hands']}) "
                    f"| {fmt(o['team_points_per_hand'])}{plus_minus(o['ci95'])} ({o['hands']}) |"
                )
        parts.append("\n".join(lines))
    if (r := load("team_balance")) is not None:
        lines = [
            f"Box vs team, {r['agent']} in every seat, {r['matches']} matches per option "
            "(95% CIs; hands clustered by match, matches Wilson):",
            "",
            "| rules | hands | box wins hands | team wins hands | draws | box pts/hand "
            "| box wins matches | match win: started box / captain / adviser |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for label, o in r["options"].items():
            w = o["match_win_by_first_role"]
            lines.append(
                f"| {label} | {o['hands']} | {100 * o['box_hand_share']:.1f}"
                f" ± {100 * half_width(o['box_hand_share_ci95']):.1f}% "
                f"| {100 * o['team_hand_share']:.1f}% | {100 * o['draw_share']:.1f}% "
                f"| {o['box_points_per_hand']:+.2f}{plus_minus(o['box_points_ci95'])} "
                f"| {100 * o['box_match_share']:.1f}% [{100 * o['box_match_share_ci95'][0]:.1f}, "
                f"{100 * o['box_match_share_ci95'][1]:.1f}] "
                f"| {100 * w['box']['match_win_rate']:.0f} / "
                f"{100 * w['captain']['match_win_rate']:.0f} / "
                f"{100 * w['adviser']['match_win_rate']:.0f}% |"
            )
        parts.append("\n".join(lines))
    if (r := load("team_learned")) is not None:
        parts.append(learned_report(r))
    return "\n\n".join(parts)
