"""The Gymnasium single-agent wrapper (checkers, MaskablePPO, learners, illegal actions) and
the PettingZoo wrappers ``env()`` applies (the same behaviour as PettingZoo's originals)."""

from __future__ import annotations

import functools
import random
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from pettingzoo.utils import wrappers as pz_wrappers

from agents import single_agent
from agents.single_agent import SingleAgentEnv
from gin_env import actions as A
from gin_env import gin_v0, three_handed_gin_v0
from gin_env.aec_tools import ActionSpace, wrap, wrap_plain

MAKERS = {
    "three": functools.partial(single_agent.make, "three_handed_gin_v0"),
    "gin": functools.partial(single_agent.make, "gin_v0"),
}


@pytest.mark.parametrize("name", MAKERS)
def test_gymnasium_env_checker(name: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = MAKERS[name](target_score=30)
    check_env(env, skip_render_check=True)


@pytest.mark.parametrize("name", MAKERS)
def test_sb3_env_checker(name: str) -> None:
    from stable_baselines3.common.env_checker import check_env

    check_env(MAKERS[name](target_score=30), warn=True)


@pytest.mark.parametrize("env_id", ["gin_env/ThreeHandedGin-v0", "gin_env/Gin-v0"])
def test_gymnasium_make(env_id: str) -> None:
    env = gymnasium.make(env_id, target_score=20, disable_env_checker=True)
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and "role" in info
    mask = env.unwrapped.action_masks()
    obs, reward, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
    assert env.observation_space.contains(obs)


def test_maskable_ppo_learns_a_few_hundred_steps() -> None:
    torch = pytest.importorskip("torch")
    sb3c = pytest.importorskip("sb3_contrib")
    torch.set_num_threads(1)
    env = single_agent.make("three_handed_gin_v0", learner="captain", target_score=30)
    model = sb3c.MaskablePPO(
        "MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, verbose=0
    )
    model.learn(total_timesteps=256)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


@pytest.mark.parametrize("learner", ["box", "captain", "adviser", "random", "player_2"])
def test_learner_choice(learner: str) -> None:
    env = single_agent.make("three_handed_gin_v0", learner=learner, episode="hand")
    for seed in range(3):
        _, info = env.reset(seed=seed)
        if learner in ("box", "captain", "adviser"):
            assert info["role"] == learner
        if learner == "player_2":
            assert env.learner == "player_2"


def test_bad_learner_and_illegal_mode() -> None:
    with pytest.raises(ValueError, match="learner"):
        single_agent.make("gin_v0", learner="box")
    with pytest.raises(ValueError, match="illegal"):
        SingleAgentEnv(gin_v0.raw_env(), illegal="ignore")
    for opponents in (3, {"player_1": None}):
        with pytest.raises(ValueError, match="opponents must be a policy with act"):
            SingleAgentEnv(gin_v0.raw_env(), opponents=opponents)


def test_opponents_by_name() -> None:
    from agents import HeuristicAgent, SimpleAgent
    from agents.rummy_simple import RummySimpleAgent

    env = gymnasium.make("gin_env/Gin-v0", opponents="heuristic", target_score=20)
    assert isinstance(env.unwrapped.opponents["player_1"], HeuristicAgent)
    env = single_agent.make(
        "three_handed_gin_v0", opponents={"player_1": "simple", "player_2": "heuristic"}
    )
    assert isinstance(env.opponents["player_1"], SimpleAgent)
    assert isinstance(env.opponents["player_2"], HeuristicAgent)
    env = single_agent.make("three_handed_gin_v0", learner="random", opponents="simple")
    assert env.opponents["player_0"] is not env.opponents["player_1"]  # one agent per seat
    assert isinstance(
        single_agent.make("rummy_v0", opponents="simple").opponents["player_1"], RummySimpleAgent
    )
    # The named agents play whole episodes against the learner.
    env = single_agent.make("gin_v0", opponents="simple", episode="hand")
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, _, term, trunc, _ = env.step(action)
        done = term or trunc
    assert env.unwrapped.aec.match.history[0].result is not None


@pytest.mark.parametrize(
    ("game", "opponents", "message"),
    [
        ("gin_v0", "no-such-agent", "opponents: unknown agent 'no-such-agent'"),
        ("gin_v0", "search:colour=red", "has no option 'colour'"),
        ("rummy_v0", "heuristic", "plays the gin games, not rummy_v0"),
        ("gin_v0", "rummy-simple", "plays rummy only"),
        ("three_handed_gin_v0", {"player_1": "simple"}, r"missing \['player_2'\]"),
        ("gin_v0", {"player_1": "simple", "player_7": "simple"}, "unknown"),
    ],
)
def test_bad_opponent_names(game, opponents, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        single_agent.make(game, opponents=opponents)


def test_illegal_action_ends_episode_with_penalty_or_raises() -> None:
    env = single_agent.make("gin_v0")
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, term, trunc, _ = env.step(bad)
    assert (reward, term, trunc) == (-1.0, True, False)
    with pytest.raises(RuntimeError):
        env.step(0)
    strict = SingleAgentEnv(gin_v0.raw_env(), illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(A.NO_ADVICE)


def test_episode_rewards_add_up_to_the_learners_points() -> None:
    """With reward="individual" the learner's episode return is its match score."""
    env = single_agent.make("gin_v0", reward="individual", target_score=40)
    rng = np.random.default_rng(0)
    for seed in range(3):
        env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, reward, term, trunc, info = env.step(action)
            total += reward
            done = term or trunc
        assert total == info["scores"][0]


# -- env(): PettingZoo's wrappers, with attribute reads forwarded --------------------------


def test_env_uses_pettingzoos_wrappers() -> None:
    env = three_handed_gin_v0.env()
    assert isinstance(env, pz_wrappers.OrderEnforcingWrapper)
    assert isinstance(env.env, pz_wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(env.env.env, pz_wrappers.TerminateIllegalWrapper)
    assert isinstance(env.unwrapped, three_handed_gin_v0.raw_env)
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.terminations
    env.reset(seed=0)
    assert env.agent_selection == env.unwrapped.agent_selection


def _trajectory(env: Any, seed: int, illegal_at: int) -> list[Any]:
    rng = random.Random(seed)
    env.reset(seed=seed)
    out: list[Any] = []
    for agent in env.agent_iter(max_iter=3000):
        obs, reward, term, trunc, info = env.last()
        out.append((agent, obs["observation"].tobytes(), reward, term, trunc, info.get("role")))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        # One illegal action, which ends the game through TerminateIllegalWrapper.
        illegal = [a for a in range(A.NUM_ACTIONS) if a not in legal]
        env.step(rng.choice(illegal) if len(out) == illegal_at else rng.choice(legal))
    return out


@pytest.mark.parametrize("module", [three_handed_gin_v0, gin_v0])
def test_forwarding_wrappers_behave_like_the_plain_ones(module: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed, illegal_at in [(0, -1), (1, 7), (2, 150)]:
            fast = _trajectory(wrap(module.raw_env(target_score=40)), seed, illegal_at)
            plain = _trajectory(wrap_plain(module.raw_env(target_score=40)), seed, illegal_at)
            assert fast == plain
            if illegal_at > 0:
                assert len(fast) == illegal_at + module.raw_env.num_players
                assert -1 in [step[2] for step in fast[-module.raw_env.num_players :]]


def test_action_space_contains_like_discrete() -> None:
    fast, plain = ActionSpace(A.NUM_ACTIONS), gymnasium.spaces.Discrete(A.NUM_ACTIONS)
    values = [0, 108, 109, -1, 2**70, np.int64(5), np.int8(3), np.array(4), 1.0, "1", None]
    for v in values:
        assert fast.contains(v) == plain.contains(v), v
    assert fast == plain


def test_gin_env_never_imports_the_agents_layer_by_itself() -> None:
    import subprocess
    import sys

    # Every gin_env module, imported: no agent; gymnasium.make then reaches the env that
    # seats agents through its string entry point.
    code = (
        "import sys, pkgutil, importlib, gymnasium, gin_env\n"
        "for m in pkgutil.iter_modules(gin_env.__path__):\n"
        "    importlib.import_module('gin_env.' + m.name)\n"
        "assert 'agents' not in sys.modules, 'agents imported'\n"
        "env = gymnasium.make('gin_env/Gin-v0', opponents='simple'); env.reset(seed=0)\n"
        "assert type(env.unwrapped).__module__ == 'agents.single_agent'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])
