"""The take study: the oracle's question is the opponent's real answer, the
reading player is L2 when it reads with L2's danger, and the study runs end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.base import PHASE_DISCARD
from agents.heuristic import HeuristicAgent, banned_card, opponent_last_discard
from agents.simple import SimpleAgent, take_melds
from agents.simulate import play_out, seat_points, view_of
from gin_env import actions as A
from gin_env.cards import NUM_CARDS
from gin_env.hand import GinHand, Phase
from studies import take_study as ts

L2 = HeuristicAgent()


def _deck(i: int) -> list[int]:
    return np.random.default_rng([91, i]).permutation(NUM_CARDS).tolist()


def test_would_take_is_what_the_opponent_then_does() -> None:
    checked = 0
    for i in range(6):
        hand = GinHand(_deck(i))
        while hand.phase is not Phase.OVER:
            seat = hand.current
            legal = hand.legal_actions()
            action = legal[0] if len(legal) == 1 else L2.choose(view_of(hand, seat))
            if hand.phase is Phase.DISCARD and action < A.KNOCK:
                before = (hand.hands[:], list(hand.discard_pile), hand.current, hand.phase)
                predicted = ts.would_take(hand, seat, action - A.DISCARD, L2)
                # Asking plays on a clone: the hand is untouched.
                assert (hand.hands, hand.discard_pile, hand.current, hand.phase) == before
                hand.step(action)
                if hand.phase is Phase.OVER:
                    assert not predicted
                    break
                reply = L2.choose(view_of(hand, hand.current))
                assert predicted == (reply == A.TAKE_DISCARD)
                checked += 1
                continue
            hand.step(action)
    assert checked > 30


def test_view_features_layout() -> None:
    hand = GinHand(_deck(0))
    while hand.phase is not Phase.DISCARD or not hand.discarded[1 - hand.current]:
        legal = hand.legal_actions()
        hand.step(legal[0] if len(legal) == 1 else L2.choose(view_of(hand, hand.current)))
    view = view_of(hand, hand.current)
    x = ts.view_features(view)
    assert x.shape == (ts.NUM_FEATURES,)
    held = np.flatnonzero(x[:NUM_CARDS]).tolist()
    assert sum(1 << c for c in held) == view.hand
    # His last discard: the card just taken from the pile if the seat took it, else the top.
    last = opponent_last_discard(view, banned_card(view.hand, list(view.legal)))
    assert np.flatnonzero(x[6 * NUM_CARDS : 7 * NUM_CARDS]).tolist() == [last]
    assert x[-2] == pytest.approx(view.stock_size / 31)


def test_reading_with_l2s_own_danger_is_l2() -> None:
    reader = ts.ReadingL2(ts.l2_danger, L2.params.danger_weight)
    decisions = 0
    for i in range(8):
        hand = GinHand(_deck(i))
        while hand.phase is not Phase.OVER:
            view = view_of(hand, hand.current)
            action = L2.choose(view) if len(view.legal) > 1 else view.legal[0]
            if view.phase == PHASE_DISCARD and len(view.legal) > 1:
                assert reader.choose(view) == action
                decisions += 1
            hand.step(action)
    assert decisions > 50


def test_oracle_reads_and_blind_does_not() -> None:
    # The oracle is never worse than blind on these deals in total (it knows his takes).
    oracle = ts.play_arm("oracle", 30, seed=5, weight=5.0)
    blind = ts.play_arm("blind", 30, seed=5)
    assert oracle["points_per_hand"] > blind["points_per_hand"]
    lo, hi = oracle["ci95"]
    assert lo <= oracle["points_per_hand"] <= hi
    assert 0 <= oracle["hand_win_rate"] <= 1


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="arm must be one of blind, reader, oracle, l2"):
        ts.play_arm("psychic", 1, seed=0)
    with pytest.raises(ValueError, match="needs a take model"):
        ts.play_arm("reader", 1, seed=0)
    with pytest.raises(ValueError, match="366 features"):
        ts.TakeModel([(np.zeros((52, 10), np.float32), np.zeros(52, np.float32))])
    with pytest.raises(SystemExit):
        ts.main(["--pairs", "0"])
    with pytest.raises(SystemExit):
        ts.main(["--weights", "five"])
    with pytest.raises(ValueError, match="opponent must be one of heuristic, simple, got 'L3'"):
        ts.play_arm("blind", 1, seed=0, opponent="L3")
    with pytest.raises(ValueError, match="opponent must be one of heuristic, simple"):
        ts.generate(1, seed=0, opponent="random")
    with pytest.raises(SystemExit):
        ts.main(["--opponent", "random"])


def test_the_study_end_to_end(tmp_path) -> None:  # type: ignore[no-untyped-def]
    argv = ["--hands", "30", "--test-hands", "10", "--epochs", "2", "--weights", "5"]
    argv += ["--select-pairs", "4", "--pairs", "6", "--out", str(tmp_path)]
    assert ts.main(argv) == 0
    study = json.loads((tmp_path / "take_study.json").read_text())
    # Against L2 the reference arm (L2 itself) is 0 by symmetry and is not played.
    assert [r["arm"] for r in study["report"]] == ["blind", "reader", "oracle"]
    assert all(r["pairs"] == 6 for r in study["report"])
    q = study["quality"]
    assert 0 < q["take_rate"] < 1
    # The constant predictor's Brier score is near p(1 - p) (its rate is the training one).
    assert q["brier_constant"] == pytest.approx(q["take_rate"] * (1 - q["take_rate"]), abs=0.05)
    assert len(study["heldout_brier_by_epoch"]) == 2
    text = (tmp_path / "take_study.md").read_text()
    assert "| oracle |" in text and "learned take model" in text and "| 10 |" in text


def test_recorded_labels_match_would_take() -> None:
    data = ts.generate(3, seed=1, epsilon=0.0)
    assert data["x"].shape[1] == ts.NUM_FEATURES
    assert (data["y"] <= data["asked"]).all()  # a label only where the card was a discard
    # Replaying deal 0 with L2 (epsilon 0) asks the same questions in the same order.
    rng = np.random.default_rng([1, 0])
    hand = GinHand(rng.permutation(NUM_CARDS).tolist(), dealer=int(rng.integers(2)))
    rows = data["deal"] == 0
    labels = []

    class Asker(HeuristicAgent):
        def choose(self, view, rng=None):  # type: ignore[no-untyped-def]
            if view.phase == PHASE_DISCARD:
                cards = [a - A.DISCARD for a in view.legal if A.DISCARD <= a < A.KNOCK]
                row = np.zeros(NUM_CARDS, np.uint8)
                for c in cards:
                    row[c] = ts.would_take(hand, hand.current, c, L2)
                labels.append(row)
            return super().choose(view, rng)

    result = play_out(hand, [Asker(), Asker()])
    assert np.array_equal(np.stack(labels), data["y"][rows])
    assert seat_points(result, 0) == -seat_points(result, 1)


def test_auc() -> None:
    y = np.array([0, 0, 1, 1])
    assert ts.auc(np.array([0.1, 0.2, 0.8, 0.9]), y) == 1.0
    assert ts.auc(np.array([0.9, 0.8, 0.2, 0.1]), y) == 0.0
    assert ts.auc(np.full(4, 0.5), y) == 0.5  # ties count half
    assert ts.auc(np.array([0.1, 0.6, 0.5, 0.9]), y) == 0.75
    assert np.isnan(ts.auc(np.ones(3), np.ones(3)))


def test_against_l1_the_labels_are_l1s_rule() -> None:
    # L1 takes a discard exactly when it melds and lowers his deadwood (take_melds).
    data = ts.generate(6, seed=3, epsilon=0.0, opponent="simple")
    assert len(data["x"]) > 20 and 0 < data["y"].sum() and (data["y"] <= data["asked"]).all()
    checked = 0
    for i in range(6):
        rng = np.random.default_rng([3, i])
        hand = GinHand(rng.permutation(NUM_CARDS).tolist(), dealer=int(rng.integers(2)))
        ours = i % 2  # the recorder (L2) sits in each seat in turn
        l1 = SimpleAgent()
        while hand.phase is not Phase.OVER:
            seat = hand.current
            view = view_of(hand, seat)
            agent = L2 if seat == ours else l1
            action = view.legal[0] if len(view.legal) == 1 else agent.choose(view)
            if seat == ours and view.phase == PHASE_DISCARD and len(view.legal) > 1:
                for a in view.legal:
                    if A.DISCARD <= a < A.KNOCK:
                        card = a - A.DISCARD
                        world = hand.clone()
                        world.step(a)
                        if world.is_over or A.TAKE_DISCARD not in world.legal_actions():
                            continue
                        melds = take_melds(hand.hands[1 - seat], card)
                        assert ts.would_take(hand, seat, card, l1) == melds
                        checked += 1
            hand.step(action)
    assert checked > 100


def test_the_study_against_l1(tmp_path) -> None:  # type: ignore[no-untyped-def]
    argv = ["--opponent", "simple", "--hands", "20", "--test-hands", "8", "--epochs", "1"]
    argv += ["--weights", "5", "--select-pairs", "3", "--pairs", "5", "--out", str(tmp_path)]
    assert ts.main(argv) == 0
    study = json.loads((tmp_path / "take_study_simple.json").read_text())
    assert study["opponent"] == "simple"
    assert [r["arm"] for r in study["report"]] == list(ts.ARMS)
    assert all(r["opponent"] == "simple" for r in study["report"])
    text = (tmp_path / "take_study_simple.md").read_text()
    assert text.startswith("# Reading the opponent against L1") and "| l2 |" in text
    assert not (tmp_path / "take_study.json").exists()


@pytest.mark.slow
def test_workers_play_the_same_pairs_as_one_process() -> None:
    # The one worker pool spawns its workers and hands them the take model by its
    # initializer: the reader arm's figures do not depend on the number of workers.
    data = ts.generate(4, seed=2, epsilon=0.1, workers=2)
    assert data["x"].shape[0] == ts.generate(4, seed=2, epsilon=0.1)["x"].shape[0]
    model, _ = ts.fit(data, epochs=1, hidden=(8,))
    one = ts.play_arm("reader", 3, seed=4, weight=5.0, model=model, workers=1)
    two = ts.play_arm("reader", 3, seed=4, weight=5.0, model=model, workers=2)
    assert {k: v for k, v in one.items() if k != "seconds"} == {
        k: v for k, v in two.items() if k != "seconds"
    }
