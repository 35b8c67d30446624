"""The text env keeps PettingZoo's contract with replies that are legal moves: ``api_test``
for every game and option set with a ``Text`` space whose samples are legal moves of the
agent to act (random text almost never parses, so the plain space hardly plays a move),
rewards cleared on dead steps (the sum of ``env.rewards`` over an episode is what the
hands paid), and ``stats()`` counting unusable replies as the infos do."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test

from gin_env import text
from gin_env.text.env import CHARSET


class LegalText(spaces.Text):
    """A ``Text`` space whose samples are legal moves of the env's agent to act, in words
    (one in five said in a sentence or as JSON), or, now and then, an unusable reply."""

    def __init__(self, env: Any, seed: int) -> None:
        super().__init__(4000, min_length=0, charset=CHARSET)
        self.env = env
        self.rng = np.random.default_rng(seed)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        moves = self.env.legal_moves()
        if not moves or self.rng.random() < 0.03:
            return "I am not sure."
        move = str(self.rng.choice(moves))
        way = self.rng.integers(5)
        if way == 0:
            return f'{{"move": "{move}"}}'
        if way == 1:
            return f"<think>Let me see.</think>\nFinal answer: {move}"
        return move


#: Every game and the option sets that change its episodes.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("gin", {"episode": "hand"}),
    ("gin", {"target_score": 30}),
    ("three_handed", {"episode": "hand"}),
    ("three_handed", {"episode": "hand", "adviser": "none"}),
    ("three_handed", {"target_score": 30}),
    ("rummy", {}),
    ("rummy", {"num_players": 3}),
]


def _legal_env(game: str, seed: int, **options: Any) -> Any:
    env = text.env(game, **options)
    for a in env.possible_agents:
        env.action_spaces[a] = LegalText(env, seed)
    return env


@pytest.mark.parametrize(("game", "options"), CASES)
@pytest.mark.parametrize("on_invalid", ["forfeit-hand", "random-legal"])
def test_api_test_with_legal_replies(game: str, options: dict[str, Any], on_invalid: str) -> None:
    env = _legal_env(game, 1, on_invalid=on_invalid, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=300)


@pytest.mark.parametrize(("game", "options"), CASES)
def test_rewards_sum_to_what_the_hands_paid(game: str, options: dict[str, Any]) -> None:
    """Summing ``env.rewards`` after every step (dead steps included) gives each agent's
    episode total, the same as ``_cumulative_rewards`` kept along the way."""
    for seed in range(3):
        env = _legal_env(game, seed, on_invalid="random-legal", **options)
        env.reset(seed=seed)
        summed = dict.fromkeys(env.possible_agents, 0.0)
        last = dict.fromkeys(env.possible_agents, 0.0)
        steps = 0
        for agent in env.agent_iter(max_iter=20_000):
            _, reward, term, trunc, _ = env.last()
            last[agent] += reward
            env.step(None if term or trunc else env.action_space(agent).sample())
            steps += 1
            for a, r in env.rewards.items():
                summed[a] += r
        assert not env.agents, "the episode ended"
        assert summed == pytest.approx(last), (summed, last)
        assert steps > 0


def test_gin_hand_pays_once() -> None:
    """A gin hand's points reach the winner once: the sum of ``env.rewards`` over the
    episode is the hand's score, not twice it."""
    for seed in range(6):
        env = _legal_env("gin", seed, on_invalid="random-legal", episode="hand")
        env.reset(seed=seed)
        summed = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter(max_iter=5_000):
            _, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else env.action_space(agent).sample())
            for a, r in env.rewards.items():
                summed[a] += r
        rec = env.inner.match.history[-1]
        res = rec.result
        if res.winner is None:
            assert all(v == 0 for v in summed.values())
            continue
        winner = f"player_{rec.players[res.winner]}"
        loser = next(a for a in env.possible_agents if a != winner)
        assert summed[winner] == res.points and summed[loser] == -res.points  # "team"


def test_stats_count_as_the_infos() -> None:
    env = text.env("gin", episode="hand", on_invalid="random-legal", retries=1)
    env.reset(seed=2)
    first = env.agent_selection
    env.step("banana")
    env.step("discard 2S" if "discard 2S" not in env.legal_moves() else "knock AH")
    s = env.stats()
    assert s[first]["invalid_replies"] == env.infos[first]["invalid_replies"] == 2
    assert s[first]["policy_moves"] == env.infos[first]["policy_moves"] == 1
