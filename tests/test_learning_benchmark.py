"""The learning benchmark (``benchmarks/learning.py``): one command per row that trains,
evaluates and writes its figures with their provenance; a table that says "not run" where
no run is, never a figure nobody measured."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _module() -> Any:
    spec = importlib.util.spec_from_file_location("learning", ROOT / "benchmarks" / "learning.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["learning"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


learning = _module()


def _result(row: str, budget: int, seed: int, means: dict[str, float]) -> dict[str, Any]:
    cells = {o: {"mean": m, "ci_low": m - 1.0, "ci_high": m + 1.0} for o, m in means.items()}
    return {"row": row, "budget": budget, "seed": seed, "trained": cells,
            "seconds_per_million_steps": 600.0}  # fmt: skip


def test_a_cell_no_run_filled_says_not_run() -> None:
    lines = learning.table([])
    body = lines[2:]
    assert len(body) == 2 * len(learning.ROWS)  # every row at 10^5 and 10^6
    assert all(line.count("not run") == 4 for line in body)


def test_a_larger_budget_shows_only_for_the_rows_that_ran_at_it() -> None:
    got = [_result("dmc-gin", 10_000_000, 0, {"random": 40.0})]
    lines = learning.table(got)
    assert len(lines[2:]) == 2 * len(learning.ROWS) + 1
    (line,) = [x for x in lines if "10,000,000" in x]
    assert line.startswith("| `dmc-gin` | itself | 10,000,000 | 0 |")
    assert lines.index(line) == max(i for i, x in enumerate(lines) if "`dmc-gin`" in x)  # last


def test_the_largest_budget_shows_where_a_run_there_fits_in_three_hours() -> None:
    """10^7 steps at 1,080 s per million (measured at 10^6) is three hours: the row gets a
    10^7 line, "not run" until it runs there; at 1,100 s per million it does not."""
    fast = [_result("sb3-three-vector", 1_000_000, s, {"random": 30.0}) for s in (0, 1)]
    fast[0]["seconds_per_million_steps"], fast[1]["seconds_per_million_steps"] = 1_000, 1_160
    slow = _result("sb3-gin", 1_000_000, 0, {"random": 40.0})
    slow["seconds_per_million_steps"] = 1_100
    lines = learning.table([*fast, slow])
    (line,) = [x for x in lines if "10,000,000" in x]
    assert line.startswith("| `sb3-three-vector` | random | 10,000,000 | - |")
    assert line.count("not run") == 4
    assert learning.row_budgets([*fast, slow], "sb3-gin") == [100_000, 1_000_000]
    assert learning.row_budgets([], "sb3-three-vector") == [100_000, 1_000_000]


def test_three_seeds_give_the_mean_and_a_t_interval_across_seeds() -> None:
    got = [_result("sb3-gin", 100_000, s, {"random": m}) for s, m in enumerate((10.0, 12.0, 14.0))]
    cell = learning._cell(got, "random")
    half = 4.303 * 2.0 / math.sqrt(3)  # sd 2 over 3 seeds, Student's t with 2 df
    assert cell == f"+12.0 [{12 - half:+.1f}, {12 + half:+.1f}] (3 seeds: +10.0, +12.0, +14.0)"
    assert learning._cell(got, "simple") == "not run"
    one = learning._cell(got[:1], "random")
    assert one == "+10.0 [+9.0, +11.0] (1 seed)"  # one seed: the CI over its deals
    line = next(x for x in learning.table(got) if x.startswith("| `sb3-gin` | random | 100,000"))
    assert "| 0, 1, 2 |" in line and "| 600 |" in line


def test_each_row_is_one_command_with_its_budget_and_seed(tmp_path: Path) -> None:
    for name, row in learning.ROWS.items():
        cmd = learning.row_command(row, 12_345, 7, 9, tmp_path / "r.json", tmp_path / "tb")
        text = " ".join(cmd)
        assert "12345" in text and "--seed 7" in text and "--eval-deals 9" in text, name
        assert "random,simple,heuristic" in text
        # Its progress shows (no --quiet unless asked); its TensorBoard logs go where told.
        assert "--quiet" not in cmd
        assert "--quiet" in learning.row_command(row, 1, 0, 2, tmp_path / "r.json", quiet=True)
        if row.log_flag:
            assert cmd[cmd.index(row.log_flag) + 1] == str(tmp_path / "tb"), name


def test_the_table_goes_between_its_markers_and_nowhere_else(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(f"intro\n{learning.MARKERS[0]}\nold table\n{learning.MARKERS[1]}\nafter\n")
    assert learning.put_table(page, "| new |\n")
    text = page.read_text()
    assert "old table" not in text and "| new |" in text
    assert text.startswith("intro\n") and text.endswith(f"{learning.MARKERS[1]}\nafter\n")
    bare = tmp_path / "bare.md"
    bare.write_text("no markers\n")
    assert not learning.put_table(bare, "| new |\n") and bare.read_text() == "no markers\n"


def test_a_bad_row_is_named_with_the_rows() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "learning.py"), "run", "ppo"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "row must be one of dmc-gin-hour, dmc-three-hour, sb3-gin" in done.stderr


@pytest.mark.slow
def test_one_row_at_a_tiny_budget_writes_its_result_and_fills_its_cell(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "learning.py"), "run", "sb3-gin",
         "--budget", "512", "--seed", "3", "--eval-deals", "4", "--out", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "points per hand against heuristic, trained minus untrained" in done.stdout
    path = tmp_path / "sb3-gin" / "budget512_seed3.json"
    result = json.loads(path.read_text())
    prov = result["provenance"]
    assert prov["command"] == (
        "python benchmarks/learning.py run sb3-gin --budget 512 --seed 3 --eval-deals 4"
    )
    assert prov["seeds"] == [3, learning.EVAL_SEED] and prov["versions"]["numpy"]
    assert len(result["code"]["commit"]) == 40 and result["library"]["sb3-contrib"]
    assert result["steps"] >= 512 and result["seconds_per_million_steps"] > 0
    for opponent in learning.OPPONENTS:
        cell = result["trained"][opponent]
        assert cell["ci_low"] <= cell["mean"] <= cell["ci_high"]
    line = next(x for x in learning.table([result]) if "`sb3-gin` | random | 512 |" in x)
    assert "not run" not in line and "(1 seed)" in line


def test_the_recipe_rows_stand_first_and_train_with_the_hour_preset(tmp_path) -> None:
    assert list(learning.ROWS)[:2] == ["dmc-gin-hour", "dmc-three-hour"]
    for name in ("dmc-gin-hour", "dmc-three-hour"):
        row = learning.ROWS[name]
        command = learning.row_command(row, 1000, 0, 10, tmp_path / "r.json")
        at = command.index("--preset")
        assert command[at + 1] == "hour" and row.against == "L1 (simple)"
    # The others say whom they learned against, in the table's own column.
    assert learning.ROWS["sb3-gin"].against == "random"
    assert learning.ROWS["dmc-gin"].against == "itself"
