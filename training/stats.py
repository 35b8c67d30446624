"""Confidence intervals and ratings for the evaluation harness.

>>> m, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
>>> round(m, 2), round(lo, 3), round(hi, 3)
(2.5, 1.235, 3.765)
>>> [round(x, 3) for x in wilson_ci(50, 100)]
[0.404, 0.596]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from gin_env.extras import require

__all__ = ["Z95", "mean_ci", "wilson_ci", "rate_openskill", "elo_bootstrap"]

#: Two-sided 95% quantile of the normal distribution.
Z95 = 1.959963984540054


def mean_ci(sample: Sequence[float] | np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean with a normal-approximation CI (``z`` standard errors
    of the mean, sample standard deviation with ``ddof=1``). A single value has a zero-width
    interval; an empty sample is a ``ValueError``."""
    x = np.asarray(sample, dtype=float)
    if x.size == 0:
        raise ValueError("mean_ci needs at least one value, got an empty sample")
    m = float(x.mean())
    if x.size == 1:
        return m, m, m
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return m, m - half, m + half


def wilson_ci(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``successes / n``."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..n ({n}), got {successes!r}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate_openskill(
    names: Sequence[str], games: Sequence[tuple[int, int, float]]
) -> dict[str, dict[str, float]]:
    """OpenSkill (Plackett-Luce) ratings from two-player results ``(i, j, score_i)`` with
    score 1 (i won), 0 (j won) or 0.5 (tie). Returns ``{name: {mu, sigma, ordinal}}``; the
    ordinal ``mu - 3 sigma`` is the conservative rating used for ranking."""
    models = require("openskill.models", needed_for="OpenSkill ratings")
    model = models.PlackettLuce()
    ratings = [model.rating(name=n) for n in names]
    for i, j, s in games:
        ranks = [0, 1] if s > 0.5 else [1, 0] if s < 0.5 else [0, 0]
        new = model.rate([[ratings[i]], [ratings[j]]], ranks=ranks)
        ratings[i], ratings[j] = new[0][0], new[1][0]
    return {
        n: {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())}
        for n, r in zip(names, ratings, strict=True)
    }


def elo_bootstrap(
    names: Sequence[str],
    games: Sequence[tuple[int, int, float]],
    rounds: int = 200,
    seed: int = 0,
    k: float = 16.0,
) -> dict[str, dict[str, float]]:
    """Elo ratings (mean 1500) with a bootstrap 95% interval: the games are resampled with
    replacement ``rounds`` times and rated in a random order each time."""
    rng = np.random.default_rng(seed)
    g = np.asarray(games, dtype=float).reshape(-1, 3)

    def elo(rows: np.ndarray) -> np.ndarray:
        r = np.full(len(names), 1500.0)
        for i, j, s in rows:
            i, j = int(i), int(j)
            e = 1 / (1 + 10 ** ((r[j] - r[i]) / 400))
            r[i] += k * (s - e)
            r[j] -= k * (s - e)
        return r

    point = elo(g[rng.permutation(len(g))]) if len(g) else np.full(len(names), 1500.0)
    boots = (
        np.array([elo(g[rng.integers(0, len(g), len(g))]) for _ in range(rounds)])
        if len(g)
        else None
    )
    out = {}
    for idx, n in enumerate(names):
        lo, hi = (
            (float(np.percentile(boots[:, idx], 2.5)), float(np.percentile(boots[:, idx], 97.5)))
            if boots is not None
            else (1500.0, 1500.0)
        )
        out[n] = {"elo": float(point[idx]), "low": lo, "high": hi}
    return out
