"""Ray RLlib scale-out: the multi-agent env wrapper, the policy mapping, and a local-mode
training smoke test (train, checkpoint, restore, resume, load as an agent, play legally).

Skipped where ray[rllib] is not installed (``pip install ".[rllib]"``).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")
pytest.importorskip("torch")

from agents.random_agent import RandomAgent  # noqa: E402
from agents.rllib_agent import RLlibAgent, find_modules  # noqa: E402
from gin_env import gin_v0, three_handed_gin_v0  # noqa: E402
from training.rllib_env import PolicyMapping, RLlibGinEnv, roles_of  # noqa: E402
from training.rllib_train import Args, build_config, parse_args, train  # noqa: E402


def _knock_or_random(o: dict, rng: np.random.Generator) -> int:
    """Knock when allowed (so hands end with points), else a random legal action."""
    legal = np.flatnonzero(o["action_mask"])
    knocks = legal[legal >= 56]
    return int(knocks[0]) if len(knocks) else int(rng.choice(legal))


# ---------------------------------------------------------------------------------------
# The env wrapper
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "episode"),
    [("three_handed", "hand"), ("gin", "hand"), ("three_handed", "match"), ("gin_v1", "hand")],
)
def test_env_is_turn_based_with_masks_and_side_rewards(game: str, episode: str) -> None:
    env = RLlibGinEnv({"game": game, "episode": episode, "target_score": 30})
    rng = np.random.default_rng(0)
    first, second = env.possible_agents[:2]  # the box and the captain; dealer, non-dealer
    scored = 0
    for seed in range(12 if episode == "hand" else 1):
        obs, infos = env.reset(seed=seed)
        done = False
        while not done:
            assert len(obs) == 1  # only the agent to act observes
            ((role, o),) = obs.items()
            assert role in env.possible_agents and infos[role]["role"] == role
            assert env.observation_spaces[role].contains(o)
            assert set(o) == {"observations", "action_mask"}
            assert o["action_mask"].sum() >= 1
            obs, rewards, term, trunc, infos = env.step({role: _knock_or_random(o, rng)})
            if any(rewards.values()):
                scored += 1
                # A hand's points go to the two sides of the table, zero-sum.
                assert rewards[first] == pytest.approx(-rewards[second]) != 0.0
            done = term["__all__"] or trunc["__all__"]
        # Every role that acted gets a final observation, with an empty mask.
        assert set(obs) <= set(env.possible_agents) and obs
        assert all(o["action_mask"].sum() == 0 for o in obs.values())
    assert scored > 0  # knocking hands score


@pytest.mark.parametrize("game", ["three_handed", "gin"])
def test_numeric_infos_keep_the_role_agent_ids(game: str) -> None:
    """With ``infos="numeric"`` the infos hold role ids; the agent ids stay role names."""
    env = RLlibGinEnv({"game": game, "infos": "numeric"})
    rng = np.random.default_rng(1)
    obs, infos = env.reset(seed=3)
    seen, done = set(), False
    while not done:
        ((role, o),) = obs.items()
        assert role in env.possible_agents
        assert env.aec.role_names[int(infos[role]["role"])] == role
        seen.add(role)
        obs, _, term, trunc, infos = env.step({role: _knock_or_random(o, rng)})
        done = term["__all__"] or trunc["__all__"]
    assert len(seen) >= 2


def test_env_refuses_illegal_action_and_wrong_agent() -> None:
    env = RLlibGinEnv({"game": "three_handed"})
    obs, _ = env.reset(seed=3)
    ((role, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step({role: illegal})
    other = next(r for r in env.possible_agents if r != role)
    with pytest.raises(ValueError, match="exactly the agent to act"):
        env.step({other: 0})
    with pytest.raises(ValueError, match="game must be one of"):
        RLlibGinEnv({"game": "poker"})


def test_adviser_none_drops_the_adviser_role() -> None:
    assert roles_of("three_handed", "none") == ("box", "captain")
    env = RLlibGinEnv({"game": "three_handed", "adviser": "none"})
    assert env.possible_agents == ["box", "captain"]


def test_policy_mapping_follows_roles_and_keeps_teams_together() -> None:
    assert PolicyMapping("gin", "shared")("dealer") == "main"
    assert PolicyMapping("three_handed", "per_role")("adviser") == "adviser"
    mapping = PolicyMapping("three_handed", "per_role", num_snapshots=3)
    learners, slots = set(), set()
    for i in range(200):
        ep = SimpleNamespace(id_=f"episode-{i}")
        box, captain, adviser = (mapping(r, ep) for r in ("box", "captain", "adviser"))
        # The captain and his adviser are one side: both learn or both are snapshots.
        assert (captain == "captain") == (adviser == "adviser")
        assert (box == "box") != (captain == "captain")
        if captain != "captain":
            assert captain.startswith("captain_snap") and adviser == "adviser" + captain[7:]
        learners.add(box == "box")
        slots.add((box if box != "box" else captain)[-1])
    assert learners == {True, False} and slots == {"0", "1", "2"}
    with pytest.raises(ValueError, match="policies must be one of"):
        PolicyMapping("gin", "per_seat")


def test_cli_parses_and_validates() -> None:
    args = parse_args(["--env", "gin", "--policies", "per_role", "--num-env-runners", "2",
                       "--address", "auto", "--self-play", "5", "--resume"])  # fmt: skip
    assert (args.env, args.policies, args.num_env_runners) == ("gin", "per_role", 2)
    assert args.address == "auto" and args.self_play == 5 and args.resume == "latest"
    with pytest.raises(ValueError, match="env must be one of"):
        Args(env="poker").validate()
    with pytest.raises(ValueError, match="minibatch_size"):
        Args(train_batch_size=64, minibatch_size=128).validate()


# ---------------------------------------------------------------------------------------
# Training smoke test (local mode: sampling and learning in this process)
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, object_store_memory=150 * 1024 * 1024, include_dashboard=False)
    yield
    ray.shutdown()


def _tiny(tmp_path: Path, **overrides) -> Args:
    base = dict(
        iterations=2,
        num_env_runners=0,
        train_batch_size=256,
        minibatch_size=128,
        num_epochs=1,
        hidden=[32],
        checkpoint_dir=str(tmp_path / "ckpt"),
        checkpoint_every=1,
        quiet=True,
    )
    base.update(overrides)
    return Args(**base)


def _play_legally(agent: RLlibAgent, raw_env, hands: int, seat: str) -> int:
    """Play ``hands`` hands with ``agent`` in ``seat`` against random agents; count its moves."""
    rng = np.random.default_rng(1)
    other = RandomAgent()
    moves = 0
    for seed in range(hands):
        raw_env.reset(seed=seed)
        for name in raw_env.agent_iter():
            obs, _, term, trunc, _ = raw_env.last()
            if term or trunc:
                break
            action = agent.act(obs, rng) if name == seat else other.act(obs, rng)
            assert obs["action_mask"][action] == 1
            moves += name == seat
            raw_env.step(action)
    return moves


def _weights(state: dict) -> dict[str, np.ndarray]:
    return {k: np.asarray(v) for k, v in state.items()}


@pytest.mark.slow
def test_three_handed_per_role_self_play_trains_checkpoints_and_restores(
    local_ray, tmp_path: Path
) -> None:
    args = _tiny(tmp_path, env="three_handed", policies="per_role", self_play=1, snapshots=2)
    summary = train(args)
    # Training sampled with the module's exploration and the env refuses masked actions,
    # so finishing at all means every sampled action was legal.
    assert summary.iterations == 2 and len(summary.history) == 2
    assert summary.module_ids == ["box", "captain", "adviser"]
    assert summary.history[-1]["env_steps"] >= 2 * 256
    ckpt = Path(summary.checkpoint)
    assert ckpt.name == "iter_00002" and (ckpt.parent / "latest").read_text().strip() == ckpt.name
    saved = find_modules(ckpt)
    assert {"box", "captain", "adviser", "box_snap0", "box_snap1"} <= set(saved)

    # Restore into a freshly built algorithm: same iteration, same weights in the learner;
    # the EnvRunner gets the policy part (RLlib syncs it without the value function).
    algo = build_config(args).build_algo()
    try:
        algo.restore_from_path(str(ckpt))
        assert algo.iteration == 2
        learner = algo.learner_group.get_state(components="learner/rl_module")
        learner_modules = learner["learner"]["rl_module"]
        for mid in ("box", "captain", "adviser", "box_snap1"):
            restored = _weights(learner_modules[mid])
            loaded = _weights(RLlibAgent(ckpt, mid).modules[mid].get_state())
            assert restored.keys() == loaded.keys()
            for k in restored:
                assert np.isfinite(restored[k]).all()
                np.testing.assert_array_equal(restored[k], loaded[k])
            acting = _weights(algo.get_module(mid).get_state())
            for k in (k for k in acting if k.startswith(("encoder.actor_encoder", "pi."))):
                np.testing.assert_array_equal(acting[k], loaded[k])
        # Iteration 2 copied the main modules into snapshot slot 1.
        box = _weights(learner_modules["box"])
        snap = _weights(learner_modules["box_snap1"])
        for k in snap:
            np.testing.assert_array_equal(box[k], snap[k])
    finally:
        algo.stop()

    # Resume as RLlib does: one more iteration on top of the latest checkpoint.
    resumed = train(_tiny(tmp_path, env="three_handed", policies="per_role", self_play=1,
                          snapshots=2, iterations=1, resume="latest"))  # fmt: skip
    assert resumed.iterations == 3 and Path(resumed.checkpoint).name == "iter_00003"

    # The exported per-role policies play through our agent interface, always legally.
    agent = RLlibAgent(resumed.checkpoint)
    assert agent.module_ids == ["box", "captain", "adviser"]
    env = three_handed_gin_v0.raw_env(episode="hand")
    assert _play_legally(agent, env, hands=3, seat="player_0") > 0
    explorer = RLlibAgent(resumed.checkpoint, explore=True)
    assert _play_legally(explorer, env, hands=2, seat="player_1") > 0


@pytest.mark.slow
def test_gin_shared_policy_trains_and_plays(local_ray, tmp_path: Path) -> None:
    summary = train(_tiny(tmp_path, env="gin", policies="shared", iterations=1))
    assert summary.iterations == 1 and summary.module_ids == ["main"]
    assert set(find_modules(summary.checkpoint)) == {"main"}
    agent = RLlibAgent(summary.checkpoint)
    assert agent.module_ids == ["main"]
    env = gin_v0.raw_env(episode="hand")
    assert _play_legally(agent, env, hands=3, seat="player_1") > 0

    # The numpy export plays the same greedy moves, loaded by name like any agent.
    import agents

    exported = agents.make(summary.exports["main"])
    assert Path(summary.exports["main"]).name == "rllib-gin-main.zip"
    rng = np.random.default_rng(2)
    env.reset(seed=7)
    compared = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        assert exported.act(obs) == agent.act(obs)
        compared += 1
        env.step(RandomAgent().act(obs, rng))
    assert compared > 10
    assert _play_legally(exported, env, hands=2, seat="player_0") > 0
