"""``rummy_v0``: PettingZoo API, seeding, masks, rewards, rendering, encoding and agents."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from agents.rummy_simple import RummySimpleAgent
from gin_env import rummy_actions as ra
from gin_env import rummy_v0
from gin_env.cards import parse_cards, to_mask
from gin_env.rummy import Phase, stacked_deck
from gin_env.rummy_encoding import (
    encode_observation,
    mask_of,
    num_players_for_size,
    observation_size,
    views,
)

PLAYER_COUNTS = [2, 3, 4, 5, 6]
# PettingZoo's api_test warns about any Dict observation space of an env not on its own list.
DICT_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


@contextmanager
def no_warnings_but_dict_ones() -> Iterator[None]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(DICT_WARNINGS)]
    assert not unexpected, unexpected


def random_act(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.integers(len(legal))])


def run_episode(
    env: Any, act: Callable[[str, dict[str, np.ndarray]], int], on_step: Any = None
) -> dict[str, float]:
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(act(agent, obs))
        if on_step is not None:
            on_step()
    return totals


# -- PettingZoo's own checks -----------------------------------------------------------------


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_api_test(n: int) -> None:
    with no_warnings_but_dict_ones():
        api_test(rummy_v0.env(num_players=n), num_cycles=1000)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_seed_test(n: int) -> None:
    with no_warnings_but_dict_ones():
        seed_test(lambda: rummy_v0.env(num_players=n), num_cycles=500)


def test_api_test_of_a_match() -> None:
    with no_warnings_but_dict_ones():
        api_test(rummy_v0.env(num_players=3, target_score=60, max_turns=60), num_cycles=1000)


# -- spaces, options, masks ------------------------------------------------------------------


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_spaces_and_metadata(n: int) -> None:
    env = rummy_v0.raw_env(num_players=n)
    assert env.metadata["name"] == "rummy_v0" and env.metadata["is_parallelizable"] is False
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    for a in env.possible_agents:
        assert env.action_space(a).n == ra.NUM_ACTIONS == 527  # type: ignore[attr-defined]
        assert env.observation_space(a)["observation"].shape == (observation_size(n),)  # type: ignore[index]
        assert env.action_space(a) is env.action_space(a)
    assert num_players_for_size(observation_size(n)) == n


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"num_players": 7}, "num_players"),
        ({"ace_high_or_low": "yes"}, "ace_high_or_low"),
        ({"max_turns": -1}, "max_turns"),
        ({"target_score": 0}, "target_score"),
        ({"render_mode": "svg"}, "render_mode"),
        ({"knock_limit": 5}, "unknown option.*knock_limit.*allowed: the env's num_players"),
    ],
)
def test_bad_options(options: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        rummy_v0.raw_env(**options)


def test_only_the_agent_to_act_has_a_mask() -> None:
    env = rummy_v0.raw_env(num_players=4)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        for a in env.agents:
            obs = env.observe(a)
            assert obs["action_mask"].dtype == np.int8
            assert obs["observation"].dtype == np.float32
            assert env.observation_space(a).contains(obs)
            if a == env.agent_selection:
                assert np.flatnonzero(obs["action_mask"]).tolist() == env.game.legal_actions()
            else:
                assert not obs["action_mask"].any()
        env.step(random_act(env.observe(env.agent_selection), rng))


def test_raw_env_illegal_action_raises_and_changes_nothing() -> None:
    env = rummy_v0.raw_env(num_players=2)
    env.reset(seed=1)
    agent = env.agent_selection
    before = env.observe(agent)
    with pytest.raises(ValueError, match=r"illegal action .*discard.* phase DRAW"):
        env.step(ra.discard(int(np.flatnonzero(before["observation"][:52])[0])))
    after = env.observe(agent)
    assert env.agent_selection == agent
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])
    with pytest.raises(ValueError, match="None"):
        env.step(None)


def test_wrapped_env_illegal_action_ends_the_game_with_minus_one() -> None:
    env = rummy_v0.env(num_players=3)
    env.reset(seed=2)
    agent = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(ra.discard(0))  # a discard before drawing
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1


# -- seeding and decks -----------------------------------------------------------------------


def dealt_hands(env: Any, act: Callable[[str, dict[str, np.ndarray]], int], hands: int) -> list:
    """The deals of the first ``hands`` hands of a match, whatever ``act`` does."""
    env.reset(seed=7)
    deals = [tuple(env.unwrapped.game.hands)]
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        number = env.unwrapped.game.hand_number
        env.step(act(agent, obs))
        if env.unwrapped.game.hand_number != number:
            deals.append(tuple(env.unwrapped.game.hands))
            if len(deals) == hands:
                break
    return deals


def test_decks_depend_on_the_seed_alone() -> None:
    rng = np.random.default_rng(0)
    make = lambda: rummy_v0.env(num_players=3, target_score=10_000, max_turns=6)  # noqa: E731
    first = dealt_hands(make(), lambda a, o: int(np.flatnonzero(o["action_mask"])[0]), 5)
    other = dealt_hands(make(), lambda a, o: random_act(o, rng), 5)
    assert len(first) == 5 and first == other
    env = rummy_v0.raw_env(num_players=3)
    env.reset(seed=8)
    assert tuple(env.game.hands) != first[0]


def test_reset_with_a_given_deck() -> None:
    deck = stacked_deck(
        ["AS 2S 3S 4S 5D 5H 5C 5S 9C 9H", "2D 3D 6C 7C 8D TD JD QC KD KH"], "4D", "9S"
    )
    env = rummy_v0.raw_env(num_players=2, target_score=1000)
    env.reset(seed=3, options={"deck": deck})
    assert env.game.hands[0] == to_mask(parse_cards("AS 2S 3S 4S 5D 5H 5C 5S 9C 9H"))
    assert env.game.discard_pile == parse_cards("4D")
    # Rummy through the env: draw 9S, then three melds go out without a discard.
    for text in ["draw", "meld AS 2S 3S 4S", "meld 5D 5H 5C 5S", "meld 9C 9H 9S"]:
        assert env.agent_selection == "player_0"
        env.step(ra.parse_action(text))
    assert env.rewards == {"player_0": 152.0, "player_1": -152.0}
    assert env.infos["player_0"]["hand_result"]["rummy"] is True
    # The second hand's deck is the one the seed gives, deck option or not.
    plain = rummy_v0.raw_env(num_players=2, target_score=1000)
    plain.reset(seed=3)
    second = plain.table_state._next_deck()
    assert env.game.hand_number == 2 and env.game.dealer == 0  # the winner deals
    assert env.game.hands[1] == to_mask(second[0:20:2])
    assert env.agent_selection == "player_1"
    env.step(ra.DRAW_STOCK)  # the match goes on; the news of the last hand is gone
    assert env.infos["player_0"] == {}
    with pytest.raises(ValueError, match="deck"):
        plain.reset(seed=3, options={"deck": deck[:51]})


# -- rewards and episodes --------------------------------------------------------------------


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_one_hand_rewards_are_the_payments(n: int) -> None:
    rng = np.random.default_rng(n)
    for seed in range(4):
        env = rummy_v0.env(num_players=n)
        env.reset(seed=seed)
        totals = run_episode(env, lambda a, o: random_act(o, rng))
        result = env.unwrapped.game.result
        assert result is not None
        assert sum(totals.values()) == 0
        assert [totals[a] for a in env.possible_agents] == list(result.payments)


def test_truncation_after_max_turns() -> None:
    env = rummy_v0.env(num_players=2, max_turns=3)
    env.reset(seed=0)
    game = env.unwrapped.game
    for _ in range(3):
        top = game.stock[-1]
        env.step(ra.DRAW_STOCK)
        env.step(ra.discard(top))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.infos["player_0"]["hand_result"]["truncated"] is True


def test_match_to_target_score() -> None:
    env = rummy_v0.env(num_players=4, target_score=80)
    env.reset(seed=11)
    rng = np.random.default_rng(1)
    totals = run_episode(env, lambda a, o: random_act(o, rng))
    game = env.unwrapped.game
    assert game.match_over and max(game.scores) >= 80 and len(game.results) >= 1
    assert abs(sum(totals.values())) < 1e-9
    for s, a in enumerate(env.possible_agents):
        assert totals[a] == sum(r.payments[s] for r in game.results)


# -- observation encoding --------------------------------------------------------------------


def test_observation_parts_from_each_seat() -> None:
    deck = stacked_deck(
        ["5H 6H 7H 2C 4C 6C 8C TC QC KS", "8H 9S 9D 2D 4D 6D 8D TD QD KD"],
        "3S",
        "JS JH",
    )
    env = rummy_v0.raw_env(num_players=2)
    env.reset(seed=0, options={"deck": deck})
    for text in ["take discard", "meld 5H 6H 7H"]:
        env.step(ra.parse_action(text))
    mine = views(env.observe("player_0")["observation"])
    theirs = views(env.observe("player_1")["observation"])
    three_s = to_mask(parse_cards("3S"))
    assert mask_of(mine["taken_card"]) == three_s and not theirs["taken_card"].any()
    assert mask_of(theirs["known_held"][1]) == three_s  # player_0 (to player_1's left) took it
    assert not mine["known_held"].any()
    assert mask_of(mine["melds_by_owner"][0]) == to_mask(parse_cards("5H 6H 7H"))
    assert mask_of(theirs["melds_by_owner"][1]) == to_mask(parse_cards("5H 6H 7H"))
    assert mask_of(mine["table_runs"]) == to_mask(parse_cards("5H 6H 7H"))
    assert mine["phase"].tolist() == [0, 1, 0] and mine["to_act"].tolist() == [1, 0]
    assert theirs["to_act"].tolist() == [0, 1] and theirs["dealer"].tolist() == [1, 0]
    assert mine["hand_sizes"][0] == pytest.approx(8 / 11)
    assert not mine["discard_pile"].any()
    env.step(ra.parse_action("discard KS"))
    mine = views(env.observe("player_0")["observation"])
    assert mask_of(mine["top_discard"]) == to_mask(parse_cards("KS"))
    assert mine["pile_order"].max() == pytest.approx(1 / 52)


def test_encoding_writes_into_a_given_array() -> None:
    env = rummy_v0.raw_env(num_players=5)
    env.reset(seed=4)
    out = np.full(observation_size(5), 7.0, np.float32)
    encode_observation(env.game, 2, out=out)
    assert np.array_equal(out, env.observe("player_2")["observation"])


# -- rendering -------------------------------------------------------------------------------


def test_render_ansi_and_human(capsys: pytest.CaptureFixture[str]) -> None:
    env = rummy_v0.raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "player_2" in text and "(dealer)" in text
    human = rummy_v0.raw_env(num_players=2, render_mode="human")
    human.reset(seed=0)
    human.step(ra.DRAW_STOCK)
    assert "last action: player_0 draw" in capsys.readouterr().out


def test_render_rgb_array() -> None:
    pytest.importorskip("PIL")
    pytest.importorskip("gin_env.render_image")
    env = rummy_v0.raw_env(num_players=4, render_mode="rgb_array")
    env.reset(seed=0)
    picture = env.render()
    assert isinstance(picture, np.ndarray) and picture.ndim == 3 and picture.dtype == np.uint8


# -- agents through the common interface -----------------------------------------------------


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_random_and_simple_agents_play_whole_hands(n: int) -> None:
    random_agent = pytest.importorskip("agents.random_agent").RandomAgent()
    simple = RummySimpleAgent()
    rng = np.random.default_rng(n)
    env = rummy_v0.env(num_players=n)
    env.reset(seed=n)
    players = {a: (simple if i % 2 == 0 else random_agent) for i, a in enumerate(env.agents)}
    totals = run_episode(env, lambda a, o: players[a].act(o, rng))
    assert sum(totals.values()) == 0
    assert env.unwrapped.game.phase == Phase.OVER


def test_simple_agent_beats_random() -> None:
    simple = RummySimpleAgent()
    rng = np.random.default_rng(0)
    score = 0.0
    for seed in range(30):
        env = rummy_v0.env(num_players=2)
        env.reset(seed=seed)
        me = "player_0" if seed % 2 == 0 else "player_1"

        def act(agent: str, obs: dict[str, np.ndarray], me: str = me) -> int:
            return simple.act(obs, rng) if agent == me else random_act(obs, rng)

        totals = run_episode(env, act)
        score += totals[me]
    assert score > 0


def test_simple_agent_takes_a_discard_that_makes_a_meld() -> None:
    deck = stacked_deck(
        ["5H 6H 2C 4C 6C 8C TC QC KS JD", "8H 9S 9D 2D 4D 6D 8D TD QD KD"], "7H", "JS JH"
    )
    env = rummy_v0.raw_env(num_players=2)
    env.reset(seed=0, options={"deck": deck})
    agent = RummySimpleAgent()
    assert agent.act(env.observe("player_0")) == ra.TAKE_DISCARD
    env.step(ra.TAKE_DISCARD)
    assert agent.act(env.observe("player_0")) == ra.parse_action("meld 5H 6H 7H")
    env.step(ra.parse_action("meld 5H 6H 7H"))
    # KS and JD are the 10-pip cards far from any meld (the clubs are all near one another).
    assert agent.act(env.observe("player_0")) in {
        ra.parse_action(f"discard {c}") for c in ("KS", "JD")
    }


def test_benchmark_runs() -> None:
    bench = pytest.importorskip("benchmarks.bench_rummy")
    assert bench.rummy_agent_steps_per_second(2, seconds=0.2) > 0
