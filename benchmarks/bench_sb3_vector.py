"""MaskablePPO's learner decisions per second: the batched-engine VecEnv against today's
DummyVecEnv path, same network and PPO settings, side by side in one run.

- today: ``training.train_ppo._make_vec_env`` (``DummyVecEnv`` of ``LeagueEnv`` over the AEC
  env, one-hand episodes, the opponent drawn from a league of one fixed agent);
- vector: ``training.vec_env.make_sb3_vec_env`` (:class:`agents.vector.LearnerVectorEnv` on
  :class:`gin_env.vector.VectorGinEnv`, the opponents batched: ``simple`` over numpy,
  ``heuristic`` row by row).

Both train ``MlpPolicy`` with ``--net-arch`` for ``--steps`` learner decisions; the rate is
decisions per second of ``learn()`` (wall time and this process's CPU time), the engine
compiled beforehand (a warm-up call). Also printed: the VecEnvs alone (random legal learner
moves, no network), and the cost per row of the batched opponents (``simple`` batched vs
per game, ``heuristic`` per row), which bounds a table.

Run ``python benchmarks/bench_sb3_vector.py`` (``--steps 4096 --n-envs 16 --opponents
simple,heuristic``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import make  # noqa: E402
from agents.batched import BatchedSimple, PerRow  # noqa: E402
from gin_env import games  # noqa: E402
from gin_env.vector import VectorGinEnv  # noqa: E402
from training.league import League  # noqa: E402
from training.vec_env import make_sb3_vec_env  # noqa: E402


def _today(game: str, opponent: str, n_envs: int, seed: int) -> object:
    from training.train_ppo import Args, make_vec_env  # train extra: the PPO trainer

    args = Args(env=game, n_envs=n_envs, vec="dummy", reward_scale=0.01)
    league = League(fixed=(opponent,), max_snapshots=0, seed=seed, table=games.get(game).table())
    return make_vec_env(args, league, seed)


def _vector(game: str, opponent: str, n_envs: int, seed: int) -> object:
    return make_sb3_vec_env(
        n_envs, game, opponents=opponent, seed=seed, episode="hand", reward_scale=0.01
    )


def _learn(vec: object, steps: int, args: argparse.Namespace) -> tuple[float, float]:
    import torch  # train extra: torch
    from sb3_contrib import MaskablePPO  # train extra: sb3-contrib

    torch.set_num_threads(1)
    arch = [int(x) for x in args.net_arch.split(",")]
    model = MaskablePPO(
        "MlpPolicy", vec, n_steps=args.n_steps, batch_size=args.batch_size,
        n_epochs=args.n_epochs, policy_kwargs={"net_arch": {"pi": arch, "vf": arch}},
        seed=0, device="cpu", verbose=0,
    )  # fmt: skip
    wall, cpu = time.perf_counter(), time.process_time()
    model.learn(steps)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return model.num_timesteps / wall, model.num_timesteps / cpu


def _env_only(vec: object, steps: int) -> float:
    """Learner decisions per CPU second of the VecEnv alone (random legal learner moves)."""
    from sb3_contrib.common.maskable.utils import get_action_masks  # train extra: sb3-contrib

    rng = np.random.default_rng(0)
    vec.reset()  # type: ignore[attr-defined]
    n = vec.num_envs  # type: ignore[attr-defined]
    done = 0
    cpu = time.process_time()
    while done < steps:
        masks = get_action_masks(vec)  # type: ignore[arg-type]
        k = (rng.random(n) * masks.sum(axis=1)).astype(np.int64)
        acts = np.argmax(masks.cumsum(axis=1) > k[:, None], axis=1)
        vec.step(acts)  # type: ignore[attr-defined]
        done += n
    return done / (time.process_time() - cpu)


def _opponent_costs(game: str) -> None:
    env = VectorGinEnv(256, game, seed=1)
    out = env.reset()
    rng = np.random.default_rng(0)
    obs, masks = [], []
    for _ in range(8):  # positions from a few moves in
        obs.append(out["observation"].copy())
        masks.append(out["action_mask"].copy())
        legal = [rng.choice(np.flatnonzero(m)) for m in out["action_mask"]]
        out = env.step(np.asarray(legal))
    o, m = np.concatenate(obs), np.concatenate(masks)
    rows = {
        "simple, batched (BatchedSimple)": (BatchedSimple(), len(o)),
        "simple, per game (SimpleAgent.act)": (PerRow(make("simple")), 400),
        "heuristic, per row (HeuristicAgent.act)": (PerRow(make("heuristic")), 200),
    }
    print(f"\nopponent cost per decision ({game}, positions of random play):")
    for name, (policy, n) in rows.items():
        policy.act(o[:8], m[:8])
        t = time.perf_counter()
        policy.act(o[:n], m[:n])
        print(f"  {name:42s} {(time.perf_counter() - t) / n * 1e6:9.1f} us")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="gin", choices=("gin", "three_handed"))
    p.add_argument("--steps", type=int, default=4096, help="learner decisions per run")
    p.add_argument("--n-envs", type=int, default=16, help="games (SB3 envs) side by side")
    p.add_argument("--vector-n-envs", type=int, default=64, help="also the vector env at this N")
    p.add_argument("--opponents", default="simple,heuristic")
    p.add_argument("--net-arch", default="256,256")
    p.add_argument("--n-steps", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--n-epochs", type=int, default=4)
    args = p.parse_args()
    if args.steps < 1 or args.n_envs < 1 or args.vector_n_envs < 1:
        p.error("--steps, --n-envs and --vector-n-envs must be >= 1")

    # Warm-up: the engine's kernels compiled (or loaded from numba's cache) before timing.
    warm = _vector(args.game, "random", 2, 0)
    warm.reset()  # type: ignore[attr-defined]
    print(
        f"MaskablePPO.learn, {args.game}, net {args.net_arch}, n_steps {args.n_steps}, "
        f"batch {args.batch_size}, epochs {args.n_epochs}, {args.steps} decisions a run"
    )
    print(f"{'opponent':10s} {'path':28s} {'dec/s wall':>11s} {'dec/s CPU':>10s} {'ratio':>7s}")
    for opp in args.opponents.split(","):
        base_wall, base_cpu = _learn(_today(args.game, opp, args.n_envs, 0), args.steps, args)
        print(f"{opp:10s} {'today: DummyVecEnv N=' + str(args.n_envs):28s} "
              f"{base_wall:11.0f} {base_cpu:10.0f} {1.0:7.2f}")  # fmt: skip
        for n in dict.fromkeys((args.n_envs, args.vector_n_envs)):
            wall, cpu = _learn(_vector(args.game, opp, n, 0), args.steps, args)
            print(f"{opp:10s} {'vector: LearnerVectorEnv N=' + str(n):28s} "
                  f"{wall:11.0f} {cpu:10.0f} {cpu / base_cpu:7.2f}")  # fmt: skip
    print(f"\nthe VecEnv alone (random legal learner moves, {args.steps} decisions), dec/s CPU:")
    for opp in args.opponents.split(","):
        base = _env_only(_today(args.game, opp, args.n_envs, 0), args.steps)
        line = f"  {opp:10s} today N={args.n_envs}: {base:8.0f}"
        for n in dict.fromkeys((args.n_envs, args.vector_n_envs)):
            rate = _env_only(_vector(args.game, opp, n, 0), args.steps)
            line += f"   vector N={n}: {rate:8.0f} ({rate / base:.2f}x)"
        print(line)
    _opponent_costs(args.game)
    print("\nratio: vector CPU rate / today's CPU rate for the same opponent")


if __name__ == "__main__":
    main()
