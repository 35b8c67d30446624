"""The research encodings of the AEC envs: the global state (``state()``), the move history
(``observation="history"``), the v1 observation (the rules in view), and that no encoding
leaks what a seat may not know."""

from __future__ import annotations

import copy
import random
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from gin_env import actions as A
from gin_env import gin_v0, gin_v1, rummy_v0, three_handed_gin_v0, three_handed_gin_v1
from gin_env.encoding import (
    HISTORY_FEATURES,
    HISTORY_LENGTH,
    HISTORY_SLICES,
    LAYOUTS,
    OBS_SIZE,
    OBS_SIZE_V1,
    encode_history,
    state_views,
    views,
)
from gin_env.hand import GinHand, Phase
from gin_env.rummy_encoding import LAYOUTS as RUMMY_LAYOUTS
from gin_env.rummy_encoding import state_views as rummy_state_views

GIN_MODULES = [gin_v0, gin_v1, three_handed_gin_v0, three_handed_gin_v1]


def _step_random(env: Any, rng: random.Random) -> None:
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(rng.choice(np.flatnonzero(mask).tolist()))


def _name(x: Any) -> str:
    return getattr(x, "__name__", str(x)).split(".")[-1]


def _over(env: Any) -> bool:
    return any(env.terminations.values()) or any(env.truncations.values())


# -- layouts ------------------------------------------------------------------------------


def test_layouts_name_every_part_and_size() -> None:
    for name, layout in {**LAYOUTS, **RUMMY_LAYOUTS}.items():
        width = sum(size for _, size in layout["parts"])  # type: ignore[attr-defined]
        rows = layout["shape"][0] if "shape" in layout else 1  # type: ignore[index]
        assert layout["size"] == rows * width, name
    assert LAYOUTS["gin_obs_v0"]["size"] == OBS_SIZE == 436
    assert LAYOUTS["gin_obs_v1"]["size"] == OBS_SIZE_V1
    for module, layout in [(gin_v0, "gin_obs_v0"), (gin_v1, "gin_obs_v1")]:
        env = module.raw_env()
        assert env.observation_layout == layout
        assert env.observation_space("player_0")["observation"].shape == (LAYOUTS[layout]["size"],)
        assert env.state_space.shape == (LAYOUTS[env.state_layout]["size"],)
    assert all(name.startswith("gin_") for name in LAYOUTS)  # rummy's are rummy_encoding's
    for n in (2, 6):
        env = rummy_v0.raw_env(num_players=n)
        assert env.state_space.shape == (RUMMY_LAYOUTS[env.state_layout]["size"],)


def test_v1_keeps_v0_first_and_shows_the_rules() -> None:
    old = three_handed_gin_v0.raw_env(oklahoma=True, big_gin_bonus=31, target_score=250)
    new = three_handed_gin_v1.raw_env(oklahoma=True, big_gin_bonus=31, target_score=250)
    old.reset(seed=8)
    new.reset(seed=8)
    rng_a, rng_b = random.Random(1), random.Random(1)
    for _ in range(40):
        for agent in old.possible_agents:
            a, b = old.observe(agent)["observation"], new.observe(agent)["observation"]
            assert (b[:OBS_SIZE] == a).all()
        hand = new.match.hand
        v = views(new.observe("player_0")["observation"])
        assert v["knock_limit"][0] == pytest.approx(hand.knock_limit / 10)
        assert v["doubled"][0] == (hand.multiplier == 2)
        assert v["oklahoma"][0] == 1 and v["big_gin_on"][0] == 1
        assert v["adviser_sees_hand"][0] == 1
        assert 0 < v["target_score"][0] < 1
        _step_random(old, rng_a)
        _step_random(new, rng_b)
    # Two tables with other rules give other rule parts.
    plain = three_handed_gin_v1.raw_env(adviser_sees_hand=False)
    plain.reset(seed=8)
    v = views(plain.observe("player_0")["observation"])
    assert v["oklahoma"][0] == 0 and v["big_gin_on"][0] == 0 and v["adviser_sees_hand"][0] == 0
    assert v["knock_limit"][0] == 1.0


def test_the_knock_limit_in_view_follows_oklahoma_each_hand() -> None:
    env = gin_v1.raw_env(oklahoma=True, target_score=200)
    env.reset(seed=2)
    rng = random.Random(0)
    limits = set()
    while len(env.match.history) < 8 and not _over(env):
        limit = views(env.observe("player_0")["observation"])["knock_limit"][0]
        assert limit == pytest.approx(env.match.hand.knock_limit / 10)
        limits.add(env.match.hand.knock_limit)
        _step_random(env, rng)
    assert len(limits) > 2


# -- the global state ---------------------------------------------------------------------


def _order(values: np.ndarray) -> list[int]:
    cards = np.flatnonzero(values)
    return [int(c) for c in cards[np.argsort(values[cards])]]


def rebuild_hand(state: np.ndarray, num_players: int, rules: Any) -> tuple[GinHand, list[int]]:
    """A GinHand rebuilt from a state vector alone, and the player of each seat."""
    v = state_views(state, num_players)
    roles = v["roles"].argmax(axis=1).tolist()
    # Seat 0 is the non-dealer (captain / non-dealer), seat 1 the dealer (box / dealer).
    if num_players == 3:
        players = [roles.index(1), roles.index(0)]
    else:
        players = [roles.index(1), roles.index(0)]
    stock = _order(v["stock_order"])
    assert set(stock) == set(np.flatnonzero(v["stock"]).tolist())
    rest = [c for c in range(52) if c not in stock]
    hand = GinHand(rest + stock, rules, dealer=1)
    hand.stock_pos = len(rest)
    hand.hands = [int(sum(1 << int(c) for c in np.flatnonzero(v["hands"][p]))) for p in players]
    hand.took = [int(sum(1 << int(c) for c in np.flatnonzero(v["took"][p]))) for p in players]
    hand.discarded = [
        int(sum(1 << int(c) for c in np.flatnonzero(v["discarded"][p]))) for p in players
    ]
    hand.discard_pile = _order(v["pile_order"])
    hand.upcard = int(v["upcard"].argmax())
    hand.taken = int(v["taken"].argmax()) if v["taken"].any() else None
    hand.phase = Phase(int(v["phase"].argmax()))
    to_act = np.flatnonzero(v["to_act"]).tolist()
    if to_act and to_act[0] in players:
        hand.current = players.index(to_act[0])
    elif to_act:  # the adviser acts before a captain decision
        hand.current = 0
    hand.must_draw_stock = bool(v["must_draw_stock"][0])
    hand.passed_upcard = [bool(x) for x in v["passed_upcard"]]
    hand.turns = round(float(v["turn"][0]) * rules.max_turns_per_hand)
    hand.knock_limit = round(float(v["knock_limit"][0]) * 10)
    hand.multiplier = 2 if v["doubled"][0] else 1
    hand._legal = None
    hand._discard_dw = None
    return hand, players


@pytest.mark.parametrize("module", [gin_v0, three_handed_gin_v0])
@pytest.mark.parametrize("options", [{}, {"oklahoma": True, "adviser_sees_hand": False}])
def test_state_rebuilds_the_position(module: Any, options: dict) -> None:
    if module is gin_v0:
        options = {k: v for k, v in options.items() if k != "adviser_sees_hand"}
    env = module.raw_env(target_score=60, **options)
    env.reset(seed=4)
    rng = random.Random(4)
    n = env.num_players
    checked = 0
    while not _over(env) and checked < 300:
        state = env.state()
        assert env.state_space.contains(state)
        match = env.match
        hand, players = rebuild_hand(state, n, match.hand.rules)
        live = match.hand
        assert players == list(match.record.players)
        for name in ("hands", "took", "discarded", "discard_pile", "upcard", "taken", "phase",
                     "must_draw_stock", "passed_upcard", "turns", "knock_limit", "multiplier",
                     "stock"):  # fmt: skip
            assert getattr(hand, name) == getattr(live, name), name
        if not live.is_over:
            assert hand.current == live.current
            assert hand.legal_actions() == live.legal_actions()
        v = state_views(state, n)
        scores = np.round(v["scores"] * match.target_score).astype(int).tolist()
        assert scores == [min(s, match.target_score) for s in match.scores]
        assert v["roles"].argmax(axis=1).tolist() == list(match.record.roles)
        if n == 3:
            assert bool(v["advising"][0]) == match.advising
            suggestion = np.flatnonzero(v["suggestion"]).tolist()
            assert suggestion == ([] if match.suggestion is None else [match.suggestion])
        # With the rebuilt hand in place, every seat sees exactly what it saw.
        twin = copy.deepcopy(env)
        twin.match.hand = hand
        for agent in env.possible_agents:
            assert (twin.observe(agent)["observation"] == env.observe(agent)["observation"]).all()
        checked += 1
        _step_random(env, rng)
    assert checked > 100


def test_rummy_state_holds_hands_stock_and_pile_in_order() -> None:
    env = rummy_v0.raw_env(num_players=3, target_score=50)
    env.reset(seed=1)
    rng = random.Random(1)
    for _ in range(300):
        if _over(env):
            break
        state = env.state()
        assert env.state_space.contains(state)
        v = rummy_state_views(state, 3)
        game = env.game
        for seat in range(3):
            assert np.flatnonzero(v["hands"][seat]).tolist() == [
                c for c in range(52) if game.hands[seat] >> c & 1
            ]
        assert _order(v["stock_order"]) == game.stock[::-1]  # top first
        assert _order(v["pile_order"]) == game.discard_pile
        owned = [0, 0, 0]
        for meld in game.table:
            owned[meld.owner] |= meld.cards
        for seat in range(3):
            assert np.flatnonzero(v["melds_by_owner"][seat]).tolist() == [
                c for c in range(52) if owned[seat] >> c & 1
            ]
        if game.phase.name != "OVER":
            assert int(v["to_act"].argmax()) == game.current
        assert int(v["dealer"].argmax()) == game.dealer
        _step_random(env, rng)


# -- the history ---------------------------------------------------------------------------


def test_history_shape_mask_and_restart_each_hand() -> None:
    env = three_handed_gin_v0.raw_env(observation="history", target_score=40)
    env.reset(seed=0)
    space = env.observation_space("player_0")
    rng = random.Random(0)
    moves_in_hand = 0
    hand = env.match.record
    for _ in range(400):
        if _over(env):
            break
        if env.match.record is not hand:
            hand, moves_in_hand = env.match.record, 0
        for agent in env.possible_agents:
            obs = env.observe(agent)
            assert space.contains(obs)
            assert obs["history"].shape == (HISTORY_LENGTH, HISTORY_FEATURES)
            assert obs["history_mask"].sum() == min(moves_in_hand, HISTORY_LENGTH)
        _step_random(env, rng)
        moves_in_hand += 1


def _moves_from_replay(hand: dict) -> list[tuple[int, int, int, bool]]:
    """The moves of a replayed hand with the card each one moved, tracked from the deck."""
    deck = hand["deck"]
    players = hand["players"]
    pile = [deck[20]]
    pos = 21
    moves = []
    for player, action in hand["actions"]:
        advice = player not in players
        card = -1
        if advice:
            if A.DISCARD <= action < A.BIG_GIN:
                card = (action - A.DISCARD) % 52
        elif action == A.TAKE_DISCARD:
            card = pile.pop()
        elif action == A.DRAW_STOCK:
            card, pos = deck[pos], pos + 1
        elif A.DISCARD <= action < A.BIG_GIN:
            card = (action - A.DISCARD) % 52
            pile.append(card)
        moves.append((player, action, card, advice))
    return moves


@pytest.mark.parametrize("sees", [True, False])
def test_history_rebuilt_from_a_replay_equals_the_envs_move_by_move(
    sees: bool, tmp_path: Path
) -> None:
    from gin_env.record import load, match_record, save_match

    options = {"observation": "history", "target_score": 40, "adviser_sees_hand": sees}
    env = three_handed_gin_v0.raw_env(**options)
    env.reset(seed=6)
    rng = random.Random(6)
    seen: list[dict[str, tuple[np.ndarray, np.ndarray]]] = []
    while not _over(env):
        seen.append({a: (o["history"], o["history_mask"]) for a in env.possible_agents
                     for o in [env.observe(a)]})  # fmt: skip
        _step_random(env, rng)
    path = tmp_path / "match.json"
    save_match(path, 6, options, env)
    data = load(path)
    assert data == match_record(6, options, env)
    step = 0
    for hand in data["hands"]:
        moves = _moves_from_replay(hand)
        box = hand["roles"].index(0)
        captain = hand["players"][0]
        for i in range(len(moves)):
            for observer in range(3):
                adviser = observer not in hand["players"]
                hist, mask = encode_history(
                    moves[:i], observer, 3, {captain: adviser and sees}, observer != box
                )
                got_hist, got_mask = seen[step][f"player_{observer}"]
                assert (got_mask == mask).all(), (step, observer)
                assert (got_hist == hist).all(), (step, observer)
            step += 1
    assert step == len(seen) and len(data["hands"]) > 1


def test_history_hides_stock_draws_and_the_advice_from_the_box() -> None:
    env = three_handed_gin_v0.raw_env(observation="history", adviser_sees_hand=False)
    env.reset(seed=3)
    rng = random.Random(3)
    card = HISTORY_SLICES["card"]
    kind = HISTORY_SLICES["kind"]
    draws = advice_rows = 0
    for _ in range(120):
        if _over(env):
            break
        _step_random(env, rng)
        rec = env.match.record
        if not rec.actions:
            continue
        player, action = rec.actions[-1]
        n = min(len(rec.actions), HISTORY_LENGTH) - 1
        box = rec.roles.index(0)
        for observer in range(3):
            row = env.observe(f"player_{observer}")["history"][n]
            if player not in rec.players:  # a suggestion
                advice_rows += 1
                assert row[3] == 1
                assert row[kind].any() == (observer != box)
            elif action == A.DRAW_STOCK:
                draws += 1
                assert row[card].any() == (observer == player)
    assert draws > 5 and advice_rows > 5


# -- no encoding leaks hidden cards ------------------------------------------------------------


def _unseen_swap(env: Any, observer: int, rng: random.Random, used: set[int]) -> list[int]:
    """The first hand's deck with cards ``observer`` cannot see (the other hands' cards it
    never saw taken, the stock) swapped with each other, none that any move named."""
    match = env.match
    hand = match.hand
    rec = match.record
    visible: set[int] = set()
    if observer in rec.players:
        visible.add(rec.players.index(observer))
    elif env.unwrapped._adviser_sees_hand():
        visible.add(0)  # the adviser who sees the captain's hand
    hidden = []
    for seat in (0, 1):
        if seat not in visible:
            mask = hand.hands[seat] & ~hand.took[seat]
            hidden += [c for c in range(52) if mask >> c & 1 and c not in used]
    stock = [c for c in hand.stock if c not in used]
    deck = list(hand.deck)
    for c in hidden:
        other = rng.choice(stock + hidden)
        i, j = deck.index(c), deck.index(other)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _seat_view(env: Any, agent: str) -> tuple[Any, ...]:
    obs = env.observe(agent)
    return tuple((k, obs[k].tobytes()) for k in sorted(obs)) + (repr(env.infos[agent]),)


ENCODINGS = [
    (module, mode, sees)
    for module in GIN_MODULES
    for mode in ("flat", "history")
    for sees in ((True, False) if "three" in module.__name__ else (True,))
]


@pytest.mark.parametrize(("module", "mode", "sees"), ENCODINGS, ids=_name)
def test_no_encoding_shows_a_seat_what_it_may_not_see(module: Any, mode: str, sees: bool) -> None:
    options: dict[str, Any] = {"observation": mode, "episode": "hand"}
    if "three" in module.__name__:
        options["adviser_sees_hand"] = sees
    rng = random.Random(7)
    compared = differing = 0
    for seed in range(3):
        env = module.raw_env(**options)
        env.reset(seed=seed)
        actions: list[int] = []
        stop = rng.randrange(8, 40)
        while not _over(env) and len(actions) < stop:
            action = rng.choice(env.legal_actions())
            env.step(action)
            actions.append(action)
        if _over(env):
            continue
        used = {(a - A.DISCARD) % 52 for a in actions if A.DISCARD <= a < A.BIG_GIN}
        used |= set(env.match.hand.discard_pile) | {env.match.hand.upcard}
        for observer in range(env.num_players):
            twin = module.raw_env(**options)
            twin.reset(seed=seed, options={"deck": _unseen_swap(env, observer, rng, used)})
            for a in actions:
                twin.step(a)
            agent = f"player_{observer}"
            assert _seat_view(twin, agent) == _seat_view(env, agent), (seed, observer)
            compared += 1
            differing += twin.match.hand.hands != env.match.hand.hands
    assert compared >= 4 and differing >= 2


# -- PettingZoo's own checks in every encoding --------------------------------------------------

API_CASES = [(m, mode) for m in GIN_MODULES for mode in ("flat", "history")] + [(rummy_v0, "flat")]


@pytest.mark.parametrize(("module", "mode"), API_CASES, ids=_name)
def test_pettingzoo_api_and_seed_tests(module: Any, mode: str) -> None:
    options: dict[str, Any] = {} if module is rummy_v0 else {"observation": mode}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(module.env(**options), num_cycles=200)
        seed_test(lambda: module.env(**options), num_cycles=100)
    env = module.env(**options)
    env.reset(seed=0)
    assert env.state().shape == env.unwrapped.state_space.shape
