"""Rollout search on the compiled engine: is a one-step improvement of L3 worth a point a hand?

L4 (:mod:`agents.search`) plays its rollouts in Python, 40 worlds a decision at 0.1 s, and
scored +0.54 [-0.08, +1.16] against L2; the same search with L2 itself playing the rollouts
was too slow to measure well (-0.36 +/- 1.13 over 300 pairs). This study plays that search
on the batched engine, where a rollout costs what a compiled L2 move costs, with many more
worlds:

1. at each of the searcher's decisions with a real choice (take or draw; the discard or
   knock), the candidates are its base player's move (L3 ``tuned`` for the table, or any
   L2 parameter set), every other draw choice, the discards that leave the least deadwood
   and the least-deadwood knock;
2. ``worlds`` worlds are dealt from what its seat knows: the game's public state as it
   stands (the pile, the cards the opponent took and still holds, the counts), the
   seat's own hand, and the unseen cards dealt again (the opponent's hidden cards and the
   stock, shuffled; with ``--opp-samples k`` the opponent gets, of ``k`` draws, the hand
   with the least deadwood, as L4 does): the true hidden cards are overwritten in every
   world, so the search learns nothing the seat could not;
3. every candidate is played in every world (common random numbers), both sides then
   playing on by their policies: the searcher's base player for its seat, L2 (the
   opponent's true policy, which the search is told: an opponent model) for the other;
4. the candidate with the best mean gain over the base move is played when that gain
   exceeds ``margin`` standard errors (paired over the worlds); otherwise the base move.

Figures are duplicate pairs against L2 on the deals of :func:`gin_eval.gin.deal_deck`
(the same deals as ``gin-rummy eval gin``), both cores::

    python -m studies.rollout_search --pairs 400 --seed 0 --worlds 32 --margin 1 --workers 2

One JSON line is printed (and written under ``--out``): points per hand against L2 with
its 95% CI, the base player's own points on the same deals (paired: the difference and its
CI), how often the search overruled the base move, and the wall time.
"""

from __future__ import annotations

import argparse
import json
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents.heuristic import HeuristicParams
from agents.search_agent import RolloutSearch
from agents.tuned import load_sets
from gin_env.config import GinConfig
from gin_eval.gin import deal_deck, play_duplicate_batched
from gin_eval.pool import pool_map
from gin_eval.stats import mean_ci
from gin_eval.writer import write_json

__all__ = ["Search", "play_pairs", "add_search_arguments", "search_options", "main"]


def base_params(name: str) -> HeuristicParams:
    """``"tuned"``: the shipped set for the default table; ``"L2"``: L2's defaults."""
    if name == "L2":
        return HeuristicParams()
    sets = load_sets()
    if name != "tuned" or "default" not in sets:
        raise ValueError(f"base must be 'tuned' or 'L2', got {name!r}")
    return HeuristicParams(**sets["default"]["params"])


#: The search, as :mod:`agents.search_agent` holds it (the seat's agent plays the same).
Search = RolloutSearch


def _table_moves(
    search: Search,
    searching: bool,
    out: dict[str, np.ndarray],
    active: np.ndarray,
    a_player: np.ndarray,
    games: Any,
) -> np.ndarray:
    """One step of :func:`play_pairs`: L2 for the opponent, the base player (overruled by
    the search when ``searching``) for A."""
    me = active & (out["seat"] == a_player)
    actions = np.zeros(len(me), np.int64)
    idx = np.flatnonzero(active & ~me)
    if len(idx):
        actions[idx] = search.opponent.act(out["observation"][idx], out["action_mask"][idx])
        if searching and search.filter_samples:
            search.record(games, idx, actions[idx])
    idx = np.flatnonzero(me)
    if len(idx):
        moves = search.base.act(out["observation"][idx], out["action_mask"][idx])
        if searching:
            moves = search.choose(games, idx, a_player[idx], out["action_mask"][idx], moves)
        actions[idx] = moves
    return actions


def play_pairs(
    search_kw: dict[str, Any], base: str, seed: int, start: int, pairs: int
) -> dict[str, Any]:
    """Deals ``start .. start + pairs`` of ``seed``: the searcher and, on the same deals, its
    base player, each against L2 in both seats; points per deal (mean of its two hands)."""
    table: GinConfig = search_kw["table"]
    bp = base_params(base)
    search = Search(bp, HeuristicParams(), seed=seed * 1_000_003 + start, **search_kw)
    decks = np.asarray([deal_deck(seed, start + d) for d in range(pairs)])
    result: dict[str, Any] = {}
    for arm in ("search", "base"):
        act = partial(_table_moves, search, arm == "search")
        points = play_duplicate_batched(decks, table, act)
        result[arm] = points.reshape(pairs, 2).mean(axis=1).tolist()
    result["filtered"] = search.filtered
    result["consistent"] = search.consistent
    result["searched"] = search.searched
    result["overruled"] = search.overruled
    return result


def add_search_arguments(
    parser: argparse.ArgumentParser, pairs: int, worlds: int, decisions: str
) -> None:
    """The flags of the search and its run (this study's and ``studies.match_search``'s):
    :func:`search_options` reads the search's."""
    parser.add_argument("--pairs", type=int, default=pairs)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worlds", type=int, default=worlds)
    parser.add_argument("--discards", type=int, default=3)
    parser.add_argument("--margin", type=float, default=1.0)
    parser.add_argument(
        "--opp-samples",
        type=int,
        default=1,
        help="hands drawn for him a world (least deadwood kept)",
    )
    parser.add_argument("--filter", type=int, default=0, help="hands drawn for the filter (0: off)")
    parser.add_argument("--decisions", default=decisions)
    parser.add_argument("--block", type=int, default=50, help="pairs per job")
    parser.add_argument("--workers", type=int, default=1)


def search_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`Search` options of the flags of :func:`add_search_arguments`."""
    return {
        "worlds": args.worlds,
        "discards": args.discards,
        "margin": args.margin,
        "opp_samples": args.opp_samples,
        "filter_samples": args.filter,
        "decisions": args.decisions,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        prog="python -m studies.rollout_search", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--base", default="tuned", choices=("tuned", "L2"))
    add_search_arguments(parser, pairs=400, worlds=32, decisions="draw+discard")
    parser.add_argument("--out", default="runs/rollout_search")
    a = parser.parse_args(argv)
    kw = {"table": GinConfig(), **search_options(a)}
    t0 = time.time()
    jobs = [(kw, a.base, a.seed, s, min(a.block, a.pairs - s)) for s in range(0, a.pairs, a.block)]
    parts = pool_map(play_pairs, jobs, a.workers)
    search = [x for p in parts for x in p["search"]]
    base = [x for p in parts for x in p["base"]]
    diff = [s - b for s, b in zip(search, base, strict=True)]

    def fig(xs: list[float]) -> dict[str, Any]:
        m, lo, hi = mean_ci(xs)
        return {"points_per_hand": round(m, 3), "ci95": [round(lo, 3), round(hi, 3)]}

    searched = sum(p["searched"] for p in parts)
    overruled = sum(p["overruled"] for p in parts)
    row = {
        "study": "rollout_search",
        "args": vars(a),
        "vs_L2": fig(search),
        "base_vs_L2": fig(base),
        "search_minus_base": fig(diff),
        "searched_decisions": searched,
        "overruled": overruled,
        "overruled_share": round(overruled / max(1, searched), 4),
        "consistent_share": round(
            sum(p["consistent"] for p in parts) / max(1, sum(p["filtered"] for p in parts)), 4
        ),
        "wall_s": round(time.time() - t0, 1),
    }
    print(json.dumps(row))
    name = (
        f"w{a.worlds}_m{a.margin}_k{a.opp_samples}_f{a.filter}_{a.decisions}_{a.base}"
        f"_s{a.seed}_p{a.pairs}.json"
    )
    write_json(Path(a.out) / name, {**row, "per_deal": {"search": search, "base": base}}, [a.seed])
    return row


if __name__ == "__main__":
    main()
