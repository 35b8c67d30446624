"""Games, not hands: two-player gin matches to a target on the batched engine, the
hand-outcome distribution of two players, and the match-equity table checked against
simulated matches.

- :func:`play_matches`: mirrored pairs of real matches (every hand played by the players
  on the compiled engine, the scores entered, the deal passed by the table's
  ``dealer_rule`` through :func:`gin_env.match.next_dealer`, until a player reaches the
  target): in pair ``k`` both matches are dealt the same deck sequence
  (:func:`~gin_eval.gin.deal_deck` of ``k * HAND_STRIDE + hand``), A dealing the
  first hand of one and B of the other. The players see the match score in their
  observation, as the ``gin_v0`` env shows it (``scores``: dealer's, non-dealer's, over the
  target, capped at 1). A match may start from any scores (``start``).
- :func:`hand_outcomes`: A's signed points per hand against B by dealer
  (:class:`agents.match_equity.HandOutcomes`), from duplicate deals.
- :func:`check_equity`: the match-equity table from those outcomes against
  :func:`play_matches` from each of a list of scores: predicted and simulated win chance with
  the simulation's 95% CI (over pairs).

``python -m gin_eval.matches`` runs the check (and writes a JSON with
``--out``); ``python -m gin_eval.matches games`` plays two players' matches.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.batched import seat_batched
from agents.match_equity import FORMAT, SHIPPED, HandOutcomes, match_equity
from agents.tuned import TABLES, rules_dict
from gin_env.config import GinConfig, HandRules
from gin_env.encoding import OBS_SLICES
from gin_env.match import DEALER, next_dealer
from gin_eval.gin import deal_deck, play_duplicate_batched, play_hands_batched
from gin_eval.stats import Z95, chi2_fit, mean_ci
from gin_eval.writer import write_json

__all__ = [
    "HAND_STRIDE",
    "play_matches",
    "play_match_table",
    "show_scores",
    "hand_outcomes",
    "check_equity",
    "SCORE_PAIRS",
    "main",
]

#: Deal indices per match pair: hand ``h`` of pair ``k`` is deal ``k * HAND_STRIDE + h``.
HAND_STRIDE = 10_000
#: The most hands a match may take (a guard against players that never score).
MAX_HANDS = 1_000
_SCORES = OBS_SLICES["scores"].start

#: The 20 score pairs (A's, B's) of the equity check: the start, even and uneven
#: positions, each near the end of the match.
SCORE_PAIRS: tuple[tuple[int, int], ...] = (
    (0, 0), (25, 0), (0, 25), (50, 50), (75, 25), (25, 75), (90, 0), (0, 90),
    (60, 40), (40, 60), (80, 80), (95, 70), (70, 95), (10, 50), (50, 10), (85, 60),
    (60, 85), (30, 30), (97, 97), (90, 90),
)  # fmt: skip


def play_matches(
    policy_a: Any,
    policy_b: Any,
    config: GinConfig,
    seed: int,
    pairs: int,
    start: tuple[int, int] = (0, 0),
    first: int = 0,
) -> dict[str, Any]:
    """``pairs`` mirrored pairs of matches of batched players A and B (objects with
    ``act(observations, masks)``) at ``config``'s table, from scores ``start`` (A's, B's);
    pairs ``first .. first + pairs`` of ``seed``. Returns per match (pair ``k``: matches
    ``2 k``, A dealing first, and ``2 k + 1``) ``a_won``, ``hands`` and ``scores``, and A's
    share of the matches won with a 95% CI over pairs."""
    return play_match_table([(policy_a, policy_b)], config, seed, pairs, start, first)[0]


def play_match_table(
    matchups: Sequence[tuple[Any, Any]],
    config: GinConfig,
    seed: int,
    pairs: int,
    start: tuple[int, int] = (0, 0),
    first: int = 0,
) -> list[dict[str, Any]]:
    """:func:`play_matches` for every (A, B) of ``matchups`` at once, on the same deals
    (common random numbers: every matchup's pair ``k`` is dealt the same decks).

    A player with ``act_in_match(games, rows, players, observations, masks, scores,
    deals)`` (a search, which deals its worlds from a copy of the game) is called with the
    engine's arrays, its rows and its player in each, its match score and the other's
    (``[n, 2]``) and whether it deals the hand; other players get ``act(observations,
    masks)``. A player with ``record(games, rows, actions)`` is then shown the moves its
    opponents made in its games, before they are played."""
    if config.hollywood:
        raise ValueError("play_matches plays plain matches; hollywood=True is not supported")
    target = config.target_score
    if not all(0 <= s < target for s in start):
        raise ValueError(f"start scores must be in 0..{target - 1}, got {start!r}")
    hand_table = GinConfig(**rules_dict(config))  # each hand dealt alone: its rules only
    table: list[Any] = []

    def index(policy: Any) -> int:
        for k, known in enumerate(table):
            if known is policy:
                return k
        table.append(policy)
        return len(table) - 1

    per = 2 * pairs
    n = per * len(matchups)
    owner_a = np.repeat([index(a) for a, _ in matchups], per)
    owner_b = np.repeat([index(b) for _, b in matchups], per)
    scores = np.tile(np.asarray(start, np.int64), (n, 1))
    dealer = np.arange(n) % 2  # 0: A deals
    hands = np.zeros(n, np.int64)
    live = np.ones(n, np.bool_)
    pair = first + (np.arange(n) % per) // 2
    while live.any():
        rows = np.flatnonzero(live)
        if (hands[rows] >= MAX_HANDS).any():
            raise RuntimeError(f"a match went past {MAX_HANDS} hands")
        decks = np.asarray(
            [deal_deck(seed, int(pair[i]) * HAND_STRIDE + int(hands[i])) for i in rows]
        )
        a_deals = dealer[rows] == 0
        a_sc, b_sc = scores[rows, 0], scores[rows, 1]
        act = _act(
            table,
            owner_a[rows],
            owner_b[rows],
            np.where(a_deals, a_sc, b_sc),
            np.where(a_deals, b_sc, a_sc),
            target,
        )
        points = play_hands_batched(decks, a_deals, hand_table, act).astype(np.int64)
        scores[rows, 0] += np.maximum(points, 0)
        scores[rows, 1] += np.maximum(-points, 0)
        hands[rows] += 1
        for i, x in zip(rows, points, strict=True):
            winner = None if x == 0 else (0 if x > 0 else 1)
            dealer[i] = next_dealer(config.dealer_rule, int(dealer[i]), winner)
        live[rows] = (scores[rows] < target).all(axis=1)
    out = []
    for j in range(len(matchups)):
        part = slice(j * per, (j + 1) * per)
        a_won = scores[part, 0] >= target
        per_pair = a_won.reshape(pairs, 2).mean(axis=1)
        mean, lo, hi = mean_ci(per_pair.tolist())
        out.append(
            {
                "a_won": a_won,
                "per_pair": per_pair,
                "hands": hands[part],
                "scores": scores[part],
                "win_share": mean,
                "ci95": [lo, hi],
                "pairs": pairs,
            }
        )
    return out


def show_scores(
    observations: np.ndarray, dealer_score: np.ndarray, other_score: np.ndarray, target: int
) -> None:
    """Writes the match score into ``observations`` as the gin_v0 env shows it: by role
    (the dealer's, the non-dealer's), over the target, capped at 1."""
    observations[:, _SCORES] = np.minimum(dealer_score / target, 1.0)
    observations[:, _SCORES + 1] = np.minimum(other_score / target, 1.0)


def _act(
    table: list[Any],
    owner_a: np.ndarray,
    owner_b: np.ndarray,
    dealer_score: np.ndarray,
    other_score: np.ndarray,
    target: int,
) -> Any:
    def act(
        out: dict[str, np.ndarray], active: np.ndarray, a_player: np.ndarray, games: Any
    ) -> Any:
        obs = out["observation"]
        show_scores(obs, dealer_score, other_score, target)
        who = np.where(out["seat"] == a_player, owner_a, owner_b)
        actions = np.zeros(len(obs), np.int64)
        for k, policy in enumerate(table):
            idx = np.flatnonzero(active & (who == k))
            if not len(idx):
                continue
            if hasattr(policy, "act_in_match"):  # a search: it copies the game (its worlds)
                deals = out["role"][idx] == DEALER
                scores = np.stack(
                    [
                        np.where(deals, dealer_score[idx], other_score[idx]),
                        np.where(deals, other_score[idx], dealer_score[idx]),
                    ],
                    axis=1,
                )
                actions[idx] = policy.act_in_match(
                    games, idx, out["seat"][idx], obs[idx], out["action_mask"][idx], scores, deals
                )
            else:
                actions[idx] = policy.act(obs[idx], out["action_mask"][idx])
        waiting = np.where(out["seat"] == a_player, owner_b, owner_a)
        for k, policy in enumerate(table):
            if hasattr(policy, "record"):  # a search that reads its opponents' moves
                idx = np.flatnonzero(active & (waiting == k) & (who != k))
                if len(idx):
                    policy.record(games, idx, actions[idx])
        return actions

    return act


def hand_outcomes(
    policy_a: Any, policy_b: Any, rules: HandRules, seed: int, pairs: int
) -> HandOutcomes:
    """A's signed points against B by dealer, from ``pairs`` duplicate deals of ``seed``
    (each dealt twice: B dealing, then A)."""
    decks = np.asarray([deal_deck(seed, d) for d in range(pairs)])

    def act(out: dict[str, np.ndarray], active: np.ndarray, a_player: np.ndarray, _: Any) -> Any:
        is_a = out["seat"] == a_player
        actions = np.zeros(len(is_a), np.int64)
        for policy, rows in ((policy_a, active & is_a), (policy_b, active & ~is_a)):
            idx = np.flatnonzero(rows)
            if len(idx):
                actions[idx] = policy.act(out["observation"][idx], out["action_mask"][idx])
        return actions

    points = play_duplicate_batched(decks, GinConfig(**rules_dict(rules)), act).astype(np.int64)
    return HandOutcomes.from_samples(points[1::2], points[0::2])


def check_equity(
    policy_a: Any,
    policy_b: Any,
    config: GinConfig,
    seed: int,
    hand_pairs: int,
    match_pairs: int,
    score_pairs: Sequence[tuple[int, int]] = SCORE_PAIRS,
) -> dict[str, Any]:
    """The match-equity table of A against B (from ``hand_pairs`` duplicate deals of
    ``seed``) against ``match_pairs`` mirrored pairs of real matches from each of
    ``score_pairs`` (deals of ``seed + 1``): each pair's prediction is the mean of A
    dealing first and B dealing first."""
    outcomes = hand_outcomes(policy_a, policy_b, config, seed, hand_pairs)
    table = match_equity(outcomes, config.target_score, config.dealer_rule)
    rows = []
    for k, (a, b) in enumerate(score_pairs):
        sim = play_matches(
            policy_a, policy_b, config, seed + 1, match_pairs, (a, b), first=k * match_pairs
        )
        predicted = float((table[0, a, b] + table[1, a, b]) / 2)
        lo, hi = sim["ci95"]
        se = (hi - lo) / (2 * Z95)
        rows.append(
            {
                "scores": [a, b],
                "predicted": predicted,
                "simulated": sim["win_share"],
                "ci95": [lo, hi],
                "within": bool(lo <= predicted <= hi),
                "z": (sim["win_share"] - predicted) / se if se > 0 else 0.0,
                "mean_hands": float(sim["hands"].mean()),
            }
        )
    stat, p = chi2_fit([r["z"] for r in rows])
    return {"outcomes": outcomes.to_dict(), "rows": rows, "chi2": stat, "chi2_p": p}


# ==========================================================================================
# Command line
# ==========================================================================================
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["outcomes"]:
        return _ship_outcomes(argv[1:])
    games = argv[:1] == ["games"]
    parser = argparse.ArgumentParser(prog="python -m gin_eval.matches")
    parser.add_argument("--table", default="eaai", choices=list(TABLES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="")
    if games:
        parser.add_argument("a", help="batched agent spec (agents.batched.seat_batched)")
        parser.add_argument("b")
        parser.add_argument("--pairs", type=int, default=500)
        parser.add_argument("--any-table", action="store_true", help="tuned: play any set")
    else:
        parser.add_argument("--agent", default="heuristic")
        parser.add_argument("--opponent", default="simple")
        parser.add_argument("--hand-pairs", type=int, default=20000)
        parser.add_argument("--match-pairs", type=int, default=500)
    ns = parser.parse_args(argv[1:] if games else argv)
    config = TABLES[ns.table]
    t0 = time.time()
    if games:
        a, b = seat_batched(ns.a, config), seat_batched(ns.b, config)
        res = play_matches(a, b, config, ns.seed, ns.pairs)
        out = {k: res[k] for k in ("win_share", "ci95", "pairs")}
        out["mean_hands"] = float(res["hands"].mean())
        out.update(table=ns.table, a=ns.a, b=ns.b, seed=ns.seed, seconds=time.time() - t0)
    else:
        a, b = (
            seat_batched(ns.agent, config),
            seat_batched(ns.opponent, config),
        )
        out = check_equity(a, b, config, ns.seed, ns.hand_pairs, ns.match_pairs)
        out.update(table=ns.table, agent=ns.agent, opponent=ns.opponent, seed=ns.seed)
        out["seconds"] = time.time() - t0
        for r in out["rows"]:
            print(
                f"{r['scores']}: predicted {r['predicted']:.3f}, simulated {r['simulated']:.3f} "
                f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] {'ok' if r['within'] else 'OUTSIDE'}"
            )
        print(f"within the CI: {sum(r['within'] for r in out['rows'])} of {len(out['rows'])}")
        print(
            f"fit over all: chi-square {out['chi2']:.1f} on {len(out['rows'])} degrees, "
            f"p = {out['chi2_p']:.3f} (the chance of a worse fit were every prediction right)"
        )
    print(json.dumps({k: v for k, v in out.items() if k not in ("rows", "outcomes")}))
    if ns.out:
        write_json(Path(ns.out), out, [ns.seed])
    return 0


def _ship_outcomes(argv: list[str]) -> int:
    """L2 against L2's hand outcomes at every named table, as :data:`SHIPPED`."""
    parser = argparse.ArgumentParser(prog="python -m gin_eval.matches outcomes")
    parser.add_argument("--pairs", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(SHIPPED))
    ns = parser.parse_args(argv)
    tables = {}
    for name, config in TABLES.items():
        rules = rules_dict(config)
        l2 = seat_batched("heuristic", config)
        outcomes = hand_outcomes(l2, l2, config, ns.seed, ns.pairs)
        tables[name] = {"rules": rules, "pairs": ns.pairs, "outcomes": outcomes.to_dict()}
        print(
            f"{name}: {len(outcomes.points)} outcomes, dead hands by dealer "
            f"{outcomes.chances[:, outcomes.points == 0].ravel()}"
        )
    command = f"python -m gin_eval.matches outcomes --pairs {ns.pairs} --seed {ns.seed}"
    write_json(
        Path(ns.out),
        {"format": FORMAT, "players": "L2 against L2", "tables": tables},
        [ns.seed],
        command,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
