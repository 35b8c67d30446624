"""Tianshou 2: a DQN player learns two-player gin, in Tianshou's 2.0 API (``DQN`` around a
``DiscreteQLearningPolicy``, collectors, the off-policy trainer), by either of Tianshou's
loops (``--loop``):

- ``single`` (the default): the learner's seat of ``gymnasium.make("gin_env/Gin-v0",
  opponents=...)``, the other seat played inside the env by ``--opponent`` (any agent
  name); every point of the hand reaches the learner's last transition;
- ``marl``: Tianshou's own multi-agent loop (``PettingZooEnv`` around ``gin_v0``,
  ``MultiAgentOffPolicyAlgorithm``), the DQN in one seat and Tianshou's random player in
  the other. That loop stores each step's rewards with the transition of the seat that
  moved, so when the random player's move ends the hand (his knock or gin) the learner's
  points are never in its own transitions, and its ``obs_next`` is the other seat's view:
  it is here to show the route, not to learn (``--opponent`` must be ``random``).

    python examples/tianshou_dqn.py --steps 1000000   # the budget at which it learns (below)
    python examples/tianshou_dqn.py --loop marl --steps 200000
    python examples/tianshou_dqn.py --smoke      # what CI runs: a few seconds

Needs the ``tianshou`` extra (tianshou 2.0.1). Tianshou 2 renamed its parts: policies
(``tianshou.policy`` in 1.x and in PettingZoo's tutorial) are now algorithms in
``tianshou.algorithm`` (``DQN`` around a ``DiscreteQLearningPolicy``;
``MultiAgentOffPolicyAlgorithm`` in place of ``MultiAgentPolicyManager``), and training
runs by ``algorithm.run_training(OffPolicyTrainerParams(...))``.

Tianshou's DQN honours an action mask given as ``obs.mask`` beside ``obs.obs``: the
multi-agent ``PettingZooEnv`` passes it so, and :class:`MaskedObservation` gives the
single-agent env's observation that shape. A hand is an episode, and the learner's
rewards are its points in the hand times ``--reward-scale`` (Q values near 1, where Adam's
step size suits them); every figure printed is in points. ``--steps`` counts env steps:
the learner's decisions in the single loop, either seat's in the multi-agent one.

While it trains it shows a progress bar (env steps, steps per second, time left and the
last point of its learning curve: points per hand against ``random`` on ``--curve-deals``
duplicate deals every ``--curve-every`` steps) and logs Tianshou's scalars to TensorBoard
(``tensorboard --logdir runs/tianshou_dqn``); ``--quiet``, or output that is not a
terminal, turns the bar off. Before training and after it, the untrained and the trained
Q network (its best legal move) play the same ``--eval-deals`` duplicate deals of
``--eval-seed`` against each of ``--eval-opponents``; the script prints both with 95% CIs
and the difference, paired by deal. ``--result FILE`` writes it all as JSON.
``--save PATH`` (a ``.zip``) writes the trained Q network (Tianshou's ``Net``, an MLP) as
the project's actor zip, its greedy legal move the player's, after checking that it plays
the network's own moves (:mod:`training.player_files`; a network it cannot read is refused
before training): ``agents.seat(PATH, table)`` and ``--agents PATH`` seat it with numpy
alone.

What it learns on two cores, measured (``python benchmarks/learning.py run
tianshou-dqn-gin --budget B --seed S``, which runs

    python examples/tianshou_dqn.py --steps B --seed S \\
        --eval-opponents random,simple,heuristic --eval-deals 500 --eval-seed 20261

), trained minus untrained on the same 500 deals, points per hand:

- at 1,000,000 steps (56 and 64 minutes of training on a machine running two other
  jobs): against simple +14.74 [+13.32, +16.17] and +15.94 [+14.51, +17.38] on seeds 0
  and 1, against heuristic +12.01 and +13.79, against random +47.77 and +42.86; the
  trained player itself makes +48.6 and +42.8 a hand against random, -30.0 and -30.5
  against simple;
- at 100,000 steps (4 to 15 minutes) it has not learned yet: against simple +1.11
  [-0.45, +2.68], -0.41 [-1.98, +1.15] and +3.85 [+2.19, +5.51] on seeds 0, 1, 2, against
  random +2.96, +3.83 and -1.75.

The multi-agent loop had not learned at 100,000 env steps on any of three seeds (against
simple -3.4, -2.4 and +4.0, against random +0.7, +2.6 and -1.9).
``results/learning/README.md`` keeps every run.
"""

from __future__ import annotations

import copy
import logging
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils import TensorboardLogger
from tianshou.utils.net.common import Net
from torch.utils.tensorboard import SummaryWriter

import gin_env  # noqa: F401 (registers the gymnasium ids)
from gin_env import gin_v0
from gin_env.actions import NUM_ACTIONS
from gin_env.encoding import OBS_SIZE
from training.flags import parse_example, save_path
from training.periodic_eval import Curve, check_opponents, report_learned
from training.player_files import check_savable, mlp_actor, save_player
from training.progress import Progress

# Tianshou warns at every test that the multi-agent returns are 2-D; the returns reduced to
# the learner's (multi_agent_return_reduction) are the ones the trainer scores.
logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)

LEARNER = "player_0"  # the DQN's seat in the multi-agent loop; player_1 plays at random
LOOPS = ("single", "marl")


@dataclass
class Args:
    loop: str = "single"  # one of LOOPS
    opponent: str = "random"  # the other seat in the single loop: any agent name
    steps: int = 200_000  # env steps in all
    steps_per_epoch: int = 10_000
    steps_per_collect: int = 100
    num_envs: int = 8
    buffer: int = 50_000
    batch: int = 64
    lr: float = 1e-4
    gamma: float = 0.99
    reward_scale: float = 0.01  # the learner's reward is its hand points times this
    eps_train: float = 0.1
    eval_deals: int = 500
    eval_opponents: str = "random,simple"
    eval_seed: int = 10_000
    curve_every: int = 20_000  # env steps between points of the learning curve (0: none)
    curve_deals: int = 100
    seed: int = 0
    log_dir: str = "runs/tianshou_dqn"  # TensorBoard
    result: str = ""  # a JSON file for the run's figures


def parse_args(argv: list[str] | None = None) -> tuple[Args, bool]:
    smoke = {"steps": 400, "steps_per_epoch": 400, "num_envs": 2, "eval_deals": 8,
             "buffer": 2_000, "curve_every": 200, "curve_deals": 4}  # fmt: skip
    args, _, quiet, parser = parse_example(
        Args, argv, __doc__, choices={"loop": LOOPS}, smoke=smoke,
        positive=("steps", "steps_per_epoch", "num_envs", "buffer", "reward_scale", "eval_deals"),
        check=lambda a: check_opponents("gin", f"{a.opponent},{a.eval_opponents}"),
    )  # fmt: skip
    if args.loop == "marl" and args.opponent != "random":
        parser.error(
            f"--opponent must be random with --loop marl (Tianshou's random player holds the "
            f"other seat); got {args.opponent!r}"
        )
    return args, quiet


class QPlayer:
    """The Q network as a player of the project's agents (``act(observation, rng)``): the
    legal move of highest Q."""

    def __init__(self, net: torch.nn.Module, name: str) -> None:
        self.net, self.name = net, name

    def act(self, observation: dict[str, Any], rng: Any = None) -> int:
        obs = torch.as_tensor(observation["observation"], dtype=torch.float32)[None]
        with torch.no_grad():
            q = self.net(obs)[0][0].numpy()
        mask = np.asarray(observation["action_mask"]).astype(bool)
        return int(np.argmax(np.where(mask, q, -np.inf)))


class MaskedObservation(gymnasium.ObservationWrapper):
    """The learner's vector and its legal moves, as Tianshou's DQN reads them (``obs.obs``,
    ``obs.mask``)."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.observation_space = spaces.Dict(
            {"obs": env.observation_space, "mask": spaces.MultiBinary(NUM_ACTIONS)}
        )

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        return {"obs": observation, "mask": self.env.unwrapped.action_masks()}


def env_maker(args: Args) -> Any:
    """A function making one env of ``args.loop``, rewards scaled by ``args.reward_scale``."""
    scale = args.reward_scale

    def single() -> gymnasium.Env:
        env = gymnasium.make(
            "gin_env/Gin-v0", opponents=args.opponent, episode="hand", infos="numeric"
        )
        return gymnasium.wrappers.TransformReward(MaskedObservation(env), lambda r: r * scale)

    def marl() -> PettingZooEnv:
        return PettingZooEnv(gin_v0.env(episode="hand", infos="numeric", reward_scale=scale))

    return single if args.loop == "single" else marl


def make_algorithm(args: Args, env: Any, net: torch.nn.Module) -> Any:
    """The DQN (single loop), or the DQN beside Tianshou's random player (multi-agent)."""
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
    if args.loop == "single":
        return dqn
    random_player = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    seats = {LEARNER: dqn, "player_1": random_player}
    return MultiAgentOffPolicyAlgorithm(algorithms=[seats[a] for a in env.agents], env=env)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args, quiet = parse_args(argv)
    np.random.seed(args.seed)  # Tianshou's random player and epsilon draw from numpy's global rng
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # a small network: more threads only wait
    make_env = env_maker(args)
    env = make_env()
    net = Net(state_shape=OBS_SIZE, action_shape=NUM_ACTIONS, hidden_sizes=[256, 256])
    untrained = QPlayer(copy.deepcopy(net), "untrained")
    if save_path(args):  # a network --save cannot write is refused before any training
        check_savable(lambda: mlp_actor(net, "dqn"), untrained, "gin")
    algorithm = make_algorithm(args, env, net)

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

    # -- training: Tianshou's off-policy trainer, with a progress bar and a curve ---------
    progress = Progress(args.steps, enabled=not quiet, desc="dqn gin", unit="step")
    curve = Curve("gin", "random", args.curve_deals, args.eval_seed + 1, args.curve_every,
                  progress)  # fmt: skip
    seen = {"steps": 0}

    def on_training_step(epoch: int, env_step: int) -> None:
        progress.update(env_step - seen["steps"])
        seen["steps"] = env_step
        if curve.due(env_step):
            curve.record(QPlayer(net, "dqn"), env_step)

    # the multi-agent test score: the learner's return (its scaled points in the hand)
    learner = env.agents.index(LEARNER) if args.loop == "marl" else 0
    start = time.perf_counter()
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=math.ceil(args.steps / args.steps_per_epoch),
            epoch_num_steps=min(args.steps, args.steps_per_epoch),
            collection_step_num_env_steps=args.steps_per_collect,
            test_step_num_episodes=args.num_envs,
            batch_size=args.batch,
            update_step_num_gradient_steps_per_sample=0.1,
            multi_agent_return_reduction=(
                (lambda r: r[:, learner]) if args.loop == "marl" else None
            ),
            training_fn=on_training_step,
            logger=TensorboardLogger(SummaryWriter(args.log_dir)),
            verbose=False,
            show_progress=False,
        )
    )
    seconds = time.perf_counter() - start
    progress.close()
    steps = int(result.train_step)
    progress.update(steps - seen["steps"])
    curve.record(QPlayer(net, "dqn"), steps)
    best = result.best_score / args.reward_scale
    print(
        f"trained {steps} env steps in {seconds:.1f} s ({args.loop} loop); "
        f"best test return {best:+.2f} points"
    )

    def save(path: Path) -> None:  # the Q network as an actor zip, checked move for move
        actor = mlp_actor(net, path.stem, example="tianshou_dqn", loop=args.loop, steps=steps,
                          seed=args.seed)  # fmt: skip
        save_player(path, actor, QPlayer(net, "dqn"), "gin")

    # -- what it learned: the untrained and the trained network on the same deals --------
    return report_learned(
        "tianshou_dqn", args, untrained, QPlayer(net, "dqn"), "gin", steps, seconds, curve, save
    )


if __name__ == "__main__":
    main()
