"""The match search study (``studies/match_search.py``): a rollout's value is the match
equity of the scores it ends in, and the search plays in real matches through the match
loop's ``act_in_match``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.heuristic import HeuristicParams
from agents.tuned import TABLES
from studies import match_search as M


def _search(table: str, **kw: Any) -> M.MatchSearch:
    return M.MatchSearch(M.table_params(table, "tuned"), HeuristicParams(), TABLES[table], **kw)


def test_equity_after_a_hand_reads_the_scores_the_target_and_the_next_dealer() -> None:
    s = _search("eaai")
    assert s.equity_after(np.array([10]), 95, 0, True)[0] == 1.0  # my knock takes the match
    assert s.equity_after(np.array([-25]), 0, 80, False)[0] == 0.0  # his gin takes it
    # a dead hand: the same scores, dealt again by the same dealer (alternate_scored)
    assert s.equity_after(np.array([0]), 50, 40, True)[0] == s.equity[0, 50, 40]
    assert s.equity_after(np.array([0]), 50, 40, False)[0] == s.equity[1, 50, 40]
    # at the default table the deal alternates after every hand, a dead one too
    d = _search("default")
    assert d.equity_after(np.array([0]), 50, 40, True)[0] == d.equity[1, 50, 40]
    # a win passes the deal at eaai; more points are worth more
    won = s.equity_after(np.array([5, 20, 40]), 30, 30, True)
    assert won[0] == s.equity[1, 35, 30] and (np.diff(won) > 0).all()
    lost = s.equity_after(np.array([-5, -20]), 30, 30, True)
    assert (lost < s.equity[0, 30, 30]).all() and lost[0] > lost[1]


def test_a_search_that_never_overrules_plays_its_base_players_matches() -> None:
    kw = {"worlds": 4, "margin": 1e9, "decisions": "knock+discard"}
    search = M.play_block("eaai", "L2", "search", 3, 0, 3, kw)
    base = M.play_block("eaai", "L2", "base", 3, 0, 3, kw)
    assert search["searched"] > 0 and search["overruled"] == 0
    assert search["per_pair"] == base["per_pair"] and search["hands"] == base["hands"]


def test_a_small_run_end_to_end_and_bad_options(tmp_path) -> None:
    row = M.main(["--pairs", "2", "--block", "1", "--worlds", "4", "--out", str(tmp_path)])
    assert 0 <= row["search_vs_opponent"]["games_won"] <= 1 and row["searched_decisions"] > 0
    assert list(tmp_path.glob("*.json"))
    with pytest.raises(ValueError, match="value"):
        _search("eaai", value="score")
    with pytest.raises(ValueError, match="decisions"):
        _search("eaai", decisions="knock+bluff")
    with pytest.raises(SystemExit):  # a model that is no opponent: a usage error
        M.main(["--model", "L2+bluff", "--out", str(tmp_path)])
    assert M.table_params("eaai", "knock-early").knock_late == 0
    with pytest.raises(TypeError, match="act_in_match"):
        _search("eaai").act(np.zeros((1, 1)), np.zeros((1, 1)))


def test_rollout_players_see_the_match_score_of_the_game_they_copy() -> None:
    from gin_env.encoding import OBS_SLICES
    from gin_eval.matches import play_match_table

    at = OBS_SLICES["scores"].start
    seen: list[np.ndarray] = []

    class Watching(M.MatchSearch):
        def rollout_view(self, observations: np.ndarray, slots: np.ndarray) -> np.ndarray:
            view = super().rollout_view(observations, slots)
            seen.append(view[:, at : at + 2].copy())
            return view

    s = Watching(M.table_params("eaai", "tuned"), HeuristicParams(), TABLES["eaai"], worlds=2)
    l2 = M.batched_form(M.HeuristicAgent(HeuristicParams(), rules=TABLES["eaai"]))
    play_match_table([(s, l2)], TABLES["eaai"], 5, 1, start=(30, 60))
    views = np.concatenate(seen)
    # by role, over the target: every view holds both scores, each at least where it began
    assert len(views) and (views.min(axis=1) >= 0.3).all() and (views.max(axis=1) >= 0.6).all()


def test_the_filter_reads_his_discards_through_the_match_loop() -> None:
    kw = {"worlds": 4, "margin": 2.0, "decisions": "knock", "filter_samples": 32}
    row = M.play_block("eaai", "L2", "search", 3, 0, 2, kw)
    # each searched decision after a discard of his drew hands for the filter; some fit
    assert row["filtered"] > 0 and 0 < row["consistent"] <= row["filtered"]


def test_a_mixture_of_models_plays_his_worlds_by_each_in_turn() -> None:
    from gin_eval.gin import deal_deck, play_hands_batched

    table = TABLES["eaai"]
    l2, tuned = HeuristicParams(), M.table_params("eaai", "tuned")

    def search(*models: HeuristicParams) -> M.MatchSearch:
        s = M.MatchSearch(tuned, models[0], table, mixture=models[1:], worlds=6, value="points",
                          seed=7)  # fmt: skip
        s._context = {0: (0, 0, False)}  # game 0 at 0-0 (what act_in_match would set)
        return s

    pure_l2, pure_tuned, mixed = search(l2), search(tuned), search(l2, tuned)
    compared: list[int] = []

    def act(out: dict, active: np.ndarray, a_player: np.ndarray, games: object) -> np.ndarray:
        moves = pure_l2.opponent.act(out["observation"], out["action_mask"])
        if not compared and active[0] and out["seat"][0] == a_player[0]:
            cands = [np.flatnonzero(out["action_mask"][0]).tolist()[:3]]
            row, seat = np.array([0]), out["seat"][:1]
            v = [s.values(games, row, seat, cands)[0] for s in (pure_l2, pure_tuned, mixed)]
            assert (v[2][:, 0::2] == v[0][:, 0::2]).all()  # even worlds: L2 plays him
            assert (v[2][:, 1::2] == v[1][:, 1::2]).all()  # odd worlds: tuned does
            compared.append(1)
        return moves

    decks = np.asarray([deal_deck(4, d) for d in range(2)])
    play_hands_batched(decks, np.array([False, True]), table, act)
    assert compared


def test_seated_runs_and_their_summary(tmp_path) -> None:
    args = ["--agent", "match-search:worlds=4", "--pairs", "2", "--block", "1", "--seed", "3"]
    row = M.main(["seated", "--harness", "table", *args, "--out", str(tmp_path)])
    assert 0 <= row["games_won"] <= 1 and row["decisions"] > 0
    three = M.main(["three", "--agent", "best:budget=0.02", "--triples", "1", "--seed", "3",
                    "--out", str(tmp_path)])  # fmt: skip
    assert 0 <= three["matches_won"] <= 1
    table = M.seated_summary(tmp_path)
    assert "`match-search:worlds=4`" in table and "three-handed" in table
    with pytest.raises(SystemExit):  # an opponent that is no style: a usage error
        M.main(["seated", "--opponent", "bluff", "--out", str(tmp_path)])
    with pytest.raises(ValueError, match="harness env"):  # a posterior needs an agent a match
        M.seated_table_pairs("eaai", "best:model='posterior'", "L2", 0, 0, 1)
