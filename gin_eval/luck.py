"""Corrections for luck in three-handed evaluation: the deal, every stock draw, a learned
value of the state.

- **The deal** (``adjust="deal"``): :data:`COVARIATES` of the deck alone
  (:func:`deal_covariates`), their mean from a deals-only Monte Carlo
  (:func:`covariate_means`: no hand is played), and a regression adjustment with ``beta``
  cross-fitted by deal (:func:`~gin_eval.stats.adjusted_mean_ci`).
- **Every stock draw** (``adjust="draws"``, AIVAT-style): at each draw the drawer's
  features for the card drawn minus their mean over every card then in the stock
  (:func:`draw_corrections`, mean 0 exactly) join the deal's covariates.
- **A learned value** (``adjust="value"``): the same corrections made with a learned value
  of the full state (:mod:`gin_eval.hand_value`; :func:`load_value` gives the
  one the package ships by default, or loads another saved one).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gin_env import three_handed_gin_v0
from gin_env.cards import NUM_CARDS
from gin_env.config import HandRules, ThreeHandedConfig, table_options
from gin_env.hand import DRAW_AT_STOCK, GinHand, Phase
from gin_env.melds import deadwood_mask, discard_deadwoods
from gin_eval.checks import (
    AgentSpec,
    OptionError,
    check_count,
    check_setup,
)
from gin_eval.hand_value import (
    DEFAULT_VALUE_PATH,
    HandValue,
    deal_values,
    least_deadwood,
    replay_hand,
)

__all__ = [
    "COVARIATES",
    "DRAW_CORRECTIONS",
    "ADJUST_MODES",
    "VALUE_COVARIATES",
    "deal_covariates",
    "mc_decks",
    "covariate_means",
    "draw_features",
    "draw_corrections",
    "adjust_mode",
    "check_three",
    "load_value",
]

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


def mc_decks(deals: int, seed: int) -> list[list[int]]:
    """The ``deals`` uniformly shuffled decks of the deals-only Monte Carlo of ``seed``."""
    rng = np.random.default_rng([seed, deals, 41])
    return [[int(c) for c in rng.permutation(NUM_CARDS)] for _ in range(deals)]


@functools.lru_cache(maxsize=4)
def _covariate_sample(deals: int, seed: int) -> np.ndarray:
    xs = np.array([deal_covariates(deck) for deck in mc_decks(deals, seed)])
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
    check_count("deals", deals, 2)
    xs = _covariate_sample(deals, seed)
    if value is not None:
        xs = np.column_stack([xs, deal_values(value, mc_decks(deals, seed), rules)])
    return xs.mean(axis=0), np.cov(xs, rowvar=False) / deals


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


#: ``adjust`` values of :func:`~gin_eval.duplicate.duplicate_three`: the deal's
#: covariates alone, also the corrections for the luck of every stock draw with hand-made
#: features (``"draws"``), or with a learned value of the full state (``"value"``,
#: :mod:`gin_eval.hand_value`).
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


def adjust_mode(adjust: object) -> str | None:
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


def load_value(value: HandValue | str | Path | None = None) -> HandValue:
    """The learned value for ``adjust="value"``: ``value`` itself, the one saved at that
    path, or (None) the committed :data:`~gin_eval.hand_value.DEFAULT_VALUE_PATH`."""
    if isinstance(value, HandValue):
        return value
    if value is not None and not isinstance(value, str | Path):
        raise OptionError(f"value must be a HandValue or the path of a saved one, got {value!r}")
    try:
        return HandValue.load(DEFAULT_VALUE_PATH if value is None else value)
    except ValueError as err:
        raise OptionError(str(err)) from None


def check_three(specs: Sequence[AgentSpec], table: ThreeHandedConfig) -> None:
    """Build the agents and a three-handed env at ``table`` up front: a bad spec, or an agent
    that refuses the table, is an :class:`~gin_eval.checks.OptionError` before
    any game is played."""
    check_setup(specs, lambda: three_handed_gin_v0.raw_env(**table_options(table)), table)
