"""Deep Monte-Carlo (DMC) self-play for ``gin_v0`` and ``three_handed_gin_v0``.

The method of DouZero (Zha et al., 2021), written for this project in the CleanRL manner:
one file, a typed :class:`Args`, then the loop in banner-marked parts.

- **Q(s, a)**: an MLP over the seat's observation and an encoding of the candidate action
  (:mod:`agents.dmc`: kind of move, card, the hand's deadwood after the move, optionally
  L2's choice), evaluated for all legal actions of a batch at once (the legal (row, action)
  pairs are flattened). One network for every role (the role is in the observation) or one
  per role (``--role-nets``).
- **Actors**: :class:`gin_env.vector.VectorGinEnv` with ``--num-envs`` games; every seat
  plays with the current networks, epsilon-greedy. ``--opponent-share`` of the hands put
  one learner seat against fixed opponents (``--opponents``, by agent name, each playing
  its seat through ``act``).
- **Fixed roles** (``--fixed-roles box=heuristic,adviser=heuristic``, three-handed): those
  roles are played by fixed agents in every hand (through ``act``); only the other roles'
  decisions are learned from (the replay never holds a fixed role's decision). With fixed
  roles the evaluation is the team's: the learning roles played by the greedy player, the
  fixed ones by their agents, on ``--eval-pairs`` single hands against the box, with the
  adviser and with it muted (:mod:`training.team_study`), selected on the team's points.
  ``--init-from <checkpoint folder>`` starts a new run from another run's networks (a
  captain trained beside a fixed adviser, then jointly with a learning one).
- **Targets**: the Monte-Carlo return of each decision is its own side's points in the hand
  it was made in (the team's for the captain and the adviser: ``reward="team"``), taken from
  the engine's rewards at ``hand_over``, times ``--reward-scale``. No bootstrapping.
- **Learner**: interleaved with acting in one process (``--torch-threads`` threads):
  after each engine step, ``--replay-ratio`` x the new decisions are drawn from a FIFO
  replay of the latest ``--buffer-size`` decisions in batches of ``--batch-size``
  (mean squared error, Adam).
- **Warm start** (``--warm-steps``): the first decisions are played by L2 (the heuristic)
  in every seat, epsilon-perturbed (``--warm-epsilon``): the learner fits Q to L2's returns,
  a Monte-Carlo evaluation of L2's policy. Playing greedily on that Q is one step of policy
  improvement over L2; self-play then continues from it. The run evaluates the greedy
  player at the end of the warm start, so the gain of self-play shows apart from it.

Every ``--checkpoint-every`` decisions the run writes ``<run-dir>/checkpoints/step_<n>/``
(weights, optimizer, the replay, actor and learner RNG states, step counts, evaluations);
``--resume`` continues from the latest one with the run's saved settings (a conflicting flag
is an error). The games in progress at a checkpoint are not saved (their decisions have no
return yet): a resumed run starts fresh deals from a seed derived from the step count.
SIGINT / SIGTERM write a checkpoint and stop. Every ``--eval-every`` decisions the greedy
player meets ``--eval-opponents`` on ``--eval-seed`` (duplicate deals in gin, matches in the
three-handed game); ``--keep-best`` keeps the best (on that seed) as ``checkpoints/best``.
Report a kept player on another seed (``card``). Logs: TensorBoard under ``<run-dir>/tb``,
``eval.csv`` and ``learning_curve.png`` (by decisions and by hours).

    python -m training.train_dmc --env gin --run-dir runs/gin-dmc --total-steps 5000000
    python -m training.train_dmc --run-dir runs/gin-dmc --resume       # after a stop
    python -m training.train_dmc --run-dir runs/gin-dmc --resume --export gin-dmc
    python -m training.train_dmc card gin-dmc --pairs 5000 --seed 2026  # the model card
    gin-rummy train --algo dmc ...                                        # the same
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from training import prog_name
from training.flags import HELP, RUN_FLAGS, command_line, names, parse

__all__ = [
    "HandReturns",
    "Args",
    "parse_args",
    "train",
    "main",
    "export",
    "to_agent",
    "Replay",
    "CHANGEABLE",
]

MODULE = "training.train_dmc"


# ==========================================================================================
# Config
# ==========================================================================================
@dataclass
class Args:
    """Everything a run needs; every field is a ``--flag`` (underscores become dashes)."""

    env: str = HELP("gin", "game: gin (two-player gin_v0) or three_handed (three_handed_gin_v0)")
    run_dir: str = HELP("runs/gin-dmc", "folder of the run: checkpoints, logs, curves")
    total_steps: int = HELP(2_000_000, "learner decisions to train for (warm start included)")
    seed: int = HELP(0, "seed of the deals, the network's initialisation and exploration")
    num_envs: int = HELP(256, "games played side by side by the batched engine")
    backend: str = HELP("auto", "batched engine backend: auto, numba or python")
    hidden: str = HELP("256,256,256", "hidden layer sizes of each Q network")
    role_nets: bool = HELP(
        False,
        "one Q network per role (dealer/non-dealer; box/captain/"
        "adviser) instead of one network with the role as input",
    )
    features: str = HELP(
        "basic",
        "action encoding: basic (kind, card, deadwood after the move),"
        " l2 (also whether L2 plays the move; slower: L2 runs every decision)"
        ", advice (basic plus whether the move is the adviser's suggestion)"
        " or l2score (l2 plus L2's own score of the move)",
    )
    fixed_roles: str = HELP(
        "",
        "three-handed: roles played by fixed agents, not learned, as role=agent pairs "
        "(e.g. box=heuristic,adviser=heuristic); their decisions never enter the replay, "
        "and evaluation is the team's (learning roles by the player, with advice and muted)",
    )
    learning_rate: float = HELP(3e-4, "Adam learning rate")
    batch_size: int = HELP(1024, "decisions per gradient step")
    replay_ratio: float = HELP(1.0, "decisions drawn for learning per decision played")
    buffer_size: int = HELP(100_000, "the replay keeps the latest this many decisions")
    epsilon: float = HELP(0.03, "exploration: chance of a uniformly random legal move")
    warm_steps: int = HELP(
        0,
        "warm start: decisions played by epsilon-perturbed L2 in every "
        "seat first, Q fitted to their returns (0: none)",
    )
    l2_margin: float = HELP(
        0.0,
        "features l2 / l2score only: L2's move gets this bonus on Q when the networks act "
        "(self-play, evaluation, export), so they leave L2's move only where Q says another is "
        "better by "
        "more than the margin (conservative improvement over L2)",
    )
    warm_epsilon: float = HELP(0.1, "exploration of the warm start's L2 players")
    warm_replay_ratio: float = HELP(4.0, "replay ratio during the warm start")
    opponents: str = HELP("heuristic", "fixed opponents (agent names) of --opponent-share")
    opponent_share: float = HELP(
        0.0, "share of hands with one learner seat against fixed opponents in the other seats"
    )
    reward_scale: float = HELP(0.01, "targets are hand points times this")
    checkpoint_every: int = HELP(200_000, "decisions between checkpoints")
    keep_checkpoints: int = HELP(2, "step checkpoints kept (the best is kept apart)")
    eval_every: int = HELP(500_000, "decisions between evaluations (also at the warm start's end)")
    eval_pairs: int = HELP(
        300, "duplicate deal pairs (gin) or matches (three-handed) per evaluation and opponent"
    )
    eval_seed: int = HELP(10_007, "seed of the evaluations used for selection (report on another)")
    eval_opponents: str = HELP("simple,heuristic", "evaluation opponents (agent names)")
    keep_best: bool = HELP(
        True,
        "keep the checkpoint that scores best against the last "
        "--eval-opponents member (points per hand in gin, match win rate "
        "three-handed) as checkpoints/best",
    )
    init_from: str = HELP(
        "",
        "a new run starts from the networks of this checkpoint folder (e.g. "
        "<run-dir>/checkpoints/best of a run with the same --hidden, --features and "
        "--role-nets), with a fresh optimizer, replay and counts (a curriculum: a captain "
        "trained beside a fixed adviser, then trained jointly with a learning one)",
    )
    max_minutes: float = HELP(0.0, "stop with a checkpoint after this much wall time (0: none)")
    resume: bool = HELP(False, "continue the run in --run-dir with its saved settings")
    progress: bool = HELP(True, "show a progress bar")
    export: str = HELP(
        "", "at the end, write the best (or latest) player as agents/checkpoints/<name>.npz"
    )
    torch_threads: int = HELP(1, "torch threads of the learner")


#: Flags a ``--resume`` may change; any other that differs from the saved run is an error.
CHANGEABLE = RUN_FLAGS | frozenset(
    {
        "backend",
        "l2_margin",
        "warm_steps",
        "warm_replay_ratio",
        "replay_ratio",
    }
)
ENVS = ("gin", "three_handed")


def parse_args(argv: list[str] | None = None) -> Args:
    from training.checkpoints import latest_checkpoint, resume_settings

    args, explicit, parser = parse(
        Args, argv, prog_name(f"python -m {MODULE}"), (__doc__ or "").split("\n\n")[0]
    )
    try:
        if args.resume:
            ckpt = latest_checkpoint(args.run_dir)
            if ckpt is not None:
                saved = _load_state(ckpt)["args"]
                merged = resume_settings(saved, dataclasses.asdict(args), explicit, CHANGEABLE)
                args = Args(**merged)
                args.resume = True
        check(args)
    except ValueError as err:  # a bad value is a usage error, before anything runs
        parser.error(str(err))
    return args


def check(args: Args) -> None:
    from agents import make
    from agents.dmc import FEATURE_MODES, L2_MODES

    if args.env not in ENVS:
        raise ValueError(f"env must be one of {', '.join(ENVS)}; got {args.env!r}")
    if args.backend not in ("auto", "numba", "python"):
        raise ValueError(f"backend must be auto, numba or python; got {args.backend!r}")
    if args.features not in FEATURE_MODES:
        raise ValueError(
            f"features must be one of {', '.join(FEATURE_MODES)}; got {args.features!r}"
        )
    for key in (
        "total_steps",
        "num_envs",
        "batch_size",
        "buffer_size",
        "checkpoint_every",
        "eval_every",
        "eval_pairs",
        "keep_checkpoints",
    ):
        if getattr(args, key) < 1:
            raise ValueError(f"{key} must be a positive integer; got {getattr(args, key)!r}")
    if args.l2_margin < 0 or (args.l2_margin and args.features not in L2_MODES):
        raise ValueError(
            f"l2_margin must be >= 0 and needs --features in {L2_MODES}; got {args.l2_margin!r}"
        )
    if args.warm_steps < 0:
        raise ValueError(f"warm_steps must be >= 0; got {args.warm_steps!r}")
    for key in ("learning_rate", "reward_scale", "replay_ratio", "warm_replay_ratio"):
        if not getattr(args, key) > 0:
            raise ValueError(f"{key} must be a positive number; got {getattr(args, key)!r}")
    for key in ("epsilon", "warm_epsilon", "opponent_share"):
        if not 0 <= getattr(args, key) <= 1:
            raise ValueError(f"{key} must be in [0, 1]; got {getattr(args, key)!r}")
    if args.buffer_size < args.batch_size:
        raise ValueError(
            f"buffer_size ({args.buffer_size}) must be >= batch_size ({args.batch_size})"
        )
    sizes = names(args.hidden)
    if not sizes or not all(x.isdigit() and int(x) > 0 for x in sizes):
        raise ValueError(
            f"hidden must be comma-separated layer sizes (e.g. 256,256); got {args.hidden!r}"
        )
    for name in names(args.opponents) + names(args.eval_opponents):
        try:
            make(name)
        except ValueError as err:
            raise ValueError(f"opponents: {err}") from None
    if args.opponent_share > 0 and not names(args.opponents):
        raise ValueError("opponent_share > 0 needs at least one of --opponents")
    if args.init_from and not args.resume and not (Path(args.init_from) / "model.pt").is_file():
        raise ValueError(f"init_from {args.init_from!r} is not a checkpoint folder (no model.pt)")
    fixed = fixed_roles(args.fixed_roles)
    if fixed and args.env != "three_handed":
        raise ValueError("fixed_roles needs --env three_handed (roles box, captain, adviser)")
    if fixed and args.opponent_share > 0:
        raise ValueError("fixed_roles and opponent_share > 0 cannot be combined")
    for role, name in fixed.items():
        try:
            make(name)
        except ValueError as err:
            raise ValueError(f"fixed_roles {role}: {err}") from None


def fixed_roles(text: str) -> dict[str, str]:
    """``"box=heuristic,adviser=heuristic"`` -> ``{"box": "heuristic", ...}``: the roles of
    the three-handed game played by fixed agents; at least one role must stay learning."""
    from gin_env.match import ROLE_NAMES

    out: dict[str, str] = {}
    for item in names(text):
        role, eq, agent = (x.strip() for x in item.partition("="))
        if not eq or role not in ROLE_NAMES or not agent:
            raise ValueError(
                f"fixed_roles takes role=agent pairs with roles {', '.join(ROLE_NAMES)}; "
                f"got {item!r}"
            )
        if role in out:
            raise ValueError(f"fixed_roles names role {role!r} twice")
        out[role] = agent
    if len(out) == len(ROLE_NAMES):
        raise ValueError("fixed_roles may not fix every role (nothing would learn)")
    return out


# ==========================================================================================
# The Q network (torch) and its numpy export
# ==========================================================================================
def _torch_model(hidden: list[int], features: str = "basic") -> Any:
    import torch
    from torch import nn

    from agents.dmc import action_size
    from gin_env.encoding import OBS_SIZE

    width = action_size(features)

    class QModel(nn.Module):
        """``relu(W_obs obs + W_act action + b)`` then an MLP to one number."""

        def __init__(self) -> None:
            super().__init__()
            self.obs = nn.Linear(OBS_SIZE, hidden[0])
            self.act = nn.Linear(width, hidden[0], bias=False)
            sizes = [*hidden, 1]
            self.layers = nn.ModuleList(
                nn.Linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False)
            )

        def head(self, h: torch.Tensor) -> torch.Tensor:
            h = torch.relu(h)
            last = len(self.layers) - 1
            for i, layer in enumerate(self.layers):
                h = layer(h)
                if i < last:
                    h = torch.relu(h)
            return h[:, 0]

        def forward(self, obs: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
            return self.head(self.obs(obs) + self.act(feats))

        def pairs(self, obs: torch.Tensor, rows: torch.Tensor, feats: torch.Tensor) -> Any:
            return self.head(self.obs(obs)[rows] + self.act(feats))

    return QModel()


def to_agent(models: list[Any], args: Args, name: str = "dmc", **meta: Any) -> Any:
    """The numpy player (:class:`agents.dmc.DMCAgent`) of the torch networks."""
    from agents.dmc import DMCAgent

    return DMCAgent(
        _qnets(models),
        args.role_nets,
        args.features,
        name=name,
        meta={"env": args.env, **meta},
        margin=args.l2_margin,
    )


def _qnets(models: list[Any]) -> list[Any]:
    from agents.dmc import QNet

    out = []
    for m in models:
        sd = {k: v.detach().cpu().numpy() for k, v in m.state_dict().items()}
        layers = [(sd[f"layers.{i}.weight"], sd[f"layers.{i}.bias"]) for i in range(len(m.layers))]
        out.append(QNet(sd["obs.weight"], sd["act.weight"], sd["obs.bias"], layers))
    return out


# ==========================================================================================
# Replay: the latest decisions with their returns
# ==========================================================================================
class Replay:
    """A FIFO of ``capacity`` decisions: observation (float16), the chosen action's
    encoding (``width`` numbers, :func:`agents.dmc.action_size`), the network that acted
    (role) and the Monte-Carlo target."""

    def __init__(self, capacity: int, width: int | None = None) -> None:
        from agents.dmc import ACTION_FEATURES
        from gin_env.encoding import OBS_SIZE

        self.capacity = capacity
        self.obs = np.zeros((capacity, OBS_SIZE), np.float16)
        self.feats = np.zeros((capacity, width or ACTION_FEATURES), np.float16)
        self.net = np.zeros(capacity, np.int8)
        self.target = np.zeros(capacity, np.float32)
        self.size = 0
        self.pos = 0

    def push(self, obs: np.ndarray, feats: np.ndarray, net: np.ndarray, target: np.ndarray) -> None:
        for start in range(0, len(obs), self.capacity):
            o, f = obs[start : start + self.capacity], feats[start : start + self.capacity]
            n, t = net[start : start + self.capacity], target[start : start + self.capacity]
            idx = (self.pos + np.arange(len(o))) % self.capacity
            self.obs[idx], self.feats[idx], self.net[idx], self.target[idx] = o, f, n, t
            self.pos = int((self.pos + len(o)) % self.capacity)
            self.size = min(self.capacity, self.size + len(o))

    def sample(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
        idx = rng.integers(self.size, size=n)
        return self.obs[idx], self.feats[idx], self.net[idx], self.target[idx]

    def save(self, path: Path) -> None:
        n = self.size
        np.savez(
            path,
            obs=self.obs[:n],
            feats=self.feats[:n],
            net=self.net[:n],
            target=self.target[:n],
            pos=np.int64(self.pos),
        )

    def load(self, path: Path) -> None:
        with np.load(path) as z:
            n = len(z["target"])
            self.obs[:n], self.feats[:n], self.net[:n] = z["obs"], z["feats"], z["net"]
            self.target[:n] = z["target"]
            self.size, self.pos = n, int(z["pos"])


# ==========================================================================================
# Returns: each decision's own side's points of its hand
# ==========================================================================================
class HandReturns:
    """The decisions of each slot's hand in progress, until the hand ends.

    ``add(slot, obs, feats, net, seat)`` stages a decision of player ``seat``;
    ``finish(slot, rewards)`` (at ``hand_over``, with the engine's ``rewards[slot]`` of
    that step in ``reward="team"`` mode) returns ``(obs, feats, net, target)`` for each,
    the target being ``rewards[seat] * scale``: the points the deciding seat's side made in
    that hand (+ won, - lost; the captain's and the adviser's are the team's).
    """

    def __init__(self, n_slots: int, scale: float) -> None:
        self.scale = scale
        self.staged: list[list[tuple[np.ndarray, np.ndarray, int, int]]] = [
            [] for _ in range(n_slots)
        ]

    def add(self, slot: int, obs: np.ndarray, feats: np.ndarray, net: int, seat: int) -> None:
        self.staged[slot].append((obs, feats, net, seat))

    def finish(
        self, slot: int, rewards: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray, int, float]]:
        out = [(o, f, n, float(rewards[seat]) * self.scale) for o, f, n, seat in self.staged[slot]]
        self.staged[slot] = []
        return out

    def drop(self, slot: int) -> None:
        self.staged[slot] = []


# ==========================================================================================
# Checkpoints
# ==========================================================================================
def _load_state(ckpt: Path) -> dict[str, Any]:
    with open(ckpt / "state.pkl", "rb") as fh:
        return dict(pickle.load(fh))


def _save(
    run_dir: Path,
    name: str,
    models: list[Any],
    opt: Any,
    replay: Replay | None,
    state: dict[str, Any],
    keep: int,
    pointer: bool = True,
) -> Path:
    import torch

    from training.checkpoints import rng_states, write_checkpoint

    def write(folder: Path) -> None:
        torch.save(
            {"models": [m.state_dict() for m in models], "optimizer": opt.state_dict()},
            folder / "model.pt",
        )
        if replay is not None:
            replay.save(folder / "replay.npz")
        with open(folder / "state.pkl", "wb") as fh:
            pickle.dump({**state, "rng": rng_states()}, fh)

    return write_checkpoint(run_dir, name, write, keep, pointer)


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
    from training.checkpoints import resume_settings

    merged = resume_settings(saved, given, explicit, CHANGEABLE)
    out = Args(**merged)
    out.resume = True
    return out


def _init_models(models: list[Any], args: Args) -> None:
    """Load the networks of ``args.init_from`` (a checkpoint folder) into ``models``."""
    import torch

    ckpt = Path(args.init_from)
    if not (ckpt / "model.pt").is_file():
        raise ValueError(f"init_from {args.init_from!r} is not a checkpoint folder (no model.pt)")
    src = Args(**_load_state(ckpt)["args"])
    for key in ("hidden", "features", "role_nets", "env"):
        if getattr(src, key) != getattr(args, key):
            raise ValueError(
                f"init_from: the checkpoint has --{key.replace('_', '-')} "
                f"{getattr(src, key)!r}, this run {getattr(args, key)!r}"
            )
    blob = torch.load(ckpt / "model.pt", weights_only=False)
    for m, sd in zip(models, blob["models"], strict=True):
        m.load_state_dict(sd)


def train(args: Args) -> dict[str, Any]:
    """Train (or resume) a run; returns a summary (steps, wall time, evaluations)."""
    import torch

    from agents.batched import make_batched
    from agents.dmc import L2_MODES, action_size, encode_pairs, greedy
    from gin_env.vector import VectorGinEnv
    from training.checkpoints import latest_checkpoint, set_rng_states
    from training.periodic_eval import evaluate_agent
    from training.progress import Progress

    run_dir = Path(args.run_dir)
    ckpt = latest_checkpoint(run_dir) if args.resume else None
    saved = _load_state(ckpt) if ckpt is not None else None
    if saved is not None:
        args = _merge_resume(args, saved["args"])
    elif args.resume:
        print(f"no checkpoint under {run_dir}; starting afresh", file=sys.stderr)
    check(args)
    torch.set_num_threads(args.torch_threads)
    run_dir.mkdir(parents=True, exist_ok=True)
    hidden = [int(x) for x in names(args.hidden)]
    episode = "hand" if args.env == "gin" else "match"

    # -- networks, optimizer, replay, RNGs: fresh or from the checkpoint --------------------
    torch.manual_seed(args.seed)
    env_probe_players = 2 if args.env == "gin" else 3
    n_nets = env_probe_players if args.role_nets else 1
    models = [_torch_model(hidden, args.features) for _ in range(n_nets)]
    params = [p for m in models for p in m.parameters()]
    opt = torch.optim.Adam(params, lr=args.learning_rate)
    replay = Replay(args.buffer_size, action_size(args.features))
    if saved is not None and ckpt is not None:
        blob = torch.load(ckpt / "model.pt", weights_only=False)
        for m, sd in zip(models, blob["models"], strict=True):
            m.load_state_dict(sd)
        opt.load_state_dict(blob["optimizer"])
        if (ckpt / "replay.npz").is_file():
            replay.load(ckpt / "replay.npz")
        state = saved
        set_rng_states(state["rng"])
        act_rng = np.random.default_rng()
        act_rng.bit_generator.state = state["act_rng"]
        learn_rng = np.random.default_rng()
        learn_rng.bit_generator.state = state["learn_rng"]
        print(f"resuming from {ckpt} at step {state['steps']}", file=sys.stderr)
        # --eval-every may change on resume: the next evaluation follows the last one.
        last_eval = int(state["evals"][-1]["step"]) if state["evals"] else 0
        state["next_eval"] = max(state["steps"], last_eval + args.eval_every)
    else:
        if args.init_from:
            _init_models(models, args)
        np.random.seed(args.seed)
        act_rng = np.random.default_rng([args.seed, 1])
        learn_rng = np.random.default_rng([args.seed, 2])
        state = {
            "steps": 0,
            "updates": 0,
            "hands": 0,
            "wall_s": 0.0,
            "evals": [],
            "owed": 0.0,
            "best": None,
            "next_eval": min(args.eval_every, args.warm_steps or args.eval_every),
            "next_ckpt": args.checkpoint_every,
            "args": dataclasses.asdict(args),
            "commands": [],
            "warm_done": args.warm_steps == 0,
        }
        (run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=1))
    state["args"] = dataclasses.asdict(args)
    state["commands"].append(command_line(args, MODULE))

    # -- actors ----------------------------------------------------------------------------
    env = VectorGinEnv(
        args.num_envs,
        args.env,
        seed=args.seed * 1_000_003 + state["steps"],
        backend=args.backend,
        episode=episode,
        reward="team",
    )
    n_slots, n_players = env.num_envs, env.num_players
    fixed = [make_batched(n) for n in names(args.opponents)]  # L0, L1, L2 compiled
    from gin_env.match import ROLE_NAMES

    role_specs = fixed_roles(args.fixed_roles)
    # by_role[r]: index into ``fixed`` (+1) of the agent playing role r, 0 if r learns.
    by_role = np.zeros(max(len(ROLE_NAMES), n_players), np.int64)
    for role_name, agent_name in role_specs.items():
        fixed.append(make_batched(agent_name))
        by_role[ROLE_NAMES.index(role_name)] = len(fixed)
    l2 = make_batched("heuristic")
    ctrl = np.zeros((n_slots, n_players), np.int64)  # 0: learner; k: fixed opponent k - 1
    staged = HandReturns(n_slots, args.reward_scale)
    out = env.reset()
    slots = np.arange(n_slots)

    def draw_seats(slot: int, warm: bool, rng: np.random.Generator = act_rng) -> None:
        ctrl[slot] = 0
        if not warm and fixed and rng.random() < args.opponent_share:
            ctrl[slot] = 1 + int(rng.integers(len(fixed)))
            ctrl[slot, int(rng.integers(n_players))] = 0

    warm_now = state["steps"] < args.warm_steps
    # The (re)started games' seats come from the step count, so a resume leaves the
    # actor's RNG exactly as saved.
    start_rng = np.random.default_rng([args.seed, 3, int(state["steps"])])
    for s in range(n_slots):
        draw_seats(s, warm_now, start_rng)

    def l2_moves(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return l2.act(obs, mask)

    # -- learner ---------------------------------------------------------------------------
    def learn_step() -> float:
        ob, ft, net, tg = replay.sample(learn_rng, args.batch_size)
        ob_t = torch.from_numpy(ob.astype(np.float32))
        ft_t = torch.from_numpy(ft.astype(np.float32))
        tg_t = torch.from_numpy(tg)
        loss = torch.zeros(())
        for k, m in enumerate(models):
            sel = np.flatnonzero(net == k) if n_nets > 1 else slice(None)
            if n_nets > 1 and len(sel) == 0:  # type: ignore[arg-type]
                continue
            q = m(ob_t[sel], ft_t[sel])
            loss = loss + ((q - tg_t[sel]) ** 2).sum()
        loss = loss / args.batch_size
        opt.zero_grad()
        loss.backward()
        opt.step()
        state["updates"] += 1
        return float(loss.detach())

    # -- evaluation and checkpoints --------------------------------------------------------
    t0 = time.time()
    wall_before = float(state["wall_s"])
    sel_opp = names(args.eval_opponents)[-1]
    sel_key = f"{sel_opp}/points_per_hand" if args.env == "gin" else f"{sel_opp}/match_win_rate"
    if role_specs:
        sel_key = "team/points_per_hand"

    def wall() -> float:
        return wall_before + time.time() - t0

    def snapshot() -> dict[str, Any]:
        return {
            **state,
            "wall_s": wall(),
            "act_rng": act_rng.bit_generator.state,
            "learn_rng": learn_rng.bit_generator.state,
        }

    def checkpoint() -> None:
        name = f"step_{state['steps']:012d}"
        _save(run_dir, name, models, opt, replay, snapshot(), args.keep_checkpoints)

    progress = Progress(
        args.total_steps, state["steps"], run_dir / "tb", args.progress, desc=f"dmc {args.env}"
    )

    def evaluate(tag: str) -> None:
        t_eval = time.time()
        agent = to_agent(models, args, name="dmc")
        if role_specs:
            res = team_evaluation(
                agent, role_specs, args.eval_pairs, args.eval_seed, state["steps"]
            )
        else:
            res = evaluate_agent(
                agent,
                args.env,
                names(args.eval_opponents),
                args.eval_pairs,
                args.eval_seed,
                state["steps"],
            )
        res["hours"] = wall() / 3600
        res["eval_s"] = time.time() - t_eval
        res["phase"] = tag  # type: ignore[assignment]
        state["evals"].append(res)
        progress.scalars(
            state["steps"],
            show=False,
            **{
                "eval__" + k.replace("/", "__"): v
                for k, v in res.items()
                if isinstance(v, float) and "/" in k
            },
        )
        progress.write(f"[{state['steps']}] eval ({tag}) {json.dumps(res)}")
        write_curves(run_dir, state["evals"], args)  # the curves so far, after every evaluation
        if (
            args.keep_best
            and tag != "warm-start"
            and (state["best"] is None or res[sel_key] > state["best"]["score"])
        ):
            state["best"] = {
                "step": state["steps"],
                "score": res[sel_key],
                "key": sel_key,
                "seed": args.eval_seed,
            }
            _save(
                run_dir, "best", models, opt, None, snapshot(), args.keep_checkpoints, pointer=False
            )
        if tag == "warm-start":
            _save(
                run_dir, "warm", models, opt, None, snapshot(), args.keep_checkpoints, pointer=False
            )

    stop = {"signal": False}

    def on_signal(signum: int, frame: Any) -> None:
        stop["signal"] = True

    old_handlers = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}

    # -- the loop --------------------------------------------------------------------------
    t_rate, steps_rate = time.time(), state["steps"]
    losses: list[float] = []
    try:
        while state["steps"] < args.total_steps and not stop["signal"]:
            if args.max_minutes > 0 and time.time() - t0 > 60 * args.max_minutes:
                break
            warm = state["steps"] < args.warm_steps
            obs, mask, seat, role = out["observation"], out["action_mask"], out["seat"], out["role"]
            who = ctrl[slots, seat]
            if role_specs:  # a fixed role's agent plays it, whoever holds the seat
                who = np.where(by_role[role] > 0, by_role[role], who)
            acts = np.empty(n_slots, np.int64)
            for k in np.unique(who[who > 0]).tolist():  # each fixed agent on its rows at once
                r = np.flatnonzero(who == k)
                acts[r] = fixed[k - 1].act(obs[r], mask[r], act_rng)
            learner = np.flatnonzero(who == 0)
            if len(learner):
                lob, lmask = obs[learner], mask[learner]
                need_l2 = warm or args.features in L2_MODES
                l2a = l2_moves(lob, lmask) if need_l2 else None
                rows, pacts, feats = encode_pairs(lob, lmask, args.features, l2a)
                if warm:
                    assert l2a is not None
                    chosen = l2a.copy()
                else:
                    with torch.no_grad():
                        ob_t = torch.from_numpy(lob)
                        rows_t = torch.from_numpy(rows)
                        ft_t = torch.from_numpy(feats)
                        if n_nets == 1:
                            q = models[0].pairs(ob_t, rows_t, ft_t).numpy()
                        else:
                            q = np.empty(len(rows), np.float32)
                            prole = role[learner][rows]
                            for k, m in enumerate(models):
                                sel = np.flatnonzero(prole == k)
                                if len(sel):
                                    q[sel] = m.pairs(ob_t, rows_t[sel], ft_t[sel]).numpy()
                    if args.l2_margin and l2a is not None:
                        q = q + args.l2_margin * (pacts == l2a[rows])
                    chosen = greedy(rows, pacts, q, len(learner))
                eps = args.warm_epsilon if warm else args.epsilon
                for i in np.flatnonzero(act_rng.random(len(learner)) < eps).tolist():
                    legal = np.flatnonzero(lmask[i])
                    chosen[i] = int(legal[act_rng.integers(len(legal))])
                acts[learner] = chosen
                pick = np.flatnonzero(pacts == chosen[rows])  # one pair per row, in row order
                net_of = role[learner] if n_nets > 1 else np.zeros(len(learner), np.int64)
                for i, slot in enumerate(learner.tolist()):
                    staged.add(slot, lob[i], feats[pick[i]], int(net_of[i]), int(seat[slot]))
                state["steps"] += len(learner)
                progress.update(len(learner))
            out = env.step(acts)

            # -- returns at the end of each hand --------------------------------------------
            ended = np.flatnonzero(out["hand_over"] | out["done"])
            pushed = 0
            if len(ended):
                done_rows: list[tuple[np.ndarray, np.ndarray, int, float]] = []
                for slot in ended.tolist():
                    if out["hand_over"][slot]:
                        state["hands"] += 1
                        done_rows += staged.finish(slot, out["rewards"][slot])
                    else:  # a cut episode's unfinished hand has no return: dropped
                        staged.drop(slot)
                    draw_seats(slot, state["steps"] < args.warm_steps)
                if done_rows:
                    o_a, f_a, n_a, t_a = zip(*done_rows, strict=True)
                    replay.push(np.asarray(o_a), np.asarray(f_a), np.asarray(n_a, np.int8),
                                np.asarray(t_a, np.float32))  # fmt: skip
                    pushed = len(done_rows)

            # -- learning, interleaved --------------------------------------------------------
            ratio = args.warm_replay_ratio if warm else args.replay_ratio
            state["owed"] += pushed * ratio
            while state["owed"] >= args.batch_size and replay.size >= args.batch_size:
                losses.append(learn_step())
                state["owed"] -= args.batch_size

            # -- bookkeeping --------------------------------------------------------------------
            if losses and len(losses) >= 20:
                rate = (state["steps"] - steps_rate) / max(1e-9, time.time() - t_rate)
                progress.scalars(
                    state["steps"],
                    loss__q=float(np.mean(losses)),
                    speed__decisions_per_s=rate,
                    speed__updates=float(state["updates"]),
                )
                losses = []
                t_rate, steps_rate = time.time(), state["steps"]
            if not state["warm_done"] and state["steps"] >= args.warm_steps:
                state["warm_done"] = True
                evaluate("warm-start")
                state["next_eval"] = state["steps"] + args.eval_every
            elif state["steps"] >= state["next_eval"]:
                state["next_eval"] = state["steps"] + args.eval_every
                evaluate(
                    "warm-start (under way)"
                    if state["steps"] < args.warm_steps
                    else ("self-play" if args.warm_steps else "train")
                )
            if state["steps"] >= state["next_ckpt"]:
                state["next_ckpt"] = state["steps"] + args.checkpoint_every
                checkpoint()
    finally:
        for s, h in old_handlers.items():
            signal.signal(s, h)
        progress.close()
    checkpoint()
    finished = state["steps"] >= args.total_steps
    summary: dict[str, Any] = {
        "steps": int(state["steps"]),
        "updates": int(state["updates"]),
        "hands": int(state["hands"]),
        "wall_s": round(wall(), 1),
        "finished": finished,
        "best": state["best"],
        "evals": state["evals"],
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    write_curves(run_dir, state["evals"], args)
    if args.export:
        export(run_dir, args.export, best=args.keep_best)
    return summary


def write_curves(run_dir: Path, evals: list[dict[str, Any]], args: Args) -> None:
    from training.periodic_eval import plot_curves, write_eval_csv

    write_eval_csv(run_dir / "eval.csv", evals)
    metric = "hand_win_rate" if args.env == "gin" else "match_win_rate"
    if fixed_roles(args.fixed_roles):
        metric = "points_per_hand"  # the team's, advised and muted
    try:
        plot_curves(run_dir / "learning_curve.png", evals, metric, f"DMC, {args.env}")
        if args.env == "gin":
            plot_curves(
                run_dir / "learning_curve_points.png", evals, "points_per_hand", f"DMC, {args.env}"
            )
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
    from training.stats import mean_ci
    from training.team_study import play_advice_hands

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
def load_models(ckpt: Path) -> tuple[list[Any], Args, dict[str, Any]]:
    """The torch networks, settings and state of a checkpoint folder."""
    import torch

    state = _load_state(ckpt)
    args = Args(**state["args"])
    blob = torch.load(ckpt / "model.pt", weights_only=False)
    models = [
        _torch_model([int(x) for x in names(args.hidden)], args.features) for _ in blob["models"]
    ]
    for m, sd in zip(models, blob["models"], strict=True):
        m.load_state_dict(sd)
    return models, args, state


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
    from agents import dmc
    from agents.trained import CHECKPOINT_DIR
    from training.checkpoints import latest_checkpoint

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
    models, args, state = load_models(ckpt)
    final = _load_state(last) if last is not None else state
    out_dir = Path(directory) if directory is not None else CHECKPOINT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    for src, suffix in (
        ("learning_curve.png", "learning-curve.png"),
        ("learning_curve_points.png", "learning-curve-points.png"),
        ("eval.csv", "eval.csv"),
    ):
        if (Path(run_dir) / src).is_file():
            (out_dir / f"{name}-{suffix}").write_bytes((Path(run_dir) / src).read_bytes())
    return dmc.save(
        out_dir / f"{name}.npz",
        _qnets(models),
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
    )


def card_main(argv: list[str]) -> int:
    """``card NAME [--pairs N] [--matches N] [--workers N] [--seed N]``: evaluate a shipped
    DMC player on a held-out seed and write its model card."""
    import argparse

    from training.model_cards import card_evaluation, write_dmc_card

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
    duplicate pairs; three-handed: matches against two of it), one JSON line each. Choose
    the margin on the selection seed, then report on another."""
    import argparse
    import time as _time

    from training.periodic_eval import evaluate_agent

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
        t = _time.time()
        res = evaluate_agent(agent, args.env, [ns.opponent], ns.pairs, ns.seed, state["steps"])
        print(json.dumps({"margin": m, **res, "seconds": round(_time.time() - t)}), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["card"]:
        return card_main(argv[1:])
    if argv[:1] == ["margins"]:
        return margins_main(argv[1:])
    args = parse_args(argv)
    summary = train(args)
    print(json.dumps({k: v for k, v in summary.items() if k != "evals"}, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
