"""Plain three-handed matches of three agents in every rotation of the seats: match win %
and, by role (box, captain, adviser), hands played, hand win % and points per hand; with
the adviser on, off, or both, each mode with its own figures (the word-play figures of
its players in words too), its replays in its own folder and its transcript lines
carrying its name. The duplicate design (every deal replayed in all six seatings, CIs
paired by deal) is :mod:`gin_eval.duplicate`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from agents.llm import decision_context
from gin_env import games
from gin_env.config import ThreeHandedConfig, table_changes
from gin_env.match import BOX, ROLE_NAMES
from gin_env.record import match_record
from gin_eval.checks import (
    AgentSpec,
    OptionError,
    agent_of,
    check_count,
    check_setup,
    label_of,
    play_here,
    specs_of,
    unique_labels,
)
from gin_eval.outcomes import hand_outcome, text_counts, text_stats, win_kinds
from gin_eval.play import adviser_mode, box_side
from gin_eval.pool import pool_map
from gin_eval.rollout import play
from gin_eval.stats import mean_ci
from gin_eval.writer import write_replays

__all__ = ["THREE", "play_three_match", "three_handed"]

#: The env every three-handed match plays.
THREE = games.get("three_handed_gin_v0")


def play_three_match(
    specs: Sequence[AgentSpec],
    seed: int,
    index: int,
    table: ThreeHandedConfig,
    env_options: Mapping[str, Any] | None = None,
    replays: bool = False,
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One match at ``table``; ``specs[k]`` plays ``player_k`` (named ``labels[k]``);
    ``env_options``: what is not a rule (``observation="history"``). Per hand: each
    player's role and points (the box's points, and the captain's team's: the adviser
    shares the captain's); with ``replays``, the match's replay record (``"replays"``,
    :mod:`gin_env.record`: ``match00004`` in the adviser mode's folder)."""
    options = {**table_changes(table), **(env_options or {}), "episode": "match",
               "max_hands": 2000}  # fmt: skip
    env = THREE.make_env(**options)
    env_seed = int(np.random.default_rng([seed, index, 3]).integers(2**31))
    env.reset(seed=env_seed)
    players = {f"player_{k}": agent_of(s, table) for k, s in enumerate(specs)}
    names = list(labels) if labels is not None else [label_of(s) for s in specs]
    where = {f"player_{k}": names[k] for k in range(len(specs))}
    game = {"design": "three", "mode": adviser_mode(table), "game_index": index,
            "replay": f"match{index:05d}", "seed": env_seed, "eval_seed": seed}  # fmt: skip
    with decision_context(**game, seats=where):
        run = play(env, players, np.random.default_rng([seed, index, 11]))
    state = env.table_state
    assert state is not None  # reset above
    hands = []
    for rec in state.history:
        if rec.result is None:
            continue
        side = box_side(rec)  # in the keys' order the results always had
        hands.append({"roles": side["roles"], "box_points": side["box_points"],
                      "kind": rec.result.kind, "box_won": side["box_won"],
                      "team_won": side["team_won"],
                      "outcome": hand_outcome(rec, 3)})  # fmt: skip
    out = {
        "index": index,
        "winner": state.winner,
        "hands": hands,
        "decisions": [run.decisions[a] for a in players],
        "seconds": [run.seconds[a] for a in players],
    }
    if replays:
        out["replays"] = [match_record(env_seed, options, env, where)]
    return out


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
    kinds = win_kinds((r["order"], h["outcome"]) for r in results for h in r["hands"])
    for n in names:
        per_agent[n]["win_kinds"] = kinds.get(n)
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
    table: ThreeHandedConfig | None = None,
    env_options: Mapping[str, Any] | None = None,
    concurrency: int = 0,
    replays: str | Path | None = None,
) -> dict[str, Any]:
    """``matches`` three-handed matches (seats rotated through the three agents in turn) at
    ``table`` (default: the standard rules; its adviser is set by ``adviser``).
    ``concurrency``: games at once in threads of this process (see
    :func:`~gin_eval.pool.pool_map`); per agent ``win_kinds`` (wins by gin /
    knock / undercut, deadwood at showdown) and, for agents in words, their figures in each
    mode's ``text`` (the whole run's in ``text``; with one seated the games are played in
    this process). ``replays``: a folder that gets every match's replay, a folder per
    adviser mode (``adviser_on/match00004.json``), said in each mode's ``"replays"``.

    ``adviser``: ``"suggest"`` (advice on), ``"none"`` (off) or ``"both"`` (both runs on the
    same seeds, to show what advice is worth). Box points are + when the box scores.
    """
    if len(agents) != 3:
        raise OptionError(f"three_handed needs exactly 3 agents, got {len(agents)}")
    if adviser not in ("suggest", "none", "both"):
        raise OptionError(f"adviser must be one of 'suggest', 'none', 'both'; got {adviser!r}")
    check_count("matches", matches)
    check_count("workers", workers)
    table = table or ThreeHandedConfig()
    opts = dict(env_options or {})
    check_setup(agents, lambda: THREE.make_env(table, **opts), table)
    labels = unique_labels(agents)  # one agent several times: the seats labelled apart
    modes = ("suggest", "none") if adviser == "both" else (adviser,)
    out: dict[str, Any] = {
        "agents": labels,
        "specs": specs_of(agents, labels),
        "seed": seed,
        "matches": matches,
        "rules": table_changes(table),
    }
    keep = replays is not None
    tables = [replace(table, adviser=mode) for mode in modes]
    workers = play_here(agents, tables, workers, concurrency)
    here = concurrency > 1 or workers <= 1  # the games are played in this process
    start = text_counts(agents, tables)
    for mode_table in tables:
        since = text_counts(agents, mode_table)
        jobs = []
        orders = []
        for i in range(matches):
            rot = i % 3
            order = [labels[(k + rot) % 3] for k in range(3)]
            specs = [agents[(k + rot) % 3] for k in range(3)]
            orders.append(order)
            jobs.append((specs, seed, i, mode_table, opts, keep, order))
        key = adviser_mode(mode_table)
        res = pool_map(
            play_three_match, jobs, workers, progress, f"three-handed ({key.replace('_', ' ')})",
            threads=concurrency,
        )  # fmt: skip
        named: list[tuple[str, dict[str, Any]]] = []
        for r, order in zip(res, orders, strict=True):
            r["order"] = order
            named += [(f"match{r['index']:05d}", x) for x in r.pop("replays", ())]
        out[key] = _three_summary(labels, res)
        if here:  # this mode's agents' figures: what they played in this mode alone
            out[key]["text"] = text_stats(agents, mode_table, since, labels)
        if keep:
            out[key]["replays"] = write_replays(Path(replays) / key, named)  # type: ignore[arg-type]
    if here:
        out["text"] = text_stats(agents, tables, start, labels)
    return out
