"""``three_handed_gin_v0``: PettingZoo's own checks in every mode, hidden information,
rewards, role rotation, the adviser's turns, seeds, decks and option validation."""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import CARD_PARTS, make_deck
from helpers import env_choice as choose
from pettingzoo.test import api_test, seed_test

from gin_env import actions as A
from gin_env import three_handed_gin_v0
from gin_env.encoding import OBS_SLICES, cards_in, views

REWARDS = ("team", "zero_sum", "individual", "match")
EPISODES = ("match", "hand")


def play(env: Any, rng: random.Random, on_step: Callable[..., None] | None = None) -> None:
    """One episode through the AEC loop; ``on_step(agent, obs, reward, info)`` sees every
    live turn before the action."""
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if on_step is not None:
            on_step(agent, obs, reward, info)
        env.step(choose(env, obs, rng))


# -- PettingZoo's checks ---------------------------------------------------------------------


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize("reward", REWARDS)
@pytest.mark.parametrize("adviser", ["suggest", "none"])
def test_api_and_seed(adviser: str, reward: str, episode: str) -> None:
    opts = {"adviser": adviser, "reward": reward, "episode": episode, "target_score": 30}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(three_handed_gin_v0.env(**opts), num_cycles=60)
        seed_test(lambda: three_handed_gin_v0.env(**opts), num_cycles=40)


def test_api_on_raw_env_and_hidden_hand() -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(three_handed_gin_v0.raw_env(adviser_sees_hand=False), num_cycles=60)


# -- illegal actions -------------------------------------------------------------------------


def _snapshot(env: Any) -> tuple:
    raw = env.unwrapped
    hand = raw.match.hand
    obs = [raw.observe(a) for a in raw.agents]
    return (
        raw.agent_selection,
        tuple(hand.hands),
        list(hand.discard_pile),
        hand.phase,
        len(raw.match.record.actions),
        dict(raw._cumulative_rewards),
        [o["observation"].tobytes() + o["action_mask"].tobytes() for o in obs],
    )


def test_raw_env_rejects_illegal_action_and_changes_nothing() -> None:
    env = three_handed_gin_v0.raw_env()
    env.reset(seed=3)
    rng = random.Random(0)
    for _ in range(25):  # into the middle of the hand, adviser and captain turns included
        obs = env.observe(env.agent_selection)
        before = _snapshot(env)
        illegal = [a for a in range(A.NUM_ACTIONS) if not obs["action_mask"][a]]
        bad = rng.choice(illegal)
        with pytest.raises(ValueError, match=rf"illegal (action|advice) {bad} .*legal: "):
            env.step(bad)
        assert _snapshot(env) == before
        env.step(choose(env, obs, rng))


def test_raw_env_rejects_out_of_range_and_none() -> None:
    env = three_handed_gin_v0.raw_env()
    env.reset(seed=0)
    for bad in (-1, A.NUM_ACTIONS, None):
        with pytest.raises(ValueError):
            env.step(bad)


def test_wrapped_env_ends_game_with_penalty_on_illegal_action() -> None:
    env = three_handed_gin_v0.env()
    env.reset(seed=4)
    obs, *_ = env.last()
    actor = env.agent_selection
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(bad)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[actor] == -1
    assert all(r == 0 for a, r in env._cumulative_rewards.items() if a != actor)
    for _agent in env.agent_iter():
        assert env.last()[2] or env.last()[3]
        env.step(None)
    assert env.agents == []


# -- what an observation may show ------------------------------------------------------------


@pytest.mark.parametrize("sees", [True, False])
def test_no_hidden_card_of_the_opponent_is_ever_observed(sees: bool) -> None:
    """200 hands: every observer's 52-card parts never hold a card of the hand it does not
    see, except cards that hand took from the discard pile."""
    env = three_handed_gin_v0.raw_env(episode="hand", adviser_sees_hand=sees)
    rng = random.Random(11)
    checked = hands = 0
    for seed in range(100):
        env.reset(seed=seed)
        hands += 1
        while True:
            match = env.match
            hand = match.hand
            players = match.record.players
            for p, agent in enumerate(env.possible_agents):
                obs = env.observe(agent)["observation"]
                shown = set()
                for part in CARD_PARTS:
                    shown.update(cards_in(obs, part))
                seat_seen = players.index(p) if p in players else (0 if sees else None)
                for seat in (0, 1):
                    if seat == seat_seen:
                        continue
                    hidden = hand.hands[seat] & ~hand.took[seat]
                    leaked = [c for c in shown if hidden >> c & 1]
                    assert not leaked, (agent, seat, leaked)
                    checked += 1
                if seat_seen is None:
                    assert not cards_in(obs, "hand") and views(obs)["deadwood"][0] == 0
                    assert not cards_in(obs, "partner_discarded")
            if env.terminations[env.agent_selection]:
                break
            env.step(choose(env, env.observe(env.agent_selection), rng))
    assert hands == 100 and checked > 10_000


def test_observation_shows_own_hand_and_opponent_pickups() -> None:
    deck = make_deck(
        "AS 2S 3S 4H 5H 6H 7D 8D 9C TC", "KS KH KD QS QH JD JC 9S 8H 2C", "4S", "5C 6C"
    )
    env = three_handed_gin_v0.raw_env()
    env.reset(seed=0, options={"deck": deck})
    match = env.match
    box, captain, adviser = (
        env.possible_agents[p] for p in (match.box, match.captain, match.adviser)
    )
    assert cards_in(env.observe(captain)["observation"], "hand") == sorted(deck[0:20:2])
    assert cards_in(env.observe(box)["observation"], "hand") == sorted(deck[1:20:2])
    assert cards_in(env.observe(adviser)["observation"], "hand") == sorted(deck[0:20:2])
    assert cards_in(env.observe(box)["observation"], "top_discard") == [deck[20]]
    env.step(A.TAKE_DISCARD)  # adviser suggests taking the 4S
    assert env.agent_selection == captain
    captain_obs = env.observe(captain)["observation"]
    assert cards_in(captain_obs, "suggestion") == [A.TAKE_DISCARD]
    env.step(A.TAKE_DISCARD)  # the captain takes it
    box_obs = env.observe(box)["observation"]
    assert cards_in(box_obs, "opponent_took") == [deck[20]]


# -- rewards, infos and roles ----------------------------------------------------------------


@pytest.mark.parametrize("reward", REWARDS)
def test_rewards_sum_as_documented(reward: str) -> None:
    env = three_handed_gin_v0.raw_env(reward=reward, target_score=40, reward_scale=0.5)
    rng = random.Random(1)
    scored_hands = 0
    for seed in range(12):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while not all(env.terminations.values()):
            env.step(choose(env, env.observe(env.agent_selection), rng))
            for a, r in env.rewards.items():
                totals[a] += r
            info = env.infos[env.possible_agents[0]]
            if not info["hand_over"]:
                assert not any(env.rewards.values())
                continue
            result = info["hand_result"]
            roles = {role: a for a, role in result["roles"].items()}
            rw = env.rewards
            p = result["points"] * 0.5
            if result["winner"] is None:
                assert not any(rw.values())
                continue
            scored_hands += 1
            sign = 1 if result["winner"] == roles["box"] else -1
            if reward == "team":
                assert rw[roles["box"]] == sign * p
                assert rw[roles["captain"]] == rw[roles["adviser"]] == -sign * p
            elif reward == "zero_sum":
                assert rw[roles["box"]] == sign * p
                assert rw[roles["captain"]] == rw[roles["adviser"]] == -sign * p / 2
                assert sum(rw.values()) == 0
            elif reward == "individual":
                assert rw[result["winner"]] == p and sum(rw.values()) == p
            elif env.match.is_over:
                assert sorted(rw.values()) == [-0.5, -0.5, 1.0]
            else:
                assert not any(rw.values())
        assert env.match.is_over
        if reward in ("zero_sum", "match"):
            assert abs(sum(totals.values())) < 1e-9
        if reward == "individual":
            for p_id, a in enumerate(env.possible_agents):
                assert totals[a] == env.match.scores[p_id] * 0.5
    assert scored_hands >= 20


def test_rewards_reach_every_agent_through_the_aec_loop() -> None:
    """Each agent's cumulative reward, read by ``last()`` at its next turn (or at the end),
    adds up to what the hands paid it, whoever acted last."""
    env = three_handed_gin_v0.env(reward="team", target_score=60)
    rng = random.Random(2)
    for seed in range(4):
        env.reset(seed=seed)
        paid = dict.fromkeys(env.possible_agents, 0.0)
        seen = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            seen[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            env.step(choose(env, obs, rng))
            for a, r in env.rewards.items():
                paid[a] += r
        assert seen == paid
        assert any(paid.values())


def test_roles_follow_the_rotation_rule() -> None:
    env = three_handed_gin_v0.raw_env(target_score=60)
    rng = random.Random(3)
    outcomes = set()
    for seed in range(6):
        env.reset(seed=seed)
        roles = {a: env.infos[a]["role"] for a in env.possible_agents}
        assert sorted(roles.values()) == ["adviser", "box", "captain"]
        while not all(env.terminations.values()):
            env.step(choose(env, env.observe(env.agent_selection), rng))
            info = env.infos[env.possible_agents[0]]
            if not info["hand_over"]:
                assert {a: env.infos[a]["role"] for a in env.possible_agents} == roles
                continue
            result = info["hand_result"]
            assert result["roles"] == roles
            if env.match.is_over:
                break
            by_role = {r: a for a, r in roles.items()}
            new = {a: env.infos[a]["role"] for a in env.possible_agents}
            if result["winner"] is None:
                outcomes.add("draw")
                assert new == roles
            elif result["winner"] == by_role["box"]:
                outcomes.add("box won")
                assert new[by_role["box"]] == "box"
                assert new[by_role["captain"]] == "adviser"
                assert new[by_role["adviser"]] == "captain"
            else:
                outcomes.add("box lost")
                assert new[by_role["box"]] == "adviser"
                assert new[by_role["captain"]] == "box"
                assert new[by_role["adviser"]] == "captain"
            roles = new
    assert outcomes == {"draw", "box won", "box lost"}


def test_infos_carry_role_scores_and_hand_result() -> None:
    env = three_handed_gin_v0.raw_env(episode="hand")
    env.reset(seed=5)
    for a in env.possible_agents:
        assert set(env.infos[a]) == {"role", "scores", "hand_over"}
    play(env, random.Random(0))
    # play() stepped every agent out; replay the same seed to read the last infos
    env.reset(seed=5)
    rng = random.Random(0)
    while not all(env.terminations.values()):
        env.step(choose(env, env.observe(env.agent_selection), rng))
    for a in env.possible_agents:
        info = env.infos[a]
        assert info["hand_over"] is True
        assert set(info["hand_result"]) == {"kind", "points", "winner", "knocker", "roles"}
        assert info["hand_result"]["kind"] in ("knock", "undercut", "gin", "draw")


# -- the adviser -----------------------------------------------------------------------------


def test_adviser_acts_before_every_captain_decision() -> None:
    env = three_handed_gin_v0.env(target_score=50)
    rng = random.Random(4)
    advice_turns = 0
    for seed in range(3):
        env.reset(seed=seed)
        prev: tuple[str, list[int], int] | None = None
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            raw = env.unwrapped
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            for other in env.agents:  # the mask is all zeros for every agent not to act
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
            role = info["role"]
            sug = views(obs["observation"])["suggestion"]
            if role == "adviser":
                assert A.NO_ADVICE in legal and views(obs["observation"])["advising"][0] == 1
                assert raw.match.current_player == raw.match.adviser
            elif role == "captain":
                assert prev is not None and prev[0] == "adviser"
                assert prev[1] == legal + [A.NO_ADVICE] or sorted(prev[1]) == sorted(
                    legal + [A.NO_ADVICE]
                )
                assert np.flatnonzero(sug).tolist() == [prev[2]]
                advice_turns += 1
            else:
                assert not sug.any()
            action = choose(env, obs, rng)
            prev = (role, legal, action)
            env.step(action)
    assert advice_turns > 100


def test_no_adviser_turns_when_adviser_none() -> None:
    env = three_handed_gin_v0.env(adviser="none", target_score=40)
    rng = random.Random(5)
    env.reset(seed=1)
    turns = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert info["role"] != "adviser"
        assert A.NO_ADVICE not in np.flatnonzero(obs["action_mask"])
        assert not views(obs["observation"])["suggestion"].any()
        env.step(choose(env, obs, rng))
        turns += 1
    assert turns > 50


# -- seeds, decks, rendering, options --------------------------------------------------------


def _decks_and_roles(seed: int, policy_seed: int, hands: int = 4) -> tuple:
    env = three_handed_gin_v0.raw_env(target_score=1000)
    env.reset(seed=seed)
    rng = random.Random(policy_seed)
    while len(env.match.history) <= hands:
        env.step(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
    return env.match.role_draws, [rec.deck for rec in env.match.history[:hands]]


def test_deals_depend_on_the_seed_alone() -> None:
    assert _decks_and_roles(7, 0) == _decks_and_roles(7, 99)
    assert _decks_and_roles(7, 0) != _decks_and_roles(8, 0)


def test_reset_with_deck_plays_that_deck() -> None:
    deck = list(range(51, -1, -1))
    env = three_handed_gin_v0.raw_env()
    env.reset(seed=2, options={"deck": deck})
    assert env.match.record.deck == deck
    assert env.match.hand.upcard == deck[20]
    env.reset(seed=2, options={"deck": None})
    assert env.match.record.deck != deck


@pytest.mark.parametrize(
    "bad",
    [list(range(51)), [0] * 52, list(range(1, 53)), "deck"],
    ids=["51", "dup", "range", "str"],
)
def test_reset_rejects_a_bad_deck(bad: Any) -> None:
    env = three_handed_gin_v0.raw_env()
    with pytest.raises(ValueError, match="deck"):
        env.reset(seed=0, options={"deck": bad})


@pytest.mark.parametrize(
    "option, value",
    [
        ("adviser", "whisper"),
        ("adviser_sees_hand", "yes"),
        ("reward", "points"),
        ("episode", "game"),
        ("reward_scale", 0),
        ("reward_scale", True),
        ("max_hands", 0),
        ("render_mode", "svg"),
        ("knock_limit", 11),
        ("gin_bonus", -1),
        ("undercut_bonus", "10"),
        ("big_gin_bonus", -5),
        ("allow_discard_of_taken_card", 1),
        ("max_turns_per_hand", 0),
        ("oklahoma", "no"),
        ("target_score", 0),
        ("dealer_rule", "winner"),  # a gin_v0 option, unknown here
        ("colour", "red"),
    ],
)
def test_bad_options_raise_naming_them(option: str, value: Any) -> None:
    with pytest.raises(ValueError, match=option):
        three_handed_gin_v0.env(**{option: value})


def test_max_hands_truncates() -> None:
    env = three_handed_gin_v0.raw_env(max_hands=2, target_score=10_000)
    env.reset(seed=0)
    rng = random.Random(0)
    while not (all(env.truncations.values()) or all(env.terminations.values())):
        env.step(choose(env, env.observe(env.agent_selection), rng))
    # Two hands played, none dealt beyond them: the final observation shows the second.
    assert all(env.truncations.values()) and len(env.match.history) == 2
    assert env.match.history[-1].result is not None


def test_render_ansi_returns_text_and_human_prints(capsys: pytest.CaptureFixture[str]) -> None:
    env = three_handed_gin_v0.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "upcard/discard" in text and "box" in text
    human = three_handed_gin_v0.env(render_mode="human")
    human.reset(seed=0)
    capsys.readouterr()
    assert human.render() is None
    assert "upcard/discard" in capsys.readouterr().out


def test_one_discrete_space_for_every_agent() -> None:
    env = three_handed_gin_v0.env()
    spaces = [env.action_space(a) for a in env.possible_agents]
    assert all(s is spaces[0] for s in spaces) and spaces[0].n == A.NUM_ACTIONS
    obs_space = env.observation_space("player_0")
    assert obs_space["observation"].shape == (OBS_SLICES["suggestion"].stop,)
    assert obs_space["action_mask"].shape == (A.NUM_ACTIONS,)


def test_legal_actions_is_a_copy_matching_the_mask() -> None:
    env = three_handed_gin_v0.raw_env()
    env.reset(seed=0)
    rng = random.Random(0)
    for _ in range(40):
        legal = env.legal_actions()
        assert (
            sorted(legal)
            == np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
        )
        legal.clear()
        assert env.legal_actions()
        env.step(choose(env, env.observe(env.agent_selection), rng))
