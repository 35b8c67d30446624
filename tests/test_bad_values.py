"""Every value checked where it enters (issue 31): a property test over the actions and
options of every env route.

The values are drawn from a seeded generator of every kind a caller may hand over: ints in
and out of range, numpy ints of every width, 0-d integer arrays, floats (integral ones,
``inf``, ``nan``), numpy floats and 0-d float arrays, bools, strings, bytes, None, lists,
1-d arrays, complex numbers. The properties, at random points of random games:

- an integer type (an int, a numpy int, a 0-d integer array) naming a legal action is
  played;
- every other value (a non-integer, or an id out of range) raises a ``ValueError`` that
  names the range, and the game is exactly as before (state, turn, rewards, observation).

An illegal action of the right type is each route's documented business (the raw envs
raise, PettingZoo's wrapped envs end the game, the Gymnasium wrapper ends the episode), so
it is not drawn here; ``tests/test_defects.py`` and ``tests/test_wrappers.py`` cover it.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest

from agents.vector import LearnerVectorEnv
from gin_env import gin_v0, gin_v1, rummy_v0, three_handed_gin_v0, three_handed_gin_v1
from gin_env.vector import VectorGinEnv

AEC_MODULES = [gin_v0, gin_v1, three_handed_gin_v0, three_handed_gin_v1, rummy_v0]
INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_TYPES = [np.float16, np.float32, np.float64]


def draw_value(rng: np.random.Generator, n: int, legal: list[int]) -> tuple[Any, bool]:
    """A value of a random kind, and whether it is an action a route must play: an integer
    type naming a legal id. Illegal ids of an integer type are never drawn (see above)."""
    pick = int(rng.integers(legal[0], legal[-1] + 1))
    a = int(rng.choice(legal))
    kind = int(rng.integers(16))
    if kind == 0:
        return a, True
    wide = [t for t in INT_TYPES if np.iinfo(t).max >= a]  # rummy's ids pass 255
    if kind == 1:
        return wide[int(rng.integers(len(wide)))](a), True
    if kind == 2:
        return np.array(a, dtype=wide[int(rng.integers(len(wide)))]), True
    if kind == 3:  # out of range, as a Python or a numpy int
        bad = [-1, n, n + 1, -(2**70), 2**70, int(rng.integers(-1000, 0))][int(rng.integers(6))]
        return (np.int64(bad) if abs(bad) < 2**62 and rng.random() < 0.5 else bad), False
    if kind == 4:
        return float(a), False  # 3.0 is not 3
    if kind == 5:
        return float(pick) + float(rng.choice([0.5, 0.25, 0.9, -0.1])), False
    if kind == 6:
        return FLOAT_TYPES[int(rng.integers(3))](a + rng.random()), False
    if kind == 7:
        return np.array(float(a)), False
    if kind == 8:
        return [float("inf"), float("-inf"), float("nan"), 1e400][int(rng.integers(4))], False
    if kind == 9:
        return [True, False, np.bool_(True), np.array(False)][int(rng.integers(4))], False
    if kind == 10:
        return [str(a), f" {a}", "draw", ""][int(rng.integers(4))], False
    if kind == 11:
        return str(a).encode(), False
    if kind == 12:
        return [[a], (a,), np.array([a]), np.array([[a]])][int(rng.integers(4))], False
    if kind == 13:
        return complex(a, 0), False
    if kind == 14:
        return None, False  # only a finished agent may pass None
    return {"action": a}, False


def aec_snapshot(env: Any) -> tuple[Any, ...]:
    raw = env.unwrapped
    agent = raw.agent_selection
    obs = raw.observe(agent)
    return (
        raw.state().tobytes(),
        agent,
        dict(raw.terminations),
        dict(raw.truncations),
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        repr(raw.last_action),
    )


def check_route(
    rng: np.random.Generator,
    steps: int,
    legal_of: Callable[[], list[int]],
    n: int,
    step: Callable[[Any], Any],
    snapshot: Callable[[], Any],
    done: Callable[[], bool],
    restart: Callable[[], None],
) -> tuple[int, int]:
    """Draw ``steps`` values at the route's current position; a refused one must raise a
    ValueError naming the range and change nothing; an accepted one is played. Returns
    (refused, played)."""
    refused = played = 0
    for _ in range(steps):
        if done():
            restart()
        legal = legal_of()
        value, is_action = draw_value(rng, n, legal)
        if is_action:
            step(value)
            played += 1
            continue
        before = snapshot()
        with pytest.raises(ValueError, match=rf"0\.\.{n - 1}|must act"):
            step(value)
        assert snapshot() == before, f"refused {value!r} changed the game"
        refused += 1
    return refused, played


@pytest.mark.parametrize("module", AEC_MODULES, ids=lambda m: m.__name__.split(".")[-1])
@pytest.mark.parametrize("maker", ["raw_env", "env"])
def test_aec_routes_refuse_what_is_not_an_action(module: Any, maker: str) -> None:
    env = getattr(module, maker)()
    env.reset(seed=1)
    rng = np.random.default_rng(zlib.crc32(f"{module.__name__} {maker}".encode()))
    n = int(env.action_space(env.agent_selection).n)

    def legal() -> list[int]:
        return np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()

    def done() -> bool:
        a = env.agent_selection
        return bool(env.terminations[a] or env.truncations[a])

    refused, played = check_route(
        rng, 400, legal, n, env.step, lambda: aec_snapshot(env), done, env.reset
    )
    assert refused > 250 and played > 40


GYM_IDS = ["gin_env/Gin-v0", "gin_env/ThreeHandedGin-v0", "gin_env/Rummy-v0"]


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_gymnasium_wrapper_refuses_what_is_not_an_action(env_id: str) -> None:
    env = gymnasium.make(env_id, opponents="random", illegal="terminate")
    inner = env.unwrapped
    env.reset(seed=2)
    rng = np.random.default_rng(len(env_id))
    state: dict[str, bool] = {"done": False}
    n = int(env.action_space.n)

    def step(value: Any) -> None:
        _, _, term, trunc, info = env.step(value)
        assert "illegal_action" not in info  # only legal ids are played here
        state["done"] = bool(term or trunc)

    def snapshot() -> tuple[Any, ...]:
        return (*aec_snapshot(inner.aec), inner._done, inner.action_masks().tobytes())

    def restart() -> None:
        env.reset()
        state["done"] = False

    refused, played = check_route(
        rng,
        300,
        lambda: np.flatnonzero(inner.action_masks()).tolist(),
        n,
        step,
        snapshot,
        lambda: state["done"],
        restart,
    )
    assert refused > 180 and played > 30


def test_gymnasium_illegal_terminate_says_which_action() -> None:
    env = gymnasium.make("gin_env/Gin-v0", opponents="random")
    env.reset(seed=3)
    mask = env.unwrapped.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    _, reward, terminated, _, info = env.step(np.int64(illegal))
    assert terminated and reward == -1.0
    assert info["illegal_action"] == illegal and type(info["illegal_action"]) is int


def _vector_values(rng: np.random.Generator, n: int, legal: np.ndarray) -> tuple[Any, bool]:
    """One batch of actions: legal ids as an int array of some width, or a batch with
    something wrong in it (a float or bool array, an id out of range, a wrong shape)."""
    good = np.array([int(rng.choice(np.flatnonzero(row))) for row in legal])
    kind = int(rng.integers(8))
    if kind == 0:  # every width holds the gin ids 0..108
        return good.astype(INT_TYPES[int(rng.integers(len(INT_TYPES)))]), True
    if kind == 1:
        return good.tolist(), True
    bad = good.astype(np.int64)
    if kind == 2:
        bad[int(rng.integers(len(bad)))] = [-1, n, 10**6][int(rng.integers(3))]
        return bad, False
    if kind == 3:
        return good.astype(FLOAT_TYPES[int(rng.integers(3))]), False  # 3.0 is not 3
    if kind == 4:
        return good.astype(bool), False
    if kind == 5:
        return good[:-1], False
    if kind == 6:
        return [*good.tolist()[:-1], 2.5], False
    return good.astype(str), False


@pytest.mark.parametrize("route", ["VectorGinEnv", "LearnerVectorEnv"])
def test_vector_routes_refuse_what_is_not_an_action(route: str) -> None:
    if route == "VectorGinEnv":
        env: Any = VectorGinEnv(3, "three_handed", seed=4, backend="python")
        env.reset()
        engine = env

        def masks() -> np.ndarray:
            return engine._legal
    else:
        env = LearnerVectorEnv(3, "gin", opponents="random", seed=4, backend="python")
        env.reset()
        engine = env.engine

        def masks() -> np.ndarray:
            return env.action_masks()

    rng = np.random.default_rng(5)
    refused = played = 0
    for _ in range(150):
        value, ok = _vector_values(rng, 109, masks())
        if ok:
            env.step(value)
            played += 1
            continue
        before = (engine.state().tobytes(), masks().tobytes())
        with pytest.raises(ValueError, match=r"0\.\.108"):
            env.step(value)
        assert (engine.state().tobytes(), masks().tobytes()) == before
        refused += 1
    assert refused > 90 and played > 20


# -- options --------------------------------------------------------------------------------
#: Values no option of any env takes: not finite, not a number or a name, or of no use.
NEVER_OPTIONS = [float("inf"), float("-inf"), float("nan"), 1e400, np.float64("nan"), 10**30,
                 [1], {"a": 1}, 1 + 0j, b"1", object()]  # fmt: skip


def _options(module: Any) -> list[str]:
    import inspect

    names = [
        p.name
        for p in inspect.signature(module.raw_env.__init__).parameters.values()
        if p.kind is p.POSITIONAL_OR_KEYWORD and p.name != "self"
    ]
    config = getattr(module.raw_env, "config_class", None)
    return names + (list(config.option_names()) if config else [])


@pytest.mark.parametrize("module", AEC_MODULES, ids=lambda m: m.__name__.split(".")[-1])
def test_every_env_option_refuses_values_it_cannot_take(module: Any) -> None:
    rng = np.random.default_rng(6)
    for name in _options(module):
        for value in NEVER_OPTIONS + [rng.normal() * 1e3, -(10**9), "nonsense"]:
            if name == "reward_scale" and isinstance(value, float) and 0 < value <= 1e6:
                continue  # a finite positive scale is a scale
            with pytest.raises(ValueError, match=name):
                module.raw_env(**{name: value})


@pytest.mark.parametrize("module", AEC_MODULES, ids=lambda m: m.__name__.split(".")[-1])
def test_bad_reset_options_change_nothing(module: Any) -> None:
    env = module.env()
    env.reset(seed=7)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = aec_snapshot(env)
    deck = list(range(52))
    bad = [[1, 2], "deck", 5, {"deck": np.zeros((52, 52), int)}, {"deck": np.arange(52.0)},
           {"deck": deck[:-1]}, {"deck": deck[:-1] + [0]}, {"deck": [True] + deck[1:]},
           {"deck": np.array(3)}, {"deck": [[c] for c in deck]}, {"deck": "AS 2S"}]  # fmt: skip
    for options in bad:
        with pytest.raises(ValueError, match="deck|options"):
            env.reset(seed=99, options=options)
        assert aec_snapshot(env) == before
    with pytest.raises(ValueError, match=r"deck\[0\] is array\(.*\): a deck is a flat sequence"):
        env.reset(options={"deck": np.zeros((52, 52), int)})


@pytest.mark.parametrize(
    ("spec", "name"),
    [("search:budget=1e400", "budget"), ("search:budget=-1", "budget"),
     ("search:worlds=1e400", "worlds"), ("search:worlds=2.5", "worlds"),
     ("search:margin=inf", "margin"), ("search:candidates=0", "candidates"),
     ("search:opponent_samples=True", "opponent_samples"), ("captain:margin=1e400", "margin"),
     ("heuristic:danger_weight=nan", "danger_weight"), ("heuristic:x-y=1", "x-y")],
)  # fmt: skip
def test_agent_options_refuse_values_they_cannot_take(spec: str, name: str) -> None:
    import agents

    with pytest.raises(ValueError, match=name):
        agents.make(spec)


@pytest.mark.parametrize(
    ("options", "name"),
    [({"illegal_reward": float("nan")}, "illegal_reward"),
     ({"illegal_reward": 1e400}, "illegal_reward"), ({"illegal_reward": "-1"}, "illegal_reward"),
     ({"illegal": "ignore"}, "illegal"), ({"reward_scale": float("inf")}, "reward_scale")],
)  # fmt: skip
def test_gymnasium_options_refuse_values_they_cannot_take(options: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        gymnasium.make("gin_env/Gin-v0", **options)


def test_wrapped_env_refuses_out_of_range_under_python_O() -> None:
    # PettingZoo's bounds check is an assert, which python -O strips: -1 then reached the
    # illegal-move wrapper as the mask's last entry and ended the game.
    import subprocess
    import sys

    code = (
        "from gin_env import three_handed_gin_v0\n"
        "env = three_handed_gin_v0.env(); env.reset(seed=0)\n"
        "for bad in (-1, 109, None, 2.5):\n"
        "    try:\n"
        "        env.step(bad)\n"
        "    except ValueError as err:\n"
        "        print('refused', bad, '|', err)\n"
        "print('over' if any(env.terminations.values()) else 'playing')\n"
    )
    out = subprocess.run(
        [sys.executable, "-O", "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[-1] == "playing" and len(out) == 5, out
    assert "refused -1 | action must be an int in 0..108, got -1" in out
    assert "refused 109 | action must be an int in 0..108, got 109" in out
    assert any(line.startswith("refused None") and "must act" in line for line in out)


def test_vector_envs_refuse_bad_reset_options() -> None:
    # the learner vector env used to drop its options unread
    for env in (
        VectorGinEnv(2, "gin", seed=0, backend="python"),
        LearnerVectorEnv(2, "gin", opponents="random", seed=0, backend="python"),
    ):
        for options in ([1], "decks", {"decks": np.zeros((2, 3))}, {"decks": np.zeros((2, 52))}):
            with pytest.raises(ValueError, match="decks"):
                env.reset(seed=1, options=options)
