"""The research encodings in the batched engine: ``VectorGinEnv``'s global state (``state()``), move
history (``observation="history"``, ``history(seats)``) and the v1 games, against the AEC
envs they must equal, and the history's secrecy.

Every slot is replayed through its own AEC ``raw_env`` (seeded ``seed + i``, plain
``reset()`` after each episode, the same actions): at every step the state of every slot,
the history of the seat to act and of every other seat, and every seat's observation must be
identical, under several option sets (Oklahoma, the blind adviser, Hollywood, the v1
layout), with random and L1 (``simple``) play. The bulk is marked slow.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gin_env import actions as A
from gin_env import games
from gin_env.encoding import (
    HISTORY_FEATURES,
    HISTORY_LENGTH,
    LAYOUTS,
    OBS_SIZE,
    OBS_SIZE_V1,
    state_views,
)
from gin_env.vector import ENVS, VectorGinEnv

#: (game, options, policy): together they touch Oklahoma, the blind adviser (with and
#: without taking back the taken card), Hollywood, big gin, one-hand episodes, the v1 layout.
CASES: list[tuple[str, dict[str, Any], str]] = [
    ("gin", {}, "random"),
    ("gin", {"oklahoma": True, "target_score": 60}, "simple"),
    ("three_handed", {}, "random"),
    ("three_handed", {"adviser_sees_hand": False}, "random"),
    (
        "three_handed",
        {"adviser_sees_hand": False, "oklahoma": True, "allow_discard_of_taken_card": True},
        "simple",
    ),
    ("gin_v1", {"hollywood": True, "target_score": 40, "big_gin_bonus": 31}, "random"),
    ("three_handed_v1", {"adviser_sees_hand": False, "episode": "hand"}, "simple"),
    ("three_handed_v1", {"oklahoma": True, "max_turns_per_hand": 12, "max_hands": 3}, "random"),
]


def _case_id(case: tuple[str, dict[str, Any], str]) -> str:
    game, options, policy = case
    return "-".join([game, policy, *(f"{k}={v}" for k, v in options.items())])


class Chooser:
    """Each slot's action: uniform random, or L1 (``simple``) on the v0 part of the view."""

    def __init__(self, policy: str, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.agent = None
        if policy != "random":
            import agents

            self.agent = agents.make(policy)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if self.agent is None:
            legal = np.flatnonzero(mask)
            return int(legal[self.rng.integers(len(legal))])
        view = {"observation": obs[:OBS_SIZE], "action_mask": mask.astype(np.int8)}
        return int(self.agent.act(view))


def _same(got: np.ndarray, expected: np.ndarray, where: str) -> None:
    """Rows equal (numpy's report on the first slot that differs, when not)."""
    if not np.array_equal(got, expected):
        i = int(np.flatnonzero((got != expected).reshape(len(got), -1).any(axis=1))[0])
        np.testing.assert_array_equal(got[i], expected[i], f"slot {i}, {where}")


def _over(env: Any) -> bool:
    return any(env.terminations.values()) or any(env.truncations.values())


def replay_encodings(
    game: str,
    options: dict[str, Any],
    backend: str,
    num_envs: int,
    steps: int,
    seed: int,
    policy: str = "random",
) -> tuple[int, int]:
    """Play a vector env (``observation="history"``) and one AEC env per slot side by side,
    asserting at every step that the states, every seat's history and every seat's
    observation agree. Returns (hands finished, the most moves seen in one hand)."""
    options = {**options, "observation": "history"}
    module = games.get(ENVS[game]).module
    venv = VectorGinEnv(num_envs, game, seed=seed, backend=backend, **options)
    refs = [module.raw_env(**options) for _ in range(num_envs)]
    for i, ref in enumerate(refs):
        ref.reset(seed=seed + i)
    choose = Chooser(policy, seed)
    out = venv.reset()
    hands = longest = 0
    moves = np.zeros(num_envs, np.int64)
    for t in range(steps):
        where = f"step {t}"
        _same(venv.state(), np.stack([ref.state() for ref in refs]), f"{where}, state")
        acting = [ref.observe(ref.agent_selection) for ref in refs]
        assert out["seat"].tolist() == [
            ref.possible_agents.index(ref.agent_selection) for ref in refs
        ]
        _same(out["observation"], np.stack([o["observation"] for o in acting]), where)
        _same(out["history"], np.stack([o["history"] for o in acting]), f"{where}, history")
        _same(
            out["history_mask"],
            np.stack([o["history_mask"] != 0 for o in acting]),
            f"{where}, history_mask",
        )
        for k in range(venv.num_players):
            seats = np.full(num_envs, k)
            views = [ref.observe(ref.possible_agents[k]) for ref in refs]
            hist, hmask = venv.history(seats)
            _same(hist, np.stack([v["history"] for v in views]), f"{where}, seat {k} history")
            _same(hmask, np.stack([v["history_mask"] != 0 for v in views]), f"{where}, seat {k}")
            _same(venv.observe(seats), np.stack([v["observation"] for v in views]), where)
        actions = np.array(
            [choose(out["observation"][i], out["action_mask"][i]) for i in range(num_envs)]
        )
        out = venv.step(actions)
        moves += 1
        longest = max(longest, int(moves.max()))
        for i, ref in enumerate(refs):
            ref.step(int(actions[i]))
            if out["hand_over"][i]:
                hands += 1
                moves[i] = 0
            assert out["done"][i] == _over(ref), f"slot {i}, {where}"
            if out["done"][i]:
                ref.reset()
    return hands, longest


# -- the API ----------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("game", list(ENVS))
def test_shapes_layouts_and_keys(backend: str, game: str) -> None:
    env = VectorGinEnv(3, game, seed=1, backend=backend, observation="history")
    out = env.reset()
    players = 2 if game.startswith("gin") else 3
    size = OBS_SIZE_V1 if game.endswith("v1") else OBS_SIZE
    assert env.num_players == players
    assert env.observation_layout == ("gin_obs_v1" if size == OBS_SIZE_V1 else "gin_obs_v0")
    assert env.observation_size == size == out["observation"].shape[1]
    assert env.state_layout == f"gin_state_{players}p_v0"
    assert env.state_size == LAYOUTS[env.state_layout]["size"]
    state = env.state()
    assert state.shape == (3, env.state_size) and state.dtype == np.float32
    assert out["history"].shape == (3, HISTORY_LENGTH, HISTORY_FEATURES)
    assert out["history"].dtype == np.float32 and out["history_mask"].dtype == np.bool_
    assert not out["history_mask"].any()  # nothing moved yet
    step = env.step(np.argmax(out["action_mask"], axis=1))
    assert step["history_mask"][:, 0].all() and not step["history_mask"][:, 1:].any()
    assert env.observe(np.zeros(3, np.int64)).shape == (3, size)
    # Each slot's state holds every card once: in a hand, the stock or the pile.
    v = state_views(env.state(), players)
    held = v["hands"].sum(axis=1) + v["stock"] + v["discard_pile"]
    assert (held == 1).all()


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_history_needs_the_option_and_checks_seats(backend: str) -> None:
    flat = VectorGinEnv(2, "three_handed", seed=0, backend=backend)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before state\(\)"):
        flat.state()
    out = flat.reset()
    assert "history" not in out and "history_mask" not in out
    with pytest.raises(ValueError, match='observation="history"'):
        flat.history(np.zeros(2, np.int64))
    env = VectorGinEnv(2, "three_handed", seed=0, backend=backend, observation="history")
    with pytest.raises(RuntimeError, match=r"call reset\(\) before history\(\)"):
        env.history(np.zeros(2, np.int64))
    env.reset()
    with pytest.raises(ValueError, match="slot 1: seat 3 is not a player"):
        env.history(np.array([0, 3]))
    with pytest.raises(ValueError, match="seats must be 2 ints"):
        env.history(np.zeros(3, np.int64))


def test_bad_game_and_observation_are_refused() -> None:
    with pytest.raises(ValueError, match="game must be one of .*gin_v1.*three_handed_v1"):
        VectorGinEnv(2, "gin_v2")
    with pytest.raises(ValueError, match="observation"):
        VectorGinEnv(2, "gin", observation="pixels")


# -- differential: state, history, observations against the AEC env --------------------------


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_state_and_history_match_aec_env_quick(case: tuple[str, dict[str, Any], str]) -> None:
    game, options, policy = case
    hands, longest = replay_encodings(game, options, "numba", 3, 160, seed=31, policy=policy)
    assert hands > 0


@pytest.mark.parametrize("game", ["gin", "three_handed_v1"])
def test_python_backend_state_and_history_quick(game: str) -> None:
    options = {} if game == "gin" else {"adviser_sees_hand": False}
    hands, _ = replay_encodings(game, options, "python", 2, 300, seed=5)
    assert hands > 0


def test_history_keeps_the_last_64_moves_of_long_hands() -> None:
    # Random three-handed play (the adviser's turns count) makes hands longer than the history.
    hands, longest = replay_encodings("three_handed", {}, "numba", 4, 200, seed=2)
    assert longest > HISTORY_LENGTH and hands > 0


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_state_and_history_match_aec_env_bulk(case: tuple[str, dict[str, Any], str]) -> None:
    game, options, policy = case
    hands, longest = replay_encodings(game, options, "numba", 8, 2000, seed=101, policy=policy)
    assert hands > 20
    if policy == "random" and "max_turns_per_hand" not in options:
        assert longest > HISTORY_LENGTH  # the move log wrapped around


# -- the history shows no seat what it may not see --------------------------------------------


def _random_quiet(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per row, never a knock or big gin (a knock's legality depends on
    the whole hand, which the twins below change for the seats that cannot see it)."""
    out = np.empty(len(mask), np.int64)
    for i, row in enumerate(mask):
        legal = np.flatnonzero(row)
        quiet = legal[legal < A.KNOCK]
        pool = quiet if len(quiet) else legal
        out[i] = pool[rng.integers(len(pool))]
    return out


def _unseen_swapped(
    deck: np.ndarray,
    state: np.ndarray,
    players: int,
    observer: int,
    sees_hand: bool,
    used: set[int],
    rng: np.random.Generator,
) -> np.ndarray:
    """``deck`` (the hand's) with the cards ``observer`` cannot see (the other hands' cards it
    did not see taken, the stock), none that any move named, swapped among themselves."""
    v = state_views(state, players)
    roles = v["roles"].argmax(axis=1).tolist()
    seat_players = [roles.index(1), roles.index(0)]  # captain / non-dealer, box / dealer
    visible = {observer} if observer in seat_players else set()
    if observer not in seat_players and sees_hand:
        visible.add(seat_players[0])  # the adviser who sees the captain's hand
    hidden: list[int] = []
    for p in seat_players:
        if p not in visible:
            mask = v["hands"][p] * (1 - v["took"][p])
            hidden += [int(c) for c in np.flatnonzero(mask) if int(c) not in used]
    stock = [int(c) for c in np.flatnonzero(v["stock"]) if int(c) not in used]
    out = deck.copy()
    for c in hidden:
        other = int(rng.choice(stock + hidden))
        i, j = int(np.flatnonzero(out == c)[0]), int(np.flatnonzero(out == other)[0])
        out[i], out[j] = out[j], out[i]
    return out


LEAK_CASES = [("gin", True), ("three_handed", True), ("three_handed", False)]
LEAK_CASES += [("three_handed_v1", False)]


@pytest.mark.parametrize(("game", "sees"), LEAK_CASES)
def test_permuting_unseen_cards_changes_no_seats_history(game: str, sees: bool) -> None:
    """Each seat's history and observation are the same in a twin table whose cards that
    seat cannot see are permuted (hidden stock draws stay hidden; the adviser who does not
    see the hand learns nothing of it), while the global state does differ."""
    options: dict[str, Any] = {"observation": "history", "episode": "hand"}
    if game.startswith("three"):
        options["adviser_sees_hand"] = sees
    k = 12
    rng = np.random.default_rng(7)
    decks = np.stack([rng.permutation(52) for _ in range(k)])
    base = VectorGinEnv(k, game, seed=5, backend="numba", **options)
    out = base.reset(options={"decks": decks})
    stops = rng.integers(8, 40, k)
    played: list[tuple[np.ndarray, np.ndarray]] = []
    alive = np.ones(k, np.bool_)  # the hand still on the table
    used: list[set[int]] = [set() for _ in range(k)]
    for t in range(int(stops.max())):
        active = alive & (t < stops)
        actions = _random_quiet(out["action_mask"], rng)
        for i in np.flatnonzero(active):
            a = int(actions[i])
            if A.DISCARD <= a < A.BIG_GIN:
                used[i].add((a - A.DISCARD) % 52)
        out = base.step(actions, active=active)
        alive &= ~out["done"]
        played.append((actions, active & alive))  # the twins stop before a hand's end
    state = base.state()
    for i in range(k):
        v = state_views(state[i], base.num_players)
        used[i] |= set(np.flatnonzero(v["discard_pile"]).tolist()) | {int(v["upcard"].argmax())}
    compared = differing = 0
    for observer in range(base.num_players):
        twin_decks = np.stack(
            [
                _unseen_swapped(decks[i], state[i], base.num_players, observer, sees, used[i], rng)
                for i in range(k)
            ]
        )
        twin = VectorGinEnv(k, game, seed=5, backend="numba", **options)
        twin.reset(options={"decks": twin_decks})
        for actions, active in played:
            twin.step(actions, active=active)
        seats = np.full(k, observer)
        hist, hmask = twin.history(seats)
        base_hist, base_hmask = base.history(seats)
        twin_obs, base_obs = twin.observe(seats), base.observe(seats)
        twin_state = twin.state()
        for i in np.flatnonzero(alive):
            where = f"slot {i}, observer {observer}"
            np.testing.assert_array_equal(hist[i], base_hist[i], where)
            np.testing.assert_array_equal(hmask[i], base_hmask[i], where)
            np.testing.assert_array_equal(twin_obs[i], base_obs[i], where)
            compared += 1
            differing += not np.array_equal(twin_state[i], state[i])
    assert compared >= 2 * k and differing >= compared // 3


# -- the v1 games in the registry ---------------------------------------------------------------


def test_v1_games_are_registered_and_v0_stays_the_default() -> None:
    import warnings

    import gymnasium

    import agents
    from gin_cli.main import game_spec

    assert game_spec("gin").name == "gin_v0" and game_spec("three").name == "three_handed_gin_v0"
    assert game_spec("two-player").name == "gin_v0" and game_spec("3").name == "three_handed_gin_v0"
    for key, name in [("gin-v1", "gin_v1"), ("three-v1", "three_handed_gin_v1")]:
        spec = game_spec(key)
        assert spec.name == name and spec.observation_size() == OBS_SIZE_V1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Gymnasium notes that v0 has a newer version
            env = gymnasium.make(spec.gym_id, target_score=10, disable_env_checker=True)
        obs, _ = env.reset(seed=0)
        assert env.unwrapped.aec.metadata["name"] == name and obs.shape == (OBS_SIZE_V1,)
        # The rule-based agents play the v1 layout (its first entries are the v0 ones).
        aec = spec.make_env(episode="hand")
        aec.reset(seed=1)
        player = agents.make("heuristic")
        while not _over(aec):
            aec.step(player.act(aec.observe(aec.agent_selection)))
        assert aec.match.record.result is not None
