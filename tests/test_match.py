"""Matches: three-handed roles, dealing, scoring and advice over scripted hands; two-player
dealer rules; and invariants, replay and determinism over many random matches."""

from __future__ import annotations

import dataclasses
import random
import time

import pytest
from helpers import knocky_policy, make_deck, random_deck

from gin_env import actions as A
from gin_env.cards import parse_card, parse_cards
from gin_env.config import GinConfig, ThreeHandedConfig
from gin_env.hand import Phase
from gin_env.match import (
    ADVISER,
    BOX,
    CAPTAIN,
    GinMatch,
    ThreeHandedMatch,
    draw_for_order,
)

SPADE_GIN = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS"
HEART_GIN = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH"
# Both players hold gin; the stock starts QC JC. Seat 0 = non-dealer, seat 1 = dealer.
GIN_DECK = make_deck(SPADE_GIN, HEART_GIN, "KC", "QC JC")
QC, JC = parse_card("QC"), parse_card("JC")
SCRIPTS = {
    # the non-dealer (captain) draws QC and goes gin
    "nondealer": [A.PASS, A.PASS, A.DRAW_STOCK, A.KNOCK + QC],
    # the non-dealer throws QC; the dealer (box) draws JC and goes gin
    "dealer": [A.PASS, A.PASS, A.DRAW_STOCK, A.DISCARD + QC, A.DRAW_STOCK, A.KNOCK + JC],
    # two plain turns reach max_turns_per_hand=2: a draw
    "draw": [A.PASS, A.PASS, A.DRAW_STOCK, A.DISCARD + QC, A.DRAW_STOCK, A.DISCARD + JC],
}
SCRIPTED = {"max_turns_per_hand": 2, "target_score": 10_000}


def role_deck(first: str) -> list[int]:
    head = parse_cards(first)
    return head + [c for c in range(52) if c not in head]


# -- the initial draw for roles ----------------------------------------------------------


def test_role_draw_highest_is_box():
    m = ThreeHandedMatch(role_deck=role_deck("5S KS 2S"), deal=lambda i: GIN_DECK)
    assert (m.box, m.captain, m.adviser) == (1, 0, 2)
    assert m.role_draws == [(0, parse_card("5S")), (1, parse_card("KS")), (2, parse_card("2S"))]
    assert m.record.roles == (CAPTAIN, BOX, ADVISER)


def test_role_draw_ties_are_redrawn_among_the_tied():
    # players 0 and 1 tie on kings; they draw again (5H, 9D): 1 is box, 0 captain.
    m = ThreeHandedMatch(role_deck=role_deck("KS KH 2S 5H 9D"), deal=lambda i: GIN_DECK)
    assert (m.box, m.captain, m.adviser) == (1, 0, 2)
    assert [p for p, _ in m.role_draws] == [0, 1, 2, 0, 1]
    # a tie for the lower places: 1 and 2 draw again
    order, draws = draw_for_order(role_deck("KS 4H 4D 3C 7C"), (0, 1, 2))
    assert order == [0, 2, 1] and [p for p, _ in draws] == [0, 1, 2, 1, 2]
    # a three-way tie, then a tie of two again
    order, draws = draw_for_order(role_deck("7S 7H 7D 2S 2H AC 3C 4C"), (0, 1, 2))
    assert [p for p, _ in draws] == [0, 1, 2, 0, 1, 2, 0, 1]
    assert order == [1, 0, 2]


# -- scripted three-handed hands ---------------------------------------------------------


def play_scripted_hand(m: ThreeHandedMatch, script: list[int], advise_with=None):
    """Play one scripted hand, checking who acts and what the adviser may suggest."""
    record = None
    for action in script:
        assert record is None
        seat = m.hand.current
        if m.advice and seat == 0:
            assert m.advising and m.current_player == m.adviser
            assert m.legal_actions() == sorted(m.hand.legal_actions() + [A.NO_ADVICE])
            advice = A.NO_ADVICE if advise_with is None else advise_with(action)
            assert m.step(advice) is None
            assert m.suggestion == advice
        assert not m.advising
        expected_player = m.captain if seat == 0 else m.box
        assert m.current_player == expected_player
        record = m.step(action)
    assert record is not None
    return record


def test_role_rotation_dealing_and_scoring():
    m = ThreeHandedMatch(ThreeHandedConfig(**SCRIPTED), role_deck("5S KS 2S"), lambda i: GIN_DECK)
    box, captain, adviser = 1, 0, 2
    scores = [0, 0, 0]
    sequence = ["dealer", "nondealer", "draw", "nondealer", "dealer", "dealer", "draw"] * 2
    for i, outcome in enumerate(sequence):
        assert (m.box, m.captain, m.adviser) == (box, captain, adviser), (i, outcome)
        assert m.record.players == (captain, box)  # seat 0 the captain, seat 1 the box dealer
        assert m.hand.dealer == 1
        roles = [0, 0, 0]
        roles[box], roles[captain], roles[adviser] = BOX, CAPTAIN, ADVISER
        assert m.record.roles == tuple(roles)
        assert m.role_of(adviser) == ADVISER
        record = play_scripted_hand(m, SCRIPTS[outcome], advise_with=lambda a: a)
        assert record.index == i
        result = record.result
        if outcome == "dealer":
            assert result.winner == 1 and result.kind == "gin"
            scores[box] += 25
            captain, adviser = adviser, captain
        elif outcome == "nondealer":
            assert result.winner == 0 and result.kind == "gin"
            scores[captain] += 25
            box, captain, adviser = captain, adviser, box
        else:
            assert result.winner is None and result.kind == "draw"
        assert m.scores == scores
        assert record.scores_after == tuple(scores)
    assert len(m.history) == len(sequence) + 1


def test_adviser_never_scores():
    m = ThreeHandedMatch(ThreeHandedConfig(**SCRIPTED), role_deck("5S KS 2S"), lambda i: GIN_DECK)
    for outcome in ["nondealer", "dealer", "nondealer", "nondealer", "dealer"] * 3:
        adviser, before = m.adviser, list(m.scores)
        record = play_scripted_hand(m, SCRIPTS[outcome])
        assert m.scores[adviser] == before[adviser]
        scorer = record.players[record.result.winner]
        assert [m.scores[p] - before[p] for p in range(3)] == [
            25 if p == scorer else 0 for p in range(3)
        ]


def test_advice_off_has_no_adviser_turns():
    m = ThreeHandedMatch(
        ThreeHandedConfig(**SCRIPTED, adviser="none"), role_deck("5S KS 2S"), lambda i: GIN_DECK
    )
    for outcome in ["dealer", "nondealer", "draw"]:
        for action in SCRIPTS[outcome]:
            assert not m.advising
            assert m.current_player in (m.captain, m.box)
            assert A.NO_ADVICE not in m.legal_actions()
            m.step(action)
    for rec in m.history:
        adviser = rec.roles.index(ADVISER)
        assert all(p != adviser for p, _ in rec.actions)


def test_advice_is_recorded_and_bad_advice_raises():
    m = ThreeHandedMatch(ThreeHandedConfig(**SCRIPTED), role_deck("5S KS 2S"), lambda i: GIN_DECK)
    assert m.advising and m.current_player == 2
    for bad in (A.DRAW_STOCK, A.DISCARD + 0, 109):
        with pytest.raises(ValueError):
            m.step(bad)
    assert m.advising and m.record.actions == [] and m.suggestion is None
    m.step(A.PASS)
    assert m.suggestion == A.PASS and not m.advising and m.current_player == 0
    m.step(A.TAKE_DISCARD)  # the captain decides otherwise
    assert m.record.actions == [(2, A.PASS), (0, A.TAKE_DISCARD)]
    assert m.suggestion is None and m.advising  # fresh advice for the next decision


def test_match_ends_at_target_score():
    m = ThreeHandedMatch(
        ThreeHandedConfig(max_turns_per_hand=2, target_score=50),
        role_deck("5S KS 2S"),
        lambda i: GIN_DECK,
    )
    for outcome in ["dealer", "draw", "dealer"]:
        play_scripted_hand(m, SCRIPTS[outcome])
    assert m.is_over and m.winner == 1 and m.scores == [0, 50, 0]
    assert m.legal_actions() == [] and m.current_player is None
    with pytest.raises(ValueError, match="over"):
        m.step(A.PASS)


# -- two-player dealer rules -------------------------------------------------------------


@pytest.mark.parametrize("rule", ["alternate", "winner", "loser", "alternate_scored"])
def test_gin_match_dealer_rule(rule):
    m = GinMatch(GinConfig(dealer_rule=rule, **SCRIPTED), role_deck("KS 5S"), lambda i: GIN_DECK)
    dealer = 1  # the lower card deals first
    scores = [0, 0]
    for outcome in ["nondealer", "dealer", "draw", "dealer", "nondealer", "draw", "nondealer"]:
        assert m.dealer == dealer
        assert m.record.players == (1 - dealer, dealer)
        record = None
        for action in SCRIPTS[outcome]:
            assert m.current_player == record_player(dealer, m.hand.current)
            record = m.step(action)
        assert record is not None
        winner = {"nondealer": 1 - dealer, "dealer": dealer, "draw": None}[outcome]
        if winner is not None:
            scores[winner] += 25
        assert m.scores == scores
        if rule == "alternate" or (rule == "alternate_scored" and winner is not None):
            dealer = 1 - dealer
        elif winner is not None and rule != "alternate_scored":
            dealer = winner if rule == "winner" else 1 - winner


def test_hollywood_scores_three_games_at_once():
    # Every hand is a gin for 25; to 50, one player's wins close a game every second win.
    config = GinConfig(hollywood=True, dealer_rule="alternate", **{**SCRIPTED, "target_score": 50})
    m = GinMatch(config, role_deck("KS 5S"), lambda i: GIN_DECK)
    expected = [  # winner, games after, game winners after, scores after
        (0, [[25, 0], [0, 0], [0, 0]], [None, None, None], [25, 0]),
        (None, [[25, 0], [0, 0], [0, 0]], [None, None, None], [25, 0]),  # a draw
        # his second win counts in games 1 and 2, and closes game 1
        (0, [[50, 0], [25, 0], [0, 0]], [0, None, None], [25, 0]),
        # the other's first win goes to the first game still open
        (1, [[50, 0], [25, 25], [0, 0]], [0, None, None], [25, 25]),
        (1, [[50, 0], [25, 50], [0, 25]], [0, 1, None], [0, 25]),
        (0, [[50, 0], [25, 50], [25, 25]], [0, 1, None], [25, 25]),
        (0, [[50, 0], [25, 50], [50, 25]], [0, 1, 0], [50, 25]),
    ]
    for winner, games, winners, scores in expected:
        assert not m.is_over
        outcome = "draw" if winner is None else "dealer" if winner == m.dealer else "nondealer"
        for action in SCRIPTS[outcome]:
            m.step(action)
        assert (m.games, m.game_winners, m.scores) == (games, winners, scores)
        # The hand's record carries the games as they stood after it (the score sheet's row).
        done = [r for r in m.history if r.result is not None][-1]
        assert done.games_after == tuple(tuple(g) for g in games)
    assert m.is_over and m.winner == 0  # two games of three
    assert m.standings() == {"scores": [50, 25], "games": games, "game_winners": winners}
    plain = GinMatch(GinConfig(**{**SCRIPTED, "target_score": 50}), deal=lambda i: GIN_DECK)
    assert plain.standings() == {"scores": [0, 0]}
    for action in SCRIPTS["dealer"]:
        plain.step(action)
    assert plain.history[0].games_after == ()


def record_player(dealer: int, seat: int) -> int:
    return dealer if seat == 1 else 1 - dealer


# -- random matches ----------------------------------------------------------------------


def play_random_match(seed: int, config, cls=ThreeHandedMatch, check: bool = True):
    rng = random.Random(seed)
    decks = random.Random(seed + 1)
    deal_cache: dict[int, list[int]] = {}

    def deal(i: int) -> list[int]:
        while len(deal_cache) <= i:
            deal_cache[len(deal_cache)] = random_deck(decks)
        return deal_cache[i]

    if cls is not GinMatch and rng.random() >= 0.5:
        config = dataclasses.replace(config, adviser="none")
    m = cls(config, random_deck(rng), deal)
    hollywood = getattr(config, "hollywood", False)
    multiples = (1, 2, 3) if hollywood else (1,)  # a Hollywood win counts in up to 3 games

    def tally() -> list[int]:
        return [sum(g[p] for g in m.games) for p in (0, 1)] if hollywood else list(m.scores)

    steps = 0
    while not m.is_over:
        legal = m.legal_actions()
        assert legal, "no legal action while the match is on"
        if check:
            check_cards(m)
        hand = m.hand
        dws = hand.discard_deadwoods() if hand.phase is Phase.DISCARD else None
        action = knocky_policy(legal, rng, dws)
        before = tally()
        record = m.step(action)
        steps += 1
        assert steps < 100_000, "match does not end"
        after = tally()
        if record is None:
            assert after == before
        else:
            r = record.result
            for p in range(len(before)):
                gained = after[p] - before[p]
                if r.winner is not None and p == record.players[r.winner]:
                    assert gained in [r.points * k for k in multiples]
                else:
                    assert gained == 0
            if cls is ThreeHandedMatch:
                assert record.roles[record.players[0]] == CAPTAIN
                assert record.roles[record.players[1]] == BOX
    assert m.winner is not None
    for scores in m.games if hollywood else [m.scores]:
        assert sum(s >= config.target_score for s in scores) == 1
    return m


def check_cards(m) -> None:
    h = m.hand
    parts = [h.hands[0], h.hands[1]]
    for c in h.stock + h.discard_pile:
        parts.append(1 << c)
    total = 0
    for p in parts:
        assert not total & p, "a card is in two places"
        total |= p
    assert total == (1 << 52) - 1, "a card is missing"
    assert h.stock_size > 2 or h.phase is Phase.DISCARD


def match_summary(m) -> list:
    return [rec.to_dict() for rec in m.history] + [m.scores, m.winner]


N_MATCHES = 500


def test_random_three_handed_matches():
    start = time.perf_counter()
    kinds = set()
    for seed in range(N_MATCHES):
        target = 100 if seed % 10 == 0 else 40
        config = ThreeHandedConfig(
            target_score=target,
            knock_limit=random.Random(seed).choice([10, 10, 7, 0]),
            oklahoma=seed % 7 == 3,
            big_gin_bonus=31 if seed % 5 == 1 else None,
            allow_discard_of_taken_card=seed % 11 == 4,
            max_turns_per_hand=200 if seed % 13 else 40,
        )
        m = play_random_match(seed, config, check=seed % 4 == 0)
        kinds |= {rec.result.kind for rec in m.history if rec.result is not None}
        if seed % 5 == 0:
            replayed = ThreeHandedMatch.replay(m.config, m.role_deck, m.history)
            assert match_summary(replayed) == match_summary(m)
        if seed % 25 == 0:
            again = play_random_match(seed, config, check=False)
            assert match_summary(again) == match_summary(m)
    assert {"knock", "gin", "undercut", "draw"} <= kinds
    assert time.perf_counter() - start < 120


def test_random_gin_matches():
    for seed in range(20):
        rule = ("alternate", "winner", "loser")[seed % 3]
        config = GinConfig(dealer_rule=rule, target_score=60, hollywood=seed % 2 == 1)
        m = play_random_match(seed, config, cls=GinMatch)
        replayed = GinMatch.replay(config, m.role_deck, m.history)
        assert match_summary(replayed) == match_summary(m)
        assert replayed.standings() == m.standings()
        if config.hollywood:
            # Every game closed by its winner alone, and the match to whoever won two.
            for (a, b), w in zip(m.games, m.game_winners, strict=True):
                assert w is not None and [a, b][w] >= 60 > [a, b][1 - w]
            assert m.game_winners.count(m.winner) >= 2


def test_replay_detects_a_wrong_history():
    config = ThreeHandedConfig(target_score=40)
    m = play_random_match(3, config, check=False)
    history = m.history
    other = [
        type(rec)(rec.index, rec.deck, rec.players, rec.roles, list(rec.actions)) for rec in history
    ]
    player, action = other[0].actions[0]
    other[0].actions[0] = ((player + 1) % 3, action)
    with pytest.raises(ValueError, match="replay diverged"):
        ThreeHandedMatch.replay(m.config, m.role_deck, other)
