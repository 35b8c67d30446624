"""Melds and deadwood against an independent brute force (tests/helpers.py), hand-written
tricky hands, arrangements, discards, the ace-high table and, where it installs, OpenSpiel."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import (
    ACE_HIGH_MELDS_BF,
    GIN_MELDS_BF,
    brute_deadwood,
    cards_of,
    hand,
    is_real_meld,
    mask_of,
    meld_families,
    pips,
)

from gin_env.cards import parse_cards
from gin_env.melds import (
    GIN_MELDS,
    MeldTable,
    arrangements,
    best_arrangement,
    candidate_melds,
    deadwood,
    deadwood_mask,
    discard_deadwoods,
    is_meld,
    knock_discards,
    layoff_options,
)

SEED = 20240611
REPO_ROOT = Path(__file__).resolve().parents[1]
N_RANDOM = 2500  # per hand size


def random_hands(n_cards: int, count: int, seed: int) -> list[int]:
    rng = random.Random(seed * 100 + n_cards)
    return [mask_of(rng.sample(range(52), n_cards)) for _ in range(count)]


# -- the meld lists ----------------------------------------------------------------------


def test_meld_list_matches_brute_force_list():
    assert sorted(GIN_MELDS.melds) == GIN_MELDS_BF
    assert len(GIN_MELDS_BF) == 4 * 66 + 13 * 5


def test_ace_high_meld_list_matches_brute_force_list():
    table = MeldTable(ace_high=True)
    assert sorted(table.melds) == ACE_HIGH_MELDS_BF
    assert table.is_meld(hand("QS KS AS"))
    assert table.is_meld(hand("TH JH QH KH AH"))
    assert table.is_meld(hand("AD 2D 3D"))
    assert not table.is_meld(hand("KS AS 2S"))
    assert not table.is_meld(hand("QC KC AC 2C"))


@pytest.mark.parametrize(
    ("text", "meld"),
    [
        ("AS 2S 3S", True),
        ("QS KS AS", False),
        ("KS AS 2S", False),
        ("7S 7H 7D", True),
        ("7S 7H 7D 7C", True),
        ("7S 7H", False),
        ("7S 8S 9S TS JS QS KS", True),
        ("7S 8S TS", False),
        ("7S 8H 9S", False),
        ("7S 7H 8S", False),
    ],
)
def test_is_meld(text, meld):
    assert is_meld(hand(text)) is meld
    assert is_real_meld(hand(text)) is meld


# -- deadwood: tricky hands --------------------------------------------------------------

TRICKY = [
    ("", 0, "empty hand"),
    ("KS", 10, "one face card"),
    ("AS 2S 3S", 0, "A-2-3 is a run"),
    ("QS KS AS", 21, "Q-K-A is not a run"),
    ("KS AS 2S", 13, "no wrap-around"),
    ("5H 6H 7H 7S 7D", 11, "7H fits the set and the run; the set is better"),
    ("5H 6H 7H 7S 7D 8H", 14, "7H fits both; the run 5-8H is better"),
    ("7S 7H 7D 7C 5H 6H 8H", 0, "four of a kind against a run: set of three plus 5-8H"),
    ("7S 7H 7D 7C 5H 6H", 0, "four of a kind split: three sevens and 5-7H"),
    ("7S 7H 7D 7C 6H 8H 6D 8D", 14, "two runs through the sevens leave two sevens"),
    ("7S 7H 7D 7C 6H 8H 6D 8D 6C", 16, "sixes as a set, four sevens, eights left"),
    ("7S 7H 7D 7C 6H 8H 6D 8D 6C 8C", 0, "three runs through four sevens"),
    ("AS 2S 3S 4S AH AD", 0, "the ace goes to the set, 2-4S stays a run"),
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS", 0, "eleven-card gin in one run"),
    ("9S 9H 9D 9C TS JS QS TH JH QH KH", 0, "eleven-card gin: set of four and two runs"),
    ("AC 2C 3C 4C 4H 4D 4S 5S 6S 7S 8S", 0, "eleven-card gin, the fours shared"),
    ("JS QS KS JH QH KH JD QD KD JC QC", 0, "sets or runs of court cards"),
    ("TS JS QS KS TH", 10, "ten in a run or left over"),
    ("3S 4S 5S 6S 6H 6D", 0, "the six leaves the run for the set, 3-5S remains"),
    ("3S 4S 5S 6S 7S 5H 5D", 10, "5S stays in the run: a set would strand 3S 4S 6S 7S"),
]


@pytest.mark.parametrize(("text", "expected", "why"), TRICKY, ids=[t[2] for t in TRICKY])
def test_tricky_hands(text, expected, why):
    cards = parse_cards(text)
    assert brute_deadwood(mask_of(cards)) == expected, "the test's own brute force disagrees"
    assert deadwood(cards) == expected
    assert deadwood_mask(mask_of(cards)) == expected
    melds, dead = best_arrangement(mask_of(cards))
    assert_valid_arrangement(mask_of(cards), melds, dead, expected)


def test_deadwood_accepts_any_iterable():
    assert deadwood(iter(parse_cards("AS 2S 3S KD"))) == 10
    assert deadwood(set(parse_cards("AS 2S 3S KD"))) == 10
    assert deadwood(()) == 0


@pytest.mark.parametrize(
    ("cards", "message"),
    [([0, 0, 1], "cards must be distinct"), ([52], "card must be an int in 0..51, got 52"),
     (["AS"], "card must be an int in 0..51")],
)  # fmt: skip
def test_deadwood_refuses_bad_cards(cards, message):
    with pytest.raises(ValueError, match=message):
        deadwood(cards)


def test_large_hands():
    rng = random.Random(SEED)
    for n in (12, 14, 16, 20, 28):
        for _ in range(50):
            m = mask_of(rng.sample(range(52), n))
            assert deadwood_mask(m) == brute_deadwood(m), cards_of(m)
    assert deadwood(c for c in range(52) if c % 13 < 5) == 0


def test_full_deck_deadwood_is_fast():
    """DESIGN.md: ``deadwood`` of *any* iterable of cards. Set choices must not multiply out
    (6 choices per rank held four times: 6**13 for the whole deck)."""
    code = "from gin_env.melds import deadwood; print(deadwood(range(52)))"
    try:
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=REPO_ROOT,
            check=True,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("deadwood(range(52)) did not finish in 5 s")
    assert out.stdout.strip() == "0"


# -- deadwood: random hands --------------------------------------------------------------


@pytest.mark.parametrize("n_cards", [10, 11])
def test_deadwood_equals_brute_force_on_random_hands(n_cards):
    for m in random_hands(n_cards, N_RANDOM, SEED):
        assert deadwood_mask(m) == brute_deadwood(m), cards_of(m)


@pytest.mark.parametrize("n_cards", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
def test_deadwood_equals_brute_force_on_small_hands(n_cards):
    for m in random_hands(n_cards, 200, SEED):
        assert deadwood_mask(m) == brute_deadwood(m), cards_of(m)


def meldy_hands(n_cards: int, count: int, seed: int) -> list[int]:
    """Random hands drawn from a few ranks and neighbouring cards, rich in melds."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        ranks = rng.sample(range(13), 4)
        pool = [s * 13 + (r + d) % 13 for r in ranks for s in range(4) for d in (0, 1)]
        pool = sorted(set(pool))
        out.append(mask_of(rng.sample(pool, n_cards)))
    return out


@pytest.mark.parametrize("n_cards", [10, 11])
def test_deadwood_equals_brute_force_on_meld_rich_hands(n_cards):
    for m in meldy_hands(n_cards, 1500, SEED + n_cards):
        assert deadwood_mask(m) == brute_deadwood(m), cards_of(m)


# -- best arrangement --------------------------------------------------------------------


def assert_valid_arrangement(hand_mask: int, melds: list[int], dead: int, expected: int) -> None:
    used = 0
    for m in melds:
        assert is_real_meld(m), cards_of(m)
        assert m & used == 0, "melds overlap"
        used |= m
    assert used & dead == 0
    assert used | dead == hand_mask
    assert pips(dead) == expected


@pytest.mark.parametrize("n_cards", [10, 11])
def test_best_arrangement_is_valid_and_minimal(n_cards):
    hands = random_hands(n_cards, 600, SEED + 1) + meldy_hands(n_cards, 600, SEED + 2)
    for m in hands:
        melds, dead = best_arrangement(m)
        assert_valid_arrangement(m, melds, dead, brute_deadwood(m))


# -- eleven cards: discards and knocks ---------------------------------------------------


def test_discard_deadwoods_equals_deadwood_without_each_card():
    hands = random_hands(11, 800, SEED + 3) + meldy_hands(11, 800, SEED + 4)
    for m in hands:
        dws = discard_deadwoods(m)
        assert sorted(dws) == cards_of(m)
        for c, v in dws.items():
            without = m & ~(1 << c)
            assert v == deadwood_mask(without), (cards_of(m), c)
            assert v == brute_deadwood(without), (cards_of(m), c)


@pytest.mark.parametrize("limit", [0, 1, 5, 10])
def test_knock_discards(limit):
    for m in meldy_hands(11, 400, SEED + limit):
        expected = {
            c: brute_deadwood(m & ~(1 << c))
            for c in cards_of(m)
            if brute_deadwood(m & ~(1 << c)) <= limit
        }
        assert knock_discards(m, limit) == expected


def test_discard_deadwoods_hand_written():
    m = hand("AS 2S 3S 4S 7H 7D 7C KC QD 5S 6S")
    dws = discard_deadwoods(m)
    assert dws[parse_cards("KC")[0]] == 10  # A-6S, 7s; QD left
    assert dws[parse_cards("AS")[0]] == 20  # 2-6S still a run
    assert dws[parse_cards("4S")[0]] == 20 + 5 + 6  # breaks the run: A-3S; 5S 6S loose


# -- ace-high table ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("QS KS AS", 0),
        ("KS AS 2S", 13),
        ("AS 2S 3S", 0),
        ("QS KS AS 2S 3S", 5),
        ("JS QS KS AS 2S 3S", 0),
        ("QH KH AH AS AD", 2),
        ("KC AC 2C 3C", 10),
    ],
)
def test_ace_high_hand_written(text, expected):
    table = MeldTable(ace_high=True)
    m = hand(text)
    assert brute_deadwood(m, ACE_HIGH_MELDS_BF) == expected
    assert table.deadwood_mask(m) == expected
    assert table.deadwood(parse_cards(text)) == expected


@pytest.mark.parametrize("n_cards", [7, 10, 11])
def test_ace_high_equals_brute_force(n_cards):
    table = MeldTable(ace_high=True)
    rng = random.Random(SEED + n_cards)
    hands = random_hands(n_cards, 800, SEED + 5) + meldy_hands(n_cards, 400, SEED + 6)
    # Hands built around the top of a suit, where Q-K-A matters.
    for _ in range(400):
        top = [s * 13 + r for s in range(4) for r in (0, 1, 2, 10, 11, 12)]
        hands.append(mask_of(rng.sample(top, n_cards)))
    for m in hands:
        expected = brute_deadwood(m, ACE_HIGH_MELDS_BF)
        assert table.deadwood_mask(m) == expected, cards_of(m)
        melds, dead = table.best_arrangement(m)
        assert pips(dead) == expected
        assert all(m_ in ACE_HIGH_MELDS_BF for m_ in melds)
        assert mask_of_all(melds) | dead == m
        if n_cards == 11:
            for c, v in table.discard_deadwoods(m).items():
                assert v == brute_deadwood(m & ~(1 << c), ACE_HIGH_MELDS_BF)


def mask_of_all(masks: list[int]) -> int:
    out = 0
    for x in masks:
        assert not out & x
        out |= x
    return out


# -- arrangements and lay-off options ------------------------------------------------------


@pytest.mark.parametrize("limit", [0, 4, 10])
def test_arrangements_equal_brute_force_families(limit):
    rng = random.Random(SEED + limit)
    hands = meldy_hands(10, 150, SEED + 7) + [hand("AS 2S 3S 4S 5S 6S 7H 7D 7C 7S")]
    for m in rng.sample(hands, 100) + hands[-1:]:
        expected = {f for f in meld_families(m) if pips(m & ~mask_of_all(list(f))) <= limit}
        got = arrangements(m, limit)
        assert len(got) == len(set(got)), "an arrangement is listed twice"
        assert set(got) == expected


def test_candidate_melds_are_the_melds_inside():
    for m in meldy_hands(10, 200, SEED + 8):
        assert sorted(candidate_melds(m)) == [x for x in GIN_MELDS_BF if x & m == x]


def test_layoff_options_chain_and_set():
    run = hand("8H 9H TH")
    sevens = hand("7S 7D 7C")
    defender = hand("5H 6H 7H JH QH 2C")
    opts = set(layoff_options([run, sevens], defender))
    # Lay-offs: onto the run 7H, 7H+6H, 7H+6H+5H downwards, JH, JH+QH upwards; 7H onto 7s.
    expected_run = {0, hand("7H"), hand("7H 6H"), hand("7H 6H 5H")}
    expected_up = {0, hand("JH"), hand("JH QH")}
    expected = {d | u for d in expected_run for u in expected_up}
    expected |= {hand("7H") | u for u in expected_up}  # 7H onto the sevens instead
    assert opts == expected


def test_layoff_options_no_gap_and_no_four_of_a_kind():
    assert layoff_options([hand("8H 9H TH")], hand("6H QH")) == [0]
    assert layoff_options([hand("7S 7H 7D 7C")], hand("6S 8S")) == [0]
    assert set(layoff_options([hand("JC QC KC")], hand("AC TC"))) == {0, hand("TC")}
    assert set(layoff_options([hand("AD 2D 3D")], hand("KD 4D"))) == {0, hand("4D")}


# -- OpenSpiel, where it installs --------------------------------------------------------


def test_open_spiel_min_deadwood_agrees():
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    # OpenSpiel's suits are s, c, d, h; ours S, H, D, C. Its 11-card min_deadwood is the
    # best over the 11 discards.
    to_os = {0: 0, 1: 3, 2: 2, 3: 1}
    for n_cards in (10, 11):
        for m in random_hands(n_cards, 1000, SEED + 9) + meldy_hands(n_cards, 500, SEED + 10):
            os_hand = [to_os[c // 13] * 13 + c % 13 for c in cards_of(m)]
            ours = deadwood_mask(m) if n_cards == 10 else min(discard_deadwoods(m).values())
            assert utils.min_deadwood(os_hand) == ours, cards_of(m)
