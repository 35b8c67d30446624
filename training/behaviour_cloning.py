"""PPO's warm start: behaviour cloning of a teacher (and DAgger), for ``training.train_ppo``.

:func:`collect_teacher_data` plays hands of the teacher against itself (every seat, adviser
turns included) and records observations, masks, the teacher's actions and the hands'
returns; :func:`behaviour_cloning` fits the sb3 policy's actor to the actions (masked
cross-entropy) and its critic to the returns; :func:`warm_start` runs both, then DAgger
rounds where the student plays and the teacher labels. What they read is a
:class:`BCConfig` (the trainer builds it from its own flags).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.trained import actor_from_sb3, policy_input
from gin_env import games
from training.league import make_env, make_opponent

__all__ = ["BCConfig", "collect_teacher_data", "behaviour_cloning", "warm_start"]


@dataclass(frozen=True)
class BCConfig:
    """The settings of a warm start: the ``teacher`` (a fixed opponent's name) plays
    ``hands`` hands of ``env`` (rewards times ``reward_scale``) from ``seed``; the student's
    policy reads ``inputs``; the fit runs ``epochs`` at learning rate ``lr``; then
    ``dagger_hands`` hands of DAgger."""

    teacher: str
    env: str
    seed: int
    hands: int
    inputs: str
    epochs: int
    lr: float
    dagger_hands: int = 0
    reward_scale: float = 1.0


def collect_teacher_data(
    args: BCConfig, student: Any = None, hands: int | None = None, seed_offset: int = 0
) -> dict[str, np.ndarray]:
    """Observations, masks, actions and final rewards of every decision in ``hands``
    hands the teacher plays against itself (all seats, so every role is covered).

    With a ``student`` (DAgger), the student plays every seat and the teacher only labels
    the decisions: the data then covers the states the student actually reaches."""
    teacher = make_opponent(args.teacher, games.get(args.env).table())
    env = make_env(args.env, reward_scale=args.reward_scale)
    rng = np.random.default_rng(args.seed + 99)
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    ret_l: list[float] = []
    for hand in range(args.hands if hands is None else hands):
        env.reset(seed=args.seed * 100_003 + seed_offset + hand)
        agents_of: list[str] = []
        final: dict[str, float] = {}
        for agent in env.agent_iter():
            ob, reward, term, trunc, _ = env.last()
            if term or trunc:
                final.setdefault(agent, float(reward))
                env.step(None)
                continue
            action = teacher.act(ob, rng)
            obs_l.append(policy_input(ob["observation"], ob["action_mask"], args.inputs))
            mask_l.append(ob["action_mask"].astype(bool))
            act_l.append(action)
            agents_of.append(agent)
            env.step(action if student is None else student.act(ob, rng))
        ret_l.extend(final.get(a, 0.0) for a in agents_of)
    return {
        "obs": np.asarray(obs_l, np.float32),
        "mask": np.asarray(mask_l, bool),
        "action": np.asarray(act_l, np.int64),
        "return": np.asarray(ret_l, np.float32),
    }


def behaviour_cloning(model: Any, data: dict[str, np.ndarray], args: BCConfig) -> dict[str, float]:
    """Fit the actor to the teacher's actions (masked cross-entropy) and the critic to the
    hands' outcomes, so PPO starts from the teacher's play with a value net that agrees.

    5% of the decisions are held out: ``bc_val_accuracy`` is how often the student picks
    the teacher's move on decisions it never trained on. The learning rate decays from
    ``lr`` to 1% of it over ``epochs`` (cosine)."""
    import torch as th  # train extra: torch

    policy = model.policy
    opt = th.optim.Adam(policy.parameters(), lr=args.lr)
    n = len(data["action"])
    tensors = {k: th.as_tensor(v) for k, v in data.items()}
    gen = np.random.default_rng(args.seed)
    perm = gen.permutation(n)
    n_val = max(1, n // 20)
    val_idx, train_idx = th.as_tensor(perm[:n_val]), perm[n_val:]
    batches_per_epoch = -(-len(train_idx) // 256)
    total_batches = max(1, args.epochs * batches_per_epoch)
    sched = th.optim.lr_scheduler.LambdaLR(
        opt,
        lambda b: 0.01 + 0.99 * 0.5 * (1 + np.cos(np.pi * min(b, total_batches) / total_batches)),
    )
    stats: dict[str, float] = {}
    for _epoch in range(args.epochs):
        order = gen.permutation(train_idx)
        total, correct, count = 0.0, 0, 0
        for start in range(0, len(order), 256):
            idx = th.as_tensor(order[start : start + 256])
            ob, mk = tensors["obs"][idx], tensors["mask"][idx]
            act, ret = tensors["action"][idx], tensors["return"][idx]
            values, log_prob, _ = policy.evaluate_actions(ob, act, action_masks=mk)
            loss = -log_prob.mean() + 0.5 * ((values.flatten() - ret) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            count += len(idx)
        with th.no_grad():
            for start in range(0, len(train_idx), 4096):  # train accuracy after the epoch
                idx = th.as_tensor(train_idx[start : start + 4096])
                pred = policy.get_distribution(
                    tensors["obs"][idx], action_masks=tensors["mask"][idx].numpy()
                ).mode()
                correct += int((pred == tensors["action"][idx]).sum())
            vpred = policy.get_distribution(
                tensors["obs"][val_idx], action_masks=tensors["mask"][val_idx].numpy()
            ).mode()
            val_acc = float((vpred == tensors["action"][val_idx]).float().mean())
        stats = {"bc_loss": total / count, "bc_accuracy": correct / len(train_idx),
                 "bc_val_accuracy": val_acc, "bc_samples": n}  # fmt: skip
        print(f"behaviour cloning: {json.dumps(stats)}", flush=True)
    return stats


def warm_start(model: Any, args: BCConfig) -> dict[str, Any]:
    """Behaviour cloning of ``teacher``, then ``dagger_hands`` of DAgger."""
    data = collect_teacher_data(args)
    print(f"teacher data: {len(data['action'])} decisions", flush=True)
    stats: dict[str, Any] = dict(behaviour_cloning(model, data, args))
    if args.dagger_hands > 0:
        student = actor_from_sb3(model, name="student")
        more = collect_teacher_data(args, student, args.dagger_hands, seed_offset=50_000_000)
        agree = float(np.mean(more["action"] == _student_actions(student, more)))
        print(f"DAgger: {len(more['action'])} student decisions, student agrees with the "
              f"teacher on {agree:.3f}", flush=True)  # fmt: skip
        data = {k: np.concatenate([data[k], more[k]]) for k in data}
        stats = {**behaviour_cloning(model, data, args), "dagger_on_policy_agreement": agree,
                 "dagger_hands": args.dagger_hands}  # fmt: skip
    return stats


def _student_actions(student: Any, data: dict[str, np.ndarray]) -> np.ndarray:
    logits = student.logits(data["obs"])
    return np.where(data["mask"], logits, -np.inf).argmax(axis=1)
