"""Duplicate basic rummy: every deal played once in each rotation of the agents round the
table (2-6 agents), so each agent holds each seat's cards once per deal. Per agent:
points per hand with a 95% CI over deals, hand win %, the share of its wins that went
out in one turn (rummy) and the mean pips left in its hand when another went out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from agents.llm import decision_context
from gin_env import games
from gin_env.cards import mask_points
from gin_env.config import RummyConfig, table_changes
from gin_env.record import table_record
from gin_env.rummy import MAX_PLAYERS, MIN_PLAYERS
from gin_eval.checks import (
    AgentSpec,
    OptionError,
    agent_of,
    check_count,
    check_setup,
    play_here,
    specs_of,
    unique_labels,
)
from gin_eval.gin import deal_deck
from gin_eval.outcomes import text_counts, text_stats
from gin_eval.play import env_seed
from gin_eval.pool import pool_map
from gin_eval.rollout import play
from gin_eval.stats import mean_ci, wilson_ci
from gin_eval.writer import write_replays

__all__ = ["RUMMY", "RULES", "play_rummy_deal", "rummy_duplicate"]

RUMMY = games.get("rummy_v0")
#: The rule options of an evaluated rummy table (one hand per deal: no target).
RULES = ("ace_high_or_low", "max_turns")


def play_rummy_deal(
    specs: Sequence[AgentSpec],
    seed: int,
    index: int,
    rotation: int,
    table: RummyConfig,
    replays: bool = False,
) -> dict[str, Any]:
    """Deal ``index`` at ``table`` (its ``num_players`` is ``len(specs)``) with agent
    ``(k + rotation) % n`` in seat ``k``: each seat's payment (+ for the winner), the
    winner's seat, rummy, truncation and the pips left by seat; with ``replays``, the
    hand's record (``"replays"``: its moves, :func:`gin_env.record.replay_moves`)."""
    n = len(specs)
    options = table_changes(table)
    env = RUMMY.make_env(**options)
    deck = deal_deck(seed, index)
    seed_of_env = env_seed(seed, index, 41)
    env.reset(seed=seed_of_env, options={"deck": deck})
    seats = [(k + rotation) % n for k in range(n)]
    players = {f"player_{k}": agent_of(specs[a], table) for k, a in enumerate(seats)}
    labels = unique_labels(specs)
    where = {f"player_{k}": labels[a] for k, a in enumerate(seats)}
    moves: list[tuple[int, int]] = []

    def keep(env: Any, agent: str, action: int) -> None:
        moves.append((env.possible_agents.index(agent), action))

    name = f"deal{index:05d}_rotation{rotation}"
    with decision_context(design="rummy", game_index=index, replay=name, seed=seed_of_env,
                          eval_seed=seed, seats=where):  # fmt: skip
        play(env, players, np.random.default_rng([seed, index, rotation, 43]), after=keep)
    state = env.table_state
    assert state is not None  # reset above
    result = state.rummy_results[-1]
    if replays:
        record = table_record(seed_of_env, options, env, where, moves, first_deck=deck)
    return {
        **({"replays": [record]} if replays else {}),
        "index": index,
        "agents": seats,
        "payments": list(result.payments),
        "winner": result.winner,
        "rummy": bool(result.rummy),
        "truncated": bool(result.truncated),
        "pips_left": [mask_points(h) for h in result.cards_left],
    }


def rummy_duplicate(
    agents: Sequence[AgentSpec],
    deals: int,
    seed: int = 0,
    workers: int = 2,
    progress: bool = True,
    table: RummyConfig | None = None,
    concurrency: int = 0,
    replays: str | Path | None = None,
) -> dict[str, Any]:
    """``deals`` deals, each in all ``n`` rotations of the ``n`` agents (2-6), at ``table``
    (default: the standard rules) with ``n`` players and single hands (no target);
    ``replays``: a folder that gets every hand's record (``deal00001_rotation2.json``),
    said in the result's ``"replays"``."""
    n = len(agents)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise OptionError(f"rummy needs {MIN_PLAYERS} to {MAX_PLAYERS} agents, got {n}")
    check_count("deals", deals)
    check_count("workers", workers)
    table = table or RummyConfig()
    other = sorted(k for k, v in table_changes(table).items() if k not in RULES + ("num_players",))
    if other:
        raise OptionError(
            f"{', '.join(other)} is not a rule option of eval rummy; allowed: {', '.join(RULES)}"
        )
    table = replace(table, num_players=n)  # one seat per agent
    check_setup(agents, lambda: RUMMY.make_env(table), table)
    labels = unique_labels(agents)
    workers = play_here(agents, [table], workers, concurrency)
    since = text_counts(agents, table)
    keep = replays is not None
    jobs = [(list(agents), seed, i, r, table, keep) for i in range(deals) for r in range(n)]
    res = pool_map(play_rummy_deal, jobs, workers, progress, f"rummy x{n}", threads=concurrency)
    named = [
        (f"deal{r['index']:05d}_rotation{k % n}", record)
        for k, r in enumerate(res)
        for record in r.pop("replays", ())
    ]
    per_deal = np.zeros((deals, n))
    hands = np.zeros(n)
    won = np.zeros(n)
    rummies = np.zeros(n)
    lost_pips: list[list[int]] = [[] for _ in range(n)]
    truncated = 0
    for r in res:
        truncated += r["truncated"]
        for seat, a in enumerate(r["agents"]):
            per_deal[r["index"], a] += r["payments"][seat] / n
            hands[a] += 1
            if r["winner"] == seat:
                won[a] += 1
                rummies[a] += r["rummy"]
            elif r["winner"] is not None:
                lost_pips[a].append(r["pips_left"][seat])
    per_agent = {}
    for a, label in enumerate(labels):
        m, lo, hi = mean_ci(per_deal[:, a].tolist())
        per_agent[label] = {
            "hands": int(hands[a]),
            "points_per_hand": m,
            "ci95": (lo, hi),
            "hand_win_rate": won[a] / hands[a],
            "hand_win_rate_ci95": wilson_ci(int(won[a]), int(hands[a])),
            "rummy_share_of_wins": rummies[a] / won[a] if won[a] else None,
            "mean_pips_left_when_lost": float(np.mean(lost_pips[a])) if lost_pips[a] else None,
        }
    out: dict[str, Any] = {
        "agents": labels,
        "specs": specs_of(agents, labels),
        "seed": seed,
        "deals": deals,
        "hands": len(res),
        "truncated_hands": truncated,
        "rules": {k: v for k, v in table_changes(table).items() if k != "num_players"},
        "per_agent": per_agent,
    }
    if concurrency > 1 or workers <= 1:
        out["text"] = text_stats(agents, table, since, labels)
    if keep:
        out["replays"] = write_replays(replays, named)
    return out
