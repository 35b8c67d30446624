"""CMA-ES tuning of L2's parameters (``training.tune``) and the tuned agent (``agents.tuned``):
the search space covers every parameter, a tiny run end to end, a run stopped after its
first generation and resumed reaches the state of one never stopped (in this process and
across a real kill), a parameter set is refused at a table it was not tuned for."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.heuristic import HeuristicParams
from agents.tuned import TABLES, load_sets, make_tuned, param_set, rules_dict, table_name
from gin_env.config import GinConfig, HandRules

pytest.importorskip("cma")

from training import tune  # noqa: E402  (needs cma, the train extra)

ROOT = Path(__file__).resolve().parents[1]


def _args(run_dir: Path, **kw: object) -> tune.Args:
    base = dict(
        run_dir=str(run_dir),
        generations=2,
        popsize=4,
        pairs=1,
        pool_bests=1,
        select_candidates=1,
        select_pairs=1,
        report_pairs=1,
        workers=1,
        progress=False,
    )
    base.update(kw)
    return tune.Args(**base)  # type: ignore[arg-type]


def _summary(state: dict) -> dict:
    es = state["es"]
    hist = [{k: v for k, v in r.items() if k != "seconds"} for r in state["history"]]
    return {
        "mean": es.mean.tolist(),
        "sigma": es.sigma,
        "C": np.asarray(es.C).tolist(),
        "generation": state["generation"],
        "evaluations": state["evaluations"],
        "bests": state["bests"],
        "history": hist,
        "choice": (state["choice"]["name"], state["choice"]["params"]),
        "report": state["report"],
    }


def _log_rows(run_dir: Path) -> list[dict]:
    rows = [json.loads(x) for x in (run_dir / "generations.jsonl").read_text().splitlines()]
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_every_parameter_is_searched_or_held_fixed() -> None:
    names = {f.name for f in dataclasses.fields(HeuristicParams)}
    assert names == set(tune.BOUNDS) | tune.FIXED
    assert not set(tune.BOUNDS) & tune.FIXED
    inside = HeuristicParams(gin_outs=5, knock_early=7, take_margin=1.25)
    assert tune.decode(tune.encode(inside)) == inside
    assert tune.decode(np.full(len(tune.space()), 2.0)) == tune.decode(np.ones(len(tune.space())))


@pytest.mark.parametrize("table", list(TABLES))
def test_the_batched_engine_plays_the_points_of_the_per_game_one(table: str) -> None:
    rules = GinConfig(**rules_dict(TABLES[table]))
    cand = tune.decode(np.random.default_rng(1).uniform(size=len(tune.space())))
    matches = [
        (HeuristicParams(), "simple"),
        (cand, HeuristicParams()),
        (HeuristicParams(knock_late=5, knock_undercut=-2.0), cand),
    ]
    batched = tune.play_batched(matches, 3, 10, 5, rules)
    per_game = [tune.play_block(a, b, 3, 10, 5, rules) for a, b in matches]
    assert batched == per_game
    assert any(x != 0 for row in batched for x in row)


def test_a_tiny_run_with_a_fitness_in_games(tmp_path: Path) -> None:
    # Matches to 100 at the EAAI table against L2 and the pool's styles, from today's set.
    args = _args(
        tmp_path, table="eaai", fitness="games", start="tuned", generations=1,
        pool_opponents="L2,tuned,gin-only,knock-early", select_candidates=1,
    )  # fmt: skip
    state = tune.tune(args)
    row = state["history"][0]
    assert row["pool"] == ["L2", "tuned", "gin-only", "knock-early"]
    assert all(0.0 <= v <= 1.0 for v in row["pool_points"].values())
    assert dict(state["fixed"])["tuned"] == dataclasses.asdict(tune.todays_tuned("eaai"))
    assert state["start"] == load_sets()["eaai"]["params"]  # the set shipped for eaai
    # A table without a set starts from (and meets) the nearest one: eaai from OpenSpiel's.
    assert tune.nearest_set("eaai", {"default": {}, "openspiel": {}}) == "openspiel"
    assert tune.nearest_set("eaai", {"default": {}}) == "default"
    report = json.loads((tmp_path / "report.json").read_text())
    assert {"vs_L2", "vs_tuned", "vs_gin-only", "vs_knock-early"} <= set(report)
    assert 0.0 <= report["vs_L2"]["win_share"] <= 1.0
    with pytest.raises(ValueError, match="fitness must be one of points, games"):
        tune.tune(_args(tmp_path / "x", fitness="hands"))


def test_a_field_without_a_range_is_an_error(monkeypatch) -> None:
    monkeypatch.delitem(tune.BOUNDS, "danger_weight")
    with pytest.raises(ValueError, match="danger_weight has no range"):
        tune.space()


def test_a_tiny_run_end_to_end_and_resumed_after_a_stop(tmp_path: Path) -> None:
    whole = tune.tune(_args(tmp_path / "whole"), command="tiny")
    assert whole["generation"] == 2 and whole["evaluations"] == 8
    assert [r["pool"] for r in whole["history"]] == [["L2", "L1"], ["L2", "L1", "best0"]]
    data = json.loads((tmp_path / "whole" / "params.json").read_text())
    assert data["table"] == "default" and data["rules"] == rules_dict(TABLES["default"])
    assert data["tuning"]["generations"] == 2 and data["tuning"]["evaluations"] == 8
    assert set(data["figures"]) == {"seed", "vs_L2", "vs_L1"}
    assert (tmp_path / "whole" / "generations.csv").read_text().count("\n") == 3

    class Stop(Exception):
        pass

    def stop(state: dict) -> None:
        if state["generation"] == 1:
            raise Stop

    with pytest.raises(Stop):
        tune.tune(_args(tmp_path / "cut"), after_generation=stop)
    assert tune.load_state(tmp_path / "cut")["generation"] == 1
    np.random.seed(12345)  # whatever the process did in between, the resume restores it
    resumed = tune.tune(_args(tmp_path / "cut", resume=True))
    assert _summary(resumed) == _summary(whole)
    assert _log_rows(tmp_path / "cut") == _log_rows(tmp_path / "whole")


def test_resume_refuses_a_changed_search_and_a_new_run_an_old_folder(tmp_path: Path) -> None:
    tune.tune(_args(tmp_path, generations=1, select_pairs=0, report_pairs=0))
    with pytest.raises(ValueError, match="pairs=1"):
        tune.tune(_args(tmp_path, pairs=3, resume=True))
    with pytest.raises(ValueError, match="holds a run"):
        tune.tune(_args(tmp_path))
    with pytest.raises(ValueError, match="table must be one of default, eaai, openspiel"):
        tune.tune(_args(tmp_path / "x", table="vegas"))


def test_the_train_command_dispatches_tune(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gin_cli.main import cli

    result = CliRunner().invoke(cli, ["train", "--algo", "tune", "--table", "vegas"])
    assert result.exit_code != 0
    assert "table must be one of default, eaai, openspiel" in result.output


@pytest.mark.slow
def test_a_run_killed_mid_way_resumes_to_the_same_state(tmp_path: Path) -> None:
    flags = ["--generations", "6", "--popsize", "4", "--pairs", "6", "--pool-bests", "1",
             "--select-candidates", "1", "--select-pairs", "2", "--report-pairs", "2",
             "--workers", "1", "--progress", "false"]  # fmt: skip
    killed = tmp_path / "killed"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "training.tune", "--run-dir", str(killed), *flags]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ckpt = killed / "checkpoint.json"
    deadline = time.time() + 120
    while not ckpt.exists() and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    at_kill = json.loads(ckpt.read_text())["generation"]
    assert 1 <= at_kill < 6, "killed during the generations"
    ns = dict(generations=6, pairs=6, select_candidates=1)
    resumed = tune.tune(_args(killed, resume=True, **ns))
    whole = tune.tune(_args(tmp_path / "whole", **ns))
    assert _summary(resumed) == _summary(whole)
    assert _log_rows(killed) == _log_rows(tmp_path / "whole")


def _write_set(folder: Path, table: str, **params: object) -> None:
    data = param_set(HeuristicParams(**params), TABLES[table], table)  # type: ignore[arg-type]
    (folder / f"tuned-{table}.json").write_text(json.dumps(data))


def test_a_parameter_set_is_refused_at_a_table_of_other_rules(tmp_path: Path) -> None:
    _write_set(tmp_path, "default", danger_weight=7.5)
    agent = make_tuned(directory=tmp_path)
    assert agent.table == "default" and agent.params.danger_weight == 7.5
    openspiel = GinConfig(undercut_bonus=25, allow_discard_of_taken_card=True, target_score=50)
    assert table_name(openspiel) == "openspiel"
    with pytest.raises(ValueError, match=r"no parameter set tuned for this table \(undercut"):
        make_tuned(rules=openspiel, directory=tmp_path)
    with pytest.raises(ValueError, match="any_table=True"):
        make_tuned(rules=HandRules(knock_limit=7), directory=tmp_path)
    with pytest.raises(ValueError, match="set 'default' was tuned for the default rules"):
        make_tuned(rules=openspiel, params="default", directory=tmp_path)
    anyway = make_tuned(rules=openspiel, any_table=True, directory=tmp_path)
    assert anyway.params.danger_weight == 7.5 and anyway.table == "default"
    with pytest.raises(ValueError, match="no parameter set 'openspiel'; sets: default"):
        make_tuned(params="openspiel", directory=tmp_path)
    _write_set(tmp_path, "openspiel", danger_weight=3.0)
    at_openspiel = make_tuned(rules=openspiel, directory=tmp_path)
    assert at_openspiel.params.danger_weight == 3.0 and at_openspiel.rules.undercut_bonus == 25
    assert set(load_sets(tmp_path)) == {"default", "openspiel"}
    # The EAAI-21 challenge's table forbids discarding the taken card: not OpenSpiel's set.
    assert table_name(TABLES["eaai"]) == "eaai"
    with pytest.raises(ValueError, match="no parameter set tuned for this table"):
        make_tuned(rules=TABLES["eaai"], directory=tmp_path)


def test_a_set_with_an_unknown_parameter_is_refused(tmp_path: Path) -> None:
    data = param_set(HeuristicParams(), TABLES["default"], "default")
    data["params"]["bluff"] = 1.0
    (tmp_path / "tuned-default.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"\['bluff'\] are not HeuristicParams fields"):
        make_tuned(directory=tmp_path)


def test_the_shipped_sets_follow_the_table() -> None:
    sets = load_sets()
    if not sets:
        pytest.skip("no tuned parameter sets shipped")
    for name, data in sets.items():
        assert data["rules"] == rules_dict(TABLES[name])
        rules = TABLES[name]
        agent = agents.seat("tuned", rules)
        assert agent.table == name and agent.params == HeuristicParams(**data["params"])
    with pytest.raises(ValueError, match="no parameter set tuned for this table"):
        agents.seat("tuned", GinConfig(knock_limit=7))
    assert (ROOT / "agents" / "checkpoints" / "tuned.md").is_file()
    # Asked by spec, as the command line writes it: true/false in any case are booleans.
    spec = "tuned:params=openspiel,any_table=true"
    anyway = agents.seat(spec, GinConfig(knock_limit=7))
    assert anyway.table == "openspiel"
    assert anyway.params == HeuristicParams(**sets["openspiel"]["params"])
    with pytest.raises(ValueError, match="any_table must be True or False"):
        agents.make("tuned:any_table=yes")


def test_the_evaluation_seats_tuned_with_the_set_of_its_table(tmp_path: Path, monkeypatch) -> None:
    import agents.tuned
    from gin_eval import checks, gin

    monkeypatch.setattr(agents.tuned, "SET_DIR", tmp_path)
    monkeypatch.setattr(checks, "_AGENT_CACHE", {})
    _write_set(tmp_path, "default", danger_weight=7.5)
    eaai = TABLES["eaai"]
    with pytest.raises(checks.OptionError, match="no parameter set tuned for this table"):
        gin.gin_duplicate("tuned", "heuristic", 1, workers=1, progress=False, table=eaai)
    _write_set(tmp_path, "eaai", danger_weight=3.0)
    out = gin.gin_duplicate("tuned", "heuristic", 1, workers=1, progress=False, table=eaai)
    assert out["pairs"] == 1
    assert checks.agent_of("tuned", eaai).table == "eaai"
    assert checks.agent_of("tuned", GinConfig()).table == "default"


def test_the_card_is_written_from_the_runs(tmp_path: Path) -> None:
    tune.tune(_args(tmp_path / "run", generations=1), command="tiny command")
    card = tune.write_card([tmp_path / "run"], tmp_path)
    text = card.read_text()
    assert "tiny command" in text and "vs L2:" in text and "| danger_weight |" in text
    assert load_sets(tmp_path)["default"]["tuning"]["generations"] == 1


def test_the_csv_log_has_one_column_set(tmp_path: Path) -> None:
    import csv

    tune.tune(_args(tmp_path, generations=3, pool_bests=2, select_pairs=0, report_pairs=0))
    with (tmp_path / "generations.csv").open() as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 4 and {len(r) for r in rows} == {len(rows[0])}
    assert rows[1][rows[0].index("vs_bests")] == "" and rows[3][rows[0].index("vs_bests")]


def test_the_choice_spans_the_run_and_is_redone_when_its_settings_change(tmp_path: Path) -> None:
    ns = dict(generations=3, select_candidates=2, report_pairs=0)
    state = tune.tune(_args(tmp_path, **ns))
    assert [t["name"] for t in state["choice"]["tried"]] == ["mean", "best0", "best2"]
    again = tune.tune(_args(tmp_path, resume=True, **dict(ns, select_candidates=3)))
    assert again["generation"] == 3
    assert [t["name"] for t in again["choice"]["tried"]] == ["mean", "best0", "best1", "best2"]


def test_a_search_from_the_shipped_set_against_l2_alone(tmp_path: Path) -> None:
    """``--start tuned`` starts CMA-ES at the table's shipped set, which then competes in the
    final choice; ``--pool-opponents L2`` plays no generation against L1."""
    state = tune.tune(
        _args(tmp_path, start="tuned", pool_opponents="L2", pool_bests=0, report_pairs=0)
    )
    shipped = load_sets()["default"]["params"]
    # (fields the shipped set predates start at their defaults)
    assert HeuristicParams(**state["start"]) == HeuristicParams(**shipped)
    assert tune.decode(state["es"].x0) == HeuristicParams(**shipped)
    assert all(row["pool"] == ["L2"] for row in state["history"])
    assert "start" in [t["name"] for t in state["choice"]["tried"]]
    lines = (tmp_path / "generations.csv").read_text().splitlines()
    assert len(lines) == 3 and lines[1].split(",")[0] == "0"
    # The card tells both searches: this one, and the one that found the set it began at.
    text = tune.write_card([tmp_path], _folder(tmp_path / "card")).read_text()
    first = load_sets()["default"]["tuning"]
    assert "started from the set an earlier search found" in text
    assert all(f"its command: `{c}`" in text for c in first["commands"])


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("start", "L3", "start must be one of L2, tuned, gin-only, knock-early; got 'L3'"),
        (
            "pool_opponents",
            "L2,L0",
            "pool_opponents must name each of L2, L1, tuned, gin-only, knock-early at most once",
        ),
        (
            "pool_opponents",
            "L2,L2",
            "pool_opponents must name each of L2, L1, tuned, gin-only, knock-early at most once",
        ),
        (
            "pool_opponents",
            "",
            "pool_opponents must name each of L2, L1, tuned, gin-only, knock-early at most once",
        ),
    ],
)
def test_a_bad_start_or_pool_is_refused_before_anything_runs(
    tmp_path: Path, flag: str, value: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        tune.tune(_args(tmp_path / "bad", **{flag: value}))
    assert not (tmp_path / "bad").exists()


def test_resume_of_a_run_from_before_the_start_option(tmp_path: Path) -> None:
    """A checkpoint whose settings lack the newer search flags ran at their defaults."""
    tune.tune(_args(tmp_path, generations=1, select_pairs=0, report_pairs=0))
    state = tune.load_state(tmp_path)
    for k in ("start", "pool_opponents"):
        del state["settings"][k]
    tune._save(tmp_path / "checkpoint.json", state)
    assert tune.tune(_args(tmp_path, resume=True))["generation"] == 2
    with pytest.raises(ValueError, match="pool_opponents='L2,L1'"):
        tune.tune(_args(tmp_path, resume=True, pool_opponents="L2", generations=3))


def _folder(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_the_card_is_written_again_from_the_shipped_sets_keeping_its_notes(
    tmp_path: Path,
) -> None:
    """A shipped set keeps its search's course: the card comes back the same from the set
    alone (no run folder), and the hand-written sections after the tables stay."""
    tune.tune(_args(tmp_path / "run", generations=2), command="tiny command")
    out = _folder(tmp_path / "out")
    card = tune.write_card([tmp_path / "run"], out)
    first = card.read_text()
    assert "| 1 | 8 |" in first  # generation 1, 8 evaluations: the search's table
    card.write_text(first + "\n## Reading the figures\n\nwritten by hand\n")
    tune.write_card([out / "tuned-default.json"], out)
    again = card.read_text()
    assert again.startswith(first) and again.count("written by hand") == 1
