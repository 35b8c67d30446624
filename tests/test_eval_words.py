"""Evaluation with players in words: duplicate gin, three-handed and rummy take the words
agent and a language model (the scripted local server of tests/scripted_openai.py: its
replies come from a script, not a model) with ``--concurrency``; reports add wins by kind,
deadwood at showdown and word-play stats; the leaderboard writes a Markdown table."""

from __future__ import annotations

from pathlib import Path

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
        assert g["text"][llm]["decisions"] > 0 and g["text"][llm]["invalid"] == 0
        t = three_handed([llm, "heuristic", "simple"], 3, progress=False, concurrency=3)
        assert t["text"][llm]["replies"] > 0 and t["adviser_on"]["agents"][llm]["win_kinds"]
        r = rummy_duplicate(
            [llm, "rummy-simple"], 2, progress=False, table=RummyConfig(max_turns=60), concurrency=2
        )
        assert r["hands"] == 4 and r["text"][llm]["tokens_per_decision"] > 0
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
    # Every transcript line of duplicate three-handed play names its run, deal, hand, seat,
    # role, decision and seed, and joins to the game it belongs to: its replay's hand gives
    # that seat that role.
    import json

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
        games = {}
        for path in folder.iterdir():
            data = record.load(path)
            games[(path.name[:9], json.dumps(data["agents"], sort_keys=True))] = data
        for line in moves:
            assert line["run"] == "r1" and line["design"] == "three-duplicate"
            assert line["seed"] == 4 and line["game"] == "three_handed"
            data = games[
                (f"deal{line['game_index']:05d}", json.dumps(line["seats"], sort_keys=True))
            ]
            hand = data["hands"][line["hand"]]
            seat = int(line["seat"].removeprefix("player_"))
            assert ("box", "captain", "adviser")[hand["roles"][seat]] == line["role"]
            assert data["agents"][line["seat"]] == "words(heuristic)"
        assert sorted({x["decision"] for x in moves}) == list(range(1, len(moves) + 1))


def test_eval_with_a_language_model_writes_a_replay_of_every_game(tmp_path: Path) -> None:
    # gin-rummy eval with a language model seated writes one replay per finished game (the
    # default --replays auto); each plays back to its recorded scores, and the replays'
    # points are the points the evaluation reports.
    import json

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
        seat_a = next(int(s[-1]) for s, name in data["agents"].items() if name == llm)
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
