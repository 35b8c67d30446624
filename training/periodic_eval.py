"""Evaluation during training, the one copy every trainer uses: an agent against fixed
opponents through :mod:`gin_eval`, on a seed of the run's choosing.

- gin: duplicate deals (:func:`gin_eval.gin.gin_duplicate`), ``pairs`` deals each
  played twice with the seats swapped: hands won and points per hand, with 95% CIs;
- three-handed: ``pairs`` matches against two copies of the opponent
  (:func:`gin_eval.three_handed.three_handed`): match win rate (95% CI) and the
  points per hand in each role; or, with ``hands=True`` (and for an env without duplicate deals),
  ``2 * pairs`` single hands in random seats (:func:`training.league.play_hands`): hands
  won and points per hand.

The learning curve of these rows is :func:`gin_eval.plots.plot_curves`.
The result is a flat ``{"step": n, "<opponent>/<metric>": value}`` row, ready for a CSV,
TensorBoard and a learning curve. Select checkpoints on one seed and report them on
another: the selection seed's figures are biased upwards by the selection.

What a run learned, for the examples and the learning benchmark: :func:`deal_points` is an
agent's points per hand on each of a seed's duplicate deals against one opponent (gin: each
deal in both seats, :func:`gin_eval.gin.play_gin_pair`; three-handed: each deal as a single
hand three times, the agent once in each role, :func:`gin_eval.play.play_role_hand`), and
:func:`before_after` plays the untrained and the trained player on the same deals: each
one's points per hand with a 95% CI and the difference, paired by deal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

import agents as agent_registry
from agents import trained as trained_players
from gin_env import games
from gin_env.match import ROLE_NAMES
from gin_eval.checks import agent_of
from gin_eval.gin import gin_duplicate, play_gin_pair
from gin_eval.play import play_role_hand
from gin_eval.pool import pool_map
from gin_eval.stats import mean_ci, wilson_ci
from gin_eval.three_handed import three_handed
from gin_eval.writer import write_csv, write_json
from training.flags import names, save_path
from training.league import make_opponent, play_hands

__all__ = [
    "DEAL_GAMES",
    "before_after",
    "before_after_lines",
    "eval_line",
    "metric_text",
    "run_report",
    "run_player_lines",
    "print_run_end",
    "save_trained",
    "check_opponents",
    "report_learned",
    "deal_points",
    "evaluate_agent",
    "write_eval_csv",
]

#: The games :func:`deal_points` deals duplicate (its ``game`` values).
DEAL_GAMES = games.gin_games()


def evaluate_agent(
    agent: Any,
    game: str,
    opponents: Sequence[str],
    pairs: int,
    seed: int,
    step: int = 0,
    workers: int = 1,
    env_options: Mapping[str, Any] | None = None,
    hands: bool = False,
) -> dict[str, float]:
    """One row of the learning curve: ``agent`` against each of ``opponents`` at ``step``,
    at the game's standard table (``env_options``: what is not a rule, e.g.
    ``observation="history"``; ``hands``: single hands in random seats instead of
    three-handed matches, for every game but gin)."""
    opts = dict(env_options or {})
    out: dict[str, float] = {"step": float(step)}
    for name in opponents:
        if game == "gin":
            res = gin_duplicate(
                agent, name, pairs, seed=seed, workers=workers, progress=False, env_options=opts
            )
            out[f"{name}/hand_win_rate"] = float(res["hand_win_rate"])
            out[f"{name}/points_per_hand"] = float(res["points_per_hand"])
            out[f"{name}/points_ci_low"] = float(res["ci95"][0])
            out[f"{name}/points_ci_high"] = float(res["ci95"][1])
        elif hands:
            opponent = make_opponent(name, games.get(game).table())
            played = play_hands(agent, opponent, game, 2 * pairs, seed=seed, **opts)
            out[f"{name}/hand_win_rate"] = played.win_rate
            out[f"{name}/points_per_hand"] = played.points_per_hand
        else:
            res = three_handed(
                [agent, name, name], pairs, seed=seed, workers=workers, progress=False,
                env_options=opts,
            )["adviser_on"]  # fmt: skip
            mine = res["agents"][getattr(agent, "name", type(agent).__name__)]
            wins = round(mine["match_win_rate"] * mine["matches"])
            lo, hi = wilson_ci(wins, mine["matches"])
            out[f"{name}/match_win_rate"] = float(mine["match_win_rate"])
            out[f"{name}/match_ci_low"] = float(lo)
            out[f"{name}/match_ci_high"] = float(hi)
            for role, st in mine["roles"].items():
                if st["points_per_hand"] is not None:
                    out[f"{name}/{role}_points_per_hand"] = float(st["points_per_hand"])
                    out[f"{name}/{role}_hand_win_rate"] = float(st["hand_win_rate"])
    return out


def _rate(rate: float, n: int | None) -> str:
    """``45.7% [41.3, 50.1]``: a rate with its 95% Wilson CI over ``n`` trials."""
    if not n:
        return f"{rate:.1%}"
    lo, hi = wilson_ci(min(n, max(0, round(rate * n))), n)
    return f"{rate:.1%} [{100 * lo:.1f}, {100 * hi:.1f}]"


def _points(value: float, lo: float | None, hi: float | None) -> str:
    ci = f" [{lo:+.2f}, {hi:+.2f}]" if lo is not None and hi is not None else ""
    return f"{value:+.2f}{ci}"


def eval_line(res: Mapping[str, Any], hands: int | None = None) -> str:
    """One evaluation of a run (a row of :func:`evaluate_agent`, or of a DMC run's team
    evaluation) as a short line for the terminal, e.g. ``vs simple -2.52 [-3.60, -1.44] a
    hand, hands won 45.7% [41.3, 50.1]; vs heuristic ...``: points per hand with their
    95% CI, rates as percentages with their 95% Wilson CI over ``hands`` hands (each
    opponent's; matches: the row's own CI). The CSV keeps every figure in full."""
    groups: dict[str, dict[str, float]] = {}
    for key, value in res.items():
        if "/" in key and isinstance(value, int | float) and not isinstance(value, bool):
            who, metric = key.split("/", 1)
            groups.setdefault(who, {})[metric] = float(value)
    parts = []
    for who, m in groups.items():
        bits = []
        if "points_per_hand" in m:
            lo = m.get("points_ci_low", m.get("ci_low"))
            hi = m.get("points_ci_high", m.get("ci_high"))
            bits.append(_points(m["points_per_hand"], lo, hi) + " a hand")
        if "hand_win_rate" in m:
            bits.append("hands won " + _rate(m["hand_win_rate"], hands))
        if "match_win_rate" in m:
            lo, hi = m.get("match_ci_low"), m.get("match_ci_high")
            ci = f" [{100 * lo:.1f}, {100 * hi:.1f}]" if lo is not None and hi is not None else ""
            bits.append(f"matches won {m['match_win_rate']:.1%}{ci}")
        roles = [r for r in ROLE_NAMES if f"{r}_points_per_hand" in m]
        if roles:
            each = ", ".join(f"{r} {m[f'{r}_points_per_hand']:+.2f}" for r in roles)
            bits.append(f"a hand as {each}")
        if "advice_gain" in m:
            gain = _points(m["advice_gain"], m.get("gain_ci_low"), m.get("gain_ci_high"))
            bits.append(f"advice gain {gain} a hand")
        label = {"team": "team (advised)", "muted": "team (adviser muted)"}.get(who, f"vs {who}")
        parts.append(f"{label} {', '.join(bits)}" if bits else label)
    return "; ".join(parts)


def metric_text(key: str, value: float, n: int | None = None) -> str:
    """One figure of an evaluation row by its key, for a line: ``simple/points_per_hand``
    -> ``points per hand against simple +1.25``; a rate as a percentage with its 95% CI
    over ``n`` trials."""
    who, _, metric = key.rpartition("/")
    words = metric.replace("_", " ")
    shown = _rate(value, n) if metric.endswith("rate") else f"{value:+.2f}"
    return f"{words} against {who} {shown}" if who else f"{words} {shown}"


def run_player_lines(run_dir: str | Path, export: str, suffix: str) -> list[str]:
    """The end of a run's summary, the same for every trainer: where its player is and how
    to seat it, and where ``--export`` copied it (``suffix``: the player file's)."""
    run_dir = Path(run_dir)
    lines = [
        f"the run's player: {trained_players.run_player(run_dir)} (play it with --agents "
        f"{run_dir}); logs, curves and checkpoints in {run_dir}"
    ]
    if export:
        lines.append(f"exported to {trained_players.CHECKPOINT_DIR / (export + suffix)} (--export)")
    return lines


def print_run_end(lines: Sequence[str], args: Any, env: str) -> None:
    """What every trainer prints when its run ends: its summary ``lines``, then (with
    ``--report-deals``) the untrained and trained player on the same duplicate deals."""
    for line in lines:
        print(line)
    if args.report_deals:
        report = run_report(args.run_dir, env, names(args.report_opponents),
                            args.report_deals, args.report_seed)  # fmt: skip
        for line in report:
            print(line)


def write_eval_csv(path: str | Path, rows: Sequence[dict[str, float]]) -> None:
    """The learning curve's rows as ``eval.csv`` (:func:`gin_eval.writer.
    write_csv`): every metric any row has, ``step`` and ``hours`` first; nothing for none."""
    if not rows:
        return
    keys = sorted({k for r in rows for k in r}, key=lambda k: (k not in ("step", "hours"), k))
    write_csv(path, rows, keys)


def _gin_deal(agent: Any, opponent: Any, seed: int, index: int) -> float:
    """The agent's mean points over deal ``index`` played in both seats."""
    hands = play_gin_pair(agent, opponent, seed, index)["hands"]
    return float(sum(h["a_points"] for h in hands)) / len(hands)


def _three_deal(agent: Any, opponent: Any, seed: int, index: int) -> float:
    """The agent's side's mean points over deal ``index`` played three times, the agent once
    as the box, once as the captain and once as the adviser (the opponent in the others)."""
    box = play_role_hand([agent, opponent, opponent], seed, index)["box_points"]
    captain = -play_role_hand([opponent, agent, opponent], seed, index)["box_points"]
    adviser = -play_role_hand([opponent, opponent, agent], seed, index)["box_points"]
    return float(box + captain + adviser) / 3


def deal_points(
    agent: Any, game: str, opponent: Any, deals: int, seed: int, workers: int = 1
) -> np.ndarray:
    """``agent``'s points per hand on each of ``deals`` duplicate deals of ``seed`` against
    ``opponent`` (an agent or a name) at the game's standard table, ``[deals]``: the same
    deals for every agent on one seed. ``game``: one of :data:`DEAL_GAMES`."""
    _check_deal_game(game)
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 2:
        raise ValueError(f"deals must be an int >= 2 (a CI needs two), got {deals!r}")
    one = _gin_deal if game == "gin" else _three_deal
    jobs = [(agent, opponent, seed, i) for i in range(deals)]
    return np.asarray(pool_map(one, jobs, workers, False, "deals"), dtype=float)


def check_opponents(game: str, opponents: str) -> None:
    """Seat each name of ``opponents`` (a comma list) at ``game``'s standard table, as
    :func:`deal_points` will: a name that is not an agent, or one that cannot play the game,
    is a ``ValueError`` of one line now, not after a run's training."""
    _check_deal_game(game)
    table = games.get(game).table()  # the standard table deal_points plays at
    for name in names(opponents):
        agent_of(name, table)


def _check_deal_game(game: str) -> None:
    if game not in DEAL_GAMES:
        raise ValueError(f"game must be one of {', '.join(DEAL_GAMES)}; got {game!r}")


def _ci(x: np.ndarray) -> dict[str, float]:
    mean, lo, hi = mean_ci(x)
    return {"mean": mean, "ci_low": lo, "ci_high": hi}


def before_after(
    untrained: Any,
    trained: Any,
    game: str,
    opponents: Sequence[str],
    deals: int,
    seed: int,
    workers: int = 1,
) -> list[dict[str, Any]]:
    """The untrained and the trained player against each of ``opponents`` on the same
    ``deals`` duplicate deals of ``seed`` (:func:`deal_points`): one row per opponent with
    ``untrained``, ``trained`` and ``difference`` (trained minus untrained, paired by deal),
    each ``{"mean", "ci_low", "ci_high"}`` in points per hand."""
    rows = []
    for name in opponents:
        before = deal_points(untrained, game, name, deals, seed, workers)
        after = deal_points(trained, game, name, deals, seed, workers)
        rows.append(
            {
                "opponent": name,
                "game": game,
                "deals": deals,
                "seed": seed,
                "untrained": _ci(before),
                "trained": _ci(after),
                "difference": _ci(after - before),
            }
        )
    return rows


def before_after_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """:func:`before_after`'s rows as the lines a run prints, e.g. ``points per hand against
    simple, trained: -15.70 +/- 1.80 (95% CI, 500 deals)``."""

    def fmt(what: str, r: Mapping[str, Any], cell: Mapping[str, float], n: int) -> str:
        half = (cell["ci_high"] - cell["ci_low"]) / 2
        return (
            f"points per hand against {r['opponent']}, {what}: {cell['mean']:+.2f} +/- "
            f"{half:.2f} (95% CI, {n} deals)"
        )

    out = []
    for r in rows:
        n = int(r["deals"])
        out.append(fmt("untrained", r, r["untrained"], n))
        out.append(fmt("trained", r, r["trained"], n))
        out.append(fmt("trained minus untrained", r, r["difference"], n) + " paired by deal")
    return out


def report_learned(
    example: str,
    args: Any,
    untrained: Any,
    trained: Any,
    game: str,
    steps: int,
    seconds: float,
    curve: Curve,
    save: Callable[[Path], object] | None = None,
) -> dict[str, Any]:
    """The closing block of every example: the trained player written to its ``--save``
    path (:func:`save_trained` with ``save``, the example's writer), then
    :func:`before_after` on ``args``' evaluation opponents, deals and seed, its lines
    printed, and the run's result (written as JSON to ``args.result`` when set, with the
    training and evaluation seeds) returned.

    ``args`` is the example's dataclass of flags; it must have ``eval_opponents`` (comma
    list), ``eval_deals``, ``eval_seed``, ``seed`` and ``result``."""
    saved = save_trained(args, game, save)
    rows = before_after(
        untrained, trained, game, names(args.eval_opponents), args.eval_deals, args.eval_seed
    )
    for line in before_after_lines(rows):
        print(line)
    result = {
        "example": example,
        "args": asdict(args),
        "seed": args.seed,
        "steps": steps,
        "train_seconds": seconds,
        "before_after": rows,
        "curve": curve.rows,
    }
    if saved is not None:
        result["saved"] = str(saved)
    if args.result:
        write_json(args.result, result, [args.seed, args.eval_seed])
    return result


def save_trained(args: Any, game: str, save: Callable[[Path], object] | None) -> Path | None:
    """Write an example's trained player to its ``--save`` path
    (:func:`training.flags.save_path`) with ``save(path)``, then seat it back
    (:func:`agents.seat` at ``game``'s standard table) as a check that it plays there; a
    line says where it went and how to seat it. None without ``--save``."""
    path = save_path(args)
    if not path:
        return None
    if save is None:
        raise ValueError("--save: this example has no writer for its player")
    save(Path(path))
    agent_registry.seat(str(path), games.get(game).table())
    print(f"saved the trained player to {path}: play it with --agents {path}")
    return Path(path)


def run_report(
    run_dir: str | Path,
    game: str,
    opponents: Sequence[str],
    deals: int,
    seed: int,
    workers: int = 1,
) -> list[str]:
    """The lines ``gin-rummy train`` ends with, those of the examples
    (:func:`before_after_lines`): the run's untrained player (``untrained.npz`` /
    ``.zip``, written when the run started) and its player (what ``--agents RUN_DIR``
    seats: the best if the run kept one, else the latest) on the same ``deals`` duplicate
    deals of ``seed`` against each of ``opponents``."""
    run_dir = Path(run_dir)
    player = trained_players.run_player(run_dir)
    first = trained_players.run_player_path(run_dir, "untrained")
    if not first.is_file():
        return [f"no before/after: {run_dir} has no untrained player (a run of an older version)"]
    untrained = trained_players.load(first)
    trained = trained_players.load(player)
    reads = {**getattr(trained, "env_options", dict)()}
    if reads:
        return [f"no before/after: {player} reads {reads} (the deals are played without it)"]
    rows = before_after(untrained, trained, game, opponents, deals, seed, workers)
    head = (
        f"{player} (seated by --agents {run_dir}) and the untrained player ({first.name}) on "
        f"the same {deals} duplicate deals of seed {seed}:"
    )
    return [head, *before_after_lines(rows)]


class Curve:
    """A learning curve taken during a run: every ``every`` steps the current player
    against ``opponent`` on ``deals`` duplicate deals of ``seed`` (:func:`deal_points`), its
    points per hand (95% CI) shown on ``progress``'s bar (:meth:`training.progress.Progress.
    evaluation`) and written to its TensorBoard as ``eval/<opponent>``; ``rows`` holds the
    curve (``step``, ``mean``, ``ci_low``, ``ci_high``). ``every=0``: no curve."""

    def __init__(
        self,
        game: str,
        opponent: str,
        deals: int,
        seed: int,
        every: int,
        progress: Any = None,
    ) -> None:
        self.game, self.opponent, self.deals, self.seed = game, opponent, deals, seed
        self.every, self.progress = every, progress
        self.next = 0 if every > 0 else None
        self.rows: list[dict[str, float]] = []

    def due(self, step: int) -> bool:
        return self.next is not None and step >= self.next

    def record(self, agent: Any, step: int) -> dict[str, float]:
        """The point of the curve at ``step`` for ``agent``."""
        row = {"step": float(step), **_ci(deal_points(agent, self.game, self.opponent,
                                                      self.deals, self.seed))}  # fmt: skip
        self.rows.append(row)
        if self.every > 0:
            self.next = step + self.every
        if self.progress is not None:
            self.progress.evaluation(f"{self.opponent} {row['mean']:+.1f}")
            self.progress.scalars(step, show=False, **{f"eval__{self.opponent}": row["mean"]})
        return row

    def close(self, agent: Any, step: int) -> None:
        """The curve's last point, at the run's end: :meth:`record` at ``step`` unless the
        curve has a point there already."""
        if not self.rows or self.rows[-1]["step"] != step:
            self.record(agent, step)
