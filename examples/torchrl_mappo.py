"""TorchRL: multi-agent PPO with action masks on the three-handed game, all three seats
played by one shared policy (self-play), in TorchRL's own loop (``Collector``, GAE,
``ClipPPOLoss``).

    python examples/torchrl_mappo.py --iterations 200
    python examples/torchrl_mappo.py --smoke     # what CI runs: a few seconds

Needs the ``torchrl`` extra (torchrl 0.14.1, tensordict 0.14.3).

Three things make a card game fit TorchRL's multi-agent loop:

- ``PettingZooWrapper(env, use_mask=True)`` drives the turn-based (AEC) env: every step
  carries all three seats, ``("agents", "mask")`` says which seat is to act, and only that
  seat's action is played. ``infos="numeric"`` makes the gin infos tensors.
- The policy must respect ``("agents", "action_mask")``: TorchRL's default random policy
  samples from the whole action space, so this script samples from a ``MaskedCategorical``.
- A seat that is not to act has an all-zero mask, which no distribution can sample; the
  policy lets such a seat "play" action 0 (ignored by the env), the only choice it has, so
  its log-probability is 0 and it adds nothing to the policy gradient.

At the end the learned policy plays seat ``player_0`` against two opponents seated by
name at the same table (``agents.seat``; ``--opponent random`` by default, or ``heuristic``,
``tuned``...) on fresh hands, and the script prints its points per hand with a 95% interval.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from tensordict.nn import TensorDictModule, TensorDictSequential
from torchrl.collectors import Collector
from torchrl.data import LazyTensorStorage, ReplayBuffer, SamplerWithoutReplacement
from torchrl.envs import PettingZooWrapper
from torchrl.envs.libs.pettingzoo import MarlGroupMapType
from torchrl.modules import MaskedCategorical, MultiAgentMLP, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss, ValueEstimators

import agents
from gin_env import three_handed_gin_v0
from gin_env.actions import NUM_ACTIONS
from gin_env.encoding import OBS_SIZE


@dataclass
class Args:
    frames_per_batch: int = 4096  # env steps (one seat acts per step) per PPO update
    iterations: int = 50
    epochs: int = 4
    minibatch: int = 512
    lr: float = 3e-4
    gamma: float = 1.0  # a hand is short and its points are the whole reward
    lmbda: float = 0.95
    eval_hands: int = 500
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
        args.frames_per_batch, args.iterations, args.minibatch, args.eval_hands = 256, 2, 128, 10
    return args


def make_env(seed: int) -> PettingZooWrapper:
    # One group for the three seats (they share the policy); a hand per episode.
    aec = three_handed_gin_v0.env(episode="hand", infos="numeric")
    return PettingZooWrapper(
        env=aec, use_mask=True, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, seed=seed
    )


def legal_or_wait(action_mask: torch.Tensor) -> torch.Tensor:
    """The mask to sample from: the seat's legal moves, or action 0 alone for a seat that
    is not to act (all zeros; the env ignores its action)."""
    waiting = ~action_mask.any(dim=-1, keepdim=True)
    only_first = torch.zeros_like(action_mask)
    only_first[..., 0] = True
    return action_mask | (waiting & only_first)


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
        TensorDictModule(legal_or_wait, [("agents", "action_mask")], [("agents", "legal")]),
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


def evaluate(
    policy: ProbabilisticActor, opponent: str, hands: int, seed: int
) -> tuple[float, float]:
    """Points per hand of the policy (its most likely legal move) in seat ``player_0``
    against ``opponent`` in the other seats, over ``hands`` hands of a seed training never
    saw."""
    logits_net = policy.module[0].module[1].module  # the MultiAgentMLP
    env = three_handed_gin_v0.env(episode="hand")
    table = env.unwrapped.config  # the table's rules: opponents are seated with them
    others = {seat: agents.seat(opponent, table) for seat in env.possible_agents[1:]}
    rng = np.random.default_rng(seed)
    points = []
    for k in range(hands):
        env.reset(seed=seed + k)
        total = 0.0
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if agent == "player_0":
                total += reward
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"].astype(bool)
            if agent == "player_0":
                seats = torch.as_tensor(obs["observation"]).expand(3, -1)  # the net takes 3
                with torch.no_grad():
                    logits = logits_net(seats)[0].numpy()
                action = int(np.argmax(np.where(mask, logits, -np.inf)))
            else:
                action = int(others[agent].act(obs, rng))
            env.step(action)
        points.append(total)
    x = np.array(points)
    return float(x.mean()), 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks, one step at a time: more threads only wait
    env = make_env(args.seed)
    policy, critic = make_policy(env), make_critic(env)

    # -- collection: TorchRL's Collector steps the env with the masked policy -------------
    collector = Collector(
        env,
        policy,
        frames_per_batch=args.frames_per_batch,
        total_frames=args.frames_per_batch * args.iterations,
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

    # -- the loop ----------------------------------------------------------------------------
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
        print(f"iteration {it + 1}: {hands} hands ended, policy loss {pi:+.4f}, value loss {v:.3f}")
    collector.shutdown()
    print(
        f"trained {args.frames_per_batch * args.iterations} steps in "
        f"{time.perf_counter() - start:.1f} s"
    )

    # -- what it learned: one seat against two opponents -----------------------------------
    mean, half = evaluate(policy, args.opponent, args.eval_hands, seed=args.seed + 10_000)
    print(
        f"points per hand as player_0 against {args.opponent}: {mean:+.2f} +/- "
        f"{half:.2f} (95% CI, {args.eval_hands} hands)"
    )


if __name__ == "__main__":
    main()
