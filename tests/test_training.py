"""The PPO training script: smoke runs, checkpoints, resume, and whose reward the learner gets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.trained import MLPAgent, load  # noqa: E402
from gin_env import games  # noqa: E402
from gin_env.config import GinConfig  # noqa: E402
from training.league import League, LeagueEnv, Member, make_env, make_opponent  # noqa: E402
from training.train_ppo import (  # noqa: E402
    Args,
    export,
    latest_checkpoint,
    load_actor,
    load_model,
    load_state,
    parse_args,
    train,
)


def tiny_args(tmp_path: Path, env: str, total: int = 256, **kw: object) -> Args:
    base: dict[str, object] = dict(
        env=env, run_dir=str(tmp_path / f"run-{env}"), total_steps=total, n_envs=2,
        n_steps=64, batch_size=64, n_epochs=1, net_arch="32,32", opponents="random",
        eval_opponents="random", eval_every=10**9, gate_every=10**9, checkpoint_every=128,
        progress=False, seed=3,
    )  # fmt: skip
    base.update(kw)
    return Args(**base)  # type: ignore[arg-type]


# -- smoke runs -----------------------------------------------------------------------------
@pytest.mark.parametrize("env", ["gin", "three_handed"])
def test_smoke_run_writes_a_checkpoint(tmp_path: Path, env: str) -> None:
    args = tiny_args(tmp_path, env)
    summary = train(args)
    assert summary["num_timesteps"] >= 256
    assert summary["finished"]
    ckpt = latest_checkpoint(args.run_dir)
    assert ckpt is not None and (ckpt / "policy.pt").is_file()
    state = load_state(ckpt)
    assert state["num_timesteps"] == summary["num_timesteps"]
    assert {"python", "numpy", "torch"} <= set(state["rng"])
    assert any((Path(args.run_dir) / "tb").rglob("events.out.tfevents.*"))


def test_parse_args_reads_typed_flags_and_rejects_bad_values() -> None:
    args = parse_args(
        ["--env", "three_handed", "--total-steps", "1000", "--resume", "--progress", "false"]
    )
    assert (args.env, args.total_steps, args.resume, args.progress) == (
        "three_handed",
        1000,
        True,
        False,
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env", "poker"], "env must be one of"),
        (["--opponents", "simple,grandmaster"], "opponents must be among"),
        (["--total-steps", "0"], "total_steps must be a positive integer; got 0"),
        (["--learning-rate", "-1"], "learning_rate must be a positive number"),
        (["--gamma", "1.5"], "gamma must be in (0, 1]"),
        (["--net-arch", "64,x"], "net_arch must be comma-separated layer sizes"),
    ],
)
def test_bad_flags_are_usage_errors(argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse_args(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


# -- checkpoints ----------------------------------------------------------------------------
@pytest.mark.parametrize("inputs", ["obs", "obs+mask", "obs+mask+features"])
def test_exported_checkpoint_loads_and_acts_deterministically(tmp_path: Path, inputs: str) -> None:
    args = tiny_args(tmp_path, "gin", inputs=inputs)
    train(args)
    path = export(args.run_dir, "tiny", directory=tmp_path)
    agent = load(path)
    again = load(path)
    assert agent.obs_size == {"obs": 436, "obs+mask": 545, "obs+mask+features": 598}[inputs]
    model = load_model(latest_checkpoint(args.run_dir))  # type: ignore[arg-type]
    member = Member("random", make_opponent("random", GinConfig()))
    env = LeagueEnv(make_env("gin"), [member], inputs=inputs)
    obs, _ = env.reset(seed=11)
    for _ in range(60):
        ob = {"observation": obs[:436], "action_mask": env.action_masks().astype(np.int8)}
        if inputs != "obs":  # the env's vector goes on with the mask; the agent appends it itself
            assert np.array_equal(obs[436:545], ob["action_mask"])
        a = agent.act(ob)
        assert a == agent.act(ob) == again.act(ob)
        expected, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
        assert a == int(expected)
        assert env.action_masks()[a]
        obs, _, term, trunc, _ = env.step(a)
        if term or trunc:
            obs, _ = env.reset()
    # The full training checkpoint loads too, to the same actor.
    full = load_actor(latest_checkpoint(args.run_dir))  # type: ignore[arg-type]
    assert all(
        np.allclose(w1, w2) for (w1, _), (w2, _) in zip(full.layers, agent.layers, strict=True)
    )


def test_interrupt_and_resume_continues_steps_and_pool(tmp_path: Path) -> None:
    # margin -1: every gate lets a snapshot in, so the pool changes at known steps.
    kw = dict(gate_every=128, gate_hands=4, margin=-1.0, max_snapshots=2)
    first = train(tiny_args(tmp_path, "gin", total=256, **kw))
    ckpt = latest_checkpoint(tiny_args(tmp_path, "gin").run_dir)
    assert ckpt is not None
    saved = League.load(ckpt / "league", GinConfig())
    assert saved.names() == first["pool"] and len(saved.snapshots) >= 1

    resumed = train(tiny_args(tmp_path, "gin", total=512, resume=True, **kw))
    assert resumed["num_timesteps"] >= 512
    assert resumed["num_timesteps"] - first["num_timesteps"] <= 512 - 256 + 128  # not from 0

    # An uninterrupted run with the same seed ends with the same pool.
    straight = train(
        tiny_args(tmp_path, "gin", total=512, run_dir=str(tmp_path / "straight"), **kw)
    )
    assert straight["pool"] == resumed["pool"]
    assert straight["num_timesteps"] == resumed["num_timesteps"]


def test_league_round_trips_through_save_and_load(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    league = League(["random"], max_snapshots=2, seed=5, table=GinConfig())
    for step in (10, 20, 30):
        layers = [
            (rng.normal(size=(8, 436)), rng.normal(size=8)),
            (rng.normal(size=(109, 8)), rng.normal(size=109)),
        ]
        league.add_snapshot(MLPAgent(layers), step)
    assert league.names() == ["random", "snapshot-20", "snapshot-30"]  # the oldest left
    league.rng.integers(100)
    assert league.weights() == [0.5, 0.25, 0.25]
    with pytest.raises(ValueError, match="fixed weights must be 1 non-negative"):
        league.set_fixed_weights([1.0, 2.0])
    league = League(["simple", "random"], max_snapshots=2, seed=5, table=GinConfig())
    league.set_fixed_weights([3, 1])
    assert league.weights() == [0.75, 0.25]
    for step in (10, 20, 30):
        layers = [
            (rng.normal(size=(8, 436)), rng.normal(size=8)),
            (rng.normal(size=(109, 8)), rng.normal(size=109)),
        ]
        league.add_snapshot(MLPAgent(layers), step)
    assert league.weights() == pytest.approx([0.375, 0.125, 0.25, 0.25])
    league.save(tmp_path / "lg")
    back = League.load(tmp_path / "lg", GinConfig())
    assert back.names() == league.names() and back.weights() == league.weights()
    assert back.rng.integers(2**31) == league.rng.integers(2**31)
    for a, b in zip(league.snapshots, back.snapshots, strict=True):
        assert all(
            np.array_equal(w1, w2)
            for (w1, _), (w2, _) in zip(a.policy.layers, b.policy.layers, strict=True)
        )


# -- the learner's reward is its own side's points -------------------------------------------
@pytest.mark.parametrize("env", ["gin", "three_handed"])
def test_learner_reward_is_its_own_sides_points(env: str) -> None:
    scale = 0.01
    league_env = LeagueEnv(
        make_env(env, reward_scale=scale),
        [Member("random", make_opponent("random", games.get(env).table()))],
    )
    rng = np.random.default_rng(1)
    obs, info = league_env.reset(seed=2)
    seen_roles: set[str] = set()
    signs: set[int] = set()
    hands = 0
    while hands < 150:
        action = int(rng.choice(np.flatnonzero(league_env.action_masks())))
        obs, reward, term, trunc, info = league_env.step(action)
        if not (term or trunc):
            assert reward == 0.0  # points come at the hand's end only
            continue
        hands += 1
        result = info["hand_result"]
        me = league_env.learner
        roles = result["roles"]
        seen_roles.add(roles[me])
        if result["winner"] is None:
            expected = 0.0
        else:
            # Sides: the box alone, or the captain with his adviser (in gin: each player).
            same_side = result["winner"] == me or (
                env == "three_handed" and (roles[result["winner"]] == "box") == (roles[me] == "box")
            )
            expected = scale * result["points"] * (1 if same_side else -1)
        assert reward == pytest.approx(expected)
        signs.add(int(np.sign(reward)))
        obs, info = league_env.reset()
    assert {-1, 1} <= signs  # the learner both won and lost: the check saw both cases
    expected_roles = {"dealer", "non-dealer"} if env == "gin" else {"box", "captain", "adviser"}
    assert seen_roles == expected_roles


def test_behaviour_cloning_warm_start_fits_the_teacher(tmp_path: Path) -> None:
    from training.behaviour_cloning import behaviour_cloning, collect_teacher_data
    from training.train_ppo import bc_config

    args = tiny_args(tmp_path, "three_handed", bc_hands=6, bc_teacher="simple", bc_epochs=6)
    data = collect_teacher_data(bc_config(args))
    assert len(data["action"]) == len(data["obs"]) == len(data["return"]) > 50
    assert data["mask"][np.arange(len(data["action"])), data["action"]].all()  # teacher is legal
    summary = train(args)
    ckpt = latest_checkpoint(args.run_dir)
    state = load_state(ckpt)  # type: ignore[arg-type]
    assert state["bc"]["bc_samples"] == len(data["action"])
    assert summary["evals"][0]["step"] == 0  # evaluated right after the warm start
    # The fit itself: more epochs on the same data beat chance by far.
    model = load_model(ckpt)  # type: ignore[arg-type]
    stats = behaviour_cloning(model, data, bc_config(args))
    chance = float(np.mean(1.0 / data["mask"].sum(axis=1)))
    assert stats["bc_accuracy"] > chance + 0.2


def test_dagger_then_keep_best_exports_the_best_evaluation(tmp_path: Path) -> None:
    from training.behaviour_cloning import collect_teacher_data
    from training.train_ppo import bc_config

    args = tiny_args(tmp_path, "gin", total=512, bc_hands=4, bc_dagger_hands=3,
                     bc_teacher="simple", bc_epochs=2, keep_best=True, eval_every=128,
                     eval_pairs=2)  # fmt: skip
    teacher_only = len(collect_teacher_data(bc_config(args))["action"])
    summary = train(args)
    root = Path(args.run_dir) / "checkpoints"
    best_state = load_state(root / "best")
    bc = best_state["bc"]
    assert bc["dagger_hands"] == 3 and bc["bc_samples"] > teacher_only  # DAgger data added
    assert 0.0 <= bc["bc_val_accuracy"] <= 1.0
    scores = [e["random/hand_win_rate"] for e in summary["evals"]]
    assert len(scores) >= 3 and summary["evals"][0]["step"] == 0
    best = summary["best"]
    assert best["score"] == max(scores)
    first_best = next(e for e in summary["evals"] if e["random/hand_win_rate"] == max(scores))
    assert best["step"] == int(first_best["step"]) == best_state["num_timesteps"]
    path = export(args.run_dir, "tiny-best", directory=tmp_path, best=True)
    agent = load(path)
    assert agent.meta["steps"] == best["step"]
    assert agent.meta["run_steps"] == summary["num_timesteps"] >= 512
    full = load_actor(root / "best")
    assert all(
        np.array_equal(w1, w2) for (w1, _), (w2, _) in zip(full.layers, agent.layers, strict=True)
    )


@pytest.mark.slow
def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path: Path) -> None:
    """SIGKILL mid-run (no chance to clean up), then ``--resume`` through the CLI entry."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from training.train_ppo import main

    args = tiny_args(tmp_path, "gin", total=10**7)
    flags = [
        "--env", "gin", "--run-dir", args.run_dir, "--n-envs", "2", "--n-steps", "64",
        "--batch-size", "64", "--n-epochs", "1", "--net-arch", "32,32", "--opponents", "random",
        "--eval-every", "1000000000", "--gate-every", "1000000000", "--checkpoint-every", "128",
        "--progress", "false", "--seed", "3",
    ]  # fmt: skip
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "training.train_ppo", *flags, "--total-steps", str(10**7)],
        cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            ckpt = latest_checkpoint(args.run_dir)
            if ckpt is not None and int(ckpt.name.split("_")[1]) >= 256:
                break
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    ckpt = latest_checkpoint(args.run_dir)
    assert ckpt is not None
    saved = int(ckpt.name.split("_")[1])
    assert load_state(ckpt)["num_timesteps"] == saved
    assert main([*flags, "--total-steps", str(saved + 256), "--resume"]) == 0
    after = latest_checkpoint(args.run_dir)
    assert after is not None and int(after.name.split("_")[1]) >= saved + 256
    state = load_state(after)
    assert any("--resume" in c for c in state["commands"])


def test_a_remeasured_model_card_keeps_its_hand_written_sections() -> None:
    from training.model_cards import notes_after_evaluation

    card = (
        "# gin-ppo\n\n## Training\n\n| a | b |\n\n## Evaluation\n\n### vs L0 (random)\n\n"
        "| metric | value |\n\n## Runs compared\n\nTwo runs were made.\n"
    )
    assert notes_after_evaluation(card) == "\n## Runs compared\n\nTwo runs were made.\n"
    assert notes_after_evaluation(card.split("## Runs")[0]) == ""  # nothing hand-written


# -- resume keeps the run's settings; every flag is documented -----------------------------------
def test_resume_restores_the_saved_settings_and_refuses_a_conflicting_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = tiny_args(tmp_path, "gin", total=128)
    train(args)
    resumed = parse_args(["--run-dir", args.run_dir, "--resume"])
    assert (resumed.total_steps, resumed.n_envs, resumed.net_arch, resumed.seed) == (
        128, 2, "32,32", 3
    )  # fmt: skip
    assert resumed.env == "gin" and resumed.opponents == "random"
    longer = parse_args(["--run-dir", args.run_dir, "--resume", "--total-steps", "512"])
    assert longer.total_steps == 512 and longer.n_steps == 64  # a changeable flag
    for bad in (["--env", "three_handed"], ["--net-arch", "64,64"], ["--learning-rate", "0.1"]):
        with pytest.raises(SystemExit) as exit_:
            parse_args(["--run-dir", args.run_dir, "--resume", *bad])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and f"{bad[0]} " in err and "conflicts" in err
    with pytest.raises(ValueError, match="--env"):  # a direct train() call too
        train(tiny_args(tmp_path, "three_handed", run_dir=args.run_dir, resume=True))


def test_an_examples_flags_come_from_its_args_with_smoke_quiet_and_checks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import dataclasses

    from training.flags import parse_example

    @dataclasses.dataclass
    class Args:
        game: str = "gin"
        frames: int = 1000
        lr: float = 3e-4
        normalize: bool = False

    def parse(*argv: str) -> tuple[Args, bool, bool]:
        args, smoke, quiet, _ = parse_example(
            Args, list(argv), "An example.\n\nMore.", choices={"game": ("gin", "rummy")},
            positive=("frames", "lr"), smoke={"frames": 8},
        )  # fmt: skip
        return args, smoke, quiet

    assert parse() == (Args(), False, False)
    shown = parse_example(Args, [], "An example.\n\nMore.")[3].format_help()
    assert "An example." in shown and "More." not in shown
    assert "(default: 1000)" in shown and "--no-normalize" in shown, shown
    assert parse("--frames", "50", "--normalize", "--quiet") == (
        Args(frames=50, normalize=True),
        False,
        True,
    )
    assert parse("--smoke", "--no-normalize", "--game", "rummy") == (
        Args(game="rummy", frames=8),
        True,
        False,
    )

    def refuse_rummy(args: Args) -> None:
        if args.game == "rummy":
            raise ValueError("no rummy here")

    with pytest.raises(SystemExit):
        parse_example(Args, ["--game", "rummy"], "", choices={"game": ("gin", "rummy")},
                      check=refuse_rummy)  # fmt: skip
    assert "error: no rummy here" in capsys.readouterr().err
    for argv, message in [
        (["--game", "poker"], "--game must be one of gin, rummy; got 'poker'"),
        (["--frames", "0"], "--frames must be a positive number; got 0"),
        (["--lr", "nan"], "--lr must be a positive number; got nan"),
        (["--lr", "inf"], "--lr must be a positive number; got inf"),
        (["--frames", "ten"], "argument --frames: invalid int value: 'ten'"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            parse(*argv)
        assert exit_.value.code == 2 and message in capsys.readouterr().err, argv


def test_evaluation_opponents_are_checked_at_the_games_table() -> None:
    from training.periodic_eval import check_opponents

    check_opponents("gin", "random,simple,heuristic")
    check_opponents("three_handed", "random,captain:agent=heuristic,simple")
    with pytest.raises(ValueError, match="unknown agent 'nosuch'"):
        check_opponents("gin", "random, nosuch")
    with pytest.raises(ValueError, match="cannot play a three_handed_gin_v0 table"):
        check_opponents("three_handed", "gin-dmc")
    with pytest.raises(ValueError, match="game must be one of gin, three_handed; got 'rummy'"):
        check_opponents("rummy", "random")


@pytest.mark.parametrize("module", ["training.train_ppo", "training.train_dmc"])
def test_every_train_flag_has_help_text_and_its_default(module: str) -> None:
    import dataclasses
    import importlib

    from training.flags import build_parser

    mod = importlib.import_module(module)
    parser = build_parser(mod.Args, "train", "")
    helps = {a.dest: a.help or "" for a in parser._actions if a.dest != "help"}
    assert set(helps) == {f.name for f in dataclasses.fields(mod.Args)}
    for name, text in helps.items():
        assert len(text) > len(" (default: x)") + 5, name
        default = getattr(mod.Args(), name)
        shown = str(default).lower() if isinstance(default, bool) else repr(default)
        assert text.endswith(f"(default: {shown})"), (name, text)
