"""Two documented routes into other libraries: the Parallel API through PettingZoo's
turn-based conversion, and the move history inside the flat observation for libraries that
keep only ``obs["observation"]`` and the mask (Tianshou's ``PettingZooEnv``)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from gin_env import games
from gin_env.aec_tools import HistoryInObservation

GIN = [g.name for g in games.GAMES.values() if g.family == "gin"]


@pytest.mark.parametrize("name", [*GIN, "rummy_v0"])
def test_turn_based_parallel_passes_pettingzoos_parallel_api_test(name: str) -> None:
    parallel_api_test(turn_based_aec_to_parallel(games.get(name).make_wrapped_env()), 200)


def test_turn_based_parallel_plays_whole_hands_on_the_acting_agents_action() -> None:
    """Every agent hands in an action each step; only the one to act (the one whose mask
    has a legal id) is played."""
    env = turn_based_aec_to_parallel(games.get("three_handed_gin_v0").make_env(episode="hand"))
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        steps = 0
        while env.agents:
            to_act = [a for a in env.agents if obs[a]["action_mask"].any()]
            assert len(to_act) == 1  # one agent at a time: the rest have all-zero masks
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in to_act}
            actions |= {a: 0 for a in env.agents if a not in to_act}  # ignored
            obs, rewards, terms, truncs, _ = env.step(actions)  # raw_env: an illegal one raises
            steps += 1
        assert steps > 10 and all(terms.values())


@pytest.mark.parametrize("name", ["three_handed_gin_v0", "gin_v1"])
def test_history_in_observation_passes_the_api_test(name: str) -> None:
    api_test(HistoryInObservation(games.get(name).make_wrapped_env(observation="history")), 100)


def test_history_in_observation_carries_the_history_of_each_seat() -> None:
    raw = games.get("three_handed_gin_v0").make_env(observation="history")
    env = HistoryInObservation(raw)
    n, (rows, cols) = env.flat_size, env.history_shape
    assert env.observation_space("player_0")["observation"].shape == (n + rows * cols + rows,)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    moved = 0
    for _ in range(40):
        for agent in env.possible_agents:
            flat = env.observe(agent)["observation"]
            plain = raw.observe(agent)
            np.testing.assert_array_equal(flat[:n], plain["observation"])
            np.testing.assert_array_equal(flat[n : n + rows * cols].reshape(rows, cols),
                                          plain["history"])  # fmt: skip
            np.testing.assert_array_equal(flat[n + rows * cols :], plain["history_mask"])
            moved = max(moved, int(plain["history_mask"].sum()))
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert moved > 5  # a history was there to carry


def test_history_in_observation_needs_the_history() -> None:
    with pytest.raises(ValueError, match="observation='history'"):
        HistoryInObservation(games.get("gin_v0").make_wrapped_env())
