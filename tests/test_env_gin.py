"""``gin_v0``: PettingZoo's checks in every mode, hidden information, zero-sum rewards,
dealer rotation, illegal actions, seeds, decks and options."""

from __future__ import annotations

import random
import re
import warnings
from typing import Any

import numpy as np
import pytest
from helpers import CARD_PARTS
from helpers import env_choice as choose
from pettingzoo.test import api_test, seed_test

from gin_env import actions as A
from gin_env import gin_v0, rummy_v0
from gin_env.encoding import cards_in, views

REWARDS = ("team", "zero_sum", "individual", "match")


@pytest.mark.parametrize("episode", ["match", "hand"])
@pytest.mark.parametrize("reward", REWARDS)
def test_api_and_seed(reward: str, episode: str) -> None:
    opts = {"reward": reward, "episode": episode, "target_score": 30}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(gin_v0.env(**opts), num_cycles=60)
        api_test(gin_v0.raw_env(**opts), num_cycles=30)
        seed_test(lambda: gin_v0.env(**opts), num_cycles=40)


def test_raw_env_rejects_illegal_action_and_changes_nothing() -> None:
    env = gin_v0.raw_env()
    env.reset(seed=1)
    rng = random.Random(1)
    for _ in range(20):
        agent = env.agent_selection
        obs = env.observe(agent)
        before = (agent, tuple(env.match.hand.hands), env.observe(agent)["observation"].tobytes())
        bad = rng.choice(np.flatnonzero(obs["action_mask"] == 0).tolist())
        with pytest.raises(ValueError, match=rf"illegal action {bad} \(.*\).*legal: "):
            env.step(bad)
        after = (env.agent_selection, tuple(env.match.hand.hands))
        assert after + (env.observe(agent)["observation"].tobytes(),) == before
        env.step(choose(env, obs, rng))


@pytest.mark.parametrize("module", [gin_v0, rummy_v0])
@pytest.mark.parametrize("bad", ["draw", 3.5, True])
def test_an_action_that_is_not_an_int_is_refused(module: Any, bad: Any) -> None:
    env = module.raw_env()
    env.reset(seed=0)
    n = env.action_space(env.agent_selection).n
    before = env.observe(env.agent_selection)["observation"].tobytes()
    with pytest.raises(ValueError, match=re.escape(f"action must be an int in 0..{n - 1}")):
        env.step(bad)
    assert env.observe(env.agent_selection)["observation"].tobytes() == before


@pytest.mark.parametrize("module", [gin_v0, rummy_v0])
def test_observing_an_unknown_agent_names_the_agents(module: Any) -> None:
    env = module.raw_env()
    env.reset(seed=0)
    with pytest.raises(KeyError, match="unknown agent 'player_9'; agents: player_0, player_1"):
        env.observe("player_9")


def test_wrapped_env_penalises_illegal_action() -> None:
    env = gin_v0.env()
    env.reset(seed=2)
    actor = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(A.NO_ADVICE)  # never legal in two-player gin
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {actor: -1, **{a: 0 for a in env.agents if a != actor}}


def test_no_hidden_card_is_ever_observed_and_no_advice_never_legal() -> None:
    env = gin_v0.raw_env(episode="hand")
    rng = random.Random(7)
    checked = 0
    for seed in range(100):
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            hand = env.match.hand
            players = env.match.record.players
            for p, agent in enumerate(env.possible_agents):
                obs = env.observe(agent)
                assert not obs["action_mask"][A.NO_ADVICE]
                assert not views(obs["observation"])["suggestion"].any()
                shown = {c for part in CARD_PARTS for c in cards_in(obs["observation"], part)}
                other = 1 - players.index(p)
                hidden = hand.hands[other] & ~hand.took[other]
                assert not [c for c in shown if hidden >> c & 1]
                checked += 1
            env.step(choose(env, env.observe(env.agent_selection), rng))
    assert checked > 5000


@pytest.mark.parametrize("reward", REWARDS)
def test_rewards_are_zero_sum_or_individual(reward: str) -> None:
    env = gin_v0.raw_env(reward=reward, target_score=50)
    rng = random.Random(3)
    scored = 0
    for seed in range(10):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while not all(env.terminations.values()):
            env.step(choose(env, env.observe(env.agent_selection), rng))
            rw = env.rewards
            for a, r in rw.items():
                totals[a] += r
            info = env.infos["player_0"]
            if not info["hand_over"] or info["hand_result"]["winner"] is None:
                assert not any(rw.values())
                continue
            scored += 1
            winner, points = info["hand_result"]["winner"], info["hand_result"]["points"]
            if reward in ("team", "zero_sum"):
                assert rw[winner] == points and sum(rw.values()) == 0
            elif reward == "individual":
                assert rw[winner] == points and sum(rw.values()) == points
            elif env.match.is_over:
                assert rw[winner] == 1 and sum(rw.values()) == 0
        scores = env.match.scores
        if reward == "individual":
            assert [totals[a] for a in env.possible_agents] == scores
        else:
            assert sum(totals.values()) == 0
    assert scored >= 20


def test_dealer_alternates_and_roles_in_infos() -> None:
    env = gin_v0.raw_env(target_score=60)
    rng = random.Random(4)
    env.reset(seed=0)
    roles = {a: env.infos[a]["role"] for a in env.possible_agents}
    assert sorted(roles.values()) == ["dealer", "non-dealer"]
    hands = 0
    while not all(env.terminations.values()):
        env.step(choose(env, env.observe(env.agent_selection), rng))
        if env.infos["player_0"]["hand_over"] and not env.match.is_over:
            new = {a: env.infos[a]["role"] for a in env.possible_agents}
            assert new == {
                a: "dealer" if r == "non-dealer" else "non-dealer" for a, r in roles.items()
            }
            roles = new
            hands += 1
    assert hands >= 2


def test_dealer_rule_winner() -> None:
    env = gin_v0.raw_env(target_score=60, dealer_rule="winner")
    rng = random.Random(5)
    env.reset(seed=1)
    while not all(env.terminations.values()):
        env.step(choose(env, env.observe(env.agent_selection), rng))
        info = env.infos["player_0"]
        if info["hand_over"] and not env.match.is_over:
            winner = info["hand_result"]["winner"]
            if winner is not None:
                assert env.infos[winner]["role"] == "dealer"


def test_deals_depend_on_the_seed_alone_and_deck_option() -> None:
    def decks(policy_seed: int) -> list[list[int]]:
        env = gin_v0.raw_env(target_score=1000)
        env.reset(seed=9)
        rng = random.Random(policy_seed)
        while len(env.match.history) < 4:
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(rng.choice(np.flatnonzero(mask).tolist()))
        return [rec.deck for rec in env.match.history[:3]]

    assert decks(0) == decks(1)
    env = gin_v0.raw_env()
    deck = list(range(52))
    env.reset(seed=0, options={"deck": deck})
    nondealer = env.possible_agents[env.match.record.players[0]]
    assert cards_in(env.observe(nondealer)["observation"], "hand") == deck[0:20:2]


@pytest.mark.parametrize(
    "option, value",
    [("dealer_rule", "random"), ("knock_limit", -1), ("reward", "x"), ("adviser", "suggest")],
)
def test_bad_options_raise_naming_them(option: str, value: Any) -> None:
    with pytest.raises(ValueError, match=option):
        gin_v0.env(**{option: value})


def test_render_ansi() -> None:
    env = gin_v0.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "dealer" in text


def test_benchmark_runs_and_prints_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_env.py"
    spec = importlib.util.spec_from_file_location("bench_env", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--seconds", "0.1", "--rounds", "1", "--no-rummy"]) == 0
    out = capsys.readouterr().out
    for name in ("gin_v0 env()", "gin_v0 raw_env", "three_handed_gin_v0 env()"):
        assert name in out


def test_hollywood_games_in_infos_and_table() -> None:
    env = gin_v0.raw_env(target_score=30, hollywood=True, reward="match")
    rng = random.Random(6)
    env.reset(seed=2)
    assert env.infos["player_0"]["games"] == [[0, 0]] * 3
    while not all(env.terminations.values()):
        env.step(choose(env, env.observe(env.agent_selection), rng))
    info = env.infos["player_0"]
    winner = env.match.winner
    assert info["game_winners"].count(winner) >= 2 and None not in info["game_winners"]
    assert env.rewards[env.possible_agents[winner]] == 1.0
    assert "games: 1) " in env.table_text() and "won by" in env.table_text()
