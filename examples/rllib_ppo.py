"""Ray RLlib: multi-agent PPO on the three-handed game with RLlib's action-masking module,
one shared policy for the box, the captain and the adviser (self-play), on RLlib's new API
stack.

    python examples/rllib_ppo.py --iterations 50
    python examples/rllib_ppo.py --smoke      # what CI runs: under a minute

Needs the ``rllib`` extra in its own venv (ray pins a gymnasium older than the core
install's): ``make test-rllib`` makes ``.venv-rllib`` and runs this script there. The full
trainer, with a policy per role, self-play snapshots, checkpoints and a cluster, is
``python -m training.rllib_train`` (see the RLlib page); this is the shortest loop.

:class:`training.rllib_env.RLlibGinEnv` is the env: agent ids are roles (a player's role
turns from hand to hand, and RLlib maps an agent to one module per episode), only the role
to act observes, and observations are ``{"observations", "action_mask"}``, the keys
RLlib's ``ActionMaskingTorchRLModule`` reads.

While it trains it shows a progress bar (env steps, steps per second, time left and the
last point of its learning curve: points per hand against ``random`` on ``--curve-deals``
deals every ``--curve-every`` steps) with each iteration's line above it; ``--quiet``, or
output that is not a terminal, turns the bar off (RLlib writes its own TensorBoard files
under ``~/ray_results``). Before training and after it, the untrained and the trained
module (its most likely legal move) play the same ``--eval-deals`` deals of
``--eval-seed`` through the AEC env, each deal three times with the module once in each
role (box, captain, adviser) and each of ``--eval-opponents`` in the other two; the script
prints both with 95% CIs and the difference, paired by deal. ``--result FILE`` writes it
all as JSON. ``--save PATH`` (a ``.zip``) writes the trained module's actor (RLlib's default
MLP and its linear action head, :func:`agents.rllib_agent.module_to_mlp`) as the project's
actor zip, after checking that it plays the module's own moves
(:mod:`training.player_files`): ``agents.seat(PATH, table)`` and ``--agents PATH`` seat it
with numpy alone, without ray or torch.

What it learns on two cores, measured: at 100,000 env steps (25 iterations of 4,000; 7
minutes of training on a machine running two other jobs), with

    python examples/rllib_ppo.py --iterations 25 --seed 0 \\
        --eval-opponents random,simple,heuristic --eval-deals 300 --eval-seed 20261 \\
        --result results/learning/examples/rllib_three_steps100000_seed0.json

trained minus untrained on the same 300 deals (each in the three roles), points per hand:
+4.45 [+3.19, +5.71] against simple and +4.05 [+2.83, +5.26] against heuristic; against
random -0.23 [-0.93, +0.48], level (the trained player itself: -28.3 against simple). One
seed: what another reaches at this budget is not measured.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from agents.rllib_agent import module_to_mlp
from training.flags import parse_example, save_path
from training.periodic_eval import Curve, check_opponents, report_learned
from training.player_files import check_savable, save_player
from training.progress import Progress
from training.rllib_env import RLlibGinEnv


@dataclass
class Args:
    iterations: int = 50
    batch: int = 4000  # env steps per PPO update
    minibatch: int = 256
    epochs: int = 4
    lr: float = 3e-4
    eval_deals: int = 300
    eval_opponents: str = "random,simple"  # agent names, seated at the table by agents.seat
    eval_seed: int = 10_000
    curve_every: int = 20_000  # env steps between points of the learning curve (0: none)
    curve_deals: int = 50
    seed: int = 0
    result: str = ""  # a JSON file for the run's figures


def parse_args(argv: list[str] | None = None) -> tuple[Args, bool]:
    smoke = {"iterations": 1, "batch": 256, "minibatch": 128, "epochs": 1, "eval_deals": 4,
             "curve_every": 256, "curve_deals": 2}  # fmt: skip
    args, _, quiet, _ = parse_example(
        Args, argv, __doc__, smoke=smoke,
        positive=("iterations", "batch", "minibatch", "epochs", "lr", "eval_deals"),
        check=lambda a: check_opponents("three_handed", a.eval_opponents),
    )  # fmt: skip
    return args, quiet


def build(args: Args) -> PPOConfig:
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [128, 128]}
    )
    return (
        PPOConfig()
        # RLlib's env pre-check steps with unmasked random actions, which the env refuses.
        .environment(
            RLlibGinEnv,
            env_config={"game": "three_handed", "episode": "hand", "reward_scale": 0.01},
            disable_env_checking=True,
        )
        .env_runners(num_env_runners=0)  # sample in this process
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=args.lr,
        )
        .multi_agent(policies={"main"}, policy_mapping_fn=lambda agent_id, *a, **k: "main")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"main": module}))
        .debugging(seed=args.seed)
    )


class ModulePlayer:
    """The RLlib module as a player of the project's agents (``act(observation, rng)``):
    the legal move of highest logit."""

    def __init__(self, module: Any, name: str) -> None:
        self.module, self.name = module, name

    def act(self, observation: dict[str, Any], rng: Any = None) -> int:
        mask = np.asarray(observation["action_mask"]).astype(bool)
        batch = {
            "obs": {
                "observations": torch.as_tensor(observation["observation"])[None],
                "action_mask": torch.as_tensor(mask, dtype=torch.float32)[None],
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        return int(np.argmax(np.where(mask, logits, -np.inf)))


def main(argv: list[str] | None = None) -> None:
    args, quiet = parse_args(argv)
    torch.set_num_threads(1)  # small networks: more threads only wait
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    algo = build(args).build_algo()
    untrained = ModulePlayer(copy.deepcopy(algo.get_module("main")), "untrained")
    if save_path(args):  # a module --save cannot write is refused before any training
        check_savable(lambda: module_to_mlp(untrained.module, "rllib"), untrained, "three_handed")
    progress = Progress(args.iterations * args.batch, enabled=not quiet, desc="ppo three-handed",
                        unit="step")  # fmt: skip
    curve = Curve("three_handed", "random", args.curve_deals, args.eval_seed + 1,
                  args.curve_every, progress)  # fmt: skip
    curve.record(ModulePlayer(algo.get_module("main"), "rllib"), 0)
    done = 0
    start = time.perf_counter()
    for it in range(args.iterations):
        result = algo.train()
        runners = result.get("env_runners", {})
        steps = int(runners.get("num_env_steps_sampled_lifetime", 0))
        progress.update(max(0, steps - done))
        done = max(done, steps)
        progress.write(
            f"iteration {it + 1}: {steps} steps, "
            f"{int(runners.get('num_episodes_lifetime', 0))} hands so far"
        )
        if curve.due(done):
            curve.record(ModulePlayer(algo.get_module("main"), "rllib"), done)
    seconds = time.perf_counter() - start
    progress.close()
    trained = ModulePlayer(algo.get_module("main"), "rllib")
    curve.close(trained, done)
    print(f"trained {done} env steps in {seconds:.1f} s")

    def save(path: Path) -> None:  # the module's actor as an actor zip, checked move for move
        actor = module_to_mlp(trained.module, path.stem, example="rllib_ppo", steps=done,
                              seed=args.seed)  # fmt: skip
        save_player(path, actor, trained, "three_handed")

    report_learned(
        "rllib_ppo", args, untrained, trained, "three_handed", done, seconds, curve, save
    )
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
