"""sb3-contrib's MaskablePPO: one learner seat in each of many games, the other seats played
by opponents chosen by name, on the project's vector env or through the Gymnasium wrapper.

    python examples/sb3_maskable_ppo.py --timesteps 300000 --num-envs 64
    python examples/sb3_maskable_ppo.py --game three_handed --env gymnasium --num-envs 8
    python examples/sb3_maskable_ppo.py --smoke      # what CI runs: a few seconds

Needs the ``train`` extra (stable-baselines3, sb3-contrib, torch). ``--env vector`` (the
default) is :func:`training.vec_env.make_sb3_vec_env`, an SB3 ``VecEnv`` of games on the
compiled engine whose ``env_method("action_masks")`` gives every game's legal moves, which
is what MaskablePPO reads; ``--env gymnasium`` is ``gymnasium.make("gin_env/Gin-v0")`` (or
``ThreeHandedGin-v0``), one Python env per game in SB3's ``DummyVecEnv``.

While it trains it shows a progress bar (steps, steps per second, time left and the last
point of its learning curve: points per hand against ``--opponents`` on
``--curve-deals`` duplicate deals every ``--curve-every`` steps) and logs SB3's scalars to
TensorBoard (``tensorboard --logdir runs/sb3_maskable_ppo``); ``--quiet``, or output that
is not a terminal, turns the bar off. Before training and after it, the untrained and the
trained policy play the same ``--eval-deals`` duplicate deals of ``--eval-seed`` (a seed
training never saw) against each of ``--eval-opponents``; the script prints both with
95% CIs and the difference, paired by deal. ``--result FILE`` writes it all as JSON.
``--save PATH`` (a ``.zip``) writes the trained model with SB3's own ``model.save`` (plus
a small ``gin_env_meta.json`` naming the game), which ``agents.seat(PATH, table)`` and
``--agents PATH`` seat: its weights are read as tensors only, nothing unpickled
(:func:`agents.trained.load_sb3`), and SB3's ``MaskablePPO.load`` still reads the file.
``--log-dir ""`` writes no TensorBoard logs.

What it learns on two cores: at 100,000 steps (about a minute of training; two cores
shared with other work), two-player gin, the defaults otherwise, measured with

    python examples/sb3_maskable_ppo.py --timesteps 100000 --seed S \\
        --eval-opponents random,simple,heuristic --eval-deals 500 --eval-seed 20261

(``python benchmarks/learning.py run sb3-gin --budget 100000 --seed S``), trained minus
untrained on the same 500 deals, points per hand with 95% CIs:

    seed   against random          against simple          against heuristic (L2)
    0      +44.7 [+43.2, +46.2]    +15.8 [+14.3, +17.4]    +13.8 [+12.3, +15.3]
    1      +20.1 [+18.4, +21.7]     +6.5 [+5.0, +7.9]       +6.7 [+5.4, +8.1]
    2       +1.2 [+0.1, +2.3]       +6.6 [+5.2, +8.1]       +6.2 [+4.7, +7.6]

The trained player itself, against simple: -35.9, -41.3, -43.8 (untrained: about -52).
At this budget it learns on every seed but unevenly; more runs, at 10^6 steps and on the
three-handed game, are in ``results/learning/README.md``.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import VecEnv

import gin_env  # noqa: F401 (registers the gymnasium ids)
from agents.trained import actor_from_sb3, add_sb3_meta
from training.flags import parse_example
from training.periodic_eval import Curve, check_opponents, report_learned
from training.progress import Progress, sb3_callback
from training.vec_env import make_sb3_vec_env

GAMES = {"gin": "gin_env/Gin-v0", "three_handed": "gin_env/ThreeHandedGin-v0"}
ENVS = ("vector", "gymnasium")


@dataclass
class Args:
    game: str = "gin"  # "gin" or "three_handed"
    env: str = "vector"  # "vector" (the compiled engine) or "gymnasium" (gymnasium.make)
    opponents: str = "random"  # any agent name: random, simple, heuristic, tuned
    num_envs: int = 64
    n_steps: int = 32  # steps per game between updates (a batch of num_envs * n_steps)
    timesteps: int = 300_000
    eval_deals: int = 500
    eval_opponents: str = "random,simple"
    eval_seed: int = 10_000
    curve_every: int = 50_000  # steps between points of the learning curve (0: none)
    curve_deals: int = 100
    seed: int = 0
    log_dir: str = "runs/sb3_maskable_ppo"  # TensorBoard ("": none)
    result: str = ""  # a JSON file for the run's figures


def parse_args(argv: list[str] | None = None) -> tuple[Args, bool]:
    smoke = {"num_envs": 8, "n_steps": 32, "timesteps": 512, "eval_deals": 8,
             "curve_every": 256, "curve_deals": 4}  # fmt: skip
    args, _, quiet, _ = parse_example(
        Args, argv, __doc__, choices={"game": list(GAMES), "env": ENVS}, smoke=smoke,
        positive=("num_envs", "n_steps", "timesteps", "eval_deals"),
        check=lambda a: check_opponents(a.game, f"{a.opponents},{a.eval_opponents}"),
    )  # fmt: skip
    return args, quiet


def make_env(args: Args) -> VecEnv:
    """``num_envs`` games, the learner in a random seat of each, a hand per episode."""
    if args.env == "vector":
        return make_sb3_vec_env(
            args.num_envs, args.game, opponents=args.opponents, seed=args.seed, episode="hand"
        )
    kwargs = {"episode": "hand", "opponents": args.opponents}
    return make_vec_env(GAMES[args.game], args.num_envs, seed=args.seed, env_kwargs=kwargs)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args, quiet = parse_args(argv)
    torch.set_num_threads(1)  # a small network: more threads only wait
    env = make_env(args)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=min(256, args.num_envs * args.n_steps),
        seed=args.seed,
        tensorboard_log=args.log_dir or None,
        verbose=0,
    )
    # A copy: the actor's arrays would otherwise share the memory of the weights being trained.
    untrained = copy.deepcopy(actor_from_sb3(model, name="untrained"))

    # -- training, with a progress bar and a learning curve -------------------------------
    progress = Progress(args.timesteps, enabled=not quiet, desc=f"ppo {args.game}", unit="step")
    curve = Curve(args.game, args.opponents, args.curve_deals, args.eval_seed + 1,
                  args.curve_every, progress)  # fmt: skip
    on_step = sb3_callback(progress)

    class CurveCallback(BaseCallback):  # type: ignore[misc]
        def _on_rollout_start(self) -> None:
            if curve.due(self.model.num_timesteps):
                curve.record(actor_from_sb3(self.model), self.model.num_timesteps)

        def _on_step(self) -> bool:
            return True

    start = time.perf_counter()
    model.learn(args.timesteps, callback=[on_step, CurveCallback()])
    seconds = time.perf_counter() - start
    progress.close()
    env.close()
    steps = int(model.num_timesteps)
    curve.record(actor_from_sb3(model), steps)
    print(f"trained {steps} steps in {seconds:.1f} s ({steps / seconds:.0f} steps/s)")

    def save(path: Path) -> None:  # SB3's own zip, read back without its pickles
        model.save(path)
        add_sb3_meta(path, env=args.game, name=path.stem, example="sb3_maskable_ppo",
                     steps=steps, seed=args.seed, opponents=args.opponents)  # fmt: skip

    # -- what it learned: the untrained and the trained policy on the same deals ---------
    return report_learned(
        "sb3_maskable_ppo", args, untrained, actor_from_sb3(model), args.game, steps, seconds,
        curve, save,
    )  # fmt: skip


if __name__ == "__main__":
    main()
