"""Evaluation during training, the one copy every trainer uses: an agent against fixed
opponents through :mod:`training.evaluation`, on a seed of the run's choosing.

- gin: duplicate deals (:func:`training.evaluation.gin.gin_duplicate`), ``pairs`` deals each
  played twice with the seats swapped: hands won and points per hand, with 95% CIs;
- three-handed: ``pairs`` matches against two copies of the opponent
  (:func:`training.evaluation.three_handed.three_handed`): match win rate (95% CI) and the
  points per hand in each role; or, with ``hands=True`` (and for an env without duplicate deals),
  ``2 * pairs`` single hands in random seats (:func:`training.league.play_hands`): hands
  won and points per hand.

The learning curve of these rows is :func:`training.evaluation.plots.plot_curves`.
The result is a flat ``{"step": n, "<opponent>/<metric>": value}`` row, ready for a CSV,
TensorBoard and a learning curve. Select checkpoints on one seed and report them on
another: the selection seed's figures are biased upwards by the selection.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gin_env import games
from training.evaluation.gin import gin_duplicate
from training.evaluation.stats import wilson_ci
from training.evaluation.three_handed import three_handed
from training.evaluation.writer import write_csv
from training.league import make_opponent, play_hands

__all__ = ["evaluate_agent", "write_eval_csv"]


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


def write_eval_csv(path: str | Path, rows: Sequence[dict[str, float]]) -> None:
    """The learning curve's rows as ``eval.csv`` (:func:`training.evaluation.writer.
    write_csv`): every metric any row has, ``step`` and ``hours`` first; nothing for none."""
    if not rows:
        return
    keys = sorted({k for r in rows for k in r}, key=lambda k: (k not in ("step", "hours"), k))
    write_csv(path, rows, keys)
