"""sb3-contrib's MaskablePPO on the project's vector env: one learner seat in each of many
games on the compiled engine, the other seats played by opponents chosen by name.

    python examples/sb3_maskable_ppo.py --timesteps 200000 --num-envs 64
    python examples/sb3_maskable_ppo.py --smoke      # what CI runs: a few seconds

Needs the ``train`` extra (stable-baselines3, sb3-contrib, torch). The vector env
(:func:`training.vec_env.make_sb3_vec_env`) is an SB3 ``VecEnv`` whose
``env_method("action_masks")`` gives every game's legal moves, which is what MaskablePPO
reads; no per-env wrapper is needed. At the end the learner plays fresh games against the
same opponents and the script prints its points per game with a 95% interval.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks

from training.vec_env import make_sb3_vec_env


@dataclass
class Args:
    game: str = "gin"  # "gin" or "three_handed"
    opponents: str = "random"  # any agent name: random, simple, heuristic, tuned
    num_envs: int = 64
    n_steps: int = 32  # steps per game between updates (a batch of num_envs * n_steps)
    timesteps: int = 200_000
    eval_games: int = 500
    seed: int = 0


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in vars(Args()).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    parser.add_argument("--smoke", action="store_true", help="a tiny run, as CI does")
    ns = parser.parse_args()
    args = Args(**{k: v for k, v in vars(ns).items() if k != "smoke"})
    if ns.smoke:
        args.num_envs, args.n_steps, args.timesteps, args.eval_games = 8, 32, 512, 16
    return args


def evaluate(model: MaskablePPO, args: Args) -> tuple[float, float, int]:
    """The learner's mean points per game over ``args.eval_games`` fresh games (a seed the
    training never saw) and the half-width of its 95% interval."""
    env = make_sb3_vec_env(
        args.num_envs, args.game, opponents=args.opponents, seed=args.seed + 10_000, episode="hand"
    )
    obs = np.asarray(env.reset())
    returns: list[float] = []
    running = np.zeros(args.num_envs)
    while len(returns) < args.eval_games:
        actions, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
        step_obs, rewards, dones, _ = env.step(actions)
        obs = np.asarray(step_obs)
        running += rewards
        for i in np.flatnonzero(dones):
            returns.append(float(running[i]))
            running[i] = 0.0
    env.close()
    x = np.array(returns[: args.eval_games])
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else math.inf
    return float(x.mean()), float(half), len(x)


def main() -> None:
    args = parse_args()
    # -- the vector env: N games, the learner in a random seat of each -------------------
    env = make_sb3_vec_env(
        args.num_envs, args.game, opponents=args.opponents, seed=args.seed, episode="hand"
    )
    # -- the learner ---------------------------------------------------------------------
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=min(256, args.num_envs * args.n_steps),
        seed=args.seed,
        verbose=0,
    )
    start = time.perf_counter()
    model.learn(args.timesteps)
    seconds = time.perf_counter() - start
    env.close()
    print(f"trained {model.num_timesteps} steps in {seconds:.1f} s")
    # -- what it learned: fresh games against the same opponents ------------------------
    mean, half, n = evaluate(model, args)
    print(
        f"points per game against {args.opponents}: {mean:+.2f} +/- {half:.2f} (95% CI, {n} games)"
    )


if __name__ == "__main__":
    main()
