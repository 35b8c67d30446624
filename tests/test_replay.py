"""Replays: save a finished match, load it, play it back to the same scores, text and GIF."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gin_env import gin_v0, three_handed_gin_v0
from training import replay


def _random_match(module, seed: int, **options):
    env = module.raw_env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not env.match.is_over:
        env.step(int(rng.choice(env.legal_actions())))
    return env


@pytest.mark.parametrize(
    ("module", "options"),
    [(three_handed_gin_v0, {"target_score": 40}), (gin_v0, {"target_score": 30})],
)
def test_saved_match_replays_to_its_scores(tmp_path, module, options) -> None:
    env = _random_match(module, 5, **options)
    path = tmp_path / "match.json"
    saved = replay.save_match(path, 5, options, env, {"player_0": "random"})
    data = replay.load(path)
    assert data == json.loads(json.dumps(saved))
    assert data["scores"] == env.match.scores and max(data["scores"]) >= options["target_score"]
    assert len(data["hands"]) == len(env.match.history)
    end = replay.replay_env(data)
    assert end.match.scores == env.match.scores
    assert end.match.winner == env.match.winner
    assert [r.to_dict() for r in end.match.history] == data["hands"]


def test_replay_text_has_every_hand_and_the_winner(tmp_path) -> None:
    env = _random_match(three_handed_gin_v0, 8, target_score=40)
    data = replay.match_record(8, {"target_score": 40}, env)
    text = replay.replay_text(data)
    finished = [r for r in env.match.history if r.result is not None]
    assert text.count("\nhand ") == len(finished)
    assert f"player_{env.match.winner} wins the match" in text
    assert f"scores {env.match.scores}" in text
    assert "suggests" in text  # the adviser's suggestions are part of the record


def test_tampered_replay_is_rejected(tmp_path) -> None:
    env = _random_match(gin_v0, 9, target_score=30)
    data = replay.match_record(9, {"target_score": 30}, env)
    data["scores"] = [s + 1 for s in data["scores"]]
    with pytest.raises(ValueError, match="diverged"):
        replay.replay_env(data)
    data = replay.match_record(9, {"target_score": 30}, env)
    data["seed"] = 10  # other deals: the first deck no longer matches
    with pytest.raises(ValueError, match="diverged"):
        replay.replay_env(data)


def test_bad_files_are_clear_errors(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        replay.load(bad)
    bad.write_text(json.dumps({"format": 1, "game": "poker", "seed": 0, "options": {},
                               "hands": [], "scores": []}))  # fmt: skip
    with pytest.raises(ValueError, match="game must be one of"):
        replay.load(bad)


def test_replay_gif(tmp_path) -> None:
    pil = pytest.importorskip("PIL.Image")
    env = _random_match(three_handed_gin_v0, 4, target_score=20)
    data = replay.match_record(4, {"target_score": 20}, env)
    path = tmp_path / "hand.gif"
    frames = replay.replay_gif(data, path, hands=[1], max_frames=12)
    assert 2 <= frames <= 12
    with pil.open(path) as gif:
        assert gif.n_frames == frames
        assert gif.size == (1040, 640)
