"""DMC training with fixed roles (``--fixed-roles``) and the ``advice`` feature mode."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents import dmc  # noqa: E402
from gin_env.encoding import OBS_SLICES  # noqa: E402
from gin_env.match import ADVISER, BOX, CAPTAIN  # noqa: E402
from gin_env.vector import VectorGinEnv  # noqa: E402
from gin_eval.play import play_advice_hands  # noqa: E402
from training.checkpoints import latest_checkpoint  # noqa: E402
from training.train_dmc import (  # noqa: E402
    Args,
    export,
    fixed_roles,
    load_state,
    parse_args,
    train,
)

ROLE = OBS_SLICES["role"]


def roles_args(tmp_path: Path, total: int = 300, **kw: object) -> Args:
    # The replay is kept in the checkpoints so that the tests can read what was learned from.
    base: dict[str, object] = dict(
        env="three_handed", run_dir=str(tmp_path / "run"), total_steps=total, num_envs=8,
        backend="python", hidden="16", batch_size=32, buffer_size=4000, eval_every=200,
        eval_pairs=4, checkpoint_every=150, progress=False, seed=3, features="advice",
        fixed_roles="box=simple,adviser=heuristic", checkpoint_replay=True,
    )  # fmt: skip
    base.update(kw)
    return Args(**base)  # type: ignore[arg-type]


def replay_roles(run_dir: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Roles (from the stored observations), networks and action encodings in the replay."""
    ckpt = latest_checkpoint(run_dir)
    assert ckpt is not None
    with np.load(ckpt / "replay.npz") as z:
        obs, net, feats = z["obs"], z["net"], z["feats"]
    return np.argmax(obs[:, ROLE], axis=1), net, feats


# -- fixed roles ------------------------------------------------------------------------------
def test_a_captain_only_run_learns_from_captain_decisions_alone_and_exports(
    tmp_path: Path,
) -> None:
    args = roles_args(tmp_path)
    summary = train(args)
    assert summary["finished"] and summary["updates"] > 0
    roles, net, feats = replay_roles(args.run_dir)
    assert len(roles) >= 100 and set(roles.tolist()) == {CAPTAIN}  # box, adviser never stored
    assert set(net.tolist()) == {0} and feats.shape[1] == dmc.ACTION_FEATURES + 1
    # The captain acted on suggestions: some stored moves are the suggested one.
    assert 0 < feats[:, -1].mean() < 1
    ev = summary["evals"][-1]
    for key in ("team/points_per_hand", "muted/points_per_hand", "team/advice_gain"):
        assert np.isfinite(ev[key])
    assert 0 <= ev["team/follow_rate"] <= 1 and summary["best"]["key"] == "team/points_per_hand"
    agent = dmc.load(export(args.run_dir, "cap", directory=tmp_path))
    assert agent.features == "advice" and agent.meta["input_layout"] == dmc.input_layout("advice")
    res = play_advice_hands(agent, "heuristic", "simple", seed=1, start=0, stop=3)
    assert sum(res["advised"]) > 0  # the captain played (legal moves, or the env raises)


def test_a_joint_run_stores_captain_and_adviser_decisions_in_their_own_networks(
    tmp_path: Path,
) -> None:
    args = roles_args(tmp_path, fixed_roles="box=simple", role_nets=True, eval_every=10**6)
    train(args)
    roles, net, _ = replay_roles(args.run_dir)
    assert set(roles.tolist()) == {CAPTAIN, ADVISER} and BOX not in roles
    assert np.array_equal(net, roles)  # role nets: net r learns role r


def test_a_captain_only_run_resumes_with_its_fixed_roles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = train(roles_args(tmp_path, total=200, eval_every=10**6))
    run_dir = roles_args(tmp_path).run_dir
    resumed = parse_args(["--run-dir", run_dir, "--resume", "--total-steps", "400"])
    assert resumed.fixed_roles == "box=simple,adviser=heuristic" and resumed.features == "advice"
    more = train(resumed)
    assert more["steps"] >= 400 and more["updates"] > first["updates"]
    roles, _, _ = replay_roles(run_dir)
    assert set(roles.tolist()) == {CAPTAIN}
    assert (
        load_state(latest_checkpoint(run_dir))["args"]["fixed_roles"]
        == "box=simple,adviser=heuristic"
    )  # type: ignore[operator]
    with pytest.raises(SystemExit):
        parse_args(["--run-dir", run_dir, "--resume", "--fixed-roles", "box=heuristic"])
    assert "--fixed-roles 'box=heuristic' conflicts" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("dealer=heuristic", "roles box, captain, adviser"),
        ("box", "role=agent"),
        ("box=simple,box=heuristic", "twice"),
        ("box=simple,captain=simple,adviser=simple", "every role"),
    ],
)
def test_bad_fixed_roles_are_refused(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        fixed_roles(text)


@pytest.mark.parametrize(
    ("flags", "match"),
    [
        (["--fixed-roles", "box=no-such-agent"], "fixed_roles box"),
        (["--env", "gin", "--fixed-roles", "box=simple"], "needs --env three_handed"),
        (["--fixed-roles", "box=simple", "--opponent-share", "0.5"], "cannot be combined"),
    ],
)
def test_fixed_roles_flags_are_checked_before_anything_runs(
    tmp_path: Path, flags: list[str], match: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--env", "three_handed", "--run-dir", str(tmp_path / "x"), *flags]
    with pytest.raises(SystemExit):
        parse_args(argv)
    assert match in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


# -- the advice feature mode -----------------------------------------------------------------
def test_the_advice_column_marks_the_suggestion_and_leaves_the_rest_as_basic() -> None:
    env = VectorGinEnv(12, "three_handed", seed=4, backend="python")
    out = env.reset()
    rng = np.random.default_rng(0)
    marked = 0
    for _ in range(60):
        obs, mask = out["observation"], out["action_mask"]
        rows, acts, feats = dmc.encode_pairs(obs, mask, "advice")
        b_rows, b_acts, basic = dmc.pair_features(obs, mask)
        assert np.array_equal(rows, b_rows) and np.array_equal(acts, b_acts)
        assert feats.shape[1] == dmc.action_size("advice") == dmc.ACTION_FEATURES + 1
        assert np.array_equal(feats[:, :-1], basic)
        suggestion = obs[:, OBS_SLICES["suggestion"]]
        for p in range(len(rows)):
            b, a = int(rows[p]), int(acts[p])
            assert feats[p, -1] == suggestion[b, a]
            is_captain = (
                np.argmax(obs[b, ROLE]) == CAPTAIN and not obs[b, OBS_SLICES["advising"]][0]
            )
            assert is_captain or feats[p, -1] == 0  # only the captain sees a suggestion
        marked += int(feats[:, -1].sum())
        acts_now = [int(rng.choice(np.flatnonzero(m))) for m in mask]
        out = env.step(acts_now)
    assert marked > 0


def test_feature_modes_widths_and_layouts() -> None:
    assert dmc.ACTION_FEATURES == 61
    assert dmc.action_size("basic") == dmc.action_size("l2") == 61
    for mode in ("basic", "l2"):
        layout = dmc.input_layout(mode)
        assert (layout["action_encoding"], layout["action_size"]) == ("dmc-action-v1", 61)
    assert dmc.input_layout("advice")["action_size"] == 62
    with pytest.raises(ValueError, match="features must be one of basic, l2, advice"):
        dmc.action_size("nope")


def test_an_advice_player_needs_networks_one_input_wider(tmp_path: Path) -> None:
    import torch

    from agents.dmc import qnets, torch_model

    torch.manual_seed(0)
    wide = qnets([torch_model([8], "advice")])
    narrow = qnets([torch_model([8], "basic")])
    with pytest.raises(ValueError, match="62 action inputs"):
        dmc.DMCAgent(narrow, features="advice")
    with pytest.raises(ValueError, match="61 action inputs"):
        dmc.DMCAgent(wide, features="basic")
    path = dmc.save(tmp_path / "a.npz", wide, False, "advice", name="a")
    agent = dmc.load(path)
    env = VectorGinEnv(6, "three_handed", seed=2, backend="python")
    out = env.reset()
    for _ in range(40):
        acts = agent.act_batch(out["observation"], out["action_mask"])
        assert out["action_mask"][np.arange(6), acts].all()
        out = env.step(acts)


@pytest.mark.parametrize("name", ["gin-dmc", "three-handed-dmc"])
def test_the_shipped_players_still_load_with_their_layout(name: str) -> None:
    from agents.trained import CHECKPOINT_DIR

    path = CHECKPOINT_DIR / f"{name}.npz"
    if not path.is_file():
        pytest.skip(f"{name} is not shipped")
    agent = dmc.load(path)
    assert agent.features in ("basic", "l2")
    assert agent.meta["input_layout"]["action_size"] == dmc.ACTION_FEATURES
    game = "gin" if name == "gin-dmc" else "three_handed"
    out = VectorGinEnv(4, game, seed=0, backend="python").reset()
    acts = agent.act_batch(out["observation"], out["action_mask"])
    assert out["action_mask"][np.arange(4), acts].all()


def test_a_run_can_start_from_another_runs_networks(tmp_path: Path) -> None:
    import torch

    first = roles_args(tmp_path, total=200, eval_every=10**6)
    train(first)
    src = Path(first.run_dir) / "checkpoints" / "best"
    src = src if src.is_dir() else latest_checkpoint(first.run_dir)  # type: ignore[assignment]
    joint = roles_args(
        tmp_path, total=1, run_dir=str(tmp_path / "joint"), fixed_roles="box=simple",
        init_from=str(src), eval_every=10**6,
    )  # fmt: skip
    summary = train(joint)
    assert summary["updates"] == 0  # one engine step: nothing learned yet
    before = torch.load(src / "model.pt", weights_only=True)["models"][0]
    after_dir = latest_checkpoint(joint.run_dir)
    after = torch.load(after_dir / "model.pt", weights_only=True)["models"][0]  # type: ignore[operator]
    assert all(torch.equal(before[k], after[k]) for k in before)
    # Where the networks came from is kept, as the source folder held it then.
    source, started = load_state(src), load_state(after_dir)["started_from"]  # type: ignore[arg-type]
    assert started == {
        "checkpoint": str(src),
        "run_id": source["run_id"],
        "steps": source["steps"],
        "wall_s": round(source["wall_s"], 1),
    }
    assert started["run_id"] != load_state(after_dir)["run_id"]  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="--hidden"):
        train(roles_args(tmp_path, run_dir=str(tmp_path / "j2"), hidden="8", init_from=str(src)))
    with pytest.raises(SystemExit):
        parse_args(["--env", "three_handed", "--run-dir", str(tmp_path / "j3"),
                    "--init-from", str(tmp_path / "nowhere")])  # fmt: skip


def test_an_l2score_run_marks_l2s_moves_in_what_it_learns_from(tmp_path: Path) -> None:
    args = roles_args(
        tmp_path, total=1500, env="gin", fixed_roles="", features="l2score", eval_every=10**6
    )
    train(args)
    _, _, feats = replay_roles(args.run_dir)
    assert len(feats) > 0 and feats.shape[1] == dmc.action_size("l2score")
    assert feats[:, dmc.ACTION_FEATURES - 1].any()  # the l2 column: L2 was asked every move


def test_the_cards_started_from_row_names_the_run_and_decisions_it_began_at() -> None:
    from training.model_cards import _started_from

    held = {"checkpoint": "results/x/resume", "run_id": "r1", "steps": 86_473_863, "wall_s": 7270.7}
    row = _started_from({"init_from": "results/x/resume"}, {"started_from": held})
    assert "`results/x/resume`, then run `r1` at 86,473,863 decisions, 121 min into it" in row
    # A run from before the field was kept: the folder alone.
    assert _started_from({"init_from": "results/x/resume"}, {}).startswith(
        "the networks of `results/x/resume` (`--init-from`"
    )
