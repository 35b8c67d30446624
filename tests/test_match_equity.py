"""Match equity (:mod:`agents.match_equity`) and games to a target on the batched engine
(:mod:`gin_eval.matches`): the programme against a simulation of its own model,
the batched matches against the Python match replayed on the same decks, the table
against real matches (slow)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.batched import BatchedSimple
from agents.heuristic import HeuristicAgent, HeuristicParams
from agents.heuristic_batched import BatchedHeuristic
from agents.match_equity import HandOutcomes, knock_shifts, match_equity, simulate_model
from agents.simple import SimpleAgent
from agents.tuned import TABLES
from gin_env.config import DEALER_RULES, GinConfig
from gin_env.encoding import action_mask, encode_observation
from gin_env.match import GinMatch
from gin_eval.gin import deal_deck
from gin_eval.matches import HAND_STRIDE, SCORE_PAIRS, check_equity, play_matches

TOY = HandOutcomes(
    np.array([-25, -8, 0, 10, 25]),
    np.array([[0.3, 0.1, 0.2, 0.1, 0.3], [0.25, 0.15, 0.1, 0.2, 0.3]]),
)
#: L2 with the match levers on (a tuned set's kind of values).
MATCH = HeuristicParams(
    match_knock=3.0, match_gin=2.5, gin_outs=1, gin_stock=4, gin_deadwood=5, knock_late=6
)


@pytest.mark.parametrize("rule", DEALER_RULES)
def test_the_programme_is_its_model_simulated(rule: str) -> None:
    table = match_equity(TOY, target=60, dealer_rule=rule)
    rng = np.random.default_rng(3)
    for d, a, b in ((0, 0, 0), (1, 35, 20), (0, 20, 50)):
        sim = simulate_model(TOY, a, b, d == 0, 3000, rng, 60, rule)
        se = np.sqrt(sim * (1 - sim) / 3000)
        assert abs(sim - table[d, a, b]) < 4 * se + 1e-3, (rule, d, a, b)


def test_equal_players_split_the_even_scores_and_the_end_is_exact() -> None:
    even = HandOutcomes(np.array([-20, 0, 20]), np.array([[0.45, 0.1, 0.45]] * 2))
    table = match_equity(even, target=50, dealer_rule="alternate_scored")
    assert np.allclose(table[:, 10, 10], 0.5)
    assert np.allclose(table[:, 30, 0], 1 - 0.5**3)  # any win ends it; he needs three
    assert table[0, 30, 0] > table[0, 0, 30]
    assert np.allclose(match_equity(TOY.swapped(), 60)[::-1].transpose(0, 2, 1),
                       1 - match_equity(TOY, 60))  # fmt: skip


def test_bad_outcomes_are_refused() -> None:
    with pytest.raises(ValueError, match="sum to 1"):
        HandOutcomes(np.array([-5, 5]), np.array([[0.5, 0.6], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="every hand is dead"):
        HandOutcomes(np.array([0]), np.array([[1.0], [1.0]]))
    with pytest.raises(ValueError, match="dealer_rule"):
        match_equity(TOY, 60, "random")


def test_the_knock_shift_reads_the_score() -> None:
    shifts = knock_shifts(TABLES["eaai"])
    assert shifts.shape == (101, 101) and shifts[0, 0] == 0.0
    assert shifts[90, 90] > 0.5  # any win ends it: knock sooner
    assert shifts[50, 80] < 0  # behind, a loss of 30 ends it: wait


def _python_match(config: GinConfig, seed: int, pair: int, a_deals: bool) -> GinMatch:
    """The match of ``play_matches``' pair ``pair`` on the Python engine: A (player 0) L2
    with the match levers, B L1."""
    # The lower card of the draw deals first: player 0 draws an ace where A deals.
    first = [0, 12] if a_deals else [12, 0]
    role_deck = [*first, *range(1, 12), *range(13, 52)]
    match = GinMatch(config, role_deck, lambda i: deal_deck(seed, pair * HAND_STRIDE + i))
    players = {0: HeuristicAgent(MATCH, rules=config), 1: SimpleAgent()}
    while not match.is_over:
        p = match.current_player
        assert p is not None
        obs = {
            "observation": encode_observation(match, p),
            "action_mask": action_mask(match.legal_actions()),
        }
        match.step(players[p].act(obs))
    return match


def test_batched_matches_are_the_python_match_on_the_same_decks() -> None:
    config = GinConfig(**{**TABLES["eaai"].__dict__, "target_score": 60})
    a = BatchedHeuristic(MATCH, rules=config)
    out = play_matches(a, BatchedSimple(), config, seed=4, pairs=3)
    for m in range(6):
        match = _python_match(config, 4, m // 2, a_deals=m % 2 == 0)
        assert bool(out["a_won"][m]) == (match.winner == 0)
        assert out["hands"][m] == len(match.history)
        assert out["scores"][m].tolist() == match.scores
    assert 0 <= out["win_share"] <= 1 and out["pairs"] == 3


def test_matches_refuse_bad_starts() -> None:
    with pytest.raises(ValueError, match="start scores"):
        play_matches(BatchedSimple(), BatchedSimple(), GinConfig(), 0, 1, start=(100, 0))


@pytest.mark.slow
def test_the_table_predicts_real_matches_from_20_scores() -> None:
    # L2 against L1 at the EAAI table (results/match_equity/ has the same run's figures).
    config = TABLES["eaai"]
    l2 = BatchedHeuristic(rules=config)
    out = check_equity(l2, BatchedSimple(), config, seed=0, hand_pairs=20000, match_pairs=500)
    assert len(out["rows"]) == len(SCORE_PAIRS) == 20
    # 95% CIs: one in 20 falls outside by chance, and four or more in 60 runs of 20; the
    # fit over all 20 (chi-square on the z scores) fails a right table one run in 1,000.
    assert out["chi2_p"] > 0.001, out["rows"]
    assert sum(r["within"] for r in out["rows"]) >= 15, out["rows"]
