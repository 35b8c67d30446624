"""Evaluation harness (gin_eval.gin, three_handed, ladder) and the eval command
(gin_cli.evaluate): duplicate pairing, CI math, end-to-end runs, reproducibility."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from gin_cli import evaluate as ev
from gin_env.config import ThreeHandedConfig
from gin_eval import gin, ladder, three_handed
from gin_eval.checks import OptionError
from gin_eval.stats import elo_bootstrap, mean_ci, rate_openskill, wilson_ci

_TIMING = ("mean_decision_ms", "mean_decision_ms_b")


def test_duplicate_pair_replays_the_same_deck_with_seats_swapped() -> None:
    pair = gin.play_gin_pair("simple", "heuristic", seed=3, index=7)
    first, second = pair["hands"]
    assert first["deck"] == second["deck"] == gin.deal_deck(3, 7)
    assert first["seat_a"] != second["seat_a"]
    # The same player deals both times, so the agents swap the dealer's seat too.
    assert first["a_dealer"] != second["a_dealer"]
    assert gin.deal_deck(3, 7) != gin.deal_deck(3, 8)


def test_duplicate_cancels_the_cards_for_equal_agents() -> None:
    # A deterministic agent against itself: both hands of a pair are the same game with
    # the names swapped, so every pair sums to zero.
    r = gin.gin_duplicate("simple", "simple", pairs=6, seed=1, workers=1, progress=False)
    assert r["points_per_hand"] == 0.0
    assert r["ci95"] == (0.0, 0.0) or r["ci95"] == [0.0, 0.0]


def test_mean_ci_on_a_constructed_sample() -> None:
    x = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]  # mean 5, sample sd sqrt(32/7)
    m, lo, hi = mean_ci(x)
    half = 1.959963984540054 * math.sqrt(32 / 7) / math.sqrt(8)
    assert m == 5.0
    assert lo == pytest.approx(5 - half) and hi == pytest.approx(5 + half)
    assert mean_ci([3.0]) == (3.0, 3.0, 3.0)
    with pytest.raises(ValueError):
        mean_ci([])
    # Coverage: about 95% of intervals from normal samples hold the true mean.
    rng = np.random.default_rng(0)
    hits = sum(
        lo <= 1.0 <= hi for _, lo, hi in (mean_ci(rng.normal(1.0, 3.0, 200)) for _ in range(400))
    )
    assert 0.92 <= hits / 400 <= 0.98


def test_wilson_and_ratings() -> None:
    lo, hi = wilson_ci(0, 10)
    assert lo == 0.0 and 0.25 < hi < 0.35
    assert wilson_ci(10, 10)[1] == pytest.approx(1.0)
    games = [(0, 1, 1.0)] * 30 + [(1, 2, 1.0)] * 30 + [(0, 2, 1.0)] * 30
    os_ = rate_openskill(["a", "b", "c"], games)
    assert os_["a"]["mu"] > os_["b"]["mu"] > os_["c"]["mu"]
    elo = elo_bootstrap(["a", "b", "c"], games, rounds=30)
    assert elo["a"]["elo"] > elo["c"]["elo"]
    assert elo["a"]["low"] <= elo["a"]["elo"] <= elo["a"]["high"] or elo["a"]["low"] > 1500


def test_tiny_runs_end_to_end(tmp_path) -> None:  # noqa: ANN001
    r = gin.gin_duplicate(
        "simple", "random", pairs=4, seed=0, workers=1, matches=1, target_score=30, progress=False
    )
    assert r["n_hands"] == 8 and r["points_per_hand"] > 0 and r["hand_win_rate"] > 0.5
    assert r["ci95"][0] <= r["points_per_hand"] <= r["ci95"][1]
    assert 0 <= r["match_win_rate"] <= 1 and r["matches"] == 2
    assert sum(r["kind_rates"].values()) == pytest.approx(1.0)
    t = three_handed.three_handed(
        ["heuristic", "simple", "random"],
        matches=3,
        seed=0,
        workers=1,
        adviser="both",
        progress=False,
        table=ThreeHandedConfig(target_score=25),
    )
    for mode in ("adviser_on", "adviser_off"):
        s = t[mode]
        assert s["matches"] == 3 and s["hands"] > 0
        assert sum(a["match_win_rate"] * a["matches"] for a in s["agents"].values()) == 3
        assert set(s["agents"]["heuristic"]["roles"]) == {"box", "captain", "adviser"}
    lad = ladder.ladder(["simple", "random"], pairs=3, seed=0, workers=1, progress=False)
    assert lad["ranking"][0] == "simple"
    out = ev.main(
        [
            "gin",
            "--agents",
            "simple,random",
            "--pairs",
            "2",
            "--workers",
            "1",
            "--out",
            str(tmp_path),
            "--name",
            "g",
            "--no-progress",
        ]
    )
    assert json.loads((tmp_path / "g.json").read_text())["pairs"] == 2
    assert (tmp_path / "g.csv").exists() and (tmp_path / "g.png").exists()
    assert out["n_hands"] == 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["gin", "--agents", "simple"], "gin needs exactly 2 agents"),
        (["gin", "--agents", "simple,random", "--pairs", "0"], "pairs must be an int >= 1"),
        (["three", "--agents", "simple,random"], "needs exactly 3 agents"),
        (["ladder", "--agents", "simple,no-such-agent"], "unknown agent 'no-such-agent'"),
        (["ladder", "--agents", "simple,random", "--pairs", "0"], "pairs must be an int >= 1"),
        (
            ["gin", "--agents", "simple,random", "--matches", "1", "--target", "0"],
            "target_score must be an int in 1..100000",
        ),
    ],
)
def test_bad_command_lines_are_usage_errors(argv, message, tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        ev.main(argv + ["--out", str(tmp_path), "--no-progress", "--workers", "1"])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir()), "nothing is written"


def test_bad_arguments_are_found_before_any_game() -> None:
    # The rules are checked up front, not after the duplicate pairs have been played.
    with pytest.raises(OptionError, match="target_score"):
        gin.gin_duplicate("simple", "random", pairs=10**9, workers=1, matches=1, target_score=0)
    with pytest.raises(OptionError, match="'tuned' has no parameter set tuned for this table"):
        three_handed.three_handed(
            ["simple", "simple", "tuned"], matches=10**9, workers=1,
            table=ThreeHandedConfig(undercut_bonus=17),
        )  # fmt: skip
    with pytest.raises(OptionError, match="unknown agent"):
        ladder.ladder(["simple", "random", "no-such-agent"], pairs=10**9, workers=1)


def test_same_seed_same_results() -> None:
    def run(workers: int) -> dict:
        r = gin.gin_duplicate(
            "heuristic", "simple", pairs=4, seed=5, workers=workers, progress=False
        )
        return {k: v for k, v in r.items() if k not in _TIMING}

    assert run(1) == run(1)
    other = gin.gin_duplicate("heuristic", "simple", pairs=4, seed=6, workers=1, progress=False)
    assert {k: v for k, v in other.items() if k not in _TIMING} != run(1)


@pytest.mark.slow
def test_workers_give_the_same_results_as_one_process() -> None:
    a = gin.gin_duplicate("simple", "random", pairs=6, seed=2, workers=1, progress=False)
    b = gin.gin_duplicate("simple", "random", pairs=6, seed=2, workers=2, progress=False)
    for k in _TIMING:
        a.pop(k), b.pop(k)
    # Word-play stats live in the process that played: one process reports them (none here).
    assert a.pop("text") == {} and "text" not in b
    assert a == b


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="pairs"):
        gin.gin_duplicate("simple", "random", pairs=0)
    with pytest.raises(ValueError, match="3 agents"):
        three_handed.three_handed(["simple", "random"], matches=1)
    with pytest.raises(ValueError, match="adviser"):
        three_handed.three_handed(["simple", "random", "simple"], matches=1, adviser="maybe")


def test_the_default_output_folder_is_not_the_committed_results(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    ev.main(["gin", "--agents", "random,simple", "--pairs", "2", "--workers", "1",
             "--no-progress", "--no-plot", "--name", "probe"])  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "runs" / "eval").iterdir()) == [
        "probe.csv",
        "probe.json",
    ]
    assert not (tmp_path / "results").exists()
