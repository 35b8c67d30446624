"""The one table in play (gin_env.table_state): the env and the table agree move by move,
the table's rules alone decide the adviser, and a clone plays on as the original."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from gin_env import actions as A
from gin_env import games
from gin_env.config import GinConfig, RummyConfig, ThreeHandedConfig
from gin_env.match import ThreeHandedMatch
from gin_env.table_state import TableState

#: Every game with option sets that change what the views and the moves show.
CASES = [
    ("gin", {"target_score": 40}),
    ("gin", {"target_score": 30, "hollywood": True, "big_gin_bonus": 31}),
    ("gin", {"target_score": 40, "oklahoma": True, "dealer_rule": "winner"}),
    ("three_handed", {"target_score": 40}),
    ("three_handed", {"target_score": 40, "adviser": "none"}),
    ("three_handed", {"target_score": 40, "adviser_sees_hand": False, "oklahoma": True}),
    ("three_handed_v1", {"target_score": 30, "knock_limit": 7}),
    ("rummy", {"num_players": 2}),
    ("rummy", {"num_players": 4, "target_score": 60}),
]


def _views(state: TableState) -> list:
    return [
        state.view(p, open_hands)
        for p in (None, *range(state.num_players))
        for open_hands in (False, True)
    ]


@pytest.mark.parametrize(("game", "options"), CASES)
def test_the_env_and_a_table_in_play_agree_move_by_move(game, options):
    spec = games.get(game)
    table, _ = spec.split_options(options)
    env = spec.make_env(**options)
    rng = np.random.default_rng(7)
    env.reset(seed=11)
    # A table in play of its own, dealt from the same seed, fed the env's moves.
    own = TableState(table, 11, name=spec.name)
    clone_at = 25
    twin = None
    for step in range(400):
        state = env.table_state
        if state.is_over:
            break
        assert own.to_act == state.to_act
        assert own.legal_actions() == state.legal_actions() == env.legal_actions()
        agent = env.agent_selection
        assert agent == env.possible_agents[state.to_act]
        mask = env.observe(agent)["action_mask"]
        assert np.flatnonzero(mask).tolist() == state.legal_actions()
        assert _views(own) == _views(state)
        assert own.scores == state.scores and own.history == state.history
        assert own.moves == state.moves
        if step == clone_at:
            twin = own.clone()
            later: list[int] = []
        action = int(rng.choice(state.legal_actions()))
        env.step(action)
        own.apply(action)
        if twin is not None:
            later.append(action)
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
    assert own.summary() == env.table_state.summary()
    # A clone taken mid-match, given the same moves, reaches the same state.
    assert twin is not None
    for action in later:
        twin.apply(action)
    assert _views(twin) == _views(own) and twin.summary() == own.summary()


def test_a_clone_is_independent():
    state = TableState(ThreeHandedConfig(target_score=40), seed=3)
    twin = state.clone()
    state.apply(state.legal_actions()[0])
    assert twin.moves == [] and len(state.moves) == 1
    assert twin.view(0) != state.view(0) or twin.to_act != state.to_act


def test_an_illegal_move_is_a_typed_error_and_changes_nothing():
    for table in (GinConfig(), ThreeHandedConfig(), RummyConfig(num_players=3)):
        state = TableState(table, seed=5)
        before = _views(state)
        bad = next(a for a in range(A.NUM_ACTIONS) if a not in state.legal_actions())
        with pytest.raises(A.IllegalAction) as caught:
            state.apply(bad)
        assert caught.value.action == bad
        assert list(caught.value.legal) == state.legal_actions()
        assert isinstance(caught.value, ValueError)  # old callers catching ValueError hold
        assert _views(state) == before


def test_a_match_without_an_adviser_never_advises():
    state = TableState(ThreeHandedConfig(adviser="none", target_score=20), seed=2)
    rng = np.random.default_rng(0)
    while not state.is_over:
        assert not state.advising and state.suggestion is None
        assert state.to_act in state.history[-1].players  # only box and captain act
        state.apply(int(rng.choice(state.legal_actions())))
    for rec in state.history:
        assert all(player in rec.players for player, _ in rec.actions)


def test_a_blind_adviser_follows_the_blind_rule():
    state = TableState(ThreeHandedConfig(adviser_sees_hand=False, target_score=20), seed=4)
    rng = np.random.default_rng(1)
    advised = 0
    while not state.is_over and advised < 200:
        if state.advising:
            advised += 1
            match = state.match
            assert match is not None
            hand = match.hand
            legal = set(state.legal_actions())
            # Never a knock or big gin (their legality hangs on the hidden hand); a discard
            # only of a card the adviser saw the captain take from the pile.
            assert not any(A.KNOCK <= a for a in legal)
            seen = hand.took[hand.current]
            for a in legal:
                if A.DISCARD <= a < A.KNOCK:
                    assert seen >> (a - A.DISCARD) & 1
        state.apply(int(rng.choice(state.legal_actions())))
    assert advised > 20
    # The blind adviser sees only his own (empty) hand: no card of the captain.
    fresh = TableState(ThreeHandedConfig(adviser_sees_hand=False), seed=4)
    assert fresh.match is not None
    assert fresh.view(fresh.match.adviser).hands == {}


def test_no_second_argument_can_contradict_the_table():
    # The match's only source of the adviser's rules is its table.
    params = inspect.signature(ThreeHandedMatch).parameters
    assert "advice" not in params and "adviser_sees_hand" not in params
    replay = inspect.signature(ThreeHandedMatch.replay).parameters
    assert "advice" not in replay and "adviser_sees_hand" not in replay
    match = ThreeHandedMatch(ThreeHandedConfig(adviser="none"))
    assert not match.advising and not match.advice
    blind = ThreeHandedMatch(ThreeHandedConfig(adviser_sees_hand=False))
    assert blind.adviser_sees_hand is False
    # The env takes them as options of its table, and nowhere else.
    env = games.get("three_handed").make_env(adviser="none", adviser_sees_hand=False)
    env.reset(seed=1)
    assert env.table_state.table.adviser == "none" and not env.table_state.advising
    assert not hasattr(env, "adviser") and not hasattr(env, "adviser_sees_hand")


def test_a_table_of_another_kind_is_refused():
    with pytest.raises(ValueError, match="GinConfig, ThreeHandedConfig, RummyConfig"):
        TableState({"knock_limit": 10}, seed=1)  # type: ignore[arg-type]
