"""Baseline agents: legal moves in every role, observation-only play, the registry."""

from __future__ import annotations

import copy
import re
import subprocess
import sys

import numpy as np
import pytest

import agents
from agents.advice import Adviser, Captain
from agents.base import decode
from agents.heuristic import HeuristicAgent
from agents.random_agent import RandomAgent
from agents.search import SearchAgent
from agents.simple import SimpleAgent, take_melds
from agents.simulate import play_deal, seat_points
from agents.spec import AgentOptionError, MissingOptionError, UnknownOptionError
from gin_env import actions as A
from gin_env import gin_v0, three_handed_gin_v0
from gin_env.cards import parse_cards, to_mask


def _all_agents() -> dict[str, object]:
    return {
        "random": RandomAgent(),
        "simple": SimpleAgent(),
        "heuristic": HeuristicAgent(),
        # Simple rollouts keep the test fast; the default (L2) rollouts are tested below.
        "search": SearchAgent(budget=None, worlds=1, candidates=2, policy=SimpleAgent(), seed=0),
        "adviser": Adviser(HeuristicAgent()),
        "captain-follow": Captain(SimpleAgent(), "follow"),
        "captain-weigh": Captain(HeuristicAgent(), "weigh"),
        "captain-ignore": Captain(HeuristicAgent(), "ignore"),
    }


def _states(env: object, steps: int, seed: int) -> list[dict[str, np.ndarray]]:
    """Observations of the agent to act along a random game (copies, detached)."""
    rng = np.random.default_rng(seed)
    out = []
    env.reset(seed=seed)  # type: ignore[attr-defined]
    for _ in range(steps):
        agent = env.agent_selection  # type: ignore[attr-defined]
        if env.terminations[agent] or env.truncations[agent]:  # type: ignore[attr-defined]
            env.reset(seed=int(rng.integers(1 << 30)))  # type: ignore[attr-defined]
            continue
        obs = env.observe(agent)  # type: ignore[attr-defined]
        out.append(copy.deepcopy(obs))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))  # type: ignore[attr-defined]
    return out


@pytest.mark.parametrize("game", ["three_suggest", "three_none", "three_blind", "gin"])
def test_every_agent_plays_legal_actions_in_every_role(game: str) -> None:
    if game == "gin":
        env = gin_v0.raw_env()
    else:
        mode = "none" if game == "three_none" else "suggest"
        env = three_handed_gin_v0.raw_env(adviser=mode, adviser_sees_hand=game != "three_blind")
    states = _states(env, 250, seed=3)
    seen_roles = set()
    rng = np.random.default_rng(0)
    for obs in states:
        view = decode(obs)
        seen_roles.add(view.role)
        for name, agent in _all_agents().items():
            a = agent.act(obs, rng)  # type: ignore[attr-defined]
            assert isinstance(a, int), name
            assert obs["action_mask"][a] == 1, f"{name} chose illegal {A.action_str(a)}"
    assert seen_roles == (
        {0, 1, 2} if game.startswith("three_s") or game == "three_blind" else {0, 1}
    )


def test_agents_decide_from_the_observation_alone() -> None:
    """Changing the opponent's hidden cards (swapping them with stock cards) leaves the
    observation and every agent's action unchanged."""
    env = three_handed_gin_v0.raw_env()
    rng = np.random.default_rng(1)
    env.reset(seed=11)
    checked = 0
    for _ in range(120):
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        match = env.match
        hand = match.hand
        obs = copy.deepcopy(env.observe(agent))
        player = env.possible_agents.index(agent)
        seat = match.record.players.index(player) if player in match.record.players else 0
        opp = 1 - seat
        hidden = hand.hands[opp] & ~hand.took[opp]
        if hand.stock_size > 3 and hidden:
            before = {n: a.act(obs, np.random.default_rng(5)) for n, a in _all_agents().items()}
            # Swap one hidden opponent card with the top of the stock.
            card = (hidden & -hidden).bit_length() - 1
            top = hand.deck[hand.stock_pos]
            hand.hands[opp] = (hand.hands[opp] & ~(1 << card)) | 1 << top
            i = hand.deck.index(card)
            hand.deck[i], hand.deck[hand.stock_pos] = top, card
            hand._legal = None
            hand._discard_dw = None
            after_obs = env.observe(agent)
            assert np.array_equal(after_obs["observation"], obs["observation"])
            assert np.array_equal(after_obs["action_mask"], obs["action_mask"])
            after = {
                n: a.act(after_obs, np.random.default_rng(5)) for n, a in _all_agents().items()
            }
            assert after == before
            checked += 1
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 10


def test_agents_run_on_plain_dicts_without_an_env() -> None:
    obs_list = _states(gin_v0.raw_env(), 80, seed=9)
    for obs in obs_list:
        plain = {
            "observation": obs["observation"].tolist(),
            "action_mask": obs["action_mask"].tolist(),
        }
        for name in ("random", "simple", "heuristic"):
            a = agents.make(name).act(plain, np.random.default_rng(0))
            assert obs["action_mask"][a] == 1


def test_simple_takes_only_to_meld_and_knocks_at_once() -> None:
    hand = to_mask(parse_cards("5H 6H 9S 9D KC QD JS 2C 3D 8S"))
    assert take_melds(hand, parse_cards("7H")[0])  # extends 5H 6H into a run
    assert not take_melds(hand, parse_cards("AC")[0])  # lower, but melds nothing
    deck = list(range(52))
    r = play_deal(deck, [SimpleAgent(), SimpleAgent()])
    assert r.kind in ("knock", "gin", "undercut", "draw")


def test_simple_beats_random_and_heuristic_is_not_weaker_than_simple() -> None:
    rng = np.random.default_rng(0)
    l0, l1, l2 = RandomAgent(), SimpleAgent(), HeuristicAgent()

    class Rand:
        def choose(self, view, r=None):  # noqa: ANN001, ANN202
            return int(rng.choice(view.legal))

    wins = 0
    for _ in range(20):
        deck = rng.permutation(52).tolist()
        wins += play_deal(deck, [l1, Rand()]).winner == 0
    assert wins >= 18
    assert l0.act is not None
    total = 0
    for _ in range(40):
        deck = rng.permutation(52).tolist()
        total += seat_points(play_deal(deck, [l2, l1]), 0) + seat_points(
            play_deal(deck, [l1, l2]), 1
        )
    assert total > -400  # a loose floor: the harness measures the real margin


def test_search_is_reproducible_with_a_world_count() -> None:
    states = _states(gin_v0.raw_env(), 30, seed=4)
    a = SearchAgent(budget=None, worlds=2)
    b = SearchAgent(budget=None, worlds=2)
    for obs in states:
        assert a.act(obs, np.random.default_rng(1)) == b.act(obs, np.random.default_rng(1))


def test_registry() -> None:
    assert {"random", "simple", "heuristic", "search", "rummy-simple"} <= set(agents.names())
    s = agents.make("search:budget=0.05,candidates=2")
    assert isinstance(s, SearchAgent) and s.budget == 0.05 and s.candidates == 2
    assert isinstance(agents.make("search:worlds=2,policy=simple").policy, SimpleAgent)
    assert agents.make("heuristic:danger_weight=3.0").params.danger_weight == 3.0
    with pytest.raises(ValueError, match="unknown"):
        agents.make("no-such-agent-xyz")
    with pytest.raises(ValueError, match="key=value"):
        agents.make("search:budget")
    with pytest.raises(ValueError, match="budget"):
        SearchAgent(budget=-1)
    with pytest.raises(ValueError, match="captain mode"):
        Captain(SimpleAgent(), "obey")
    agents.register("my-simple", SimpleAgent)
    try:
        assert isinstance(agents.make("my-simple"), SimpleAgent)
    finally:
        agents._REGISTRY.pop("my-simple")  # other tests (the web lobby) list every agent


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("search:bogus=1", "agent 'search' has no option 'bogus'; it takes: budget, worlds"),
        ("heuristic:x=1", "agent 'heuristic' has no option 'x'; it takes: potential_weight"),
        ("heuristic:x-y=1", "agent 'heuristic' has no option 'x-y'; it takes: potential_weight"),
        ("simple:depth=2", "agent 'simple' has no option 'depth'; it takes: no options"),
        ("captain:agent=random,zz=1", "agent 'random' has no option 'zz'"),
        ("search:budget=fast", "budget (seconds per decision) must be a finite number > 0 and"),
        ("search:budget=1e400", "budget (seconds per decision) must be a finite number > 0 and"),
        ("search:budget=0", "<= 3600, got 0"),
        ("search:worlds=2.5", "worlds must be an int in 1..1000000, got 2.5"),
        ("search:worlds=0", "worlds must be an int in 1..1000000, got 0"),
        ("search:margin=wide", "margin (standard errors) must be a finite number in 0..1000000000"),
        ("search:margin=nan", "margin (standard errors) must be a finite number in 0..1000000000"),
        ("search:candidates=True", "candidates must be an int in 1..109, got True"),
        ("heuristic:danger_weight=high", "danger_weight must be a finite number, got 'high'"),
        ("heuristic:danger_weight=1e400", "danger_weight must be a finite number, got inf"),
        ("heuristic:lookahead=1", "lookahead must be True or False, got 1"),
    ],
)
def test_bad_agent_options_name_the_option(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        agents.make(spec)


def test_option_errors_are_typed_and_read_off_signatures() -> None:
    with pytest.raises(UnknownOptionError) as unknown:
        agents.make("search:bogus=1")
    assert unknown.value.agent == "search" and unknown.value.options == ("bogus",)
    with pytest.raises(MissingOptionError) as missing:
        agents.make("llm")
    assert missing.value.options == ("model",) and "model" in missing.value.takes
    assert isinstance(missing.value, AgentOptionError) and isinstance(missing.value, ValueError)
    # Names the registry gives a factory are never a spec's to set.
    with pytest.raises(UnknownOptionError, match="has no option 'build'"):
        agents.make("adviser:build=1")

    # A TypeError raised inside a constructor is the constructor's, whatever its words: the
    # registry does not read error messages to decide what went wrong.
    class Picky:
        def __init__(self, depth: int = 1) -> None:
            raise TypeError("__init__() got an unexpected keyword argument 'depth'")

    agents.register("picky-test", Picky)
    try:
        with pytest.raises(TypeError, match="unexpected keyword argument 'depth'"):
            agents.make("picky-test:depth=2")
        with pytest.raises(UnknownOptionError, match="it takes: depth"):
            agents.make("picky-test:width=2")
    finally:
        agents._REGISTRY.pop("picky-test")  # noqa: SLF001 - the test's own entry


def test_the_registry_has_no_deprecated_names() -> None:
    with pytest.raises(AttributeError):
        agents.SeatView  # noqa: B018 - the name before 0.2.0, never published


def test_importing_agents_imports_no_optional_extra() -> None:
    # The registry imports its agents plainly; torch (train extra) and the openai client
    # (llm extra) come only with the agents that use them, when they are first used.
    code = "import sys, agents; print(sorted(m for m in ('torch', 'openai') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_agents_refuse_what_is_not_an_observation_dict() -> None:
    env = gin_v0.raw_env()
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    for agent in (SimpleAgent(), HeuristicAgent(), SearchAgent(budget=None, worlds=1)):
        with pytest.raises(ValueError, match="observation dict"):
            agent.act(obs["observation"])
        with pytest.raises(ValueError, match=r"keys \['observation'\]"):
            agent.act({"observation": obs["observation"]})
        with pytest.raises(ValueError, match=r"observation must have shape \(436,\)"):
            agent.act({**obs, "observation": obs["observation"][:10]})
        with pytest.raises(ValueError, match=r"action_mask must have shape \(109,\)"):
            agent.act({**obs, "action_mask": obs["action_mask"][:5]})


def test_captain_follow_plays_the_suggestion() -> None:
    env = three_handed_gin_v0.raw_env()
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    follow = Captain(SimpleAgent(), "follow")
    checked = 0
    for _ in range(300):
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        obs = env.observe(agent)
        view = decode(obs)
        if view.role == 1 and view.suggestion >= 0 and view.suggestion != A.NO_ADVICE:
            assert follow.act(obs, rng) == view.suggestion
            checked += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 5


def _random_hand(rng: np.random.Generator, n: int) -> int:
    return to_mask(int(c) for c in rng.permutation(52)[:n])


def test_one_draw_expectations_match_brute_force() -> None:
    from agents.heuristic import FULL, expected_deadwood, knock_chance
    from gin_env.melds import discard_deadwoods

    rng = np.random.default_rng(12)
    for _ in range(15):
        hand = _random_hand(rng, 10)
        unseen = FULL & ~hand & ~_random_hand(rng, 14)
        after = [
            min(discard_deadwoods(hand | 1 << u).values())
            for u in range(52)
            if (unseen & ~hand) >> u & 1
        ]
        assert expected_deadwood(hand, unseen & ~hand) == pytest.approx(np.mean(after))
        for limit in (0, 5, 10):
            want = np.mean([v <= limit for v in after])
            assert knock_chance(hand, unseen & ~hand, limit) == pytest.approx(want)


def test_danger_is_lower_next_to_a_card_the_opponent_passed() -> None:
    from agents.heuristic import FULL, danger

    card = parse_cards("7H")[0]
    took = to_mask(parse_cards("8H"))
    unseen = FULL & ~to_mask(parse_cards("7H 8H"))
    plain = danger(card, took, unseen, 9)
    passed = danger(card, took, unseen, 9, to_mask(parse_cards("TH")), 0.2)
    assert 0 < passed < plain  # 8H-9H would have melded TH, which he left


def test_partner_pairs_are_the_sets_and_runs_a_card_can_join() -> None:
    from agents.heuristic import partner_pairs

    def named(card: str) -> set[frozenset[int]]:
        return {frozenset(p) for p in partner_pairs(parse_cards(card)[0])}

    def pairs(*texts: str) -> set[frozenset[int]]:
        return {frozenset(parse_cards(t)) for t in texts}

    assert named("AS") == pairs("AH AD", "AH AC", "AD AC", "2S 3S")
    assert named("7H") == pairs("7S 7D", "7S 7C", "7D 7C", "5H 6H", "6H 8H", "8H 9H")
    assert named("KD") == pairs("KS KH", "KS KC", "KH KC", "JD QD")


def test_danger_reads_the_opponents_last_discard() -> None:
    """A player who just threw a 4 keeps few loose cards above 4 pips: a discard whose
    partners are high is safer, one whose partners are low more dangerous."""
    from agents.heuristic import FULL, danger

    unseen = FULL & ~to_mask(parse_cards("KS 3S"))
    king, three = parse_cards("KS 3S")
    for card in (king, three):
        assert danger(card, 0, unseen, 10, high_pips=10, high_factor=0.3) == pytest.approx(
            danger(card, 0, unseen, 10)
        )  # nothing is above 10 pips: the factor changes nothing
    assert danger(king, 0, unseen, 10, high_pips=4, high_factor=0.3) < danger(king, 0, unseen, 10)
    assert danger(three, 0, unseen, 10, high_pips=4, high_factor=0.3) > danger(three, 0, unseen, 10)


def test_opponent_last_discard_is_the_top_or_the_card_just_taken() -> None:
    from agents.base import ObservedSeat
    from agents.heuristic import opponent_last_discard

    seven, nine, upcard = parse_cards("7H 9C 2D")

    def view(top: int) -> ObservedSeat:
        return ObservedSeat(
            role=0, phase=2, advising=False, hand=0, top_discard=top,
            discard_pile=to_mask([seven, nine, upcard]), opponent_took=0,
            opponent_discarded=to_mask([seven, nine]), own_discarded=0, stock_size=20,
            suggestion=-1, legal=[0, 1],
        )  # fmt: skip

    assert opponent_last_discard(view(nine), -1) == nine
    assert opponent_last_discard(view(upcard), -1) == -1  # the upcard is nobody's discard
    assert opponent_last_discard(view(upcard), seven) == seven  # just taken from the pile
    assert opponent_last_discard(view(-1), -1) == -1


def test_heuristic_values_meld_chances_less_once_the_opponent_has_picked_up() -> None:
    from agents.base import ObservedSeat
    from agents.heuristic import HeuristicParams

    def draws(took: str, hazard: float) -> float:
        view = ObservedSeat(
            role=0, phase=2, advising=False, hand=0, top_discard=-1, discard_pile=0,
            opponent_took=to_mask(parse_cards(took)), opponent_discarded=0, own_discarded=0,
            stock_size=26, suggestion=-1, legal=[0, 1],
        )  # fmt: skip
        return HeuristicAgent(HeuristicParams(took_hazard=hazard))._draws_left(view)

    assert draws("", 0.5) == draws("5H 9C", 0.0) == pytest.approx(4.0)
    assert draws("5H 9C", 0.5) == pytest.approx(2.0)


def test_greedy_playout_plays_the_engine_to_the_end() -> None:
    from agents.simulate import greedy_action, greedy_discard, greedy_playout
    from gin_env.config import HandRules
    from gin_env.hand import GinHand, Phase
    from gin_env.melds import discard_deadwoods

    rng = np.random.default_rng(3)
    rules = HandRules()
    ended = 0
    for _ in range(30):
        deck = rng.permutation(52).tolist()
        hand = GinHand(deck, rules, dealer=1)
        hand.step(A.PASS)
        hand.step(A.PASS)
        # The greedy rollout's first move is a stock draw and the best discard.
        first = hand.clone()
        first.step(greedy_action(first))
        h0 = hand.hands[0] | 1 << hand.stock[0]
        assert first.hands[0] == h0
        card, dw = greedy_discard(h0)
        assert dw == min(discard_deadwoods(h0).values())
        assert greedy_action(first) in (A.DISCARD + card, A.KNOCK + card)
        result = greedy_playout(hand, max_turns=200)
        assert result is not None and hand.phase is Phase.OVER and result is hand.result
        ended += result.winner is not None
        assert (result.winner is None) == (result.kind == "draw")
    assert ended >= 20  # greedy players knock as soon as they may


def test_search_keeps_the_heuristic_move_without_evidence_and_takes_a_sure_gain() -> None:
    """With a huge margin (in standard errors) the search plays the heuristic's move (bar
    worlds where a candidate wins by the same points in every world)."""
    states = _states(gin_v0.raw_env(), 60, seed=6)
    h = HeuristicAgent()
    stubborn = SearchAgent(budget=None, worlds=8, margin=1e9)
    same = [
        stubborn.act(obs, np.random.default_rng(0)) == h.act(obs, np.random.default_rng(0))
        for obs in states
    ]
    assert np.mean(same) >= 0.9


def test_search_decisions_option() -> None:
    """A search limited to knock-or-go-on plays the heuristic's move at every draw; bad
    kinds are a ValueError that names the allowed ones."""
    states = _states(gin_v0.raw_env(), 60, seed=8)
    h = HeuristicAgent()
    knock_only = SearchAgent(budget=None, worlds=4, margin=0.0, decisions="knock")
    draws = 0
    for obs in states:
        if decode(obs).phase != 3:  # not a discard: the heuristic's move, never searched
            draws += 1
            rng = np.random.default_rng(0)
            assert knock_only.act(obs, rng) == h.act(obs, np.random.default_rng(0))
    assert draws > 10
    with pytest.raises(ValueError, match="draw, knock, discard"):
        SearchAgent(decisions="bluff")
