"""Duplicate three-handed evaluation: every agent in every seat order (or role assignment)
on the same deals, with CIs clustered, and paired, by deal.

:func:`duplicate_three` plays ``6 * deals`` matches (or single hands, ``unit="hand"``) of
three agents on deal sequences **replayed in all six seatings** (``design="duplicate"``),
or on a fresh deal sequence per match with the same six seatings in turn
(``design="plain"``). The deals and the initial role draw depend on the env seed alone,
so one seed with the agents permuted over the seats replays the same decks. Per agent:
match win %, and by role hand win %, points per hand and the **edge** (the agent's points
per hand in the role minus the other two agents' in the same role), each with a 95% CI
clustered by deal sequence. ``adjust`` adds the figures corrected for luck
(:mod:`gin_eval.luck`). :func:`duplicate_vs_plain` runs both designs at one
size and reports the ratio of the CI half-widths; :func:`eval_duplicate` is
``gin-rummy eval three --duplicate``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from gin_env.config import HandRules, ThreeHandedConfig, table_changes
from gin_env.match import BOX, ROLE_NAMES
from gin_eval.checks import AgentSpec, OptionError, check_count, play_here, specs_of, unique_labels
from gin_eval.hand_value import HandValue, value_corrections
from gin_eval.luck import (
    COVARIATES,
    DRAW_CORRECTIONS,
    VALUE_COVARIATES,
    adjust_mode,
    check_three,
    covariate_means,
    deal_covariates,
    draw_corrections,
    load_value,
)
from gin_eval.outcomes import text_counts, text_stats, win_kinds
from gin_eval.play import PERMUTATIONS, play_seated_match, role_hand_job, seat_specs
from gin_eval.plots import plot_edges
from gin_eval.pool import pool_map
from gin_eval.reports import duplicate_rows
from gin_eval.stats import (
    adjusted_mean_ci,
    cluster_diff_ci,
    cluster_ratio_ci,
    crossfit_beta,
    deal_share,
    half_width,
)
from gin_eval.writer import write_replays, write_result

__all__ = ["duplicate_three", "duplicate_vs_plain", "write_duplicate", "eval_duplicate"]


def duplicate_three(
    agents: Sequence[AgentSpec],
    deals: int,
    seed: int = 0,
    workers: int = 1,
    adviser: str = "suggest",
    design: str = "duplicate",
    progress: bool = False,
    table: ThreeHandedConfig | None = None,
    unit: str = "match",
    adjust: bool | str = False,
    adjust_deals: int = 20000,
    value: HandValue | str | Path | None = None,
    concurrency: int = 0,
    replays: str | Path | None = None,
) -> dict[str, Any]:
    """``6 * deals`` matches of three agents, every agent in every seat order equally often,
    at ``table`` (default: the standard rules) with its adviser set to ``adviser``.
    ``concurrency``: games at once in threads of this process (players that wait on a
    server); the result adds ``win_kinds`` (every agent's wins by gin / knock / undercut
    and mean deadwood at showdown) and ``text`` (word-play stats, when played here).
    ``replays``: a folder that gets every game's replay (``deal00002_seating3.json``: deal
    2 in the fourth of :data:`~gin_eval.play.PERMUTATIONS`), said in ``"replays"``.

    ``design="duplicate"``: ``deals`` deal sequences, each played in the six seatings (one
    cluster per sequence). ``design="plain"``: a fresh deal sequence for each of the
    ``6 * deals`` matches, seatings in turn (one cluster per match). The same statistics and
    the same clustered CIs either way, so the two designs compare at equal size.

    ``unit="hand"``: single hands instead of matches: each deal is played once in each of
    the six assignments of the agents to the roles (box, captain, adviser), so every hand
    has the other agents' results on the same cards in the same role (no match win %).

    ``adjust=True`` adds, per agent and role, the points per hand and the paired edge **adjusted for
    the deal** (``adjusted_points_per_hand`` / ``adjusted_ci95``, ``adjusted_paired_edge`` /
    ``adjusted_paired_edge_ci95``): :func:`~gin_eval.stats.adjusted_mean_ci` on each
    hand's :func:`~gin_eval.luck.deal_covariates`, ``beta`` cross-fitted (two folds of
    deals) per agent and role, the covariates' mean from ``adjust_deals`` shuffled decks
    (:func:`~gin_eval.luck.covariate_means`, its error included in the CI).
    ``adjust="draws"`` corrects also for the luck of every card drawn from the stock (AIVAT-style):
    the covariates are the deal's plus the hand's :func:`~gin_eval.luck.draw_corrections`
    (mean 0 exactly), all with one cross-fitted ``beta``. ``adjust="value"`` makes the same kind of
    corrections with a learned value of the full state (:mod:`gin_eval.hand_value`;
    ``value``: a :class:`~gin_eval.hand_value.HandValue` or the path of a saved one, by
    default :data:`~gin_eval.hand_value.DEFAULT_VALUE_PATH`): the covariates are the
    deal's plus :data:`~gin_eval.luck.VALUE_COVARIATES`. ``adjust=True`` is ``"deal"``.
    """
    if unit not in ("match", "hand"):
        raise OptionError(f"unit must be 'match' or 'hand', got {unit!r}")
    if len(agents) != 3:
        raise OptionError(f"a three-handed evaluation needs exactly 3 agents, got {len(agents)}")
    if design not in ("duplicate", "plain"):
        raise OptionError(f"design must be 'duplicate' or 'plain', got {design!r}")
    if adviser not in ("suggest", "none"):
        raise OptionError(f"adviser must be 'suggest' or 'none', got {adviser!r}")
    check_count("deals", deals)
    check_count("workers", workers)
    mode = adjust_mode(adjust)
    if mode:
        check_count("adjust_deals", adjust_deals, 2)
    if value is not None and mode != "value":
        raise OptionError(f"value is for adjust='value' only, got adjust={adjust!r}")
    v = load_value(value) if mode == "value" else None
    table = replace(table or ThreeHandedConfig(), adviser=adviser)
    check_three(agents, table)
    labels = unique_labels(agents)
    workers = play_here(agents, [table], workers, concurrency)
    since = text_counts(agents, table)
    jobs, meta = [], []
    for i in range(deals):
        for p, perm in enumerate(PERMUTATIONS):
            index = i if design == "duplicate" else 6 * i + p
            # By seat for matches; by role for single hands (player r plays role r).
            order = [labels[perm[s]] for s in range(3)]
            name = f"deal{index:05d}_seating{p}"
            jobs.append(
                (seat_specs(agents, perm), seed, index, table, replays is not None, name, order)
            )
            meta.append((index, order))
    fn = play_seated_match if unit == "match" else role_hand_job
    res = pool_map(
        fn, jobs, workers, progress, f"three-handed {design} ({unit}s)", threads=concurrency
    )
    named = [
        (f"deal{index:05d}_seating{k % 6}", record)
        for k, (r, (index, _)) in enumerate(zip(res, meta, strict=True))
        for record in r.pop("replays", ())
    ]
    kept = write_replays(replays, named)
    matches = [dict(r, cluster=c, order=o) for r, (c, o) in zip(res, meta, strict=True)]
    replay = mode in ("draws", "value")
    hand_rules = table.hand_rules() if replay else None
    means = covariate_means(adjust_deals, seed, v, hand_rules) if mode else None
    out = _duplicate_summary(labels, matches, means, hand_rules, v)
    if mode:
        out.update(covariate_deals=adjust_deals, adjust=mode)
    if v is not None:
        out.update(value=v.info)
    if unit == "hand":
        for st in out["per_agent"].values():
            st.update(matches=0, match_win_rate=None, match_win_rate_ci95=None)
    out.update(design=design, unit=unit, deals=deals, seed=seed, adviser=adviser,
               rules=table_changes(table), specs=specs_of(agents, labels))  # fmt: skip
    out["win_kinds"] = win_kinds((m["order"], h["outcome"]) for m in matches for h in m["hands"])
    if concurrency > 1 or workers <= 1:
        out["text"] = text_stats(agents, table, since, labels)
    if kept is not None:
        out["replays"] = kept
    return out


def _duplicate_summary(
    labels: list[str],
    matches: list[dict[str, Any]],
    adjust: tuple[np.ndarray, np.ndarray] | None = None,
    draws: HandRules | None = None,
    learned: HandValue | None = None,
) -> dict[str, Any]:
    """The statistics of :func:`duplicate_three`; ``adjust``: the covariates' ``(mu, cov)``
    (adjust for the deal); ``draws``: the hand rules, to correct also for the stock draws
    (:func:`~gin_eval.luck.draw_corrections`), or with ``learned`` by the learned value's
    :func:`~gin_eval.hand_value.value_corrections` (then ``adjust`` holds the mean of
    ``value_deal`` too)."""
    clusters = sorted({m["cluster"] for m in matches})
    at = {c: k for k, c in enumerate(clusters)}
    g = len(clusters)
    # Per cluster, agent and role: hands, hands won, points.
    hands = np.zeros((g, len(labels), 3))
    won = np.zeros_like(hands)
    pts = np.zeros_like(hands)
    games = np.zeros((g, len(labels)))
    wins = np.zeros_like(games)
    box_n = np.zeros(g)
    box_pts = np.zeros(g)
    box_won = np.zeros(g)
    index = {n: k for k, n in enumerate(labels)}
    n_hands = 0
    # (cluster, hand index, role) -> [(agent, points, draw corrections)]: who held those
    # cards in that role.
    same_cards: dict[tuple[int, int, int], list[tuple[int, float, np.ndarray]]] = {}
    # For the regression adjustment: each hand's deck, and (cluster, hand index, agent,
    # role, points, the hand's draw corrections: empty unless ``draws``) per player.
    x_of: dict[tuple[int, int], np.ndarray] = {}
    per_hand: list[tuple[int, int, int, int, float, np.ndarray]] = []
    no_draws = np.zeros(0)
    for m in matches:
        c = at[m["cluster"]]
        for seat, name in enumerate(m["order"]):
            games[c, index[name]] += 1
            wins[c, index[name]] += m["winner"] == seat
        for k, h in enumerate(m["hands"]):
            n_hands += 1
            x_deal = deal_covariates(h["deck"]) if adjust else no_draws
            if learned is not None:
                vc = value_corrections(h["deck"], h["actions"], learned, draws)
                x_deal, xd = np.append(x_deal, vc[0]), vc[1:]
            elif draws is not None:
                xd = draw_corrections(h["deck"], h["actions"], draws)
            else:
                xd = no_draws
            box_n[c] += 1
            box_pts[c] += h["box_points"]
            box_won[c] += h["box_won"]
            for seat, role in enumerate(h["roles"]):
                a = index[m["order"][seat]]
                value = h["box_points"] if role == BOX else -h["box_points"]
                hands[c, a, role] += 1
                won[c, a, role] += h["box_won"] if role == BOX else h["team_won"]
                pts[c, a, role] += value
                same_cards.setdefault((c, k, role), []).append((a, value, xd))
                per_hand.append((c, k, a, role, value, xd))
            x_of[(c, k)] = x_deal
    # The paired edge: each hand against the mean of the other agents' results with the
    # same cards (same deal sequence, hand index and role), summed per cluster.
    p_num = np.zeros_like(hands)
    p_den = np.zeros_like(hands)
    per_pair: list[tuple[int, int, int, int, float, np.ndarray]] = []
    for (c, k, role), entries in same_cards.items():
        for a, value, xd in entries:
            others = [(v, x) for b, v, x in entries if b != a]
            if others:
                diff = value - sum(v for v, _ in others) / len(others)
                p_num[c, a, role] += diff
                p_den[c, a, role] += 1
                # The paired difference's draw corrections: the same difference of them.
                xo = np.mean([x for _, x in others], axis=0) if xd.size else xd
                per_pair.append((c, k, a, role, diff, xd - xo))
    by_role: dict[str, dict[str, float | None]] = {}
    adjusted = _adjusted_by_role(per_hand, per_pair, x_of, adjust, by_role) if adjust else {}
    per_agent: dict[str, Any] = {}
    for a, name in enumerate(labels):
        roles: dict[str, dict[str, Any]] = {}
        rest = np.array([b for b in range(len(labels)) if b != a], dtype=int)
        for role, rname in enumerate(ROLE_NAMES):
            n_a = hands[:, a, role]
            if n_a.sum() == 0:
                roles[rname] = {"hands": 0}
                continue
            wr = cluster_ratio_ci(won[:, a, role], n_a)
            pp = cluster_ratio_ci(pts[:, a, role], n_a)
            n_o = hands[:, rest, role].sum(axis=1)
            edge = (
                cluster_diff_ci(pts[:, a, role], n_a, pts[:, rest, role].sum(axis=1), n_o)
                if n_o.sum() > 0
                else None
            )
            paired = (
                cluster_ratio_ci(p_num[:, a, role], p_den[:, a, role])
                if p_den[:, a, role].sum() > 1
                else None
            )
            roles[rname] = {
                "hands": int(n_a.sum()),
                "hand_win_rate": wr[0],
                "hand_win_rate_ci95": wr[1:],
                "points_per_hand": pp[0],
                "ci95": pp[1:],
                "edge": None if edge is None else edge[0],
                "edge_ci95": None if edge is None else edge[1:],
                "paired_hands": int(p_den[:, a, role].sum()),
                "paired_edge": None if paired is None else paired[0],
                "paired_edge_ci95": None if paired is None else paired[1:],
            }
            roles[rname].update(adjusted.get((a, role), {}))
        mw = cluster_ratio_ci(wins[:, a], games[:, a])
        per_agent[name] = {
            "matches": int(games[:, a].sum()),
            "match_win_rate": mw[0],
            "match_win_rate_ci95": mw[1:],
            "roles": roles,
        }
    bp = cluster_ratio_ci(box_pts, box_n)
    bw = cluster_ratio_ci(box_won, box_n)
    return {
        **(
            {
                "covariates": list(COVARIATES)
                + (list(VALUE_COVARIATES) if learned else list(DRAW_CORRECTIONS) if draws else []),
                "covariate_means": adjust[0].tolist(),
                "adjustment_by_role": by_role,
            }
            if adjust
            else {}
        ),
        "agents": labels,
        "matches": len(matches),
        "clusters": g,
        "hands": n_hands,
        "box_points_per_hand": bp[0],
        "box_points_ci95": bp[1:],
        "box_hand_win_rate": bw[0],
        "box_hand_win_rate_ci95": bw[1:],
        "per_agent": per_agent,
    }


def _adjusted_by_role(
    per_hand: list[tuple[int, int, int, int, float, np.ndarray]],
    per_pair: list[tuple[int, int, int, int, float, np.ndarray]],
    x_of: Mapping[tuple[int, int], np.ndarray],
    adjust: tuple[np.ndarray, np.ndarray],
    by_role: dict[str, dict[str, float | None]],
) -> dict[tuple[int, int], dict[str, Any]]:
    """Per (agent, role): the points per hand and the paired edge adjusted for the deal's
    covariates (:func:`~gin_eval.stats.adjusted_mean_ci`; ``beta`` cross-fitted by
    :func:`~gin_eval.stats.crossfit_beta`, for the points per role on all agents' hands,
    for the paired edge per agent and role).

    Fills ``by_role[role]`` with ``covariate_r2``, the share of the variance of a hand's points in
    the role the cross-fitted adjustment removes, and ``deal_share``, the share common to every
    replay of the same cards (:func:`~gin_eval.stats.deal_share`; None without replays).
    ``x_of[(cluster, hand index)]``: the deal's covariates (whose mean and its covariance are
    ``adjust``). Rows with draw corrections (the last item, mean 0) append them."""
    extra = per_hand[0][5].size if per_hand else 0
    mu = np.concatenate([adjust[0], np.zeros(extra)])
    mu_cov = np.zeros((mu.size, mu.size))
    mu_cov[: adjust[1].shape[0], : adjust[1].shape[0]] = adjust[1]
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for name, rows, pooled in (
        ("adjusted_points_per_hand", per_hand, True),
        ("adjusted_paired_edge", per_pair, False),
    ):
        if not rows:
            continue
        cl = np.array([r[0] for r in rows])
        agent = np.array([r[2] for r in rows])
        role = np.array([r[3] for r in rows])
        y = np.array([r[4] for r in rows], float)
        x = np.array([np.concatenate([x_of[(r[0], r[1])], r[5]]) for r in rows])
        beta = np.zeros_like(x)
        # Points: one beta per role, fitted on every agent's hands in the role. The paired
        # edge: per agent and role (a beta shared by the agents cancels in the difference).
        for key in {(0 if pooled else a, r) for a, r in zip(agent, role, strict=True)}:
            sel = (role == key[1]) & (True if pooled else agent == key[0])
            beta[sel] = crossfit_beta(y[sel], x[sel], cl[sel])
            if pooled and y[sel].var() > 0:
                resid = y[sel] - ((x[sel] - mu) * beta[sel]).sum(axis=1)
                cards = [(r[0], r[1]) for r, keep in zip(rows, sel, strict=True) if keep]
                by_role[ROLE_NAMES[key[1]]] = {
                    "covariate_r2": float(1 - resid.var() / y[sel].var()),
                    "deal_share": deal_share(y[sel], cards),
                }
        for key in {(a, r) for a, r in zip(agent, role, strict=True)}:
            sel = (agent == key[0]) & (role == key[1])
            if sel.sum() < 2:
                continue
            m, lo, hi = adjusted_mean_ci(y[sel], x[sel], cl[sel], mu, mu_cov, beta[sel])
            ci_key = "adjusted_ci95" if pooled else f"{name}_ci95"
            out.setdefault((int(key[0]), int(key[1])), {}).update({name: m, ci_key: (lo, hi)})
    return out


def duplicate_vs_plain(
    agents: Sequence[AgentSpec],
    deals: int,
    seed: int = 0,
    workers: int = 1,
    adviser: str = "suggest",
    progress: bool = False,
    table: ThreeHandedConfig | None = None,
    unit: str = "match",
    adjust: bool | str = False,
    adjust_deals: int = 20000,
    value: HandValue | str | Path | None = None,
) -> dict[str, Any]:
    """Both designs at ``6 * deals`` matches (or single hands, ``unit="hand"``); per agent
    and role the 95% CI half-widths of the points per hand, of the edge (difference of
    means in both designs) and of the duplicate design's paired edge (against the plain
    design's edge), and each ratio plain / duplicate (> 1: the duplicate design is
    tighter).

    ``adjust=True`` (see :func:`duplicate_three`) adds the half-widths of the adjusted
    points per hand in both designs and of the adjusted paired edge, and the ratios of the
    plain design's **unadjusted** half-width to each: ``points_ratio_plain_adjusted``
    (plain / plain adjusted), ``points_ratio_adjusted`` (plain / duplicate adjusted) and
    ``paired_edge_ratio_adjusted`` (plain edge / duplicate adjusted paired edge).
    ``adjust="value"`` with ``value`` (see :func:`duplicate_three`) the same with the learned
    value's corrections."""
    dup, plain = (
        duplicate_three(
            agents,
            deals,
            seed,
            workers,
            adviser,
            design,
            progress,
            table,
            unit,
            adjust,
            adjust_deals,
            value,
        )  # fmt: skip
        for design in ("duplicate", "plain")
    )
    rows = []
    for name in dup["agents"]:
        for role in ROLE_NAMES:
            d, p = dup["per_agent"][name]["roles"][role], plain["per_agent"][name]["roles"][role]
            if not d.get("hands") or not p.get("hands"):
                continue
            row: dict[str, Any] = {"agent": name, "role": role}
            # The duplicate design's paired edge against the plain design's edge (a
            # difference of means: plain deals have no other player on the same cards).
            for key, ci_d, ci_p in (
                ("points", "ci95", "ci95"),
                ("edge", "edge_ci95", "edge_ci95"),
                ("paired_edge", "paired_edge_ci95", "edge_ci95"),
            ):
                if d[ci_d] is None or p[ci_p] is None:
                    continue
                hd, hp = half_width(d[ci_d]), half_width(p[ci_p])
                row[f"{key}_half_duplicate"] = hd
                row[f"{key}_half_plain"] = hp
                row[f"{key}_ratio"] = hp / hd if hd > 0 else math.inf
            if adjust and p["ci95"] is not None:
                base = half_width(p["ci95"])
                for key, ci in (
                    ("points_adj_half_plain", p.get("adjusted_ci95")),
                    ("points_adj_half_duplicate", d.get("adjusted_ci95")),
                    ("paired_edge_adj_half_duplicate", d.get("adjusted_paired_edge_ci95")),
                ):
                    row[key] = math.nan if ci is None else half_width(ci)
                row["points_ratio_plain_adjusted"] = base / row["points_adj_half_plain"]
                row["points_ratio_adjusted"] = base / row["points_adj_half_duplicate"]
                if p["edge_ci95"] is not None:
                    edge_half = half_width(p["edge_ci95"])
                    row["paired_edge_ratio_adjusted"] = (
                        edge_half / row["paired_edge_adj_half_duplicate"]
                    )
            rows.append(row)
    return {
        "agents": dup["agents"],
        "unit": unit,
        "deals": deals,
        "adjusted": adjust_mode(adjust) is not None,
        "adjust": adjust_mode(adjust),
        "matches_per_design": dup["matches"],
        "hands": {"duplicate": dup["hands"], "plain": plain["hands"]},
        "duplicate": dup,
        "plain": plain,
        "half_widths": rows,
    }


#: The result's key of each adviser mode (also the folder of its replays).
_MODE_NAMES = {"suggest": "adviser_on", "none": "adviser_off"}


def write_duplicate(r: dict[str, Any], out: Path, stem: str) -> list[Path]:
    """Write a :func:`duplicate_three` result (JSON, CSV, a bar plot of the edges)."""
    paths = write_result(out, stem, r, duplicate_rows(r))
    plot_edges(r, out / f"{stem}.png")
    return paths + [out / f"{stem}.png"]


def eval_duplicate(
    specs: Sequence[AgentSpec],
    deals: int,
    seed: int,
    workers: int,
    adviser: str,
    progress: bool,
    out: Path,
    stem: str,
    png: Path | None,
    unit: str = "match",
    adjust: bool | str = False,
    value: str | Path | None = None,
    table: ThreeHandedConfig | None = None,
    concurrency: int = 0,
    replays: str | Path | None = None,
    about: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], list[Path]]:
    """``gin-rummy eval three --duplicate [match|hand] [--adjust]``: :func:`duplicate_three`
    (``unit``, ``adjust``: also the figures adjusted for the deal, or ``"draws"``: also
    corrected for the stock draws, or ``"value"``: corrected with the learned value at
    ``value``, default the committed one) with the adviser on, off
    or both; writes JSON and CSV (and the edges plot at ``png``; every game's replay into
    ``replays``, a folder per adviser mode; ``about``: what else the JSON says, the run's
    name and transcripts), returns the result, the table rows and the paths written."""
    if adviser not in ("suggest", "none", "both"):
        raise OptionError(f"adviser must be one of 'suggest', 'none', 'both'; got {adviser!r}")
    modes = ("suggest", "none") if adviser == "both" else (adviser,)
    table = table or ThreeHandedConfig()
    result: dict[str, Any] = {"design": "duplicate", "unit": unit, "deals": deals, "seed": seed,
                              "rules": table_changes(table)}  # fmt: skip
    rows: list[dict[str, Any]] = []
    for mode in modes:
        r = duplicate_three(
            specs, deals, seed, workers, mode, "duplicate", progress, table, unit=unit,
            adjust=adjust, value=value, concurrency=concurrency,
            replays=None if replays is None else Path(replays) / _MODE_NAMES[mode],
        )  # fmt: skip
        result["agents"], result["specs"] = r["agents"], r["specs"]
        result["adviser_on" if mode == "suggest" else "adviser_off"] = r
        rows += [{"adviser": "on" if mode == "suggest" else "off", **row}
                 for row in duplicate_rows(r)]  # fmt: skip
    result.update(about or {})
    paths = write_result(out, stem, result, rows)
    if png is not None:
        first = result["adviser_on" if "adviser_on" in result else "adviser_off"]
        plot_edges(first, png)
    return result, rows, paths
