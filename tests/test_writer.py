"""The one result writer: every JSON records its provenance (the command line, the commit,
the seeds, the package versions); the CSV holds the rows; numpy values are written as
numbers."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gin_eval import writer

ROOT = Path(__file__).resolve().parents[1]


def test_write_result_records_provenance_and_rows(tmp_path: Path) -> None:
    result = {"seed": 7, "mean": np.float64(1.5), "ci95": (np.float32(1.0), 2.0)}
    rows = [{"agent": "L2", "pts": np.int64(3)}, {"agent": "L1", "pts": -1}]
    paths = writer.write_result(tmp_path / "out", "stem", result, rows, command="cmd --x 1")
    assert [p.name for p in paths] == ["stem.json", "stem.csv"]
    data = json.loads(paths[0].read_text())
    assert data["mean"] == 1.5 and data["ci95"] == [1.0, 2.0]
    prov = data["provenance"]
    assert prov["command"] == "cmd --x 1"
    assert prov["seeds"] == [7]  # from the result's seed
    assert prov["versions"]["numpy"] == np.__version__
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()  # fmt: skip
    assert prov["commit"] == (head or None)
    assert list(csv.DictReader(paths[1].open())) == [
        {"agent": "L2", "pts": "3"}, {"agent": "L1", "pts": "-1"}
    ]  # fmt: skip
    with pytest.raises(TypeError, match="not JSON serialisable: object"):
        writer.write_json(tmp_path / "bad.json", {"x": object()})


def test_the_command_line_is_what_a_user_typed(monkeypatch) -> None:
    monkeypatch.setattr(sys, "argv", ["gin-rummy eval", "eval", "gin", "--pairs", "2"])
    assert writer.command_line() == ["gin-rummy", "eval", "gin", "--pairs", "2"]
    assert writer.provenance([1, 2])["command"] == "gin-rummy eval gin --pairs 2"
    assert writer.provenance([1, 2])["seeds"] == [1, 2]


@pytest.mark.slow
def test_a_study_run_records_its_module_command(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "studies.team_vs_solo", "balance", "--matches", "1", "--seed", "3",
         "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-500:]
    prov = json.loads((tmp_path / "team_balance.json").read_text())["provenance"]
    assert prov["command"].startswith("python -m studies.team_vs_solo balance --matches 1")
    assert prov["seeds"] == [3]


def test_the_learning_curve_csv_has_every_metric_step_first(tmp_path: Path) -> None:
    from training.periodic_eval import write_eval_csv

    rows = [{"step": 0.0, "b/x": 1.0}, {"step": 5.0, "a/x": 2.0, "hours": 0.1}]
    write_eval_csv(tmp_path / "eval.csv", rows)
    got = list(csv.DictReader((tmp_path / "eval.csv").open()))
    assert list(got[0]) == ["hours", "step", "a/x", "b/x"]
    assert got[0]["a/x"] == "" and got[1]["a/x"] == "2.0"
    write_eval_csv(tmp_path / "none.csv", [])
    assert not (tmp_path / "none.csv").exists()


def test_learning_curves_draw_the_even_line_where_an_even_player_sits() -> None:
    from gin_eval.plots import even_level

    assert even_level("points_per_hand") == 0.0  # it was drawn at 0.5 on the points plot
    assert even_level("hand_win_rate") == 0.5
    assert even_level("match_win_rate") == 1 / 3


def _square_plus(x: int, y: int) -> int:
    return x * x + y


@pytest.mark.slow
def test_the_worker_pool_maps_in_order_across_maps_and_in_process() -> None:
    # Spawned workers kept for several maps (as the tuner's generations use them) give
    # what this process gives, job by job, in order.
    from gin_eval.pool import WorkerPool, pool_map

    jobs = [(k, 10 * k) for k in range(23)]
    expected = [_square_plus(*j) for j in jobs]
    with WorkerPool(2) as pool:
        assert list(pool.imap(_square_plus, jobs, chunksize=3)) == expected
        assert list(pool.imap(_square_plus, jobs[::-1])) == expected[::-1]
    assert list(WorkerPool(1).imap(_square_plus, jobs)) == expected
    assert pool_map(_square_plus, jobs, workers=2) == expected


def test_a_curve_records_when_due_and_closes_once_at_the_end() -> None:
    from agents.single_agent import RandomPolicy
    from training.periodic_eval import Curve

    curve = Curve("gin", "random", 2, 5, every=100)
    player = RandomPolicy()
    assert curve.due(0)
    curve.record(player, 0)
    assert not curve.due(99) and curve.due(100)
    curve.record(player, 100)
    curve.close(player, 100)  # a point at the run's last step already: none added
    assert [r["step"] for r in curve.rows] == [0.0, 100.0]
    curve.close(player, 150)
    assert [r["step"] for r in curve.rows] == [0.0, 100.0, 150.0]
    assert all(r["ci_low"] <= r["mean"] <= r["ci_high"] for r in curve.rows)
    off = Curve("gin", "random", 2, 5, every=0)
    assert not off.due(0)
    off.close(player, 10)
    assert [r["step"] for r in off.rows] == [10.0]
