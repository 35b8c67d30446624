"""Duplicate three-handed evaluation (gin_eval): the duplicate design replays the
same deals, CIs are clustered and paired by deal, the regression adjustment on the deal and
the corrections for the luck of the stock draws have mean 0 and narrow the CIs, and the
``gin-rummy eval three --duplicate`` hook works."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gin_cli import evaluate
from gin_env import actions as A
from gin_env import three_handed_gin_v0
from gin_env.cards import parse_cards
from gin_env.match import BOX, CAPTAIN
from gin_env.melds import deadwood_mask
from gin_eval import hand_value, luck, play, stats
from gin_eval.checks import OptionError
from gin_eval.duplicate import duplicate_three
from gin_eval.luck import COVARIATES, covariate_means, deal_covariates
from gin_eval.play import PERMUTATIONS, play_seated_match
from gin_eval.stats import cluster_diff_ci, cluster_ratio_ci, mean_ci
from studies.team_vs_solo import advice_matrix

AGENTS = ["random", "simple", "heuristic"]


# -- duplicate design -------------------------------------------------------------------------
def test_the_six_seatings_of_one_deal_sequence_replay_the_same_decks() -> None:
    matches = [
        play_seated_match([AGENTS[perm[s]] for s in range(3)], seed=5, index=2)
        for perm in PERMUTATIONS
    ]
    # The initial role draw is by seat, whoever sits there.
    assert len({tuple(m["first_roles"]) for m in matches}) == 1
    # Hand k has the same deck in every seating (as far as each match went).
    longest = max(len(m["hands"]) for m in matches)
    for k in range(longest):
        decks = {m["hands"][k]["deck"] for m in matches if k < len(m["hands"])}
        assert len(decks) == 1, k
    # The seatings really differ: the agents' play changes the results.
    assert len({tuple(h["box_points"] for h in m["hands"]) for m in matches}) > 1
    # Another deal sequence is another deck.
    other = play_seated_match(AGENTS, seed=5, index=3)
    assert other["hands"][0]["deck"] != matches[0]["hands"][0]["deck"]


def test_duplicate_design_clusters_six_seatings_and_plain_does_not() -> None:
    dup = duplicate_three(AGENTS, deals=2, seed=1, design="duplicate")
    plain = duplicate_three(AGENTS, deals=2, seed=1, design="plain")
    assert dup["matches"] == plain["matches"] == 12
    assert dup["clusters"] == 2 and plain["clusters"] == 12
    for r in (dup, plain):
        for name in AGENTS:  # every agent in every seat order equally often
            assert r["per_agent"][name]["matches"] == 12
            roles = r["per_agent"][name]["roles"]
            assert sum(x["hands"] for x in roles.values()) == r["hands"]
    # Only the duplicate design has other players on the same cards.
    assert all(x["paired_hands"] > 0 for a in AGENTS for x in dup["per_agent"][a]["roles"].values())
    assert all(
        x["paired_hands"] == 0 for a in AGENTS for x in plain["per_agent"][a]["roles"].values()
    )


def test_single_hand_duplicate_deals_each_deal_to_all_six_role_assignments() -> None:
    hands = [play.play_role_hand([AGENTS[p[r]] for r in range(3)], 2, 9) for p in PERMUTATIONS]
    assert len({h["deck"] for h in hands}) == 1
    r = duplicate_three(AGENTS, deals=2, seed=2, unit="hand")
    assert r["hands"] == 12 and r["clusters"] == 2
    for name in AGENTS:  # each agent twice in each role per deal, every hand compared
        for role in r["per_agent"][name]["roles"].values():
            assert role["hands"] == 4 and role["paired_hands"] == 4
        assert r["per_agent"][name]["match_win_rate"] is None
    with pytest.raises(OptionError, match="unit"):
        duplicate_three(AGENTS, deals=1, unit="set")


def test_identical_deterministic_agents_replay_identical_matches_so_the_paired_edge_is_zero() -> (
    None
):
    r = duplicate_three(["heuristic"] * 3, deals=2, seed=3, design="duplicate")
    for st in r["per_agent"].values():
        for role in st["roles"].values():
            assert role["paired_edge"] == 0.0
            assert role["paired_edge_ci95"] == (0.0, 0.0)


def test_bad_arguments_are_option_errors() -> None:
    with pytest.raises(OptionError, match="exactly 3 agents"):
        duplicate_three(AGENTS[:2], deals=1)
    with pytest.raises(OptionError, match="design"):
        duplicate_three(AGENTS, deals=1, design="mixed")
    with pytest.raises(OptionError, match="deals"):
        duplicate_three(AGENTS, deals=0)
    with pytest.raises(OptionError, match="baseline"):
        advice_matrix({"L1": "simple"}, {"none": "none"}, 2, baseline="L2")


# -- CIs paired by deal -----------------------------------------------------------------------
def test_cluster_ratio_ci_is_the_ratio_with_a_cluster_level_interval() -> None:
    num, den = [3.0, 1.0, 5.0, 2.0], [2.0, 1.0, 3.0, 2.0]
    m, lo, hi = cluster_ratio_ci(num, den)
    assert m == pytest.approx(11 / 8)
    lin = [m + 4 * (n - m * d) / 8 for n, d in zip(num, den, strict=True)]
    assert (lo, hi) == pytest.approx(mean_ci(lin)[1:])
    with pytest.raises(ValueError):
        cluster_ratio_ci([1.0], [0.0])


def test_cluster_diff_ci_cancels_luck_shared_within_a_deal() -> None:
    rng = np.random.default_rng(0)
    g = 200
    luck = rng.normal(0, 20, g)  # what the deal gives either side
    a = luck + 1.0 + rng.normal(0, 1, g)
    b = luck + rng.normal(0, 1, g)
    ones = np.ones(g)
    m, lo, hi = cluster_diff_ci(a, ones, b, ones)
    assert m == pytest.approx(float(np.mean(a - b)))
    assert lo < 1.0 < hi and hi - lo < 1.0  # paired: the luck cancels
    # The same values with the pairing broken: the interval is many times wider.
    _, lo2, hi2 = cluster_diff_ci(a, ones, rng.permutation(b), ones)
    assert hi2 - lo2 > 10 * (hi - lo)


# -- CLI -------------------------------------------------------------------------------------
def test_eval_three_duplicate_hook(tmp_path, capsys) -> None:
    r = evaluate.main(
        ["three", "--agents", "random,simple,heuristic", "--duplicate", "--matches", "1",
         "--adviser", "suggest", "--workers", "1", "--out", str(tmp_path), "--name", "dup",
         "--no-progress"]
    )  # fmt: skip
    assert r["design"] == "duplicate" and r["adviser_on"]["matches"] == 6
    saved = json.loads((tmp_path / "dup.json").read_text())
    assert saved["adviser_on"]["clusters"] == 1
    assert (tmp_path / "dup.csv").read_text().startswith("adviser,design,agent")
    assert (tmp_path / "dup.png").exists()
    assert "paired_edge" in capsys.readouterr().out
    r = evaluate.main(
        ["three", "--agents", "random,simple,heuristic", "--duplicate", "hand", "--matches", "2",
         "--adviser", "none", "--workers", "1", "--out", str(tmp_path), "--name", "hands",
         "--no-plot", "--no-progress"]
    )  # fmt: skip
    assert r["unit"] == "hand" and r["adviser_off"]["hands"] == 12 and "adviser_on" not in r
    assert not (tmp_path / "hands.png").exists()


# -- regression adjustment on the deal ---------------------------------------------------------
def _deck(captain: str, box: str, upcard: str, stock_top: str) -> list[int]:
    """A deck the three-handed hand deals as given: the captain (non-dealer) is dealt first."""
    cap, bx = parse_cards(captain), parse_cards(box)
    head = [c for pair in zip(cap, bx, strict=True) for c in pair]
    head += parse_cards(upcard) + parse_cards(stock_top)
    return head + [c for c in range(52) if c not in head]


def test_deal_covariates_of_a_known_deck_equal_hand_computed_values() -> None:
    deck = _deck(
        "AS 2S 3S 4S 7H 7D 7C KC QD 9H",  # A-4 of spades and three sevens: KC QD 9H = 29
        "2C 4D 6H 8S TC QS KH 3H 5C 9D",  # no meld: 67
        "5S",  # the captain runs A-5S and drops KC: 19; the box drops a ten: 62
        "8H",  # 7H 8H 9H and A-4S leave 7D 7C QD: 24; the box drops a ten: 65
    )
    x = dict(zip(COVARIATES, deal_covariates(deck), strict=True))
    assert x["captain_deadwood"] == 29 and x["box_deadwood"] == 67
    assert x["captain_upcard"] == 19 and x["box_upcard"] == 62
    assert x["captain_stock"] == 24 and x["box_stock"] == 65
    # A captain dealt gin can knock before any draw: the race's gap is the dealt deadwoods'
    # (the box's 68 minus 0), and the box needs draws to get there.
    gin = _deck("AS 2S 3S 4S 7H 7D 7C 9C 9D 9H", "2C 4D 6H 8S TC QS KH 3H 5C JD", "5S", "8H")
    x = dict(zip(COVARIATES, deal_covariates(gin), strict=True))
    assert x["captain_deadwood"] == 0 and x["box_deadwood"] == 68 and x["race_gap"] == 68
    assert x["race_turns"] >= 1


def test_deal_covariates_name_the_players_the_env_deals_to() -> None:
    env = three_handed_gin_v0.raw_env(episode="hand")
    for seed in range(3):
        env.reset(seed=seed)
        match = env.match
        rec = match.record
        x = dict(zip(COVARIATES, deal_covariates(rec.deck), strict=True))
        for role, name in ((CAPTAIN, "captain_deadwood"), (BOX, "box_deadwood")):
            seat = rec.players.index(rec.roles.index(role))
            assert x[name] == deadwood_mask(match.hand.hands[seat])


def test_covariate_means_are_a_deals_only_monte_carlo_with_its_error() -> None:
    mu, cov = covariate_means(400, seed=3)
    assert mu.shape == (len(COVARIATES),) and cov.shape == (len(COVARIATES),) * 2
    # Captain and box are dealt alike: their mean deadwood agrees within the MC error.
    se = np.sqrt(cov[0, 0] + cov[1, 1])
    assert abs(mu[0] - mu[1]) < 4 * se and 40 < mu[0] < 70
    assert np.all(np.diag(cov) > 0)
    with pytest.raises(OptionError, match="deals"):
        covariate_means(1)


def test_adjusted_mean_with_beta_zero_is_the_plain_clustered_mean() -> None:
    rng = np.random.default_rng(0)
    y, x = rng.normal(size=60), rng.normal(size=(60, 2))
    clusters = np.repeat(np.arange(20), 3)
    plain = cluster_ratio_ci(np.bincount(clusters, weights=y), np.bincount(clusters))
    adj = stats.adjusted_mean_ci(y, x, clusters, mu=[5.0, -1.0], beta=[0.0, 0.0])
    assert adj == pytest.approx(plain)


def test_adjustment_narrows_the_ci_when_y_follows_the_covariate() -> None:
    rng = np.random.default_rng(1)
    n = 600
    x = rng.normal(3.0, 2.0, size=(n, 1))
    y = 1.5 * x[:, 0] + rng.normal(0, 1.0, size=n)  # true mean 4.5
    clusters = np.arange(n)
    m0, lo0, hi0 = cluster_ratio_ci(y, np.ones(n))
    m, lo, hi = stats.adjusted_mean_ci(y, x, clusters, mu=[3.0])
    assert (hi - lo) < 0.5 * (hi0 - lo0)  # var(y) = 10, residual 1: about 3x narrower
    assert lo < 4.5 < hi
    # The cross-fitted beta is near the truth, fitted on the other fold only.
    beta = stats.crossfit_beta(y, x, clusters)
    assert beta.shape == (n, 1) and np.allclose(beta, 1.5, atol=0.2)
    assert not np.allclose(beta[0], beta[1])  # folds by cluster id: two different fits
    # A Monte Carlo mu's own error widens the interval.
    _, lo2, hi2 = stats.adjusted_mean_ci(y, x, clusters, mu=[3.0], mu_cov=np.eye(1) * 0.01)
    assert hi2 - lo2 > hi - lo


def test_adjusted_mean_rejects_bad_shapes_and_options() -> None:
    y, x, cl = np.zeros(4), np.zeros((4, 2)), np.arange(4)
    with pytest.raises(ValueError, match="mu must have one value per covariate"):
        stats.adjusted_mean_ci(y, x, cl, mu=[0.0])
    with pytest.raises(ValueError, match="x must be"):
        stats.adjusted_mean_ci(y, np.zeros((3, 2)), cl, mu=[0.0, 0.0])
    with pytest.raises(ValueError, match="beta must have"):
        stats.adjusted_mean_ci(y, x, cl, mu=[0.0, 0.0], beta=[1.0])
    with pytest.raises(ValueError, match="folds"):
        stats.adjusted_mean_ci(y, x, cl, mu=[0.0, 0.0], folds=1)
    with pytest.raises(ValueError, match="int ids"):
        stats.crossfit_beta(y, x, cl.astype(float))
    with pytest.raises(OptionError, match="adjust must be False, True or one of 'deal', 'draws'"):
        duplicate_three(AGENTS, deals=1, unit="hand", adjust="yes")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="adjust_deals"):
        duplicate_three(AGENTS, deals=1, unit="hand", adjust=True, adjust_deals=0)


def test_duplicate_evaluation_reports_adjusted_points_and_paired_edges() -> None:
    r = duplicate_three(AGENTS, deals=6, seed=4, unit="hand", adjust=True, adjust_deals=300)
    assert r["covariates"] == list(COVARIATES) and r["covariate_deals"] == 300
    assert set(r["adjustment_by_role"]) == {"box", "captain", "adviser"}
    assert all(v["deal_share"] is not None for v in r["adjustment_by_role"].values())
    plain = duplicate_three(AGENTS, deals=6, seed=4, unit="hand")
    for name in AGENTS:
        for role, x in r["per_agent"][name]["roles"].items():
            lo, hi = x["adjusted_ci95"]
            assert lo <= x["adjusted_points_per_hand"] <= hi
            assert x["adjusted_paired_edge_ci95"] is not None
            # Adjustment adds keys and changes none of the unadjusted figures.
            old = plain["per_agent"][name]["roles"][role]
            assert {k: x[k] for k in old} == old
    assert "adjusted_ci95" not in plain["per_agent"][AGENTS[0]]["roles"]["box"]


def test_deal_share_is_the_variance_common_to_a_deal() -> None:
    rng = np.random.default_rng(2)
    deals = np.repeat(np.arange(3000), 6)
    y = rng.normal(0, 2.0, 3000)[deals] + rng.normal(0, 2.0, deals.size)  # half is the deal's
    assert stats.deal_share(y, list(deals)) == pytest.approx(0.5, abs=0.05)
    assert stats.deal_share(rng.normal(size=600), list(range(600))) is None  # no replays
    no_deal = rng.normal(size=deals.size)
    assert abs(stats.deal_share(no_deal, list(deals)) or 0.0) < 0.05
    with pytest.raises(ValueError, match="one equal length"):
        stats.deal_share(y, [0, 1])


# -- corrections for the luck of the stock draws (AIVAT-style) --------------------------------
def _played(seed: int = 5, index: int = 0) -> dict:
    return play.play_role_hand(AGENTS, seed, index)


def _box_points(hand) -> int:
    res = hand.result
    if res.winner is None:
        return 0
    return res.points if res.winner == 1 else -res.points  # seat 1 is the box


def test_replay_reproduces_every_hand_and_leaves_advice_out() -> None:
    for index in range(8):
        h = _played(index=index)
        hand = hand_value.replay_hand(h["deck"], h["actions"])
        assert hand.is_over and _box_points(hand) == h["box_points"]
        assert hand.actions == list(h["actions"])
    m = play_seated_match(AGENTS, seed=2, index=0)  # matches too: advice is interleaved
    assert len(m["hands"]) > 1
    for h in m["hands"]:
        assert _box_points(hand_value.replay_hand(h["deck"], h["actions"])) == h["box_points"]


def _stock_draws(actions) -> list[int]:
    return [k for k, (_, a) in enumerate(actions) if a == A.DRAW_STOCK]


def test_the_correction_at_a_draw_averages_zero_over_every_card_the_stock_held() -> None:
    h = next(
        x for x in (_played(index=i) for i in range(20)) if len(_stock_draws(x["actions"])) >= 3
    )
    actions = h["actions"]
    t = _stock_draws(actions)[2]  # the third stock draw, mid-hand
    before = hand_value.replay_hand(h["deck"], actions[:t])
    pos, stock = before.stock_pos, before.stock
    terms = []
    for card in stock:  # that card drawn instead: swap it to the top, all else equal
        deck = list(h["deck"])
        j = deck.index(card)
        deck[pos], deck[j] = deck[j], deck[pos]
        # Only the draws before t and at t are in the prefix; the earlier ones are unchanged.
        terms.append(
            luck.draw_corrections(deck, actions[: t + 1])
            - luck.draw_corrections(h["deck"], actions[:t])
        )
    terms = np.array(terms)
    seat = before.current
    part = slice(0, 3) if seat == 0 else slice(3, 6)
    other = slice(3, 6) if seat == 0 else slice(0, 3)
    assert np.abs(terms).max() > 0.5  # the draw matters for the drawer's deadwood
    assert np.allclose(terms[:, other], 0.0)  # and only the drawer's features change
    np.testing.assert_allclose(terms[:, part].mean(axis=0), 0.0, atol=1e-9)
    # The drawn card's term is its features minus their mean over the stock.
    cards, f = luck.draw_features(before)
    assert cards == stock and f.shape == (len(stock), 3)
    np.testing.assert_allclose(terms[0, part], f[0] - f.mean(axis=0))


def test_draw_corrections_have_mean_zero_over_random_deals() -> None:
    # Unbiased whatever the play: over many deals each mean is within 4 standard errors of 0
    # (while the corrections themselves are far from 0 hand by hand).
    xs = []
    for index in range(150):
        h = play.play_role_hand(["simple", "simple", "heuristic"], 9, index)
        xs.append(luck.draw_corrections(h["deck"], h["actions"]))
    xs = np.array(xs)
    se = xs.std(axis=0, ddof=1) / np.sqrt(len(xs))
    assert (xs.std(axis=0)[[0, 1, 3, 4]] > 0.1).all()  # gin is rare: its column may be small
    assert (np.abs(xs.mean(axis=0)) <= 4 * se).all(), (xs.mean(axis=0), se)


def test_with_no_weight_on_the_corrections_the_estimator_is_the_plain_mean() -> None:
    hands = [_played(seed=3, index=i) for i in range(30)]
    y = np.array([h["box_points"] for h in hands], float)
    x = np.array([luck.draw_corrections(h["deck"], h["actions"]) for h in hands])
    cl = np.arange(30)
    zero = np.zeros(x.shape[1])
    assert stats.adjusted_mean_ci(y, x, cl, zero, beta=zero) == pytest.approx(
        cluster_ratio_ci(y, np.ones(30))
    )


def test_duplicate_evaluation_corrected_for_the_draws() -> None:
    # 600 hands: enough for the cross-fitted betas of 14 covariates (with far fewer hands a
    # fold's beta does not carry over to the other fold).
    trio = ["simple", "heuristic", "three-handed-ppo"]
    r = duplicate_three(trio, deals=100, seed=4, unit="hand", adjust="draws", adjust_deals=300)
    assert r["adjust"] == "draws"
    assert r["covariates"] == list(COVARIATES) + list(luck.DRAW_CORRECTIONS)
    deal = duplicate_three(trio, deals=100, seed=4, unit="hand", adjust="deal", adjust_deals=300)
    share = r["adjustment_by_role"]["box"]["covariate_r2"]
    # The draws' luck explains a share of the points that the deal's covariates do not.
    assert share > 0.05 and share > deal["adjustment_by_role"]["box"]["covariate_r2"] + 0.05
    for name in trio:
        for role, x in r["per_agent"][name]["roles"].items():
            lo, hi = x["adjusted_ci95"]
            assert lo <= x["adjusted_points_per_hand"] <= hi
            old = deal["per_agent"][name]["roles"][role]
            assert x["points_per_hand"] == old["points_per_hand"]  # unadjusted unchanged
            assert x["adjusted_points_per_hand"] != old["adjusted_points_per_hand"]
