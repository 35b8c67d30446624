"""The rollout search study (``studies/rollout_search.py``): its worlds are the seat's view
with the hidden cards dealt again, and its rollouts are the engine's own play."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.heuristic import HeuristicParams
from gin_env.config import GinConfig
from gin_env.fast_game import F_HAND0, F_PLAYER0, F_STOCK_POS
from gin_eval.gin import deal_deck, play_duplicate_batched
from studies import rollout_search as R


def _play(search: R.Search, seed: int, pairs: int, visit: Any) -> np.ndarray:
    """Base player against L2 on duplicate deals; ``visit(games, row, player, move)`` at each
    of the base player's decisions. Returns the base player's points per game."""

    def act(
        out: dict[str, np.ndarray], active: np.ndarray, a_player: np.ndarray, games: Any
    ) -> Any:
        me = active & (out["seat"] == a_player)
        acts = np.zeros(len(me), np.int64)
        idx = np.flatnonzero(active & ~me)
        if len(idx):
            acts[idx] = search.opponent.act(out["observation"][idx], out["action_mask"][idx])
            search.record(games, idx, acts[idx])
        idx = np.flatnonzero(me)
        if len(idx):
            acts[idx] = search.base.act(out["observation"][idx], out["action_mask"][idx])
            for r in idx.tolist():
                visit(games, r, int(a_player[r]), int(acts[r]))
        return acts

    decks = np.asarray([deal_deck(seed, d) for d in range(pairs)])
    return play_duplicate_batched(decks, GinConfig(), act)


class TrueWorld(R.Search):
    """Deals the true hidden cards: its rollouts must replay the game itself."""

    deck: np.ndarray

    def _deal(self, st: np.ndarray, pile: np.ndarray, seat: int, r: int = -1) -> Any:
        sp = int(st[F_STOCK_POS])
        hand = np.full(self.worlds, int(st[F_HAND0 + 1 - seat]), np.int64)
        return hand, np.tile(self.deck[sp:], (self.worlds, 1))


def test_rollouts_of_the_true_world_replay_the_game() -> None:
    search = TrueWorld(R.base_params("tuned"), HeuristicParams(), GinConfig(), worlds=2)
    predicted: list[tuple[int, float]] = []

    def visit(games: Any, r: int, player: int, move: int) -> None:
        search.deck = games.deck[r].copy()
        vals = search.values(games, np.array([r]), np.array([player]), [[move]])[0]
        assert vals[0, 0] == vals[0, 1]
        predicted.append((r, float(vals[0, 0])))

    points = _play(search, seed=5, pairs=6, visit=visit)
    assert len(predicted) > 50
    assert all(points[r] == v for r, v in predicted)


def test_worlds_keep_the_public_cards_and_deal_the_unseen() -> None:
    search = R.Search(
        R.base_params("L2"), HeuristicParams(), GinConfig(), worlds=16, filter_samples=40
    )
    seen = {"checks": 0}

    def visit(games: Any, r: int, player: int, move: int) -> None:
        st = games.state[r]
        seat = int(st[F_PLAYER0] != player)
        true = int(st[F_HAND0 + 1 - seat])
        hands, stocks = search._deal(st, games.pile[r], seat, r)
        mine = int(st[F_HAND0 + seat])
        size = bin(true).count("1")
        for h, stock in zip(hands.tolist(), stocks, strict=True):
            assert bin(h).count("1") == size and not h & mine
            assert len(stock) == 52 - int(st[F_STOCK_POS])
            dealt = h | sum(1 << int(c) for c in stock)
            # The sampled hand and stock are exactly the true ones' cards, reshuffled.
            assert dealt == true | sum(1 << int(c) for c in games.deck[r, int(st[F_STOCK_POS]) :])
        if r in search.last:  # the filter never refuses the true hand
            assert search.consistent_with(r, np.array([true], np.int64))[0]
            seen["checks"] += 1

    _play(search, seed=9, pairs=6, visit=visit)
    assert seen["checks"] > 20
    assert 0 < search.consistent / search.filtered < 1  # it refuses some draws


def test_a_tiny_run_reports_paired_figures(tmp_path: Any) -> None:
    row = R.main(
        [
            "--pairs",
            "4",
            "--block",
            "2",
            "--worlds",
            "4",
            "--decisions",
            "draw",
            "--out",
            str(tmp_path),
        ]
    )
    assert row["searched_decisions"] > 0
    assert set(row["vs_L2"]) == {"points_per_hand", "ci95"}
    assert list(tmp_path.glob("*.json"))


def test_bad_decisions_are_refused() -> None:
    with pytest.raises(ValueError, match="decisions must be"):
        R.Search(HeuristicParams(), HeuristicParams(), GinConfig(), decisions="draw+bluff")
