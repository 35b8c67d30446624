"""Duplicate two-player gin: every deal played twice with the agents' seats (and so the
deal's hands and the dealer) swapped; points per hand with a 95% CI over pairs, hand win %,
gin / knock / undercut / draw rates, decision time; optionally matches to ``target_score``
on paired seeds (the same deck sequence, seats swapped) for match win %.

Work is split over worker processes (:func:`~gin_eval.pool.pool_map`: agents
travel as names/specs, or as picklable objects) and depends on ``seed`` alone (with agents
whose budget is a count rather than seconds).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from agents.llm import decision_context
from gin_env import games
from gin_env.config import GinConfig, table_changes, table_options
from gin_env.match import NONDEALER
from gin_env.record import match_record
from gin_env.vector import VectorGinEnv
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
from gin_eval.outcomes import hand_outcome, text_counts, text_stats, win_kinds
from gin_eval.pool import pool_map
from gin_eval.rollout import play
from gin_eval.stats import mean_ci, wilson_ci
from gin_eval.writer import write_replays

__all__ = [
    "KINDS",
    "GIN",
    "deal_deck",
    "signed_points",
    "play_duplicate_batched",
    "play_hands_batched",
    "play_gin_pair",
    "play_gin_match_pair",
    "gin_duplicate",
    "replay_names",
]

#: The env every two-player evaluation plays.
GIN = games.get("gin_v0")
KINDS = ("knock", "gin", "undercut", "big_gin", "draw")


def deal_deck(seed: int, index: int) -> list[int]:
    """The deck of duplicate deal ``index`` under ``seed`` (a seed-only function)."""
    return np.random.default_rng([seed, index, 7]).permutation(52).tolist()


def signed_points(
    results: dict[str, np.ndarray], rows: np.ndarray, players: np.ndarray
) -> np.ndarray:
    """The points of each of ``rows``' last finished hand for ``players`` (a
    :meth:`VectorGinEnv.hand_results <gin_env.vector.VectorGinEnv.hand_results>`-shaped
    ``results``): + when that player scored, - when the other did, 0 for a draw."""
    won = results["winner"][rows]
    sign = np.where(won == players, 1.0, np.where(won < 0, 0.0, -1.0))
    return sign * results["points"][rows]


def play_duplicate_batched(
    decks: np.ndarray,
    table: GinConfig,
    act: Callable[[dict[str, np.ndarray], np.ndarray, np.ndarray, Any], np.ndarray],
) -> np.ndarray:
    """Every deck of ``decks`` (``[P, 52]``) dealt as one hand twice on the batched engine
    (:func:`play_hands_batched`), player A once the non-dealer (slot ``2k``) and once the
    dealer (slot ``2k + 1``), at ``table``. Returns A's points in each slot,
    ``[2 P]`` (:func:`signed_points`)."""
    n = 2 * len(decks)
    return play_hands_batched(np.repeat(decks, 2, axis=0), np.arange(n) % 2 == 1, table, act)


def play_hands_batched(
    decks: np.ndarray,
    a_deals: np.ndarray,
    table: GinConfig,
    act: Callable[[dict[str, np.ndarray], np.ndarray, np.ndarray, Any], np.ndarray],
) -> np.ndarray:
    """Deck ``k`` of ``decks`` (``[N, 52]``) dealt as one hand on the batched engine
    (:class:`~gin_env.vector.VectorGinEnv`, numba) at ``table``,
    player A the dealer where ``a_deals[k]``.

    At each step ``act(out, active, a_player, games)`` returns every slot's action (those of
    the finished slots are ignored): ``out`` is the last outputs, ``active`` the slots still
    playing, ``a_player`` A's player in each slot, ``games`` the engine's arrays (for a
    search that copies a game). Returns A's points in each slot, ``[N]``
    (:func:`signed_points`)."""
    n = len(decks)
    env = VectorGinEnv(n, "gin", seed=0, backend="numba", episode="hand", **table_options(table))
    out = env.reset(options={"decks": decks})
    if not (out["role"] == NONDEALER).all():
        raise RuntimeError("the non-dealer should act first in every game")
    a_player = np.where(np.asarray(a_deals, np.bool_), 1 - out["seat"], out["seat"])
    points = np.zeros(n)
    active = np.ones(n, np.bool_)
    while active.any():
        out = env.step(act(out, active, a_player, env._impl), active)
        over = out["hand_over"] & active
        if over.any():
            rows = np.flatnonzero(over)
            points[rows] = signed_points(env.hand_results(), rows, a_player[rows])
            active &= ~over
    env.close()
    return points


def play_gin_pair(
    spec_a: AgentSpec,
    spec_b: AgentSpec,
    seed: int,
    index: int,
    table: GinConfig | None = None,
    env_options: Mapping[str, Any] | None = None,
    replays: bool = False,
    prefix: str = "",
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Deal ``index``: A as ``player_0`` then as ``player_1`` on the same deck, at ``table``
    (default: the standard rules); ``env_options``: what is not a rule (``observation``).

    Returns per hand: the deck played, which agent held each player, the dealer's agent,
    the kind, A's points (+ when A scored, - when B did), A's win, decision times; with
    ``replays``, ``"replays"``: each hand's replay record (:mod:`gin_env.record`). Players
    in words write each decision's game: its replay's name (``<prefix>deal00003_b``) and
    seed, the players by ``labels`` (default: :func:`~gin_eval.checks.unique_labels`).
    """
    table = table or GinConfig()
    deck = deal_deck(seed, index)
    options = {**table_changes(table), **(env_options or {}), "episode": "hand"}
    # The same env seed for both hands: the same initial draw, so the same player deals.
    env_seed = int(np.random.default_rng([seed, index]).integers(2**31))
    hands = []
    records = []
    la, lb = labels or unique_labels([spec_a, spec_b])
    for swap in (False, True):
        env = GIN.make_env(**options)
        env.reset(seed=env_seed, options={"deck": deck})
        seat_a = "player_1" if swap else "player_0"
        seat_b = "player_0" if swap else "player_1"
        rng = np.random.default_rng([seed, index, int(swap)])
        seats = {seat_a: agent_of(spec_a, table), seat_b: agent_of(spec_b, table)}
        # Players in words write which game (its replay and seed) and seats each decision
        # belongs to.
        where = {seat_a: la, seat_b: lb}
        name = f"{prefix}deal{index:05d}_{'ab'[int(swap)]}"
        with decision_context(design="gin", game_index=index, replay=name, seed=env_seed,
                              eval_seed=seed, seats=where):  # fmt: skip
            run = play(env, seats, rng)
        if replays:
            records.append(match_record(env_seed, options, env, where, first_deck=deck))
        state = env.table_state
        assert state is not None  # reset above
        rec = state.history[0]
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
                "a_player": int(seat_a[-1]),
                "outcome": hand_outcome(rec, 2),
                "a_decisions": run.decisions[seat_a],
                "a_seconds": run.seconds[seat_a],
                "b_decisions": run.decisions[seat_b],
                "b_seconds": run.seconds[seat_b],
            }
        )
    return {"index": index, "hands": hands, **({"replays": records} if replays else {})}


def play_gin_match_pair(
    spec_a: AgentSpec,
    spec_b: AgentSpec,
    seed: int,
    index: int,
    table: GinConfig,
    env_options: Mapping[str, Any] | None = None,
    replays: bool = False,
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Two matches on one env seed (the same deck sequence), A as player_0 then player_1
    (with ``replays``, each match's replay record too: ``match00001_a``)."""
    env_seed = int(np.random.default_rng([seed, index, 99]).integers(2**31))
    options = {**table_changes(table), **(env_options or {}), "episode": "match"}
    out = []
    records = []
    la, lb = labels or unique_labels([spec_a, spec_b])
    for swap in (False, True):
        env = GIN.make_env(**options)
        env.reset(seed=env_seed)
        seat_a = "player_1" if swap else "player_0"
        seat_b = "player_0" if swap else "player_1"
        players = {seat_a: agent_of(spec_a, table), seat_b: agent_of(spec_b, table)}
        where = {seat_a: la, seat_b: lb}
        name = f"match{index:05d}_{'ab'[int(swap)]}"
        with decision_context(design="gin-match", game_index=index, replay=name, seed=env_seed,
                              eval_seed=seed, seats=where):  # fmt: skip
            play(env, players, np.random.default_rng([seed, index, 5, int(swap)]))
        if replays:
            records.append(match_record(env_seed, options, env, where))
        state = env.table_state
        assert state is not None  # reset above
        winner = state.winner
        out.append(
            {
                "a_won": winner is not None and f"player_{winner}" == seat_a,
                "hands": len(state.history),
            }
        )
    return {"index": index, "matches": out, **({"replays": records} if replays else {})}


def gin_duplicate(
    agent_a: AgentSpec,
    agent_b: AgentSpec,
    pairs: int,
    seed: int = 0,
    workers: int = 2,
    target_score: int = 100,
    matches: int = 0,
    progress: bool = True,
    table: GinConfig | None = None,
    env_options: Mapping[str, Any] | None = None,
    concurrency: int = 0,
    replays: str | Path | None = None,
) -> dict[str, Any]:
    """A against B on ``pairs`` duplicate deals (and ``matches`` paired matches) at
    ``table`` (default: the standard rules; the matches are played to ``target_score``);
    ``env_options``: what is not a rule (``observation="history"`` for a history player);
    ``replays``: a folder that gets every game's replay (``deal00003_b.json``: deal 3, A
    as ``player_1``; ``match00001_a.json``), said in the result's ``"replays"``.

    Points are A's: + when A scored. ``ci95`` is over the pairs' mean points per hand.
    ``win_kinds``: each agent's wins by gin / knock / undercut and mean deadwood at
    showdown; ``text``: the word-play stats of agents that play in words, over the deals
    and the matches (with one seated the games are played in this process: one at a time,
    or ``concurrency`` at once in threads); ``specs``: each agent's spec by its label.
    """
    check_count("pairs", pairs)
    check_count("matches", matches, 0)
    check_count("workers", workers)
    table = table or GinConfig()
    opts = dict(env_options or {})
    check_setup((agent_a, agent_b), lambda: GIN.make_env(table, **opts), table)
    try:
        match_table = replace(table, target_score=target_score) if matches else table
    except ValueError as err:  # a bad target: before any game
        raise OptionError(str(err)) from None
    keep = replays is not None
    la, lb = unique_labels([agent_a, agent_b])
    tables = [table, match_table]
    workers = play_here([agent_a, agent_b], tables, workers, concurrency)
    since = text_counts([agent_a, agent_b], tables)
    jobs = [(agent_a, agent_b, seed, i, table, opts, keep, "", (la, lb)) for i in range(pairs)]
    results = pool_map(play_gin_pair, jobs, workers, progress, f"{la} v {lb}", threads=concurrency)
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
        "agent_a": la,
        "agent_b": lb,
        "specs": specs_of([agent_a, agent_b], [la, lb]),
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
        "rules": table_changes(table),
        "env_options": opts,
    }
    out["win_kinds"] = win_kinds(
        ([la, lb] if h["a_player"] == 0 else [lb, la], h["outcome"]) for h in hands
    )
    named = replay_names(results, "deal")
    if matches:
        mjobs = [
            (agent_a, agent_b, seed, i, match_table, opts, keep, (la, lb)) for i in range(matches)
        ]
        mres = pool_map(
            play_gin_match_pair, mjobs, workers, progress, "matches", threads=concurrency
        )
        named += replay_names(mres, "match")
        games = [m for r in mres for m in r["matches"]]
        mwins = sum(m["a_won"] for m in games)
        out.update(
            matches=len(games),
            target_score=target_score,
            match_win_rate=mwins / len(games),
            match_win_rate_ci95=wilson_ci(mwins, len(games)),
            hands_per_match=float(np.mean([m["hands"] for m in games])),
        )
    if concurrency > 1 or workers <= 1:  # the games were played here
        out["text"] = text_stats([agent_a, agent_b], tables, since, [la, lb])
    if keep:
        out["replays"] = write_replays(replays, named)
    return out


def replay_names(
    results: list[dict[str, Any]], kind: str, prefix: str = ""
) -> list[tuple[str, dict[str, Any]]]:
    """The replays a pair's job returned, taken out of its result and named for their file:
    ``<prefix><kind><index>_a`` (A as ``player_0``) and ``..._b``."""
    return [
        (f"{prefix}{kind}{r['index']:05d}_{'ab'[k]}", record)
        for r in results
        for k, record in enumerate(r.pop("replays", ()))
    ]
