"""One source of rules: the engine's clone / from_state / resample, and search and simulation
playing the table's own rules through it.

``tests/data/search_default_rules.json`` holds results recorded at commit 7609766, before
search and simulation moved onto the engine (they had their own copy of knock, undercut and
the draw then): the search's choices on 50 positions of L2/L1 play under four settings, and
40 hands played by :func:`agents.simulate.play_deal`. On the default rules they must not
change.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.base import ObservedSeat, decode
from agents.heuristic import HeuristicAgent
from agents.search import SearchAgent, table_rules
from agents.simple import SimpleAgent
from agents.simulate import greedy_playout, play_deal, play_out, seat_points
from gin_env import actions as A
from gin_env import gin_v0
from gin_env.cards import from_mask, parse_cards, to_mask
from gin_env.config import GinConfig, HandRules
from gin_env.hand import GinHand, Phase

GOLDEN = json.loads((Path(__file__).parent / "data" / "search_default_rules.json").read_text())
SETTINGS = {
    "w8_m2": {"budget": None, "worlds": 8},
    "w8_m0": {"budget": None, "worlds": 8, "margin": 0.0},
    "w20_m0_c4": {
        "budget": None,
        "worlds": 20,
        "margin": 0.0,
        "candidates": 4,
        "opponent_samples": 1,
    },
    "w3_m0_simple": {"budget": None, "worlds": 3, "margin": 0.0, "policy": SimpleAgent()},
}


# -- the same results as before on the default rules -----------------------------------------
@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_search_chooses_as_before_on_the_default_rules(setting: str) -> None:
    views = [ObservedSeat(**v) for v in GOLDEN["views"]]
    agent = SearchAgent(**SETTINGS[setting])
    got = [agent.choose(v, np.random.default_rng(i)) for i, v in enumerate(views)]
    assert got == GOLDEN[setting]


def test_the_recorded_choices_are_searched_decisions() -> None:
    """The positions exercise the search: without a margin it leaves the heuristic's move
    in many of them (so equal choices mean equal rollout values, not just L2's move)."""
    views = [ObservedSeat(**v) for v in GOLDEN["views"]]
    h = HeuristicAgent()
    l2 = [h.choose(v, np.random.default_rng(i)) for i, v in enumerate(views)]
    assert sum(a != b for a, b in zip(l2, GOLDEN["w8_m0"], strict=True)) >= 10


def test_play_deal_plays_as_before() -> None:
    for i, d in enumerate(GOLDEN["play_deal"]):
        pols = [HeuristicAgent(), SimpleAgent()] if i % 2 else [SimpleAgent(), HeuristicAgent()]
        r = play_deal(d["deck"], pols, dealer=d["dealer"])
        got = (r.kind, r.winner, r.points, [str(x) for x in r.final_hands])
        assert got == (d["kind"], d["winner"], d["points"], d["final_hands"]), i


# -- the engine: clone, from_state, resample --------------------------------------------------
def _mid_hand(seed: int, turns: int, rules: HandRules | None = None) -> GinHand:
    """A hand after ``turns`` discards of L2 against L2 (not over)."""
    rng = np.random.default_rng(seed)
    while True:
        hand = GinHand(rng.permutation(52).tolist(), rules, dealer=1)
        h = HeuristicAgent()
        from agents.simulate import view_of

        while not hand.is_over and hand.turns < turns:
            hand.step(h.choose(view_of(hand, hand.current)))
        if not hand.is_over:
            return hand


def test_clone_is_independent() -> None:
    hand = _mid_hand(1, 4)
    copy = hand.clone()
    before = (list(hand.hands), list(hand.discard_pile), hand.stock, hand.phase, hand.turns)
    while not copy.is_over:
        copy.step(copy.legal_actions()[0])
    assert (list(hand.hands), list(hand.discard_pile), hand.stock, hand.phase, hand.turns) == (
        before
    )
    assert hand.result is None and copy.result is not None


def test_from_state_rebuilds_a_hand_that_plays_on_identically() -> None:
    for seed in range(6):
        hand = _mid_hand(seed, 3 + seed, HandRules(oklahoma=True, undercut_bonus=25))
        copy = GinHand.from_state(
            hand.hands,
            hand.discard_pile,
            hand.stock,
            dealer=hand.dealer,
            current=hand.current,
            phase=hand.phase,
            rules=hand.rules,
            upcard=hand.upcard,
            took=hand.took,
            discarded=hand.discarded,
            turns=hand.turns,
            taken=hand.taken,
            must_draw_stock=hand.must_draw_stock,
            passed_upcard=hand.passed_upcard,
        )
        assert (copy.knock_limit, copy.multiplier, copy.upcard) == (
            hand.knock_limit,
            hand.multiplier,
            hand.upcard,
        )
        h = HeuristicAgent()
        a = play_out(hand, (h, h))
        b = play_out(copy, (h, h))
        assert a == b


def test_from_state_refuses_states_no_hand_can_be_in() -> None:
    hand = _mid_hand(2, 2)
    kw = {"dealer": 1, "current": hand.current, "phase": hand.phase}
    with pytest.raises(ValueError, match="52 cards exactly once"):
        GinHand.from_state(hand.hands, hand.discard_pile, hand.stock[1:], **kw)
    with pytest.raises(ValueError, match="share cards"):
        GinHand.from_state((hand.hands[0], hand.hands[0]), [], hand.stock, **kw)
    with pytest.raises(ValueError, match="phase must be one of"):
        GinHand.from_state(hand.hands, hand.discard_pile, hand.stock, dealer=1, current=0, phase=9)
    with pytest.raises(ValueError, match="phase OVER"):
        GinHand.from_state(
            hand.hands, hand.discard_pile, hand.stock, dealer=1, current=0, phase=Phase.OVER
        )
    with pytest.raises(ValueError, match="hold \\[11, 10\\] cards"):
        GinHand.from_state(
            hand.hands, hand.discard_pile, hand.stock, dealer=1, current=0, phase=Phase.DISCARD
        )
    with pytest.raises(ValueError, match="upcard must be a card in a hand or the pile"):
        GinHand.from_state(hand.hands, hand.discard_pile, hand.stock, upcard=hand.stock[0], **kw)


@pytest.mark.parametrize("make_rng", [random.Random, np.random.default_rng])
def test_resample_keeps_what_the_seat_saw_and_deals_the_rest_again(make_rng: type) -> None:
    hand = _mid_hand(3, 6)
    seat = hand.current
    opp = 1 - seat
    unseen = (hand.hands[opp] & ~hand.took[opp]) | to_mask(hand.stock)
    before = hand.clone()
    worlds = [hand.resample(seat, make_rng(s)) for s in range(20)]
    assert hand.hands == before.hands and hand.deck == before.deck  # unchanged
    for w in worlds:
        assert w.hands[seat] == hand.hands[seat]
        assert w.discard_pile == hand.discard_pile
        assert w.took == hand.took and w.discarded == hand.discarded
        assert (w.phase, w.current, w.turns, w.upcard, w.knock_limit, w.stock_size) == (
            hand.phase,
            hand.current,
            hand.turns,
            hand.upcard,
            hand.knock_limit,
            hand.stock_size,
        )
        assert w.hands[opp] & hand.took[opp] == hand.took[opp]
        assert w.hands[opp].bit_count() == hand.hands[opp].bit_count()
        assert (w.hands[opp] & ~hand.took[opp]) | to_mask(w.stock) == unseen
        assert w.legal_actions() == hand.legal_actions()
        # The rewritten deck replays the history to this very world.
        replay = GinHand(w.deck, w.rules, dealer=w.dealer)
        for _, a in w.actions:
            replay.step(a)
        assert (replay.hands, replay.discard_pile, replay.stock) == (
            w.hands,
            w.discard_pile,
            w.stock,
        )
    assert len({w.hands[opp] for w in worlds}) > 15  # really dealt again
    again = hand.resample(seat, make_rng(0))
    assert again.hands == worlds[0].hands and again.stock == worlds[0].stock  # seeded
    with pytest.raises(ValueError, match="seat must be 0 or 1"):
        hand.resample(2, make_rng(0))


# -- the table's rules ------------------------------------------------------------------------
def test_table_rules_from_tables_and_specs() -> None:
    cfg = GinConfig(oklahoma=True, undercut_bonus=25, target_score=50)
    assert table_rules(cfg) == HandRules(oklahoma=True, undercut_bonus=25)
    with pytest.raises(ValueError, match="rules must be a gin table"):
        table_rules({"knock_limit": 7})  # type: ignore[arg-type]
    env = gin_v0.raw_env(oklahoma=True, undercut_bonus=25)
    assert agents.seat("search", env.unwrapped.config).rules == table_rules(cfg)
    spec = agents.make("search:oklahoma=True,undercut_bonus=25,worlds=2")
    assert spec.rules == table_rules(cfg) and spec.worlds == 2
    with pytest.raises(ValueError, match="sets oklahoma=False, but the table plays oklahoma=True"):
        agents.seat("search:oklahoma=False", cfg)


def _undercut_view() -> ObservedSeat:
    """The non-dealer may knock with 10 deadwood; the opponent has picked up two melds, so
    he undercuts in many worlds."""
    hand = to_mask(parse_cards("AS 2S 3S 4H 5H 6H 7D 8D 9D TC KC"))
    up = parse_cards("JD")[0]
    knocks = [A.KNOCK + c for c in parse_cards("TC KC")]
    took = to_mask(parse_cards("QC QD QH 5C 6C 7C"))
    return ObservedSeat(
        role=1, phase=3, advising=False, hand=hand, top_discard=up, discard_pile=1 << up,
        opponent_took=took, opponent_discarded=0, own_discarded=took, stock_size=30,
        suggestion=-1, legal=sorted([A.DISCARD + c for c in from_mask(hand)] + knocks),
    )  # fmt: skip


def test_search_scores_a_knock_with_the_tables_undercut_bonus() -> None:
    view = _undercut_view()
    values = {}
    for bonus in (10, 25):
        rules = HandRules(undercut_bonus=bonus)
        agent = SearchAgent(budget=None, worlds=60, margin=0.0, rules=rules)
        values[bonus] = agent.candidate_values(view, np.random.default_rng(0))
    knock = next(a for a in values[10] if a >= A.KNOCK)
    assert list(values[10]) == list(values[25])  # the same candidates
    # Same worlds (same seed): the knock is worth less when an undercut costs 15 more.
    assert values[25][knock] < values[10][knock] - 2
    assert agents.make("search:undercut_bonus=25").rules.undercut_bonus == 25


def _oklahoma_states(n: int) -> list[tuple[dict, int, int]]:
    """(observation, upcard, hand knock limit) of the seat to act along L2 play at an
    Oklahoma table."""
    env = gin_v0.raw_env(oklahoma=True, undercut_bonus=25)
    h = HeuristicAgent()
    out = []
    env.reset(seed=5)
    while len(out) < n:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset()
            continue
        obs = env.observe(agent)
        hand = env.unwrapped.match.hand
        out.append(({k: v.copy() for k, v in obs.items()}, hand.upcard, hand.knock_limit))
        env.step(h.act(obs))
    return out


def test_search_reads_the_oklahoma_knock_limit_and_refuses_the_wrong_rules() -> None:
    states = _oklahoma_states(300)
    ok = SearchAgent(budget=None, worlds=2, rules=HandRules(oklahoma=True, undercut_bonus=25))
    for obs, upcard, _ in states:  # one agent for both seats, in order, as at a table
        view = decode(obs)
        assert ok.upcard(view) == upcard
        assert obs["action_mask"][ok.act(obs, np.random.default_rng(0))]
    limits = {limit for _, _, limit in states}
    assert len(limits) > 2  # the knock limit changed with the upcard
    # An agent with the default rules is refused where the table's knocks do not fit them.
    plain = SearchAgent(budget=None, worlds=2)
    refused = 0
    for obs, _, limit in states:
        view = decode(obs)
        knocks = any(a >= A.KNOCK for a in view.legal if a != A.BIG_GIN)
        if view.phase == 3 and limit < 10 and not knocks:
            dws = [v for v in (HeuristicAgent().discard_options(view, view.legal)[3]).values()]
            if min(dws) <= 10:
                with pytest.raises(ValueError, match="do not fit this agent's rules"):
                    plain.act(obs, np.random.default_rng(0))
                refused += 1
    assert refused >= 1


@pytest.mark.parametrize("rules", [{"oklahoma": True}, {"undercut_bonus": 25}])
def test_play_out_gives_the_env_result(rules: dict) -> None:
    """From a hand in mid-play at a table with these rules, play_out on a clone of the
    engine's hand ends exactly as the env does with the same (deterministic) players."""
    h = HeuristicAgent()
    env = gin_v0.raw_env(episode="hand", **rules)
    checked = 0
    for seed in range(40):
        env.reset(seed=seed)
        for _ in range(6):  # a few moves in
            agent = env.agent_selection
            if env.terminations[agent]:
                break
            env.step(h.act(env.observe(agent)))
        if env.terminations[env.agent_selection]:
            continue
        state = env.unwrapped.table_state
        result = play_out(state.open_hand(), (h, h))
        record = state.history[-1]
        while not env.terminations[env.agent_selection]:
            env.step(h.act(env.observe(env.agent_selection)))
        assert record.result == result
        checked += 1
    assert checked >= 30


def test_greedy_rollouts_play_the_tables_rules() -> None:
    """The same deals played greedily under Oklahoma and the standard rules end
    differently (knock limits follow the upcard), each hand's knock is legal under its own
    rules, and undercuts score the table's bonus."""
    rng = np.random.default_rng(7)
    differ = undercuts = 0
    for _ in range(60):
        deck = rng.permutation(52).tolist()
        results = {}
        for name, r in (
            ("plain", HandRules()),
            ("oklahoma", HandRules(oklahoma=True)),
            ("undercut", HandRules(undercut_bonus=25)),
        ):
            hand = GinHand(deck, r, dealer=1)
            res = greedy_playout(hand, max_turns=200)
            assert res is not None
            results[name] = res
            if res.kind in ("knock", "undercut"):
                assert res.showdown is not None
                assert res.showdown.knocker_deadwood <= hand.knock_limit
            if name == "undercut" and res.kind == "undercut":
                assert res.showdown is not None
                assert res.points == res.showdown.defender_points >= 25
                undercuts += 1
        differ += results["plain"] != results["oklahoma"]
        assert seat_points(results["plain"], 0) == -seat_points(results["plain"], 1)
    assert differ >= 10 and undercuts >= 1


def test_search_rollouts_play_the_oklahoma_knock_limit() -> None:
    """An ace upcard makes the hand gin-only under Oklahoma: the same worlds (same seed)
    are worth other points than under the standard rules, and the spade doubles them."""
    hand = to_mask(parse_cards("2S 3S 4S 7H 8H 9D TD QC KC 5D"))
    for up, limit in (("AC", 0), ("AS", 0), ("3H", 3)):
        card = parse_cards(up)[0]
        view = ObservedSeat(
            role=1, phase=0, advising=False, hand=hand, top_discard=card,
            discard_pile=1 << card, opponent_took=0, opponent_discarded=0, own_discarded=0,
            stock_size=31, suggestion=-1, legal=[A.TAKE_DISCARD, A.PASS],
        )  # fmt: skip
        okla = SearchAgent(budget=None, worlds=30, rules=HandRules(oklahoma=True))
        plain = SearchAgent(budget=None, worlds=30)
        assert okla.upcard(view) == card
        base = okla._base(view)
        assert base is not None and base[0].knock_limit == limit
        a = okla.candidate_values(view, np.random.default_rng(0))
        b = plain.candidate_values(view, np.random.default_rng(0))
        assert set(a) == set(b) and A.PASS in a  # the same candidates, other values
        assert a != b
        if up == "AS":
            assert base[0].multiplier == 2


def test_agents_seated_at_a_table_learn_its_rules() -> None:
    cfg = gin_v0.raw_env(oklahoma=True, undercut_bonus=25).unwrapped.config
    assert agents.seat("search:worlds=2", cfg).rules == table_rules(cfg)
    captain = agents.seat("captain:agent=search", cfg)
    assert captain.agent.rules == table_rules(cfg)
    assert isinstance(agents.seat("heuristic", cfg), HeuristicAgent)


def test_a_search_opponent_plays_an_oklahoma_table_of_the_vector_env() -> None:
    from agents.batched import BatchedRandom
    from agents.vector import LearnerVectorEnv

    env = LearnerVectorEnv(
        4, opponents="search:worlds=1", seed=2, oklahoma=True, undercut_bonus=25, episode="hand"
    )
    assert env._policies[0].agent.rules == HandRules(oklahoma=True, undercut_bonus=25)  # type: ignore[union-attr]
    obs, _ = env.reset()
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(60):  # a search with the default rules would be refused at such a table
        obs, _, term, _, _ = env.step(BatchedRandom().act(obs, env.action_masks(), rng))
        ends += term.sum()
    assert ends >= 4
