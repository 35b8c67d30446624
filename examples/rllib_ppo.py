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
RLlib's ``ActionMaskingTorchRLModule`` reads. At the end the trained module plays the
captain's seat against opponents seated by name at the same table (``agents.seat``;
``--opponent random`` by default) on fresh hands, through the AEC env, and the script
prints its points per hand with a 95% interval.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

import agents
from gin_env import three_handed_gin_v0
from training.rllib_env import RLlibGinEnv


@dataclass
class Args:
    iterations: int = 50
    batch: int = 4000  # env steps per PPO update
    minibatch: int = 256
    epochs: int = 4
    lr: float = 3e-4
    eval_hands: int = 300
    opponent: str = "random"  # any agent name, seated at the table by agents.seat
    seed: int = 0


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in vars(Args()).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    parser.add_argument("--smoke", action="store_true", help="a tiny run, as CI does")
    ns = parser.parse_args()
    args = Args(**{k: v for k, v in vars(ns).items() if k != "smoke"})
    if ns.smoke:
        args.iterations, args.batch, args.minibatch, args.epochs, args.eval_hands = (
            1,
            256,
            128,
            1,
            10,
        )
    return args


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


def evaluate(module: object, opponent: str, hands: int, seed: int) -> tuple[float, float]:
    """Points per hand of the module's most likely legal move in the captain's seat of
    each hand (the roles turn, so the seat that plays captain is read from the env)
    against ``opponent`` in the other seats, over ``hands`` hands of a seed training never
    saw."""
    env = three_handed_gin_v0.env(episode="hand")
    table = env.unwrapped.config  # the table's rules: opponents are seated with them
    others = {seat: agents.seat(opponent, table) for seat in env.possible_agents}
    rng = np.random.default_rng(seed)
    points = []
    for k in range(hands):
        env.reset(seed=seed + k)
        captain = next(a for a in env.agents if env.infos[a]["role"] == "captain")
        total = 0.0
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if agent == captain:
                total += reward
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"].astype(bool)
            if agent == captain:
                batch = {
                    "obs": {
                        "observations": torch.as_tensor(obs["observation"])[None],
                        "action_mask": torch.as_tensor(mask, dtype=torch.float32)[None],
                    }
                }
                with torch.no_grad():
                    logits = module.forward_inference(batch)["action_dist_inputs"][0].numpy()  # type: ignore[attr-defined]
                action = int(np.argmax(np.where(mask, logits, -np.inf)))
            else:
                action = int(others[agent].act(obs, rng))
            env.step(action)
        points.append(total)
    x = np.array(points)
    return float(x.mean()), 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))


def main() -> None:
    args = parse_args()
    torch.set_num_threads(1)  # small networks: more threads only wait
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    algo = build(args).build_algo()
    for it in range(args.iterations):
        result = algo.train()
        runners = result.get("env_runners", {})
        print(
            f"iteration {it + 1}: {int(runners.get('num_env_steps_sampled_lifetime', 0))} steps, "
            f"{int(runners.get('num_episodes_lifetime', 0))} hands so far"
        )
    module = algo.get_module("main")
    mean, half = evaluate(module, args.opponent, args.eval_hands, seed=args.seed + 10_000)
    print(
        f"points per hand as captain against {args.opponent}: {mean:+.2f} +/- {half:.2f} "
        f"(95% CI, {args.eval_hands} hands)"
    )
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
