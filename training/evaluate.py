"""Evaluation harness: duplicate two-player gin, three-handed matches, round-robin ladders.

- :func:`gin_duplicate`: every deal is played twice with the agents' seats (and so the
  deal's hands and the dealer) swapped; points per hand with a 95% CI over pairs, hand win
  %, gin / knock / undercut / draw rates, decision time; optionally matches to
  ``target_score`` on paired seeds (the same deck sequence, seats swapped) for match win %.
- :func:`three_handed`: matches of three agents in every rotation of the seats; match win
  % and, by role (box, captain, adviser), hand win % and points per hand; with the adviser
  on, off, or both.
- :func:`ladder`: duplicate gin between every pair, rated with OpenSkill (and Elo with
  bootstrap intervals).

Work is split over worker processes (spawn-safe: agents travel as names/specs, or as
picklable objects), shows a tqdm bar, and depends on ``seed`` alone (with agents whose
budget is a count rather than seconds). ``python -m training.evaluate --help`` for the CLI,
which writes JSON, CSV, a terminal table and matplotlib plots into ``--out`` (default
``runs/eval``, git-ignored; the committed figures live in ``results/``).
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing as mp
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

import agents as agent_registry
from gin_env import games
from gin_env.extras import MissingExtraError, require
from gin_env.match import BOX, ROLE_NAMES
from training import prog_name
from training.rollout import play
from training.stats import elo_bootstrap, mean_ci, rate_openskill, wilson_ci

__all__ = [
    "OptionError",
    "gin_duplicate",
    "three_handed",
    "ladder",
    "play_gin_pair",
    "play_three_match",
    "deal_deck",
    "main",
]

AgentSpec = Any  # a registered name / spec string, or an agent object
#: Where the command line writes by default: a git-ignored folder, so that an evaluation
#: never overwrites the committed figures in ``results/`` unless ``--out results`` says so.
DEFAULT_OUT = "runs/eval"
KINDS = ("knock", "gin", "undercut", "big_gin", "draw")
GIN, THREE = games.get("gin_v0"), games.get("three_handed_gin_v0")
_AGENT_CACHE: dict[tuple[str, str], Any] = {}


# -- agents in workers ----------------------------------------------------------------------
def _agent(spec: AgentSpec, rules: dict[str, Any] | None = None) -> Any:
    """The agent of ``spec``; at a two-player table with ``rules``, seated as
    :func:`agents.make_for_table` seats it (``tuned`` takes the set tuned for them)."""
    if not isinstance(spec, str):
        return spec
    key = (spec, json.dumps(rules, sort_keys=True))
    if key not in _AGENT_CACHE:
        _AGENT_CACHE[key] = (
            agent_registry.make(spec)
            if rules is None
            else agent_registry.make_for_table(spec, rules)
        )
    return _AGENT_CACHE[key]


def _label(spec: AgentSpec) -> str:
    return spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)


def deal_deck(seed: int, index: int) -> list[int]:
    """The deck of duplicate deal ``index`` under ``seed`` (a seed-only function)."""
    return np.random.default_rng([seed, index, 7]).permutation(52).tolist()


# -- two-player duplicate -------------------------------------------------------------------
def play_gin_pair(
    spec_a: AgentSpec, spec_b: AgentSpec, seed: int, index: int, rules: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Deal ``index``: A as ``player_0`` then as ``player_1`` on the same deck.

    Returns per hand: the deck played, which agent held each player, the dealer's agent,
    the kind, A's points (+ when A scored, - when B did), A's win, decision times.
    """
    rules = rules or {}
    deck = deal_deck(seed, index)
    hands = []
    for swap in (False, True):
        env = GIN.make_env(episode="hand", **rules)
        # The same env seed for both hands: the same initial draw, so the same player deals.
        env.reset(
            seed=int(np.random.default_rng([seed, index]).integers(2**31)), options={"deck": deck}
        )
        seat_a = "player_1" if swap else "player_0"
        seat_b = "player_0" if swap else "player_1"
        rng = np.random.default_rng([seed, index, int(swap)])
        run = play(env, {seat_a: _agent(spec_a, rules), seat_b: _agent(spec_b, rules)}, rng)
        match = env.match
        assert match is not None  # reset above
        rec = match.history[0]
        res = rec.result
        assert res is not None
        winner = None if res.winner is None else f"player_{rec.players[res.winner]}"
        pts = 0 if winner is None else (res.points if winner == seat_a else -res.points)
        dealer_player = f"player_{rec.players[1]}"
        hands.append(
            {
                "deck": list(rec.deck),
                "seat_a": seat_a,
                "a_dealer": dealer_player == seat_a,
                "kind": res.kind,
                "a_points": pts,
                "a_won": winner == seat_a,
                "b_won": winner == seat_b,
                "knocker_a": None
                if res.knocker is None
                else f"player_{rec.players[res.knocker]}" == seat_a,
                "a_decisions": run.decisions[seat_a],
                "a_seconds": run.seconds[seat_a],
                "b_decisions": run.decisions[seat_b],
                "b_seconds": run.seconds[seat_b],
            }
        )
    return {"index": index, "hands": hands}


def play_gin_match_pair(
    spec_a: AgentSpec, spec_b: AgentSpec, seed: int, index: int, rules: dict[str, Any]
) -> dict[str, Any]:
    """Two matches on one env seed (the same deck sequence), A as player_0 then player_1."""
    env_seed = int(np.random.default_rng([seed, index, 99]).integers(2**31))
    out = []
    for swap in (False, True):
        env = GIN.make_env(episode="match", **rules)
        env.reset(seed=env_seed)
        seat_a = "player_1" if swap else "player_0"
        seat_b = "player_0" if swap else "player_1"
        players = {seat_a: _agent(spec_a, rules), seat_b: _agent(spec_b, rules)}
        play(env, players, np.random.default_rng([seed, index, 5, int(swap)]))
        match = env.match
        assert match is not None  # reset above
        winner = match.winner
        out.append(
            {
                "a_won": winner is not None and f"player_{winner}" == seat_a,
                "hands": len(match.history),
            }
        )
    return {"index": index, "matches": out}


def _pool_map(
    fn: Callable[..., dict[str, Any]],
    jobs: Sequence[tuple[Any, ...]],
    workers: int,
    progress: bool,
    desc: str,
) -> list[dict[str, Any]]:
    """``fn(*job)`` for every job, in order, over ``workers`` spawned processes."""
    from tqdm import tqdm

    bar = tqdm(total=len(jobs), desc=desc, disable=not progress, leave=False)
    out: list[dict[str, Any]] = []
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            out.append(fn(*job))
            bar.update()
    else:
        ctx = mp.get_context("spawn")
        with ctx.Pool(workers) as pool:
            chunk = max(1, min(16, len(jobs) // (workers * 8)))
            for r in pool.imap(_Star(fn), jobs, chunksize=chunk):
                out.append(r)
                bar.update()
    bar.close()
    return out


class _Star:
    def __init__(self, fn: Callable[..., dict[str, Any]]) -> None:
        self.fn = fn

    def __call__(self, job: tuple[Any, ...]) -> dict[str, Any]:
        return self.fn(*job)


class OptionError(ValueError):
    """A bad argument to an evaluation (a count, the agents, the rules), found before any
    game is played; the command line reports it as a usage error."""


def _check_count(name: str, value: object, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise OptionError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def _check_setup(
    agents: Sequence[AgentSpec],
    make_env: Callable[[], Any],
    rules: dict[str, Any] | None = None,
) -> None:
    """Build the agents and an env with the rules once, up front, so that a bad spec or
    rule option is an :class:`OptionError` before any game is played."""
    try:
        make_env()
        for spec in agents:
            _agent(spec, rules)
    except OptionError:
        raise
    except ValueError as err:
        raise OptionError(str(err)) from None


def gin_duplicate(
    agent_a: AgentSpec,
    agent_b: AgentSpec,
    pairs: int,
    seed: int = 0,
    workers: int = 2,
    target_score: int = 100,
    matches: int = 0,
    progress: bool = True,
    rules: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A against B on ``pairs`` duplicate deals (and ``matches`` paired matches).

    Points are A's: + when A scored. ``ci95`` is over the pairs' mean points per hand.
    """
    _check_count("pairs", pairs)
    _check_count("matches", matches, 0)
    _check_count("workers", workers)
    rules = dict(rules or {})
    _check_setup(
        (agent_a, agent_b),
        lambda: GIN.make_env(**dict(rules, target_score=target_score) if matches else rules),
        rules,
    )
    jobs = [(agent_a, agent_b, seed, i, rules) for i in range(pairs)]
    results = _pool_map(
        play_gin_pair, jobs, workers, progress, f"{_label(agent_a)} v {_label(agent_b)}"
    )
    hands = [h for r in results for h in r["hands"]]
    per_pair = [sum(h["a_points"] for h in r["hands"]) / 2 for r in results]
    mean, lo, hi = mean_ci(per_pair)
    n = len(hands)
    wins = sum(h["a_won"] for h in hands)
    losses = sum(h["b_won"] for h in hands)
    decided = wins + losses
    kinds = {k: sum(h["kind"] == k for h in hands) / n for k in KINDS}
    a_n = sum(h["a_decisions"] for h in hands)
    b_n = sum(h["b_decisions"] for h in hands)
    a_ms = 1000 * sum(h["a_seconds"] for h in hands) / max(1, a_n)
    b_ms = 1000 * sum(h["b_seconds"] for h in hands) / max(1, b_n)
    a_knocks = [h for h in hands if h["knocker_a"] is True]
    out: dict[str, Any] = {
        "agent_a": _label(agent_a),
        "agent_b": _label(agent_b),
        "seed": seed,
        "pairs": pairs,
        "n_hands": n,
        "points_per_hand": mean,
        "ci95": (lo, hi),
        "hand_win_rate": wins / n,
        "hand_win_rate_ci95": wilson_ci(wins, n),
        "hand_loss_rate": losses / n,
        "decided_win_rate": wins / decided if decided else 0.0,
        "kind_rates": kinds,
        "gin_rate": kinds["gin"],
        "knock_rate": kinds["knock"],
        "undercut_rate": kinds["undercut"],
        "draw_rate": kinds["draw"],
        "a_knocks": len(a_knocks),
        "a_undercut_when_knocking": sum(h["kind"] == "undercut" for h in a_knocks)
        / max(1, len(a_knocks)),
        "mean_decision_ms": a_ms,
        "mean_decision_ms_b": b_ms,
        "rules": rules,
    }
    if matches:
        mrules = dict(rules, target_score=target_score)
        mjobs = [(agent_a, agent_b, seed, i, mrules) for i in range(matches)]
        mres = _pool_map(play_gin_match_pair, mjobs, workers, progress, "matches")
        games = [m for r in mres for m in r["matches"]]
        mwins = sum(m["a_won"] for m in games)
        out.update(
            matches=len(games),
            target_score=target_score,
            match_win_rate=mwins / len(games),
            match_win_rate_ci95=wilson_ci(mwins, len(games)),
            hands_per_match=float(np.mean([m["hands"] for m in games])),
        )
    return out


# -- three-handed -----------------------------------------------------------------------------
def play_three_match(
    specs: Sequence[AgentSpec], seed: int, index: int, adviser: str, rules: dict[str, Any]
) -> dict[str, Any]:
    """One match; ``specs[k]`` plays ``player_k``. Per hand: each player's role and points
    (the box's points, and the captain's team's: the adviser shares the captain's)."""
    env = THREE.make_env(adviser=adviser, episode="match", max_hands=2000, **rules)
    env.reset(seed=int(np.random.default_rng([seed, index, 3]).integers(2**31)))
    players = {f"player_{k}": _agent(s) for k, s in enumerate(specs)}
    run = play(env, players, np.random.default_rng([seed, index, 11]))
    match = env.match
    assert match is not None  # reset above
    hands = []
    for rec in match.history:
        res = rec.result
        if res is None:
            continue
        scorer = None if res.winner is None else rec.players[res.winner]
        box = rec.roles.index(BOX)
        box_pts = 0 if scorer is None else (res.points if scorer == box else -res.points)
        hands.append(
            {
                "roles": list(rec.roles),
                "box_points": box_pts,
                "kind": res.kind,
                "box_won": scorer == box,
                "team_won": scorer is not None and scorer != box,
            }
        )
    return {
        "index": index,
        "winner": match.winner,
        "hands": hands,
        "decisions": [run.decisions[a] for a in players],
        "seconds": [run.seconds[a] for a in players],
    }


def _three_summary(labels: list[str], results: list[dict[str, Any]]) -> dict[str, Any]:
    names = sorted(set(labels))
    wins = dict.fromkeys(names, 0)
    seats = dict.fromkeys(names, 0)
    role_stats: dict[str, dict[str, dict[str, Any]]] = {
        n: {r: {"hands": 0, "won": 0, "points": []} for r in ROLE_NAMES} for n in names
    }
    box_pts: list[float] = []
    box_won = 0
    n_hands = 0
    for r in results:
        order = r["order"]
        for k in range(3):
            seats[order[k]] += 1
        if r["winner"] is not None:
            wins[order[r["winner"]]] += 1
        for h in r["hands"]:
            n_hands += 1
            box_pts.append(h["box_points"])
            box_won += h["box_won"]
            for player, role in enumerate(h["roles"]):
                st = role_stats[order[player]][ROLE_NAMES[role]]
                st["hands"] += 1
                st["won"] += h["box_won"] if role == BOX else h["team_won"]
                st["points"].append(h["box_points"] if role == BOX else -h["box_points"])
    per_agent = {}
    for n in names:
        roles = {}
        for role, st in role_stats[n].items():
            pts = st["points"]
            roles[role] = {
                "hands": st["hands"],
                "hand_win_rate": st["won"] / st["hands"] if st["hands"] else None,
                "points_per_hand": float(np.mean(pts)) if pts else None,
                "ci95": mean_ci(pts)[1:] if pts else None,
            }
        per_agent[n] = {
            "matches": seats[n],
            "match_win_rate": wins[n] / seats[n] if seats[n] else 0.0,
            "roles": roles,
        }
    m, lo, hi = mean_ci(box_pts) if box_pts else (0.0, 0.0, 0.0)
    return {
        "matches": len(results),
        "hands": n_hands,
        "box_hand_win_rate": box_won / n_hands if n_hands else 0.0,
        "box_points_per_hand": m,
        "box_points_ci95": (lo, hi),
        "agents": per_agent,
    }


def three_handed(
    agents: Sequence[AgentSpec],
    matches: int,
    seed: int = 0,
    workers: int = 2,
    adviser: str = "suggest",
    progress: bool = True,
    rules: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``matches`` three-handed matches (seats rotated through the three agents in turn).

    ``adviser``: ``"suggest"`` (advice on), ``"none"`` (off) or ``"both"`` (both runs on the
    same seeds, to show what advice is worth). Box points are + when the box scores.
    """
    if len(agents) != 3:
        raise OptionError(f"three_handed needs exactly 3 agents, got {len(agents)}")
    if adviser not in ("suggest", "none", "both"):
        raise OptionError(f"adviser must be one of 'suggest', 'none', 'both'; got {adviser!r}")
    _check_count("matches", matches)
    _check_count("workers", workers)
    _check_setup(agents, lambda: THREE.make_env(**(rules or {})))
    labels = [_label(a) for a in agents]
    if len(set(labels)) < 3:  # one agent several times: label the seats apart
        labels = [f"{lab}#{k}" if labels.count(lab) > 1 else lab for k, lab in enumerate(labels)]
    modes = ("suggest", "none") if adviser == "both" else (adviser,)
    out: dict[str, Any] = {"agents": labels, "seed": seed, "matches": matches}
    for mode in modes:
        jobs = []
        orders = []
        for i in range(matches):
            rot = i % 3
            order = [labels[(k + rot) % 3] for k in range(3)]
            specs = [agents[(k + rot) % 3] for k in range(3)]
            orders.append(order)
            jobs.append((specs, seed, i, mode, dict(rules or {})))
        res = _pool_map(play_three_match, jobs, workers, progress, f"three-handed ({mode})")
        for r, order in zip(res, orders, strict=True):
            r["order"] = order
        out["adviser_on" if mode == "suggest" else "adviser_off"] = _three_summary(labels, res)
    return out


# -- ladder ---------------------------------------------------------------------------------
def ladder(
    agents: Sequence[AgentSpec],
    pairs: int,
    seed: int = 0,
    workers: int = 2,
    progress: bool = True,
) -> dict[str, Any]:
    """Duplicate gin between every pair of ``agents``; OpenSkill and Elo (bootstrap) ratings
    from the duplicate pairs (a pair is won by the side with more points over both hands)."""
    if len(agents) < 2:
        raise OptionError(f"ladder needs at least 2 agents, got {len(agents)}")
    _check_count("pairs", pairs)
    _check_count("workers", workers)
    _check_setup(agents, GIN.make_env)
    require("openskill.models", needed_for="the ladder's OpenSkill ratings")
    labels = [_label(a) for a in agents]
    games: list[tuple[int, int, float]] = []
    matrix: dict[str, dict[str, float]] = {n: {} for n in labels}
    duels = []
    for i, j in combinations(range(len(agents)), 2):
        jobs: list[tuple[Any, ...]] = [(agents[i], agents[j], seed, k, {}) for k in range(pairs)]
        res = _pool_map(play_gin_pair, jobs, workers, progress, f"{labels[i]} v {labels[j]}")
        per_pair = [sum(h["a_points"] for h in r["hands"]) for r in res]
        for p in per_pair:
            games.append((i, j, 1.0 if p > 0 else 0.0 if p < 0 else 0.5))
        m, lo, hi = mean_ci([p / 2 for p in per_pair])
        matrix[labels[i]][labels[j]] = m
        matrix[labels[j]][labels[i]] = -m
        duels.append({"a": labels[i], "b": labels[j], "points_per_hand": m, "ci95": (lo, hi)})
    ratings = rate_openskill(labels, games)
    elo = elo_bootstrap(labels, games, seed=seed)
    table = sorted(labels, key=lambda n: -ratings[n]["ordinal"])
    return {
        "agents": labels,
        "pairs": pairs,
        "seed": seed,
        "duels": duels,
        "matrix": matrix,
        "openskill": ratings,
        "elo": elo,
        "ranking": table,
    }


# -- output ---------------------------------------------------------------------------------
def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, tuple):
        return list(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def _write(out: Path, stem: str, result: dict[str, Any], rows: list[dict[str, Any]]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.json", out / f"{stem}.csv"]
    paths[0].write_text(json.dumps(result, indent=2, default=_json_default) + "\n")
    with paths[1].open("w", newline="") as f:
        if rows:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return paths


def _table(rows: Iterable[dict[str, Any]]) -> str:
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


def _plot_bars(
    path: Path | None,
    labels: list[str],
    values: list[float],
    errs: list[tuple[float, float]] | None,
    title: str,
    ylabel: str,
) -> None:
    if path is None:  # --no-plot
        return
    matplotlib = require("matplotlib", needed_for="eval plots")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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


def _gin_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    row = {
        "agent_a": r["agent_a"],
        "agent_b": r["agent_b"],
        "pairs": r["pairs"],
        "pts_per_hand": r["points_per_hand"],
        "ci_low": r["ci95"][0],
        "ci_high": r["ci95"][1],
        "hand_win": r["hand_win_rate"],
        "decided_win": r["decided_win_rate"],
        "gin": r["gin_rate"],
        "knock": r["knock_rate"],
        "undercut": r["undercut_rate"],
        "draw": r["draw_rate"],
        "ms_a": r["mean_decision_ms"],
        "ms_b": r["mean_decision_ms_b"],
    }
    if "match_win_rate" in r:
        row["match_win"] = r["match_win_rate"]
    return [row]


def _three_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for mode in ("adviser_on", "adviser_off"):
        if mode not in r:
            continue
        s = r[mode]
        for name, st in s["agents"].items():
            row: dict[str, Any] = {
                "adviser": mode[8:],
                "agent": name,
                "match_win": st["match_win_rate"],
            }
            for role in ROLE_NAMES:
                rs = st["roles"][role]
                row[f"{role}_win"] = (
                    rs["hand_win_rate"] if rs["hand_win_rate"] is not None else float("nan")
                )
                row[f"{role}_pts"] = (
                    rs["points_per_hand"] if rs["points_per_hand"] is not None else float("nan")
                )
            rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """CLI: ``python -m training.evaluate {gin,three,ladder} --agents a,b[,c] ...``."""
    p = argparse.ArgumentParser(
        prog=prog_name("python -m training.evaluate"), description=__doc__.split("\n")[0]
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--agents", required=True, help="comma-separated names or specs")
    common.add_argument("--seed", type=int, default=0)
    common.add_argument("--workers", type=int, default=2)
    common.add_argument(
        "--out",
        default=DEFAULT_OUT,
        help=f"folder for JSON/CSV/PNG (default: {DEFAULT_OUT}, ignored by git; the "
        "committed figures in results/ are written only when asked: --out results)",
    )
    common.add_argument("--name", default=None, help="file stem (default from the agents)")
    common.add_argument("--no-progress", action="store_true")
    common.add_argument(
        "--no-plot", action="store_true", help="skip the PNG plot (no matplotlib needed)"
    )
    g = sub.add_parser("gin", parents=[common], help="duplicate two-player gin, A vs B")
    g.add_argument("--pairs", type=int, default=500)
    g.add_argument("--matches", type=int, default=0, help="paired matches to --target")
    g.add_argument("--target", type=int, default=100)
    t = sub.add_parser("three", parents=[common], help="three-handed matches of three agents")
    t.add_argument("--matches", type=int, default=60)
    t.add_argument("--adviser", default="both", choices=("suggest", "none", "both"))
    t.add_argument(
        "--duplicate",
        nargs="?",
        const="match",
        default=None,
        choices=("match", "hand"),
        help="duplicate design (training.team_study), CIs paired by deal: 'match' replays "
        "each deal sequence in all 6 seatings (match win %%), 'hand' deals each single hand "
        "to all 6 role assignments (tightest role comparisons); --matches counts deals",
    )
    from training.team_study import ADJUST_MODES  # imports this module: kept late

    t.add_argument(
        "--adjust",
        nargs="?",
        const="deal",
        default=None,
        choices=ADJUST_MODES,
        help="with --duplicate: also points per hand and paired edges adjusted for the deal "
        "(regression on covariates of the deck) or, with 'draws', also corrected for the "
        "luck of every stock draw (AIVAT-style; training.team_study) or, with 'value', "
        "corrected at the deal and every draw by the committed learned value of the state",
    )
    lad = sub.add_parser("ladder", parents=[common], help="round-robin ladder with ratings")
    lad.add_argument("--pairs", type=int, default=200)
    args = p.parse_args(argv)
    try:
        if not args.no_plot:  # checked before any game is played
            require("matplotlib", needed_for="eval plots (or pass --no-plot)")
        return _run(args)
    except OptionError as err:  # pairs 0, an unknown agent, a bad rule: a usage error
        p.error(str(err))
    except MissingExtraError as err:  # an optional package is missing: say which extra
        p.exit(1, f"{p.prog}: error: {err}\n")


def _run(args: argparse.Namespace) -> dict[str, Any]:
    specs = [s.strip() for s in args.agents.split(";" if ";" in args.agents else ",") if s.strip()]
    out = Path(args.out)
    progress = not args.no_progress
    stem = args.name or f"{args.cmd}_" + "_vs_".join(
        s.replace(":", "-").replace("=", "") for s in specs
    )
    png = None if args.no_plot else out / f"{stem}.png"
    if args.cmd == "gin":
        if len(specs) != 2:
            raise OptionError(f"gin needs exactly 2 agents, got {specs}")
        r = gin_duplicate(
            specs[0],
            specs[1],
            args.pairs,
            args.seed,
            args.workers,
            args.target,
            args.matches,
            progress,
        )
        rows = _gin_rows(r)
        paths = _write(out, stem, r, rows)
        _plot_bars(
            png,
            [f"{r['agent_a']}\nv {r['agent_b']}"],
            [r["points_per_hand"]],
            [tuple(r["ci95"])],
            "duplicate gin: points per hand (95% CI)",
            "points / hand",
        )
    elif args.cmd == "three" and getattr(args, "adjust", False) and not args.duplicate:
        raise OptionError("--adjust needs --duplicate (match or hand)")
    elif args.cmd == "three" and args.duplicate:
        from training.team_study import eval_duplicate  # imports this module: kept late

        r, rows, paths = eval_duplicate(
            specs, args.matches, args.seed, args.workers, args.adviser, progress, out, stem, png,
            unit=args.duplicate, adjust=args.adjust or False,
        )  # fmt: skip
    elif args.cmd == "three":
        r = three_handed(specs, args.matches, args.seed, args.workers, args.adviser, progress)
        rows = _three_rows(r)
        paths = _write(out, stem, r, rows)
        modes = [m for m in ("adviser_on", "adviser_off") if m in r]
        _plot_bars(
            png,
            [m.replace("_", " ") for m in modes],
            [r[m]["box_points_per_hand"] for m in modes],
            [tuple(r[m]["box_points_ci95"]) for m in modes],
            "three-handed: box points per hand (95% CI)",
            "points / hand",
        )
    else:
        r = ladder(specs, args.pairs, args.seed, args.workers, progress)
        rows = [
            {
                "agent": n,
                "mu": r["openskill"][n]["mu"],
                "sigma": r["openskill"][n]["sigma"],
                "ordinal": r["openskill"][n]["ordinal"],
                "elo": r["elo"][n]["elo"],
                "elo_low": r["elo"][n]["low"],
                "elo_high": r["elo"][n]["high"],
            }
            for n in r["ranking"]
        ]
        paths = _write(out, stem, r, rows)
        _plot_bars(
            png,
            r["ranking"],
            [r["elo"][n]["elo"] - 1500 for n in r["ranking"]],
            [(r["elo"][n]["low"] - 1500, r["elo"][n]["high"] - 1500) for n in r["ranking"]],
            "ladder: Elo - 1500 (bootstrap 95% CI)",
            "Elo - 1500",
        )
    print(_table(rows))
    print("wrote", ", ".join(str(x) for x in paths + ([png] if png else [])))
    return r


if __name__ == "__main__":
    main()
