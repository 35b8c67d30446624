"""Team versus solo, measured: the value of advice, its ablations, the blind adviser, the
balance between the box and the captain's team, teams that learned to use advice, and the
duplicate designs that make those comparisons tight.

Run from a clone: ``python -m studies.team_vs_solo {duplicate,advice,ablations,hidden,
balance,learned,fit-value,plot,report} ...``. Each study is a function that returns a
JSON-ready dict; the command line writes ``<out>/team_*.json/csv/png`` (``--out``, default
``runs/team_vs_solo``; the committed figures are in ``results/team_*/``).

- ``duplicate``: :func:`~training.evaluation.duplicate.duplicate_vs_plain` (the
  duplicate design against plain deals at one size, with ``--adjust deal|draws|value``
  the luck corrections of :mod:`training.evaluation.luck`; writes ``team_duplicate*``,
  the stem ending in the ``--adjust`` value).
- :func:`advice_matrix` (``advice``, ``ablations``, ``hidden``): single hands
  (``episode="hand"``) where the roles are filled by policy: a fixed box, a captain and an
  adviser. Every cell plays the same deals (the deal and the role draw depend on the seed
  and the deal's index alone), so differences between cells are paired by deal. Per cell:
  the team's points per hand against the box, how often the captain plays the suggestion
  (for a captain that never reads it, this is only agreement), and the team's points in
  hands where the captain followed every suggestion versus hands where it overrode at
  least one. Advisers are agent specs or one of the ablations of the advice channel
  (:data:`agents.ablations.ADVICE_ABLATIONS`); ``hidden``: advisers that do not see the
  captain's hand.
- :func:`balance`: L2 in every seat, matches under rule options; the share of hands and of
  matches the box wins.
- :func:`learned_advice` (``learned``): trained captains with and without advice, and the
  cross-play of jointly trained teams.
- ``fit-value``: the learned value of ``--adjust value``
  (:func:`~training.evaluation.luck.fit_value_on_pilot`).

Agents are registered names / specs (``agents.make``) or agent objects, so trained
captains and advisers plug in.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.ablations import ADVICE_ABLATIONS
from gin_env import actions as A
from gin_env.encoding import OBS_SLICES
from gin_env.match import ROLE_NAMES
from training.evaluation.checks import AgentSpec, OptionError, agent_of, check_count, label_of
from training.evaluation.duplicate import duplicate_vs_plain, write_duplicate
from training.evaluation.hand_value import DEFAULT_VALUE_PATH
from training.evaluation.luck import (
    ADJUST_MODES,
    COVARIATES,
    DRAW_CORRECTIONS,
    check_three,
    fit_value_on_pilot,
)
from training.evaluation.play import play_advice_hands, play_seated_match
from training.evaluation.plots import plot_duplicate, plot_edges, pyplot
from training.evaluation.pool import pool_map
from training.evaluation.reports import or_nan, plus_minus, text_table
from training.evaluation.stats import cluster_ratio_ci, half_width, mean_ci, wilson_ci
from training.evaluation.writer import write_result

__all__ = [
    "advice_matrix",
    "suggestion_agreement",
    "learned_advice",
    "balance",
    "BALANCE_OPTIONS",
    "plot_advice",
    "plot_follow",
    "plot_balance",
    "plot_learned",
    "replot",
    "report",
    "main",
]

#: Where the command line writes unless told ``--out``: a git-ignored folder.
DEFAULT_OUT = "runs/team_vs_solo"


def _cell_summary(
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
    rules: Mapping[str, Any] | None = None,
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
    rules = dict(rules or {})
    check_three(
        [box, *captains.values(), *(a for a in advisers.values() if a not in ADVICE_ABLATIONS)],
        rules,
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
                (cap_spec, adv_spec, box, seed, s, min(s + chunk, hands), sees_hand, rules)
                for s in range(0, hands, chunk)
            ]
            res = pool_map(play_advice_hands, jobs, workers, progress, f"{cap} + {adv}")
            team = np.array([x for r in res for x in r["team_points"]], float)
            won = np.array([x for r in res for x in r["team_won"]], bool)
            advised = np.array([x for r in res for x in r["advised"]], int)
            followed = np.array([x for r in res for x in r["followed"]], int)
            raw[cap, adv] = team
            cells.setdefault(cap, {})[adv] = _cell_summary(team, won, advised, followed)
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
        "rules": rules,
        "cells": cells,
    }
    if keep_points:
        out["points"] = {c: {a: raw[c, a].tolist() for a in advisers} for c in captains}
    return out


class _Recorder:
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
    rec = _Recorder(agent_of(adviser), agent_of(reference))
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


def _learned_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for group in ("fixed", "joint"):
        if group not in r:
            continue
        for row in _advice_rows(r[group]):
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


def plot_learned(r: dict[str, Any], path: Path) -> None:
    """The gain from advice over the muted adviser (95% CI, paired by deal) of every
    trained captain with each adviser: bars, fixed-adviser captains then the cross-play."""
    plt = pyplot()
    rows = [x for x in _learned_rows(r) if x["adviser"] != "muted"]
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


def _learned_report(r: dict[str, Any]) -> str:
    lines = [
        f"team_learned: trained captains, box {r['box']}, {r['hands']} hands per cell "
        f"(seed {r['seed']}), 95% CIs paired by deal",
        "",
        "| group | captain | adviser | team pts/hand | gain over muted | follows "
        "| pts followed throughout (n) | overrode once+ (n) | vs own adviser |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for x in _learned_rows(r):
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


def _advice_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
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


#: Rule options of the balance table: label -> (adviser mode, rules).
BALANCE_OPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "standard (undercut 10, knock 10, advice on)": ("suggest", {}),
    "undercut bonus 0": ("suggest", {"undercut_bonus": 0}),
    "undercut bonus 25": ("suggest", {"undercut_bonus": 25}),
    "knock limit 5": ("suggest", {"knock_limit": 5}),
    "knock limit 0 (gin only)": ("suggest", {"knock_limit": 0}),
    "adviser off": ("none", {}),
}


def balance(
    matches: int,
    options: Mapping[str, tuple[str, Mapping[str, Any]]] | None = None,
    agent: AgentSpec = "heuristic",
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
) -> dict[str, Any]:
    """``agent`` in every seat, ``matches`` matches per rule option on the same seeds.

    Per option: the share of hands the box wins / the team wins / drawn and the box's points
    per hand (95% CIs clustered by match), the share of matches won by a player who held the
    box in the deciding hand, and the match win rate of the player who started in each role
    (Wilson CIs).
    """
    check_count("matches", matches)
    check_count("workers", workers)
    options = dict(options or BALANCE_OPTIONS)
    for label, (mode, rules) in options.items():
        if mode not in ("suggest", "none"):
            raise OptionError(
                f"option {label!r}: adviser must be 'suggest' or 'none', got {mode!r}"
            )
        check_three([agent], rules)
    out: dict[str, Any] = {
        "agent": label_of(agent),
        "matches": matches,
        "seed": seed,
        "options": {},
    }
    for label, (mode, rules) in options.items():
        jobs = [([agent] * 3, seed, i, mode, dict(rules)) for i in range(matches)]
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
            "adviser": mode,
            "rules": dict(rules),
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


def _balance_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
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


#: The studies' default line-ups (label -> spec).
CAPTAINS = {
    "L0": "random",
    "L1": "simple",
    "L2": "heuristic",
    "PPO": "three-handed-ppo",
    "L1-weigh": "captain:agent=simple,mode=weigh",
    "L1-follow": "captain:agent=simple,mode=follow",
}


ADVISERS = {
    "none": "none",
    "L0": "adviser:agent=random",
    "L1": "adviser:agent=simple",
    "L2": "adviser:agent=heuristic",
    "PPO": "adviser:agent=three-handed-ppo",
}


#: Ablations of the advice channel, beside the real L2 advice and no adviser at all.
ABLATIONS = {
    "none": "none",
    "muted": "muted",
    "random legal": "adviser:agent=random",
    "shuffled": "shuffled",
    "own policy": "own",
    "L2": "adviser:agent=heuristic",
}


#: Captains that read the suggestion (the others' cells equal their "none" cell).
ADVICE_READERS = ("PPO", "L1-weigh", "L1-follow")


HIDDEN_HAND_ADVISERS = {
    "none": "none",
    "L2": "adviser:agent=heuristic",
    "PPO (raw)": "three-handed-ppo",
    "L0 (raw)": "random",
}


def _pairs(text: str | None, default: Mapping[str, str]) -> dict[str, str]:
    """``"a=spec;b=spec"`` (or a bare spec, its own label) -> ``{label: spec}``."""
    if not text:
        return dict(default)
    out = {}
    for item in filter(None, (p.strip() for p in text.split(";"))):
        label, eq, spec = item.partition("=")
        if eq and ":" not in label and "," not in label:
            out[label.strip()] = spec.strip()
        else:
            out[item] = item
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """``python -m studies.team_vs_solo {duplicate,advice,ablations,hidden,balance,learned,
    fit-value,plot,report}``."""
    p = argparse.ArgumentParser(
        prog="python -m studies.team_vs_solo", description=__doc__.split("\n")[0]
    )
    sub = p.add_subparsers(dest="study", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--seed", type=int, default=0)
    common.add_argument("--workers", type=int, default=1)
    common.add_argument(
        "--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT}, ignored by git)"
    )
    common.add_argument("--progress", action="store_true")
    d = sub.add_parser("duplicate", parents=[common], help="duplicate vs plain three-handed")
    d.add_argument("--agents", default="heuristic,simple,three-handed-ppo")
    d.add_argument("--deals", type=int, default=200, help="deal sequences (x6 matches)")
    d.add_argument(
        "--unit",
        default="match",
        choices=("match", "hand"),
        help="replay whole matches, or single hands in the 6 role assignments",
    )
    d.add_argument(
        "--adjust",
        nargs="?",
        const="deal",
        default=None,
        choices=ADJUST_MODES,
        help="also the points per hand and paired edges adjusted for the deal (regression "
        "on covariates of the deck, beta cross-fitted; writes <stem>_deal.*) or, with "
        "'draws', also corrected for the luck of every stock draw (writes <stem>_draws.*) or, "
        "with 'value', corrected at the deal and every draw by a learned value of the full "
        "state (writes <stem>_value.*)",
    )
    d.add_argument(
        "--value",
        default=None,
        help="with --adjust value: the saved value (.npz from fit-value; default "
        "training/data/hand_value.npz)",
    )
    d.add_argument(
        "--adjust-deals",
        type=int,
        default=20000,
        help="shuffled decks for the covariates' mean (no hand is played; default 20000)",
    )
    for name, helptext in (
        ("advice", "captain x adviser matrix"),
        ("ablations", "ablations of the advice channel"),
        ("hidden", "advisers that do not see the captain's hand"),
    ):
        a = sub.add_parser(name, parents=[common], help=helptext)
        a.add_argument("--hands", type=int, default=2000)
        a.add_argument("--box", default="heuristic")
        a.add_argument("--captains", default=None, help="label=spec;label=spec")
        a.add_argument("--advisers", default=None, help="label=spec;... (ablations: none, "
                       "muted, shuffled, own)")  # fmt: skip
    learned = sub.add_parser(
        "learned", parents=[common], help="trained captains: advised vs muted, cross-play"
    )
    learned.add_argument("--hands", type=int, default=2000, help="deals per cell")
    learned.add_argument("--box", default="heuristic", help="the box (default: heuristic)")
    learned.add_argument(
        "--adviser", default="heuristic", help="the fixed adviser of --captains (default: L2)"
    )
    learned.add_argument(
        "--captains", default="", help="label=spec;... captains trained beside --adviser"
    )
    learned.add_argument(
        "--joint", default="", help="label=spec;... teams trained jointly (one spec per team)"
    )
    learned.add_argument("--stem", default="team_learned", help="output file stem")
    learned.add_argument(
        "--agreement-hands",
        type=int,
        default=500,
        help="deals on which each --joint team's adviser is compared with --adviser (0: none)",
    )
    learned.add_argument(
        "--keep",
        action="store_true",
        help="keep the group (fixed / joint) of an existing <stem>.json that this command "
        "does not compute (it must have the same hands, seed and box)",
    )
    b = sub.add_parser("balance", parents=[common], help="box vs team at equal skill")
    b.add_argument("--matches", type=int, default=800)
    b.add_argument("--agent", default="heuristic")
    fv = sub.add_parser(
        "fit-value",
        parents=[common],
        help="fit the learned value of --adjust value on pilot hands (use a seed no study reports)",
    )
    fv.add_argument("--agents", default="heuristic,simple,three-handed-ppo")
    fv.add_argument("--deals", type=int, default=4000, help="pilot deals (x6 hands)")
    fv.add_argument("--hidden", default="64,32", help="hidden layer sizes (default 64,32)")
    fv.add_argument("--epochs", type=int, default=12)
    fv.add_argument("--save", default=None, help="where to save (default: the committed path)")
    sub.add_parser("plot", parents=[common], help="redraw the figures from the JSON in --out")
    sub.add_parser("report", parents=[common], help="markdown tables of the JSON in --out")
    args = p.parse_args(argv)
    out = Path(args.out)
    try:
        return _run(args, out)
    except OptionError as err:
        p.error(str(err))


#: The stems :func:`main` ``duplicate`` writes (by ``--unit``, with and without ``--adjust``).
_DUPLICATE_STEMS = (
    "team_duplicate",
    "team_duplicate_hands",
    "team_duplicate_deal",
    "team_duplicate_hands_deal",
    "team_duplicate_draws",
    "team_duplicate_hands_draws",
    "team_duplicate_value",
    "team_duplicate_hands_value",
)


def _find(out: Path, stem: str) -> Path | None:
    """``<stem>.json`` in ``out`` or in a folder under it (``results/<study>/``)."""
    direct = out / f"{stem}.json"
    if direct.exists():
        return direct
    return next(iter(sorted(out.rglob(f"{stem}.json"))), None)


def replot(out: Path) -> list[Path]:
    """Redraw every ``team_*.png`` whose JSON is in ``out`` or a folder under it (each
    figure beside its JSON); return the figures drawn."""
    drawn: list[Path] = []

    def load(stem: str) -> tuple[dict[str, Any], Path] | None:
        path = _find(out, stem)
        return None if path is None else (json.loads(path.read_text()), path.parent)

    def draw(plot: Any, r: dict[str, Any], path: Path) -> None:
        plot(r, path)
        drawn.append(path)

    for stem in _DUPLICATE_STEMS:
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


def _duplicate_report(r: dict[str, Any]) -> str:
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
        lines += ["", _adjusted_report(r)]
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


def _adjusted_report(r: dict[str, Any]) -> str:
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


def report(out: Path) -> str:
    """Markdown tables of every ``team_*.json`` in ``out`` (what the write-up quotes)."""
    parts = []

    def load(stem: str) -> dict[str, Any] | None:
        path = _find(out, stem)
        return None if path is None else json.loads(path.read_text())

    found = [load(stem) for stem in _DUPLICATE_STEMS]
    parts += [_duplicate_report(x) for x in found if x is not None]
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
        parts.append(_learned_report(r))
    return "\n\n".join(parts)


def _run(args: argparse.Namespace, out: Path) -> dict[str, Any]:
    progress = args.progress
    if args.study == "report":
        text = report(out)
        print(text or "no team_*.json results")
        return {"report": text}
    if args.study == "plot":
        drawn = replot(out)
        print("drew", ", ".join(str(x) for x in drawn) or "nothing (no team_*.json)")
        return {"drawn": [str(x) for x in drawn]}
    if args.study == "duplicate":
        specs = [s.strip() for s in args.agents.split(";" if ";" in args.agents else ",")]
        r = duplicate_vs_plain(
            specs,
            args.deals,
            args.seed,
            args.workers,
            progress=progress,
            unit=args.unit,
            adjust=args.adjust or False,
            adjust_deals=args.adjust_deals,
            value=args.value,
        )
        stem = "team_duplicate" if args.unit == "match" else "team_duplicate_hands"
        stem += "" if args.adjust is None else f"_{args.adjust}"  # the stem names the option
        write_result(out, stem, r, r["half_widths"])
        write_duplicate(r["duplicate"], out, f"{stem}_edges")
        plot_duplicate(r, out / f"{stem}.png")
        print(text_table(r["half_widths"]))
        if args.adjust:
            print(_adjusted_report(r))
        return r
    if args.study == "fit-value":
        specs = [s.strip() for s in args.agents.split(";" if ";" in args.agents else ",")]
        try:
            hidden = [int(h) for h in args.hidden.split(",")]
        except ValueError:
            raise OptionError(
                f"--hidden must be ints separated by commas, got {args.hidden!r}"
            ) from None
        v = fit_value_on_pilot(specs, args.deals, args.seed, args.workers, progress=progress,
                               hidden=hidden, epochs=args.epochs)  # fmt: skip
        path = v.save(args.save or DEFAULT_VALUE_PATH)
        r2 = v.info["heldout_r2"]
        print(f"saved {path}: held-out R^2 of V {'n/a' if r2 is None else f'{r2:.3f}'} "
              f"({v.info['rows']} states of {v.info['pilot_hands']} hands)")  # fmt: skip
        return {"path": str(path), "info": v.info}
    if args.study == "learned":
        caps, joint = _pairs(args.captains, {}), _pairs(args.joint, {})
        if not caps and not joint:
            raise OptionError("learned needs --captains and/or --joint")
        r = learned_advice(caps, joint, args.hands, args.adviser, args.box, args.seed,
                           args.workers, progress, args.agreement_hands)  # fmt: skip
        old_path = out / f"{args.stem}.json"
        if args.keep and old_path.exists():
            old = json.loads(old_path.read_text())
            if any(old[k] != r[k] for k in ("hands", "seed", "box")):
                raise OptionError(f"--keep: {old_path} has other hands, seed or box")
            for key in ("fixed", "joint", "cross_play", "agreement"):
                if key in old and key not in r:
                    r[key] = old[key]
        write_result(out, args.stem, r, _learned_rows(r))
        plot_learned(r, out / f"{args.stem}.png")
        print(_learned_report(r))
        return r
    if args.study == "balance":
        r = balance(args.matches, None, args.agent, args.seed, args.workers, progress)
        write_result(out, "team_balance", r, _balance_rows(r))
        plot_balance(r, out / "team_balance.png")
        print(text_table(_balance_rows(r)))
        return r
    default_advisers = {"advice": ADVISERS, "ablations": ABLATIONS}.get(
        args.study, HIDDEN_HAND_ADVISERS
    )
    default_captains = (
        CAPTAINS if args.study == "advice" else {k: CAPTAINS[k] for k in ADVICE_READERS}
    )
    captains = _pairs(args.captains, default_captains)
    advisers = _pairs(args.advisers, default_advisers)
    stem = f"team_{args.study}"
    merged: dict[str, Any] = {}
    for label, spec in captains.items():  # one captain at a time, written as it finishes
        r = advice_matrix(
            {label: spec},
            advisers,
            args.hands,
            args.box,
            args.seed,
            args.workers,
            sees_hand=args.study != "hidden",
            progress=progress,
        )
        if not merged:
            merged = r
        else:
            merged["cells"].update(r["cells"])
            merged["captains"].update(r["captains"])
        write_result(out, stem, merged, _advice_rows(merged))
    plot_advice(merged, out / f"{stem}.png")
    if args.study == "advice":
        plot_follow(merged, out / "team_follow.png")
    print(text_table(_advice_rows(merged)))
    return merged


if __name__ == "__main__":
    main()
