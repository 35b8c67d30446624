"""Dict observations for the learner, the centralized critic and the history encoder
(training.encoders), and the trainer's --critic / --observation (the encodings study)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import agents  # noqa: E402
from agents.single_agent import SingleAgentEnv  # noqa: E402
from agents.trained import MLPAgent, load  # noqa: E402
from gin_env import gin_v0, three_handed_gin_v0  # noqa: E402
from gin_env.encoding import HISTORY_FEATURES, HISTORY_LENGTH, OBS_SIZE, state_size  # noqa: E402
from training.encoders import (  # noqa: E402
    EncodedPolicy,
    HistoryActor,
    actor_from_model,
    load_actor,
)
from training.train_ppo import (  # noqa: E402
    Args,
    export,
    latest_checkpoint,
    load_state,
    parse_args,
    train,
)

torch.set_num_threads(1)


def history_env(**kw: object) -> SingleAgentEnv:
    aec = gin_v0.raw_env(observation="history", episode="hand")
    return SingleAgentEnv(aec, opponents="simple", **kw)  # type: ignore[arg-type]


# -- the wrapper's Dict observations ----------------------------------------------------------
def test_extras_make_a_dict_observation_with_the_right_spaces() -> None:
    env = history_env(extras=("history", "state"))
    space = env.observation_space
    assert isinstance(space, gym.spaces.Dict)
    assert set(space.spaces) == {"observation", "history", "history_mask", "state"}
    assert space["observation"].shape == (OBS_SIZE,)
    assert space["history"].shape == (HISTORY_LENGTH, HISTORY_FEATURES)
    assert space["history_mask"].shape == (HISTORY_LENGTH,)
    assert space["state"].shape == (state_size(2),)
    obs, _ = env.reset(seed=3)
    assert space.contains(obs)
    for _ in range(30):  # the history grows and the state is the env's own, step by step
        assert np.array_equal(obs["state"], env.aec.state())
        legal = np.flatnonzero(env.action_masks())
        obs, _, term, trunc, _ = env.step(int(legal[0]))
        assert space.contains(obs)
        if term or trunc:
            break
    assert obs["history_mask"].sum() > 2


def test_without_extras_the_observation_stays_the_flat_box() -> None:
    env = history_env()
    assert isinstance(env.observation_space, gym.spaces.Box)
    assert env.observation_space == env.flat_observation_space
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, np.ndarray) and obs.shape == (OBS_SIZE,)


def test_the_three_handed_state_has_three_players() -> None:
    aec = three_handed_gin_v0.raw_env(episode="hand")
    env = SingleAgentEnv(aec, learner="box", extras="state")
    obs, _ = env.reset(seed=1)
    assert set(obs) == {"observation", "state"} and obs["state"].shape == (state_size(3),)


@pytest.mark.parametrize(
    ("make", "extras", "message"),
    [
        (lambda: gin_v0.raw_env(), ("history",), "observation='history'"),
        (lambda: gin_v0.raw_env(), ("cards",), "extras must be among history, state"),
    ],
)
def test_bad_extras_are_value_errors(make, extras, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        SingleAgentEnv(make(), extras=extras)


# -- the policy: the state reaches the critic only ---------------------------------------------
def make_policy(extras: tuple[str, ...]) -> EncodedPolicy:
    env = history_env(extras=extras)
    policy = EncodedPolicy(
        env.observation_space, env.action_space, lambda _: 3e-4, net_arch={"pi": [32], "vf": [32]}
    )
    policy.set_training_mode(False)
    return policy


def sample_batch(policy: EncodedPolicy, seed: int, n: int = 6) -> dict[str, torch.Tensor]:
    rng = np.random.default_rng(seed)
    out: dict[str, torch.Tensor] = {}
    for key, space in policy.observation_space.spaces.items():  # type: ignore[attr-defined]
        x = (rng.random((n, *space.shape)) < 0.3).astype(np.float32)
        if key == "history_mask":
            x = (np.arange(space.shape[0]) < rng.integers(0, 20, (n, 1))).astype(np.float32)
        out[key] = torch.as_tensor(x)
    return out


@pytest.mark.parametrize("extras", [("state",), ("history", "state")])
def test_changing_only_the_state_moves_the_value_not_the_actor(extras: tuple[str, ...]) -> None:
    policy = make_policy(extras)
    obs = sample_batch(policy, 0)
    other = dict(obs, state=sample_batch(policy, 1)["state"])
    with torch.no_grad():
        logits = policy.get_distribution(obs).distribution.logits
        logits2 = policy.get_distribution(other).distribution.logits
        values, values2 = policy.predict_values(obs), policy.predict_values(other)
        actions = torch.zeros(len(values), dtype=torch.long)
        v_eval, logp, _ = policy.evaluate_actions(other, actions)
        _, logp_same, _ = policy.evaluate_actions(obs, actions)
    assert torch.equal(logits, logits2)
    assert torch.equal(logp, logp_same)
    assert not torch.allclose(values, values2)
    assert torch.allclose(v_eval, values2)
    if "history" in extras:  # the actor does read the history
        moved = dict(obs, history=sample_batch(policy, 2)["history"])
        with torch.no_grad():
            assert not torch.allclose(logits, policy.get_distribution(moved).distribution.logits)


def test_the_numpy_actors_match_the_torch_policies() -> None:
    flat = make_policy(("state",))
    agent = actor_from_model(flat)
    assert isinstance(agent, MLPAgent)  # a centralized-critic run ships a plain MLP actor
    hist = make_policy(("history", "state"))
    hactor = actor_from_model(hist)
    assert isinstance(hactor, HistoryActor)
    for policy, actor in ((flat, agent), (hist, hactor)):
        obs = sample_batch(policy, 5)
        if "history_mask" in obs:
            obs["history_mask"][0] = 0  # no move yet: the pooled history is zeros
        with torch.no_grad():
            want = policy.get_distribution(obs).distribution.logits.numpy()
        for i in range(len(want)):
            one = {k: v[i].numpy() for k, v in obs.items()}
            got = actor.logits(one if actor is hactor else one["observation"])  # type: ignore[operator]
            got = got - np.log(np.exp(got - got.max()).sum()) - got.max()
            np.testing.assert_allclose(got, want[i], atol=1e-4)


# -- the trainer --------------------------------------------------------------------------------
def tiny_args(tmp_path: Path, total: int = 256, **kw: object) -> Args:
    base: dict[str, object] = dict(
        env="gin", run_dir=str(tmp_path / "run"), total_steps=total, n_envs=2, n_steps=64,
        batch_size=64, n_epochs=1, net_arch="32,32", opponents="random",
        eval_opponents="random", eval_every=128, eval_pairs=2, gate_every=128, gate_hands=2,
        margin=-1.0, checkpoint_every=128, progress=False, seed=3,
    )  # fmt: skip
    base.update(kw)
    return Args(**base)  # type: ignore[arg-type]


def play_legal(agent: object, history: bool, hands: int = 3) -> int:
    aec = gin_v0.raw_env(observation="history" if history else "flat", episode="hand")
    moves = 0
    for hand in range(hands):
        aec.reset(seed=hand)
        for who in aec.agent_iter():
            ob, _, term, trunc, _ = aec.last()
            if term or trunc:
                aec.step(None)
                continue
            a = agent.act(ob) if who == "player_0" else int(np.flatnonzero(ob["action_mask"])[0])  # type: ignore[attr-defined]
            assert ob["action_mask"][a]
            aec.step(a)
            moves += who == "player_0"
    return moves


def test_centralized_critic_trains_resumes_and_exports_a_plain_actor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = train(tiny_args(tmp_path, critic="state"))
    layout = first["layout"]
    assert layout["actor_reads"] == ["observation"] and "state" in layout["critic_reads"]
    assert len(first["evals"]) >= 1  # evaluated during training
    ckpt = latest_checkpoint(tmp_path / "run")
    state = load_state(ckpt)  # type: ignore[arg-type]
    assert state["layout"] == layout and state["args"]["critic"] == "state"
    # A resume keeps the critic (the flag need not be given) and refuses another one.
    again = parse_args(["--run-dir", str(tmp_path / "run"), "--resume", "--total-steps", "384"])
    assert again.critic == "state"
    resumed = train(again)
    assert resumed["num_timesteps"] >= 384 and resumed["layout"] == layout
    with pytest.raises(SystemExit):
        parse_args(["--run-dir", str(tmp_path / "run"), "--resume", "--critic", "plain"])
    assert "--critic 'plain' conflicts" in capsys.readouterr().err
    agent = load(export(tmp_path / "run", "cc", directory=tmp_path))
    assert isinstance(agent, MLPAgent) and agent.obs_size == OBS_SIZE
    assert play_legal(agent, history=False) > 10


def test_history_run_trains_resumes_and_exports_a_history_actor(tmp_path: Path) -> None:
    first = train(tiny_args(tmp_path, observation="history"))
    assert first["pool"] == ["random"]  # no snapshots for a history run
    assert first["layout"]["parts"]["history"] == [HISTORY_LENGTH, HISTORY_FEATURES]
    resumed = train(tiny_args(tmp_path, total=384, resume=True, observation="history"))
    assert resumed["num_timesteps"] >= 384
    with pytest.raises(ValueError, match="not a shipped agent"):
        export(tmp_path / "run", "hist")
    path = export(tmp_path / "run", "hist", directory=tmp_path)
    with zipfile.ZipFile(path) as zf:
        assert json.loads(zf.read("meta.json"))["layout"]["observation"] == "history"
    agent = load_actor(path)
    assert isinstance(agent, HistoryActor)
    assert play_legal(agent, history=True) > 10
    with pytest.raises(ValueError, match="observation='history'"):
        play_legal(agent, history=False)
    assert isinstance(load(path), HistoryActor)  # the agents layer loads it too
    assert isinstance(agents.make(str(path)), HistoryActor)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--critic", "oracle"], "critic must be one of plain, state"),
        (["--observation", "cards"], "observation must be one of flat, history"),
        (["--critic", "state", "--inputs", "obs+mask"], "extends the flat vector"),
        (["--observation", "history", "--bc-hands", "10"], "warm start"),
        (["--observation", "history", "--export", "x"], "export ships flat MLP actors"),
    ],
)
def test_bad_encoder_flags_are_usage_errors(argv: list[str], message: str, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exit_:
        parse_args(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


# -- the study's arithmetic ---------------------------------------------------------------------
def test_the_study_pairs_each_arm_with_plain_on_the_same_deals() -> None:
    from studies.encodings import summarize

    def run(points: list[float]) -> dict[str, object]:
        return {"eval": {"hand_win_rate": 0.5, "points_per_hand": float(np.mean(points)),
                         "per_pair_points": points}}  # fmt: skip

    runs = {
        "plain-s0": run([0.0, 10.0, -10.0]),
        "plain-s1": run([5.0, 5.0, 5.0]),
        "history-s0": run([1.0, 11.0, -9.0]),  # plain + 1 on every deal
        "history-s1": run([6.0, 6.0, 6.0]),
        "centralized-s0": run([0.0, 0.0, 0.0]),  # seed 1 missing: paired over seed 0 only
    }
    out = summarize(runs, [0, 1])
    diff = out["history"]["points_vs_plain_same_deals"]
    assert diff["n"] == 6 and diff["mean"] == pytest.approx(1.0)
    assert diff["ci95"] == pytest.approx([1.0, 1.0])  # the same gain on every deal: no spread
    assert out["history"]["points_per_hand_by_seed"] == pytest.approx([1.0, 6.0])
    assert out["centralized"]["seeds"] == 1
    assert out["centralized"]["points_vs_plain_same_deals"]["mean"] == pytest.approx(0.0)
    assert "points_vs_plain_same_deals" not in out["plain"]
