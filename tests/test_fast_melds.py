"""The compiled rule kernels (gin_env.fast_melds) against the readable reference (gin_env.melds):
differential on many thousands of random and constructed hands, every knock limit 0..10 with
varied bonuses, the golden showdown cases, and bad input."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from gin_env import fast_melds as F
from gin_env.cards import parse_cards, to_mask
from gin_env.melds import ALL_MELDS, deadwood_mask, discard_deadwoods, showdown

GOLDEN = Path(__file__).resolve().parent / "golden" / "showdown.jsonl"
KINDS = {"knock": F.KNOCK, "undercut": F.UNDERCUT, "gin": F.GIN}


def mask(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def set_rich_hand(rng: random.Random, n_cards: int) -> int:
    """A hand of ``n_cards`` built mostly from ranks held three or four times (where the
    set enumeration matters) and pieces of runs, topped up with random cards."""
    hand = 0
    while hand.bit_count() < n_cards:
        room = n_cards - hand.bit_count()
        pick = rng.random()
        if pick < 0.5 and room >= 3:
            r = rng.randrange(13)
            suits = rng.sample(range(4), rng.choice((3, 4)) if room >= 4 else 3)
            hand |= mask([13 * s + r for s in suits])
        elif pick < 0.8 and room >= 3:
            s = rng.randrange(4)
            start = rng.randrange(11)
            length = min(rng.randint(3, 6), 13 - start, room)
            hand |= mask([13 * s + start + i for i in range(length)])
        else:
            hand |= 1 << rng.randrange(52)
    while hand.bit_count() > n_cards:  # overlaps may overshoot by a few
        cards = [c for c in range(52) if hand >> c & 1]
        hand &= ~(1 << rng.choice(cards))
    return hand


# -- deadwood -------------------------------------------------------------------------------


def test_deadwood_known_hands():
    assert F.deadwood_nb(0) == 0
    assert F.deadwood_nb(to_mask(parse_cards("AS 2S 3S 7H 7D 7C KC"))) == 10
    assert F.deadwood_nb(to_mask(parse_cards("QS KS AS"))) == 21  # no Q-K-A runs
    assert F.deadwood_nb(to_mask(parse_cards("5H 6H 7H 7S 7D 2C"))) == 13
    # 7H in the run or in the set, never both
    assert F.deadwood_nb(to_mask(parse_cards("5H 6H 7H 8H 7S 7D 7C"))) == 0
    assert F.deadwood_nb(to_mask(parse_cards("5H 6H 7H 7S 7D"))) == 11


@pytest.mark.parametrize("n_cards", range(12))
def test_deadwood_matches_reference_random(n_cards):
    rng = random.Random(1000 + n_cards)
    hands = [mask(rng.sample(range(52), n_cards)) for _ in range(3000)]
    hands += [set_rich_hand(rng, n_cards) for _ in range(1000)]
    got = F.deadwood_batch(np.array(hands, dtype=np.int64))
    expected = [deadwood_mask(h) for h in hands]
    assert got.tolist() == expected
    assert [F.deadwood_nb(h) for h in hands[:200]] == expected[:200]


def test_deadwood_big_hands_use_the_rank_search():
    """Hands with more than four ranks held three times take the rank-by-rank path."""
    rng = random.Random(7)
    hands = [set_rich_hand(rng, n) for n in range(12, 31) for _ in range(20)]
    hands += [mask(rng.sample(range(52), n)) for n in range(12, 31) for _ in range(10)]
    assert any(F._triple_ranks(h).bit_count() > F._MAX_SET_RANKS for h in hands)
    assert F.deadwood_batch(np.array(hands, dtype=np.int64)).tolist() == [
        deadwood_mask(h) for h in hands
    ]
    assert F.deadwood_nb((1 << 52) - 1) == 0  # the whole deck melds
    assert F.deadwood_nb(to_mask(parse_cards("AS 2S 3S AH 2H 3H AD 2D 3D AC 2C 3C KC"))) == 10


def test_tables_match_reference():
    assert tuple(int(m) for m in F.MELD_MASKS) == ALL_MELDS
    for p in range(0, 1 << 13, 37):
        assert F.RUN_DEADWOOD[p] == deadwood_mask(p)  # one suit: runs only


# -- discard deadwoods ----------------------------------------------------------------------


def reference_discards(hand: int) -> list[int]:
    out = [-1] * 52
    for card, value in discard_deadwoods(hand).items():
        out[card] = value
    return out


def test_discard_deadwoods_matches_reference():
    rng = random.Random(11)
    hands = [mask(rng.sample(range(52), 11)) for _ in range(4000)]
    hands += [set_rich_hand(rng, 11) for _ in range(2000)]
    hands += [set_rich_hand(rng, n) for n in (1, 4, 8, 12, 14) for _ in range(100)]
    hands.append(0)
    got = F.discard_deadwoods_batch(np.array(hands, dtype=np.int64))
    for i, h in enumerate(hands):
        assert got[i].tolist() == reference_discards(h), hex(h)
    out = np.zeros(52, dtype=np.int64)
    F.discard_deadwoods_nb(hands[1], out)
    assert out.tolist() == reference_discards(hands[1])


def test_discard_deadwoods_agrees_with_deadwood():
    """Discarding card c leaves the hand without c: the kernels agree with each other."""
    rng = random.Random(12)
    out = np.empty(52, dtype=np.int64)
    for _ in range(300):
        hand = set_rich_hand(rng, 11)
        F.discard_deadwoods_nb(hand, out)
        for c in range(52):
            expected = F.deadwood_nb(hand & ~(1 << c)) if hand >> c & 1 else -1
            assert out[c] == expected


# -- showdown -------------------------------------------------------------------------------


def knockable_pair(rng: random.Random, limit: int) -> tuple[int, int]:
    """(knocker, defender): 10 cards each, the knocker's deadwood <= ``limit``.

    At limit 10 a fifth come from plain random deals (kept when knockable); the rest
    have the knocker built from random melds and the defender dealt largely from cards beside
    those melds (run ends, the fourth card of sets) and from melds of his own, where lay-offs
    and undercuts happen.
    """
    if limit == 10 and rng.random() < 0.2:
        while True:
            deal = rng.sample(range(52), 20)
            knocker = mask(deal[:10])
            if deadwood_mask(knocker) <= limit:
                return knocker, mask(deal[10:])
    while True:
        knocker = 0
        while knocker.bit_count() < rng.choice((6, 7, 8, 9, 10)):
            meld = rng.choice(ALL_MELDS)
            if not meld & knocker and (knocker | meld).bit_count() <= 10:
                knocker |= meld
        while knocker.bit_count() < 10:
            knocker |= 1 << rng.randrange(52)
        if deadwood_mask(knocker) <= limit:
            break
    near = 0
    for c in range(52):
        if knocker >> c & 1:
            r = c % 13
            if r > 0:
                near |= 1 << (c - 1)
            if r < 12:
                near |= 1 << (c + 1)
            near |= sum(1 << (13 * s + r) for s in range(4))
    near &= ~knocker
    near_cards = [c for c in range(52) if near >> c & 1]
    defender = mask(rng.sample(near_cards, min(len(near_cards), rng.randint(0, 6))))
    for _ in range(rng.choice((0, 10, 30, 60))):
        meld = rng.choice(ALL_MELDS)
        if not meld & (knocker | defender) and (defender | meld).bit_count() <= 10:
            defender |= meld
    free = [c for c in range(52) if not (knocker | defender) >> c & 1]
    rng.shuffle(free)
    while defender.bit_count() < 10:
        defender |= 1 << free.pop()
    return knocker, defender


def reference_showdown(knocker, defender, limit, gin_bonus, undercut_bonus):
    sd = showdown(knocker, defender, limit, gin_bonus, undercut_bonus)
    return (
        KINDS[sd.kind],
        sd.knocker_points,
        sd.defender_points,
        sd.knocker_deadwood,
        sd.defender_deadwood,
    )


# (gin bonus, undercut bonus); a negative undercut bonus is no rule, but the answers agree too.
BONUSES = [
    (25, 10),
    (20, 10),
    (0, 0),
    (31, 25),
    (50, 1000),
    (1, 3),
    (25, -5),
]


@pytest.mark.parametrize("limit", range(11))
def test_showdown_matches_reference(limit):
    rng = random.Random(100 + limit)
    pairs = [knockable_pair(rng, limit) for _ in range(500)]
    kinds = set()
    for i, (knocker, defender) in enumerate(pairs):
        gin_bonus, undercut_bonus = BONUSES[i % len(BONUSES)]
        expected = reference_showdown(knocker, defender, limit, gin_bonus, undercut_bonus)
        got = F.showdown_nb(knocker, defender, limit, gin_bonus, undercut_bonus)
        assert got == expected, (hex(knocker), hex(defender), limit, gin_bonus, undercut_bonus)
        kinds.add(got[0])
    assert F.GIN in kinds
    if limit >= 4:
        assert kinds == {F.KNOCK, F.UNDERCUT, F.GIN}
    # the batch entry point gives the same rows
    knockers = np.array([k for k, _ in pairs[:50]], dtype=np.int64)
    defenders = np.array([d for _, d in pairs[:50]], dtype=np.int64)
    rows = F.showdown_batch(knockers, defenders, limit, 25, 10)
    assert [tuple(r) for r in rows.tolist()] == [
        reference_showdown(k, d, limit, 25, 10) for k, d in pairs[:50]
    ]


def test_showdown_blocking_arrangement():
    """The knocker leaves a meld unmelded (within the limit) to deny lay-offs."""
    knocker = to_mask(parse_cards("4H 5H 6H 7S 7D 7C AS 2S 3S 2D"))
    defender = to_mask(parse_cards("8H 9H 3H 7H KS KD KC QS QD JC"))
    expected = reference_showdown(knocker, defender, 10, 25, 10)
    assert F.showdown_nb(knocker, defender, 10, 25, 10) == expected


def golden_rows() -> list[dict]:
    with GOLDEN.open() as f:
        return [json.loads(line) for line in f if line.strip()]


def test_golden_showdowns():
    rows = golden_rows()
    assert len(rows) == 55
    for row in rows:
        knocker = to_mask(parse_cards(row["knocker"]))
        defender = to_mask(parse_cards(row["defender"]))
        got = F.showdown_nb(
            knocker, defender, row["knock_limit"], row["gin_bonus"], row["undercut_bonus"]
        )
        assert got[:3] == (KINDS[row["kind"]], row["knocker_points"], row["defender_points"]), row
        assert got == reference_showdown(
            knocker, defender, row["knock_limit"], row["gin_bonus"], row["undercut_bonus"]
        )


# -- bad input ------------------------------------------------------------------------------


def test_bad_input_is_a_value_error():
    with pytest.raises(ValueError, match="52-bit"):
        F.deadwood_nb(-1)
    with pytest.raises(ValueError, match="52-bit"):
        F.deadwood_nb(1 << 52)
    with pytest.raises(ValueError, match="52 entries"):
        F.discard_deadwoods_nb(7, np.zeros(51, dtype=np.int64))
    knocker = to_mask(parse_cards("AS 2S 3S 4H 5H 6H 7D 7C 7S KD"))
    defender = to_mask(parse_cards("5S 6S 8D 9D TD KH KC QH QS JS"))
    with pytest.raises(ValueError, match="knock_limit"):
        F.showdown_nb(knocker, defender, 9, 25, 10)
    with pytest.raises(ValueError, match="share cards"):
        F.showdown_nb(knocker, knocker, 10, 25, 10)
    assert F.showdown_nb(knocker, defender, 10, 25, 10) == reference_showdown(
        knocker, defender, 10, 25, 10
    )
