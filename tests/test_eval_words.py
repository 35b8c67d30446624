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
