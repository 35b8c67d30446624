"""The rollout-target DMC trainer: its targets are the base player's real returns, and a
tiny generate / fit / select / export run gives a player that plays legal moves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents import trained
from agents.dmc import load
from agents.heuristic import HeuristicAgent
from agents.simulate import seat_points
from gin_env import actions as A
from gin_env import gin_v0
from gin_env.hand import Phase
from studies import dmc_rollouts as R
from training.model_cards import write_rollout_card


def test_the_rolled_out_return_of_l2s_move_is_the_hand_l2_then_plays() -> None:
    env = gin_v0.raw_env()
    env.reset(seed=3)
    base = HeuristicAgent()
    checked = 0
    while checked < 8:
        ob = env.observe(env.agent_selection)
        mask = ob["action_mask"].astype(bool)
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            env.step(int(legal[0]))
            continue
        hand = env.table_state.open_hand()  # the true deal, as the study rolls it out
        assert hand is not None
        seat = hand.current
        row = R.rollout_returns(hand, base)
        assert (row[mask] != R.ILLEGAL).all() and (row[~mask] == R.ILLEGAL).all()
        assert hand.current == seat and hand.phase is not Phase.OVER  # left unchanged
        move = int(base.act(ob))
        record = env.table_state.history[-1]  # the hand on the table
        env.step(move)
        while record.result is None:
            env.step(int(base.act(env.observe(env.agent_selection))))
        assert row[move] == seat_points(record.result, seat)
        checked += 1
        if any(env.terminations.values()):
            env.reset(seed=checked)


def test_generate_fit_select_export_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (
        R.generate(tmp_path, workers=1, minutes=0.0, chunk=12, sample=0.5, epsilon=0.1, seed=1) == 0
    )
    (tmp_path / "data").mkdir(exist_ok=True)
    chunk = R.generate_chunk(seed=5, decisions=24, sample=0.5, epsilon=0.1)
    np.savez(tmp_path / "data" / "chunk_00000.npz", **chunk)
    data = R.load_data(tmp_path)
    assert len(data["obs"]) == 24 and data["returns"].shape == (24, 109)
    assert ((data["returns"] != R.ILLEGAL) == data["mask"]).all()
    summary = R.fit(
        tmp_path,
        hidden=(16, 16),
        epochs=2,
        batch=8,
        valid=0.25,
        seed=3,
        features="l2score",
        ensemble=2,
    )
    assert summary["decisions"] == 24 and len(summary["history"]) == 4
    gains = R.one_step_gain(tmp_path, [0.0, 1.0])
    assert gains[1]["deviates"] == 0.0 and gains[1]["gain_per_decision"] == 0.0  # plays L2
    # The gain is measured on the fit's own held-out decisions (its seed's split).
    assert gains[0]["decisions"] == len(R.held_out(24, 0.25, 3)[1]) == 6
    picks = R.select(tmp_path, [0.0, 0.05], pairs=2, seed=11, workers=1)
    assert [p["margin"] for p in picks] == [0.0, 0.05]
    assert all(0.0 <= p["heuristic/hand_win_rate"] <= 1.0 for p in picks)
    path = R.export(tmp_path, "tiny-rollouts", 0.05, ["test"], directory=tmp_path)
    agent = load(path)
    assert agent.features == "l2score" and agent.margin == 0.05
    monkeypatch.setattr(trained, "CHECKPOINT_DIR", tmp_path)
    card = write_rollout_card("tiny-rollouts", {"seed": 2026}, "test").read_text()
    kept = [
        min(h["valid_paired_loss"] for h in summary["history"] if h["member"] == m) for m in (0, 1)
    ]
    assert ", ".join(f"{v:.5f}" for v in kept) in card  # each member's kept loss
    assert "ensemble of 2" in card and "L2's own score of the move" in card
    env = gin_v0.env()
    env.reset(seed=0)
    for _name in env.agent_iter(max_iter=300):
        ob, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agent.act(ob))  # a move off the mask would raise


def test_l2score_marks_l2s_own_discard_as_its_best_move() -> None:
    from agents.dmc import action_size, encode_pairs, input_layout

    env = gin_v0.raw_env()
    env.reset(seed=8)
    base = HeuristicAgent()
    seen = 0
    while seen < 30:
        ob = env.observe(env.agent_selection)
        move = int(base.act(ob))
        mask = ob["action_mask"].astype(bool)
        if mask.sum() > 1 and A.DISCARD <= move < A.KNOCK:
            obs = ob["observation"][None].astype(np.float32)
            rows, acts, feats = encode_pairs(obs, mask[None], "l2score", np.array([move]))
            assert feats.shape == (len(acts), action_size("l2score"))
            score = dict(zip(acts.tolist(), feats[:, -1].tolist(), strict=True))
            l2_mark = dict(zip(acts.tolist(), feats[:, -2].tolist(), strict=True))
            assert score[move] == 0.0 and l2_mark[move] == 1.0
            assert all(0.0 <= v <= 3.0 for v in score.values())
            seen += 1
        env.step(move)
        if any(env.terminations.values()):
            env.reset(seed=seen)
    assert input_layout("l2score")["action_encoding"].endswith("+l2score")


def test_a_merged_ensemble_scores_the_mean_of_its_members() -> None:
    from agents.dmc import ACTION_FEATURES, QNet
    from gin_env.encoding import OBS_SIZE

    rng = np.random.default_rng(0)

    def net(h: int) -> QNet:
        layers = [
            (rng.normal(size=(h, h)), rng.normal(size=h)),
            (rng.normal(size=(1, h)), rng.normal(size=1)),
        ]
        return QNet(
            rng.normal(size=(h, OBS_SIZE)),
            rng.normal(size=(h, ACTION_FEATURES)),
            rng.normal(size=h),
            layers,
        )

    members = [net(8), net(8), net(8)]
    obs = rng.random((5, OBS_SIZE)).astype(np.float32)
    rows = np.repeat(np.arange(5), 3)
    feats = rng.random((15, ACTION_FEATURES)).astype(np.float32)
    mean = np.mean([m.q(obs, rows, feats) for m in members], axis=0)
    np.testing.assert_allclose(R.merge(members).q(obs, rows, feats), mean, rtol=1e-4, atol=1e-3)
