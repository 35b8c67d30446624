"""A round-robin ladder: duplicate gin between every pair of agents
(:func:`~gin_eval.gin.play_gin_pair`), rated with OpenSkill and with Elo
(bootstrap intervals)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

from gin_env.config import GinConfig
from gin_env.optional import require
from gin_eval.checks import (
    AgentSpec,
    OptionError,
    check_count,
    check_setup,
    play_here,
    specs_of,
    unique_labels,
)
from gin_eval.gin import GIN, play_gin_pair, replay_names
from gin_eval.outcomes import text_counts, text_stats
from gin_eval.pool import pool_map
from gin_eval.stats import elo_bootstrap, mean_ci, rate_openskill
from gin_eval.writer import write_replays

__all__ = ["ladder"]


def ladder(
    agents: Sequence[AgentSpec],
    pairs: int,
    seed: int = 0,
    workers: int = 2,
    progress: bool = True,
    concurrency: int = 0,
    replays: str | Path | None = None,
) -> dict[str, Any]:
    """Duplicate gin between every pair of ``agents``; OpenSkill and Elo (bootstrap) ratings
    from the duplicate pairs (a pair is won by the side with more points over both hands).
    ``concurrency``: games at once in threads of this process (players that wait on a
    server); ``text`` holds the word-play stats of agents that play in words (with one
    seated, the games are played in this process). ``replays``: a folder that gets every
    game's replay (``pair0-2_deal00004_b.json``: agents 0 and 2 in the order given, deal 4,
    the first as ``player_1``), said in the result's ``"replays"``."""
    if len(agents) < 2:
        raise OptionError(f"ladder needs at least 2 agents, got {len(agents)}")
    check_count("pairs", pairs)
    check_count("workers", workers)
    table = GinConfig()  # the standard table
    check_setup(agents, GIN.make_env, table)
    require("openskill.models", needed_for="the ladder's OpenSkill ratings")
    labels = unique_labels(agents)
    workers = play_here(agents, [table], workers, concurrency)
    since = text_counts(agents, table)
    games: list[tuple[int, int, float]] = []
    matrix: dict[str, dict[str, float]] = {n: {} for n in labels}
    duels = []
    named: list[tuple[str, dict[str, Any]]] = []
    for i, j in combinations(range(len(agents)), 2):
        jobs: list[tuple[Any, ...]] = [
            (agents[i], agents[j], seed, k, table, None, replays is not None, f"pair{i}-{j}_",
             (labels[i], labels[j]))
            for k in range(pairs)
        ]  # fmt: skip
        res = pool_map(
            play_gin_pair, jobs, workers, progress, f"{labels[i]} v {labels[j]}",
            threads=concurrency,
        )  # fmt: skip
        named += replay_names(res, "deal", f"pair{i}-{j}_")
        per_pair = [sum(h["a_points"] for h in r["hands"]) for r in res]
        for p in per_pair:
            games.append((i, j, 1.0 if p > 0 else 0.0 if p < 0 else 0.5))
        m, lo, hi = mean_ci([p / 2 for p in per_pair])
        matrix[labels[i]][labels[j]] = m
        matrix[labels[j]][labels[i]] = -m
        duels.append({"a": labels[i], "b": labels[j], "points_per_hand": m, "ci95": (lo, hi)})
    ratings = rate_openskill(labels, games)
    elo = elo_bootstrap(labels, games, seed=seed)
    ranking = sorted(labels, key=lambda n: -ratings[n]["ordinal"])
    text = text_stats(agents, table, since, labels) if concurrency > 1 or workers <= 1 else {}
    kept = write_replays(replays, named)
    return {
        **({"replays": kept} if kept is not None else {}),
        "text": text,
        "agents": labels,
        "specs": specs_of(agents, labels),
        "pairs": pairs,
        "seed": seed,
        "duels": duels,
        "matrix": matrix,
        "openskill": ratings,
        "elo": elo,
        "ranking": ranking,
    }
