"""MaskablePPO against a self-play league, for ``gin_v0`` and ``three_handed_gin_v0``.

One readable script in the CleanRL manner: a typed :class:`Args` parsed from the command
line, then the loop in banner-marked parts. The learner is sb3-contrib's ``MaskablePPO``
on :class:`training.league.LeagueEnv` (one hand per episode, a random seat, an opponent
from the pool for every other seat; in the three-handed game the learner plays box, captain
or adviser as the draw gives it, adviser turns included).

    python -m training.train_ppo --env gin --total-steps 2000000 --run-dir runs/gin
    python -m training.train_ppo --run-dir runs/gin --resume        # after an interruption
    gin-rummy train --env three_handed ...                           # the same, via the CLI

Every ``--checkpoint-every`` steps it writes ``<run-dir>/checkpoints/step_<n>/`` and points
``<run-dir>/checkpoints/latest`` at it; ``--resume`` picks up from there, so a killed run
loses at most the steps since its last checkpoint. A checkpoint is data only:
``policy.pt`` and ``optimizer.pt`` (torch state dicts, read with ``weights_only=True``),
``league/`` (JSON and ``.npz``), ``state.json`` (step count, every RNG state, settings,
evaluations). A new run in a folder that holds one is refused (``--resume`` or
``--overwrite``), and so is ``--resume`` with no checkpoint. SIGINT/SIGTERM write a checkpoint and
stop cleanly. Logs: TensorBoard under ``<run-dir>/tb``, ``eval.csv`` (periodic evaluation
against L1 and L2, on duplicate deals in gin, :mod:`training.periodic_eval`; a readable line
each, 95% CIs) and ``learning_curve.png`` at the end.

The run's player files are in the run folder, never in the package: ``untrained.zip`` (the
policy at the start), ``latest.zip`` (at every checkpoint) and ``best.zip`` (at every new
best with ``--keep-best``), actor zips that ``--agents RUN_DIR`` (``agents.seat(RUN_DIR,
table)``) seats: the best if there is one, else the latest. The command ends with the
untrained and the run's player on the same ``--report-deals`` duplicate deals (95% CIs,
their difference paired by deal; 0: none). ``--export NAME`` is for maintainers: it also
writes the final actor into the package as a shipped agent (``agents/checkpoints/NAME.zip``).

``--resume`` restores the run's saved settings (total steps aside, see :data:`CHANGEABLE`);
a flag given on resume that contradicts them is an error naming it. ``gin-rummy train
--algo dmc`` runs :mod:`training.train_dmc` (Deep Monte-Carlo) instead: the command line
(:mod:`gin_cli.main`) picks the trainer. Shared pieces live in their own
modules: :mod:`training.checkpoints`, :mod:`training.flags`, :mod:`training.model_cards`,
:mod:`training.periodic_eval`, :mod:`training.behaviour_cloning` (the warm start).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import shutil
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import agents
from agents.trained import (
    CHECKPOINT_DIR,
    HistoryActor,
    actor_from_sb3,
    actor_from_state,
    save_actor,
)
from gin_env import games
from gin_eval.plots import plot_curves
from gin_eval.writer import write_json
from training import prog_name
from training.behaviour_cloning import BCConfig, warm_start
from training.checkpoints import (
    check_export_name,
    check_writable,
    claim_run_dir,
    latest_checkpoint,
    load_torch,
    new_run_id,
    read_json,
    resume_settings,
    rng_states,
    save_torch,
    set_rng_states,
    write_checkpoint,
    write_json_atomic,
)
from training.flags import (
    EXPORT_HELP,
    HELP,
    REPORT_DEFAULTS,
    REPORT_HELP,
    RUN_FLAGS,
    check_report,
    command_line,
    names,
    parse,
)
from training.league import ENVS, FIXED_OPPONENTS, League, LeagueEnv, make_env
from training.model_cards import card_evaluation, write_model_card
from training.periodic_eval import (
    eval_line,
    evaluate_agent,
    metric_text,
    print_run_end,
    run_player_lines,
    write_eval_csv,
)
from training.progress import Progress, sb3_callback

__all__ = [
    "Args",
    "CHANGEABLE",
    "parse_args",
    "train",
    "main",
    "export",
    "write_player",
    "latest_checkpoint",
    "command_line",
    "write_model_card",
    "card_evaluation",
    "bc_config",
]


# ==========================================================================================
# Config
# ==========================================================================================
@dataclass
class Args:
    """Everything a run needs; every field is a ``--flag`` (underscores become dashes)."""

    algo: str = HELP(
        "ppo",
        "ppo: this trainer (gin-rummy train --algo picks the trainer; "
        "--algo dmc --help for Deep Monte-Carlo's flags)",
    )
    env: str = HELP("gin", "game: gin (two-player gin_v0) or three_handed (three_handed_gin_v0)")
    run_dir: str = HELP("runs/gin-ppo", "folder of the run: checkpoints, logs, curves")
    total_steps: int = HELP(1_000_000, "learner steps (decisions) to train for")
    seed: int = HELP(0, "seed of the envs, the network and the league")
    n_envs: int = HELP(4, "envs collecting experience side by side")
    vec: str = HELP("dummy", "dummy (one process) or subproc (one process per env)")
    net_arch: str = HELP("256,256", "hidden layer sizes of the actor and the critic")
    learning_rate: float = HELP(3e-4, "Adam learning rate")
    n_steps: int = HELP(512, "steps per env between updates")
    batch_size: int = HELP(512, "minibatch size")
    n_epochs: int = HELP(4, "passes over each rollout")
    gamma: float = HELP(0.995, "discount")
    gae_lambda: float = HELP(0.95, "GAE lambda")
    clip_range: float = HELP(0.2, "PPO clip range")
    ent_coef: float = HELP(0.01, "entropy bonus")
    reward_scale: float = HELP(0.01, "rewards are the learner side's hand points times this")
    opponents: str = HELP(
        "simple,heuristic",
        "fixed members of the pool, by agent name "
        "(random, simple, heuristic); named on --resume, they join the pool",
    )
    fixed_weights: str = HELP(
        "",
        "relative draw weights of the fixed opponents (e.g. 3,1); "
        "empty: equal; given on --resume, it replaces the saved weights",
    )
    max_snapshots: int = HELP(4, "snapshots of the learner kept in the pool")
    snapshot_share: float = HELP(0.5, "share of the draws that go to snapshots")
    gate_every: int = HELP(100_000, "steps between snapshot gates")
    gate_hands: int = HELP(100, "hands a snapshot candidate plays at the gate")
    margin: float = HELP(
        0.05, "a snapshot joins when its mean score against the pool is >= 0.5 + margin"
    )
    checkpoint_every: int = HELP(20_000, "steps between checkpoints")
    keep_checkpoints: int = HELP(2, "step checkpoints kept (the best is kept apart)")
    eval_every: int = HELP(100_000, "steps between evaluations")
    eval_pairs: int = HELP(100, "duplicate deal pairs per evaluation and opponent")
    eval_opponents: str = HELP("simple,heuristic", "evaluation opponents (agent names)")
    inputs: str = HELP(
        "obs",
        "the network's input (fresh runs only): obs, obs+mask (the "
        "legal actions too) or obs+mask+features (and the deadwood after each "
        "discard)",
    )
    critic: str = HELP(
        "plain",
        "the value network's input (fresh runs only): plain (what the actor reads) or "
        "state (a centralized critic: also the global state(); the actor never sees it)",
    )
    observation: str = HELP(
        "flat",
        "the networks' observation (fresh runs only): flat (the vector) or history (also the "
        "hand's moves, through an attention encoder; the league keeps no snapshots then, "
        "--export is refused: see training.encoders)",
    )
    bc_hands: int = HELP(
        0,
        "warm start (fresh runs only): imitate --bc-teacher on this many "
        "self-play hands before PPO; 0: start from scratch",
    )
    bc_teacher: str = HELP("heuristic", "the agent imitated by the warm start")
    bc_epochs: int = HELP(4, "behaviour cloning epochs per phase")
    bc_lr: float = HELP(
        1e-3, "behaviour cloning's starting learning rate (cosine decay to 1%% of it per phase)"
    )
    bc_dagger_hands: int = HELP(
        0,
        "DAgger: after cloning, the student plays this many hands, "
        "the teacher labels every decision, and cloning continues",
    )
    keep_best: bool = HELP(
        False,
        "keep the checkpoint with the most hands won against the "
        "first --eval-opponents member (checkpoints/best); --export ships it",
    )
    max_minutes: float = HELP(0.0, "stop (with a checkpoint) after this much wall time; 0: none")
    resume: bool = HELP(
        False,
        "continue the run in --run-dir with its saved settings (a conflicting flag is an error)",
    )
    overwrite: bool = HELP(
        False, "start a new run in a --run-dir that holds one, deleting what is there"
    )
    progress: bool = HELP(True, "show a progress bar (on a terminal only)")
    quiet: bool = HELP(False, "no progress bar: the same as --progress false")
    export: str = HELP("", EXPORT_HELP.format(suffix=".zip"))
    report_deals: int = HELP(REPORT_DEFAULTS["report_deals"], REPORT_HELP["report_deals"])
    report_opponents: str = HELP(
        REPORT_DEFAULTS["report_opponents"], REPORT_HELP["report_opponents"]
    )
    report_seed: int = HELP(REPORT_DEFAULTS["report_seed"], REPORT_HELP["report_seed"])
    torch_threads: int = HELP(1, "torch threads")


#: Flags a ``--resume`` may change; any other that differs from the saved run is an error.
CHANGEABLE = RUN_FLAGS | frozenset(
    {
        "quiet",
        "eval_opponents",
        "opponents",
        "fixed_weights",
        "keep_best",
        "gate_every",
        "gate_hands",
        "vec",
    }
)
MODULE = "training.train_ppo"


def parse_args(argv: list[str] | None = None) -> Args:
    args, explicit, parser = parse(Args, argv, prog_name(f"python -m {MODULE}"), __doc__ or "")
    try:
        if args.resume:
            ckpt = latest_checkpoint(args.run_dir)
            if ckpt is not None:
                saved = load_state(ckpt)["args"]
                given = dataclasses.asdict(args)
                args = Args(**{**given, **resume_settings(saved, given, explicit, CHANGEABLE)})
                args.resume = True
        _check(args)
    except ValueError as err:  # a bad value is a usage error, before anything runs
        parser.error(str(err))
    return args


def _merge_resume(args: Args, saved: dict[str, Any]) -> Args:
    """``train(args)`` called directly on resume: the run's saved settings, except the
    changeable ones; a setting that differs from both the saved value and its default
    is a conflict (ValueError naming the flag)."""
    defaults = {f.name: f.default for f in dataclasses.fields(Args)}
    given = dataclasses.asdict(args)
    # Changeable settings come from the call (a parsed resume command has merged them
    # already); any other that differs from both the saved value and its default conflicts.
    explicit = {k for k, v in given.items() if v != defaults[k] or k in CHANGEABLE}
    out = Args(**{**given, **resume_settings(saved, given, explicit, CHANGEABLE)})
    out.resume = True
    return out


def _check(args: Args) -> None:

    if args.algo != "ppo":
        raise ValueError(f"algo must be ppo here (dmc: training.train_dmc); got {args.algo!r}")
    if args.env not in ENVS:
        raise ValueError(f"env must be one of {', '.join(ENVS)}; got {args.env!r}")
    if args.vec not in ("dummy", "subproc"):
        raise ValueError(f"vec must be 'dummy' or 'subproc'; got {args.vec!r}")
    for name in names(args.opponents) + names(args.eval_opponents):
        if name not in FIXED_OPPONENTS:
            raise ValueError(f"opponents must be among {', '.join(FIXED_OPPONENTS)}; got {name!r}")
    if args.inputs not in ("obs", "obs+mask", "obs+mask+features"):
        raise ValueError(
            f"inputs must be 'obs', 'obs+mask' or 'obs+mask+features'; got {args.inputs!r}"
        )
    from training.encoders import extras_for  # train extra: torch, sb3

    if extras_for(args.critic, args.observation):  # also checks both values
        if args.inputs != "obs":
            raise ValueError(
                f"inputs {args.inputs!r} extends the flat vector: only with --critic plain "
                "--observation flat"
            )
        if args.bc_hands > 0:
            raise ValueError("the warm start (bc_hands) needs --critic plain --observation flat")
    if args.export:
        check_export_name(args.export)
    if args.export and args.observation == "history":
        raise ValueError(
            "export ships flat MLP actors (agents.make plays those); a history run's actor is "
            "written by training.train_ppo.export(run_dir, name, directory=...)"
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
    table = games.get(args.env).table()
    check_report(args.report_deals, args.report_opponents, lambda n: agents.seat(n, table))
    arch = names(args.net_arch)
    if not arch or not all(x.isdigit() and int(x) > 0 for x in arch):
        raise ValueError(
            f"net_arch must be comma-separated layer sizes (e.g. 256,256); got {args.net_arch!r}"
        )


# ==========================================================================================
# Checkpoints (training.checkpoints: the folder layout, the pointer, RNG states)
def bc_config(args: Args) -> BCConfig:
    """The warm start's settings, from the run's ``bc_*`` flags."""
    return BCConfig(teacher=args.bc_teacher, env=args.env, seed=args.seed, hands=args.bc_hands,
                    inputs=args.inputs, epochs=args.bc_epochs, lr=args.bc_lr,
                    dagger_hands=args.bc_dagger_hands, reward_scale=args.reward_scale)  # fmt: skip


# ==========================================================================================
def save_checkpoint(
    run_dir: Path, model: Any, league: Any, state: dict[str, Any], keep: int, best: bool = False
) -> Path:
    """Write a complete checkpoint, then move the ``latest`` pointer to it (atomically).
    With ``best``, write ``checkpoints/best`` instead and leave the pointer alone."""

    def write(folder: Path) -> None:
        save_torch(model.policy.state_dict(), folder / "policy.pt")
        save_torch(model.policy.optimizer.state_dict(), folder / "optimizer.pt")
        league.save(folder / "league")
        act_fn = getattr(model.policy, "activation_fn", None)
        full = {
            **state,
            "num_timesteps": int(model.num_timesteps),
            "n_updates": int(getattr(model, "_n_updates", 0)),
            "activation": "relu" if getattr(act_fn, "__name__", "") == "ReLU" else "tanh",
            "rng": rng_states(),
        }
        write_json_atomic(folder / "state.json", full)

    name = "best" if best else f"step_{model.num_timesteps:010d}"
    folder = write_checkpoint(run_dir, name, write, keep, pointer=not best, run_id=state["run_id"])
    write_player(run_dir, "best" if best else "latest", model, state)
    return folder


def write_player(run_dir: Path, which: str, model: Any, state: dict[str, Any]) -> Path:
    """The run's player ``which`` as ``<run-dir>/<which>.zip``, an actor zip of its policy
    (flat or history-reading): ``untrained`` when the run starts, ``latest`` at every
    checkpoint, ``best`` at every new best (``--keep-best``). ``--agents RUN_DIR``
    (:func:`agents.trained.run_player`) seats the best if there is one, else the latest;
    nothing is written outside the run folder."""
    from training.encoders import actor_from_model  # train extra: torch, sb3

    run_dir = Path(run_dir)
    args = state.get("args", {})
    actor = actor_from_model(model, name=f"{run_dir.name}-{which}")
    return save_actor(actor, run_dir / f"{which}.zip", env=args.get("env"), algo="ppo",
                      steps=int(model.num_timesteps), run_id=state.get("run_id"),
                      best=state.get("best"), args=args)  # fmt: skip


#: What a PPO checkpoint folder holds (all data: JSON, ``.npz``, weights-only torch state).
CHECKPOINT_FILES = ("state.json", "policy.pt", "optimizer.pt")


def load_state(ckpt: Path) -> dict[str, Any]:
    """A checkpoint's ``state.json`` (settings, counters, RNG states, evaluations); a
    folder in the old pickled format is named with the command that migrates it."""
    if not (ckpt / "state.json").is_file() and (ckpt / "state.pkl").is_file():
        raise ValueError(
            f"{ckpt} is a checkpoint in the old pickled format; if you trust it, convert it "
            f"once with: gin-rummy migrate-checkpoint --trust {ckpt}"
        )
    state = read_json(ckpt / "state.json", "checkpoint state")
    if not isinstance(state, dict) or not {"args", "num_timesteps"} <= set(state):
        raise ValueError(f"{ckpt / 'state.json'}: not a PPO checkpoint state (no args, steps)")
    return state


def load_actor(ckpt: Path, name: str = "trained", **meta: Any) -> Any:
    """The numpy actor of a checkpoint folder (its ``policy.pt``)."""
    state = load_state(ckpt)
    policy = load_torch(ckpt / "policy.pt", "policy state")
    if not isinstance(policy, dict):
        raise ValueError(f"{ckpt / 'policy.pt'}: not a policy state dict")
    return actor_from_state(policy, str(state.get("activation", "tanh")), name, **meta)


# ==========================================================================================
# Evaluation
# ==========================================================================================
def evaluate_actor(actor: Any, args: Args, step: int) -> dict[str, float]:
    """Hands against each ``eval_opponents`` member (:func:`training.periodic_eval.
    evaluate_agent`): duplicate deals in gin, else plain hands with random seats (envs that
    give the move history when the actor reads it)."""
    options = {"observation": "history"} if args.observation == "history" else {}
    return evaluate_agent(actor, args.env, names(args.eval_opponents), args.eval_pairs,
                          seed=10_007, step=step, env_options=options, hands=True)  # fmt: skip


# ==========================================================================================
# Training
# ==========================================================================================
def make_vec_env(args: Args, league: Any, seed: int) -> Any:
    """The run's vectorised league envs (``args.n_envs`` of them, ``args.vec``), seeded from
    ``seed``, in sb3's ``VecMonitor``."""
    from stable_baselines3.common.vec_env import (  # train extra: sb3
        DummyVecEnv,
        SubprocVecEnv,
        VecMonitor,
    )

    from training.encoders import extras_for  # train extra: torch, sb3

    members, weights = league.members, league.weights()
    extras = extras_for(args.critic, args.observation)
    options = {"observation": "history"} if args.observation == "history" else {}

    def factory(rank: int) -> Any:
        def thunk() -> Any:
            aec = make_env(args.env, reward_scale=args.reward_scale, **options)
            env = LeagueEnv(aec, members, weights, inputs=args.inputs, extras=extras)
            env.reset(seed=seed + 1000 * rank)
            return env

        return thunk

    fns = [factory(i) for i in range(args.n_envs)]
    vec = SubprocVecEnv(fns) if args.vec == "subproc" else DummyVecEnv(fns)
    vec.seed(seed)
    return VecMonitor(vec)


def build_model(args: Args, vec_env: Any, tensorboard_log: str | None = None) -> Any:
    """A fresh MaskablePPO of the run's settings on ``vec_env`` (seeded from ``--seed``)."""
    from sb3_contrib import MaskablePPO  # train extra: sb3-contrib

    from training.encoders import EncodedPolicy, extras_for  # train extra: torch, sb3

    arch = [int(x) for x in names(args.net_arch)]
    # A centralized critic or a history encoder: training.encoders' policy; else sb3's MLP.
    policy = EncodedPolicy if extras_for(args.critic, args.observation) else "MlpPolicy"
    return MaskablePPO(
        policy, vec_env, learning_rate=args.learning_rate, n_steps=args.n_steps,
        batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
        gae_lambda=args.gae_lambda, clip_range=args.clip_range, ent_coef=args.ent_coef,
        policy_kwargs={"net_arch": {"pi": arch, "vf": arch}}, seed=args.seed, device="cpu",
        tensorboard_log=tensorboard_log, verbose=0,
    )  # fmt: skip


def restore_model(model: Any, ckpt: Path, state: dict[str, Any], rng: bool = True) -> None:
    """Put a checkpoint's weights, optimizer, counters and (with ``rng``) the global RNG
    states into a model built by :func:`build_model` with the run's settings."""
    try:
        model.policy.load_state_dict(load_torch(ckpt / "policy.pt", "policy state"))
        model.policy.optimizer.load_state_dict(load_torch(ckpt / "optimizer.pt", "optimizer state"))
    except (RuntimeError, KeyError, TypeError) as err:  # a state of another shape
        line = str(err).splitlines()[0][:160]
        msg = f"{ckpt}: its weights do not fit this run's networks ({line})"
        raise ValueError(msg) from None
    model.num_timesteps = int(state["num_timesteps"])
    model._n_updates = int(state.get("n_updates", 0))
    if rng:  # after the model is built: building it seeds the global RNGs from --seed
        set_rng_states(state["rng"])


def load_model(ckpt: str | Path) -> Any:
    """The MaskablePPO model of a checkpoint folder, rebuilt from its settings (for
    inspection and tests; the numpy actor is :func:`load_actor`)."""
    ckpt = Path(ckpt)
    state = load_state(ckpt)
    args = Args(**state["args"])
    league = League(names(args.opponents), args.max_snapshots, args.margin, seed=args.seed,
                    table=games.get(args.env).table())  # fmt: skip
    vec_env = make_vec_env(dataclasses.replace(args, n_envs=1, vec="dummy"), league, 0)
    model = build_model(args, vec_env)
    restore_model(model, ckpt, state, rng=False)
    return model


def train(args: Args) -> dict[str, Any]:
    """Train (or resume) a run; returns a summary (steps, wall time, last evaluation)."""
    import torch  # train extra: torch
    from stable_baselines3.common.callbacks import BaseCallback  # train extra: sb3

    from training.encoders import actor_from_model, input_layout  # train extra: torch, sb3

    run_dir = Path(args.run_dir)
    if not args.resume:
        _check(args)  # before the folder is claimed (--overwrite deletes what is there)
    # Refused before any work: a new run where one is, a resume with nothing to resume.
    ckpt = claim_run_dir(run_dir, args.resume, args.overwrite)
    saved = load_state(ckpt) if ckpt is not None else None
    if saved is not None:  # the run's saved settings (a conflicting one is an error)
        args = _merge_resume(args, saved["args"])
    _check(args)
    if args.export:
        check_writable(CHECKPOINT_DIR, folder=True)
    torch.set_num_threads(args.torch_threads)

    # -- league, RNGs and bookkeeping, fresh or from the checkpoint -------------------------
    if ckpt is not None and saved is not None:
        state = saved
        league = League.load(ckpt / "league", games.get(args.env).table())
        # The network's input size is fixed at the start: keep the run's choice.
        args.inputs = str(state["args"].get("inputs", "obs"))
        args.critic = str(state["args"].get("critic", "plain"))
        args.observation = str(state["args"].get("observation", "flat"))
        for name in names(args.opponents):  # fixed opponents named on resume join the pool
            if name not in league.fixed:
                league.add_fixed(name)
        print(f"resuming from {ckpt} at step {state['num_timesteps']}")
    else:
        random.seed(args.seed)
        np.random.seed(args.seed)
        torch.manual_seed(args.seed)
        league = League(names(args.opponents), args.max_snapshots, args.margin,
                        args.snapshot_share, seed=args.seed,
                        table=games.get(args.env).table())  # fmt: skip
        state = {"num_timesteps": 0, "wall_s": 0.0, "evals": [], "args": dataclasses.asdict(args),
                 "run_id": new_run_id()}  # fmt: skip
        (run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=1))
    state.setdefault("run_id", new_run_id())
    if args.fixed_weights:
        league.set_fixed_weights([float(w) for w in names(args.fixed_weights)])
    start_steps = int(state["num_timesteps"])
    state.setdefault("commands", []).append(command_line(args, MODULE))
    vec_env = make_vec_env(args, league, args.seed + start_steps)

    # -- the model: built from the settings, then (on resume) the saved weights and optimizer
    model = build_model(args, vec_env, str(run_dir / "tb"))
    if ckpt is not None:
        restore_model(model, ckpt, state)
    else:
        write_player(run_dir, "untrained", model, state)  # the "before" of the closing lines
        if args.bc_hands > 0:
            t_bc = time.time()
            state["bc"] = warm_start(model, bc_config(args))
            state["bc"]["bc_wall_s"] = round(time.time() - t_bc, 1)
            state["wall_s"] = time.time() - t_bc
            state["evals"].append(evaluate_actor(actor_from_model(model), args, 0))
            print(f"[0] eval (warm start) {eval_line(state['evals'][-1], 2 * args.eval_pairs)}",
                  flush=True)  # fmt: skip

    # What the networks read (recorded in every checkpoint and the summary).
    state["layout"] = input_layout(vec_env.observation_space, args.critic, args.observation)
    t0 = time.time()
    wall_before = float(state.get("wall_s", 0.0))
    stop = {"signal": False}

    def on_signal(signum: int, frame: Any) -> None:
        stop["signal"] = True

    old_handlers = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}

    # -- the bar: steps, rate, time left, the last evaluation (SB3 logs to TensorBoard) ------
    progress = Progress(args.total_steps, start_steps, enabled=args.progress and not args.quiet,
                        desc=f"ppo {args.env}", unit="step")  # fmt: skip

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
                "run_id": state["run_id"],
                "evals": state["evals"],
                "args": state["args"],
                "commands": state["commands"],
                "bc": state.get("bc"),
                "best": state.get("best"),
                "layout": state["layout"],
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
            key = f"{names(args.eval_opponents)[0]}/hand_win_rate"
            best = state.get("best")
            if best is None or res[key] > best["score"]:
                state["best"] = {"step": int(res["step"]), "score": float(res[key]), "key": key}
                save_checkpoint(run_dir, self.model, league, self._snapshot_state(),
                                args.keep_checkpoints, best=True)  # fmt: skip
                first = names(args.eval_opponents)[0]
                mine = {k: v for k, v in res.items() if k.startswith(f"{first}/")}
                progress.write(f"[{int(res['step']):,}] new best (best.zip): "
                               f"{eval_line(mine, 2 * args.eval_pairs)}")  # fmt: skip

        def _on_rollout_start(self) -> None:
            # Between rollouts the weights are fresh from the last update and nothing is half-done.
            n = self.model.num_timesteps
            if n >= self.next_gate and args.observation == "history":
                # The league saves flat MLP snapshots only: a history run plays the fixed pool.
                self.next_gate = n + args.gate_every
                progress.write(f"[{n:,}] no gate: a history run keeps no snapshots")
            if n >= self.next_gate:
                self.next_gate = n + args.gate_every
                rec = league.gate(actor_from_sb3(self.model, name=f"snapshot-{n}"), n, args.env,
                                  args.gate_hands)  # fmt: skip
                self.logger.record("league/gate_mean_score", rec["mean"])
                self.logger.record("league/snapshots", len(league.snapshots))
                if rec["joined"]:
                    self.training_env.env_method("set_pool", league.members, league.weights())
                progress.write(f"[{n:,}] gate: mean score {rec['mean']:.3f} against the pool"
                               f"{', joined' if rec['joined'] else ''}; pool "
                               f"{', '.join(league.names())}")  # fmt: skip
            if n >= self.next_eval:
                self.next_eval = n + args.eval_every
                res = evaluate_actor(actor_from_model(self.model), args, n)
                state["evals"].append(res)
                for k, v in res.items():
                    if k != "step":
                        self.logger.record(f"eval/{k}", v)
                progress.write(f"[{n:,}] eval {eval_line(res, 2 * args.eval_pairs)}")
                key = f"{names(args.eval_opponents)[0]}/hand_win_rate"
                if key in res:
                    progress.evaluation(metric_text(key, res[key], 2 * args.eval_pairs))
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
        try:
            model.learn(remaining, callback=[callback, sb3_callback(progress)],
                        reset_num_timesteps=ckpt is None, tb_log_name="ppo")  # fmt: skip
        finally:
            progress.close()
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
        "layout": state["layout"],
    }
    write_json(run_dir / "summary.json", summary, [args.seed])
    write_eval_csv(run_dir / "eval.csv", state["evals"])
    try:
        plot_learning_curve(run_dir, state["evals"], args)
    except Exception as exc:  # a plot is a nicety; never lose a run over it
        print(f"no learning curve: {exc}", file=sys.stderr)
    if args.export:
        export(run_dir, args.export, best=args.keep_best)
    vec_env.close()
    return summary


def plot_learning_curve(run_dir: Path, evals: list[dict[str, float]], args: Args) -> Path | None:
    """Hand win rate against each evaluation opponent over training (the one learning
    curve, :func:`gin_eval.plots.plot_curves`)."""
    return plot_curves(run_dir / "learning_curve.png", evals, "hand_win_rate",
                       f"MaskablePPO, {args.env}")  # fmt: skip


def _commands(state: dict[str, Any]) -> list[str]:
    """Every command of a run: the first (from its saved args) and each resume."""
    commands = list(state.get("commands", []))
    if not commands or "--resume" in commands[0]:
        commands.insert(0, command_line(Args(**state["args"]), MODULE))
    return commands


def export(
    run_dir: str | Path, name: str, directory: str | Path | None = None, best: bool = False
) -> Path:
    """Write the latest checkpoint's actor (with ``best``: the kept best one, see
    ``--keep-best``) as ``<directory>/<name>.zip`` (actor only, small)."""
    check_export_name(name)
    last = latest_checkpoint(run_dir)
    ckpt = Path(run_dir) / "checkpoints" / "best" if best else last
    if ckpt is None or not ckpt.is_dir():
        raise ValueError(f"run_dir {str(run_dir)!r} has no checkpoint to export")
    state = load_state(ckpt)
    run_total: dict[str, Any] = {}
    if best and last is not None:  # the whole run's length and evaluations, for the card
        final = load_state(last)
        run_total = {
            "run_steps": int(final["num_timesteps"]),
            "run_wall_s": round(final["wall_s"], 1),
            "best": final.get("best"),
        }
        state["evals"] = final.get("evals", state.get("evals", []))
        state["commands"] = final.get("commands", state.get("commands", []))
    actor = load_actor(ckpt, name=name)
    if isinstance(actor, HistoryActor) and directory is None:
        raise ValueError(
            "a history actor is not a shipped agent (agents.make plays flat MLP actors): give "
            "export a directory; training.encoders.load_actor reads the file"
        )
    out_dir = check_writable(directory if directory is not None else CHECKPOINT_DIR, folder=True)
    curve = Path(run_dir) / "learning_curve.png"
    if curve.is_file():
        shutil.copyfile(curve, out_dir / f"{name}-learning-curve.png")
    meta = dict(name=name, env=state["args"]["env"], steps=int(state["num_timesteps"]),
                wall_s=round(state["wall_s"], 1), args=state["args"], commands=_commands(state),
                bc=state.get("bc"), evals=state.get("evals", []), layout=state.get("layout"),
                **run_total)  # fmt: skip
    return save_actor(actor, out_dir / f"{name}.zip", **meta)


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
    command = f"python -m {MODULE} card " + " ".join(argv)
    results = card_evaluation(ns.name, ns.pairs, ns.matches, ns.workers, ns.seed)
    print(json.dumps(results, indent=1, default=str))
    print(write_model_card(ns.name, results, command))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["card"]:
        return card_main(argv[1:])
    args = parse_args(argv)
    try:
        summary = train(args)
    except (ValueError, FileNotFoundError) as err:  # a refused folder, a bad file: one line
        print(f"{prog_name(f'python -m {MODULE}')}: error: {err}", file=sys.stderr)
        return 2
    print_run_end(summary_lines(summary, args), args, args.env)
    return 0


def summary_lines(summary: dict[str, Any], args: Args) -> list[str]:
    """What a finished (or stopped) run prints: its length, its pool, where its player is
    and how to seat it, and the best evaluation if it kept one."""
    run_dir = Path(args.run_dir)
    done = "finished" if summary["finished"] else "stopped before --total-steps"
    lines = [
        f"trained {summary['num_timesteps']:,} steps in {summary['wall_s']:,.1f} s; {done}; "
        f"league pool {', '.join(summary['pool'])}",
    ]
    best = summary.get("best")
    if best:
        lines.append(
            f"best: step {best['step']:,}, "
            f"{metric_text(best['key'], best['score'], 2 * args.eval_pairs)}"
        )
    return lines + run_player_lines(run_dir, args.export, ".zip")


if __name__ == "__main__":
    raise SystemExit(main())
