"""Actor processes feeding one DMC learner (training.dmc_actors)."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.dmc import qnets, torch_model  # noqa: E402
from gin_env.vector import VectorGinEnv  # noqa: E402
from training.checkpoints import latest_checkpoint  # noqa: E402
from training.dmc_actors import SharedWeights  # noqa: E402
from training.train_dmc import Args, load_state, parse_args, train  # noqa: E402


def test_shared_weights_hand_the_actors_the_newest_networks() -> None:
    import torch

    torch.manual_seed(0)
    first, second = qnets([torch_model([8, 4]) for _ in range(2)]), None
    shared = SharedWeights(first, mp.get_context("spawn"))
    version, got = shared.read()
    torch.manual_seed(1)
    second = qnets([torch_model([8, 4]) for _ in range(2)])
    shared.publish(second)
    version2, got2 = shared.read()
    assert version2 == version + 1
    env = VectorGinEnv(4, "gin", seed=1, backend="python")
    out = env.reset()
    from agents.dmc import encode_pairs

    rows, _, feats = encode_pairs(out["observation"], out["action_mask"])
    for nets, copies in ((first, got), (second, got2)):
        for net, copy in zip(nets, copies, strict=True):
            assert np.array_equal(
                net.q(out["observation"], rows, feats), copy.q(out["observation"], rows, feats)
            )
    assert not np.allclose(got[0].w_obs, got2[0].w_obs)


@pytest.mark.slow
def test_actor_processes_feed_the_learner_and_a_resume_continues_the_count(
    tmp_path: Path,
) -> None:
    """Two actor processes, a tiny budget: the learner learns from what they play, checkpoints,
    and a resumed run (one actor now) goes on from the saved step count."""
    run_dir = str(tmp_path / "actors")
    args = Args(
        env="gin", run_dir=run_dir, total_steps=3000, num_envs=8, backend="python",
        hidden="16", batch_size=64, buffer_size=4000, eval_every=2500, eval_pairs=2,
        eval_opponents="random", checkpoint_every=1000, progress=False, seed=4,
        opponents="simple", opponent_share=0.5, actors=2,
    )  # fmt: skip
    first = train(args)
    assert first["finished"] and first["steps"] >= 3000 and first["updates"] > 0
    # Chunks arrive from whichever actor is ready, so the run stops one chunk past its budget
    # and may pass a second evaluation point: evaluations come at least eval_every apart.
    steps_at = [e["step"] for e in first["evals"]]
    assert first["hands"] > 0 and 1 <= len(steps_at) <= first["steps"] // 2500
    assert steps_at[0] >= 2500 and all(np.diff(steps_at) >= 2500)
    ckpt = latest_checkpoint(run_dir)
    assert ckpt is not None
    assert load_state(ckpt)["steps"] == first["steps"]
    # A budget past where the first run stopped (one chunk past 3000, how far is timing).
    target = first["steps"] + 2000
    resumed = parse_args(["--run-dir", run_dir, "--resume", "--total-steps", str(target),
                          "--actors", "1"])  # fmt: skip
    assert resumed.actors == 1 and resumed.opponent_share == 0.5
    more = train(resumed)
    assert more["steps"] >= target and more["updates"] > first["updates"]
    assert more["hands"] > first["hands"]


def test_actors_refuse_a_warm_start(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--run-dir", str(tmp_path / "w"), "--actors", "2", "--warm-steps", "100"])
    assert "actors > 0 needs --warm-steps 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_args(["--run-dir", str(tmp_path / "w"), "--actors", "-1"])
    assert "actors must be >= 0" in capsys.readouterr().err
