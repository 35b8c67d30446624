"""TorchRL: multi-agent PPO with action masks on the three-handed game, all three seats
played by one shared policy (self-play), in TorchRL's own loop (``Collector``, GAE,
``ClipPPOLoss``).

    python examples/torchrl_mappo.py --frames 1000000
    python examples/torchrl_mappo.py --smoke     # what CI runs: a few seconds

Needs the ``torchrl`` extra (torchrl 0.14.1, tensordict 0.14.3).

Three things make a card game fit TorchRL's multi-agent loop:

- ``PettingZooWrapper(env, use_mask=True)`` drives the turn-based (AEC) env: every step
  carries all three seats, ``("agents", "mask")`` says which seat is to act, and only that
  seat's action is played. ``infos="numeric"`` makes the gin infos tensors.
- The policy must respect ``("agents", "action_mask")``: TorchRL's default random policy
  samples from the whole action space, so this script samples from a ``MaskedCategorical``.
- A seat that is not to act has every action marked legal by the wrapper, though the env
  ignores its action; the policy lets such a seat "play" action 0 alone, so its
  log-probability is 0 and it adds nothing to the policy gradient or the entropy. (Until
  5 December 2026 the script looked for an all-zero mask, which the wrapper never gives,
  and so sampled a waiting seat's move from all 109 actions and trained on it: two rows
  in three were noise. The learning benchmark's ``torchrl-mappo-three`` figures up to
  then were measured so.)

``--frames`` counts env steps (one seat acts in each; every seat is the learner's). A
seat's reward is its points in the hand times ``--reward-scale`` (0.01): in points (tens
a hand) the critic's loss is thousands of times the policy's, and the one clipped
gradient of the two goes to the critic; every figure printed is in points.

While it trains it shows a progress bar (frames, frames per second, time left and the last
point of its learning curve: points per hand against ``random`` on ``--curve-deals``
duplicate deals every ``--curve-every`` frames) and writes the losses to TensorBoard
(``tensorboard --logdir runs/torchrl_mappo``); ``--quiet``, or output that is not a
terminal, turns the bar off. Before training and after it, the untrained and the trained
policy (its most likely legal move) play the same ``--eval-deals`` deals of
``--eval-seed``, each deal three times with the policy once in each role (box, captain,
adviser) and each of ``--eval-opponents`` in the other two; the script prints both with
95% CIs and the difference, paired by deal. ``--result FILE`` writes it all as JSON.
``--save PATH`` (a ``.zip``) writes the trained policy's network (its shared MLP, the
seats' one set of weights) as the project's actor zip, after checking that it plays the
network's own moves (:mod:`training.player_files`): ``agents.seat(PATH, table)`` and
``--agents PATH`` seat it with numpy alone. ``--log-dir ""`` writes no TensorBoard logs.

What it learns on two cores, measured: at 1,000,000 frames (245 updates; 46 minutes of
training, two runs at a time), with

    python examples/torchrl_mappo.py --frames 1000000 --seed 0 \\
        --eval-opponents random,simple,heuristic --eval-deals 300 --eval-seed 20261

(``python benchmarks/learning.py run torchrl-mappo-three --budget 1000000 --seed 0``),
trained minus untrained on the same 300 deals (each in the three roles), points per hand:
+22.77 [+21.43, +24.12] against simple, +20.45 [+19.17, +21.73] against heuristic and
+22.58 [+21.19, +23.97] against random; the trained player makes -10.84 [-11.95, -9.73]
a hand against simple and -12.21 against heuristic. Seeds 1 and 2 (46 and 45 minutes)
make +12.39 [+11.14, +13.65] and +18.47 [+17.25, +19.68] against simple, trained minus
untrained; the trained players -18.81 and -10.28. Its curve against random stays within
2.5 points of zero for the first 106,000 to 212,000 frames and climbs after: under
uniform random play 97% of hands end drawn, scoring nothing (``results/random_play/``).
These runs are from after the fix for waiting seats above (commit ``e42baba``); the runs
before it are in the history. At 100,000 frames (25 updates, about 5 minutes a seed),
with the fix, it has not learned: +3.21 [+1.97, +4.46], +2.12 [+1.00, +3.25] and -3.41
[-4.59, -2.22] against simple on seeds 0, 1, 2.
``results/learning/README.md`` keeps every run.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tensordict.nn import TensorDictModule, TensorDictSequential
from torchrl.collectors import Collector
from torchrl.data import LazyTensorStorage, ReplayBuffer, SamplerWithoutReplacement
from torchrl.envs import PettingZooWrapper
from torchrl.envs.libs.pettingzoo import MarlGroupMapType
from torchrl.modules import MaskedCategorical, MultiAgentMLP, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss, ValueEstimators

from gin_env import three_handed_gin_v0
from gin_env.actions import NUM_ACTIONS
from gin_env.encoding import OBS_SIZE
from training.flags import parse_example, save_path
from training.periodic_eval import Curve, check_opponents, report_learned
from training.player_files import check_savable, mlp_actor, save_player
from training.progress import Progress
from training.torchrl_masks import legal_or_wait


@dataclass
class Args:
    frames: int = 200_000  # env steps in all (one seat acts per step)
    frames_per_batch: int = 4096  # env steps per PPO update
    epochs: int = 4
    minibatch: int = 512
    lr: float = 3e-4
    gamma: float = 1.0  # a hand is short and its points are the whole reward
    reward_scale: float = 0.01  # a seat's reward is its hand points times this
    lmbda: float = 0.95
    eval_deals: int = 300
    eval_opponents: str = "random,simple"  # agent names, seated at the table by agents.seat
    eval_seed: int = 10_000
    curve_every: int = 50_000  # frames between points of the learning curve (0: none)
    curve_deals: int = 50
    seed: int = 0
    log_dir: str = "runs/torchrl_mappo"  # TensorBoard ("": none)
    result: str = ""  # a JSON file for the run's figures


def parse_args(argv: list[str] | None = None) -> tuple[Args, bool]:
    smoke = {"frames_per_batch": 256, "frames": 512, "minibatch": 128, "eval_deals": 6,
             "curve_every": 256, "curve_deals": 3}  # fmt: skip
    args, _, quiet, _ = parse_example(
        Args, argv, __doc__, smoke=smoke,
        positive=("frames", "frames_per_batch", "minibatch", "epochs", "lr", "reward_scale",
                  "eval_deals"),
        check=lambda a: check_opponents("three_handed", a.eval_opponents),
    )  # fmt: skip
    return args, quiet


def make_env(seed: int, reward_scale: float) -> PettingZooWrapper:
    # One group for the three seats (they share the policy); a hand per episode. Rewards
    # in points (tens a hand) would make the critic's loss thousands of times the
    # policy's, and the gradient's clipped norm would go to the critic alone.
    aec = three_handed_gin_v0.env(episode="hand", infos="numeric", reward_scale=reward_scale)
    return PettingZooWrapper(
        env=aec, use_mask=True, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, seed=seed
    )


def make_policy(env: PettingZooWrapper) -> ProbabilisticActor:
    n = len(env.group_map["agents"])
    net = MultiAgentMLP(
        n_agent_inputs=OBS_SIZE,
        n_agent_outputs=NUM_ACTIONS,
        n_agents=n,
        centralized=False,
        share_params=True,
        depth=2,
        num_cells=128,
        activation_class=torch.nn.Tanh,
    )
    module = TensorDictSequential(
        TensorDictModule(
            legal_or_wait, [("agents", "action_mask"), ("agents", "mask")], [("agents", "legal")]
        ),
        TensorDictModule(net, [("agents", "observation", "observation")], [("agents", "logits")]),
    )
    return ProbabilisticActor(
        module,
        in_keys={"logits": ("agents", "logits"), "mask": ("agents", "legal")},
        out_keys=[("agents", "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=("agents", "action_log_prob"),
    )


def make_critic(env: PettingZooWrapper) -> TensorDictModule:
    # Each seat's value from its own view (no seat sees another's cards).
    n = len(env.group_map["agents"])
    net = MultiAgentMLP(
        n_agent_inputs=OBS_SIZE,
        n_agent_outputs=1,
        n_agents=n,
        centralized=False,
        share_params=True,
        depth=2,
        num_cells=128,
        activation_class=torch.nn.Tanh,
    )
    return TensorDictModule(
        net, [("agents", "observation", "observation")], [("agents", "state_value")]
    )


class MappoPlayer:
    """The policy's network as a player of the project's agents (``act(observation,
    rng)``): its most likely legal move."""

    def __init__(self, logits_net: torch.nn.Module, name: str) -> None:
        self.net, self.name = logits_net, name

    def act(self, observation: dict[str, Any], rng: Any = None) -> int:
        seats = torch.as_tensor(observation["observation"]).expand(3, -1)  # the net takes 3
        with torch.no_grad():
            logits = self.net(seats)[0].numpy()
        mask = np.asarray(observation["action_mask"]).astype(bool)
        return int(np.argmax(np.where(mask, logits, -np.inf)))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args, quiet = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks, one step at a time: more threads only wait
    env = make_env(args.seed, args.reward_scale)
    policy, critic = make_policy(env), make_critic(env)
    logits_net = policy.module[0].module[1].module  # the MultiAgentMLP
    untrained = MappoPlayer(copy.deepcopy(logits_net), "untrained")
    if save_path(args):  # a network --save cannot write is refused before any training
        check_savable(lambda: mlp_actor(logits_net, "mappo"), untrained, "three_handed")
    iterations = math.ceil(args.frames / args.frames_per_batch)

    # -- collection: TorchRL's Collector steps the env with the masked policy -------------
    collector = Collector(
        env,
        policy,
        frames_per_batch=args.frames_per_batch,
        total_frames=args.frames_per_batch * iterations,
    )
    buffer = ReplayBuffer(
        storage=LazyTensorStorage(args.frames_per_batch),
        sampler=SamplerWithoutReplacement(),
        batch_size=args.minibatch,
    )

    # -- the PPO loss on the per-seat keys -------------------------------------------------
    loss = ClipPPOLoss(
        actor_network=policy,
        critic_network=critic,
        clip_epsilon=0.2,
        entropy_coeff=0.01,
        normalize_advantage=True,
    )
    loss.set_keys(
        reward=("agents", "reward"),
        action=("agents", "action"),
        sample_log_prob=("agents", "action_log_prob"),
        value=("agents", "state_value"),
        done=("agents", "done"),
        terminated=("agents", "terminated"),
    )
    loss.make_value_estimator(ValueEstimators.GAE, gamma=args.gamma, lmbda=args.lmbda)
    optim = torch.optim.Adam(loss.parameters(), args.lr)

    # -- the loop, with a progress bar and a learning curve ---------------------------------
    progress = Progress(args.frames_per_batch * iterations,
                        log_dir=Path(args.log_dir) if args.log_dir else None,
                        enabled=not quiet, desc="mappo three-handed", unit="frame")  # fmt: skip
    curve = Curve("three_handed", "random", args.curve_deals, args.eval_seed + 1,
                  args.curve_every, progress)  # fmt: skip
    curve.record(MappoPlayer(logits_net, "mappo"), 0)
    frames = 0
    start = time.perf_counter()
    for it, batch in enumerate(collector):
        with torch.no_grad():
            loss.value_estimator(
                batch,
                params=loss.critic_network_params,
                target_params=loss.target_critic_network_params,
            )
        buffer.extend(batch.reshape(-1))
        for _ in range(args.epochs):
            for _ in range(args.frames_per_batch // args.minibatch):
                out = loss(buffer.sample())
                total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                optim.zero_grad()
                total.backward()
                torch.nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                optim.step()
        collector.update_policy_weights_()
        hands = int(batch["next", "done"].sum())
        pi, v = float(out["loss_objective"].detach()), float(out["loss_critic"].detach())
        frames += int(batch.numel())
        progress.update(int(batch.numel()))
        progress.scalars(frames, loss__policy=pi, loss__value=v)
        progress.write(
            f"iteration {it + 1}: {hands} hands ended, policy loss {pi:+.4f}, value loss {v:.3f}"
        )
        if curve.due(frames):
            curve.record(MappoPlayer(logits_net, "mappo"), frames)
    seconds = time.perf_counter() - start
    collector.shutdown()
    progress.close()
    curve.close(MappoPlayer(logits_net, "mappo"), frames)
    print(f"trained {frames} steps in {seconds:.1f} s")

    def save(path: Path) -> None:  # the shared MLP as an actor zip, checked move for move
        actor = mlp_actor(logits_net, path.stem, example="torchrl_mappo", frames=frames,
                          seed=args.seed)  # fmt: skip
        save_player(path, actor, MappoPlayer(logits_net, "mappo"), "three_handed")

    # -- what it learned: the untrained and the trained policy on the same deals ---------
    return report_learned(
        "torchrl_mappo",
        args,
        untrained,
        MappoPlayer(logits_net, "mappo"),
        "three_handed",
        frames,
        seconds,
        curve,
        save,
    )


if __name__ == "__main__":
    main()
