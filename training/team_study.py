"""Team versus solo, measured: duplicate three-handed evaluation, the value of advice, and
the balance between the box and the captain's team.

Three studies, each a function that returns a JSON-ready dict (and a CLI that writes
``results/team_*.json/csv/png``):

- :func:`duplicate_three`: three agents play three-handed matches on deal sequences that
  are **replayed in all six seatings** (``design="duplicate"``), or on a fresh deal sequence
  per match with the same six seatings in turn (``design="plain"``). The deals and the
  initial role draw depend on the env seed alone, so one seed with the agents permuted
  over the player seats replays the same decks. Per agent: match win %, and by role hand
  win %, points per hand and the **edge** (the agent's points per hand in the role minus
  the other two agents' in the same role), each with a 95% CI clustered by deal sequence
  (the six replays of a sequence are one cluster: the CI is paired by deal).
  :func:`duplicate_vs_plain` runs both designs on the same number of matches and reports
  the ratio of the CI half-widths. ``adjust=True`` (CLI ``--adjust``) adds the points per
  hand and paired edges **adjusted for the deal**: a regression on covariates of the deck
  alone (:func:`deal_covariates`), their mean from a deals-only Monte Carlo
  (:func:`covariate_means`), ``beta`` cross-fitted by deal (:func:`adjusted_mean_ci`).
  ``adjust="draws"`` (CLI ``--adjust draws``) also corrects for the luck of every stock draw,
  AIVAT-style: each hand is replayed (:func:`replay_hand`) and at each draw the drawer's
  features for the card drawn minus their mean over every card then in the stock
  (:func:`draw_corrections`, mean 0 exactly) join the deal's covariates. ``adjust="value"``
  (CLI ``--adjust value``) makes those corrections with a learned value of the full state
  (:mod:`training.hand_value`, fitted on a pilot seed by :func:`fit_value_on_pilot`, CLI
  ``fit-value``; the committed one by default): ``V`` after the deal, and at each draw ``V``
  after the card drawn minus its mean over every card then in the stock.
- :func:`advice_matrix`: single hands (``episode="hand"``) where the roles are filled by
  policy: a fixed box, a captain and an adviser. Every cell plays the same deals (the deal
  and the role draw depend on the seed and the deal's index alone), so differences
  between cells are paired by deal. Per cell: the team's points per hand against the box,
  how often the captain plays the suggestion (for a captain that never reads it, this is
  only agreement), and the team's points in hands where the captain followed every
  suggestion versus hands where it overrode at least one. Advisers are agent specs or one
  of the ablations of the advice channel (:data:`ADVICE_ABLATIONS`).
- :func:`balance`: L2 in every seat, matches under rule options; the share of hands and of
  matches the box wins.

Agents are registered names / specs (``agents.make``) or agent objects, so trained
captains and advisers plug in. ``python -m training.team_study --help`` for the CLI.
"""

from __future__ import annotations

import argparse
import csv
import functools
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import agents as agent_registry
from agents.advice import Captain
from gin_env import actions as A
from gin_env import three_handed_gin_v0
from gin_env.cards import NUM_CARDS
from gin_env.config import HandRules, ThreeHandedConfig
from gin_env.encoding import OBS_SLICES
from gin_env.gin_aec import make_config
from gin_env.hand import DRAW_AT_STOCK, GinHand, Phase
from gin_env.match import ADVISER, BOX, CAPTAIN, ROLE_NAMES, ThreeHandedMatch
from gin_env.melds import deadwood_mask, discard_deadwoods
from training import prog_name
from training.evaluate import OptionError, _agent, _label, _pool_map, _table
from training.hand_value import (
    DEFAULT_VALUE_PATH,
    HandValue,
    deal_values,
    fit_value,
    hand_states,
    least_deadwood,
    value_corrections,
)
from training.hand_value import replay_hand as replay_hand
from training.stats import Z95, mean_ci, wilson_ci

__all__ = [
    "PERMUTATIONS",
    "ADVICE_ABLATIONS",
    "MutedAdviser",
    "ShuffledAdviser",
    "OwnPolicyAdviser",
    "make_adviser",
    "cluster_ratio_ci",
    "cluster_diff_ci",
    "COVARIATES",
    "deal_covariates",
    "covariate_means",
    "crossfit_beta",
    "adjusted_mean_ci",
    "deal_share",
    "DRAW_CORRECTIONS",
    "ADJUST_MODES",
    "VALUE_COVARIATES",
    "load_value",
    "fit_value_on_pilot",
    "draw_features",
    "replay_hand",
    "draw_corrections",
    "play_seated_match",
    "duplicate_three",
    "duplicate_vs_plain",
    "play_advice_hands",
    "advice_matrix",
    "learned_advice",
    "balance",
    "main",
]

AgentSpec = Any
#: The six orders of three agents over the player seats: ``perm[seat]`` is the agent index.
PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(3)))
#: Adviser specs that are ablations of the advice channel rather than agents.
ADVICE_ABLATIONS = ("none", "muted", "shuffled", "own")
_CARD_PARTS = ("hand", "top_discard", "discard_pile", "opponent_took", "opponent_discarded",
               "partner_discarded")  # fmt: skip
_DISCARD, _KNOCK = A.DISCARD, A.KNOCK


# -- statistics clustered by deal ------------------------------------------------------------
def cluster_ratio_ci(
    num: Sequence[float] | np.ndarray, den: Sequence[float] | np.ndarray
) -> tuple[float, float, float]:
    """``(ratio, low, high)`` of ``sum(num) / sum(den)`` with a 95% CI that treats each
    cluster (one entry of ``num``/``den``: the hands of one deal sequence) as the unit.

    The delta method: the cluster's linearised value ``m + G (num_g - m den_g) / sum(den)``
    has mean ``m``, and :func:`training.stats.mean_ci` of those values is the interval.
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


def _half(ci: Sequence[float]) -> float:
    return (ci[1] - ci[0]) / 2


# -- regression adjustment on the deal -------------------------------------------------------
#: Covariates of a deal: functions of the deck alone (known before any move, whoever plays).
#: ``captain_*`` / ``box_*``: the captain (the hand's non-dealer, seat 0, dealt first) and
#: the box (the dealer). ``*_deadwood``: deadwood of the 10 dealt cards; ``*_upcard`` /
#: ``*_stock``: least deadwood of 10 of those cards and the upcard / the top of the stock.
#: ``race_turns``, ``race_gap``: both draw only from the stock in turn (captain first), each
#: keeping the 10 cards of least deadwood; the box's draws minus the captain's until each
#: could knock, and the box's deadwood minus the captain's when the first one could.
COVARIATES = (
    "captain_deadwood",
    "box_deadwood",
    "captain_upcard",
    "box_upcard",
    "captain_stock",
    "box_stock",
    "race_turns",
    "race_gap",
)
_SEAT_CAPTAIN, _SEAT_BOX = 0, 1  # ThreeHandedMatch seats (captain, box); the box deals


def _best_with(hand: int, card: int) -> tuple[int, int]:
    """``(hand, deadwood)``: the 10 of ``hand`` plus ``card`` with the least deadwood."""
    options = discard_deadwoods(hand | 1 << card)
    drop = min(options, key=lambda c: (options[c], c))
    return (hand | 1 << card) & ~(1 << drop), options[drop]


def deal_covariates(deck: Sequence[int], knock_limit: int | None = None) -> np.ndarray:
    """The :data:`COVARIATES` of a three-handed deal (a 52-card deck as the hand deals it):
    a float vector that depends on the deck alone. ``knock_limit`` (default: the rules'
    default) is where the stock race stops."""
    hand = GinHand(deck, dealer=_SEAT_BOX)
    limit = hand.rules.knock_limit if knock_limit is None else knock_limit
    held = [hand.hands[_SEAT_CAPTAIN], hand.hands[_SEAT_BOX]]
    stock = hand.stock
    x = [float(deadwood_mask(h)) for h in held]
    x += [float(_best_with(h, hand.upcard)[1]) for h in held]
    x += [float(_best_with(h, stock[0])[1]) for h in held]
    dw = [deadwood_mask(h) for h in held]
    reached: list[int | None] = [0 if d <= limit else None for d in dw]
    gap = float(dw[1] - dw[0]) if reached != [None, None] else None
    draws = [0, 0]
    for k, card in enumerate(stock[:-DRAW_AT_STOCK]):
        if None not in reached:
            break
        seat = k % 2
        held[seat], dw[seat] = _best_with(held[seat], card)
        draws[seat] += 1
        if reached[seat] is None and dw[seat] <= limit:
            reached[seat] = draws[seat]
            if gap is None:
                gap = float(dw[1] - dw[0])
    cap = len(stock) // 2 + 1  # never reached: one more draw than the stock allows
    turns = [cap if r is None else r for r in reached]
    x += [float(turns[1] - turns[0]), 0.0 if gap is None else gap]
    return np.array(x)


def _mc_decks(deals: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng([seed, deals, 41])
    return [[int(c) for c in rng.permutation(NUM_CARDS)] for _ in range(deals)]


@functools.lru_cache(maxsize=4)
def _covariate_sample(deals: int, seed: int) -> np.ndarray:
    xs = np.array([deal_covariates(deck) for deck in _mc_decks(deals, seed)])
    xs.flags.writeable = False  # cached: shared by every caller
    return xs


def covariate_means(
    deals: int = 20000,
    seed: int = 0,
    value: HandValue | None = None,
    rules: HandRules | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(mu, cov)``: the mean of :func:`deal_covariates` over ``deals`` uniformly shuffled
    decks (a deals-only Monte Carlo: no hand is played) and the covariance matrix of that
    estimate (the sample covariance / ``deals``), which the adjusted CIs include. With a
    ``value``, one more column: ``V`` of the state after the deal (``value_deal``, under the
    hand ``rules``)."""
    _check_count("deals", deals, 2)
    xs = _covariate_sample(deals, seed)
    if value is not None:
        xs = np.column_stack([xs, deal_values(value, _mc_decks(deals, seed), rules)])
    return xs.mean(axis=0), np.cov(xs, rowvar=False) / deals


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
    _check_count("folds", folds, 2)
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


# -- chance corrections at the stock draws (AIVAT-style) ---------------------------------------
#: Per seat of the hand (the captain, the box): the sums over that seat's stock draws of the
#: chance correction ``f(card drawn) - mean of f over the cards then in the stock`` of three
#: functions ``f`` of the drawer's 11 cards: ``*_deadwood``, the least deadwood after a
#: discard; ``*_knock``, 1 if that is within the knock limit; ``*_gin``, 1 if it is 0. The
#: stock is a uniform shuffle, so the next card is uniform over the cards still in it and each
#: correction has mean 0 given everything before the draw, whatever the players do.
DRAW_CORRECTIONS = (
    "captain_draw_deadwood",
    "captain_draw_knock",
    "captain_draw_gin",
    "box_draw_deadwood",
    "box_draw_knock",
    "box_draw_gin",
)
_DRAW_FEATURES = 3
#: ``adjust`` values of :func:`duplicate_three`: the deal's covariates alone, also the
#: corrections for the luck of every stock draw with hand-made features (``"draws"``), or
#: with a learned value of the full state (``"value"``, :mod:`training.hand_value`).
ADJUST_MODES = ("deal", "draws", "value")
#: The columns ``adjust="value"`` adds to :data:`COVARIATES`: ``value_deal``, the learned
#: ``V`` of the state after the deal (a function of the deck: its mean comes from the same
#: deals-only Monte Carlo); per seat, the sum over its stock draws of ``V(after the card
#: drawn) - mean over the stock of V(after that card)`` (mean 0 exactly).
VALUE_COVARIATES = ("value_deal", "captain_draw_value", "box_draw_value")


def draw_features(hand: GinHand) -> tuple[list[int], np.ndarray]:
    """At a draw decision of ``hand``: the cards in the stock (top first) and, for each, the
    drawer's features had it been the card drawn (``(cards, 3)``: least deadwood after a
    discard, within the knock limit, gin), everything else held equal."""
    if hand.phase is not Phase.DRAW:
        raise ValueError(f"draw_features needs a hand at a draw decision, got {hand.phase.name}")
    held, limit = hand.hands[hand.current], hand.knock_limit
    stock = hand.stock
    f = np.empty((len(stock), _DRAW_FEATURES))
    for i, card in enumerate(stock):
        dw = least_deadwood(held | 1 << card)
        f[i] = (dw, dw <= limit, dw == 0)
    return stock, f


def draw_corrections(
    deck: Sequence[int], actions: Sequence[tuple[int, int]], rules: HandRules | None = None
) -> np.ndarray:
    """The :data:`DRAW_CORRECTIONS` of one played hand (replayed by :func:`replay_hand`): at
    each draw from the stock, the drawer's :func:`draw_features` for the card drawn minus
    their mean over every card then in the stock, summed per seat. Each term has mean 0
    given the hand so far, so ``y - beta . draw_corrections`` stays unbiased for any
    ``beta`` that does not depend on the hand."""
    out = np.zeros(len(DRAW_CORRECTIONS))

    def add(hand: GinHand) -> None:
        _, f = draw_features(hand)
        at = 0 if hand.current == _SEAT_CAPTAIN else _DRAW_FEATURES
        out[at : at + _DRAW_FEATURES] += f[0] - f.mean(axis=0)

    replay_hand(deck, actions, rules, add)
    return out


def _hand_actions(rec: Any) -> tuple[tuple[int, int], ...]:
    """The record's actions as its ``GinHand`` took them: ``(seat, action)``, advice left out."""
    seat = {p: s for s, p in enumerate(rec.players)}
    return tuple((seat[p], a) for p, a in rec.actions if p in seat)


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


# -- advisers for the ablations ----------------------------------------------------------------
def _without_no_advice(mask: np.ndarray) -> np.ndarray:
    out = np.array(mask, dtype=np.int8, copy=True)
    if out[A.NO_ADVICE] and out.sum() > 1:
        out[A.NO_ADVICE] = 0
    return out


class MutedAdviser:
    """The advice channel muted: the adviser always says ``NO_ADVICE`` (the captain sees
    the one-hot of ``NO_ADVICE``, unlike ``adviser="none"`` where it sees no suggestion)."""

    name = "muted"

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        mask = np.asarray(observation["action_mask"])
        return A.NO_ADVICE if mask[A.NO_ADVICE] else int(np.flatnonzero(mask)[0])


class ShuffledAdviser:
    """Advice of the right form and frequency carrying no information about the cards.

    At each decision the adviser's observation is relabelled by a fresh random permutation
    ``s`` of the 52 cards (every card part, and the discard/knock entries of the mask), the
    ``agent`` (L2 by default) chooses a suggestion there, and card ``s[c]`` of its choice is
    mapped back to card ``c``. The suggestion is always legal and draws, takes, passes,
    discards and knocks as the agent would on some position, but which card it names is
    unrelated to the captain's melds.
    """

    name = "shuffled"

    def __init__(self, agent: Any = None) -> None:
        self.agent = agent if agent is not None else agent_registry.make("heuristic")

    @staticmethod
    def relabel(observation: dict[str, np.ndarray], perm: np.ndarray) -> dict[str, np.ndarray]:
        """The observation with card ``c`` renamed ``perm[c]`` (``NO_ADVICE`` masked out)."""
        obs = np.array(observation["observation"], dtype=np.float32, copy=True)
        for part in _CARD_PARTS:
            s = OBS_SLICES[part]
            block = obs[s].copy()
            obs[s.start + perm] = block
        mask = _without_no_advice(np.asarray(observation["action_mask"]))
        new_mask = mask.copy()
        for base in (_DISCARD, _KNOCK):
            new_mask[base + perm] = mask[base : base + NUM_CARDS]
        return {"observation": obs, "action_mask": new_mask}

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        rng = rng if rng is not None else np.random.default_rng()
        perm = rng.permutation(NUM_CARDS)
        a = int(self.agent.act(self.relabel(observation, perm), rng))
        inverse = np.argsort(perm)
        for base in (_DISCARD, _KNOCK):
            if base <= a < base + NUM_CARDS:
                return base + int(inverse[a - base])
        return a


class OwnPolicyAdviser:
    """Suggests what ``policy`` would play in the captain's own seat: the adviser's
    observation turned into the captain's (role captain, not advising, no suggestion,
    ``NO_ADVICE`` masked out). With the captain's own policy this is advice that adds no
    information; a captain that follows it plays as it would alone."""

    name = "own"

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        obs = np.array(observation["observation"], dtype=np.float32, copy=True)
        obs[OBS_SLICES["role"]] = 0
        obs[OBS_SLICES["role"].start + CAPTAIN] = 1
        obs[OBS_SLICES["advising"]] = 0
        obs[OBS_SLICES["suggestion"]] = 0
        mask = _without_no_advice(np.asarray(observation["action_mask"]))
        return int(self.policy.act({"observation": obs, "action_mask": mask}, rng))


def _own_policy(captain: Any) -> Any:
    return captain.agent if isinstance(captain, Captain) else captain


def make_adviser(spec: AgentSpec, captain: Any) -> Any:
    """The adviser for ``spec``: ``None`` for ``"none"`` (the env's ``adviser="none"``),
    :class:`MutedAdviser`, :class:`ShuffledAdviser` (L2 on relabelled cards),
    :class:`OwnPolicyAdviser` of the captain's own policy (a :class:`~agents.advice.Captain`'s
    wrapped agent), or any agent spec / object (``"adviser:agent=heuristic"`` suggests what
    L2 would play as captain)."""
    if spec == "none":
        return None
    if spec == "muted":
        return MutedAdviser()
    if spec == "shuffled":
        return ShuffledAdviser()
    if spec == "own":
        return OwnPolicyAdviser(_own_policy(captain))
    return _agent(spec)


# -- duplicate three-handed --------------------------------------------------------------------
def _env_seed(seed: int, index: int, salt: int) -> int:
    return int(np.random.default_rng([seed, index, salt]).integers(2**31))


def play_seated_match(
    seat_specs: Sequence[AgentSpec],
    seed: int,
    index: int,
    adviser: str = "suggest",
    rules: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One match of deal sequence ``index``; ``seat_specs[k]`` plays ``player_k``.

    The env seed depends on ``(seed, index)`` alone, so the decks and the initial role draw
    are the same whoever sits where. Per hand: the deck (as a tuple), each player's role,
    the box's points (+ when the box scores), who won. Also the match winner's seat and the
    role the winner held in the last hand.
    """
    env = three_handed_gin_v0.raw_env(
        adviser=adviser, episode="match", max_hands=2000, **dict(rules or {})
    )
    env.reset(seed=_env_seed(seed, index, 3))
    players = {f"player_{k}": _agent(s, rules) for k, s in enumerate(seat_specs)}
    rng = np.random.default_rng([seed, index, 11])
    while True:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        env.step(int(players[agent].act(env.observe(agent), rng)))
    match = env.match
    assert isinstance(match, ThreeHandedMatch)  # reset above
    hands = []
    for rec in match.history:
        res = rec.result
        if res is None:
            continue
        scorer = None if res.winner is None else rec.players[res.winner]
        box = rec.roles.index(BOX)
        hands.append(
            {
                "deck": tuple(rec.deck),
                "roles": list(rec.roles),
                "box_points": 0
                if scorer is None
                else (res.points if scorer == box else -res.points),
                "box_won": scorer == box,
                "team_won": scorer is not None and scorer != box,
                "actions": _hand_actions(rec),
            }
        )
    last = match.history[-1]
    winner_role = None if match.winner is None else ROLE_NAMES[last.roles[match.winner]]
    return {
        "index": index,
        "winner": match.winner,
        "winner_role": winner_role,
        "first_roles": list(match.history[0].roles),
        "hands": hands,
    }


def play_role_hand(
    role_specs: Sequence[AgentSpec],
    seed: int,
    index: int,
    adviser: str = "suggest",
    rules: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Deal ``index`` as a single hand, ``role_specs[r]`` playing role ``r`` (box, captain,
    adviser). The env seed depends on ``(seed, index)`` alone: the same cards whoever
    plays which role. Returns the hand as :func:`play_seated_match` lists it, with player
    ``r`` in role ``r``."""
    env = three_handed_gin_v0.raw_env(adviser=adviser, episode="hand", **dict(rules or {}))
    env.reset(seed=_env_seed(seed, index, 31))
    match = env.match
    assert isinstance(match, ThreeHandedMatch)  # reset above
    by_role = {r: _agent(spec, rules) for r, spec in enumerate(role_specs)}
    rng = np.random.default_rng([seed, index, 13])
    while True:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        role = match.record.roles[env.possible_agents.index(agent)]
        env.step(int(by_role[role].act(env.observe(agent), rng)))
    rec = match.history[0]
    res = rec.result
    assert res is not None
    scorer = None if res.winner is None else rec.roles[rec.players[res.winner]]
    return {
        "deck": tuple(rec.deck),
        "roles": [BOX, CAPTAIN, ADVISER],
        "box_points": 0 if scorer is None else (res.points if scorer == BOX else -res.points),
        "box_won": scorer == BOX,
        "team_won": scorer is not None and scorer != BOX,
        "actions": _hand_actions(rec),
    }


def _role_hand_job(
    role_specs: Sequence[AgentSpec], seed: int, index: int, adviser: str, rules: dict[str, Any]
) -> dict[str, Any]:
    return {"winner": None, "hands": [play_role_hand(role_specs, seed, index, adviser, rules)]}


def _seat_specs(specs: Sequence[AgentSpec], perm: Sequence[int]) -> list[AgentSpec]:
    return [specs[perm[seat]] for seat in range(3)]


def _labels(agents: Sequence[AgentSpec]) -> list[str]:
    labels = [_label(a) for a in agents]
    if len(set(labels)) < len(labels):
        labels = [f"{lab}#{k}" if labels.count(lab) > 1 else lab for k, lab in enumerate(labels)]
    return labels


def _check_agents(agents: Sequence[AgentSpec], rules: Mapping[str, Any]) -> None:
    try:
        for spec in agents:
            _agent(spec)
        three_handed_gin_v0.raw_env(**dict(rules))
    except OptionError:
        raise
    except ValueError as err:
        raise OptionError(str(err)) from None


def _check_count(name: str, value: object, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise OptionError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def load_value(value: HandValue | str | Path | None = None) -> HandValue:
    """The learned value for ``adjust="value"``: ``value`` itself, the one saved at that
    path, or (None) the committed :data:`~training.hand_value.DEFAULT_VALUE_PATH`."""
    if isinstance(value, HandValue):
        return value
    if value is not None and not isinstance(value, str | Path):
        raise OptionError(f"value must be a HandValue or the path of a saved one, got {value!r}")
    try:
        return HandValue.load(DEFAULT_VALUE_PATH if value is None else value)
    except ValueError as err:
        raise OptionError(str(err)) from None


def fit_value_on_pilot(
    agents: Sequence[AgentSpec],
    deals: int,
    seed: int,
    workers: int = 1,
    adviser: str = "suggest",
    rules: Mapping[str, Any] | None = None,
    progress: bool = False,
    hidden: Sequence[int] = (64, 32),
    epochs: int = 12,
) -> HandValue:
    """A :class:`~training.hand_value.HandValue` fitted on ``6 * deals`` single hands of a
    **pilot** ``seed`` (never the seed a study reports): fresh deals, the three agents in
    the six role assignments in turn (the plain design of :func:`duplicate_three`), every
    state ``V`` is evaluated at (:func:`~training.hand_value.hand_states`) with its hand's
    final box points as the target (:func:`~training.hand_value.fit_value`)."""
    if len(agents) != 3:
        raise OptionError(f"the pilot needs exactly 3 agents, got {len(agents)}")
    _check_count("deals", deals)
    _check_count("workers", workers)
    _check_count("epochs", epochs)
    rules = dict(rules or {})
    _check_agents(agents, rules)
    jobs = [(_seat_specs(agents, perm), seed, 6 * i + p, adviser, rules)
            for i in range(deals) for p, perm in enumerate(PERMUTATIONS)]  # fmt: skip
    res = _pool_map(_role_hand_job, jobs, workers, progress, "pilot hands for V")
    hand_rules = make_config(ThreeHandedConfig, rules).hand_rules()
    xs, ys, groups = [], [], []
    for k, r in enumerate(res):
        h = r["hands"][0]
        x = hand_states(h["deck"], h["actions"], hand_rules)
        xs.append(x)
        ys += [h["box_points"]] * len(x)
        groups += [k] * len(x)
    try:
        v = fit_value(np.concatenate(xs), np.array(ys), np.array(groups), hidden, epochs)
    except ValueError as err:
        raise OptionError(str(err)) from None
    v.info.update(agents=_labels(agents), pilot_seed=seed, pilot_hands=len(res),
                  adviser=adviser, rules=rules)  # fmt: skip
    return v


def duplicate_three(
    agents: Sequence[AgentSpec],
    deals: int,
    seed: int = 0,
    workers: int = 1,
    adviser: str = "suggest",
    design: str = "duplicate",
    progress: bool = False,
    rules: Mapping[str, Any] | None = None,
    unit: str = "match",
    adjust: bool | str = False,
    adjust_deals: int = 20000,
    value: HandValue | str | Path | None = None,
) -> dict[str, Any]:
    """``6 * deals`` matches of three agents, every agent in every seat order equally often.

    ``design="duplicate"``: ``deals`` deal sequences, each played in the six seatings (one
    cluster per sequence). ``design="plain"``: a fresh deal sequence for each of the
    ``6 * deals`` matches, seatings in turn (one cluster per match). The same statistics and
    the same clustered CIs either way, so the two designs compare at equal size.

    ``unit="hand"``: single hands instead of matches: each deal is played once in each of
    the six assignments of the agents to the roles (box, captain, adviser), so every hand
    has the other agents' results on the same cards in the same role (no match win %).

    ``adjust=True`` adds, per agent and role, the points per hand and the paired edge
    **adjusted for the deal** (``adjusted_points_per_hand`` / ``adjusted_ci95``,
    ``adjusted_paired_edge`` / ``adjusted_paired_edge_ci95``): :func:`adjusted_mean_ci` on
    each hand's :func:`deal_covariates`, ``beta`` cross-fitted (two folds of deals) per agent
    and role, the covariates' mean from ``adjust_deals`` shuffled decks
    (:func:`covariate_means`, its error included in the CI). ``adjust="draws"`` corrects
    also for the luck of every card drawn from the stock (AIVAT-style): the covariates are
    the deal's plus the hand's :func:`draw_corrections` (mean 0 exactly), all with one
    cross-fitted ``beta``. ``adjust="value"`` makes the same kind of corrections with a
    learned value of the full state (:mod:`training.hand_value`; ``value``: a
    :class:`~training.hand_value.HandValue` or the path of a saved one, by default
    :data:`~training.hand_value.DEFAULT_VALUE_PATH`): the covariates are the deal's plus
    :data:`VALUE_COVARIATES`. ``adjust=True`` is ``"deal"``.
    """
    if unit not in ("match", "hand"):
        raise OptionError(f"unit must be 'match' or 'hand', got {unit!r}")
    if len(agents) != 3:
        raise OptionError(f"a three-handed evaluation needs exactly 3 agents, got {len(agents)}")
    if design not in ("duplicate", "plain"):
        raise OptionError(f"design must be 'duplicate' or 'plain', got {design!r}")
    if adviser not in ("suggest", "none"):
        raise OptionError(f"adviser must be 'suggest' or 'none', got {adviser!r}")
    _check_count("deals", deals)
    _check_count("workers", workers)
    mode = _adjust_mode(adjust)
    if mode:
        _check_count("adjust_deals", adjust_deals, 2)
    if value is not None and mode != "value":
        raise OptionError(f"value is for adjust='value' only, got adjust={adjust!r}")
    v = load_value(value) if mode == "value" else None
    rules = dict(rules or {})
    _check_agents(agents, rules)
    labels = _labels(agents)
    jobs, meta = [], []
    for i in range(deals):
        for p, perm in enumerate(PERMUTATIONS):
            index = i if design == "duplicate" else 6 * i + p
            # By seat for matches; by role for single hands (player r plays role r).
            jobs.append((_seat_specs(agents, perm), seed, index, adviser, rules))
            meta.append((index, [labels[perm[s]] for s in range(3)]))
    fn = play_seated_match if unit == "match" else _role_hand_job
    res = _pool_map(fn, jobs, workers, progress, f"three-handed {design} ({unit}s)")
    matches = [dict(r, cluster=c, order=o) for r, (c, o) in zip(res, meta, strict=True)]
    replay = mode in ("draws", "value")
    hand_rules = make_config(ThreeHandedConfig, rules).hand_rules() if replay else None
    means = covariate_means(adjust_deals, seed, v, hand_rules) if mode else None
    out = _duplicate_summary(labels, matches, means, hand_rules, v)
    if mode:
        out.update(covariate_deals=adjust_deals, adjust=mode)
    if v is not None:
        out.update(value=v.info)
    if unit == "hand":
        for st in out["per_agent"].values():
            st.update(matches=0, match_win_rate=None, match_win_rate_ci95=None)
    out.update(design=design, unit=unit, deals=deals, seed=seed, adviser=adviser, rules=rules)
    return out


def _adjust_mode(adjust: object) -> str | None:
    """``adjust`` as None (off) or one of :data:`ADJUST_MODES` (True is ``"deal"``)."""
    if adjust is False or adjust is None:
        return None
    if adjust is True:
        return "deal"
    if isinstance(adjust, str) and adjust in ADJUST_MODES:
        return adjust
    raise OptionError(
        f"adjust must be False, True or one of {', '.join(map(repr, ADJUST_MODES))}; got {adjust!r}"
    )


def _duplicate_summary(
    labels: list[str],
    matches: list[dict[str, Any]],
    adjust: tuple[np.ndarray, np.ndarray] | None = None,
    draws: HandRules | None = None,
    learned: HandValue | None = None,
) -> dict[str, Any]:
    """The statistics of :func:`duplicate_three`; ``adjust``: the covariates' ``(mu, cov)``
    (adjust for the deal); ``draws``: the hand rules, to correct also for the stock draws
    (:func:`draw_corrections`), or with ``learned`` by the learned value's
    :func:`~training.hand_value.value_corrections` (then ``adjust`` holds the mean of
    ``value_deal`` too)."""
    clusters = sorted({m["cluster"] for m in matches})
    at = {c: k for k, c in enumerate(clusters)}
    g = len(clusters)
    # Per cluster, agent and role: hands, hands won, points.
    hands = np.zeros((g, len(labels), 3))
    won = np.zeros_like(hands)
    pts = np.zeros_like(hands)
    games = np.zeros((g, len(labels)))
    wins = np.zeros_like(games)
    box_n = np.zeros(g)
    box_pts = np.zeros(g)
    box_won = np.zeros(g)
    index = {n: k for k, n in enumerate(labels)}
    n_hands = 0
    # (cluster, hand index, role) -> [(agent, points, draw corrections)]: who held those
    # cards in that role.
    same_cards: dict[tuple[int, int, int], list[tuple[int, float, np.ndarray]]] = {}
    # For the regression adjustment: each hand's deck, and (cluster, hand index, agent,
    # role, points, the hand's draw corrections: empty unless ``draws``) per player.
    x_of: dict[tuple[int, int], np.ndarray] = {}
    per_hand: list[tuple[int, int, int, int, float, np.ndarray]] = []
    no_draws = np.zeros(0)
    for m in matches:
        c = at[m["cluster"]]
        for seat, name in enumerate(m["order"]):
            games[c, index[name]] += 1
            wins[c, index[name]] += m["winner"] == seat
        for k, h in enumerate(m["hands"]):
            n_hands += 1
            x_deal = deal_covariates(h["deck"]) if adjust else no_draws
            if learned is not None:
                vc = value_corrections(h["deck"], h["actions"], learned, draws)
                x_deal, xd = np.append(x_deal, vc[0]), vc[1:]
            elif draws is not None:
                xd = draw_corrections(h["deck"], h["actions"], draws)
            else:
                xd = no_draws
            box_n[c] += 1
            box_pts[c] += h["box_points"]
            box_won[c] += h["box_won"]
            for seat, role in enumerate(h["roles"]):
                a = index[m["order"][seat]]
                value = h["box_points"] if role == BOX else -h["box_points"]
                hands[c, a, role] += 1
                won[c, a, role] += h["box_won"] if role == BOX else h["team_won"]
                pts[c, a, role] += value
                same_cards.setdefault((c, k, role), []).append((a, value, xd))
                per_hand.append((c, k, a, role, value, xd))
            x_of[(c, k)] = x_deal
    # The paired edge: each hand against the mean of the other agents' results with the
    # same cards (same deal sequence, hand index and role), summed per cluster.
    p_num = np.zeros_like(hands)
    p_den = np.zeros_like(hands)
    per_pair: list[tuple[int, int, int, int, float, np.ndarray]] = []
    for (c, k, role), entries in same_cards.items():
        for a, value, xd in entries:
            others = [(v, x) for b, v, x in entries if b != a]
            if others:
                diff = value - sum(v for v, _ in others) / len(others)
                p_num[c, a, role] += diff
                p_den[c, a, role] += 1
                # The paired difference's draw corrections: the same difference of them.
                xo = np.mean([x for _, x in others], axis=0) if xd.size else xd
                per_pair.append((c, k, a, role, diff, xd - xo))
    by_role: dict[str, dict[str, float | None]] = {}
    adjusted = _adjusted_by_role(per_hand, per_pair, x_of, adjust, by_role) if adjust else {}
    per_agent: dict[str, Any] = {}
    for a, name in enumerate(labels):
        roles: dict[str, dict[str, Any]] = {}
        rest = np.array([b for b in range(len(labels)) if b != a], dtype=int)
        for role, rname in enumerate(ROLE_NAMES):
            n_a = hands[:, a, role]
            if n_a.sum() == 0:
                roles[rname] = {"hands": 0}
                continue
            wr = cluster_ratio_ci(won[:, a, role], n_a)
            pp = cluster_ratio_ci(pts[:, a, role], n_a)
            n_o = hands[:, rest, role].sum(axis=1)
            edge = (
                cluster_diff_ci(pts[:, a, role], n_a, pts[:, rest, role].sum(axis=1), n_o)
                if n_o.sum() > 0
                else None
            )
            paired = (
                cluster_ratio_ci(p_num[:, a, role], p_den[:, a, role])
                if p_den[:, a, role].sum() > 1
                else None
            )
            roles[rname] = {
                "hands": int(n_a.sum()),
                "hand_win_rate": wr[0],
                "hand_win_rate_ci95": wr[1:],
                "points_per_hand": pp[0],
                "ci95": pp[1:],
                "edge": None if edge is None else edge[0],
                "edge_ci95": None if edge is None else edge[1:],
                "paired_hands": int(p_den[:, a, role].sum()),
                "paired_edge": None if paired is None else paired[0],
                "paired_edge_ci95": None if paired is None else paired[1:],
            }
            roles[rname].update(adjusted.get((a, role), {}))
        mw = cluster_ratio_ci(wins[:, a], games[:, a])
        per_agent[name] = {
            "matches": int(games[:, a].sum()),
            "match_win_rate": mw[0],
            "match_win_rate_ci95": mw[1:],
            "roles": roles,
        }
    bp = cluster_ratio_ci(box_pts, box_n)
    bw = cluster_ratio_ci(box_won, box_n)
    return {
        **(
            {
                "covariates": list(COVARIATES)
                + (list(VALUE_COVARIATES) if learned else list(DRAW_CORRECTIONS) if draws else []),
                "covariate_means": adjust[0].tolist(),
                "adjustment_by_role": by_role,
            }
            if adjust
            else {}
        ),
        "agents": labels,
        "matches": len(matches),
        "clusters": g,
        "hands": n_hands,
        "box_points_per_hand": bp[0],
        "box_points_ci95": bp[1:],
        "box_hand_win_rate": bw[0],
        "box_hand_win_rate_ci95": bw[1:],
        "per_agent": per_agent,
    }


def _adjusted_by_role(
    per_hand: list[tuple[int, int, int, int, float, np.ndarray]],
    per_pair: list[tuple[int, int, int, int, float, np.ndarray]],
    x_of: Mapping[tuple[int, int], np.ndarray],
    adjust: tuple[np.ndarray, np.ndarray],
    by_role: dict[str, dict[str, float | None]],
) -> dict[tuple[int, int], dict[str, Any]]:
    """Per (agent, role): the points per hand and the paired edge adjusted for the deal's
    covariates (:func:`adjusted_mean_ci`; ``beta`` cross-fitted by :func:`crossfit_beta`,
    for the points per role on all agents' hands, for the paired edge per agent and role).

    Fills ``by_role[role]`` with ``covariate_r2``, the share of the variance of a hand's
    points in the role the cross-fitted adjustment removes, and ``deal_share``, the share
    common to every replay of the same cards (:func:`deal_share`; None without replays).
    ``x_of[(cluster, hand index)]``: the deal's covariates (whose mean and its covariance
    are ``adjust``). Rows with draw corrections (the last item, mean 0) append them."""
    extra = per_hand[0][5].size if per_hand else 0
    mu = np.concatenate([adjust[0], np.zeros(extra)])
    mu_cov = np.zeros((mu.size, mu.size))
    mu_cov[: adjust[1].shape[0], : adjust[1].shape[0]] = adjust[1]
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for name, rows, pooled in (
        ("adjusted_points_per_hand", per_hand, True),
        ("adjusted_paired_edge", per_pair, False),
    ):
        if not rows:
            continue
        cl = np.array([r[0] for r in rows])
        agent = np.array([r[2] for r in rows])
        role = np.array([r[3] for r in rows])
        y = np.array([r[4] for r in rows], float)
        x = np.array([np.concatenate([x_of[(r[0], r[1])], r[5]]) for r in rows])
        beta = np.zeros_like(x)
        # Points: one beta per role, fitted on every agent's hands in the role. The paired
        # edge: per agent and role (a beta shared by the agents cancels in the difference).
        for key in {(0 if pooled else a, r) for a, r in zip(agent, role, strict=True)}:
            sel = (role == key[1]) & (True if pooled else agent == key[0])
            beta[sel] = crossfit_beta(y[sel], x[sel], cl[sel])
            if pooled and y[sel].var() > 0:
                resid = y[sel] - ((x[sel] - mu) * beta[sel]).sum(axis=1)
                cards = [(r[0], r[1]) for r, keep in zip(rows, sel, strict=True) if keep]
                by_role[ROLE_NAMES[key[1]]] = {
                    "covariate_r2": float(1 - resid.var() / y[sel].var()),
                    "deal_share": deal_share(y[sel], cards),
                }
        for key in {(a, r) for a, r in zip(agent, role, strict=True)}:
            sel = (agent == key[0]) & (role == key[1])
            if sel.sum() < 2:
                continue
            m, lo, hi = adjusted_mean_ci(y[sel], x[sel], cl[sel], mu, mu_cov, beta[sel])
            ci_key = "adjusted_ci95" if pooled else f"{name}_ci95"
            out.setdefault((int(key[0]), int(key[1])), {}).update({name: m, ci_key: (lo, hi)})
    return out


def duplicate_vs_plain(
    agents: Sequence[AgentSpec],
    deals: int,
    seed: int = 0,
    workers: int = 1,
    adviser: str = "suggest",
    progress: bool = False,
    rules: Mapping[str, Any] | None = None,
    unit: str = "match",
    adjust: bool | str = False,
    adjust_deals: int = 20000,
    value: HandValue | str | Path | None = None,
) -> dict[str, Any]:
    """Both designs at ``6 * deals`` matches (or single hands, ``unit="hand"``); per agent
    and role the 95% CI half-widths of the points per hand, of the edge (difference of
    means in both designs) and of the duplicate design's paired edge (against the plain
    design's edge), and each ratio plain / duplicate (> 1: the duplicate design is
    tighter).

    ``adjust=True`` (see :func:`duplicate_three`) adds the half-widths of the adjusted
    points per hand in both designs and of the adjusted paired edge, and the ratios of the
    plain design's **unadjusted** half-width to each: ``points_ratio_plain_adjusted``
    (plain / plain adjusted), ``points_ratio_adjusted`` (plain / duplicate adjusted) and
    ``paired_edge_ratio_adjusted`` (plain edge / duplicate adjusted paired edge).
    ``adjust="value"`` with ``value`` (see :func:`duplicate_three`) the same with the learned
    value's corrections."""
    dup, plain = (
        duplicate_three(
            agents,
            deals,
            seed,
            workers,
            adviser,
            design,
            progress,
            rules,
            unit,
            adjust,
            adjust_deals,
            value,
        )  # fmt: skip
        for design in ("duplicate", "plain")
    )
    rows = []
    for name in dup["agents"]:
        for role in ROLE_NAMES:
            d, p = dup["per_agent"][name]["roles"][role], plain["per_agent"][name]["roles"][role]
            if not d.get("hands") or not p.get("hands"):
                continue
            row: dict[str, Any] = {"agent": name, "role": role}
            # The duplicate design's paired edge against the plain design's edge (a
            # difference of means: plain deals have no other player on the same cards).
            for key, ci_d, ci_p in (
                ("points", "ci95", "ci95"),
                ("edge", "edge_ci95", "edge_ci95"),
                ("paired_edge", "paired_edge_ci95", "edge_ci95"),
            ):
                if d[ci_d] is None or p[ci_p] is None:
                    continue
                hd, hp = _half(d[ci_d]), _half(p[ci_p])
                row[f"{key}_half_duplicate"] = hd
                row[f"{key}_half_plain"] = hp
                row[f"{key}_ratio"] = hp / hd if hd > 0 else math.inf
            if adjust and p["ci95"] is not None:
                base = _half(p["ci95"])
                for key, ci in (
                    ("points_adj_half_plain", p.get("adjusted_ci95")),
                    ("points_adj_half_duplicate", d.get("adjusted_ci95")),
                    ("paired_edge_adj_half_duplicate", d.get("adjusted_paired_edge_ci95")),
                ):
                    row[key] = math.nan if ci is None else _half(ci)
                row["points_ratio_plain_adjusted"] = base / row["points_adj_half_plain"]
                row["points_ratio_adjusted"] = base / row["points_adj_half_duplicate"]
                if p["edge_ci95"] is not None:
                    edge_half = _half(p["edge_ci95"])
                    row["paired_edge_ratio_adjusted"] = (
                        edge_half / row["paired_edge_adj_half_duplicate"]
                    )
            rows.append(row)
    return {
        "agents": dup["agents"],
        "unit": unit,
        "deals": deals,
        "adjusted": _adjust_mode(adjust) is not None,
        "adjust": _adjust_mode(adjust),
        "matches_per_design": dup["matches"],
        "hands": {"duplicate": dup["hands"], "plain": plain["hands"]},
        "duplicate": dup,
        "plain": plain,
        "half_widths": rows,
    }


# -- the value of advice ----------------------------------------------------------------------
def play_advice_hands(
    captain_spec: AgentSpec,
    adviser_spec: AgentSpec,
    box_spec: AgentSpec,
    seed: int,
    start: int,
    stop: int,
    sees_hand: bool = True,
    rules: Mapping[str, Any] | None = None,
    trace: bool = False,
) -> dict[str, Any]:
    """Deals ``start..stop-1`` as single hands, the roles played by the three policies.

    Deal ``i`` resets the env with a seed of ``(seed, i)`` only, so every captain/adviser
    pair plays the same decks and role draws. Returns per deal: the team's points (+ when
    the captain scores), whether the team / the box won, the captain's decisions that had a
    suggestion and how many of them played it. With ``trace``, also every captain decision
    as ``(suggestion or None, the suggestion part of the captain's observation as action
    ids, the captain's legal ids, the action)``.
    """
    captain = _agent(captain_spec)
    adviser = make_adviser(adviser_spec, captain)
    box = _agent(box_spec)
    env = three_handed_gin_v0.raw_env(
        adviser="none" if adviser is None else "suggest",
        adviser_sees_hand=sees_hand,
        episode="hand",
        **dict(rules or {}),
    )
    by_role = {BOX: box, CAPTAIN: captain, ADVISER: adviser}
    team, team_won, box_won, advised, followed = [], [], [], [], []
    traces: list[list[tuple[Any, ...]]] = []
    sugg_slice = OBS_SLICES["suggestion"]
    for i in range(start, stop):
        env.reset(seed=_env_seed(seed, i, 21))
        rng = np.random.default_rng([seed, i, 11])
        match = env.match
        assert isinstance(match, ThreeHandedMatch)  # reset above
        n_adv = n_fol = 0
        hand_trace: list[tuple[Any, ...]] = []
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            player = env.possible_agents.index(agent)
            role = match.record.roles[player]
            obs = env.observe(agent)
            action = int(by_role[role].act(obs, rng))
            if role == CAPTAIN:
                s = match.suggestion
                if s is not None and s != A.NO_ADVICE:
                    n_adv += 1
                    n_fol += action == s
                if trace:
                    hand_trace.append((
                        s,
                        np.flatnonzero(obs["observation"][sugg_slice]).tolist(),
                        np.flatnonzero(obs["action_mask"]).tolist(),
                        action,
                    ))  # fmt: skip
            env.step(action)
        rec = match.history[0]
        res = rec.result
        assert res is not None
        scorer = None if res.winner is None else rec.players[res.winner]
        box_player = rec.roles.index(BOX)
        pts = 0 if scorer is None else (-res.points if scorer == box_player else res.points)
        team.append(pts)
        team_won.append(scorer is not None and scorer != box_player)
        box_won.append(scorer == box_player)
        advised.append(n_adv)
        followed.append(n_fol)
        traces.append(hand_trace)
    out: dict[str, Any] = {
        "start": start,
        "team_points": team,
        "team_won": team_won,
        "box_won": box_won,
        "advised": advised,
        "followed": followed,
    }
    if trace:
        out["trace"] = traces
    return out


def _cell_summary(
    team: np.ndarray, won: np.ndarray, advised: np.ndarray, followed: np.ndarray
) -> dict[str, Any]:
    m, lo, hi = mean_ci(team)
    out: dict[str, Any] = {
        "hands": int(team.size),
        "team_points_per_hand": m,
        "ci95": (lo, hi),
        "team_hand_win_rate": float(won.mean()),
        "suggestions": int(advised.sum()),
        "follow_rate": float(followed.sum() / advised.sum()) if advised.sum() else None,
    }
    all_followed = (advised > 0) & (followed == advised)
    overrode = followed < advised
    for key, sel in (("when_followed", all_followed), ("when_overrode", overrode)):
        if sel.sum() >= 2:
            mm, ll, hh = mean_ci(team[sel])
            out[key] = {"hands": int(sel.sum()), "team_points_per_hand": mm, "ci95": (ll, hh)}
        else:
            out[key] = {"hands": int(sel.sum()), "team_points_per_hand": None, "ci95": None}
    return out


def advice_matrix(
    captains: Mapping[str, AgentSpec],
    advisers: Mapping[str, AgentSpec],
    hands: int,
    box: AgentSpec = "heuristic",
    seed: int = 0,
    workers: int = 1,
    sees_hand: bool = True,
    baseline: str | None = None,
    chunk: int = 100,
    progress: bool = False,
    rules: Mapping[str, Any] | None = None,
    keep_points: bool = False,
) -> dict[str, Any]:
    """Every captain with every adviser on the same ``hands`` deals against ``box``.

    ``captains`` / ``advisers`` map labels to specs (an adviser spec may be an ablation,
    :data:`ADVICE_ABLATIONS`). ``baseline`` names the adviser column the value of advice is
    measured against (default: ``"none"`` if present): per cell ``gain`` is the team's
    points per hand minus the same captain's with the baseline adviser, paired by deal.
    ``keep_points`` adds ``points[captain][adviser]``: the team's points of every deal.
    """
    _check_count("hands", hands)
    _check_count("workers", workers)
    _check_count("chunk", chunk)
    if not captains or not advisers:
        raise OptionError("advice_matrix needs at least one captain and one adviser")
    rules = dict(rules or {})
    _check_agents(
        [box, *captains.values(), *(a for a in advisers.values() if a not in ADVICE_ABLATIONS)],
        rules,
    )
    if baseline is None:
        baseline = next((k for k, v in advisers.items() if v == "none"), None)
    if baseline is not None and baseline not in advisers:
        raise OptionError(
            f"baseline must be one of the advisers {list(advisers)}, got {baseline!r}"
        )
    cells: dict[str, dict[str, Any]] = {}
    raw: dict[tuple[str, str], np.ndarray] = {}
    for cap, cap_spec in captains.items():
        for adv, adv_spec in advisers.items():
            jobs = [
                (cap_spec, adv_spec, box, seed, s, min(s + chunk, hands), sees_hand, rules)
                for s in range(0, hands, chunk)
            ]
            res = _pool_map(play_advice_hands, jobs, workers, progress, f"{cap} + {adv}")
            team = np.array([x for r in res for x in r["team_points"]], float)
            won = np.array([x for r in res for x in r["team_won"]], bool)
            advised = np.array([x for r in res for x in r["advised"]], int)
            followed = np.array([x for r in res for x in r["followed"]], int)
            raw[cap, adv] = team
            cells.setdefault(cap, {})[adv] = _cell_summary(team, won, advised, followed)
    if baseline is not None:
        for cap in captains:
            for adv in advisers:
                diff = raw[cap, adv] - raw[cap, baseline]
                m, lo, hi = mean_ci(diff)
                cells[cap][adv]["gain"] = m
                cells[cap][adv]["gain_ci95"] = (lo, hi)
    out = {
        "box": _label(box),
        "captains": {k: _label(v) for k, v in captains.items()},
        "advisers": {k: _label(v) for k, v in advisers.items()},
        "hands": hands,
        "seed": seed,
        "sees_hand": sees_hand,
        "baseline": baseline,
        "rules": rules,
        "cells": cells,
    }
    if keep_points:
        out["points"] = {c: {a: raw[c, a].tolist() for a in advisers} for c in captains}
    return out


# -- teams that learned to use advice -----------------------------------------------------------
class _Recorder:
    """An adviser that asks ``reference`` for its suggestion too and counts agreements."""

    def __init__(self, adviser: Any, reference: Any) -> None:
        self.adviser, self.reference = adviser, reference
        self.name = getattr(adviser, "name", type(adviser).__name__)
        self.suggestions = self.agreements = 0

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        a = int(self.adviser.act(observation, rng))
        obs = observation["observation"]
        if obs[OBS_SLICES["advising"]][0] > 0.5 and a != A.NO_ADVICE:
            self.suggestions += 1
            self.agreements += a == int(self.reference.act(observation, None))
        return a


def suggestion_agreement(
    captain: AgentSpec,
    adviser: AgentSpec,
    reference: AgentSpec = "heuristic",
    box: AgentSpec = "heuristic",
    hands: int = 500,
    seed: int = 0,
) -> dict[str, Any]:
    """How often ``adviser``'s suggestions (playing with ``captain`` against ``box``) are
    the move ``reference`` (L2 by default) would suggest on the same observation, over
    ``hands`` deals of ``seed``: the share, with a Wilson 95% CI."""
    _check_count("hands", hands)
    rec = _Recorder(_agent(adviser), _agent(reference))
    play_advice_hands(captain, rec, box, seed, 0, hands)
    n, k = rec.suggestions, rec.agreements
    return {
        "reference": _label(reference),
        "hands": hands,
        "suggestions": n,
        "agreement": k / n if n else None,
        "agreement_ci95": wilson_ci(k, n) if n else None,
    }


def learned_advice(
    fixed_captains: Mapping[str, AgentSpec],
    joint: Mapping[str, AgentSpec],
    hands: int,
    fixed_adviser: AgentSpec = "heuristic",
    box: AgentSpec = "heuristic",
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    agreement_hands: int = 0,
) -> dict[str, Any]:
    """Trained captains with and without advice, and the cross-play of jointly trained teams.

    - ``fixed``: each of ``fixed_captains`` (trained beside ``fixed_adviser``) with that
      adviser and with it ``"muted"``, on the same ``hands`` deals: ``gain`` is the team's
      points per hand advised minus muted, paired by deal (:func:`advice_matrix`).
    - ``joint``: every player of ``joint`` (a team trained together; one spec plays both
      the captain and the adviser, e.g. a DMC checkpoint with role networks) as captain
      with every player's adviser and with the adviser muted (gain over muted). A team
      with a private convention does better with its own adviser than with another
      seed's: ``cross_play[captain][adviser]`` is the team's points with that adviser minus
      with its own (0 on the diagonal), paired by deal, with a 95% CI.
      ``agreement_hands > 0`` adds ``agreement[team]``: how often its adviser suggests what
      ``fixed_adviser`` would (:func:`suggestion_agreement`, on that many deals).
    """
    result: dict[str, Any] = {"hands": hands, "seed": seed, "box": _label(box)}
    if fixed_captains:
        r = advice_matrix(fixed_captains, {"L2": fixed_adviser, "muted": "muted"}, hands, box,
                          seed, workers, baseline="muted", progress=progress)  # fmt: skip
        result["fixed"] = r
    if joint:
        advisers = {**{label: spec for label, spec in joint.items()}, "muted": "muted"}
        r = advice_matrix(joint, advisers, hands, box, seed, workers, baseline="muted",
                          progress=progress, keep_points=True)  # fmt: skip
        points = r.pop("points")
        cross: dict[str, dict[str, Any]] = {}
        for cap in joint:
            own = np.asarray(points[cap][cap], float)
            cross[cap] = {}
            for adv in joint:
                m, lo, hi = mean_ci(np.asarray(points[cap][adv], float) - own)
                cross[cap][adv] = {"vs_own": m, "vs_own_ci95": (lo, hi)}
        result["joint"] = r
        result["cross_play"] = cross
        if agreement_hands:
            result["agreement"] = {
                label: suggestion_agreement(spec, spec, fixed_adviser, box, agreement_hands, seed)
                for label, spec in joint.items()
            }
    return result


def _learned_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for group in ("fixed", "joint"):
        if group not in r:
            continue
        for row in _advice_rows(r[group]):
            x = r.get("cross_play", {}).get(row["captain"], {}).get(row["adviser"]) \
                if group == "joint" else None  # fmt: skip
            nan = float("nan")
            rows.append({
                "group": group,
                **row,
                "vs_own": nan if x is None else x["vs_own"],
                "vs_own_low": nan if x is None else x["vs_own_ci95"][0],
                "vs_own_high": nan if x is None else x["vs_own_ci95"][1],
            })  # fmt: skip
    return rows


def plot_learned(r: dict[str, Any], path: Path) -> None:
    """The gain from advice over the muted adviser (95% CI, paired by deal) of every
    trained captain with each adviser: bars, fixed-adviser captains then the cross-play."""
    plt = _pyplot()
    rows = [x for x in _learned_rows(r) if x["adviser"] != "muted"]
    fig, ax = plt.subplots(figsize=(max(7.0, 0.8 * len(rows) + 2), 3.8))
    vals = np.array([x["gain"] for x in rows])
    err = np.array([[x["gain"] - x["gain_low"], x["gain_high"] - x["gain"]] for x in rows])
    colors = ["#4472c4" if x["group"] == "fixed" else
              ("#70ad47" if x["captain"] == x["adviser"] else "#ed7d31") for x in rows]  # fmt: skip
    ax.bar(range(len(rows)), vals, yerr=err.T, capsize=3, color=colors)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(range(len(rows)), [f"{x['captain']}\n+ {x['adviser']}" for x in rows],
                  fontsize=7, rotation=30, ha="right")  # fmt: skip
    ax.set_ylabel("team points/hand: advised - muted")
    ax.set_title(f"Trained captains: gain from advice (95% CI, paired by deal), box {r['box']}, "
                 f"{r['hands']} hands\nblue: fixed L2 adviser; green: own adviser; "
                 "orange: another seed's", fontsize=8)  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _learned_report(r: dict[str, Any]) -> str:
    lines = [
        f"team_learned: trained captains, box {r['box']}, {r['hands']} hands per cell "
        f"(seed {r['seed']}), 95% CIs paired by deal",
        "",
        "| group | captain | adviser | team pts/hand | gain over muted | follows "
        "| pts followed throughout (n) | overrode once+ (n) | vs own adviser |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for x in _learned_rows(r):
        if x["adviser"] == "muted":
            continue

        def f(v: float) -> str:
            return "-" if math.isnan(v) else f"{v:+.2f}"

        def pm(lo: float, hi: float) -> str:
            return "" if math.isnan(lo) else f" ± {(hi - lo) / 2:.2f}"

        follow = "-" if math.isnan(x["follow_rate"]) else f"{100 * x['follow_rate']:.1f}%"
        lines.append(
            f"| {x['group']} | {x['captain']} | {x['adviser']} "
            f"| {f(x['team_pts'])}{pm(x['ci_low'], x['ci_high'])} "
            f"| {f(x['gain'])}{pm(x['gain_low'], x['gain_high'])} | {follow} "
            f"| {f(x['pts_followed'])} ({x['followed_hands']}) "
            f"| {f(x['pts_overrode'])} ({x['overrode_hands']}) "
            f"| {f(x['vs_own'])}{pm(x['vs_own_low'], x['vs_own_high'])} |"
        )
    for label, g in r.get("agreement", {}).items():
        if g["agreement"] is not None:
            lo, hi = g["agreement_ci95"]
            lines.append(
                f"\n{label}'s adviser suggests what {g['reference']} would in "
                f"{100 * g['agreement']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] of "
                f"{g['suggestions']} suggestions ({g['hands']} deals)."
            )
    return "\n".join(lines)


def _advice_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for cap, advs in r["cells"].items():
        for adv, c in advs.items():
            nan = float("nan")
            rows.append(
                {
                    "captain": cap,
                    "adviser": adv,
                    "sees_hand": r["sees_hand"],
                    "hands": c["hands"],
                    "team_pts": c["team_points_per_hand"],
                    "ci_low": c["ci95"][0],
                    "ci_high": c["ci95"][1],
                    "gain": c.get("gain", nan),
                    "gain_low": c["gain_ci95"][0] if "gain_ci95" in c else nan,
                    "gain_high": c["gain_ci95"][1] if "gain_ci95" in c else nan,
                    "team_win": c["team_hand_win_rate"],
                    "follow_rate": nan if c["follow_rate"] is None else c["follow_rate"],
                    "followed_hands": c["when_followed"]["hands"],
                    "pts_followed": _or_nan(c["when_followed"]["team_points_per_hand"]),
                    "overrode_hands": c["when_overrode"]["hands"],
                    "pts_overrode": _or_nan(c["when_overrode"]["team_points_per_hand"]),
                }
            )
    return rows


def _or_nan(x: float | None) -> float:
    return float("nan") if x is None else float(x)


# -- balance ---------------------------------------------------------------------------------
#: Rule options of the balance table: label -> (adviser mode, rules).
BALANCE_OPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "standard (undercut 10, knock 10, advice on)": ("suggest", {}),
    "undercut bonus 0": ("suggest", {"undercut_bonus": 0}),
    "undercut bonus 25": ("suggest", {"undercut_bonus": 25}),
    "knock limit 5": ("suggest", {"knock_limit": 5}),
    "knock limit 0 (gin only)": ("suggest", {"knock_limit": 0}),
    "adviser off": ("none", {}),
}


def balance(
    matches: int,
    options: Mapping[str, tuple[str, Mapping[str, Any]]] | None = None,
    agent: AgentSpec = "heuristic",
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
) -> dict[str, Any]:
    """``agent`` in every seat, ``matches`` matches per rule option on the same seeds.

    Per option: the share of hands the box wins / the team wins / drawn and the box's points
    per hand (95% CIs clustered by match), the share of matches won by a player who held the
    box in the deciding hand, and the match win rate of the player who started in each role
    (Wilson CIs).
    """
    _check_count("matches", matches)
    _check_count("workers", workers)
    options = dict(options or BALANCE_OPTIONS)
    for label, (mode, rules) in options.items():
        if mode not in ("suggest", "none"):
            raise OptionError(
                f"option {label!r}: adviser must be 'suggest' or 'none', got {mode!r}"
            )
        _check_agents([agent], rules)
    out: dict[str, Any] = {"agent": _label(agent), "matches": matches, "seed": seed, "options": {}}
    for label, (mode, rules) in options.items():
        jobs = [([agent] * 3, seed, i, mode, dict(rules)) for i in range(matches)]
        res = _pool_map(play_seated_match, jobs, workers, progress, label)
        n = np.array([len(r["hands"]) for r in res], float)
        bw = np.array([sum(h["box_won"] for h in r["hands"]) for r in res], float)
        tw = np.array([sum(h["team_won"] for h in r["hands"]) for r in res], float)
        bp = np.array([sum(h["box_points"] for h in r["hands"]) for r in res], float)
        decided = [r for r in res if r["winner"] is not None]
        box_matches = sum(r["winner_role"] == "box" for r in decided)
        start = {}
        for role, rname in enumerate(ROLE_NAMES):
            k = sum(r["first_roles"][r["winner"]] == role for r in decided)
            start[rname] = {"match_win_rate": k / len(decided), "ci95": wilson_ci(k, len(decided))}
        box_share, team_share = cluster_ratio_ci(bw, n), cluster_ratio_ci(tw, n)
        pph = cluster_ratio_ci(bp, n)
        out["options"][label] = {
            "adviser": mode,
            "rules": dict(rules),
            "hands": int(n.sum()),
            "hands_per_match": float(n.mean()),
            "box_hand_share": box_share[0],
            "box_hand_share_ci95": box_share[1:],
            "team_hand_share": team_share[0],
            "team_hand_share_ci95": team_share[1:],
            "draw_share": float(1 - (bw.sum() + tw.sum()) / n.sum()),
            "box_points_per_hand": pph[0],
            "box_points_ci95": pph[1:],
            "matches_decided": len(decided),
            "box_match_share": box_matches / len(decided),
            "box_match_share_ci95": wilson_ci(box_matches, len(decided)),
            "match_win_by_first_role": start,
        }
    return out


def _balance_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for label, o in r["options"].items():
        rows.append(
            {
                "option": label,
                "hands": o["hands"],
                "box_hands": o["box_hand_share"],
                "box_hands_low": o["box_hand_share_ci95"][0],
                "box_hands_high": o["box_hand_share_ci95"][1],
                "team_hands": o["team_hand_share"],
                "draws": o["draw_share"],
                "box_pts": o["box_points_per_hand"],
                "box_pts_low": o["box_points_ci95"][0],
                "box_pts_high": o["box_points_ci95"][1],
                "box_matches": o["box_match_share"],
                "box_matches_low": o["box_match_share_ci95"][0],
                "box_matches_high": o["box_match_share_ci95"][1],
                **{
                    f"win_first_{k}": v["match_win_rate"]
                    for k, v in o["match_win_by_first_role"].items()
                },
            }
        )
    return rows


def _duplicate_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name in r["agents"]:
        st = r["per_agent"][name]
        for role in ROLE_NAMES:
            x = st["roles"][role]
            if not x.get("hands"):
                continue
            rows.append(
                {
                    "design": r["design"],
                    "agent": name,
                    "match_win": _or_nan(st["match_win_rate"]),
                    "match_win_low": _or_nan((st["match_win_rate_ci95"] or [None])[0]),
                    "match_win_high": _or_nan((st["match_win_rate_ci95"] or [None, None])[1]),
                    "role": role,
                    "hands": x["hands"],
                    "hand_win": x["hand_win_rate"],
                    "pts": x["points_per_hand"],
                    "pts_low": x["ci95"][0],
                    "pts_high": x["ci95"][1],
                    "edge": _or_nan(x["edge"]),
                    "edge_low": _or_nan(x["edge_ci95"][0] if x["edge_ci95"] else None),
                    "edge_high": _or_nan(x["edge_ci95"][1] if x["edge_ci95"] else None),
                    "paired_hands": x["paired_hands"],
                    "paired_edge": _or_nan(x["paired_edge"]),
                    "paired_low": _or_nan(
                        x["paired_edge_ci95"][0] if x["paired_edge_ci95"] else None
                    ),
                    "paired_high": _or_nan(
                        x["paired_edge_ci95"][1] if x["paired_edge_ci95"] else None
                    ),
                }
            )
            if "adjusted_ci95" in x:
                adj_pe = x.get("adjusted_paired_edge_ci95") or [None, None]
                rows[-1].update(
                    adj_pts=x["adjusted_points_per_hand"],
                    adj_pts_low=x["adjusted_ci95"][0],
                    adj_pts_high=x["adjusted_ci95"][1],
                    adj_paired_edge=_or_nan(x.get("adjusted_paired_edge")),
                    adj_paired_low=_or_nan(adj_pe[0]),
                    adj_paired_high=_or_nan(adj_pe[1]),
                )
    return rows


# -- output ----------------------------------------------------------------------------------
def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, tuple):
        return list(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def write(
    out: Path, stem: str, result: Mapping[str, Any], rows: list[dict[str, Any]]
) -> list[Path]:
    """``stem.json`` (the result) and ``stem.csv`` (the rows) under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.json", out / f"{stem}.csv"]
    paths[0].write_text(json.dumps(result, indent=2, default=_json_default) + "\n")
    with paths[1].open("w", newline="") as f:
        if rows:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return paths


def _pyplot() -> Any:
    import sys

    import matplotlib

    if "matplotlib.pyplot" not in sys.modules:  # a notebook keeps its own backend
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_duplicate(r: dict[str, Any], path: Path) -> None:
    """CI half-widths, plain versus duplicate, per agent and role (points and edge)."""
    plt = _pyplot()
    rows = r["half_widths"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 3.8), sharey=True)
    labels = [f"{x['agent']}\n{x['role']}" for x in rows]
    x = np.arange(len(rows))
    for ax, key, title in zip(
        axes,
        ("points", "edge", "paired_edge"),
        (
            "points per hand in the role",
            "edge (difference of means)",
            "edge: duplicate paired by hand vs plain",
        ),
        strict=True,
    ):
        plain = [row.get(f"{key}_half_plain", np.nan) for row in rows]
        dup = [row.get(f"{key}_half_duplicate", np.nan) for row in rows]
        bars = [("plain deals", plain, "#a5a5a5"), ("duplicate", dup, "#4472c4")]
        if r.get("adjusted") and key != "edge":
            how = {"draws": "corrected, deal + draws", "value": "corrected, learned V"}.get(
                r.get("adjust") or "", "adjusted, deal"
            )
            if key == "points":
                adj = [row.get("points_adj_half_plain", np.nan) for row in rows]
                bars.insert(1, (f"plain, {how}", adj, "#d9d9d9"))
            adj = [row.get(f"{key}_adj_half_duplicate", np.nan) for row in rows]
            bars.append((f"duplicate, {how}", adj, "#a9c4eb"))
        width = 0.8 / len(bars)
        for k, (label, values, color) in enumerate(bars):
            offset = (k - (len(bars) - 1) / 2) * width
            ax.bar(x + offset, values, width, label=label, color=color)
        ax.set_xticks(x, labels, fontsize=7, rotation=30, ha="right")
        ax.set_title(f"95% CI half-width: {title}", fontsize=9)
        ax.set_ylabel("points / hand")
    axes[0].legend(fontsize=8)
    what = "matches" if r.get("unit", "match") == "match" else "single hands"
    if r.get("adjusted"):  # four bars a group: room above them for the legends
        axes[0].set_ylim(0, axes[0].get_ylim()[1] * 1.35)
        for ax in (axes[0], axes[2]):
            ax.legend(fontsize=7, ncol=2, loc="upper center")
    fig.suptitle(f"{r['matches_per_design']} {what} per design", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_advice(r: dict[str, Any], path: Path | None = None, key: str = "gain") -> Any:
    """Heat map of the captain x adviser matrix: ``gain`` (or team points) with CIs; saved
    to ``path``, or the figure returned when ``path`` is None (for a notebook)."""
    plt = _pyplot()
    caps = list(r["cells"])
    advs = list(next(iter(r["cells"].values())))
    ci_key = "gain_ci95" if key == "gain" else "ci95"
    val_key = "gain" if key == "gain" else "team_points_per_hand"
    v = np.array([[r["cells"][c][a].get(val_key, np.nan) for a in advs] for c in caps], float)
    fig, ax = plt.subplots(figsize=(1.5 * len(advs) + 2.5, 0.6 * len(caps) + 1.8))
    # Colours saturate at +-10 points so that gains of a few points stay visible.
    lim = min(10.0, max(1.0, float(np.nanmax(np.abs(v)))))
    im = ax.imshow(v, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
    for i, c in enumerate(caps):
        for j, a in enumerate(advs):
            cell = r["cells"][c][a]
            ci = cell.get(ci_key)
            text = f"{v[i, j]:+.1f}" + ("" if ci is None else f"\n±{_half(ci):.1f}")
            dark = abs(v[i, j]) > 0.6 * lim
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if dark else "black")  # fmt: skip
    ax.set_xticks(range(len(advs)), advs, fontsize=8)
    ax.set_yticks(range(len(caps)), caps, fontsize=8)
    ax.set_xlabel("adviser")
    ax.set_ylabel("captain")
    what = (
        f"team points/hand gain over adviser '{r['baseline']}' (paired by deal)"
        if key == "gain"
        else "team points per hand"
    )
    ax.set_title(
        f"{what}\nbox {r['box']}, {r['hands']} hands per cell, adviser sees hand: {r['sees_hand']}",
        fontsize=8,
    )
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.tight_layout()
    if path is None:
        return fig
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def plot_follow(r: dict[str, Any], path: Path) -> None:
    """Per captain and adviser: how often the captain plays the suggestion, and the team's
    points in hands where it followed every suggestion versus overrode one."""
    plt = _pyplot()
    caps = list(r["cells"])
    advs = [a for a in next(iter(r["cells"].values())) if r["cells"][caps[0]][a]["suggestions"]]
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8))
    x = np.arange(len(caps))
    width = 0.8 / max(1, len(advs))
    for j, a in enumerate(advs):
        rate = [_or_nan(r["cells"][c][a]["follow_rate"]) for c in caps]
        axes[0].bar(x + j * width, rate, width, label=a)
        gap = [
            _or_nan(r["cells"][c][a]["when_followed"]["team_points_per_hand"])
            - _or_nan(r["cells"][c][a]["when_overrode"]["team_points_per_hand"])
            for c in caps
        ]
        axes[1].bar(x + j * width, gap, width, label=a)
    for ax in axes:
        ax.set_xticks(x + 0.4 - width / 2, caps, fontsize=8)
        ax.set_xlabel("captain")
    axes[0].set_ylabel("share of suggestions played")
    axes[0].set_title("follow rate (agreement, for captains that ignore advice)", fontsize=9)
    axes[1].set_ylabel("points / hand")
    axes[1].set_title("team points: hands followed throughout minus hands overridden",
                      fontsize=9)  # fmt: skip
    axes[1].axhline(0, color="black", lw=0.8)
    if advs:
        axes[0].legend(fontsize=7, title="adviser", title_fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_balance(r: dict[str, Any], path: Path) -> None:
    """Box share of hands and of matches per rule option, with 95% CIs."""
    plt = _pyplot()
    labels = list(r["options"])
    fig, ax = plt.subplots(figsize=(10, 4))
    x = np.arange(len(labels))
    for off, key, name in ((-0.2, "box_hand_share", "hands"), (0.2, "box_match_share", "matches")):
        vals = np.array([r["options"][k][key] for k in labels])
        cis = np.array([r["options"][k][f"{key}_ci95"] for k in labels])
        ax.bar(x + off, vals, 0.4, yerr=[vals - cis[:, 0], cis[:, 1] - vals], capsize=3,
               label=f"share of {name} won by the box")  # fmt: skip
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_xticks(x, [lab.replace(" (", "\n(") for lab in labels], fontsize=7)
    ax.set_ylabel("share")
    ax.set_title(
        f"box vs team at equal skill ({r['agent']} everywhere, {r['matches']} matches each)",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- CLI -------------------------------------------------------------------------------------
#: The studies' default line-ups (label -> spec).
CAPTAINS = {
    "L0": "random",
    "L1": "simple",
    "L2": "heuristic",
    "PPO": "three-handed-ppo",
    "L1-weigh": "captain:agent=simple,mode=weigh",
    "L1-follow": "captain:agent=simple,mode=follow",
}
ADVISERS = {
    "none": "none",
    "L0": "adviser:agent=random",
    "L1": "adviser:agent=simple",
    "L2": "adviser:agent=heuristic",
    "PPO": "adviser:agent=three-handed-ppo",
}
#: Ablations of the advice channel, beside the real L2 advice and no adviser at all.
ABLATIONS = {
    "none": "none",
    "muted": "muted",
    "random legal": "adviser:agent=random",
    "shuffled": "shuffled",
    "own policy": "own",
    "L2": "adviser:agent=heuristic",
}
#: Captains that read the suggestion (the others' cells equal their "none" cell).
ADVICE_READERS = ("PPO", "L1-weigh", "L1-follow")
HIDDEN_HAND_ADVISERS = {
    "none": "none",
    "L2": "adviser:agent=heuristic",
    "PPO (raw)": "three-handed-ppo",
    "L0 (raw)": "random",
}


def _pairs(text: str | None, default: Mapping[str, str]) -> dict[str, str]:
    """``"a=spec;b=spec"`` (or a bare spec, its own label) -> ``{label: spec}``."""
    if not text:
        return dict(default)
    out = {}
    for item in filter(None, (p.strip() for p in text.split(";"))):
        label, eq, spec = item.partition("=")
        if eq and ":" not in label and "," not in label:
            out[label.strip()] = spec.strip()
        else:
            out[item] = item
    return out


def duplicate_rows_and_plot(r: dict[str, Any], out: Path, stem: str) -> list[Path]:
    """Write a :func:`duplicate_three` result (JSON, CSV, a bar plot of the edges)."""
    paths = write(out, stem, r, _duplicate_rows(r))
    _plot_edges(r, out / f"{stem}.png")
    return paths + [out / f"{stem}.png"]


def _plot_edges(r: dict[str, Any], path: Path) -> None:
    """Bar plot of each agent's paired edge by role (95% CI)."""
    plt = _pyplot()
    rows = _duplicate_rows(r)
    fig, ax = plt.subplots(figsize=(max(5, 0.9 * len(rows) + 2), 3.6))
    key = "paired" if r["design"] == "duplicate" else "edge"
    vals = np.array([row[f"{key}_edge" if key == "paired" else "edge"] for row in rows])
    err = np.array(
        [[v - row[f"{key}_low"], row[f"{key}_high"] - v] for v, row in zip(vals, rows, strict=True)]
    )
    ax.bar(range(len(rows)), vals, yerr=err.T, capsize=3, color="#4472c4")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(
        range(len(rows)),
        [f"{x['agent']}\n{x['role']}" for x in rows],
        fontsize=7,
        rotation=30,
        ha="right",
    )
    ax.set_ylabel("points / hand")
    ax.set_title(f"{r['design']} three-handed: edge over the others in the role (95% CI)"
                 + (", paired by hand" if key == "paired" else ""), fontsize=9)  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def eval_duplicate(
    specs: Sequence[AgentSpec],
    deals: int,
    seed: int,
    workers: int,
    adviser: str,
    progress: bool,
    out: Path,
    stem: str,
    png: Path | None,
    unit: str = "match",
    adjust: bool | str = False,
    value: str | Path | None = None,
    rules: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], list[Path]]:
    """``gin-rummy eval three --duplicate [match|hand] [--adjust]``: :func:`duplicate_three`
    (``unit``, ``adjust``: also the figures adjusted for the deal, or ``"draws"``: also
    corrected for the stock draws, or ``"value"``: corrected with the learned value at
    ``value``, default the committed one) with the adviser on, off
    or both; writes JSON and CSV (and the edges plot at ``png``), returns the result, the
    table rows and the paths written."""
    if adviser not in ("suggest", "none", "both"):
        raise OptionError(f"adviser must be one of 'suggest', 'none', 'both'; got {adviser!r}")
    modes = ("suggest", "none") if adviser == "both" else (adviser,)
    result: dict[str, Any] = {"design": "duplicate", "unit": unit, "deals": deals, "seed": seed,
                              "rules": dict(rules or {})}  # fmt: skip
    rows: list[dict[str, Any]] = []
    for mode in modes:
        r = duplicate_three(
            specs, deals, seed, workers, mode, "duplicate", progress, rules, unit=unit,
            adjust=adjust, value=value,
        )  # fmt: skip
        result["agents"] = r["agents"]
        result["adviser_on" if mode == "suggest" else "adviser_off"] = r
        rows += [{"adviser": "on" if mode == "suggest" else "off", **row}
                 for row in _duplicate_rows(r)]  # fmt: skip
    paths = write(out, stem, result, rows)
    if png is not None:
        first = result["adviser_on" if "adviser_on" in result else "adviser_off"]
        _plot_edges(first, png)
    return result, rows, paths


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """``python -m training.team_study {duplicate,advice,ablations,hidden,balance,plot}``."""
    p = argparse.ArgumentParser(
        prog=prog_name("python -m training.team_study"), description=__doc__.split("\n")[0]
    )
    sub = p.add_subparsers(dest="study", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--seed", type=int, default=0)
    common.add_argument("--workers", type=int, default=1)
    common.add_argument("--out", default="results")
    common.add_argument("--progress", action="store_true")
    d = sub.add_parser("duplicate", parents=[common], help="duplicate vs plain three-handed")
    d.add_argument("--agents", default="heuristic,simple,three-handed-ppo")
    d.add_argument("--deals", type=int, default=200, help="deal sequences (x6 matches)")
    d.add_argument(
        "--unit",
        default="match",
        choices=("match", "hand"),
        help="replay whole matches, or single hands in the 6 role assignments",
    )
    d.add_argument(
        "--adjust",
        nargs="?",
        const="deal",
        default=None,
        choices=ADJUST_MODES,
        help="also the points per hand and paired edges adjusted for the deal (regression "
        "on covariates of the deck, beta cross-fitted; writes <stem>_adjusted.*) or, with "
        "'draws', also corrected for the luck of every stock draw (writes <stem>_luck.*) or, "
        "with 'value', corrected at the deal and every draw by a learned value of the full "
        "state (writes <stem>_value.*)",
    )
    d.add_argument(
        "--value",
        default=None,
        help="with --adjust value: the saved value (.npz from fit-value; default "
        "training/data/hand_value.npz)",
    )
    d.add_argument(
        "--adjust-deals",
        type=int,
        default=20000,
        help="shuffled decks for the covariates' mean (no hand is played; default 20000)",
    )
    for name, helptext in (
        ("advice", "captain x adviser matrix"),
        ("ablations", "ablations of the advice channel"),
        ("hidden", "advisers that do not see the captain's hand"),
    ):
        a = sub.add_parser(name, parents=[common], help=helptext)
        a.add_argument("--hands", type=int, default=2000)
        a.add_argument("--box", default="heuristic")
        a.add_argument("--captains", default=None, help="label=spec;label=spec")
        a.add_argument("--advisers", default=None, help="label=spec;... (ablations: none, "
                       "muted, shuffled, own)")  # fmt: skip
    learned = sub.add_parser(
        "learned", parents=[common], help="trained captains: advised vs muted, cross-play"
    )
    learned.add_argument("--hands", type=int, default=2000, help="deals per cell")
    learned.add_argument("--box", default="heuristic", help="the box (default: heuristic)")
    learned.add_argument(
        "--adviser", default="heuristic", help="the fixed adviser of --captains (default: L2)"
    )
    learned.add_argument(
        "--captains", default="", help="label=spec;... captains trained beside --adviser"
    )
    learned.add_argument(
        "--joint", default="", help="label=spec;... teams trained jointly (one spec per team)"
    )
    learned.add_argument("--stem", default="team_learned", help="output file stem")
    learned.add_argument(
        "--agreement-hands",
        type=int,
        default=500,
        help="deals on which each --joint team's adviser is compared with --adviser (0: none)",
    )
    learned.add_argument(
        "--keep",
        action="store_true",
        help="keep the group (fixed / joint) of an existing <stem>.json that this command "
        "does not compute (it must have the same hands, seed and box)",
    )
    b = sub.add_parser("balance", parents=[common], help="box vs team at equal skill")
    b.add_argument("--matches", type=int, default=800)
    b.add_argument("--agent", default="heuristic")
    fv = sub.add_parser(
        "fit-value",
        parents=[common],
        help="fit the learned value of --adjust value on pilot hands (use a seed no study reports)",
    )
    fv.add_argument("--agents", default="heuristic,simple,three-handed-ppo")
    fv.add_argument("--deals", type=int, default=4000, help="pilot deals (x6 hands)")
    fv.add_argument("--hidden", default="64,32", help="hidden layer sizes (default 64,32)")
    fv.add_argument("--epochs", type=int, default=12)
    fv.add_argument("--save", default=None, help="where to save (default: the committed path)")
    sub.add_parser("plot", parents=[common], help="redraw the figures from the JSON in --out")
    sub.add_parser("report", parents=[common], help="markdown tables of the JSON in --out")
    args = p.parse_args(argv)
    out = Path(args.out)
    try:
        return _run(args, out)
    except OptionError as err:
        p.error(str(err))


#: The stems :func:`main` ``duplicate`` writes (by ``--unit``, with and without ``--adjust``).
_DUPLICATE_STEMS = (
    "team_duplicate",
    "team_duplicate_hands",
    "team_duplicate_adjusted",
    "team_duplicate_hands_adjusted",
    "team_duplicate_luck",
    "team_duplicate_hands_luck",
    "team_duplicate_value",
    "team_duplicate_hands_value",
)


def replot(out: Path) -> list[Path]:
    """Redraw every ``team_*.png`` whose JSON is in ``out``; return the figures drawn."""
    drawn = []

    def load(stem: str) -> dict[str, Any] | None:
        path = out / f"{stem}.json"
        return json.loads(path.read_text()) if path.exists() else None

    for stem in _DUPLICATE_STEMS:
        if (r := load(stem)) is not None:
            plot_duplicate(r, out / f"{stem}.png")
            _plot_edges(r["duplicate"], out / f"{stem}_edges.png")
            drawn += [out / f"{stem}.png", out / f"{stem}_edges.png"]
    if (r := load("team_advice")) is not None:
        plot_advice(r, out / "team_advice.png")
        plot_follow(r, out / "team_follow.png")
        drawn += [out / "team_advice.png", out / "team_follow.png"]
    if (r := load("team_ablations")) is not None:
        plot_advice(r, out / "team_ablations.png")
        drawn.append(out / "team_ablations.png")
    if (r := load("team_hidden")) is not None:
        plot_advice(r, out / "team_hidden.png")
        drawn.append(out / "team_hidden.png")
    if (r := load("team_balance")) is not None:
        plot_balance(r, out / "team_balance.png")
        drawn.append(out / "team_balance.png")
    if (r := load("team_learned")) is not None:
        plot_learned(r, out / "team_learned.png")
        drawn.append(out / "team_learned.png")
    return drawn


def _pm(ci: Sequence[float] | None) -> str:
    return "" if ci is None else f" ± {_half(ci):.2f}"


def _duplicate_report(r: dict[str, Any]) -> str:
    """Markdown of a :func:`duplicate_vs_plain` result."""
    unit = r.get("unit", "match")
    lines = [
        f"Duplicate vs plain, {r['matches_per_design']} "
        f"{'matches' if unit == 'match' else 'single hands'} per design "
        f"({r['hands']['duplicate']} / {r['hands']['plain']} hands); 95% CI half-widths:",
        "",
        "| agent | role | points/hand (dup) | half-width plain | dup | ratio "
        "| edge half-width plain | paired edge (dup) | ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in r["half_widths"]:
        d = r["duplicate"]["per_agent"][row["agent"]]["roles"][row["role"]]
        lines.append(
            f"| {row['agent']} | {row['role']} | {d['points_per_hand']:+.2f} "
            f"| {row['points_half_plain']:.2f} | {row['points_half_duplicate']:.2f} "
            f"| {row['points_ratio']:.2f} | {row['edge_half_plain']:.2f} "
            f"| {d['paired_edge']:+.2f}{_pm(d['paired_edge_ci95'])} "
            f"| {row['paired_edge_ratio']:.2f} |"
        )
    ratios = [row["points_ratio"] for row in r["half_widths"]]
    paired = [row["paired_edge_ratio"] for row in r["half_widths"]]
    lines += [
        "",
        f"Median ratio plain/duplicate: points per hand {np.median(ratios):.2f}, "
        f"edge (paired by hand in the duplicate design) {np.median(paired):.2f}.",
    ]
    if r.get("adjusted"):
        lines += ["", _adjusted_report(r)]
    per_agent = r["duplicate"]["per_agent"]
    if unit == "match":
        lines += ["", "| agent | match win % (duplicate) |", "|---|---:|"]
    for name, st in per_agent.items():
        if st["match_win_rate"] is None:
            continue
        lines.append(
            f"| {name} | {100 * st['match_win_rate']:.1f}"
            f" ± {100 * _half(st['match_win_rate_ci95']):.1f} |"
        )
    return "\n".join(lines)


def _adjusted_report(r: dict[str, Any]) -> str:
    """Markdown of the regression adjustment in a :func:`duplicate_vs_plain` result: every
    ratio is against the plain design's **unadjusted** half-width."""
    d = r["duplicate"]
    luck = "Corrected for the luck of the deal and of every stock draw (AIVAT-style; "
    # Per mode (results written before the modes had names are "deal"): how the sentence
    # opens, what joins the deck's covariates, and the draw corrections.
    opening, with_deck, draws = {
        "deal": ("Adjusted for the deal (", "", ""),
        "draws": (luck, "", f", and {len(DRAW_CORRECTIONS)} draw corrections of mean 0"),
        "value": (
            luck,
            " and the learned V after the deal",
            ", and the learned V's draw corrections of mean 0, per seat",
        ),
    }[r.get("adjust") or "deal"]
    lines = [
        f"{opening}{len(COVARIATES)} covariates of the deck{with_deck}, their mean from "
        f"{d['covariate_deals']} shuffled decks{draws}; beta cross-fitted over two folds of "
        "deals, per role on all agents' hands for the points, per agent and role for the "
        "paired edge); 95% CI half-widths and ratios plain unadjusted / each:",
        "",
        "| agent | role | points/hand adj. (dup) | plain | plain adj. | ratio | dup adj. "
        "| ratio | paired edge adj. (dup) | ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in r["half_widths"]:
        x = d["per_agent"][row["agent"]]["roles"][row["role"]]
        lines.append(
            f"| {row['agent']} | {row['role']} | {x['adjusted_points_per_hand']:+.2f} "
            f"| {row['points_half_plain']:.2f} | {row['points_adj_half_plain']:.2f} "
            f"| {row['points_ratio_plain_adjusted']:.2f} "
            f"| {row['points_adj_half_duplicate']:.2f} | {row['points_ratio_adjusted']:.2f} "
            f"| {x['adjusted_paired_edge']:+.2f}{_pm(x['adjusted_paired_edge_ci95'])} "
            f"| {row.get('paired_edge_ratio_adjusted', math.nan):.2f} |"
        )
    med = {
        key: np.median([row[key] for row in r["half_widths"]])
        for key in (
            "points_ratio_plain_adjusted",
            "points_ratio_adjusted",
            "paired_edge_ratio_adjusted",
        )  # fmt: skip
    }
    shares = d.get("adjustment_by_role", {})
    if shares:
        lines += [
            "",
            "Share of a hand's variance in the duplicate design, by role (removed by the "
            "covariates / common to the six replays of the deal): "
            + "; ".join(
                f"{role} {v['covariate_r2']:.2f} / "
                + ("-" if v["deal_share"] is None else f"{v['deal_share']:.2f}")
                for role, v in sorted(shares.items(), key=lambda kv: ROLE_NAMES.index(kv[0]))
            )
            + ".",
        ]
    plain_shares = r.get("plain", {}).get("adjustment_by_role", {})
    if plain_shares:
        lines += [
            "",
            "Share removed in the plain design: "
            + "; ".join(
                f"{role} {v['covariate_r2']:.2f}"
                for role, v in sorted(plain_shares.items(), key=lambda kv: ROLE_NAMES.index(kv[0]))
            )
            + ".",
        ]
    lines += [
        "",
        f"Median ratio plain / adjusted: points per hand, plain adjusted "
        f"{med['points_ratio_plain_adjusted']:.2f}, duplicate adjusted "
        f"{med['points_ratio_adjusted']:.2f}; paired edge adjusted "
        f"{med['paired_edge_ratio_adjusted']:.2f}.",
    ]
    return "\n".join(lines)


def report(out: Path) -> str:
    """Markdown tables of every ``team_*.json`` in ``out`` (what the write-up quotes)."""
    parts = []

    def load(stem: str) -> dict[str, Any] | None:
        path = out / f"{stem}.json"
        return json.loads(path.read_text()) if path.exists() else None

    found = [load(stem) for stem in _DUPLICATE_STEMS]
    parts += [_duplicate_report(x) for x in found if x is not None]
    for stem in ("team_advice", "team_ablations", "team_hidden"):
        if (r := load(stem)) is None:
            continue
        caps = list(r["cells"])
        advs = list(r["cells"][caps[0]])
        lines = [
            f"{stem}: team points per hand gain over adviser '{r['baseline']}' (paired by "
            f"deal, 95% CI), box {r['box']}, {r['hands']} hands per cell, adviser sees the "
            f"hand: {r['sees_hand']}",
            "",
            "| captain | " + " | ".join(advs) + " |",
            "|---|" + "---:|" * len(advs),
        ]
        for c in caps:
            cells = [r["cells"][c][a] for a in advs]
            lines.append(
                f"| {c} (alone {r['cells'][c][advs[0]]['team_points_per_hand']:+.2f}) | "
                + " | ".join(f"{x['gain']:+.2f}{_pm(x['gain_ci95'])}" for x in cells)
                + " |"
            )
        lines += [
            "",
            "| captain | adviser | follows | team pts, hands followed throughout (n) "
            "| overrode at least once (n) |",
            "|---|---|---:|---:|---:|",
        ]
        for c in caps:
            for a in advs:
                x = r["cells"][c][a]
                if not x["suggestions"]:
                    continue
                f, o = x["when_followed"], x["when_overrode"]

                def fmt(v: float | None) -> str:
                    return "-" if v is None else f"{v:+.2f}"

                lines.append(
                    f"| {c} | {a} | {100 * x['follow_rate']:.1f}% "
                    f"| {fmt(f['team_points_per_hand'])}{_pm(f['ci95'])} ({f['hands']}) "
                    f"| {fmt(o['team_points_per_hand'])}{_pm(o['ci95'])} ({o['hands']}) |"
                )
        parts.append("\n".join(lines))
    if (r := load("team_balance")) is not None:
        lines = [
            f"Box vs team, {r['agent']} in every seat, {r['matches']} matches per option "
            "(95% CIs; hands clustered by match, matches Wilson):",
            "",
            "| rules | hands | box wins hands | team wins hands | draws | box pts/hand "
            "| box wins matches | match win: started box / captain / adviser |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for label, o in r["options"].items():
            w = o["match_win_by_first_role"]
            lines.append(
                f"| {label} | {o['hands']} | {100 * o['box_hand_share']:.1f}"
                f" ± {100 * _half(o['box_hand_share_ci95']):.1f}% "
                f"| {100 * o['team_hand_share']:.1f}% | {100 * o['draw_share']:.1f}% "
                f"| {o['box_points_per_hand']:+.2f}{_pm(o['box_points_ci95'])} "
                f"| {100 * o['box_match_share']:.1f}% [{100 * o['box_match_share_ci95'][0]:.1f}, "
                f"{100 * o['box_match_share_ci95'][1]:.1f}] "
                f"| {100 * w['box']['match_win_rate']:.0f} / "
                f"{100 * w['captain']['match_win_rate']:.0f} / "
                f"{100 * w['adviser']['match_win_rate']:.0f}% |"
            )
        parts.append("\n".join(lines))
    if (r := load("team_learned")) is not None:
        parts.append(_learned_report(r))
    return "\n\n".join(parts)


def _run(args: argparse.Namespace, out: Path) -> dict[str, Any]:
    progress = args.progress
    if args.study == "report":
        text = report(out)
        print(text or "no team_*.json results")
        return {"report": text}
    if args.study == "plot":
        drawn = replot(out)
        print("drew", ", ".join(str(x) for x in drawn) or "nothing (no team_*.json)")
        return {"drawn": [str(x) for x in drawn]}
    if args.study == "duplicate":
        specs = [s.strip() for s in args.agents.split(";" if ";" in args.agents else ",")]
        r = duplicate_vs_plain(
            specs,
            args.deals,
            args.seed,
            args.workers,
            progress=progress,
            unit=args.unit,
            adjust=args.adjust or False,
            adjust_deals=args.adjust_deals,
            value=args.value,
        )
        stem = "team_duplicate" if args.unit == "match" else "team_duplicate_hands"
        stem += {None: "", "deal": "_adjusted", "draws": "_luck", "value": "_value"}[args.adjust]
        write(out, stem, r, r["half_widths"])
        duplicate_rows_and_plot(r["duplicate"], out, f"{stem}_edges")
        plot_duplicate(r, out / f"{stem}.png")
        print(_table(r["half_widths"]))
        if args.adjust:
            print(_adjusted_report(r))
        return r
    if args.study == "fit-value":
        specs = [s.strip() for s in args.agents.split(";" if ";" in args.agents else ",")]
        try:
            hidden = [int(h) for h in args.hidden.split(",")]
        except ValueError:
            raise OptionError(
                f"--hidden must be ints separated by commas, got {args.hidden!r}"
            ) from None
        v = fit_value_on_pilot(specs, args.deals, args.seed, args.workers, progress=progress,
                               hidden=hidden, epochs=args.epochs)  # fmt: skip
        path = v.save(args.save or DEFAULT_VALUE_PATH)
        r2 = v.info["heldout_r2"]
        print(f"saved {path}: held-out R^2 of V {'n/a' if r2 is None else f'{r2:.3f}'} "
              f"({v.info['rows']} states of {v.info['pilot_hands']} hands)")  # fmt: skip
        return {"path": str(path), "info": v.info}
    if args.study == "learned":
        caps, joint = _pairs(args.captains, {}), _pairs(args.joint, {})
        if not caps and not joint:
            raise OptionError("learned needs --captains and/or --joint")
        r = learned_advice(caps, joint, args.hands, args.adviser, args.box, args.seed,
                           args.workers, progress, args.agreement_hands)  # fmt: skip
        old_path = out / f"{args.stem}.json"
        if args.keep and old_path.exists():
            old = json.loads(old_path.read_text())
            if any(old[k] != r[k] for k in ("hands", "seed", "box")):
                raise OptionError(f"--keep: {old_path} has other hands, seed or box")
            for key in ("fixed", "joint", "cross_play", "agreement"):
                if key in old and key not in r:
                    r[key] = old[key]
        write(out, args.stem, r, _learned_rows(r))
        plot_learned(r, out / f"{args.stem}.png")
        print(_learned_report(r))
        return r
    if args.study == "balance":
        r = balance(args.matches, None, args.agent, args.seed, args.workers, progress)
        write(out, "team_balance", r, _balance_rows(r))
        plot_balance(r, out / "team_balance.png")
        print(_table(_balance_rows(r)))
        return r
    default_advisers = {"advice": ADVISERS, "ablations": ABLATIONS}.get(
        args.study, HIDDEN_HAND_ADVISERS
    )
    default_captains = (
        CAPTAINS if args.study == "advice" else {k: CAPTAINS[k] for k in ADVICE_READERS}
    )
    captains = _pairs(args.captains, default_captains)
    advisers = _pairs(args.advisers, default_advisers)
    stem = f"team_{args.study}"
    merged: dict[str, Any] = {}
    for label, spec in captains.items():  # one captain at a time, written as it finishes
        r = advice_matrix(
            {label: spec},
            advisers,
            args.hands,
            args.box,
            args.seed,
            args.workers,
            sees_hand=args.study != "hidden",
            progress=progress,
        )
        if not merged:
            merged = r
        else:
            merged["cells"].update(r["cells"])
            merged["captains"].update(r["captains"])
        write(out, stem, merged, _advice_rows(merged))
    plot_advice(merged, out / f"{stem}.png")
    if args.study == "advice":
        plot_follow(merged, out / "team_follow.png")
    print(_table(_advice_rows(merged)))
    return merged


if __name__ == "__main__":
    main()
