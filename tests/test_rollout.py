"""The one rollout loop (gin_eval.rollout.play) and the callers built on it."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.single_agent import RandomPolicy
from gin_env import games
from gin_eval.rollout import play
from training.league import play_hands


@pytest.mark.parametrize("name", ["gin_v0", "three_handed_gin_v0", "rummy_v0"])
def test_a_hand_is_played_to_its_end_with_each_agents_reward(name: str) -> None:
    env = games.get(name).make_env(reward_scale=1.0) if name != "rummy_v0" else (
        games.get(name).make_env(num_players=3)
    )  # fmt: skip
    env.reset(seed=4)
    policies = {a: RandomPolicy() for a in env.possible_agents}
    run = play(env, policies, np.random.default_rng(4))
    agent = env.agent_selection
    assert env.terminations[agent] or env.truncations[agent]
    assert run.steps == sum(run.decisions.values()) > 0 and not run.stopped
    assert run.seconds.keys() == run.decisions.keys() == set(env.possible_agents)
    if name != "rummy_v0":  # one hand of a match to 100: the hand's points, team rewards
        env = games.get(name).make_env(reward_scale=1.0, episode="hand")
        env.reset(seed=5)
        run = play(env, policies, np.random.default_rng(5))
        rec = env.table_state.history[0]
        if rec.result.winner is not None:
            scorer = env.possible_agents[rec.players[rec.result.winner]]
            assert run.rewards[scorer] == rec.result.points
        assert sum(run.rewards[env.possible_agents[p]] for p in rec.players) == 0


def test_hooks_stop_and_step_limit() -> None:
    env = games.get("gin").make_env(episode="hand")
    env.reset(seed=1)
    seen: list[tuple[str, str, int | None]] = []
    play(
        env,
        {a: RandomPolicy() for a in env.possible_agents},
        np.random.default_rng(1),
        before=lambda e, agent: seen.append(("before", agent, None)),
        after=lambda e, agent, action: seen.append(("after", agent, action)),
        max_steps=5,
    )
    assert [k for k, _, _ in seen] == ["before", "after"] * 5
    assert all(isinstance(a, int) for k, _, a in seen if k == "after")

    class Quits:
        def act(self, observation, rng=None):
            return None

    env.reset(seed=1)
    run = play(env, {a: Quits() for a in env.possible_agents})
    assert run.stopped and run.steps == 0
    with pytest.raises(ValueError, match="no policy for player_"):
        play(env, {})


def test_play_hands_counts_the_learners_own_side_points() -> None:
    result = play_hands(agents.make("heuristic"), RandomPolicy(), "three_handed", 30, seed=3)
    assert result.hands == 30 == sum(len(v) for v in result.by_role.values())
    assert result.wins + result.losses <= 30
    assert set(result.by_role) <= {"box", "captain", "adviser"}
    assert result.points_per_hand > 0  # L2 against random players
    again = play_hands(agents.make("heuristic"), RandomPolicy(), "three_handed", 30, seed=3)
    assert again.points == result.points  # seeded
