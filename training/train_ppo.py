"""MaskablePPO against a self-play league, for ``gin_v0`` and ``three_handed_gin_v0``.

One readable script in the CleanRL manner: a typed :class:`Args` parsed from the command
line, then the loop in banner-marked parts. The learner is sb3-contrib's ``MaskablePPO``
on :class:`training.league.LeagueEnv` (one hand per episode, a random seat, an opponent
from the pool for every other seat; in the three-handed game the learner plays box, captain
or adviser as the draw gives it, adviser turns included).

    python -m training.train_ppo --env gin --total-steps 2000000 --run-dir runs/gin
    python -m training.train_ppo --run-dir runs/gin --resume        # after an interruption
    gin-rummy train --env three_handed ...                           # the same, via the CLI

Every ``--checkpoint-every`` steps it writes ``<run-dir>/checkpoints/step_<n>/`` (model and
optimizer, league with its snapshots, step count, every RNG state, eval history) and points
``<run-dir>/checkpoints/latest`` at it; ``--resume`` picks up from there, so a killed run
loses at most the steps since its last checkpoint. SIGINT/SIGTERM write a checkpoint and
stop cleanly. Logs: TensorBoard under ``<run-dir>/tb``, ``eval.csv`` (periodic evaluation
against L1 and L2, on duplicate deals in gin when :mod:`training.evaluate` is there) and
``learning_curve.png`` at the end. ``--export NAME`` writes the final actor as a shipped
agent (``agents/checkpoints/NAME.zip``).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import pickle
import random
import shutil
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from training import prog_name

__all__ = [
    "Args",
    "parse_args",
    "train",
    "main",
    "export",
    "latest_checkpoint",
    "command_line",
    "write_model_card",
]


# ==========================================================================================
# Config
# ==========================================================================================
@dataclass
class Args:
    """Everything a run needs; every field is a ``--flag`` (underscores become dashes)."""

    env: str = "gin"
    """``gin`` (two-player gin_v0) or ``three_handed`` (three_handed_gin_v0)."""
    run_dir: str = "runs/gin-ppo"
    total_steps: int = 1_000_000
    seed: int = 0
    n_envs: int = 4
    vec: str = "dummy"
    """``dummy`` (one process) or ``subproc`` (one process per env)."""
    net_arch: str = "256,256"
    learning_rate: float = 3e-4
    n_steps: int = 512
    batch_size: int = 512
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    reward_scale: float = 0.01
    opponents: str = "simple,heuristic"
    """Fixed members of the pool, by agent name (random, simple, heuristic)."""
    fixed_weights: str = ""
    """Relative draw weights of the fixed opponents (e.g. ``3,1``); empty: equal. Given on
    ``--resume``, it replaces the saved weights."""
    max_snapshots: int = 4
    snapshot_share: float = 0.5
    gate_every: int = 100_000
    gate_hands: int = 100
    margin: float = 0.05
    checkpoint_every: int = 20_000
    keep_checkpoints: int = 2
    eval_every: int = 100_000
    eval_pairs: int = 100
    eval_opponents: str = "simple,heuristic"
    inputs: str = "obs"
    """The network's input (fresh runs only): ``obs``, ``obs+mask`` (the legal actions too)
    or ``obs+mask+features`` (and the deadwood after each discard, see
    :func:`agents.trained.deadwood_features`)."""
    bc_hands: int = 0
    """Warm start (fresh runs only): imitate ``bc_teacher`` on this many self-play hands
    (every seat, adviser turns included) before PPO; 0: start from scratch."""
    bc_teacher: str = "heuristic"
    bc_epochs: int = 4
    bc_lr: float = 1e-3
    """Behaviour cloning's starting learning rate (cosine decay to 1% of it per phase)."""
    bc_dagger_hands: int = 0
    """DAgger: after cloning, the student plays this many hands against itself, the teacher
    labels every decision, and cloning continues on all the data (fixes the states the
    student reaches but the teacher never does)."""
    keep_best: bool = False
    """Keep the checkpoint with the most hands won against the first ``eval_opponents``
    member (``<run-dir>/checkpoints/best``); ``--export`` then ships it (early stopping)."""
    max_minutes: float = 0.0
    """Stop (with a checkpoint) after this much wall time; 0: no limit."""
    resume: bool = False
    progress: bool = True
    export: str = ""
    """Write the final actor to agents/checkpoints/<export>.zip."""
    torch_threads: int = 1


def _parse_bool(text: str) -> bool:
    low = text.lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected a boolean (true/false); got {text!r}")


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(
        prog=prog_name("python -m training.train_ppo"), description=__doc__.split("\n")[0]
    )
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            parser.add_argument(flag, type=_parse_bool, nargs="?", const=True, default=f.default)
        else:
            kind = {"int": int, "float": float, "str": str}[str(f.type)]
            parser.add_argument(flag, type=kind, default=f.default)
    args = Args(**vars(parser.parse_args(argv)))
    try:
        _check(args)
    except ValueError as err:  # a bad value is a usage error, before anything runs
        parser.error(str(err))
    return args


def _check(args: Args) -> None:
    from training.league import ENVS, FIXED_OPPONENTS

    if args.env not in ENVS:
        raise ValueError(f"env must be one of {', '.join(ENVS)}; got {args.env!r}")
    if args.vec not in ("dummy", "subproc"):
        raise ValueError(f"vec must be 'dummy' or 'subproc'; got {args.vec!r}")
    for name in _names(args.opponents) + _names(args.eval_opponents):
        if name not in FIXED_OPPONENTS:
            raise ValueError(f"opponents must be among {', '.join(FIXED_OPPONENTS)}; got {name!r}")
    if args.inputs not in ("obs", "obs+mask", "obs+mask+features"):
        raise ValueError(
            f"inputs must be 'obs', 'obs+mask' or 'obs+mask+features'; got {args.inputs!r}"
        )
    if args.bc_teacher not in FIXED_OPPONENTS:
        raise ValueError(
            f"bc_teacher must be one of {', '.join(FIXED_OPPONENTS)}; got {args.bc_teacher!r}"
        )
    if args.bc_dagger_hands < 0 or args.bc_hands < 0:
        raise ValueError("bc_hands and bc_dagger_hands must be >= 0")
    for key in ("total_steps", "n_envs", "n_steps", "batch_size", "checkpoint_every"):
        if getattr(args, key) < 1:
            raise ValueError(f"{key} must be a positive integer; got {getattr(args, key)!r}")
    for key in ("learning_rate", "bc_lr", "clip_range", "reward_scale"):
        if not getattr(args, key) > 0:
            raise ValueError(f"{key} must be a positive number; got {getattr(args, key)!r}")
    for key in ("gamma", "gae_lambda"):
        if not 0 < getattr(args, key) <= 1:
            raise ValueError(f"{key} must be in (0, 1]; got {getattr(args, key)!r}")
    if args.ent_coef < 0:
        raise ValueError(f"ent_coef must be >= 0; got {args.ent_coef!r}")
    arch = _names(args.net_arch)
    if not arch or not all(x.isdigit() and int(x) > 0 for x in arch):
        raise ValueError(
            f"net_arch must be comma-separated layer sizes (e.g. 256,256); got {args.net_arch!r}"
        )


def command_line(args: Args) -> str:
    """The command that reproduces ``args`` (flags that differ from the defaults)."""
    parts = ["python -m training.train_ppo"]
    for f in dataclasses.fields(Args):
        value = getattr(args, f.name)
        if value != f.default:
            text = str(value).lower() if isinstance(value, bool) else str(value)
            parts.append(f"--{f.name.replace('_', '-')} {text}")
    return " ".join(parts)


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


# ==========================================================================================
# Checkpoints
# ==========================================================================================
def latest_checkpoint(run_dir: str | Path) -> Path | None:
    pointer = Path(run_dir) / "checkpoints" / "latest"
    if not pointer.is_file():
        return None
    path = Path(run_dir) / "checkpoints" / pointer.read_text().strip()
    return path if path.is_dir() else None


def _rng_states() -> dict[str, Any]:
    import torch

    return {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }


def _set_rng_states(states: dict[str, Any]) -> None:
    import torch

    random.setstate(states["python"])
    np.random.set_state(states["numpy"])
    torch.set_rng_state(states["torch"])


def save_checkpoint(
    run_dir: Path, model: Any, league: Any, state: dict[str, Any], keep: int, best: bool = False
) -> Path:
    """Write a complete checkpoint, then move the ``latest`` pointer to it (atomically).
    With ``best``, write ``checkpoints/best`` instead and leave the pointer alone."""
    root = run_dir / "checkpoints"
    name = "best" if best else f"step_{model.num_timesteps:010d}"
    tmp = root / (name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    model.save(tmp / "model.zip")  # policy, optimizer, schedules
    league.save(tmp / "league")
    state = {**state, "num_timesteps": int(model.num_timesteps), "rng": _rng_states()}
    with open(tmp / "state.pkl", "wb") as fh:
        pickle.dump(state, fh)
    final = root / name
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    if best:
        return final
    pointer_tmp = root / "latest.tmp"
    pointer_tmp.write_text(name)
    os.replace(pointer_tmp, root / "latest")
    old = sorted(p for p in root.glob("step_*") if p.is_dir() and not p.name.endswith(".tmp"))
    for p in old[:-keep]:
        shutil.rmtree(p, ignore_errors=True)
    return final


# ==========================================================================================
# Evaluation
# ==========================================================================================
def evaluate_actor(actor: Any, args: Args, step: int) -> dict[str, float]:
    """Hands against each ``eval_opponents`` member: duplicate deals in gin when
    :func:`training.evaluate.gin_duplicate` exists, else plain hands with random seats."""
    from training.league import make_opponent, play_hands

    out: dict[str, float] = {"step": float(step)}
    for name in _names(args.eval_opponents):
        res = None
        if args.env == "gin":
            try:
                from training.evaluate import gin_duplicate  # type: ignore[import-not-found]

                res = gin_duplicate(actor, make_opponent(name), args.eval_pairs, seed=10_007,
                                    workers=1, progress=False)  # fmt: skip
                out[f"{name}/hand_win_rate"] = float(res["hand_win_rate"])
                out[f"{name}/points_per_hand"] = float(res["points_per_hand"])
            except ImportError:
                res = None
        if res is None:
            hands = play_hands(
                actor, make_opponent(name), args.env, 2 * args.eval_pairs, seed=10_007
            )
            out[f"{name}/hand_win_rate"] = hands.win_rate
            out[f"{name}/points_per_hand"] = hands.points_per_hand
    return out


# ==========================================================================================
# Warm start: behaviour cloning of a teacher
# ==========================================================================================
def collect_teacher_data(
    args: Args, student: Any = None, hands: int | None = None, seed_offset: int = 0
) -> dict[str, np.ndarray]:
    """Observations, masks, actions and final rewards of every decision in ``bc_hands``
    hands the teacher plays against itself (all seats, so every role is covered).

    With a ``student`` (DAgger), the student plays every seat and the teacher only labels
    the decisions: the data then covers the states the student actually reaches."""
    from agents.trained import policy_input
    from training.league import make_env, make_opponent

    teacher = make_opponent(args.bc_teacher)
    env = make_env(args.env, reward_scale=args.reward_scale)
    rng = np.random.default_rng(args.seed + 99)
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    ret_l: list[float] = []
    for hand in range(args.bc_hands if hands is None else hands):
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


def behaviour_cloning(model: Any, data: dict[str, np.ndarray], args: Args) -> dict[str, float]:
    """Fit the actor to the teacher's actions (masked cross-entropy) and the critic to the
    hands' outcomes, so PPO starts from the teacher's play with a value net that agrees.

    5% of the decisions are held out: ``bc_val_accuracy`` is how often the student picks
    the teacher's move on decisions it never trained on. The learning rate decays from
    ``bc_lr`` to 1% of it over ``bc_epochs`` (cosine)."""
    import torch as th

    policy = model.policy
    opt = th.optim.Adam(policy.parameters(), lr=args.bc_lr)
    n = len(data["action"])
    tensors = {k: th.as_tensor(v) for k, v in data.items()}
    gen = np.random.default_rng(args.seed)
    perm = gen.permutation(n)
    n_val = max(1, n // 20)
    val_idx, train_idx = th.as_tensor(perm[:n_val]), perm[n_val:]
    batches_per_epoch = -(-len(train_idx) // 256)
    total_batches = max(1, args.bc_epochs * batches_per_epoch)
    sched = th.optim.lr_scheduler.LambdaLR(
        opt,
        lambda b: 0.01 + 0.99 * 0.5 * (1 + np.cos(np.pi * min(b, total_batches) / total_batches)),
    )
    stats: dict[str, float] = {}
    for _epoch in range(args.bc_epochs):
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


def warm_start(model: Any, args: Args) -> dict[str, Any]:
    """Behaviour cloning of ``bc_teacher``, then ``bc_dagger_hands`` of DAgger."""
    from agents.trained import actor_from_sb3

    data = collect_teacher_data(args)
    print(f"teacher data: {len(data['action'])} decisions", flush=True)
    stats: dict[str, Any] = dict(behaviour_cloning(model, data, args))
    if args.bc_dagger_hands > 0:
        student = actor_from_sb3(model, name="student")
        more = collect_teacher_data(args, student, args.bc_dagger_hands, seed_offset=50_000_000)
        agree = float(np.mean(more["action"] == _student_actions(student, more)))
        print(f"DAgger: {len(more['action'])} student decisions, student agrees with the "
              f"teacher on {agree:.3f}", flush=True)  # fmt: skip
        data = {k: np.concatenate([data[k], more[k]]) for k in data}
        stats = {**behaviour_cloning(model, data, args), "dagger_on_policy_agreement": agree,
                 "dagger_hands": args.bc_dagger_hands}  # fmt: skip
    return stats


def _student_actions(student: Any, data: dict[str, np.ndarray]) -> np.ndarray:
    logits = student.logits(data["obs"])
    return np.where(data["mask"], logits, -np.inf).argmax(axis=1)


# ==========================================================================================
# Training
# ==========================================================================================
def _make_vec_env(args: Args, league: Any, seed: int) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from training.league import LeagueEnv, make_env

    members, weights = league.members, league.weights()

    def factory(rank: int) -> Any:
        def thunk() -> Any:
            aec = make_env(args.env, reward_scale=args.reward_scale)
            env = LeagueEnv(aec, members, weights, inputs=args.inputs)
            env.reset(seed=seed + 1000 * rank)
            return env

        return thunk

    fns = [factory(i) for i in range(args.n_envs)]
    vec = SubprocVecEnv(fns) if args.vec == "subproc" else DummyVecEnv(fns)
    vec.seed(seed)
    return VecMonitor(vec)


def train(args: Args) -> dict[str, Any]:
    """Train (or resume) a run; returns a summary (steps, wall time, last evaluation)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.trained import actor_from_sb3
    from training.league import League

    torch.set_num_threads(args.torch_threads)
    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt = latest_checkpoint(run_dir) if args.resume else None
    if args.resume and ckpt is None:
        print(f"no checkpoint under {run_dir}; starting afresh", file=sys.stderr)

    # -- league, RNGs and bookkeeping, fresh or from the checkpoint -------------------------
    if ckpt is not None:
        with open(ckpt / "state.pkl", "rb") as fh:
            state = pickle.load(fh)
        league = League.load(ckpt / "league")
        # The network's input size is fixed at the start: keep the run's choice.
        args.inputs = str(state["args"].get("inputs", "obs"))
        for name in _names(args.opponents):  # fixed opponents named on resume join the pool
            if name not in league.fixed:
                league.add_fixed(name)
        _set_rng_states(state["rng"])
        print(f"resuming from {ckpt} at step {state['num_timesteps']}")
    else:
        random.seed(args.seed)
        np.random.seed(args.seed)
        torch.manual_seed(args.seed)
        league = League(_names(args.opponents), args.max_snapshots, args.margin,
                        args.snapshot_share, seed=args.seed)  # fmt: skip
        state = {"num_timesteps": 0, "wall_s": 0.0, "evals": [], "args": dataclasses.asdict(args)}
        (run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=1))
    if args.fixed_weights:
        league.set_fixed_weights([float(w) for w in _names(args.fixed_weights)])
    start_steps = int(state["num_timesteps"])
    state.setdefault("commands", []).append(command_line(args))
    vec_env = _make_vec_env(args, league, args.seed + start_steps)

    # -- the model -------------------------------------------------------------------------
    if ckpt is not None:
        model = MaskablePPO.load(ckpt / "model.zip", env=vec_env, device="cpu",
                                 tensorboard_log=str(run_dir / "tb"))  # fmt: skip
        model.num_timesteps = start_steps
    else:
        arch = [int(x) for x in _names(args.net_arch)]
        model = MaskablePPO(
            "MlpPolicy", vec_env, learning_rate=args.learning_rate, n_steps=args.n_steps,
            batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
            gae_lambda=args.gae_lambda, clip_range=args.clip_range, ent_coef=args.ent_coef,
            policy_kwargs={"net_arch": {"pi": arch, "vf": arch}}, seed=args.seed, device="cpu",
            tensorboard_log=str(run_dir / "tb"), verbose=0,
        )  # fmt: skip
        if args.bc_hands > 0:
            t_bc = time.time()
            state["bc"] = warm_start(model, args)
            state["bc"]["bc_wall_s"] = round(time.time() - t_bc, 1)
            state["wall_s"] = time.time() - t_bc
            state["evals"].append(evaluate_actor(actor_from_sb3(model), args, 0))
            print(f"[0] eval {json.dumps(state['evals'][-1])}", flush=True)

    t0 = time.time()
    wall_before = float(state.get("wall_s", 0.0))
    stop = {"signal": False}

    def on_signal(signum: int, frame: Any) -> None:
        stop["signal"] = True

    old_handlers = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}

    # -- the loop's hooks: checkpoints, the league gate, evaluation --------------------------
    class LeagueCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            last = start_steps
            self.next_ckpt = state.get("next_ckpt", last + args.checkpoint_every)
            self.next_gate = state.get("next_gate", last + args.gate_every)
            self.next_eval = state.get("next_eval", last + args.eval_every)
            self.stopped = False

        def _snapshot_state(self) -> dict[str, Any]:
            return {
                "wall_s": wall_before + time.time() - t0,
                "evals": state["evals"],
                "args": state["args"],
                "commands": state["commands"],
                "bc": state.get("bc"),
                "best": state.get("best"),
                "next_ckpt": self.next_ckpt,
                "next_gate": self.next_gate,
                "next_eval": self.next_eval,
            }

        def checkpoint(self) -> None:
            save_checkpoint(
                run_dir, self.model, league, self._snapshot_state(), args.keep_checkpoints
            )

        def consider_best(self, res: dict[str, float]) -> None:
            """Early stopping: keep the weights that won the most evaluation hands."""
            if not args.keep_best:
                return
            key = f"{_names(args.eval_opponents)[0]}/hand_win_rate"
            best = state.get("best")
            if best is None or res[key] > best["score"]:
                state["best"] = {"step": int(res["step"]), "score": float(res[key]), "key": key}
                save_checkpoint(run_dir, self.model, league, self._snapshot_state(),
                                args.keep_checkpoints, best=True)  # fmt: skip
                print(f"[{int(res['step'])}] new best {key} {res[key]:.3f}", flush=True)

        def _on_rollout_start(self) -> None:
            # Between rollouts the weights are fresh from the last update and nothing is half-done.
            n = self.model.num_timesteps
            if n >= self.next_gate:
                self.next_gate = n + args.gate_every
                rec = league.gate(actor_from_sb3(self.model, name=f"snapshot-{n}"), n, args.env,
                                  args.gate_hands)  # fmt: skip
                self.logger.record("league/gate_mean_score", rec["mean"])
                self.logger.record("league/snapshots", len(league.snapshots))
                if rec["joined"]:
                    self.training_env.env_method("set_pool", league.members, league.weights())
                print(f"[{n}] gate {rec['mean']:.3f} {'joined' if rec['joined'] else ''} "
                      f"pool={league.names()}", flush=True)  # fmt: skip
            if n >= self.next_eval:
                self.next_eval = n + args.eval_every
                res = evaluate_actor(actor_from_sb3(self.model), args, n)
                state["evals"].append(res)
                for k, v in res.items():
                    if k != "step":
                        self.logger.record(f"eval/{k}", v)
                print(f"[{n}] eval {json.dumps(res)}", flush=True)
                self.consider_best(res)
            if n >= self.next_ckpt:
                self.next_ckpt = n + args.checkpoint_every
                self.checkpoint()

        def _on_step(self) -> bool:
            over_time = args.max_minutes > 0 and time.time() - t0 > 60 * args.max_minutes
            if stop["signal"] or over_time:
                self.stopped = True
                return False
            return True

    callback = LeagueCallback()
    if args.keep_best and ckpt is None and state["evals"]:
        callback.model = model
        callback.consider_best(state["evals"][-1])
    remaining = args.total_steps - start_steps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=ckpt is None,
                    tb_log_name="ppo", progress_bar=args.progress)  # fmt: skip
    for s, h in old_handlers.items():
        signal.signal(s, h)
    callback.model = model
    callback.checkpoint()
    wall = wall_before + time.time() - t0
    finished = model.num_timesteps >= args.total_steps
    summary: dict[str, Any] = {
        "num_timesteps": int(model.num_timesteps),
        "wall_s": round(wall, 1),
        "finished": finished,
        "pool": league.names(),
        "best": state.get("best"),
        "evals": state["evals"],
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    write_eval_csv(run_dir, state["evals"])
    try:
        plot_learning_curve(run_dir, state["evals"], args)
    except Exception as exc:  # a plot is a nicety; never lose a run over it
        print(f"no learning curve: {exc}", file=sys.stderr)
    if args.export:
        export(run_dir, args.export, best=args.keep_best)
    vec_env.close()
    return summary


def write_eval_csv(run_dir: Path, evals: list[dict[str, float]]) -> None:
    if not evals:
        return
    keys = sorted({k for e in evals for k in e}, key=lambda k: (k != "step", k))
    with open(run_dir / "eval.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=keys)
        writer.writeheader()
        writer.writerows(evals)


def plot_learning_curve(run_dir: Path, evals: list[dict[str, float]], args: Args) -> Path | None:
    """Hand win rate against each evaluation opponent over training steps."""
    if not evals:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    steps = [e["step"] for e in evals]
    for name in _names(args.eval_opponents):
        key = f"{name}/hand_win_rate"
        ax.plot(steps, [e.get(key, np.nan) for e in evals], marker="o", label=f"vs {name}")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("training steps")
    ax.set_ylabel("hands won")
    ax.set_title(f"MaskablePPO, {args.env}")
    ax.legend()
    fig.tight_layout()
    path = run_dir / "learning_curve.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _commands(state: dict[str, Any]) -> list[str]:
    """Every command of a run: the first (from its saved args) and each resume."""
    commands = list(state.get("commands", []))
    if not commands or "--resume" in commands[0]:
        commands.insert(0, command_line(Args(**state["args"])))
    return commands


def export(
    run_dir: str | Path, name: str, directory: str | Path | None = None, best: bool = False
) -> Path:
    """Write the latest checkpoint's actor (with ``best``: the kept best one, see
    ``--keep-best``) as ``<directory>/<name>.zip`` (actor only, small)."""
    from sb3_contrib import MaskablePPO

    from agents.trained import CHECKPOINT_DIR, actor_from_sb3, save_actor

    last = latest_checkpoint(run_dir)
    ckpt = Path(run_dir) / "checkpoints" / "best" if best else last
    if ckpt is None or not ckpt.is_dir():
        raise ValueError(f"run_dir {str(run_dir)!r} has no checkpoint to export")
    with open(ckpt / "state.pkl", "rb") as fh:
        state = pickle.load(fh)
    run_total: dict[str, Any] = {}
    if best and last is not None:  # the whole run's length and evaluations, for the card
        with open(last / "state.pkl", "rb") as fh:
            final = pickle.load(fh)
        run_total = {
            "run_steps": int(final["num_timesteps"]),
            "run_wall_s": round(final["wall_s"], 1),
            "best": final.get("best"),
        }
        state["evals"] = final.get("evals", state.get("evals", []))
        state["commands"] = final.get("commands", state.get("commands", []))
    model = MaskablePPO.load(ckpt / "model.zip", device="cpu")
    out_dir = Path(directory) if directory is not None else CHECKPOINT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    actor = actor_from_sb3(model, name=name)
    curve = Path(run_dir) / "learning_curve.png"
    if curve.is_file():
        shutil.copyfile(curve, out_dir / f"{name}-learning-curve.png")
    return save_actor(actor, out_dir / f"{name}.zip", name=name, env=state["args"]["env"],
                      steps=int(state["num_timesteps"]), wall_s=round(state["wall_s"], 1),
                      args=state["args"], commands=_commands(state), bc=state.get("bc"),
                      evals=state.get("evals", []), **run_total)  # fmt: skip


# ==========================================================================================
# Model cards
# ==========================================================================================
def card_evaluation(name: str, pairs: int, matches: int, workers: int, seed: int) -> dict[str, Any]:
    """The model card's figures, from :mod:`training.evaluate`: gin on duplicate deals
    against L0, L1 and L2; three-handed matches against two L1 players."""
    from agents.trained import load
    from training import evaluate  # type: ignore[attr-defined]

    agent = load(name)
    env = agent.meta["env"]
    out: dict[str, Any] = {"env": env, "seed": seed}
    if env == "gin":
        for opp, label in (("random", "L0"), ("simple", "L1"), ("heuristic", "L2")):
            out[f"vs {label} ({opp})"] = evaluate.gin_duplicate(
                agent, opp, pairs, seed=seed, workers=workers, matches=matches, progress=False
            )
    else:
        from training.stats import wilson_ci

        for opp, label in (("simple", "L1"), ("heuristic", "L2")):
            res = evaluate.three_handed(
                [agent, opp, opp], matches, seed=seed, workers=workers, progress=False
            )["adviser_on"]
            mine = res["agents"][name]
            wins = round(mine["match_win_rate"] * mine["matches"])
            out[f"vs two {label} ({opp})"] = {
                "matches": mine["matches"],
                "match_win_rate": mine["match_win_rate"],
                "match_win_rate_ci95": wilson_ci(wins, mine["matches"]),
                "hands": res["hands"],
                **{f"as {role}": stats for role, stats in mine["roles"].items()},
            }
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple) and all(isinstance(v, float) for v in value):
        return "[" + ", ".join(f"{v:.4g}" for v in value) + "]"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_fmt(v)}" for k, v in value.items())
    return json.dumps(value, default=str) if isinstance(value, list) else str(value)


def _warm_start(a: dict[str, Any], bc: dict[str, Any] | None) -> str:
    if not bc:
        return "none (PPO from a random initialisation)"
    text = f"behaviour cloning of `{a.get('bc_teacher')}` on {a.get('bc_hands')} self-play hands"
    if bc.get("dagger_hands"):
        text += (
            f" + {bc['dagger_hands']} DAgger hands (the student plays, the teacher labels; "
            f"before them the student agreed with the teacher on "
            f"{bc['dagger_on_policy_agreement']:.3f} of its own decisions)"
        )
    text += (
        f": {bc['bc_samples']} decisions, {a.get('bc_epochs')} epochs per phase, final train "
        f"accuracy {bc['bc_accuracy']:.3f}"
    )
    if "bc_val_accuracy" in bc:
        text += f", held-out accuracy {bc['bc_val_accuracy']:.3f}"
    return text + "; then PPO"


def _eval_history(evals: list[dict[str, float]]) -> list[str]:
    if not evals:
        return ["(none)"]
    keys = [k for k in evals[0] if k.endswith("hand_win_rate")]
    rows = ["| step | " + " | ".join(k.split("/")[0] for k in keys) + " |"]
    rows.append("|---" * (len(keys) + 1) + "|")
    for e in evals:
        rows.append(
            f"| {int(e['step']):,} | "
            + " | ".join(f"{e.get(k, float('nan')):.3f}" for k in keys)
            + " |"
        )
    return rows


def write_model_card(name: str, results: dict[str, Any], command: str) -> Path:
    """``agents/checkpoints/<name>.md``: how it was trained and how it plays."""
    from agents.trained import CHECKPOINT_DIR, load

    agent = load(name)
    meta = agent.meta
    a = meta.get("args", {})
    sizes = [agent.obs_size] + [int(w.shape[0]) for w, _ in agent.layers]
    lines = [
        f"# {name}",
        "",
        f"MaskablePPO (sb3-contrib) actor for `{meta['env']}`, played by `agents.trained.load"
        f"({name!r})` (numpy only, deterministic: the legal action with the highest logit).",
        "",
        "## Training",
        "",
        "Commands (the first run, then each `--resume`):",
        "",
        "```",
        *meta.get("commands", []),
        "```",
        "",
        "| | |",
        "|---|---|",
        f"| Steps | {meta['steps']:,} learner decisions of PPO"
        + (
            " (none: the shipped actor is the warm start itself, which no later evaluation beat) |"
            if meta["steps"] == 0
            else " |"
        ),
        *(
            [
                f"| Chosen | early stopping: of the run's {meta['run_steps']:,} steps, the "
                f"checkpoint at step {meta['best']['step']:,} won the most evaluation hands "
                f"(`{meta['best']['key']}` {meta['best']['score']:.3f}, eval seed 10007; the "
                "figures below use another seed) |",
                f"| Wall time | {meta['run_wall_s'] / 60:.1f} min for the whole run (warm start "
                "included) on a shared 2-core CPU machine |",
            ]
            if meta.get("best")
            else [f"| Wall time | {meta['wall_s'] / 60:.1f} min on a shared 2-core CPU machine |"]
        ),
        f"| Network | MLP {'-'.join(map(str, sizes))}, {meta['activation']} "
        "(actor; critic the same shape, not shipped) |",
        "| Episodes | one hand, learner in a random seat (every role) |",
        f"| Reward | the learner's own side's hand points x {a.get('reward_scale')} "
        "(`reward='team'`) |",
        f"| Opponent pool | {a.get('opponents')} + up to {a.get('max_snapshots')} snapshots "
        f"(join when the mean score against the pool is >= 0.5 + {a.get('margin')}) |",
        f"| PPO | lr {a.get('learning_rate')}, n_steps {a.get('n_steps')} x {a.get('n_envs')} envs,"
        f" batch {a.get('batch_size')}, epochs {a.get('n_epochs')}, gamma {a.get('gamma')}, "
        f"gae_lambda {a.get('gae_lambda')}, clip {a.get('clip_range')}, ent_coef "
        f"{a.get('ent_coef')} |",
        f"| Warm start | {_warm_start(a, meta.get('bc'))} |",
        "",
        "Evaluation during training (hands won; `training.evaluate` duplicate deals in gin, "
        "plain hands with random seats in the three-handed game):",
        "",
        *_eval_history(meta.get("evals", [])),
        "",
        *(
            [f"![learning curve]({name}-learning-curve.png)", ""]
            if (CHECKPOINT_DIR / f"{name}-learning-curve.png").is_file()
            else []
        ),
        "## Evaluation",
        "",
        f"Measured by `{command}` (training.evaluate, seed {results.get('seed')}).",
        "",
    ]
    for key, res in results.items():
        if not isinstance(res, dict):
            continue
        lines += [f"### {key}", "", "| metric | value |", "|---|---|"]
        lines += [f"| {k} | {_fmt(v)} |" for k, v in res.items()]
        lines.append("")
    path = CHECKPOINT_DIR / f"{name}.md"
    text = "\n".join(lines)
    if path.is_file():
        text += _notes_after_evaluation(path.read_text())
    path.write_text(text)
    return path


def _notes_after_evaluation(card: str) -> str:
    """The hand-written sections (``## ...``) that follow a card's generated evaluation:
    a re-measured card keeps them."""
    start = card.find("\n## Evaluation")
    notes = card.find("\n## ", start + 1) if start >= 0 else -1
    return "\n" + card[notes:].lstrip("\n") if notes >= 0 else ""


def card_main(argv: list[str]) -> int:
    """``card NAME [--pairs N] [--matches N] [--workers N] [--seed N]``: evaluate a shipped
    checkpoint and write its model card."""
    parser = argparse.ArgumentParser(prog="train_ppo card")
    parser.add_argument("name")
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    ns = parser.parse_args(argv)
    command = "python -m training.train_ppo card " + " ".join(argv)
    results = card_evaluation(ns.name, ns.pairs, ns.matches, ns.workers, ns.seed)
    print(json.dumps(results, indent=1, default=str))
    print(write_model_card(ns.name, results, command))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["card"]:
        return card_main(argv[1:])
    args = parse_args(argv)
    summary = train(args)
    print(json.dumps({k: v for k, v in summary.items() if k != "evals"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
