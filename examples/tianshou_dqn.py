"""Tianshou 2: a DQN player learns two-player gin against a random player, with Tianshou's
own multi-agent loop (``PettingZooEnv``, ``MultiAgentOffPolicyAlgorithm``, collectors, the
off-policy trainer), in its 2.0 API.

    python examples/tianshou_dqn.py --epochs 20
    python examples/tianshou_dqn.py --smoke      # what CI runs: a few seconds

Needs the ``tianshou`` extra (tianshou 2.0.1). Tianshou 2 renamed its parts: policies
(``tianshou.policy`` in 1.x and in PettingZoo's tutorial) are now algorithms in
``tianshou.algorithm`` (``DQN`` around a ``DiscreteQLearningPolicy``;
``MultiAgentOffPolicyAlgorithm`` in place of ``MultiAgentPolicyManager``), and training
runs by ``algorithm.run_training(OffPolicyTrainerParams(...))``.

Tianshou's ``PettingZooEnv`` passes the action mask as ``obs.mask``, which the DQN policy
and the random player both honour. The env is ``gin_v0`` with a hand per episode, so a
player's return is its points in that hand. At the end the learned player meets the
random one on fresh hands and the script prints its points per hand with a 95% interval.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from gin_env import gin_v0
from gin_env.actions import NUM_ACTIONS
from gin_env.encoding import OBS_SIZE

LEARNER = "player_0"  # the DQN seat; player_1 plays at random


@dataclass
class Args:
    epochs: int = 20
    steps_per_epoch: int = 10_000
    steps_per_collect: int = 100
    num_envs: int = 8
    buffer: int = 50_000
    batch: int = 64
    lr: float = 1e-4
    gamma: float = 0.99
    eps_train: float = 0.1
    eval_hands: int = 200
    seed: int = 0


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in vars(Args()).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    parser.add_argument("--smoke", action="store_true", help="a tiny run, as CI does")
    ns = parser.parse_args()
    args = Args(**{k: v for k, v in vars(ns).items() if k != "smoke"})
    if ns.smoke:
        args.epochs, args.steps_per_epoch, args.num_envs, args.eval_hands = 1, 400, 2, 10
        args.buffer = 2_000
    return args


def make_env() -> PettingZooEnv:
    return PettingZooEnv(gin_v0.env(episode="hand", infos="numeric"))


def make_algorithm(args: Args, env: PettingZooEnv) -> MultiAgentOffPolicyAlgorithm:
    net = Net(state_shape=OBS_SIZE, action_shape=NUM_ACTIONS, hidden_sizes=[256, 256])
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=args.eps_train, eps_inference=0.0
    )
    dqn = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=args.lr),
        gamma=args.gamma,
        n_step_return_horizon=1,
        target_update_freq=320,
    )
    random_player = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    seats = {LEARNER: dqn, "player_1": random_player}
    return MultiAgentOffPolicyAlgorithm(algorithms=[seats[a] for a in env.agents], env=env)


def main() -> None:
    args = parse_args()
    np.random.seed(args.seed)  # Tianshou's random player and epsilon draw from numpy's global rng
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # a small network: more threads only wait
    env = make_env()
    algorithm = make_algorithm(args, env)
    agents = env.agents

    # -- collectors: a learner's replay buffer over parallel copies of the env -----------
    train_envs = DummyVectorEnv([make_env for _ in range(args.num_envs)])
    test_envs = DummyVectorEnv([make_env for _ in range(args.num_envs)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 10_000)
    buffer = VectorReplayBuffer(args.buffer, len(train_envs))
    train_collector: Collector = Collector(algorithm, train_envs, buffer, exploration_noise=True)
    test_collector: Collector = Collector(algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=args.batch * args.num_envs)  # fill the buffer a little

    # -- training: Tianshou's off-policy trainer ------------------------------------------
    learner_index = agents.index(LEARNER)
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.steps_per_epoch,
            collection_step_num_env_steps=args.steps_per_collect,
            test_step_num_episodes=args.num_envs,
            batch_size=args.batch,
            update_step_num_gradient_steps_per_sample=0.1,
            # the test score: the learner's return (its points in the hand)
            multi_agent_return_reduction=lambda r: r[:, learner_index],
            show_progress=False,
        )
    )
    print(f"trained {result.timing.total_time:.1f} s; best test return {result.best_score:+.2f}")

    # -- what it learned: fresh hands against the random player ---------------------------
    eval_envs = DummyVectorEnv([make_env for _ in range(args.num_envs)])
    eval_envs.seed(args.seed + 20_000)
    evaluator: Collector = Collector(algorithm, eval_envs)
    evaluator.reset()
    stats = evaluator.collect(n_episode=args.eval_hands)
    points = np.asarray(stats.returns)[:, learner_index]
    half = 1.96 * points.std(ddof=1) / math.sqrt(len(points))
    print(
        f"points per hand as {LEARNER} against a random player: {points.mean():+.2f} +/- "
        f"{half:.2f} (95% CI, {len(points)} hands)"
    )


if __name__ == "__main__":
    main()
