"""Confidence intervals and ratings for the evaluation harness, and the statistics of
evaluations clustered by deal (a deal sequence, or the replays of one deal, is one unit).

>>> m, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
>>> round(m, 2), round(lo, 3), round(hi, 3)
(2.5, 1.235, 3.765)
>>> [round(x, 3) for x in wilson_ci(50, 100)]
[0.404, 0.596]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from gin_env.optional import require
from gin_eval.checks import check_count

__all__ = [
    "Z95",
    "mean_ci",
    "wilson_ci",
    "rate_openskill",
    "elo_bootstrap",
    "cluster_ratio_ci",
    "cluster_diff_ci",
    "half_width",
    "crossfit_beta",
    "deal_share",
    "adjusted_mean_ci",
    "chi2_fit",
]

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


# -- statistics clustered by deal ------------------------------------------------------------
def cluster_ratio_ci(
    num: Sequence[float] | np.ndarray, den: Sequence[float] | np.ndarray
) -> tuple[float, float, float]:
    """``(ratio, low, high)`` of ``sum(num) / sum(den)`` with a 95% CI that treats each
    cluster (one entry of ``num``/``den``: the hands of one deal sequence) as the unit.

    The delta method: the cluster's linearised value ``m + G (num_g - m den_g) / sum(den)``
    has mean ``m``, and :func:`mean_ci` of those values is the interval.
    Clusters with ``den == 0`` still count (they carry no hands of this kind).
    """
    n, d = np.asarray(num, float), np.asarray(den, float)
    if n.shape != d.shape or n.size == 0:
        raise ValueError(f"num and den must be equal, non-empty; got {n.shape} and {d.shape}")
    total = d.sum()
    if total <= 0:
        raise ValueError("cluster_ratio_ci needs at least one hand (sum of den > 0)")
    m = float(n.sum() / total)
    return mean_ci(m + n.size * (n - m * d) / total)


def cluster_diff_ci(
    num_a: Sequence[float] | np.ndarray,
    den_a: Sequence[float] | np.ndarray,
    num_b: Sequence[float] | np.ndarray,
    den_b: Sequence[float] | np.ndarray,
) -> tuple[float, float, float]:
    """``(ratio_a - ratio_b, low, high)``, the 95% CI clustered as in
    :func:`cluster_ratio_ci`: both ratios' linearised values are taken per cluster, so
    luck a cluster gives both sides (the same deals) cancels in the difference."""
    na, da, nb, db = (np.asarray(x, float) for x in (num_a, den_a, num_b, den_b))
    if not (na.shape == da.shape == nb.shape == db.shape) or na.size == 0:
        raise ValueError("the four cluster arrays must have one equal, non-empty shape")
    if da.sum() <= 0 or db.sum() <= 0:
        raise ValueError("cluster_diff_ci needs hands on both sides")
    ma, mb = na.sum() / da.sum(), nb.sum() / db.sum()
    g = na.size
    z = g * (na - ma * da) / da.sum() - g * (nb - mb * db) / db.sum()
    return mean_ci(float(ma - mb) + z)


def half_width(ci: Sequence[float]) -> float:
    """Half the width of an interval ``(low, high)``."""
    return (ci[1] - ci[0]) / 2


def crossfit_beta(
    y: Sequence[float] | np.ndarray,
    x: Sequence[Sequence[float]] | np.ndarray,
    clusters: Sequence[int] | np.ndarray,
    folds: int = 2,
) -> np.ndarray:
    """Each hand's ``beta`` (``(hands, covariates)``), least squares of ``y`` on ``x`` with
    an intercept, **cross-fitted**: cluster ``c`` (an int id: a deal) is in fold
    ``c % folds`` and gets the ``beta`` fitted on the other folds' hands, so no hand's own
    value is in the ``beta`` that adjusts it (a fold with too few hands to fit gets 0)."""
    check_count("folds", folds, 2)
    yv, xv = np.asarray(y, float), np.asarray(x, float)
    cl = np.asarray(clusters)
    if xv.ndim != 2 or yv.shape != (xv.shape[0],) or cl.shape != yv.shape:
        raise ValueError(
            f"x must be (hands, covariates), y and clusters (hands,); got {xv.shape}, "
            f"{yv.shape} and {cl.shape}"
        )
    if not np.issubdtype(cl.dtype, np.integer):
        raise ValueError(f"clusters must be int ids, got dtype {cl.dtype}")
    fold = cl % folds
    betas = np.zeros((folds, xv.shape[1]))
    for f in range(folds):
        train = fold != f
        if train.sum() > xv.shape[1] + 1:
            design = np.column_stack([np.ones(train.sum()), xv[train]])
            betas[f] = np.linalg.lstsq(design, yv[train], rcond=None)[0][1:]
    return betas[fold]


def deal_share(values: Sequence[float] | np.ndarray, groups: Sequence[Any]) -> float | None:
    """The share of the variance of ``values`` common to a group (the replays of one deal):
    the intraclass correlation of a one-way analysis of variance, ``(MSB - MSW) / (MSB +
    (n0 - 1) MSW)``. None when no group has two values (nothing to compare)."""
    y = np.asarray(values, float)
    if y.ndim != 1 or len(groups) != y.size:
        raise ValueError(
            f"values and groups must have one equal length, got {y.shape} and {len(groups)}"
        )
    index: dict[Any, int] = {}
    inv = np.array([index.setdefault(g, len(index)) for g in groups], dtype=int)
    n = np.bincount(inv).astype(float)
    big_n, g = float(y.size), n.size
    if big_n - g < 1 or g < 2:
        return None
    means = np.bincount(inv, weights=y) / n
    msb = float((n * (means - y.mean()) ** 2).sum() / (g - 1))
    msw = float(((y - means[inv]) ** 2).sum() / (big_n - g))
    n0 = (big_n - (n * n).sum() / big_n) / (g - 1)
    denom = msb + (n0 - 1) * msw
    return float((msb - msw) / denom) if denom > 0 else None


def adjusted_mean_ci(
    y: Sequence[float] | np.ndarray,
    x: Sequence[Sequence[float]] | np.ndarray,
    clusters: Sequence[int] | np.ndarray,
    mu: Sequence[float] | np.ndarray,
    mu_cov: np.ndarray | None = None,
    beta: Sequence[float] | np.ndarray | None = None,
    folds: int = 2,
) -> tuple[float, float, float]:
    """``(mean, low, high)``: the regression-adjusted mean of ``y`` (one value per hand)
    ``mean(y - beta . (x - mu))`` with a 95% CI clustered by ``clusters`` (the hands of one
    deal are one unit), where ``x`` holds each hand's covariates and ``mu`` their known mean.

    ``beta=None`` fits ``beta`` on these hands by :func:`crossfit_beta` (``folds`` folds);
    ``beta`` may also be one vector, or one per hand (``(hands, covariates)``, e.g.
    :func:`crossfit_beta` on a larger pool of hands). ``mu_cov`` (the covariance of a
    Monte Carlo ``mu``) widens the CI by ``beta' mu_cov beta``. With ``beta = 0`` this is
    :func:`cluster_ratio_ci` of ``y``.
    """
    yv = np.asarray(y, float)
    xv = np.asarray(x, float)
    cl = np.asarray(clusters)
    m0 = np.asarray(mu, float)
    if yv.ndim != 1 or yv.size == 0:
        raise ValueError(f"y must be a non-empty 1-D sequence, got shape {yv.shape}")
    if xv.ndim != 2 or xv.shape[0] != yv.size or cl.shape != yv.shape:
        raise ValueError(
            f"x must be (hands, covariates) and clusters (hands,) for {yv.size} hands; got "
            f"{xv.shape} and {cl.shape}"
        )
    if m0.shape != (xv.shape[1],):
        raise ValueError(f"mu must have one value per covariate ({xv.shape[1]}), got {m0.shape}")
    ids, inv = np.unique(cl, return_inverse=True)
    if beta is None:
        b = crossfit_beta(yv, xv, cl, folds)
    else:
        bv = np.asarray(beta, float)
        if bv.shape not in (m0.shape, xv.shape):
            raise ValueError(
                f"beta must have one value per covariate {m0.shape} or one row per hand "
                f"{xv.shape}, got shape {bv.shape}"
            )
        b = np.broadcast_to(bv, xv.shape)
    z = yv - ((xv - m0) * b).sum(axis=1)
    num = np.bincount(inv, weights=z, minlength=ids.size)
    den = np.bincount(inv, minlength=ids.size).astype(float)
    m, lo, hi = cluster_ratio_ci(num, den)
    if mu_cov is not None:
        bbar = b.mean(axis=0)
        se = (hi - lo) / (2 * Z95)
        half = Z95 * math.sqrt(se * se + float(bbar @ np.asarray(mu_cov, float) @ bbar))
        lo, hi = m - half, m + half
    return m, lo, hi


def chi2_fit(z_scores: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """``(statistic, p)``: the sum of the squared ``z_scores`` of independent comparisons
    and its upper tail under the chi-square law with one degree per score (the chance of a
    fit this bad or worse when every prediction is right: a check of many predictions at
    once, where counting those inside their own 95% intervals expects 1 in 20 outside).

    >>> [round(x, 3) for x in chi2_fit([1.0, -1.0])]
    [2.0, 0.368]
    """
    z = np.asarray(z_scores, dtype=float)
    if z.size == 0:
        raise ValueError("chi2_fit needs at least one z score, got none")
    stat = float((z * z).sum())
    # The regularised upper incomplete gamma Q(k/2, stat/2), by its series for the lower.
    a, x = z.size / 2.0, stat / 2.0
    if x == 0:
        return stat, 1.0
    term = total = 1.0 / a
    n = 0
    while term > 1e-15 * total and n < 10_000:
        n += 1
        term *= x / (a + n)
        total += term
    lower = math.exp(a * math.log(x) - x - math.lgamma(a)) * total
    return stat, float(min(1.0, max(0.0, 1.0 - lower)))
