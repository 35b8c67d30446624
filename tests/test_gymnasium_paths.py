"""The envs as Gymnasium users reach them: every wrapper option through ``gymnasium.make``,
ids that draw no warning, the compiled engine through ``gymnasium.make_vec``, and masks a
masked sampler can use under every autoreset mode."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.passive_env_checker import data_shares_objects
from gymnasium.vector import AutoresetMode

from agents import single_agent
from gin_env import games

ROOT = Path(__file__).resolve().parents[1]
GIN_GAMES = [g.name for g in games.GAMES.values() if g.family == "gin"]
ALL_IDS = [g.gym_id for g in games.GAMES.values()]


# -- every option of the single-agent wrapper goes through gymnasium.make --------------------
def test_wrapper_options_go_through_gymnasium_make() -> None:
    env = gymnasium.make(
        "gin_env/Gin-v0", extras=("state",), illegal="raise", illegal_reward=-5.0, episode="hand"
    )
    inner = env.unwrapped
    assert (inner.extras, inner.illegal, inner.illegal_reward) == (("state",), "raise", -5.0)
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observation", "state"}
    with pytest.raises(ValueError, match="illegal action"):
        env.step(int(np.flatnonzero(~inner.action_masks())[0]))


def test_illegal_reward_through_gymnasium_make_is_paid() -> None:
    env = gymnasium.make("gin_env/ThreeHandedGin-v0", illegal_reward=-5.0, learner="captain")
    env.reset(seed=1)
    bad = int(np.flatnonzero(~env.unwrapped.action_masks())[0])
    _, reward, terminated, _, _ = env.step(bad)
    assert (reward, terminated) == (-5.0, True)


def test_history_extra_through_gymnasium_make() -> None:
    env = gymnasium.make("gin_env/Gin-v0", extras="history", observation="history")
    obs, _ = env.reset(seed=0)
    assert obs["history"].shape == (64, 63) and obs["history_mask"].shape == (64,)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_an_unknown_option_names_both_kinds(env_id: str) -> None:
    with pytest.raises(ValueError) as err:
        gymnasium.make(env_id, no_such_option=1)
    text = str(err.value)
    assert "no_such_option" in text and env_id in text
    for option in ("learner", "opponents", "illegal", "illegal_reward", "extras", "render_mode"):
        assert re.search(rf"\b{option}\b", text), option
    assert "target_score" in text  # a rule option (gin) / a game option (rummy)


# -- no Gymnasium warning on any id, nor on the README's quick start --------------------------
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_making_an_id_warns_nothing(env_id: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gymnasium.make(env_id).reset(seed=0)


@pytest.mark.parametrize("infos", ["numeric", "readable"])
def test_each_step_returns_infos_of_its_own(infos: str) -> None:
    # A user keeps every step's info (a replay buffer): none may share an object with the
    # next, as Gymnasium's passive checker warns (the env keeps its own until a hand ends).
    env = gymnasium.make("gin_env/Gin-v0", episode="hand", infos=infos)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, info = env.reset(seed=0)
        for _ in range(120):
            legal = np.flatnonzero(env.unwrapped.action_masks())
            _, _, terminated, truncated, next_info = env.step(int(rng.choice(legal)))
            assert not data_shares_objects(info, next_info)
            info = next_info
            if terminated or truncated:
                _, info = env.reset()


def test_no_id_reads_as_an_older_version_of_another() -> None:
    names = [gymnasium.envs.registration.parse_env_id(i)[:2] for i in ALL_IDS]
    assert len(set(names)) == len(names), names


def test_the_readme_quick_start_prints_no_warning() -> None:
    readme = (ROOT / "README.md").read_text()
    lines = [ln for ln in readme.splitlines() if "gymnasium.make(" in ln]
    assert lines, "the README shows gymnasium.make"
    code = "import warnings, gymnasium, gin_env\nwarnings.simplefilter('error')\n" + "\n".join(
        ln.strip() for ln in lines
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0 and "Warning" not in run.stderr, run.stderr


def test_the_readme_shows_how_to_reach_the_mask() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "env.unwrapped.action_masks()" in readme or "get_wrapper_attr" in readme


# -- make_vec: the compiled engine, and masks under NEXT_STEP autoreset -----------------------
@pytest.mark.parametrize("game", GIN_GAMES)
def test_make_vec_vector_entry_point_is_the_compiled_engine(game: str) -> None:
    from agents.vector import LearnerVectorEnv

    spec = games.get(game)
    venv = gymnasium.make_vec(
        spec.gym_id, num_envs=64, vectorization_mode="vector_entry_point", opponents="heuristic"
    )
    assert isinstance(venv, LearnerVectorEnv) and venv.num_envs == 64
    assert venv.engine.backend == "numba"
    obs, _ = venv.reset(seed=0)
    assert obs.shape == (64, spec.observation_size())
    assert venv.engine.game == spec.short
    rng = np.random.default_rng(0)
    for _ in range(5):
        masks = venv.action_masks()
        assert masks.any(axis=1).all()
        obs, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))


def test_make_vec_default_mode_is_the_vector_entry_point() -> None:
    from agents.vector import LearnerVectorEnv

    venv = gymnasium.make_vec("gin_env/Gin-v0", num_envs=8, opponents="simple")
    assert isinstance(venv, LearnerVectorEnv)
    assert venv.learner_spec == 0  # gymnasium.make's default learner: player_0


def test_make_vec_refuses_single_agent_options_by_name() -> None:
    with pytest.raises(ValueError, match="extras.*single-agent wrapper"):
        gymnasium.make_vec(
            "gin_env/Gin-v0", num_envs=2, vectorization_mode="vector_entry_point", extras="state"
        )


def test_rummy_has_no_vector_entry_point_but_sync_works() -> None:
    venv = gymnasium.make_vec("gin_env/Rummy-v0", num_envs=2, vectorization_mode="sync")
    assert venv.reset(seed=0)[0].shape[0] == 2


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_sync_vector_masks_always_hold_a_legal_action(mode: AutoresetMode) -> None:
    """A masked random sampler over call("action_masks") through episode ends: NEXT_STEP
    (Gymnasium's default) once gave an all-false mask for a sub-env that had just ended."""
    venv = gymnasium.make_vec(
        "gin_env/Gin-v0",
        num_envs=4,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        episode="hand",
    )
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):
        masks = np.stack(venv.call("action_masks"))
        assert masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, terminated, truncated, _ = venv.step(actions)
        ends += int((terminated | truncated).sum())
    assert ends > 5  # the episode ends were crossed


def test_a_finished_episode_allows_every_action_until_reset() -> None:
    env = single_agent.make("gin_v0", episode="hand")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    done = False
    while not done:
        mask = env.action_masks()
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        done = term or trunc
    assert env.action_masks().all()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("mode", ["vector_entry_point", "sync"])
def test_masks_reach_a_user_through_gymnasiums_vector_wrappers(mode: str) -> None:
    """Gymnasium's vector wrappers forward neither methods nor ``call``: the routes that
    work are ``unwrapped.call("action_masks")`` (every mode) and, on the project's vector
    env, ``infos["action_mask"]``."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    venv = RecordEpisodeStatistics(
        gymnasium.make_vec("gin_env/Gin-v0", num_envs=3, vectorization_mode=mode, episode="hand")
    )
    assert not hasattr(venv, "action_masks") and not hasattr(venv, "call")
    _, infos = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = np.stack(venv.unwrapped.call("action_masks"))
        assert masks.shape == (3, 109) and masks.any(axis=1).all()
        if mode == "vector_entry_point":
            assert np.array_equal(infos["action_mask"], masks) and infos["_action_mask"].all()
            assert np.array_equal(venv.unwrapped.action_masks(), masks)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, _, _, infos = venv.step(actions)
