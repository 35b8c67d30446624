"""gin_eval.hand_value: the learned value of a full hand state and its
AIVAT-style corrections (mean 0 at every draw, nothing with V = 0), its features, saving
and loading, and the ``--adjust value`` path of ``gin-rummy eval three`` with the shipped
value. Fitting a value is the study's (tests/test_study_value_fit.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gin_cli import evaluate
from gin_env import actions as A
from gin_env.config import HandRules
from gin_env.hand import GinHand, Phase
from gin_env.melds import deadwood_mask, discard_deadwoods, showdown
from gin_eval import hand_value, luck, play, stats
from gin_eval.checks import OptionError
from gin_eval.duplicate import duplicate_three
from gin_eval.hand_value import (
    FEATURE_SIZE,
    FEATURE_SLICES,
    SEAT_FEATURES,
    HandValue,
    draw_alternatives,
    replay_hand,
    state_features,
    value_corrections,
)
from gin_eval.stats import cluster_ratio_ci, mean_ci

AGENTS = ["random", "simple", "heuristic"]


def _random_value(seed: int = 0, hidden: int = 16) -> HandValue:
    """A value with random weights: every check below must hold for ANY V."""
    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(0, 1, (hidden, FEATURE_SIZE)), rng.normal(0, 1, hidden)),
        (rng.normal(0, 3, (1, hidden)), rng.normal(0, 1, 1)),
    ]
    return HandValue(layers)


def _played(seed: int = 5, index: int = 0, agents=AGENTS) -> dict:
    return play.play_role_hand(agents, seed, index)


def _stock_draws(actions) -> list[int]:
    return [k for k, (_, a) in enumerate(actions) if a == A.DRAW_STOCK]


def _long_hand(draws: int = 3, skip: int = 0) -> dict:
    """A played hand with at least ``draws`` stock draws (the ``skip``-th such hand)."""
    hands = (_played(index=i) for i in range(40))
    return [h for h in hands if len(_stock_draws(h["actions"])) >= draws][skip]


# -- the features ------------------------------------------------------------------------------
def test_the_feature_vector_has_its_documented_size_and_layout() -> None:
    parts = ["stock_size", "to_move", "phase", "knock_limit", "captain_derived", "box_derived"]
    assert list(FEATURE_SLICES) == parts
    assert FEATURE_SIZE == 1 + 2 + 4 + 1 + 2 * len(SEAT_FEATURES) == 30
    at = 0
    for s in FEATURE_SLICES.values():  # contiguous, in order, covering the vector
        assert s.start == at
        at = s.stop
    assert at == FEATURE_SIZE


def _reference_seat(own: int, other: int, stock: list[int], hand: GinHand) -> list[float]:
    """The SEAT_FEATURES recomputed from gin_env.melds alone (the readable reference)."""
    limit, r = hand.knock_limit, hand.rules

    def least(h: int) -> int:
        return min(discard_deadwoods(h).values()) if h.bit_count() > 10 else deadwood_mask(h)

    def best_knock(h: int, against: int) -> int:
        return max(
            showdown(h & ~(1 << c), against, limit, r.gin_bonus, r.undercut_bonus).knocker_points
            - showdown(h & ~(1 << c), against, limit, r.gin_bonus, r.undercut_bonus).defender_points
            for c, dw in discard_deadwoods(h).items()
            if dw <= limit
        )

    d, d_o = least(own), least(other)
    eleven = own.bit_count() > 10
    keep = own
    if eleven:
        options = discard_deadwoods(own)
        keep = own & ~(1 << min(options, key=lambda c: (options[c], c)))
    now = best_knock(own, other) / 10 if eleven and d <= limit else 0.0
    feed = feed_pts = 0.0
    if eleven and least(other | (own & ~keep)) <= limit:
        feed, feed_pts = 1.0, best_knock(other | (own & ~keep), keep) / 10
    nxt = [least(keep | 1 << c) for c in stock]
    return [d / 10, float(d <= limit), float(d == 0), (d_o - d) / 10 if d <= limit else 0.0,
            float(eleven), now, feed, feed_pts, np.mean([n <= limit for n in nxt]),
            np.mean([n == 0 for n in nxt]), np.mean(nxt) / 10]  # fmt: skip


def test_state_features_are_the_documented_numbers_of_both_seats() -> None:
    h = _long_hand()
    checked = 0

    def check(hand: GinHand) -> None:
        nonlocal checked
        x = state_features(hand)
        assert x.shape == (FEATURE_SIZE,) and x.dtype == np.float32
        assert x[FEATURE_SLICES["stock_size"]][0] == pytest.approx(hand.stock_size / 31)
        assert x[FEATURE_SLICES["to_move"]].tolist() == [hand.current == 0, hand.current == 1]
        assert x[FEATURE_SLICES["phase"]].sum() == 1
        assert x[FEATURE_SLICES["knock_limit"]][0] == pytest.approx(hand.knock_limit / 10)
        cap, box = hand.hands
        for part, own, other in (("captain_derived", cap, box), ("box_derived", box, cap)):
            want = _reference_seat(own, other, hand.stock, hand)
            np.testing.assert_allclose(x[FEATURE_SLICES[part]], want, rtol=1e-6, atol=1e-6)
        checked += 1

    check(GinHand(h["deck"], dealer=1))  # after the deal: upcard offered, 10 cards each
    replay_hand(h["deck"], h["actions"], after_draw=check)  # the drawer holds 11
    assert checked >= 4


def test_each_alternative_row_is_the_state_had_that_card_been_drawn() -> None:
    h = _long_hand(skip=1)
    seen = 0

    def check(hand: GinHand) -> None:
        nonlocal seen
        cards, x = draw_alternatives(hand)
        assert cards == hand.stock and x.shape == (len(cards), FEATURE_SIZE)
        for i in (0, len(cards) // 2, len(cards) - 1):
            alt = hand.clone()
            deck = list(alt.deck)  # that card on top of the stock, all else equal
            j = deck.index(cards[i])
            deck[alt.stock_pos], deck[j] = deck[j], deck[alt.stock_pos]
            alt.deck = deck
            alt.step(A.DRAW_STOCK)
            np.testing.assert_allclose(x[i], state_features(alt), atol=1e-6)
        seen += 1

    replay_hand(h["deck"], h["actions"], on_draw=check)
    assert seen >= 3


# -- the corrections ---------------------------------------------------------------------------
def test_the_correction_at_a_draw_averages_exactly_zero_over_every_card_in_the_stock() -> None:
    v = _random_value(1)
    h = _long_hand()
    actions = h["actions"]
    t = _stock_draws(actions)[2]  # the third stock draw, mid-hand
    before = replay_hand(h["deck"], actions[:t])
    pos, stock, seat = before.stock_pos, before.stock, before.current
    base = value_corrections(h["deck"], actions[:t], v)
    rows = []
    for card in stock:  # that card drawn instead: swap it to the top, all else equal
        deck = list(h["deck"])
        j = deck.index(card)
        deck[pos], deck[j] = deck[j], deck[pos]
        rows.append(value_corrections(deck, actions[: t + 1], v) - base)
    terms = np.array(rows)
    assert np.abs(terms[:, 1 + seat]).max() > 0.1  # the card drawn matters to V
    # Only the drawer's sum moves (up to float32 rounding: the stock's order changed).
    assert np.abs(terms[:, [0, 2 - seat]]).max() < 1e-4
    assert abs(terms[:, 1 + seat].mean()) < 1e-4 * np.abs(terms[:, 1 + seat]).max()
    # The drawn card's term is V after it minus the mean of V over the stock.
    vals = v(draw_alternatives(before)[1])
    assert terms[0, 1 + seat] == pytest.approx(vals[0] - vals.mean())


def test_corrections_have_mean_zero_over_random_deals() -> None:
    # Unbiased whatever the play and whatever V: over many hands each draw column's mean is
    # within 4 standard errors of 0 while the corrections are far from 0 hand by hand.
    v = _random_value(2)
    xs = np.array(
        [value_corrections(h["deck"], h["actions"], v)
         for h in (_played(9, i, ["simple", "simple", "heuristic"]) for i in range(120))]
    )  # fmt: skip
    for col in (1, 2):
        m, lo, hi = mean_ci(xs[:, col])
        assert xs[:, col].std() > 0.1
        assert abs(m) <= 4 * (hi - lo) / (2 * 1.96), (m, lo, hi)


def test_with_v_zero_there_is_nothing_to_correct_and_the_estimate_is_the_plain_mean() -> None:
    zero = HandValue.zero()
    hands = [_played(seed=3, index=i) for i in range(24)]
    x = np.array([value_corrections(h["deck"], h["actions"], zero) for h in hands])
    assert not x.any()
    y = np.array([h["box_points"] for h in hands], float)
    cl = np.arange(len(y))
    est = stats.adjusted_mean_ci(y, x, cl, np.zeros(3))  # betas cross-fitted on zeros
    assert est == pytest.approx(cluster_ratio_ci(y, np.ones(len(y))))


# -- the model -----------------------------------------------------------------------------------
def test_a_saved_value_round_trips(tmp_path) -> None:
    v = _random_value(3)
    v.info["note"] = "pilot"
    path = v.save(tmp_path / "v.npz")
    w = HandValue.load(path)
    x = np.random.default_rng(0).normal(size=(7, FEATURE_SIZE))
    np.testing.assert_array_equal(v(x), w(x))
    assert w.info == {"note": "pilot"}
    assert w(x[0]).shape == (1,)


def test_the_committed_value_loads_and_was_fitted_on_a_pilot_seed() -> None:
    v = HandValue.load(hand_value.DEFAULT_VALUE_PATH)
    assert v.info["pilot_seed"] != 0  # never the seed the study reports
    assert v.info["heldout_r2"] > 0.1
    assert hand_value.DEFAULT_VALUE_PATH.stat().st_size < 2_000_000
    h = _played()
    rows = [state_features(replay_hand(h["deck"], []))]
    replay_hand(h["deck"], h["actions"], after_draw=lambda hand: rows.append(
        state_features(hand)) if not hand.is_over else None)  # fmt: skip
    assert len(rows) > 1 and np.isfinite(v(np.array(rows))).all()


def test_bad_values_and_options_are_clear_errors(tmp_path) -> None:
    w = np.zeros((1, FEATURE_SIZE))
    with pytest.raises(ValueError, match="first layer must take the 30 state features"):
        HandValue([(np.zeros((1, 5)), np.zeros(1))])
    with pytest.raises(ValueError, match="last layer must give one value"):
        HandValue([(np.zeros((2, FEATURE_SIZE)), np.zeros(2))])
    with pytest.raises(ValueError, match="scale must be > 0"):
        HandValue([(w, np.zeros(1))], scale=np.zeros(FEATURE_SIZE))
    with pytest.raises(ValueError, match="V takes 30 features"):
        HandValue.zero()(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="no hand value file"):
        HandValue.load(tmp_path / "missing.npz")
    h = _played()
    with pytest.raises(ValueError, match="draw decision"):
        draw_alternatives(replay_hand(h["deck"], []))
    with pytest.raises(ValueError, match="not over"):
        state_features(replay_hand(h["deck"], h["actions"]))
    with pytest.raises(OptionError, match="value is for adjust='value' only"):
        duplicate_three(AGENTS, deals=1, unit="hand", adjust="draws", value=_random_value())
    with pytest.raises(OptionError, match="no hand value file"):
        duplicate_three(AGENTS, deals=1, unit="hand", adjust="value", value=tmp_path / "x.npz")
    with pytest.raises(OptionError, match="value must be a HandValue"):
        luck.load_value(3)  # type: ignore[arg-type]


# -- evaluation corrected with the shipped value -------------------------------------------------
@pytest.fixture(scope="module")
def shipped_value() -> HandValue:
    return HandValue.load(hand_value.DEFAULT_VALUE_PATH)


def test_duplicate_evaluation_corrected_with_the_learned_value(shipped_value) -> None:
    trio = ["simple", "heuristic", "three-handed-ppo"]
    kw: dict[str, Any] = dict(deals=100, seed=4, unit="hand", adjust_deals=300)
    r = duplicate_three(trio, adjust="value", value=shipped_value, **kw)
    deal = duplicate_three(trio, adjust="deal", **kw)
    assert r["adjust"] == "value" and r["value"] == shipped_value.info
    assert r["covariates"] == list(luck.COVARIATES) + list(luck.VALUE_COVARIATES)
    share = r["adjustment_by_role"]["box"]["covariate_r2"]
    # V's corrections explain a share of the points the deal's covariates do not.
    assert share > deal["adjustment_by_role"]["box"]["covariate_r2"] + 0.05
    for name in trio:
        for role, x in r["per_agent"][name]["roles"].items():
            lo, hi = x["adjusted_ci95"]
            assert lo <= x["adjusted_points_per_hand"] <= hi
            old = deal["per_agent"][name]["roles"][role]
            assert x["points_per_hand"] == old["points_per_hand"]  # unadjusted unchanged


def test_the_deal_value_mean_is_a_deals_only_monte_carlo(shipped_value) -> None:
    mu, cov = luck.covariate_means(300, seed=3, value=shipped_value)
    mu0, cov0 = luck.covariate_means(300, seed=3)
    k = len(luck.COVARIATES)
    assert mu.shape == (k + 1,) and cov.shape == (k + 1, k + 1)
    np.testing.assert_allclose(mu[:k], mu0)
    np.testing.assert_allclose(cov[:k, :k], cov0)
    decks = luck.mc_decks(300, 3)
    assert mu[k] == pytest.approx(hand_value.deal_values(shipped_value, decks).mean(), rel=1e-6)
    assert 0 < cov[k, k] < 1  # the error of the mean of V after the deal


def test_gin_rummy_eval_adjusts_with_the_shipped_value(shipped_value, tmp_path) -> None:
    r = evaluate.main(
        ["three", "--agents", "random,simple,heuristic", "--duplicate", "hand", "--adjust",
         "value", "--matches", "2", "--adviser", "suggest", "--out", str(tmp_path), "--name",
         "value", "--no-plot", "--no-progress"]
    )  # fmt: skip
    assert r["adviser_on"]["adjust"] == "value"
    assert r["adviser_on"]["value"]["pilot_seed"] == shipped_value.info["pilot_seed"]


def test_other_rules_change_the_features_the_value_sees() -> None:
    h = _played()
    hand = GinHand(h["deck"], HandRules(knock_limit=5), dealer=1)
    x = state_features(hand)
    assert x[FEATURE_SLICES["knock_limit"]][0] == pytest.approx(0.5)
    assert hand.phase is Phase.UPCARD_NONDEALER
    assert x[FEATURE_SLICES["phase"]].tolist() == [1, 0, 0, 0]
