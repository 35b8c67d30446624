"""The gin showdown: scenario tables written as text, the golden cases in
``tests/golden/showdown.jsonl`` (worked cases of docs/RULES.md section 3, "Showdown"), and
an independent brute-force oracle on random knocks."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import brute_showdown, cards_of, hand, is_real_meld, mask_of, pips

from gin_env.melds import deadwood_mask, layoff_options, showdown

GOLDEN = Path(__file__).resolve().parent / "golden" / "showdown.jsonl"

# (name, knocker after his discard, defender, knock_limit, kind, knocker pts, defender pts)
SCENARIOS = [
    (
        "lay-off chain 7H then 6H onto 8H-9H-TH",
        "8H 9H TH 2S 2D 2C 5S 5D 5C AS",
        "7H 6H KS QS JD 9C 9S 4D 3C KD",
        10, "knock", 65 - 1, 0,
    ),
    (
        "6H cannot be laid off without 7H; 5H goes onto the fives",
        "8H 9H TH 2S 2D 2C 5S 5D 5C AS",
        "6H 5H KS QS JD 9C 9S 4D 3C KD",
        10, "knock", 71 - 1, 0,
    ),
    (
        "lay-off chain 5H 6H 7H onto 2H-3H-4H (or 7H onto the sevens)",
        "7S 7D 7C 2H 3H 4H JS QS KS AC",
        "7H 5H 6H 9C 9D TC TD 8S 3C AD",
        10, "knock", 50 - 1, 0,
    ),
    (
        "the defender keeps his own set of sevens rather than lay off 7H",
        "8H 9H TH 2S 2D 2C 5S 5D 5C AS",
        "7H 7S 7C 6H KS QS JD 9C 4D KD",
        10, "knock", 59 - 1, 0,
    ),
    (
        "gin: no lay-off of 5S, gin bonus plus all defender deadwood",
        "AS 2S 3S 4S 6H 6D 6C KH KD KC",
        "5S QH QD QC 7D 8D 9D JS JC 2H",
        10, "gin", 25 + 27, 0,
    ),
    (
        "gin against a defender with no deadwood: no undercut",
        "AS 2S 3S 4S 6H 6D 6C KH KD KC",
        "5S 6S 7S QH QD QC 7D 8D 9D TD",
        10, "gin", 25, 0,
    ),
    (
        "undercut at equal deadwood",
        "2S 3S 4S 8H 8D 8C JC QC KC 5D",
        "AH 2H 3H 9S 9D 9C 6S 7S 8S 5C",
        10, "undercut", 0, 10,
    ),
    (
        "undercut after the defender lays off 5S and 8S",
        "2S 3S 4S 8H 8D 8C JC QC KC 5D",
        "5S 8S AH 2H 3H 9S 9D 9C 2D AD",
        10, "undercut", 0, 10 + 5 - 3,
    ),
    (
        "best arrangement is not the minimum: 5H left as deadwood blocks 6H 7H",
        "2H 3H 4H 5H 8S 8D 8C AS AD 3C",
        "6H 7H QS QD JC JS KC 9S 4S 6C",
        10, "knock", 82 - 10, 0,
    ),
    (
        "knock limit 9 forbids the blocking arrangement",
        "2H 3H 4H 5H 8S 8D 8C AS AD 3C",
        "6H 7H QS QD JC JS KC 9S 4S 6C",
        9, "knock", 82 - 13 - 5, 0,
    ),
    (
        "knock limit 0: gin is still gin",
        "AS 2S 3S 4S 6H 6D 6C KH KD KC",
        "5S QH QD QC 7D 8D 9D JS JC 2H",
        0, "gin", 25 + 27, 0,
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "knocker", "defender", "limit", "kind", "k_pts", "d_pts"),
    SCENARIOS,
    ids=[s[0] for s in SCENARIOS],
)
def test_scenarios(name, knocker, defender, limit, kind, k_pts, d_pts):
    k, d = hand(knocker), hand(defender)
    assert brute_showdown(k, d, limit) == (kind, k_pts, d_pts), "the test oracle disagrees"
    sd = showdown(k, d, limit)
    assert (sd.kind, sd.knocker_points, sd.defender_points) == (kind, k_pts, d_pts), sd.describe()
    assert_consistent(sd, k, d, limit)


def test_blocking_arrangement_is_reported():
    sd = showdown(hand("2H 3H 4H 5H 8S 8D 8C AS AD 3C"), hand("6H 7H QS QD JC JS KC 9S 4S 6C"))
    assert sd.knocker_deadwood == 10
    assert sd.knocker_deadwood_cards == hand("5H AS AD 3C")
    assert sd.layoffs == 0
    assert deadwood_mask(hand("2H 3H 4H 5H 8S 8D 8C AS AD 3C")) == 5


def test_bonuses_are_options():
    gin = showdown(
        hand("AS 2S 3S 4S 6H 6D 6C KH KD KC"), hand("5S QH QD QC 7D 8D 9D JS JC 2H"), gin_bonus=20
    )
    assert (gin.kind, gin.knocker_points) == ("gin", 20 + 27)
    under = showdown(
        hand("2S 3S 4S 8H 8D 8C JC QC KC 5D"),
        hand("5S 8S AH 2H 3H 9S 9D 9C 2D AD"),
        undercut_bonus=25,
    )
    assert (under.kind, under.defender_points) == ("undercut", 25 + 2)


def test_knock_limit_0_refuses_any_deadwood():
    with pytest.raises(ValueError, match="knock_limit"):
        showdown(hand("8H 9H TH 2S 2D 2C 5S 5D 5C AS"), hand("KS QS JD 9C 9S 4D 3C KD 7H 6H"), 0)


def test_knock_over_the_limit_raises():
    with pytest.raises(ValueError, match="knock_limit"):
        showdown(hand("8H 9H TH 2S 2D 2C 5S 5D 5C JS"), hand("KS QS JD 9C 9S 4D 3C KD 7H 6H"), 9)


def assert_consistent(sd, knocker: int, defender: int, limit: int) -> None:
    """The reported arrangements are real, partition the hands and give the deadwoods."""
    used = 0
    for m in sd.knocker_melds:
        assert is_real_meld(m) and not m & used
        used |= m
    assert used | sd.knocker_deadwood_cards == knocker and not used & sd.knocker_deadwood_cards
    assert pips(sd.knocker_deadwood_cards) == sd.knocker_deadwood <= limit
    used = 0
    for m in sd.defender_melds:
        assert is_real_meld(m) and not m & used
        used |= m
    parts = (used, sd.layoffs, sd.defender_deadwood_cards)
    assert parts[0] | parts[1] | parts[2] == defender
    assert sum(bin(p).count("1") for p in parts) == bin(defender).count("1")
    assert pips(sd.defender_deadwood_cards) == sd.defender_deadwood
    if sd.kind == "gin":
        assert sd.knocker_deadwood == 0 and sd.layoffs == 0
    else:
        assert sd.layoffs in layoff_options(sd.knocker_melds, defender)


# -- golden cases ------------------------------------------------------------------------


def golden_rows() -> list[dict]:
    with GOLDEN.open() as f:
        return [json.loads(line) for line in f if line.strip()]


ROWS = golden_rows()


def test_golden_file_present():
    assert len(ROWS) == 55
    tags = {t for r in ROWS for t in r.get("tags", [])}
    assert {"gin", "knock", "undercut"} <= tags


@pytest.mark.parametrize(
    "row", ROWS, ids=[f"{i}-{'-'.join(r.get('tags', []))}" for i, r in enumerate(ROWS)]
)
def test_golden_showdown(row):
    k, d = hand(row["knocker"]), hand(row["defender"])
    options = (row["knock_limit"], row["gin_bonus"], row["undercut_bonus"])
    expected = (row["kind"], row["knocker_points"], row["defender_points"])
    sd = showdown(k, d, *options)
    assert (sd.kind, sd.knocker_points, sd.defender_points) == expected, sd.describe()
    assert_consistent(sd, k, d, row["knock_limit"])
    assert brute_showdown(k, d, *options) == expected, "the test oracle disagrees with golden"


# -- random knocks against the oracle ----------------------------------------------------


def random_knocks(count: int, seed: int, limit: int) -> list[tuple[int, int]]:
    """Pairs (knocker, defender) of 10 cards each, knocker's deadwood <= ``limit``.

    Some from plain random deals (kept when knockable: half of them at limit 10, fewer at
    lower limits, where they are rare), the rest with the knocker built from two random
    melds and the defender dealt from cards near them, where lay-offs happen.
    (The engine's fast ``deadwood_mask`` only filters inputs here; the oracle judges.)
    """
    rng = random.Random(seed)
    out: list[tuple[int, int]] = []
    while len(out) < (count // 2 if limit >= 10 else count // 10):
        deal = rng.sample(range(52), 20)
        k, d = mask_of(deal[:10]), mask_of(deal[10:])
        if deadwood_mask(k) <= limit:
            out.append((k, d))
    while len(out) < count:
        k = 0
        for _ in range(2):
            r, s = rng.randrange(13), rng.randrange(4)
            if rng.random() < 0.5:
                length = rng.choice((3, 4))
                start = min(r, 13 - length)
                k |= mask_of(13 * s + x for x in range(start, start + length))
            else:
                k |= mask_of(13 * t + r for t in rng.sample(range(4), 3))
        free = [c for c in range(52) if not k >> c & 1]
        low = [c for c in free if c % 13 < 5]
        while bin(k).count("1") < 10:
            k |= 1 << rng.choice(low if rng.random() < 0.7 else free)
        if bin(k).count("1") != 10 or deadwood_mask(k) > limit:
            continue
        near = {c + dx for c in cards_of(k) for dx in (-2, -1, 1, 2) if (c + dx) // 13 == c // 13}
        near |= {13 * t + c % 13 for c in cards_of(k) for t in range(4)}
        near_free = sorted(c for c in near if 0 <= c < 52 and not k >> c & 1)
        rest = [c for c in range(52) if not k >> c & 1]
        n_near = min(len(near_free), rng.randrange(3, 8))
        dcards = rng.sample(near_free, n_near)
        dcards += rng.sample([c for c in rest if c not in dcards], 10 - n_near)
        out.append((k, mask_of(dcards)))
    return out


@pytest.mark.parametrize("limit", [10, 5])
def test_showdown_equals_brute_force_on_random_knocks(limit):
    for k, d in random_knocks(300, 7 + limit, limit):
        expected = brute_showdown(k, d, limit)
        sd = showdown(k, d, limit)
        assert (sd.kind, sd.knocker_points, sd.defender_points) == expected, (
            cards_of(k),
            cards_of(d),
            sd.describe(),
        )
        assert_consistent(sd, k, d, limit)
