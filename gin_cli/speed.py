"""How fast the envs run on this machine: ``gin-rummy bench env``, installed with the package.

Every contender plays uniform random legal moves, and every agent step does what a
training loop does:

- ours (``gin_v0``, ``three_handed_gin_v0``): the full AEC loop, ``agent_iter``, ``last()``
  (observation and mask built), a choice over the mask, ``step``; through ``env()`` (the
  standard PettingZoo wrappers), through ``env()`` with PettingZoo's wrappers unmodified,
  and on ``raw_env`` alone. Whole matches (to 100 points), ``reset`` when one ends.
- OpenSpiel's C++ ``gin_rummy`` (if ``pyspiel`` imports): ``observation_tensor``,
  ``legal_actions_mask``, the same choice, ``apply_action``; chance nodes (the deal) are
  sampled and not counted. One hand per game, as OpenSpiel plays it.
- RLCard's ``gin-rummy`` (if ``rlcard`` imports): ``env.step`` (which builds the next
  state's observation) over its legal actions.
- ``rummy_v0`` with 2, 4 and 6 players (:func:`rummy_agent_steps_per_second`).

Rates are agent steps per second of this process's CPU time (``time.process_time``), so a
busy machine skews them less than wall time; the wall-time rate is printed beside. The
contenders take turns in short slices (``--rounds``) so that load changes hit all alike.
Run ``gin-rummy bench env --seconds 5`` (or, from a clone, ``python benchmarks/bench_env.py``,
a thin script over this module).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from gin_env import games, rummy_v0
from gin_env.aec_tools import wrap_plain
from training import cli_description, prog_name

__all__ = [
    "Result",
    "aec_loop",
    "openspiel_loop",
    "rlcard_loop",
    "contenders",
    "run",
    "rummy_agent_steps_per_second",
    "main",
]

#: A contender runs for about ``seconds`` of CPU time and returns its agent steps.
Loop = Callable[[float], int]


class Result:
    """Agent steps and the CPU and wall seconds they took."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.steps = 0
        self.cpu = 0.0
        self.wall = 0.0

    @property
    def rate(self) -> float:
        return self.steps / self.cpu if self.cpu else 0.0

    @property
    def wall_rate(self) -> float:
        return self.steps / self.wall if self.wall else 0.0


def aec_loop(make_env: Callable[[], Any], seed: int = 0) -> Loop:
    """Random legal play through a PettingZoo AEC env, resumable across slices."""
    env = make_env()
    rng = np.random.default_rng(seed)
    state: dict[str, Any] = {"seed": seed, "iter": None}

    def new_episode() -> Any:
        env.reset(seed=state["seed"])
        state["seed"] += 1
        return iter(env.agent_iter())

    def loop(seconds: float) -> int:
        agents = state["iter"] or new_episode()
        steps = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            for _ in range(200):
                if next(agents, None) is None:
                    agents = new_episode()
                    continue
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
        state["iter"] = agents
        return steps

    return loop


def openspiel_loop(seed: int = 0) -> Loop | None:
    try:
        import pyspiel  # bench extra: open_spiel, the peer when installed
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(seed)
    holder = {"state": game.new_initial_state()}

    def loop(seconds: float) -> int:
        s = holder["state"]
        steps = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            for _ in range(200):
                if s.is_terminal():
                    s = game.new_initial_state()
                if s.is_chance_node():
                    outcomes = s.chance_outcomes()
                    s.apply_action(outcomes[rng.integers(len(outcomes))][0])
                    continue
                player = s.current_player()
                s.observation_tensor(player)
                legal = np.flatnonzero(s.legal_actions_mask(player))
                s.apply_action(int(legal[rng.integers(len(legal))]))
                steps += 1
        holder["state"] = s
        return steps

    return loop


def rlcard_loop(seed: int = 0) -> Loop | None:
    try:
        import rlcard  # bench extra: rlcard, a peer when installed
    except ImportError:
        return None
    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = np.random.default_rng(seed)
    holder: dict[str, Any] = {"state": None}

    def loop(seconds: float) -> int:
        state = holder["state"]
        steps = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            for _ in range(100):
                if state is None or env.is_over():
                    state, _ = env.reset()
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[rng.integers(len(legal))])
                steps += 1
        holder["state"] = state
        return steps

    return loop


def _plain(module: Any) -> Any:
    """``module.raw_env()`` inside PettingZoo's own wrappers, unmodified."""
    return wrap_plain(module.raw_env())


def contenders() -> dict[str, Loop]:
    """Name -> loop, for everything installed."""
    out: dict[str, Loop] = {}
    for short in games.gin_games():  # the gin games: gin_v0, three_handed_gin_v0
        spec = games.get(short)
        name, module = spec.name, spec.module
        out[f"{name} env()"] = aec_loop(module.env)
        out[f"{name} env(), unmodified PettingZoo wrappers"] = aec_loop(partial(_plain, module))
        out[f"{name} raw_env"] = aec_loop(module.raw_env)
    peers = {"OpenSpiel gin_rummy (C++)": openspiel_loop(), "RLCard gin-rummy": rlcard_loop()}
    out.update({name: loop for name, loop in peers.items() if loop is not None})
    return out


def run(seconds: float, rounds: int = 5) -> list[Result]:
    loops = contenders()
    results = {name: Result(name) for name in loops}
    for loop in loops.values():  # warm up: imports, caches, first deals
        loop(0.05)
    for _ in range(rounds):
        for name, loop in loops.items():
            r = results[name]
            c0, w0 = time.process_time(), time.perf_counter()
            r.steps += loop(seconds / rounds)
            r.cpu += time.process_time() - c0
            r.wall += time.perf_counter() - w0
    return list(results.values())


def rummy_agent_steps_per_second(num_players: int, seconds: float = 3.0) -> float:
    """Agent steps per second (wall time) of random legal play over whole hands of
    ``rummy_v0.env()``."""
    env = rummy_v0.env(num_players=num_players)
    rng = np.random.default_rng(0)
    steps = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed)
        seed += 1
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog_name("python -m gin_cli.speed"), description=cli_description(__doc__)
    )
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per contender")
    parser.add_argument("--rounds", type=int, default=5, help="slices each contender runs in")
    parser.add_argument("--no-rummy", action="store_true", help="skip the rummy_v0 figures")
    args = parser.parse_args(argv)
    if not args.seconds > 0 or args.rounds < 1:
        parser.error("--seconds must be > 0 and --rounds >= 1")
    results = run(args.seconds, args.rounds)
    peer = next((r for r in results if r.name.startswith("OpenSpiel")), None)
    print(f"Random legal play, agent-steps/s ({args.seconds:g} CPU s each, {args.rounds} rounds)")
    print(f"{'contender':60} {'per CPU s':>10} {'per wall s':>11} {'vs OpenSpiel':>13}")
    for r in results:
        ratio = f"{r.rate / peer.rate:12.2f}x" if peer is not None and peer.rate else "-"
        print(f"{r.name:60} {r.rate:10,.0f} {r.wall_rate:11,.0f} {ratio:>13}")
    if peer is None:
        print("(OpenSpiel not installed: pip install open_spiel to compare)")
    if not any(r.name.startswith("RLCard") for r in results):
        print("(RLCard not installed: pip install rlcard to compare)")
    if not args.no_rummy:
        print("rummy_v0 env() (per wall s):")
        for n in (2, 4, 6):
            rate = rummy_agent_steps_per_second(n, min(args.seconds, 3.0))
            print(f"  {n} players{'':49} {'':>10} {rate:11,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
