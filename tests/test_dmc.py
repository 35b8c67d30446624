"""Deep Monte-Carlo training (training.train_dmc) and its players (agents.dmc)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents import dmc  # noqa: E402
from agents.heuristic import HeuristicAgent  # noqa: E402
from gin_env import actions as A  # noqa: E402
from gin_env import gin_v0, three_handed_gin_v0  # noqa: E402
from gin_env.encoding import hand_mask  # noqa: E402
from gin_env.melds import deadwood_mask  # noqa: E402
from gin_env.vector import VectorGinEnv  # noqa: E402
from training.checkpoints import latest_checkpoint  # noqa: E402
from training.train_dmc import (  # noqa: E402
    Args,
    HandReturns,
    export,
    load_state,
    parse_args,
    to_agent,
    train,
)


def tiny_args(tmp_path: Path, env: str, total: int = 600, **kw: object) -> Args:
    base: dict[str, object] = dict(
        env=env, run_dir=str(tmp_path / f"run-{env}"), total_steps=total, num_envs=8,
        backend="python", hidden="16,16", batch_size=32, buffer_size=2000, warm_steps=200,
        eval_every=400, eval_pairs=2, eval_opponents="random", checkpoint_every=250,
        progress=False, seed=5, opponents="simple", opponent_share=0.5,
    )  # fmt: skip
    base.update(kw)
    return Args(**base)  # type: ignore[arg-type]


def play_hands(agent: object, env_module: object, hands: int, seed: int, **opts: object) -> set:
    """Every seat played by ``agent``; returns the roles it acted in (asserting legality)."""
    roles = set()
    env = env_module.raw_env(**opts)  # type: ignore[attr-defined]
    env.reset(seed=seed)
    for _ in range(hands):
        for _agent in env.agent_iter():
            ob, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = agent.act(ob)  # type: ignore[attr-defined]
            assert ob["action_mask"][a], (a, np.flatnonzero(ob["action_mask"]))
            roles.add((int(np.argmax(ob["observation"][:3])), bool(ob["observation"][8])))
            env.step(a)
        env.reset()
    return roles


# -- the tiny runs ----------------------------------------------------------------------------
@pytest.mark.parametrize("env", ["gin", "three_handed"])
def test_tiny_run_trains_evaluates_checkpoints_and_exports(tmp_path: Path, env: str) -> None:
    args = tiny_args(tmp_path, env, role_nets=env == "three_handed")
    summary = train(args)
    assert summary["finished"] and summary["steps"] >= 600 and summary["updates"] > 0
    run = Path(args.run_dir)
    ckpt = latest_checkpoint(run)
    assert ckpt is not None and (ckpt / "model.pt").is_file()
    assert not (ckpt / "replay.npz").exists()  # the replay is refilled on resume
    phases = [e["phase"] for e in summary["evals"]]
    assert phases[0] == "warm-start" and "self-play" in phases  # warm start measured apart
    assert (run / "checkpoints" / "warm").is_dir() and (run / "checkpoints" / "best").is_dir()
    assert (run / "eval.csv").is_file() and (run / "learning_curve.png").is_file()
    assert any((run / "tb").rglob("events.out.tfevents.*"))
    path = export(run, "tiny", directory=tmp_path)
    agent = dmc.load(path)
    assert agent.meta["env"] == env and agent.meta["input_layout"] == dmc.input_layout("basic")
    assert len(agent.nets) == (3 if env == "three_handed" else 1)
    module = gin_v0 if env == "gin" else three_handed_gin_v0
    roles = play_hands(agent, module, 2, seed=3, episode="hand")
    assert {r for r, _ in roles} == ({0, 1} if env == "gin" else {0, 1, 2})


def test_numpy_player_scores_like_the_torch_networks(tmp_path: Path) -> None:
    import torch

    from agents.dmc import torch_model

    torch.manual_seed(0)
    models = [torch_model([16, 8])]
    agent = to_agent(models, tiny_args(tmp_path, "gin"))
    env = VectorGinEnv(6, "gin", seed=2, backend="python")
    out = env.reset()
    for _ in range(30):
        obs, mask = out["observation"], out["action_mask"]
        rows, acts, q = agent.q_values(obs, mask)
        _, _, feats = dmc.pair_features(obs, mask)
        with torch.no_grad():
            expect = models[0].pairs(torch.from_numpy(obs), torch.from_numpy(rows),
                                     torch.from_numpy(feats)).numpy()  # fmt: skip
        assert np.allclose(q, expect, atol=1e-5)
        chosen = agent.act_batch(obs, mask)
        assert mask[np.arange(6), chosen].all()
        for b in range(6):  # the greedy move is the best legal pair of its row
            assert q[(rows == b) & (acts == chosen[b])][0] == q[rows == b].max()
        out = env.step(chosen)


# -- the action encoding ------------------------------------------------------------------------
@pytest.mark.parametrize("features", ["basic", "advice"])
def test_the_torch_build_and_its_numpy_twin_agree(features: str) -> None:
    """agents.dmc.torch_model and QNet (through qnets) score every legal pair alike."""
    import torch

    from agents.dmc import qnets, torch_model

    torch.manual_seed(1)
    model = torch_model([12, 7, 5], features)
    (net,) = qnets([model])
    game = "three_handed" if features == "advice" else "gin"
    env = VectorGinEnv(5, game, seed=3, backend="python")
    out = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(8):
        obs, mask = out["observation"], out["action_mask"]
        rows, _, feats = dmc.encode_pairs(obs, mask, features)
        with torch.no_grad():
            expect = model.pairs(torch.from_numpy(obs), torch.from_numpy(rows),
                                 torch.from_numpy(feats)).numpy()  # fmt: skip
            single = model(torch.from_numpy(obs[rows]), torch.from_numpy(feats)).numpy()
        got = net.q(obs, rows, feats)
        assert np.allclose(got, expect, atol=1e-5) and np.allclose(got, single, atol=1e-5)
        assert np.ptp(got) > 0  # the check is not between two constants
        out = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))


@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_the_compiled_pair_deadwoods_equal_the_reference(game: str) -> None:
    """pair_deadwoods (fast_melds kernels over the batch) against the row-by-row reference,
    on random and L1 play in every role (the adviser's unseen hand included)."""
    from agents.batched import BatchedSimple

    env = VectorGinEnv(32, game, seed=11, backend="python")
    out = env.reset()
    rng = np.random.default_rng(1)
    l1 = BatchedSimple()
    pairs = nonzero = 0
    for step in range(150):
        obs, mask = out["observation"], out["action_mask"]
        rows, acts = np.nonzero(mask)
        got = dmc.pair_deadwoods(obs, rows, acts)
        expect = dmc.pair_deadwoods_reference(obs, rows, acts)
        assert np.array_equal(got, expect)
        pairs, nonzero = pairs + len(rows), nonzero + int((got > 0).sum())
        if step % 2:
            acts = l1.act(obs, mask)
        else:
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        out = env.step(acts)
    assert pairs > 20_000 and nonzero > pairs // 3


def test_pair_features_give_the_deadwood_after_each_move_and_l2s_choice() -> None:
    env = VectorGinEnv(16, "gin", seed=9, backend="python")
    l2 = HeuristicAgent()
    out = env.reset()
    seen_discard = seen_take = False
    for _ in range(40):
        obs, mask = out["observation"], out["action_mask"]
        l2a = np.array(
            [l2.act({"observation": o, "action_mask": m}) for o, m in zip(obs, mask, strict=True)]
        )
        rows, acts, feats = dmc.pair_features(obs, mask, l2a)
        assert np.array_equal(np.flatnonzero(mask.ravel()), rows * A.NUM_ACTIONS + acts)
        for p in range(len(rows)):
            b, a = int(rows[p]), int(acts[p])
            hand = hand_mask(obs[b])
            dw = feats[p, dmc.ACTION_FEATURES - 2] * 100
            if A.DISCARD <= a < A.BIG_GIN:
                card = (a - A.DISCARD) % 52
                assert feats[p, 7 + card] == 1 and dw == pytest.approx(
                    deadwood_mask(hand & ~(1 << card))
                )
                seen_discard = True
            elif a == A.TAKE_DISCARD:
                top = int(np.argmax(obs[b, 61:113]))
                assert feats[p, 7 + top] == 1
                best = min(deadwood_mask((hand | 1 << top) & ~(1 << c))
                           for c in range(52) if (hand >> c & 1))  # fmt: skip
                assert dw == pytest.approx(best)
                seen_take = True
            assert feats[p, -1] == (a == l2a[b])
        out = env.step(l2a)
    assert seen_discard and seen_take


def test_a_checkpoint_of_another_input_layout_is_refused(tmp_path: Path) -> None:
    import torch

    from agents.dmc import qnets, torch_model

    torch.manual_seed(0)
    path = dmc.save(tmp_path / "p.npz", qnets([torch_model([8])]), False, "basic", name="p")
    assert dmc.load(path).name == "p"
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["input_layout"]["observation"] = "flat-000000000000"
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(ValueError, match="input layout observation"):
        dmc.load(tmp_path / "old.npz")


# -- targets ----------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_targets_are_each_seats_own_side_points_of_the_hand(game: str) -> None:
    """Stage every decision with its seat, finish at hand_over with the engine's rewards,
    and compare each target with the hand's result worked out from the winner and roles."""
    n = 6
    env = VectorGinEnv(n, game, seed=4, backend="python", episode="match", reward="team")
    returns = HandReturns(n, 0.01)
    rng = np.random.default_rng(0)
    out = env.reset()
    roles_in_hand: list[dict[int, int]] = [{} for _ in range(n)]
    checked = nonzero = 0
    for _ in range(1500):
        for s in range(n):
            seat = int(out["seat"][s])
            roles_in_hand[s][seat] = int(out["role"][s])
            returns.add(s, np.zeros(1), np.zeros(1), 0, seat)
        legal = [np.flatnonzero(m) for m in out["action_mask"]]
        out = env.step(np.array([int(rng.choice(x)) for x in legal]))
        results = env.hand_results()
        for s in np.flatnonzero(out["hand_over"]):
            seats = [returns.staged[s][i][3] for i in range(len(returns.staged[s]))]
            targets = [t for *_, t in returns.finish(s, out["rewards"][s])]
            winner, points = int(results["winner"][s]), int(results["points"][s])
            roles = roles_in_hand[s]
            for seat, target in zip(seats, targets, strict=True):
                if winner < 0:
                    expect = 0.0
                elif game == "gin":
                    expect = points if seat == winner else -points
                else:  # the box alone against the captain and the adviser
                    box_won = roles[winner] == 0
                    mine_box = roles[seat] == 0
                    expect = points if box_won == mine_box else -points
                assert target == pytest.approx(expect * 0.01)
                checked += 1
                nonzero += expect != 0
            roles_in_hand[s] = {}
    assert checked > 500 and nonzero > 20  # random play: most three-handed hands are draws


# -- resume -------------------------------------------------------------------------------------
def test_resume_restores_the_exact_state_and_continues_the_count(tmp_path: Path) -> None:
    import torch

    args = tiny_args(tmp_path, "gin", total=500, checkpoint_replay=True)
    first = train(args)
    ckpt = latest_checkpoint(args.run_dir)
    assert ckpt is not None
    blob = torch.load(ckpt / "model.pt", weights_only=True)
    with np.load(ckpt / "replay.npz") as z:
        replay = {k: z[k] for k in z.files}
    state = load_state(ckpt)
    # Resumed with nothing left to do: the new checkpoint holds exactly the same state.
    again = train(tiny_args(tmp_path, "gin", total=500, resume=True, checkpoint_replay=True))
    assert again["steps"] == first["steps"] and again["updates"] == first["updates"]
    ckpt2 = latest_checkpoint(args.run_dir)
    blob2 = torch.load(ckpt2 / "model.pt", weights_only=True)  # type: ignore[operator]
    for sd1, sd2 in zip(blob["models"], blob2["models"], strict=True):
        assert all(torch.equal(sd1[k], sd2[k]) for k in sd1)
    assert blob["optimizer"]["state"][0]["step"] == blob2["optimizer"]["state"][0]["step"]
    with np.load(ckpt2 / "replay.npz") as z:  # type: ignore[operator]
        assert all(np.array_equal(replay[k], z[k]) for k in z.files)
    state2 = load_state(ckpt2)  # type: ignore[operator]
    assert state2["act_rng"] == state["act_rng"] and state2["learn_rng"] == state["learn_rng"]
    # More steps: the count goes on from the checkpoint, not from 0.
    more = train(tiny_args(tmp_path, "gin", total=900, resume=True))
    assert 900 <= more["steps"] < first["steps"] + 400 + 8 * 2
    assert more["updates"] > first["updates"]
    assert len(more["evals"]) > len(first["evals"])


@pytest.mark.parametrize("history", ["none", pytest.param("lstm", marks=pytest.mark.slow)])
def test_a_checkpoint_without_the_replay_round_trips_and_resumes_the_count(
    tmp_path: Path, history: str
) -> None:
    """The default checkpoint is small (no replay): networks, optimizer, counters and RNG
    states come back exactly; a resumed run refills the replay and goes on counting, also
    from a copy of the checkpoint adopted into a fresh run folder (--resume-from). The same
    for networks with the history encoder (its LSTM weights and moments included)."""
    import torch

    copy = tmp_path / "committed"
    args = tiny_args(
        tmp_path, "gin", total=500, copy_checkpoint=str(copy), eval_every=10**6, history=history
    )
    first = train(args)
    ckpt = latest_checkpoint(args.run_dir)
    assert ckpt is not None and sorted(p.name for p in ckpt.iterdir()) == [
        "checkpoint.json",
        "model.pt",
        "state.json",
    ]
    assert sorted(p.name for p in copy.iterdir()) == ["checkpoint.json", "model.pt", "state.json"]
    assert (copy / "model.pt").read_bytes() == (ckpt / "model.pt").read_bytes()
    state = load_state(ckpt)
    assert state["steps"] == first["steps"] and state["updates"] == first["updates"] > 0
    blob = torch.load(ckpt / "model.pt", weights_only=True)
    assert any(k.startswith("lstm.") for k in blob["models"][0]) == (history == "lstm")
    # Resumed with nothing to do: the same networks, optimizer moments and RNG states.
    train(tiny_args(tmp_path, "gin", total=500, resume=True))
    ckpt2 = latest_checkpoint(args.run_dir)
    blob2 = torch.load(ckpt2 / "model.pt", weights_only=True)  # type: ignore[operator]
    for sd1, sd2 in zip(blob["models"], blob2["models"], strict=True):
        assert all(torch.equal(sd1[k], sd2[k]) for k in sd1)
    for k, moments in blob["optimizer"]["state"].items():
        other = blob2["optimizer"]["state"][k]
        assert all(torch.equal(moments[m], other[m]) for m in moments)
    state2 = load_state(ckpt2)  # type: ignore[operator]
    assert state2["act_rng"] == state["act_rng"] and state2["learn_rng"] == state["learn_rng"]
    assert state2["rng"]["numpy"][1] == state["rng"]["numpy"][1]
    # A fresh run folder adopts the copy and goes on from its step count.
    fresh = str(tmp_path / "next-session")
    more = train(
        tiny_args(tmp_path, "gin", total=900, resume=True, run_dir=fresh, resume_from=str(copy))
    )
    assert 900 <= more["steps"] < first["steps"] + 400 + 8 * 2
    assert more["updates"] > first["updates"]  # the refilled replay was learned from
    resumed = load_state(latest_checkpoint(fresh))  # type: ignore[operator]
    assert resumed["steps"] == more["steps"] and resumed["args"]["history"] == history
    with pytest.raises(ValueError, match="resume_from"):
        train(tiny_args(tmp_path, "gin", resume=True, run_dir=str(tmp_path / "x"),
                        resume_from=str(tmp_path)))  # fmt: skip


def test_resume_keeps_the_saved_settings_and_refuses_a_conflicting_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = tiny_args(tmp_path, "gin", total=300, hidden="8", eval_every=10**6)
    train(args)
    resumed = parse_args(["--run-dir", args.run_dir, "--resume", "--total-steps", "400"])
    assert (resumed.env, resumed.hidden, resumed.seed, resumed.total_steps) == ("gin", "8", 5, 400)
    assert resumed.backend == "python" and resumed.num_envs == 8
    with pytest.raises(SystemExit) as exit_:
        parse_args(["--run-dir", args.run_dir, "--resume", "--env", "three_handed"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--env 'three_handed' conflicts" in err and "'gin'" in err
    with pytest.raises(ValueError, match="--hidden"):
        train(tiny_args(tmp_path, "gin", total=300, hidden="32", resume=True))
    # A changeable flag given on resume at its default value still replaces the saved one.
    back = parse_args(["--run-dir", args.run_dir, "--resume", "--eval-every", "500000"])
    assert back.eval_every == 500000
    train(back)
    assert load_state(latest_checkpoint(args.run_dir))["args"]["eval_every"] == 500000  # type: ignore[operator]


@pytest.mark.slow
def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path: Path) -> None:
    """SIGKILL mid-run, then ``--resume`` through the command line entry."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from training.train_dmc import main

    run_dir = str(tmp_path / "killed")
    flags = ["--run-dir", run_dir, "--num-envs", "8", "--backend", "python", "--hidden", "16",
             "--batch-size", "32", "--buffer-size", "1000", "--checkpoint-every", "200",
             "--eval-every", "1000000000", "--progress", "false", "--seed", "2"]  # fmt: skip
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen(
        [sys.executable, "-m", "training.train_dmc", *flags, "--total-steps", str(10**8)],
        cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.time() + 180
        while time.time() < deadline:
            ckpt = latest_checkpoint(run_dir)
            if ckpt is not None and int(ckpt.name.split("_")[1]) >= 400:
                break
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    ckpt = latest_checkpoint(run_dir)
    assert ckpt is not None
    saved = int(ckpt.name.split("_")[1])
    assert load_state(ckpt)["steps"] == saved
    assert main(["--run-dir", run_dir, "--resume", "--total-steps", str(saved + 300)]) == 0
    after = latest_checkpoint(run_dir)
    assert after is not None and int(after.name.split("_")[1]) >= saved + 300
    state = load_state(after)
    assert any("--resume" in c for c in state["commands"])
    assert state["args"]["total_steps"] == saved + 300


# -- shipped players ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "module", "roles"),
    [
        ("gin-dmc", gin_v0, {0, 1}),
        ("three-handed-dmc", three_handed_gin_v0, {0, 1, 2}),
        ("gin-dmc-scratch", gin_v0, {0, 1}),
    ],
)
def test_shipped_players_load_and_play_legal_moves_in_every_role(
    name: str, module: object, roles: set[int]
) -> None:
    import agents
    from agents.trained import CHECKPOINT_DIR

    if not (CHECKPOINT_DIR / f"{name}.npz").is_file():
        pytest.skip(f"{name} is not shipped")
    agent = agents.make(name)
    assert isinstance(agent, dmc.DMCAgent) and agent.meta["env"] in ("gin", "three_handed")
    assert agent.meta["input_layout"]["observation"] == dmc.input_layout()["observation"]
    assert (CHECKPOINT_DIR / f"{name}.md").is_file()
    played = play_hands(agent, module, 3, seed=11, episode="hand")
    assert {r for r, _ in played} == roles
    if module is three_handed_gin_v0:
        assert any(advising for _, advising in played)  # adviser turns too


def test_a_large_l2_margin_plays_l2_and_zero_plays_q(tmp_path: Path) -> None:
    import torch

    from agents.dmc import torch_model

    torch.manual_seed(1)
    models = [torch_model([16])]
    sure = to_agent(models, tiny_args(tmp_path, "gin", features="l2", l2_margin=100.0))
    plain = to_agent(models, tiny_args(tmp_path, "gin", features="l2"))
    env = VectorGinEnv(8, "gin", seed=6, backend="python")
    out = env.reset()
    differs = 0
    for _ in range(30):
        obs, mask = out["observation"], out["action_mask"]
        l2a = sure.l2_actions(obs, mask)
        assert np.array_equal(sure.act_batch(obs, mask), l2a)
        differs += int((plain.act_batch(obs, mask) != l2a).sum())
        out = env.step(l2a)
    assert differs > 0  # an untrained Q leaves L2's move somewhere
    with pytest.raises(ValueError, match="margin"):
        dmc.DMCAgent(sure.nets, features="basic", margin=1.0)


def test_the_committed_scratch_run_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    """gin-dmc-scratch's run checkpoint (committed in results/, data only) is adopted by a
    fresh run folder with the run's settings and step count, the count the player was cut
    at."""
    import agents

    folder = Path(__file__).resolve().parent.parent / "results" / "dmc_from_scratch" / "resume"
    if not (folder / "model.pt").is_file():
        pytest.skip("the scratch run's checkpoint is not committed")
    run_dir = str(tmp_path / "scratch")
    args = parse_args(["--run-dir", run_dir, "--resume", "--resume-from", str(folder)])
    assert (args.features, args.warm_steps, args.opponents) == ("basic", 0, "heuristic")
    assert args.opponent_share == 0.5 and args.actors >= 1 and args.total_steps >= 10**8
    steps = load_state(latest_checkpoint(run_dir))["steps"]  # type: ignore[operator]
    assert agents.make("gin-dmc-scratch").meta["run_steps"] == steps


def test_a_resume_may_lower_the_learning_rate_and_the_card_shows_the_schedule(
    tmp_path: Path,
) -> None:
    """An annealed tail: the resumed optimizer runs at the new rate (not the one saved in its
    state), the run keeps the schedule, and the exported player's card says it."""
    import torch

    from agents.trained import load
    from training.model_cards import rate_schedule

    args = tiny_args(tmp_path, "gin", total=300, warm_steps=0, eval_every=10**6)
    first = train(args)
    more = train(tiny_args(tmp_path, "gin", total=600, warm_steps=0, eval_every=10**6,
                           resume=True, learning_rate=3e-5))  # fmt: skip
    ckpt = latest_checkpoint(args.run_dir)
    assert ckpt is not None and more["steps"] >= 600
    blob = torch.load(ckpt / "model.pt", weights_only=True)
    assert [g["lr"] for g in blob["optimizer"]["param_groups"]] == [3e-5]
    state = load_state(ckpt)
    assert state["learning_rates"] == [[0, 3e-4], [first["steps"], 3e-5]]
    meta = load(export(args.run_dir, "annealed", tmp_path / "out", best=False)).meta
    assert rate_schedule(meta["args"], meta) == f"0.0003, 3e-05 from {first['steps']:,} decisions"
