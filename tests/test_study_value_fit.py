"""studies.team_vs_solo.value_fit: fitting the learned value of a hand state on a pilot
seed (``python -m studies.team_vs_solo fit-value``), the states it is fitted on, and the
study's ``--adjust value`` path with a value it fitted."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env import actions as A
from gin_eval import play
from gin_eval.hand_value import FEATURE_SIZE, HandValue, replay_hand, state_features
from studies import team_vs_solo as tvs
from studies.team_vs_solo.value_fit import fit_value, fit_value_on_pilot, hand_states

AGENTS = ["random", "simple", "heuristic"]


def test_hand_states_are_the_deal_then_every_stock_draw() -> None:
    h = play.play_role_hand(AGENTS, 5, 0)
    rows = hand_states(h["deck"], h["actions"])
    draws = sum(a == A.DRAW_STOCK for _, a in h["actions"])
    # The deal, then one state per stock draw that did not end the hand.
    assert FEATURE_SIZE == rows.shape[1] and draws >= rows.shape[0] - 1 >= draws - 1
    np.testing.assert_array_equal(rows[0], state_features(replay_hand(h["deck"], [])))


def test_fit_value_learns_a_signal_and_keeps_the_best_epoch() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3000, FEATURE_SIZE)).astype(np.float32)
    y = 5 * x[:, 0] - 3 * np.maximum(x[:, 1], 0) + rng.normal(0, 1, 3000)
    v = fit_value(x, y, np.arange(3000) // 3, hidden=(16,), epochs=10, batch=32)
    assert v.info["heldout_r2"] > 0.8
    assert v.info["best_epoch"] >= 1 and v.info["rows"] == 3000


def test_bad_options_are_clear_errors(tmp_path, capsys) -> None:
    with pytest.raises(ValueError, match="hidden must be"):
        fit_value(np.zeros((4, FEATURE_SIZE)), np.zeros(4), np.arange(4), hidden=())
    with pytest.raises(ValueError, match="x must be"):
        fit_value(np.zeros((4, 3)), np.zeros(4), np.arange(4))
    with pytest.raises(SystemExit):
        tvs.main(["fit-value", "--deals", "1", "--hidden", "a,b", "--out", str(tmp_path)])
    assert "--hidden must be ints" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tvs.main(["fit-value", "--deals", "0", "--out", str(tmp_path)])
    assert "deals must be an int >= 1" in capsys.readouterr().err


@pytest.fixture(scope="module")
def pilot_value() -> HandValue:
    return fit_value_on_pilot(AGENTS, deals=40, seed=1234, epochs=4)


def test_a_pilot_value_records_where_it_came_from(pilot_value) -> None:
    info = pilot_value.info
    assert info["pilot_seed"] == 1234 and info["pilot_hands"] == 240
    assert info["agents"] == AGENTS and info["hidden"] == [64, 32]
    assert info["rows"] > 240  # the deal and every stock draw of each hand


def test_the_study_adjusts_with_a_value_it_fitted(pilot_value, tmp_path, capsys) -> None:
    path = pilot_value.save(tmp_path / "v.npz")
    r = tvs.main(
        ["duplicate", "--agents", "random,simple,heuristic", "--unit", "hand", "--deals", "4",
         "--adjust", "value", "--value", str(path), "--adjust-deals", "200",
         "--out", str(tmp_path)]
    )  # fmt: skip
    assert r["adjust"] == "value"
    assert all("points_ratio_adjusted" in row for row in r["half_widths"])
    assert "the learned V's draw corrections" in capsys.readouterr().out
    for ext in ("json", "csv", "png"):
        assert (tmp_path / f"team_duplicate_hands_value.{ext}").exists()
    assert "learned V" in tvs.report(tmp_path)
    assert str(tmp_path / "team_duplicate_hands_value.png") in map(str, tvs.replot(tmp_path))
    out = tvs.main(
        ["fit-value", "--agents", "random,simple,heuristic", "--deals", "2", "--epochs", "1",
         "--seed", "77", "--save", str(tmp_path / "fit.npz"), "--out", str(tmp_path)]
    )  # fmt: skip
    assert HandValue.load(out["path"]).info["pilot_seed"] == 77
