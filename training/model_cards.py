"""Model cards of shipped players: ``agents/checkpoints/<name>.md``.

A card says how the player was trained (the commands, steps, wall time, the network, the
evaluations during training and the learning curve) and how it plays, measured by
:mod:`gin_cli.evaluate` on a seed never used to pick it (:func:`card_evaluation`). A card
written again keeps the hand-written sections that follow its generated evaluation.

- :func:`write_model_card`: MaskablePPO actors (``training.train_ppo``);
- :func:`write_dmc_card`: Deep Monte-Carlo players (``training.train_dmc``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import agents
from agents import trained
from agents.trained import load
from gin_eval.gin import gin_duplicate
from gin_eval.stats import wilson_ci
from gin_eval.three_handed import three_handed

__all__ = [
    "card_evaluation",
    "write_model_card",
    "write_dmc_card",
    "notes_after_evaluation",
    "eval_history",
    "fmt",
]


LEVELS = {"random": "L0", "simple": "L1", "heuristic": "L2", "search": "L4"}


def card_evaluation(
    name: str,
    pairs: int,
    matches: int,
    workers: int,
    seed: int,
    opponents: Sequence[str] = ("random", "simple", "heuristic"),
) -> dict[str, Any]:
    """The model card's figures, from :mod:`gin_cli.evaluate`: gin on duplicate deals
    against ``opponents``; three-handed matches against two L1 and two L2 players."""

    agent = agents.make(name)
    env = agent.meta["env"]
    # The env options the player needs (a DMC network reading the move history needs it).
    env_options = agent.env_options() if hasattr(agent, "env_options") else {}
    out: dict[str, Any] = {"env": env, "seed": seed}
    if env == "gin":
        for opp in opponents:
            label = LEVELS.get(opp, opp)
            out[f"vs {label} ({opp})"] = gin_duplicate(
                name, opp, pairs, seed=seed, workers=workers, matches=matches, progress=False,
                env_options=env_options,
            )  # fmt: skip
    else:
        for opp, label in (("simple", "L1"), ("heuristic", "L2")):
            res = three_handed(
                [name, opp, opp], matches, seed=seed, workers=workers, progress=False,
                env_options=env_options,
            )["adviser_on"]  # fmt: skip
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


def fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple) and all(isinstance(v, float) for v in value):
        return "[" + ", ".join(f"{v:.4g}" for v in value) + "]"
    if isinstance(value, dict):
        return ", ".join(f"{k} {fmt(v)}" for k, v in value.items())
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


def eval_history(evals: list[dict[str, float]]) -> list[str]:
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


def _training_head(commands: list[str], resumed: bool = True) -> list[str]:
    """The start of a card's training section: the commands, then the facts table's head."""
    intro = ["Commands (the first run, then each `--resume`):", ""] if resumed else []
    return ["## Training", "", *intro, "```", *commands, "```", "", "| | |", "|---|---|"]


def _qnet_facts(agent: Any) -> tuple[list[int], str]:
    """A DMC player's layer sizes (observation, action, hidden..., 1) and its input-layout
    row of the facts table."""
    net = agent.nets[0]
    sizes = [net.w_obs.shape[1], net.w_act.shape[1], len(net.b0)] + [len(b) for _, b in net.layers]
    layout = agent.meta.get("input_layout", {})
    row = (
        f"| Input layout | observation `{layout.get('observation')}` ({layout.get('obs_size')}),"
        f" action `{layout.get('action_encoding')}` ({layout.get('action_size')}); checked on "
        "load |"
    )
    return sizes, row


def write_model_card(name: str, results: dict[str, Any], command: str) -> Path:
    """``agents/checkpoints/<name>.md``: how it was trained and how it plays."""

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
        *_training_head(meta.get("commands", [])),
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
        "Evaluation during training (hands won; `gin_cli.evaluate` duplicate deals in gin, "
        "plain hands with random seats in the three-handed game):",
        "",
        *eval_history(meta.get("evals", [])),
        "",
        *(
            [f"![learning curve]({name}-learning-curve.png)", ""]
            if (trained.CHECKPOINT_DIR / f"{name}-learning-curve.png").is_file()
            else []
        ),
        "## Evaluation",
        "",
        f"Measured by `{command}` (gin_cli.evaluate, seed {results.get('seed')}).",
        "",
    ]
    return _write_card(name, lines, results)


def _write_card(name: str, lines: list[str], results: dict[str, Any]) -> Path:
    """Append a table per evaluation in ``results`` and write the card, keeping the
    hand-written sections of a card that is already there."""

    for key, res in results.items():
        if not isinstance(res, dict):
            continue
        lines += [f"### {key}", "", "| metric | value |", "|---|---|"]
        lines += [f"| {k} | {fmt(v)} |" for k, v in res.items()]
        lines.append("")
    path = trained.CHECKPOINT_DIR / f"{name}.md"
    text = "\n".join(lines)
    if path.is_file():
        text += notes_after_evaluation(path.read_text())
    path.write_text(text)
    return path


def notes_after_evaluation(card: str) -> str:
    """The hand-written sections (``## ...``) that follow a card's generated evaluation:
    a re-measured card keeps them."""
    start = card.find("\n## Evaluation")
    notes = card.find("\n## ", start + 1) if start >= 0 else -1
    return "\n" + card[notes:].lstrip("\n") if notes >= 0 else ""


def _started_from(args: dict[str, Any], meta: dict[str, Any]) -> str:
    """The ``--init-from`` row: the folder, and (runs since the field was kept) the run and
    decisions it held then, since a committed folder moves on as its run is carried on."""
    src = meta.get("started_from") or {}
    held = (
        f", then run `{src['run_id']}` at {int(src['steps']):,} decisions"
        f", {float(src.get('wall_s', 0)) / 60:.0f} min into it"
        if src.get("run_id")
        else ""
    )
    return (
        f"the networks of `{args['init_from']}`{held} (`--init-from`; a fresh optimizer, "
        "replay and counts: the decisions above are this run's own)"
    )


def rate_schedule(args: dict[str, Any], meta: dict[str, Any]) -> str:
    """The learning rate, or its schedule when a resume changed it."""
    rates = meta.get("learning_rates") or [[0, args.get("learning_rate")]]
    first = f"{rates[0][1]:g}"
    return first + "".join(f", {lr:g} from {step:,} decisions" for step, lr in rates[1:])


def _dmc_eval_rows(evals: list[dict[str, Any]]) -> list[str]:
    if not evals:
        return ["(none)"]
    keys = sorted(
        {
            k
            for e in evals
            for k in e
            if k.endswith(("hand_win_rate", "points_per_hand", "match_win_rate"))
        }
    )
    keys = [k for k in keys if "_" not in k.split("/")[0] or k.count("/") == 1]
    keys = [k for k in keys if not any(r in k for r in ("box_", "captain_", "adviser_"))]
    rows = ["| decisions | hours | phase | " + " | ".join(keys) + " |"]
    rows.append("|---" * (len(keys) + 3) + "|")
    for e in evals:
        rows.append(
            f"| {int(e['step']):,} | {e.get('hours', float('nan')):.2f} | {e.get('phase', '')} | "
            + " | ".join(f"{e.get(k, float('nan')):.3f}" for k in keys)
            + " |"
        )
    return rows


def write_dmc_card(name: str, results: dict[str, Any], command: str) -> Path:
    """``agents/checkpoints/<name>.md`` of a DMC player (``agents/checkpoints/<name>.npz``)."""

    agent = agents.make(name)
    meta = agent.meta
    a = meta.get("args", {})
    sizes, layout_row = _qnet_facts(agent)
    best = meta.get("best") or {}
    chosen = meta.get("chosen", "")
    lines = [
        f"# {name}",
        "",
        f"Deep Monte-Carlo (DMC) player for `{meta['env']}`, played by `agents.make({name!r})` "
        "(numpy only, deterministic: the legal action with the highest Q). Trained by "
        "`training/train_dmc.py`.",
        "",
        *_training_head(meta.get("commands", [])),
        f"| Decisions | {meta['steps']:,} learner decisions at the shipped checkpoint "
        f"(`{chosen}`); the run made {meta.get('run_steps', meta['steps']):,} |",
        "| Chosen | "
        + (
            f"the best `{best.get('key')}` on the selection seed {best.get('seed')} "
            f"({best.get('score', float('nan')):.3f} at {best.get('step', 0):,} decisions); the "
            "evaluation below uses another seed |"
            if chosen == "best" and best
            else f"checkpoint `{chosen}` |"
        ),
        f"| Wall time | {meta['wall_s'] / 60:.1f} min to the shipped checkpoint, "
        f"{meta.get('run_wall_s', meta['wall_s']) / 60:.1f} min for the run (evaluations "
        "included), "
        + (f"one learner and {a['actors']} actor processes" if a.get("actors") else "one process")
        + " on a shared 2-core CPU machine |",
        f"| Network | Q(s, a): observation {sizes[0]} + action {sizes[1]} -> "
        f"{'-'.join(map(str, sizes[2:]))}, ReLU; "
        + (
            f"one network per role ({len(agent.nets)})"
            if agent.role_nets
            else "one network, the role is in the observation"
        )
        + " |",
        "| Action encoding | kind, card, deadwood after the move"
        + {
            "l2": ", and whether L2 plays the move (L2 runs at every decision)",
            "facts": (
                ", and the per-move facts from what the seat has seen (cards melded, live "
                "outs, meld starts, the discard's danger, the take's gain; no L2)"
            ),
        }.get(agent.features, "")
        + " |",
        "| Acting | the legal move with the highest Q"
        + (
            f", L2's move getting a bonus of {meta['margin']} (in Q units, points / 100): the "
            "player leaves L2's move only where Q prefers another by more than that"
            if meta.get("margin")
            else ""
        )
        + " |",
        layout_row,
        f"| Targets | the deciding seat's own side's points of the hand x {a.get('reward_scale')}"
        " (Monte-Carlo, no bootstrapping) |",
        "| Warm start | "
        + (
            f"{a.get('warm_steps'):,} decisions of L2 in every seat, epsilon "
            f"{a.get('warm_epsilon')} (Q fitted to L2's returns), then self-play |"
            if a.get("warm_steps")
            else "none |"
        ),
        *([f"| Started from | {_started_from(a, meta)} |"] if a.get("init_from") else []),
        f"| Self-play | epsilon {a.get('epsilon')}, {a.get('num_envs')} games at once; "
        f"{a.get('opponent_share')} of the hands one learner seat against "
        f"`{a.get('opponents')}` |",
        f"| Learner | Adam lr {rate_schedule(a, meta)}, batch {a.get('batch_size')}, replay "
        f"ratio {a.get('replay_ratio')} over the latest {a.get('buffer_size'):,} decisions, "
        + (
            f"fed by {a['actors']} actor processes (numpy copies of the networks, refreshed "
            "after every learning step) |"
            if a.get("actors")
            else "interleaved with acting in one process |"
        ),
        "",
        f"Evaluation during training (selection seed {a.get('eval_seed')}, "
        f"{a.get('eval_pairs')} duplicate pairs / matches each):",
        "",
        *_dmc_eval_rows(meta.get("evals", [])),
        "",
        *(
            [f"![learning curve]({name}-learning-curve.png)", ""]
            if (trained.CHECKPOINT_DIR / f"{name}-learning-curve.png").is_file()
            else []
        ),
        *(
            [f"![points per hand]({name}-learning-curve-points.png)", ""]
            if (trained.CHECKPOINT_DIR / f"{name}-learning-curve-points.png").is_file()
            else []
        ),
        *_resume_section(a, meta),
        "## Evaluation",
        "",
        f"Measured by `{command}` (gin_cli.evaluate, held-out seed {results.get('seed')}).",
        "",
    ]
    return _write_card(name, lines, results)


def _resume_section(a: dict[str, Any], meta: dict[str, Any]) -> list[str]:
    """How to continue a run that copies its checkpoints into the repository."""
    folder = a.get("copy_checkpoint")
    if not folder:
        return []
    return [
        "## Resuming the run",
        "",
        f"The run's latest checkpoint is committed in `{folder}/` (`model.pt`: networks and "
        "Adam state; `state.json`: step counts, evaluations, settings, RNG states, all data; "
        "a few MB). "
        "The replay is not in it: a resumed run starts with an empty replay and refills it "
        f"from fresh play (learning restarts after {a.get('batch_size')} decisions; the "
        f"replay is whole again after {a.get('buffer_size'):,}). From a clone:",
        "",
        "```",
        f"python -m training.train_dmc --resume --run-dir {a.get('run_dir')} "
        f"--resume-from {folder}",
        "```",
        "",
        "It keeps the saved settings (a conflicting flag is an error), goes on counting from "
        f"{meta.get('run_steps', meta['steps']):,} decisions, and copies every new checkpoint "
        f"back into `{folder}/` (commit it at the end of a session). Export (the best on "
        "the selection seed among the checkpoints this run folder kept, else the latest) "
        "and card:",
        "",
        "```",
        'python -c "from training.train_dmc import export; '
        f"export('{a.get('run_dir')}', '{meta.get('name')}')\"",
        f"python -m training.train_dmc card {meta.get('name')} --seed 2026",
        "```",
        "",
    ]


def write_rollout_card(name: str, results: dict[str, Any], command: str) -> Path:
    """``agents/checkpoints/<name>.md`` of a player trained by :mod:`studies.dmc_rollouts`."""

    agent = agents.make(name)
    meta = agent.meta
    fit = meta.get("fit", {})
    history = fit.get("history") or [{}]
    fit_s = history[-1].get("seconds", 0)
    # Each member keeps its epoch of lowest held-out paired loss (studies.dmc_rollouts.fit).
    kept: dict[int, float] = {}
    for h in history:
        if "valid_paired_loss" in h:
            m = int(h.get("member", 0))
            kept[m] = min(kept.get(m, float("inf")), h["valid_paired_loss"])
    flat = history[-1].get("valid_paired_loss_flat_q", float("nan"))
    sizes, layout_row = _qnet_facts(agent)
    picks = meta.get("selection", [])
    lines = [
        f"# {name}",
        "",
        f"Deep Monte-Carlo player for `{meta['env']}` with rolled-out targets, played by "
        f"`agents.make({name!r})` (numpy only, deterministic). Trained by "
        "`studies/dmc_rollouts.py`: decisions of L2 play, every legal move of each played "
        "out once from the true deal by L2 in every seat (paired returns), Q(s, a) fitted to "
        "them from the observation alone; the player takes the move of highest Q, L2's move "
        f"getting a bonus of {meta.get('margin')} (points / 100).",
        "",
        *_training_head(meta.get("commands", []), resumed=False),
        f"| Decisions | {meta['steps']:,} decisions rolled out, {meta.get('rollouts', 0):,} "
        "rollouts |",
        f"| Wall time | {meta.get('gen_s', 0) / 3600:.2f} CPU hours of rollouts (worker "
        f"processes), {fit_s / 60:.1f} min of fitting, on a shared 2-core "
        "machine |",
        f"| Network | Q(s, a): observation {sizes[0]} + action {sizes[1]} -> "
        f"{'-'.join(map(str, sizes[2:]))}, ReLU, one network (the role is in the observation"
        f"; the mean of an ensemble of {fit.get('ensemble', 1)}) |",
        "| Action encoding | kind, card, deadwood after the move, whether L2 plays the move"
        + (", L2's own score of the move" if agent.features == "l2score" else "")
        + " |",
        layout_row,
        f"| Fit | up to {fit.get('epochs')} epochs, each member kept at its lowest held-out "
        "paired loss: "
        + ", ".join(f"{v:.5f}" for _, v in sorted(kept.items()))
        + f" against {flat:.5f} for a Q that ranks no move above another |",
        "",
        "Margin chosen against L2 on the selection seed (duplicate pairs):",
        "",
        "| margin | pairs | seed | points per hand | 95% CI | hands won |",
        "|---|---|---|---|---|---|",
        *(
            f"| {p['margin']} | {p['pairs']} | {p['seed']} | "
            f"{p['heuristic/points_per_hand']:+.2f} | [{p['heuristic/points_ci_low']:+.2f}, "
            f"{p['heuristic/points_ci_high']:+.2f}] | {p['heuristic/hand_win_rate']:.1%} |"
            for p in picks
        ),
        "",
        "## Evaluation",
        "",
        f"Measured by `{command}` (gin_cli.evaluate, held-out seed {results.get('seed')}).",
        "",
    ]
    return _write_card(name, lines, results)
