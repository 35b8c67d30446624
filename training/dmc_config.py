"""The settings of a DMC run (:mod:`training.train_dmc`): :class:`Args` (every field a
``--flag``), the flags a ``--resume`` may change (:data:`CHANGEABLE`) and :func:`check`,
which names a bad value and the allowed ones before anything runs."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import agents
from agents.dmc import FEATURE_MODES, HISTORY_MODES, L2_MODES
from gin_env import games
from gin_env.match import ROLE_NAMES
from training.checkpoints import check_export_name
from training.flags import (
    EXPORT_HELP,
    HELP,
    REPORT_DEFAULTS,
    REPORT_HELP,
    RUN_FLAGS,
    check_report,
    names,
)

__all__ = ["Args", "CHANGEABLE", "ENVS", "PRESETS", "apply_preset", "check", "fixed_roles"]


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
        ", l2score (l2 plus L2's own score of the move)"
        " or facts (basic plus per-move facts from the observation: melds, live outs,"
        " meld starts, the discard's danger, the take's gain; no L2)",
    )
    history: str = HELP(
        "none",
        "history encoder: none (the observation alone) or lstm (also an LSTM over the seat's "
        "move history, DouZero's; the envs then run with observation='history')",
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
    preset: str = HELP(
        "",
        "a named recipe that sets other flags' defaults (a flag given on the command line "
        "wins): hour (the one-hour recipe, chosen by measurement: learn against L1 from the "
        "first hand with the per-move facts, --opponents simple --opponent-share 1.0 "
        "--features facts)",
    )
    opponents: str = HELP("heuristic", "fixed opponents (agent names) of --opponent-share")
    opponent_share: float = HELP(
        0.0, "share of hands with one learner seat against fixed opponents in the other seats"
    )
    reward_scale: float = HELP(0.01, "targets are hand points times this")
    checkpoint_every: int = HELP(200_000, "decisions between checkpoints")
    checkpoint_minutes: float = HELP(
        0.0, "also write a checkpoint after this many minutes since the last one (0: by steps only)"
    )
    checkpoint_replay: bool = HELP(
        False,
        "also write the replay into each step checkpoint (buffer-size decisions, hundreds of "
        "MB at the default size); without it a checkpoint is networks, optimizer, counters and "
        "RNG states (a few MB) and a resumed run refills the replay from fresh play",
    )
    copy_checkpoint: str = HELP(
        "",
        "after every step checkpoint, also copy it (never the replay) into this folder, "
        "replacing the previous copy: a small checkpoint to commit, resumed with --resume-from",
    )
    resume_from: str = HELP(
        "",
        "with --resume and no checkpoint in --run-dir yet: continue from this checkpoint "
        "folder (e.g. one written by --copy-checkpoint and committed), copied into the run",
    )
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
        "trained beside a fixed adviser, then trained jointly with a learning one); a run "
        "with --history lstm may start from one with --history none: the history's inputs "
        "then start at zero weight, so the new network first scores exactly as the old",
    )
    max_minutes: float = HELP(0.0, "stop with a checkpoint after this much wall time (0: none)")
    resume: bool = HELP(False, "continue the run in --run-dir with its saved settings")
    overwrite: bool = HELP(
        False, "start a new run in a --run-dir that holds one, deleting what is there"
    )
    progress: bool = HELP(True, "show a progress bar (on a terminal only)")
    quiet: bool = HELP(False, "no progress bar: the same as --progress false")
    export: str = HELP("", EXPORT_HELP.format(suffix=".npz"))
    report_deals: int = HELP(REPORT_DEFAULTS["report_deals"], REPORT_HELP["report_deals"])
    report_opponents: str = HELP(
        REPORT_DEFAULTS["report_opponents"], REPORT_HELP["report_opponents"]
    )
    report_seed: int = HELP(REPORT_DEFAULTS["report_seed"], REPORT_HELP["report_seed"])
    torch_threads: int = HELP(1, "torch threads of the learner")
    actors: int = HELP(
        0,
        "actor processes playing with numpy copies of the networks and feeding this learner "
        "(0: acting and learning interleaved in one process, reproducible step for step)",
    )


#: Flags a ``--resume`` may change; any other that differs from the saved run is an error.
CHANGEABLE = RUN_FLAGS | frozenset(
    {
        "backend",
        "l2_margin",
        "warm_steps",
        "warm_replay_ratio",
        "replay_ratio",
        "checkpoint_every",
        "checkpoint_minutes",
        "checkpoint_replay",
        "copy_checkpoint",
        "resume_from",
        "actors",
        "learning_rate",
        "quiet",
    }
)
ENVS = games.gin_games()
#: The named recipes of ``--preset``: each the flags it sets (docs/training/dmc.md says how
#: they were chosen).
PRESETS: dict[str, dict[str, object]] = {
    "hour": {"opponents": "simple", "opponent_share": 1.0, "features": "facts"},
}


def apply_preset(args: Args, explicit: set[str] | frozenset[str]) -> Args:
    """``args`` with its ``--preset``'s settings for every flag not in ``explicit`` (the
    flags given on the command line); a preset not in :data:`PRESETS` is a ``ValueError``
    naming them."""
    if not args.preset:
        return args
    if args.preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}; got {args.preset!r}")
    changes = {k: v for k, v in PRESETS[args.preset].items() if k not in explicit}
    return dataclasses.replace(args, **changes)  # type: ignore[arg-type]


def check(args: Args) -> None:

    if args.preset and args.preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}; got {args.preset!r}")
    if args.env not in ENVS:
        raise ValueError(f"env must be one of {', '.join(ENVS)}; got {args.env!r}")
    if args.backend not in ("auto", "numba", "python"):
        raise ValueError(f"backend must be auto, numba or python; got {args.backend!r}")
    if args.features not in FEATURE_MODES:
        raise ValueError(
            f"features must be one of {', '.join(FEATURE_MODES)}; got {args.features!r}"
        )
    if args.history not in HISTORY_MODES:
        raise ValueError(f"history must be one of {', '.join(HISTORY_MODES)}; got {args.history!r}")
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
    if args.actors < 0:
        raise ValueError(f"actors must be >= 0; got {args.actors!r}")
    if args.actors and args.warm_steps:
        raise ValueError("actors > 0 needs --warm-steps 0 (the warm start runs in one process)")
    if args.checkpoint_minutes < 0:
        raise ValueError(f"checkpoint_minutes must be >= 0; got {args.checkpoint_minutes!r}")
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
    table = games.get(args.env).table()  # the table the run plays at: agents seated at it
    for name in names(args.opponents) + names(args.eval_opponents):
        try:
            agents.seat(name, table)
        except ValueError as err:
            raise ValueError(f"opponents: {err}") from None
    if args.opponent_share > 0 and not names(args.opponents):
        raise ValueError("opponent_share > 0 needs at least one of --opponents")
    if args.init_from and not args.resume and not (Path(args.init_from) / "model.pt").is_file():
        raise ValueError(f"init_from {args.init_from!r} is not a checkpoint folder (no model.pt)")
    if args.export:
        check_export_name(args.export)
    check_report(args.report_deals, args.report_opponents, lambda n: agents.seat(n, table))
    fixed = fixed_roles(args.fixed_roles)
    if fixed and args.history != "none":
        raise ValueError(
            "fixed_roles needs --history none (the team's evaluation plays the flat observation)"
        )
    if fixed and args.env != "three_handed":
        raise ValueError("fixed_roles needs --env three_handed (roles box, captain, adviser)")
    if fixed and args.opponent_share > 0:
        raise ValueError("fixed_roles and opponent_share > 0 cannot be combined")
    for role, name in fixed.items():
        try:
            agents.seat(name, table)
        except ValueError as err:
            raise ValueError(f"fixed_roles {role}: {err}") from None


def fixed_roles(text: str) -> dict[str, str]:
    """``"box=heuristic,adviser=heuristic"`` -> ``{"box": "heuristic", ...}``: the roles of
    the three-handed game played by fixed agents; at least one role must stay learning."""
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
