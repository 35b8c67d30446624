"""The value of advice: every captain with every adviser on the same deals (the advice
matrix, its ablations and the blind adviser), and captains and teams that learned to use
advice (fixed adviser versus muted, cross-play of jointly trained teams)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.ablations import ADVICE_ABLATIONS
from gin_env import actions as A
from gin_env.config import ThreeHandedConfig, table_changes
from gin_env.encoding import OBS_SLICES
from gin_eval.checks import AgentSpec, OptionError, agent_of, check_count, label_of
from gin_eval.luck import (
    check_three,
)
from gin_eval.play import play_advice_hands
from gin_eval.pool import pool_map
from gin_eval.reports import or_nan
from gin_eval.stats import mean_ci, wilson_ci

__all__ = [
    "cell_summary",
    "advice_matrix",
    "SuggestionRecorder",
    "suggestion_agreement",
    "learned_advice",
    "advice_rows",
    "learned_rows",
]


def cell_summary(
    team: np.ndarray, won: np.ndarray, advised: np.ndarray, followed: np.ndarray
) -> dict[str, Any]:
    m, lo, hi = mean_ci(team)
    out: dict[str, Any] = {
        "hands": int(team.size),
        "team_points_per_hand": m,
        "ci95": (lo, hi),
        "team_hand_win_rate": float(won.mean()),
        "suggestions": int(advised.sum()),
        "follow_rate": float(followed.sum() / advised.sum()) if advised.sum() else None,
    }
    all_followed = (advised > 0) & (followed == advised)
    overrode = followed < advised
    for key, sel in (("when_followed", all_followed), ("when_overrode", overrode)):
        if sel.sum() >= 2:
            mm, ll, hh = mean_ci(team[sel])
            out[key] = {"hands": int(sel.sum()), "team_points_per_hand": mm, "ci95": (ll, hh)}
        else:
            out[key] = {"hands": int(sel.sum()), "team_points_per_hand": None, "ci95": None}
    return out


def advice_matrix(
    captains: Mapping[str, AgentSpec],
    advisers: Mapping[str, AgentSpec],
    hands: int,
    box: AgentSpec = "heuristic",
    seed: int = 0,
    workers: int = 1,
    sees_hand: bool = True,
    baseline: str | None = None,
    chunk: int = 100,
    progress: bool = False,
    table: ThreeHandedConfig | None = None,
    keep_points: bool = False,
) -> dict[str, Any]:
    """Every captain with every adviser on the same ``hands`` deals against ``box``.

    ``captains`` / ``advisers`` map labels to specs (an adviser spec may be an ablation,
    :data:`ADVICE_ABLATIONS`). ``baseline`` names the adviser column the value of advice is
    measured against (default: ``"none"`` if present): per cell ``gain`` is the team's
    points per hand minus the same captain's with the baseline adviser, paired by deal.
    ``keep_points`` adds ``points[captain][adviser]``: the team's points of every deal.
    """
    check_count("hands", hands)
    check_count("workers", workers)
    check_count("chunk", chunk)
    if not captains or not advisers:
        raise OptionError("advice_matrix needs at least one captain and one adviser")
    table = table or ThreeHandedConfig()
    check_three(
        [box, *captains.values(), *(a for a in advisers.values() if a not in ADVICE_ABLATIONS)],
        table,
    )
    if baseline is None:
        baseline = next((k for k, v in advisers.items() if v == "none"), None)
    if baseline is not None and baseline not in advisers:
        raise OptionError(
            f"baseline must be one of the advisers {list(advisers)}, got {baseline!r}"
        )
    cells: dict[str, dict[str, Any]] = {}
    raw: dict[tuple[str, str], np.ndarray] = {}
    for cap, cap_spec in captains.items():
        for adv, adv_spec in advisers.items():
            jobs = [
                (cap_spec, adv_spec, box, seed, s, min(s + chunk, hands), sees_hand, table)
                for s in range(0, hands, chunk)
            ]
            res = pool_map(play_advice_hands, jobs, workers, progress, f"{cap} + {adv}")
            team = np.array([x for r in res for x in r["team_points"]], float)
            won = np.array([x for r in res for x in r["team_won"]], bool)
            advised = np.array([x for r in res for x in r["advised"]], int)
            followed = np.array([x for r in res for x in r["followed"]], int)
            raw[cap, adv] = team
            cells.setdefault(cap, {})[adv] = cell_summary(team, won, advised, followed)
    if baseline is not None:
        for cap in captains:
            for adv in advisers:
                diff = raw[cap, adv] - raw[cap, baseline]
                m, lo, hi = mean_ci(diff)
                cells[cap][adv]["gain"] = m
                cells[cap][adv]["gain_ci95"] = (lo, hi)
    out = {
        "box": label_of(box),
        "captains": {k: label_of(v) for k, v in captains.items()},
        "advisers": {k: label_of(v) for k, v in advisers.items()},
        "hands": hands,
        "seed": seed,
        "sees_hand": sees_hand,
        "baseline": baseline,
        "rules": table_changes(table),
        "cells": cells,
    }
    if keep_points:
        out["points"] = {c: {a: raw[c, a].tolist() for a in advisers} for c in captains}
    return out


class SuggestionRecorder:
    """An adviser that asks ``reference`` for its suggestion too and counts agreements."""

    def __init__(self, adviser: Any, reference: Any) -> None:
        self.adviser, self.reference = adviser, reference
        self.name = getattr(adviser, "name", type(adviser).__name__)
        self.suggestions = self.agreements = 0

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        a = int(self.adviser.act(observation, rng))
        obs = observation["observation"]
        if obs[OBS_SLICES["advising"]][0] > 0.5 and a != A.NO_ADVICE:
            self.suggestions += 1
            self.agreements += a == int(self.reference.act(observation, None))
        return a


def suggestion_agreement(
    captain: AgentSpec,
    adviser: AgentSpec,
    reference: AgentSpec = "heuristic",
    box: AgentSpec = "heuristic",
    hands: int = 500,
    seed: int = 0,
) -> dict[str, Any]:
    """How often ``adviser``'s suggestions (playing with ``captain`` against ``box``) are
    the move ``reference`` (L2 by default) would suggest on the same observation, over
    ``hands`` deals of ``seed``: the share, with a Wilson 95% CI."""
    check_count("hands", hands)
    table = ThreeHandedConfig()
    rec = SuggestionRecorder(agent_of(adviser, table), agent_of(reference, table))
    play_advice_hands(captain, rec, box, seed, 0, hands)
    n, k = rec.suggestions, rec.agreements
    return {
        "reference": label_of(reference),
        "hands": hands,
        "suggestions": n,
        "agreement": k / n if n else None,
        "agreement_ci95": wilson_ci(k, n) if n else None,
    }


def learned_advice(
    fixed_captains: Mapping[str, AgentSpec],
    joint: Mapping[str, AgentSpec],
    hands: int,
    fixed_adviser: AgentSpec = "heuristic",
    box: AgentSpec = "heuristic",
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    agreement_hands: int = 0,
) -> dict[str, Any]:
    """Trained captains with and without advice, and the cross-play of jointly trained teams.

    - ``fixed``: each of ``fixed_captains`` (trained beside ``fixed_adviser``) with that
      adviser and with it ``"muted"``, on the same ``hands`` deals: ``gain`` is the team's
      points per hand advised minus muted, paired by deal (:func:`advice_matrix`).
    - ``joint``: every player of ``joint`` (a team trained together; one spec plays both
      the captain and the adviser, e.g. a DMC checkpoint with role networks) as captain
      with every player's adviser and with the adviser muted (gain over muted). A team
      with a private convention does better with its own adviser than with another
      seed's: ``cross_play[captain][adviser]`` is the team's points with that adviser minus
      with its own (0 on the diagonal), paired by deal, with a 95% CI.
      ``agreement_hands > 0`` adds ``agreement[team]``: how often its adviser suggests what
      ``fixed_adviser`` would (:func:`suggestion_agreement`, on that many deals).
    """
    result: dict[str, Any] = {"hands": hands, "seed": seed, "box": label_of(box)}
    if fixed_captains:
        r = advice_matrix(fixed_captains, {"L2": fixed_adviser, "muted": "muted"}, hands, box,
                          seed, workers, baseline="muted", progress=progress)  # fmt: skip
        result["fixed"] = r
    if joint:
        advisers = {**{label: spec for label, spec in joint.items()}, "muted": "muted"}
        r = advice_matrix(joint, advisers, hands, box, seed, workers, baseline="muted",
                          progress=progress, keep_points=True)  # fmt: skip
        points = r.pop("points")
        cross: dict[str, dict[str, Any]] = {}
        for cap in joint:
            own = np.asarray(points[cap][cap], float)
            cross[cap] = {}
            for adv in joint:
                m, lo, hi = mean_ci(np.asarray(points[cap][adv], float) - own)
                cross[cap][adv] = {"vs_own": m, "vs_own_ci95": (lo, hi)}
        result["joint"] = r
        result["cross_play"] = cross
        if agreement_hands:
            result["agreement"] = {
                label: suggestion_agreement(spec, spec, fixed_adviser, box, agreement_hands, seed)
                for label, spec in joint.items()
            }
    return result


def advice_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for cap, advs in r["cells"].items():
        for adv, c in advs.items():
            nan = float("nan")
            rows.append(
                {
                    "captain": cap,
                    "adviser": adv,
                    "sees_hand": r["sees_hand"],
                    "hands": c["hands"],
                    "team_pts": c["team_points_per_hand"],
                    "ci_low": c["ci95"][0],
                    "ci_high": c["ci95"][1],
                    "gain": c.get("gain", nan),
                    "gain_low": c["gain_ci95"][0] if "gain_ci95" in c else nan,
                    "gain_high": c["gain_ci95"][1] if "gain_ci95" in c else nan,
                    "team_win": c["team_hand_win_rate"],
                    "follow_rate": nan if c["follow_rate"] is None else c["follow_rate"],
                    "followed_hands": c["when_followed"]["hands"],
                    "pts_followed": or_nan(c["when_followed"]["team_points_per_hand"]),
                    "overrode_hands": c["when_overrode"]["hands"],
                    "pts_overrode": or_nan(c["when_overrode"]["team_points_per_hand"]),
                }
            )
    return rows


def learned_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for group in ("fixed", "joint"):
        if group not in r:
            continue
        for row in advice_rows(r[group]):
            x = r.get("cross_play", {}).get(row["captain"], {}).get(row["adviser"]) \
                if group == "joint" else None  # fmt: skip
            nan = float("nan")
            rows.append({
                "group": group,
                **row,
                "vs_own": nan if x is None else x["vs_own"],
                "vs_own_low": nan if x is None else x["vs_own_ci95"][0],
                "vs_own_high": nan if x is None else x["vs_own_ci95"][1],
            })  # fmt: skip
    return rows
