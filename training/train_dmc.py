"""Deep Monte-Carlo (DMC) self-play for ``gin_v0`` and ``three_handed_gin_v0``.

The method of DouZero (Zha et al., 2021), written for this project in the CleanRL manner:
one file, a typed :class:`Args`, then the loop in banner-marked parts.

- **Q(s, a)**: an MLP over the seat's observation and an encoding of the candidate action
  (:mod:`agents.dmc`: kind of move, card, the hand's deadwood after the move, optionally
  L2's choice), evaluated for all legal actions of a batch at once (the legal (row, action)
  pairs are flattened). One network for every role (the role is in the observation) or one
  per role (``--role-nets``). ``--history lstm`` adds DouZero's history encoder: an LSTM
  over the seat's move history (the engine's ``observation="history"``), its last output
  joining the observation (:func:`agents.dmc.torch_model`); the replay keeps each
  decision's history as 64 two-byte move codes (:func:`training.dmc_actors.history_codes`),
  expanded when a batch is drawn, and evaluation plays on envs with the history.
- **Actors** (:class:`training.dmc_actors.Actor`): :class:`gin_env.vector.VectorGinEnv`
  with ``--num-envs`` games; every seat plays with the current networks, epsilon-greedy.
  ``--opponent-share`` of the hands put one learner seat against fixed opponents
  (``--opponents``, by agent name, each answering all its rows at once through
  :func:`agents.batched.seat_batched`: L0, L1 and L2 compiled).
- **Fixed roles** (``--fixed-roles box=heuristic,adviser=heuristic``, three-handed): those
  roles are played by fixed agents in every hand (batched, as the opponents); only the other roles'
  decisions are learned from (the replay never holds a fixed role's decision). With fixed
  roles the evaluation is the team's: the learning roles played by the greedy player, the
  fixed ones by their agents, on ``--eval-pairs`` single hands against the box, with the
  adviser and with it muted (:func:`gin_eval.play.play_advice_hands`), selected
  on the team's points.
  ``--init-from <checkpoint folder>`` starts a new run from another run's networks (a
  captain trained beside a fixed adviser, then jointly with a learning one).
- **Targets**: the Monte-Carlo return of each decision is its own side's points in the hand
  it was made in (the team's for the captain and the adviser: ``reward="team"``), taken from
  the engine's rewards at ``hand_over``, times ``--reward-scale``. No bootstrapping.
- **Learner**: interleaved with acting in one process (``--torch-threads`` threads):
  after each engine step, ``--replay-ratio`` x the new decisions are drawn from a FIFO
  replay of the latest ``--buffer-size`` decisions in batches of ``--batch-size``
  (mean squared error, Adam). With ``--actors N`` the acting runs in N processes instead
  (:mod:`training.dmc_actors`, as DouZero's actors): each plays its own deals with numpy
  copies of the networks, refreshed from shared memory after every learning step, and
  sends the decisions of finished hands to this learner through a queue; the learner
  learns from them at the same replay ratio. Not reproducible step for step (which weights
  an actor holds depends on timing); no warm start.
- **Warm start** (``--warm-steps``): the first decisions are played by L2 (the heuristic)
  in every seat, epsilon-perturbed (``--warm-epsilon``): the learner fits Q to L2's returns,
  a Monte-Carlo evaluation of L2's policy. Playing greedily on that Q is one step of policy
  improvement over L2; self-play then continues from it. The run evaluates the greedy
  player at the end of the warm start, so the gain of self-play shows apart from it.

Every ``--checkpoint-every`` decisions (or ``--checkpoint-minutes``) the run writes
``<run-dir>/checkpoints/step_<n>/``, data only: ``model.pt`` (networks and Adam state, torch
state dicts read with ``weights_only=True``) and ``state.json`` (actor and learner RNG
states, step counts, settings, evaluations), a few MB. The replay goes in too only with
``--checkpoint-replay`` (hundreds of MB); without it a resumed run starts with an empty
replay and refills it from fresh play before it learns again (``--batch-size`` decisions).
``--copy-checkpoint DIR`` copies each step checkpoint to ``DIR`` (a folder to commit; one
that holds anything but this run's copy is refused), and ``--resume --resume-from DIR``
continues from it in a fresh ``--run-dir``. A new run in a folder that holds one is refused
(``--resume`` or ``--overwrite``), and so is ``--resume`` with no checkpoint.
``--resume`` continues from the latest one with the run's saved settings (a conflicting
flag is an error). The games in progress at a checkpoint are not saved (their decisions
have no return yet): a resumed run starts fresh deals from a seed derived from the step
count.
SIGINT / SIGTERM write a checkpoint and stop. Every ``--eval-every`` decisions the greedy
player meets ``--eval-opponents`` on ``--eval-seed`` (duplicate deals in gin, matches in the
three-handed game); ``--keep-best`` keeps the best (on that seed) as ``checkpoints/best``.
Report a kept player on another seed (``card``). Logs: TensorBoard under ``<run-dir>/tb``,
``eval.csv`` and ``learning_curve.png`` (by decisions and by hours); each evaluation is also
a line, e.g. ``[2,000,086] eval (train) vs simple -2.52 [-3.60, -1.44] a hand, hands won
45.7% [41.3, 50.1]; vs heuristic ...`` (95% CIs).

The run's player files are in the run folder, never in the package: ``untrained.npz`` (the
networks at the start), ``latest.npz`` (at every checkpoint) and ``best.npz`` (at every
new best with ``--keep-best``), numpy players of :mod:`agents.dmc`. ``--agents RUN_DIR``
(``agents.seat(RUN_DIR, table)``) seats the best if there is one, else the latest. The
command ends with the untrained and the run's player on the same ``--report-deals``
duplicate deals (95% CIs, their difference paired by deal; 0: none). ``--export NAME`` is
for maintainers: it also copies the player into the package's ``agents/checkpoints/``.

    python -m training.train_dmc --env gin --run-dir runs/gin-dmc --total-steps 5000000
    python -m training.train_dmc --run-dir runs/gin-dmc --resume       # after a stop
    gin-rummy eval gin --agents runs/gin-dmc,heuristic --pairs 500  # the run's player
    python -m training.train_dmc --run-dir runs/gin-dmc --resume --export gin-dmc  # ship it
    python -m training.train_dmc card gin-dmc --pairs 5000 --seed 2026  # the model card
    gin-rummy train --algo dmc ...                                        # the same
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from agents.dmc import (
    action_size,
    net_groups,
    qnets,
    torch_model,
)
from agents.dmc import save as save_player
from agents.trained import CHECKPOINT_DIR
from gin_env.encoding import OBS_SIZE
from gin_eval.play import play_advice_hands
from gin_eval.plots import plot_curves
from gin_eval.stats import mean_ci
from gin_eval.writer import write_json
from training import prog_name
from training.checkpoints import (
    check_export_name,
    check_writable,
    checkpoint_run_id,
    claim_run_dir,
    latest_checkpoint,
    new_run_id,
    resume_settings,
    set_rng_states,
)
from training.dmc_actors import Actor, ActorPool, HandReturns, history_from_codes, stack
from training.dmc_config import CHANGEABLE, ENVS, Args, apply_preset, check, fixed_roles
from training.dmc_store import (
    CHECKPOINT_FILES,
    ExperienceBuffer,
    adopt_checkpoint,
    copy_checkpoint,
    load_blob,
    load_models,
    load_state,
    save_networks,
    to_agent,
)
from training.flags import command_line, names, parse
from training.model_cards import card_evaluation, write_dmc_card
from training.periodic_eval import (
    eval_line,
    evaluate_agent,
    metric_text,
    print_run_end,
    run_player_lines,
    write_eval_csv,
)
from training.progress import Progress

__all__ = [
    "HandReturns",
    "Args",
    "parse_args",
    "train",
    "main",
    "export",
    "write_player",
    "to_agent",
    "ExperienceBuffer",
    "CHANGEABLE",
    "ENVS",
    "CHECKPOINT_FILES",
    "check",
    "fixed_roles",
    "load_state",
    "load_models",
    "adopt_checkpoint",
    "copy_checkpoint",
]

MODULE = "training.train_dmc"


def parse_args(argv: list[str] | None = None) -> Args:

    args, explicit, parser = parse(Args, argv, prog_name(f"python -m {MODULE}"), __doc__ or "")
    try:
        args = apply_preset(args, explicit)
        if args.resume:
            adopt_checkpoint(args.run_dir, args.resume_from)
            ckpt = latest_checkpoint(args.run_dir)
            if ckpt is not None:
                saved = load_state(ckpt)["args"]
                merged = resume_settings(saved, dataclasses.asdict(args), explicit, CHANGEABLE)
                args = Args(**merged)
                args.resume = True
        check(args)
    except ValueError as err:  # a bad value is a usage error, before anything runs
        parser.error(str(err))
    return args


# ==========================================================================================
# Training
# ==========================================================================================
def _merge_resume(args: Args, saved: dict[str, Any]) -> Args:
    """Programmatic ``train(args)`` on resume: the saved settings, except changeable flags;
    a setting that differs from both the saved value and its default is a conflict."""
    defaults = {f.name: f.default for f in dataclasses.fields(Args)}
    given = dataclasses.asdict(args)
    # Changeable settings come from the call (a parsed resume command has merged them
    # already); any other that differs from both the saved value and its default conflicts.
    explicit = {k for k, v in given.items() if v != defaults[k] or k in CHANGEABLE}

    merged = resume_settings(saved, given, explicit, CHANGEABLE)
    out = Args(**merged)
    out.resume = True
    return out


def _init_models(models: list[Any], args: Args) -> dict[str, Any]:
    """Load the networks of ``args.init_from`` (a checkpoint folder) into ``models``; returns
    where they came from (the folder, its run's id and decisions), kept in the run's state
    because the folder may move on. From networks without the history into ones with it:
    the first layer's observation columns are copied, its history columns set to zero (the
    LSTM keeps its fresh initialisation), so the new networks score every pair as the old
    ones until they learn."""
    import torch  # the train extra

    ckpt = Path(args.init_from)
    if not (ckpt / "model.pt").is_file():
        raise ValueError(f"init_from {args.init_from!r} is not a checkpoint folder (no model.pt)")
    src_state = load_state(ckpt)
    src = Args(**src_state["args"])
    for key in ("hidden", "features", "role_nets", "env", "history"):
        if key == "history" and (src.history, args.history) == ("none", "lstm"):
            continue
        if getattr(src, key) != getattr(args, key):
            raise ValueError(
                f"init_from: the checkpoint has --{key.replace('_', '-')} "
                f"{getattr(src, key)!r}, this run {getattr(args, key)!r}"
            )
    blob = load_blob(ckpt)
    for m, sd in zip(models, blob["models"], strict=True):
        if src.history == args.history:
            m.load_state_dict(sd)
            continue
        sd = dict(sd)
        wide = torch.zeros_like(m.obs.weight)
        wide[:, :OBS_SIZE] = sd["obs.weight"]
        sd["obs.weight"] = wide
        missing, unexpected = m.load_state_dict(sd, strict=False)
        assert not unexpected and all(k.startswith("lstm.") for k in missing), (missing, unexpected)
    return {
        "checkpoint": str(args.init_from),
        "run_id": src_state.get("run_id"),
        "steps": int(src_state.get("steps", 0)),
        "wall_s": round(float(src_state.get("wall_s", 0.0)), 1),
    }


@dataclass
class RunState:
    """What a run counts and records, saved (with the RNG states) in every checkpoint's
    ``state.json``."""

    args: dict[str, Any]
    run_id: str
    steps: int = 0
    updates: int = 0
    hands: int = 0
    wall_s: float = 0.0
    owed: float = 0.0  # decisions owed to the learner (replay ratio x decisions pushed)
    evals: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    best: dict[str, Any] | None = None
    next_eval: int = 0
    next_ckpt: int = 0
    warm_done: bool = False
    commands: list[str] = dataclasses.field(default_factory=list)
    #: The learning rate's schedule, ``[from step, rate]``.
    learning_rates: list[list[float]] = dataclasses.field(default_factory=list)
    #: ``--init-from``'s checkpoint as it was read: folder, run id, decisions, wall seconds.
    started_from: dict[str, Any] | None = None

    @classmethod
    def fresh(cls, args: Args) -> RunState:
        return cls(
            args=dataclasses.asdict(args),
            run_id=new_run_id(),
            next_eval=min(args.eval_every, args.warm_steps or args.eval_every),
            next_ckpt=args.checkpoint_every,
            warm_done=args.warm_steps == 0,
        )

    @classmethod
    def from_saved(cls, saved: dict[str, Any]) -> RunState:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in saved.items() if k in known})


def _rng(state: dict[str, Any]) -> np.random.Generator:
    rng = np.random.default_rng()
    rng.bit_generator.state = state
    return rng


class Learner:
    """The Q networks (one, or one per role), their Adam optimizer and the replay they
    learn from."""

    def __init__(self, args: Args) -> None:
        import torch  # the train extra

        self.torch = torch
        self.args = args
        torch.manual_seed(args.seed)
        players = 2 if args.env == "gin" else 3
        self.n_nets = players if args.role_nets else 1
        hidden = [int(x) for x in names(args.hidden)]
        self.models = [torch_model(hidden, args.features, args.history) for _ in range(self.n_nets)]
        params = [p for m in self.models for p in m.parameters()]
        self.opt = torch.optim.Adam(params, lr=args.learning_rate)
        self.replay = ExperienceBuffer(
            args.buffer_size, action_size(args.features), args.history != "none"
        )

    def restore(self, ckpt: Path) -> None:
        """The checkpoint's networks, optimizer (at this run's rate) and replay, if kept."""
        blob = load_blob(ckpt)
        try:
            for m, sd in zip(self.models, blob["models"], strict=True):
                m.load_state_dict(sd)
            self.opt.load_state_dict(blob["optimizer"])
        except (RuntimeError, KeyError, TypeError, ValueError) as err:
            line = str(err).splitlines()[0][:160]
            msg = f"{ckpt / 'model.pt'}: does not fit this run's networks ({line})"
            raise ValueError(msg) from None
        # A resume may change the rate (an annealed tail); the saved groups would keep theirs.
        for group in self.opt.param_groups:
            group["lr"] = self.args.learning_rate
        if (ckpt / "replay.npz").is_file():
            self.replay.load(ckpt / "replay.npz")

    def score(
        self,
        obs: np.ndarray,
        rows: np.ndarray,
        feats: np.ndarray,
        net: np.ndarray,
        history: np.ndarray | None = None,
        history_mask: np.ndarray | None = None,
    ) -> np.ndarray:
        """Q of every pair by its network (an in-process actor's scorer)."""
        torch = self.torch
        with torch.no_grad():
            ob_t, rows_t, ft_t = (torch.from_numpy(x) for x in (obs, rows, feats))
            hist = None if history is None else torch.from_numpy(history)
            hmask = None if history_mask is None else torch.from_numpy(history_mask)
            q = np.empty(len(rows), np.float32)
            for k, sel in net_groups(net, self.n_nets):
                q[sel] = self.models[k].pairs(ob_t, rows_t[sel], ft_t[sel], hist, hmask).numpy()
            return q

    def learn(self, rng: np.random.Generator) -> float:
        """One gradient step on ``batch_size`` decisions drawn from the replay; the loss."""
        torch, args = self.torch, self.args
        ob, ft, net, codes, tg = self.replay.sample(rng, args.batch_size)
        ob_t = torch.from_numpy(ob.astype(np.float32))
        ft_t = torch.from_numpy(ft.astype(np.float32))
        tg_t = torch.from_numpy(tg)
        hist_t = hmask_t = None
        if args.history != "none":
            hist, hmask = history_from_codes(codes)
            hist_t, hmask_t = torch.from_numpy(hist), torch.from_numpy(hmask)
        loss = torch.zeros(())
        for k, sel in net_groups(net, self.n_nets):
            if hist_t is None or hmask_t is None:
                q = self.models[k](ob_t[sel], ft_t[sel])
            else:
                q = self.models[k](ob_t[sel], ft_t[sel], hist_t[sel], hmask_t[sel])
            loss = loss + ((q - tg_t[sel]) ** 2).sum()
        loss = loss / args.batch_size
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return float(loss.detach())

    def save(self, run_dir: Path, name: str, state: dict[str, Any], pointer: bool = True) -> Path:
        """A checkpoint folder (the replay too for a step checkpoint with
        ``--checkpoint-replay``)."""
        keep = self.replay if pointer and self.args.checkpoint_replay else None
        return save_networks(run_dir, name, self.models, self.opt, keep, state,
                     self.args.keep_checkpoints, pointer)  # fmt: skip


class _InProcess:
    """The acting of a run without actor processes: one :class:`Actor` scoring with the
    learner's torch networks, the same ``get`` / ``publish`` / ``close`` as a pool."""

    def __init__(self, actor: Actor) -> None:
        self.actor = actor

    def get(self, steps: int) -> tuple[int, int, Any]:
        played, hands, done_rows = self.actor.step(steps)
        return played, hands, stack(done_rows) if done_rows else None

    def publish(self, learner: Learner) -> None:
        pass  # it scores with the learner's own networks

    def close(self) -> None:
        pass


class _Pool:
    """Actor processes (:class:`ActorPool`) behind the same interface."""

    def __init__(self, pool: ActorPool) -> None:
        self.pool = pool

    def get(self, steps: int) -> tuple[int, int, Any] | None:
        return self.pool.get()

    def publish(self, learner: Learner) -> None:
        self.pool.publish(qnets(learner.models))  # numpy copies for the actors

    def close(self) -> None:
        self.pool.close()


def _open_run(args: Args) -> tuple[Args, Path | None, dict[str, Any] | None]:
    """Everything checked before any work: the settings, the run folder (a new run where
    one is, or a resume with nothing to resume, is refused), the outputs. Returns the
    run's settings (a resume's come from its checkpoint), the checkpoint and its state."""
    run_dir = Path(args.run_dir)
    if args.resume:
        adopt_checkpoint(run_dir, args.resume_from)
    else:
        check(args)  # before the folder is claimed (--overwrite deletes what is there)
    ckpt = claim_run_dir(run_dir, args.resume, args.overwrite)
    saved = load_state(ckpt) if ckpt is not None else None
    if saved is not None:
        args = _merge_resume(args, saved["args"])
    check(args)
    if args.export:
        check_writable(CHECKPOINT_DIR, folder=True)
    if args.copy_checkpoint:
        target = Path(args.copy_checkpoint)
        if target.exists() and checkpoint_run_id(target) != (saved or {}).get("run_id", ""):
            raise ValueError(
                f"copy_checkpoint {str(target)!r} exists and is not a copy of this run; "
                "give a new folder (it would be replaced)"
            )
        check_writable(target.parent, folder=True)
    return args, ckpt, saved


def evaluate_player(
    learner: Learner, args: Args, role_specs: dict[str, str], step: int
) -> dict[str, Any]:
    """The greedy player's evaluation: the team's with fixed roles, else against
    ``--eval-opponents`` on ``--eval-seed``."""
    agent = to_agent(learner.models, args, name="dmc")
    if role_specs:
        return team_evaluation(agent, role_specs, args.eval_pairs, args.eval_seed, step)
    return evaluate_agent(agent, args.env, names(args.eval_opponents), args.eval_pairs,
                          args.eval_seed, step, env_options=agent.env_options())  # fmt: skip


def selection_key(args: Args) -> str:
    """The evaluation figure ``--keep-best`` selects on."""
    if fixed_roles(args.fixed_roles):
        return "team/points_per_hand"
    last = names(args.eval_opponents)[-1]
    return f"{last}/points_per_hand" if args.env == "gin" else f"{last}/match_win_rate"


def _evaluation_due(state: RunState, args: Args) -> str | None:
    """The phase to evaluate at now (and the next evaluation's step moved on), or None."""
    if not state.warm_done and state.steps >= args.warm_steps:
        state.warm_done = True
        state.next_eval = state.steps + args.eval_every
        return "warm-start"
    if state.steps >= state.next_eval:
        state.next_eval = state.steps + args.eval_every
        if state.steps < args.warm_steps:
            return "warm-start (under way)"
        return "self-play" if args.warm_steps else "train"
    return None


def train(args: Args) -> dict[str, Any]:
    """Train (or resume) a run; returns a summary (steps, wall time, evaluations)."""
    import torch  # the train extra

    args, ckpt, saved = _open_run(args)
    run_dir = Path(args.run_dir)
    torch.set_num_threads(args.torch_threads)

    # -- networks, optimizer, replay, RNGs: fresh or from the checkpoint --------------------
    learner = Learner(args)
    if ckpt is not None and saved is not None:
        learner.restore(ckpt)
        state = RunState.from_saved(saved)
        set_rng_states(saved["rng"])
        act_rng, learn_rng = _rng(saved["act_rng"]), _rng(saved["learn_rng"])
        print(f"resuming from {ckpt} at step {state.steps}", file=sys.stderr)
        # --eval-every may change on resume: the next evaluation follows the last one.
        last_eval = int(state.evals[-1]["step"]) if state.evals else 0
        state.next_eval = max(state.steps, last_eval + args.eval_every)
    else:
        started = _init_models(learner.models, args) if args.init_from else None
        np.random.seed(args.seed)
        act_rng = np.random.default_rng([args.seed, 1])
        learn_rng = np.random.default_rng([args.seed, 2])
        state = RunState.fresh(args)
        state.started_from = started
        (run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=1))
        write_player(run_dir, "untrained", learner.models, args, state)
    # A run from before the schedule was kept began at its saved rate.
    if not state.learning_rates:
        state.learning_rates = [[0, float(state.args["learning_rate"])]]
    if state.learning_rates[-1][1] != args.learning_rate:
        state.learning_rates.append([int(state.steps), float(args.learning_rate)])
    state.args = dataclasses.asdict(args)
    state.commands.append(command_line(args, MODULE))

    # -- actors: in this process, or in actor processes -------------------------------------
    role_specs = fixed_roles(args.fixed_roles)
    source: _InProcess | _Pool
    if args.actors:
        settings = SimpleNamespace(**dataclasses.asdict(args))
        pool = ActorPool(args.actors, settings, role_specs, qnets(learner.models), state.steps)
        source = _Pool(pool)
    else:
        # The (re)started games' seats come from the step count, so a resume leaves the
        # actor's RNG exactly as saved.
        source = _InProcess(Actor(
            args, role_specs, learner.score, seed=args.seed * 1_000_003 + state.steps,
            rng=act_rng, start_rng=np.random.default_rng([args.seed, 3, int(state.steps)]),
            warm=state.steps < args.warm_steps,
        ))  # fmt: skip

    t0 = time.time()
    wall_before = float(state.wall_s)
    sel_key = selection_key(args)

    def saved_state() -> dict[str, Any]:
        """The run's state as a checkpoint keeps it: counters, records, RNG states."""
        state.wall_s = wall_before + time.time() - t0
        return {**dataclasses.asdict(state), "act_rng": act_rng.bit_generator.state,
                "learn_rng": learn_rng.bit_generator.state}  # fmt: skip

    def checkpoint() -> None:
        folder = learner.save(run_dir, f"step_{state.steps:012d}", saved_state())
        write_player(run_dir, "latest", learner.models, args, state)
        if args.copy_checkpoint:
            copy_checkpoint(folder, Path(args.copy_checkpoint), state.run_id)

    progress = Progress(
        args.total_steps,
        state.steps,
        run_dir / "tb",
        args.progress and not args.quiet,
        desc=f"dmc {args.env}",
    )
    stop = {"signal": False}

    def on_signal(signum: int, frame: Any) -> None:
        stop["signal"] = True

    old_handlers = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}

    # -- the loop: act, learn, evaluate, checkpoint -----------------------------------------
    t_rate, steps_rate, last_ckpt = time.time(), state.steps, time.time()
    losses: list[float] = []
    try:
        while state.steps < args.total_steps and not stop["signal"]:
            if args.max_minutes > 0 and time.time() - t0 > 60 * args.max_minutes:
                break
            # Acting: the decisions of finished hands, with their returns.
            warm = state.steps < args.warm_steps
            got = source.get(state.steps)
            if got is None:
                continue
            played, hands, chunk = got
            state.steps += played
            state.hands += hands
            progress.update(played)
            pushed = 0
            if chunk is not None:
                learner.replay.push(*chunk)
                pushed = len(chunk[-1])

            # Learning: replay-ratio x the decisions pushed, in batches.
            state.owed += pushed * (args.warm_replay_ratio if warm else args.replay_ratio)
            learned = False
            while state.owed >= args.batch_size and learner.replay.size >= args.batch_size:
                losses.append(learner.learn(learn_rng))
                state.updates += 1
                state.owed -= args.batch_size
                learned = True
            if learned:
                source.publish(learner)

            # Logging.
            if len(losses) >= 20:
                rate = (state.steps - steps_rate) / max(1e-9, time.time() - t_rate)
                progress.scalars(state.steps, loss__q=float(np.mean(losses)),
                                 speed__decisions_per_s=rate,
                                 speed__updates=float(state.updates))  # fmt: skip
                losses = []
                t_rate, steps_rate = time.time(), state.steps

            # Evaluation: the curves so far; the best and the warm start's end kept apart.
            tag = _evaluation_due(state, args)
            if tag is not None:
                t_eval = time.time()
                res = evaluate_player(learner, args, role_specs, state.steps)
                res.update(hours=(wall_before + time.time() - t0) / 3600,
                           eval_s=time.time() - t_eval, phase=tag)  # fmt: skip
                state.evals.append(res)
                shown = {"eval__" + k.replace("/", "__"): v for k, v in res.items()
                         if isinstance(v, float) and "/" in k}  # fmt: skip
                progress.scalars(state.steps, show=False, **shown)
                if sel_key in res:
                    progress.evaluation(metric_text(sel_key, res[sel_key], _trials(sel_key, args)))
                line = eval_line(res, 2 * args.eval_pairs)
                progress.write(f"[{state.steps:,}] eval ({tag}) {line}")
                write_curves(run_dir, dataclasses.asdict(state), args)
                best = state.best
                if (
                    args.keep_best
                    and tag != "warm-start"
                    and (best is None or res[sel_key] > best["score"])
                ):
                    state.best = {"step": state.steps, "score": res[sel_key], "key": sel_key,
                                  "seed": args.eval_seed}  # fmt: skip
                    learner.save(run_dir, "best", saved_state(), pointer=False)
                    write_player(run_dir, "best", learner.models, args, state)
                if tag == "warm-start":
                    learner.save(run_dir, "warm", saved_state(), pointer=False)

            # Checkpoints: every --checkpoint-every decisions (or --checkpoint-minutes).
            minutes = args.checkpoint_minutes
            if state.steps >= state.next_ckpt or (
                minutes > 0 and time.time() - last_ckpt > 60 * minutes
            ):
                state.next_ckpt = state.steps + args.checkpoint_every
                checkpoint()
                last_ckpt = time.time()
    finally:
        source.close()
        for s, h in old_handlers.items():
            signal.signal(s, h)
        progress.close()
    checkpoint()
    summary: dict[str, Any] = {
        "steps": int(state.steps),
        "updates": int(state.updates),
        "hands": int(state.hands),
        "wall_s": round(wall_before + time.time() - t0, 1),
        "finished": state.steps >= args.total_steps,
        "best": state.best,
        "evals": state.evals,
    }
    write_json(run_dir / "summary.json", summary, [args.seed])
    write_curves(run_dir, dataclasses.asdict(state), args)
    if args.export:
        export(run_dir, args.export, best=args.keep_best)
    return summary


def write_player(run_dir: Path, which: str, models: list[Any], args: Args, state: RunState) -> Path:
    """The run's player ``which`` as ``<run-dir>/<which>.npz`` (:func:`agents.dmc.save`):
    ``untrained`` when the run starts, ``latest`` at every checkpoint, ``best`` at every new
    best. ``--agents RUN_DIR`` (:func:`agents.trained.run_player`) seats the best if the
    run keeps one, else the latest; nothing is written outside the run folder."""
    return save_player(
        run_dir / f"{which}.npz",
        qnets(models),
        args.role_nets,
        args.features,
        name=f"{run_dir.name}-{which}",
        env=args.env,
        algo="dmc",
        steps=int(state.steps),
        margin=float(args.l2_margin),
        run_id=state.run_id,
        best=state.best,
        args=dataclasses.asdict(args),
    )


def write_curves(run_dir: Path, state: dict[str, Any], args: Args) -> None:
    """The run's evaluations as ``eval.csv`` and its learning curves, a line where a resume
    changed the learning rate."""
    evals = state["evals"]
    marks = [(step, f"lr {lr:g}") for step, lr in state.get("learning_rates", [])[1:]]
    write_eval_csv(run_dir / "eval.csv", evals)
    metric = "hand_win_rate" if args.env == "gin" else "match_win_rate"
    if fixed_roles(args.fixed_roles):
        metric = "points_per_hand"  # the team's, advised and muted
    try:
        title = f"DMC, {args.env}"
        plot_curves(run_dir / "learning_curve.png", evals, metric, title, marks)
        if args.env == "gin":
            points = run_dir / "learning_curve_points.png"
            plot_curves(points, evals, "points_per_hand", title, marks)
    except Exception as exc:  # a plot is a nicety; never lose a run over it
        print(f"no learning curve: {exc}", file=sys.stderr)


def team_evaluation(
    agent: Any, role_specs: dict[str, str], hands: int, seed: int, step: int = 0
) -> dict[str, float]:
    """The team of a fixed-roles run on ``hands`` single hands (deals of ``seed``): the
    learning roles played by ``agent``, the fixed ones by their agents, once with the
    adviser and once with it muted (the same deals). ``team/points_per_hand`` is the
    captain's team's points per hand against the box (95% CI), ``muted/...`` the same
    with the adviser saying nothing, ``team/advice_gain`` their difference paired by
    deal, ``team/follow_rate`` the share of suggestions the captain played."""

    def spec(role: str) -> Any:
        return role_specs.get(role, agent)

    out: dict[str, float] = {"step": float(step)}
    runs = {}
    for key, adviser in (("team", spec("adviser")), ("muted", "muted")):
        runs[key] = play_advice_hands(spec("captain"), adviser, spec("box"), seed, 0, hands)
        pts = np.asarray(runs[key]["team_points"], float)
        m, lo, hi = mean_ci(pts)
        out[f"{key}/points_per_hand"] = m
        out[f"{key}/ci_low"], out[f"{key}/ci_high"] = lo, hi
    diff = np.asarray(runs["team"]["team_points"], float) - runs["muted"]["team_points"]
    m, lo, hi = mean_ci(diff)
    out["team/advice_gain"], out["team/gain_ci_low"], out["team/gain_ci_high"] = m, lo, hi
    advised = sum(runs["team"]["advised"])
    out["team/follow_rate"] = sum(runs["team"]["followed"]) / advised if advised else 0.0
    return out


# ==========================================================================================
# Export: a shipped player
# ==========================================================================================
def export(
    run_dir: str | Path,
    name: str,
    directory: str | Path | None = None,
    best: bool = True,
    which: str = "",
    margin: float | None = None,
) -> Path:
    """Write a run's player as ``<directory>/<name>.npz`` (numpy weights + metadata):
    ``checkpoints/best`` when kept (``best``), else the latest; ``which`` names a
    checkpoint folder (``warm``, ``best``, ``step_...``) explicitly; ``margin`` replaces
    the run's ``--l2-margin`` for the shipped player (chosen on the selection seed)."""

    root = Path(run_dir) / "checkpoints"
    last = latest_checkpoint(run_dir)
    if which:
        ckpt: Path | None = root / which
    elif best and (root / "best").is_dir():
        ckpt = root / "best"
    else:
        ckpt = last
    if ckpt is None or not ckpt.is_dir():
        raise ValueError(f"run_dir {str(run_dir)!r} has no checkpoint {which or ''} to export")
    check_export_name(name)
    models, args, state = load_models(ckpt)
    final = load_state(last) if last is not None else state
    out_dir = check_writable(directory if directory is not None else CHECKPOINT_DIR, folder=True)
    for src, suffix in (
        ("learning_curve.png", "learning-curve.png"),
        ("learning_curve_points.png", "learning-curve-points.png"),
        ("eval.csv", "eval.csv"),
    ):
        if (Path(run_dir) / src).is_file():
            (out_dir / f"{name}-{suffix}").write_bytes((Path(run_dir) / src).read_bytes())
    return save_player(
        out_dir / f"{name}.npz",
        qnets(models),
        args.role_nets,
        args.features,
        name=name,
        env=args.env,
        algo="dmc",
        steps=int(state["steps"]),
        wall_s=round(state["wall_s"], 1),
        run_steps=int(final["steps"]),
        run_wall_s=round(final["wall_s"], 1),
        chosen=ckpt.name,
        margin=float(args.l2_margin if margin is None else margin),
        best=final.get("best"),
        args=state["args"],
        commands=final.get("commands", []),
        evals=final.get("evals", []),
        learning_rates=[r for r in final.get("learning_rates", []) if r[0] <= state["steps"]],
        started_from=final.get("started_from"),
    )


def card_main(argv: list[str]) -> int:
    """``card NAME [--pairs N] [--matches N] [--workers N] [--seed N]``: evaluate a shipped
    DMC player on a held-out seed and write its model card."""

    parser = argparse.ArgumentParser(prog=f"python -m {MODULE} card")
    parser.add_argument("name", help="shipped player (agents/checkpoints/<name>.npz)")
    parser.add_argument(
        "--pairs", type=int, default=5000, help="duplicate pairs (gin) (default: 5000)"
    )
    parser.add_argument(
        "--matches",
        type=int,
        default=300,
        help="matches per opponent (three-handed; gin: paired matches to 100) (default: 300)",
    )
    parser.add_argument("--workers", type=int, default=2, help="processes (default: 2)")
    parser.add_argument(
        "--seed",
        type=int,
        default=2026,
        help="held-out evaluation seed, never used for selection (default: 2026)",
    )
    parser.add_argument(
        "--opponents",
        default="random,simple,heuristic,gin-ppo",
        help="gin opponents (default: random,simple,heuristic,gin-ppo)",
    )
    ns = parser.parse_args(argv)
    command = f"python -m {MODULE} card " + " ".join(argv)
    results = card_evaluation(
        ns.name, ns.pairs, ns.matches, ns.workers, ns.seed, names(ns.opponents)
    )
    print(json.dumps(results, indent=1, default=str))
    print(write_dmc_card(ns.name, results, command))
    return 0


def margins_main(argv: list[str]) -> int:
    """``margins CHECKPOINT_DIR [--pairs N] [--margins a,b] [--seed N] [--opponent NAME]``:
    the player of a checkpoint folder at each ``--l2-margin`` against one opponent (gin:
    duplicate pairs; three-handed: matches against two of it), a line each (95% CIs).
    Choose the margin on the selection seed, then report on another."""

    parser = argparse.ArgumentParser(prog=f"python -m {MODULE} margins")
    parser.add_argument("checkpoint", help="a checkpoint folder (e.g. <run-dir>/checkpoints/best)")
    parser.add_argument("--pairs", type=int, default=150, help="pairs / matches (default: 150)")
    parser.add_argument("--margins", default="0.03,0.1,0.3", help="(default: 0.03,0.1,0.3)")
    parser.add_argument("--seed", type=int, default=10_007, help="(default: 10007)")
    parser.add_argument("--opponent", default="heuristic", help="(default: heuristic)")
    ns = parser.parse_args(argv)
    models, args, state = load_models(Path(ns.checkpoint))
    for m in (float(x) for x in names(ns.margins)):
        agent = to_agent(models, dataclasses.replace(args, l2_margin=m), name="dmc")
        t = time.time()
        res = evaluate_agent(
            agent, args.env, [ns.opponent], ns.pairs, ns.seed, state["steps"],
            env_options=agent.env_options(),
        )  # fmt: skip
        line = eval_line(res, 2 * ns.pairs)
        print(f"margin {m:g}: {line} ({time.time() - t:.0f} s)", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["card"]:
        return card_main(argv[1:])
    if argv[:1] == ["margins"]:
        return margins_main(argv[1:])
    args = parse_args(argv)
    try:
        summary = train(args)
    except (ValueError, FileNotFoundError) as err:  # a refused folder, a bad file: one line
        print(f"{prog_name(f'python -m {MODULE}')}: error: {err}", file=sys.stderr)
        return 2
    print_run_end(summary_lines(summary, args), args, args.env)
    return 0


def _trials(key: str, args: Args) -> int:
    """The trials behind a rate of an evaluation: matches three-handed, else hands."""
    return args.eval_pairs if key.endswith("match_win_rate") else 2 * args.eval_pairs


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def summary_lines(summary: dict[str, Any], args: Args) -> list[str]:
    """What a finished (or stopped) run prints: its length, where its player is and how to
    seat it, and the best evaluation if it kept one (the files hold every figure)."""
    run_dir = Path(args.run_dir)
    done = "finished" if summary["finished"] else "stopped before --total-steps"
    lines = [
        f"trained {summary['steps']:,} decisions ({_count(summary['hands'], 'hand')}, "
        f"{_count(summary['updates'], 'update')}) in {summary['wall_s']:,.1f} s; {done}",
    ]
    best = summary.get("best")
    if best:
        lines.append(
            f"best on the selection seed {best.get('seed')}: step {best['step']:,}, "
            f"{metric_text(best['key'], best['score'], _trials(best['key'], args))}"
        )
    return lines + run_player_lines(run_dir, args.export, ".npz")


if __name__ == "__main__":
    raise SystemExit(main())
