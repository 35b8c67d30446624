"""Evaluation with players in words: duplicate gin, three-handed and rummy take the words
agent and a language model (the scripted local server of tests/scripted_openai.py: its
replies come from a script, not a model), with ``--concurrency`` or without; reports add
wins by kind, deadwood at showdown and word-play stats, each figure the one its table
names (the adviser-off table counts the adviser-off decisions); every transcript line
joins to its replay by seed, seat, hand and mode; the leaderboard writes a Markdown
table."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from scripted_openai import ScriptedServer

from gin_cli.evaluate import main as evaluate
from gin_env.config import RummyConfig
from gin_eval.gin import gin_duplicate
from gin_eval.outcomes import leaderboard_markdown, win_kinds
from gin_eval.rummy import rummy_duplicate
from gin_eval.three_handed import three_handed


def test_win_kinds_counts_each_agents_wins() -> None:
    hands = [
        (["a", "b"], {"kind": "gin", "winner": 0, "deadwood": [0, 30]}),
        (["b", "a"], {"kind": "undercut", "winner": 1, "deadwood": [8, 6]}),
        (["a", "b"], {"kind": "knock", "winner": 1, "deadwood": [20, 4]}),
        (["a", "b"], {"kind": "draw", "winner": None, "deadwood": [None, None]}),
    ]
    k = win_kinds(hands)
    assert k["a"]["wins"] == 2 and k["a"]["gin_share"] == 0.5 and k["a"]["undercut_share"] == 0.5
    assert k["b"]["knock_share"] == 1.0 and k["a"]["mean_showdown_deadwood"] == pytest.approx(
        26 / 3
    )


def test_words_agent_scores_as_its_agent_in_duplicate_gin() -> None:
    said = gin_duplicate("words:agent=heuristic", "simple", 6, seed=3, workers=1, progress=False)
    plain = gin_duplicate("heuristic", "simple", 6, seed=3, workers=1, progress=False)
    assert said["points_per_hand"] == plain["points_per_hand"]
    assert said["text"]["words:agent=heuristic"]["invalid"] == 0
    kinds = said["win_kinds"]["simple"]
    assert kinds == plain["win_kinds"]["simple"] and kinds["wins"] > 0


def test_language_model_with_concurrency_everywhere(tmp_path: Path) -> None:
    with ScriptedServer() as server:
        llm = f"llm:model=scripted,base_url={server.base_url},timeout=5"
        g = gin_duplicate(llm, "simple", 3, workers=1, progress=False, concurrency=3)
        assert g["text"]["scripted"]["decisions"] > 0 and g["text"]["scripted"]["invalid"] == 0
        t = three_handed([llm, "heuristic", "simple"], 3, progress=False, concurrency=3)
        assert t["text"]["scripted"]["replies"] > 0
        assert t["adviser_on"]["agents"]["scripted"]["win_kinds"]
        r = rummy_duplicate(
            [llm, "rummy-simple"], 2, progress=False, table=RummyConfig(max_turns=60), concurrency=2
        )
        assert r["hands"] == 4 and r["text"]["scripted"]["tokens_per_decision"] > 0
        out = evaluate(
            ["leaderboard", "--agents", f"{llm};simple;random", "--pairs", "2",
             "--concurrency", "4", "--no-plot", "--no-progress", "--out", str(tmp_path),
             "--name", "board"]
        )  # fmt: skip
    md = (tmp_path / "board.md").read_text()
    assert md.count("\n| ") == 4 and "| invalid replies [95% CI] |" in md and "`simple`" in md
    assert "| fallback moves [95% CI] | timeouts |" in md
    assert leaderboard_markdown(out, out["text"]) == md


def test_duplicate_three_handed_tells_players_in_words_their_deal_and_seat(
    tmp_path: Path,
) -> None:
    # Every transcript line of duplicate three-handed play names its run, deal, replay,
    # hand, seat, role, decision, mode and seed, and joins to the game it belongs to: its
    # replay (of that seed) gives that seat that role in that hand.
    import agents
    from gin_env import record
    from gin_eval.duplicate import duplicate_three

    for unit in ("match", "hand"):
        transcript = tmp_path / f"{unit}.jsonl"
        said = agents.make("words:agent=heuristic", transcript=str(transcript), run="r1")
        folder = tmp_path / unit
        duplicate_three([said, "simple", "random"], 1, seed=4, unit=unit, replays=folder)
        lines = [json.loads(x) for x in transcript.read_text().splitlines()]
        moves = [x for x in lines if x.get("kind") == "move"]
        assert moves and len(moves) == said.stats()["decisions"]
        for line in moves:
            assert line["run"] == "r1" and line["design"] == "three-duplicate"
            assert line["eval_seed"] == 4 and line["game"] == "three_handed"
            assert line["mode"] == "adviser_on"
            data = record.load(folder / f"{line['replay']}.json")
            assert data["seed"] == line["seed"] and data["agents"] == line["seats"]
            hand = data["hands"][line["hand"]]
            seat = int(line["seat"].removeprefix("player_"))
            assert ("box", "captain", "adviser")[hand["roles"][seat]] == line["role"]
            assert data["agents"][line["seat"]] == "words(heuristic)"
        assert sorted({x["decision"] for x in moves}) == list(range(1, len(moves) + 1))


def test_eval_with_a_language_model_writes_a_replay_of_every_game(tmp_path: Path) -> None:
    # gin-rummy eval with a language model seated writes one replay per finished game (the
    # default --replays auto); each plays back to its recorded scores, and the replays'
    # points are the points the evaluation reports.
    from gin_env import record

    with ScriptedServer() as server:
        llm = f"llm:model=scripted,base_url={server.base_url},timeout=5"
        common = ["--no-plot", "--no-progress", "--concurrency", "2", "--out", str(tmp_path)]
        g = evaluate(["gin", "--agents", f"{llm},simple", "--pairs", "2", "--name", "g", *common])
        t = evaluate(
            ["three", "--agents", f"{llm};simple;random", "--matches", "1", "--duplicate",
             "hand", "--adviser", "suggest", "--name", "t", *common]
        )  # fmt: skip
        r = evaluate(
            ["rummy", "--agents", f"{llm};rummy-simple", "--deals", "1", "--name", "r", *common],
            table=RummyConfig(max_turns=60),
        )
        evaluate(["gin", "--agents", f"{llm},simple", "--pairs", "1", "--name", "off",
                  "--replays", "off", *common])  # fmt: skip
    files = sorted((tmp_path / "g_replays").iterdir())
    assert g["replays"]["files"] == len(files) == 4
    a_points = 0
    for path in files:
        data = record.load(path)
        end = record.replay_env(data)
        assert list(end.table_state.scores) == data["scores"]
        seat_a = next(int(s[-1]) for s, name in data["agents"].items() if name == "scripted")
        a_points += data["scores"][seat_a] - data["scores"][1 - seat_a]
    assert a_points / 4 == pytest.approx(g["points_per_hand"])
    three = sorted((tmp_path / "t_replays" / "adviser_on").iterdir())
    assert t["adviser_on"]["replays"]["files"] == len(three) == 6
    for path in three:
        data = record.load(path)
        assert list(record.replay_env(data).table_state.scores) == data["scores"]
    rummy = sorted((tmp_path / "r_replays").iterdir())
    assert r["replays"]["files"] == len(rummy) == 2
    for path in rummy:
        data = json.loads(path.read_text())
        end = record.replay_moves(data)
        assert list(end.table_state.scores) == data["scores"]
    assert not (tmp_path / "off_replays").exists()


# -- every printed figure is the one its table names ------------------------------------------
def _word_row(printed: str, title: str, agent: str) -> str:
    """The word-play columns of ``agent``'s row in the table printed under ``title``."""
    lines = printed[printed.index(title) :].splitlines()
    header = lines[1]
    row = next(x for x in lines[2:] if x.split()[0] == agent)
    return row[header.index("showdown_dw") + len("showdown_dw") :]


def _numbers(t: dict[str, Any]) -> None:
    """Every figure of a player in words is a number (none missing, none nan)."""
    keys = ("invalid_rate", "fallback_rate", "timeouts", "transport_fault_rate",
            "failed_requests", "tokens_per_decision", "latency_s_per_decision",
            "cost_per_decision", "cost_per_1k_decisions", "cost_per_game", "decisions")  # fmt: skip
    for key in keys:
        assert isinstance(t[key], int | float) and not math.isnan(t[key]), key
    assert t["decisions"] > 0 and t["cost_per_1k_decisions"] > 0 and t["cost_per_game"] > 0


def _joins(lines: list[dict[str, Any]], replays: Path, model: str) -> int:
    """Each exchange joins to exactly one replay by seed, seat, hand and mode (the mode's
    folder): the replay's seat is the model's, and in three-handed games it holds the
    line's role in that hand. Returns the lines joined."""
    from gin_env import record

    found: dict[tuple[Any, ...], list[Path]] = {}
    records = {}
    for path in sorted(replays.rglob("*.json")):
        data = record.load(path)
        mode = path.parent.name if path.parent != replays else None
        records[path] = data
        for seat, name in data["agents"].items():
            if name == model:
                found.setdefault((mode, data["seed"], seat), []).append(path)
    joined = 0
    for line in lines:
        if line.get("kind") not in ("move", "invalid", "fallback", "truncated"):
            continue
        (path,) = found[(line.get("mode"), line["seed"], line["seat"])]
        assert path.stem == line["replay"]
        hand = records[path]["hands"][line["hand"]]
        if line["game"] == "three_handed":
            seat = int(line["seat"].removeprefix("player_"))
            assert ("box", "captain", "adviser")[hand["roles"][seat]] == line["role"]
        joined += 1
    return joined


def test_eval_gin_without_concurrency_prints_the_models_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's run: ``eval gin`` without ``--concurrency`` (two worker processes by
    default): the model's figures are numbers in the JSON and in the printed table, its
    cost per 1,000 decisions and per game visible at $0.15 / $0.60 per million tokens; the
    rows and the file names say the model, the JSON keeps the spec; the transcript is
    written by default with the run's name, and joins to the replays."""
    with ScriptedServer() as server:
        llm = f"llm:model=scripted,base_url={server.base_url},timeout=5"
        r = evaluate(
            ["gin", "--agents", f"{llm};heuristic", "--pairs", "2", "--price-in", "0.15",
             "--price-out", "0.6", "--no-plot", "--no-progress", "--out", str(tmp_path)]
        )  # fmt: skip
    printed = capsys.readouterr().out
    print(printed)
    stem = "gin_scripted_vs_heuristic"
    saved = json.loads((tmp_path / f"{stem}.json").read_text())
    assert saved["text"] is not None and saved["agent_a"] == "scripted"
    assert saved["specs"]["scripted"] == f"{llm},price_in=0.15,price_out=0.6"
    _numbers(saved["text"]["scripted"])
    assert r["text"]["scripted"]["games"] == 4
    words = _word_row(printed, "wins by kind and play in words:", "scripted")
    assert "nan" not in words and " - " not in words
    per_1k, per_game = (float(x) for x in words.split()[-2:])  # the small prices show
    assert per_1k > 0 and per_game > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"{stem}.csv", f"{stem}.json", f"{stem}_replays", f"{stem}_transcript.jsonl"
    ]  # fmt: skip
    lines = [
        json.loads(x) for x in (tmp_path / f"{stem}_transcript.jsonl").read_text().splitlines()
    ]
    assert {x["run"] for x in lines} == {stem} == {saved["run"]}
    heads = [x for x in lines if "system" in x]
    assert len(heads) == 4 and lines[0] is heads[0]  # the system prompt once per game, first
    assert (
        _joins(lines, tmp_path / f"{stem}_replays", "scripted")
        == r["text"]["scripted"]["decisions"]
    )


def test_eval_three_adviser_both_without_concurrency_counts_each_mode_in_its_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``eval three --adviser both`` without ``--concurrency``: the adviser-off table counts
    the adviser-off decisions (the transcript's lines of that mode), the adviser-on table
    the adviser-on ones; the replays of each mode are in its own folder, and every
    transcript line joins to its replay by seed, seat, hand and mode."""
    with ScriptedServer() as server:
        llm = f"llm:model=scripted,base_url={server.base_url},timeout=5,price_in=0.15"
        r = evaluate(
            ["three", "--agents", f"{llm};heuristic;simple", "--matches", "2", "--adviser",
             "both", "--no-plot", "--no-progress", "--out", str(tmp_path), "--name", "t"]
        )  # fmt: skip
        requests = len(server.requests)
    printed = capsys.readouterr().out
    print(printed)
    lines = [json.loads(x) for x in (tmp_path / "t_transcript.jsonl").read_text().splitlines()]
    decided = [x for x in lines if x.get("kind") in ("move", "fallback")]
    for mode in ("adviser_on", "adviser_off"):
        t = r[mode]["text"]["scripted"]
        _numbers(t)
        assert t["decisions"] == sum(x["mode"] == mode for x in decided)
        assert t["games"] == 2
        title = f"wins by kind and play in words ({mode.replace('_', ' ')}):"
        words = _word_row(printed, title, "scripted")
        assert "nan" not in words and " - " not in words
        assert words.split()[0] == f"{t['decisions']:.0f}"  # the table says what it counted
        assert sorted(p.name for p in (tmp_path / "t_replays" / mode).iterdir()) == [
            "match00000.json", "match00001.json"
        ]  # fmt: skip
    assert not any(x["role"] == "adviser" for x in decided if x["mode"] == "adviser_off")
    whole = r["text"]["scripted"]
    assert whole["decisions"] == len(decided) and whole["requests"] == requests
    assert _joins(lines, tmp_path / "t_replays", "scripted") == len(decided)
    heads = [x for x in lines if "system" in x]
    assert sorted((x["mode"], x["replay"]) for x in heads) == [
        (m, f"match0000{i}") for m in ("adviser_off", "adviser_on") for i in (0, 1)
    ]
    csv = (tmp_path / "t.csv").read_text().splitlines()[0].split(",")
    assert {"box_hands", "captain_hands", "adviser_hands"} <= set(csv)


def test_adviser_none_counts_the_models_decisions() -> None:
    with ScriptedServer() as server:
        llm = f"llm:model=scripted,base_url={server.base_url},timeout=5"
        r = three_handed([llm, "heuristic", "simple"], 1, adviser="none", progress=False)
        requests = len(server.requests)
    t = r["adviser_off"]["text"]["scripted"]
    assert t["decisions"] > 0 and t["requests"] == requests == r["text"]["scripted"]["requests"]
    assert "adviser_on" not in r


def test_rows_are_labelled_by_the_model_or_the_name_given() -> None:
    from gin_eval.checks import label_of, unique_labels

    url = "http://127.0.0.1:1/v1"
    assert label_of(f"llm:model=gpt-4o-mini,base_url={url},price_in=0.15") == "gpt-4o-mini"
    assert label_of(f"llm:model=gpt-4o-mini,base_url={url},name=mini-t0") == "mini-t0"
    assert label_of("words:agent=heuristic") == "words:agent=heuristic"
    assert label_of("words:agent=heuristic,name=said") == "said"
    assert unique_labels([f"llm:model=m,base_url={url}", "llm:model=m,temperature=1"]) == [
        "m#0", "m#1"
    ]  # fmt: skip
