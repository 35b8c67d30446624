"""Speed of the batched engine (``VectorGinEnv``) against OpenSpiel's gin_rummy, in one run.

Every contender plays uniform random legal moves, and every agent step produces what a
training loop needs: the observation and the action mask of the seat to act.

- ``VectorGinEnv(N, game)`` with the compiled backend (``numba``) at N = 1, 64, 1024, 4096
  for ``gin`` and ``three_handed`` (default options: whole matches to 100, the adviser's turns
  in three-handed gin count as agent steps). One ``step`` is N agent steps. The random choice
  over the masks is a small compiled function (a numpy choice over ``[N, 109]`` would cost
  about as much as the engine itself); it is timed with the engine.
- The Python reference backend at N = 64, for scale.
- OpenSpiel's C++ ``gin_rummy`` through pyspiel (``benchmarks/bench_env.py``'s loop):
  ``observation_tensor``, ``legal_actions_mask``, the choice, ``apply_action``; chance nodes
  (the deal) are not counted.

Rates are agent steps per second of this process's CPU time (``time.process_time``; the
engine runs on one thread, so that is per core); the wall-time rate is printed beside. The
contenders take turns in short slices (``--rounds``) so that load changes hit all alike.
Then the cost of the research encodings at N = 1024, both games: steps/s with the global
state (``state()`` after every step), with the move history (``observation="history"``:
``[N, 64, 63]`` more per step) and with both, as a ratio to plain steps.

Also printed: the memory of N = 4096 games (the engine's arrays, and the process's resident
memory before and after making it), and the first-call compile time (a fresh numba cache)
against a cached start, each measured in a new Python process.

Run ``python benchmarks/bench_vector.py --seconds 2``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gin_env import fast_game  # noqa: E402
from gin_env.vector import VectorGinEnv  # noqa: E402

#: A contender runs for about ``seconds`` of CPU time and returns its agent steps.
Loop = Callable[[float], int]
SIZES = (1, 64, 1024, 4096)


@numba.njit(cache=True)
def random_legal(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: the ``floor(u[i] * k)``-th of the ``k`` legal ids of row ``i``."""
    for i in range(mask.shape[0]):
        k = 0
        for a in range(mask.shape[1]):
            k += mask[i, a]
        pick = int(u[i] * k)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1


def vector_loop(
    num_envs: int,
    game: str,
    backend: str = "numba",
    seed: int = 0,
    threads: int = 1,
    observation: str = "flat",
    state: bool = False,
) -> Loop:
    """``threads`` > 1: numba's threads share each step (``fast_game.PARALLEL_MIN_ENVS``);
    ``observation="history"`` adds the move history to every step's outputs, ``state`` a
    ``state()`` call after every step."""
    env = VectorGinEnv(num_envs, game, seed=seed, backend=backend, observation=observation)
    rng = np.random.default_rng(seed)
    actions = np.zeros(num_envs, np.int64)
    holder = {"out": env.reset()}

    def loop(seconds: float) -> int:
        out = holder["out"]
        steps = 0
        numba.set_num_threads(threads)
        fast_game.PARALLEL_MIN_ENVS = None if threads == 1 else 1
        clock = time.process_time if threads == 1 else time.perf_counter
        deadline = clock() + seconds
        while clock() < deadline:
            for _ in range(max(1, 2048 // num_envs)):
                random_legal(out["action_mask"], rng.random(num_envs), actions)
                out = env.step(actions)
                if state:
                    env.state()
                steps += num_envs
        numba.set_num_threads(1)
        fast_game.PARALLEL_MIN_ENVS = None
        holder["out"] = out
        return steps

    return loop


def _bench_env_module():  # type: ignore[no-untyped-def]
    path = Path(__file__).resolve().parent / "bench_env.py"
    spec = importlib.util.spec_from_file_location("bench_env", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def contenders(sizes: tuple[int, ...]) -> dict[str, Loop]:
    out: dict[str, Loop] = {}
    peer = _bench_env_module().openspiel_loop()
    if peer is not None:
        out["OpenSpiel gin_rummy (C++, pyspiel)"] = peer
    for game in ("gin", "three_handed"):
        for n in sizes:
            out[f"VectorGinEnv {game:12} numba  N={n}"] = vector_loop(n, game)
        out[f"VectorGinEnv {game:12} python N=64"] = vector_loop(64, game, "python")
    if numba.config.NUMBA_NUM_THREADS > 1:
        for n in (1024, 4096):
            name = f"VectorGinEnv gin          numba  N={n}, 2 threads"
            out[name] = vector_loop(n, "gin", threads=2)
    return out


ENCODINGS = {
    "plain": {},
    "+ state()": {"state": True},
    "history": {"observation": "history"},
    "history + state()": {"observation": "history", "state": True},
}


def encoding_contenders(num_envs: int = 1024) -> dict[str, Loop]:
    return {
        f"{game:12} {name}": vector_loop(num_envs, game, **kwargs)  # type: ignore[arg-type]
        for game in ("gin", "three_handed")
        for name, kwargs in ENCODINGS.items()
    }


def encodings_report(seconds: float, rounds: int, num_envs: int = 1024) -> str:
    """Steps/s of ``num_envs`` games with the state and the history, beside plain steps."""
    results = run(seconds, rounds, loops=encoding_contenders(num_envs))
    lines = [
        f"State and history cost, N={num_envs}, random legal play, agent-steps/s (one thread)",
        f"{'game, outputs':32} {'per CPU s':>11} {'per wall s':>11} {'vs plain':>9}",
    ]
    plain = 0.0
    for name, steps, cpu, wall in results:
        rate = steps / cpu if cpu else 0.0
        if name.endswith("plain"):
            plain = rate
        ratio = rate / plain if plain else 0.0
        lines.append(f"{name:32} {rate:11,.0f} {steps / wall if wall else 0:11,.0f} {ratio:8.2f}x")
    return "\n".join(lines)


def run(
    seconds: float,
    rounds: int,
    sizes: tuple[int, ...] = SIZES,
    loops: dict[str, Loop] | None = None,
) -> list[tuple[str, int, float, float]]:
    loops = contenders(sizes) if loops is None else loops
    totals = {name: [0, 0.0, 0.0] for name in loops}
    for loop in loops.values():  # warm up: compile, caches, first deals
        loop(0.05)
    for _ in range(rounds):
        for name, loop in loops.items():
            c0, w0 = time.process_time(), time.perf_counter()
            steps = loop(seconds / rounds)
            t = totals[name]
            t[0] += steps
            t[1] += time.process_time() - c0
            t[2] += time.perf_counter() - w0
    return [(name, int(s), c, w) for name, (s, c, w) in totals.items()]


_MEMORY_PROBE = """
import numpy as np
from gin_env.vector import VectorGinEnv

def rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))

small = VectorGinEnv(1, "three_handed", seed=0)
small.reset()
before = rss()
env = VectorGinEnv(N, "three_handed", seed=0)
out = env.reset()
for _ in range(50):
    out = env.step(np.argmax(out["action_mask"], axis=1))
after = rss()
e = env._impl
state = sum(a.nbytes for a in (e.state, e.deck, e.pile, e.next_deck, e.ep_order, e.ep_deck0,
                               e.ep_deck1, e.log))
outputs = sum(a.nbytes for a in out.values())
print(state, outputs, before, after)
"""


def memory_report(num_envs: int = 4096) -> str:
    """Arrays and resident memory of ``num_envs`` three-handed games, in a new process (after
    the imports and compiled code are loaded: ``before`` holds a one-game env)."""
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY_PROBE.replace("N,", f"{num_envs},")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    state, outputs, before, after = map(int, done.stdout.split())
    mib = 2**20
    return (
        f"memory, N={num_envs} three-handed games: state arrays {state / mib:.1f} MiB "
        f"({state // num_envs} bytes a game), one step's outputs {outputs / mib:.1f} MiB; "
        f"process RSS {before / mib:.0f} MiB -> {after / mib:.0f} MiB "
        f"(+{(after - before) / mib:.0f} MiB: arrays, outputs, numpy generators of each slot)"
    )


_COMPILE_PROBE = """
import time
t0 = time.perf_counter()
import numpy as np
from gin_env.vector import VectorGinEnv
env = VectorGinEnv(8, "three_handed", seed=0)
out = env.reset()
for _ in range(200):
    out = env.step(np.argmax(out["action_mask"], axis=1))
env = VectorGinEnv(8, "gin", seed=0)
out = env.reset()
for _ in range(200):
    out = env.step(np.argmax(out["action_mask"], axis=1))
print(time.perf_counter() - t0)
"""


def compile_report() -> str:
    """Import + first steps of both games in a new process: with an empty numba cache (the
    first call compiles) and again with the cache it left."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        times = []
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-c", _COMPILE_PROBE],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            times.append(float(done.stdout.strip().splitlines()[-1]))
    return (
        f"start-up (import, make, reset, 200 steps of each game, new process): "
        f"first call (compiling) {times[0]:.1f} s, cached {times[1]:.1f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=sys.argv[0], description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per contender")
    parser.add_argument("--rounds", type=int, default=4, help="slices each contender runs in")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile timing")
    parser.add_argument(
        "--only-encodings", action="store_true", help="only the state / history cost table"
    )
    args = parser.parse_args(argv)
    if not args.seconds > 0 or args.rounds < 1:
        parser.error("--seconds must be > 0 and --rounds >= 1")
    numba.set_num_threads(1)
    if args.only_encodings:
        print(encodings_report(args.seconds, args.rounds))
        return 0
    results = run(args.seconds, args.rounds, SIZES)
    peer = next((r for r in results if r[0].startswith("OpenSpiel")), None)
    peer_rate = peer[1] / peer[2] if peer is not None and peer[2] else 0.0
    print(f"Random legal play, observation + mask of the seat to act, agent-steps/s "
          f"({args.seconds:g} CPU s each, {args.rounds} rounds, one thread)")  # fmt: skip
    print(f"{'contender':48} {'per CPU s':>11} {'per wall s':>11} {'vs OpenSpiel':>13}")
    for name, steps, cpu, wall in results:
        rate = steps / cpu if cpu else 0.0
        ratio = f"{rate / peer_rate:12.1f}x" if peer_rate else "-"
        print(f"{name:48} {rate:11,.0f} {steps / wall if wall else 0:11,.0f} {ratio:>13}")
    if peer is None:
        print("(OpenSpiel not installed: pip install open_spiel to compare)")
    print(encodings_report(args.seconds, args.rounds))
    print(memory_report())
    if not args.no_compile:
        print(compile_report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
