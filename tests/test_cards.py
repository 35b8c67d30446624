"""Cards: text round trips, masks, pip values, and bad cards and decks."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gin_env.cards import (
    FULL_DECK,
    NUM_CARDS,
    card_str,
    cards_of_mask,
    cards_str,
    check_card,
    from_mask,
    make_card,
    mask_points,
    parse_card,
    parse_cards,
    points,
    rank,
    suit,
    to_mask,
)
from gin_env.config import ThreeHandedConfig
from gin_env.hand import GinHand, check_deck
from gin_env.match import GinMatch, ThreeHandedMatch


def test_card_numbering_is_suit_times_13_plus_rank():
    assert parse_card("AS") == 0
    assert parse_card("KS") == 12
    assert parse_card("AH") == 13
    assert parse_card("AD") == 26
    assert parse_card("KC") == 51
    for c in range(NUM_CARDS):
        assert c == suit(c) * 13 + rank(c)


@pytest.mark.parametrize("c", range(NUM_CARDS))
def test_text_round_trip(c):
    text = card_str(c)
    assert len(text) == 2
    assert parse_card(text) == c
    assert parse_card(text.lower()) == c


@pytest.mark.parametrize(
    ("text", "expected"),
    [("10S", "TS"), ("10h", "TH"), ("ts", "TS"), (" qd ", "QD"), ("aC", "AC"), ("Q♥", "QH")],
)
def test_parse_variants(text, expected):
    assert card_str(parse_card(text)) == expected


@pytest.mark.parametrize("text", ["1S", "XS", "", "10", "S", "AX", "ASS", "11S", "0S", "  "])
def test_bad_card_text_raises_quoting_it(text):
    with pytest.raises(ValueError) as err:
        parse_card(text)
    assert repr(text) in str(err.value)


@pytest.mark.parametrize("value", [None, 5, b"AS"])
def test_parse_card_of_non_str_raises(value):
    with pytest.raises(ValueError):
        parse_card(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, 5, ["AS", "2S"], b"AS 2S"])
def test_parse_cards_of_non_str_names_the_input_and_what_it_takes(value):
    with pytest.raises(ValueError, match="cards text must be a str") as err:
        parse_cards(value)  # type: ignore[arg-type]
    assert repr(value) in str(err.value)


def test_parse_cards_separators_and_duplicates():
    assert parse_cards("AS 2S, 3s") == [0, 1, 2]
    assert parse_cards("") == []
    with pytest.raises(ValueError, match="duplicate"):
        parse_cards("AS 2S as")
    with pytest.raises(ValueError, match="'ZZ'"):
        parse_cards("AS ZZ")


@pytest.mark.parametrize(
    ("text", "value"),
    [("AS", 1), ("2H", 2), ("9D", 9), ("TC", 10), ("JS", 10), ("QH", 10), ("KD", 10)],
)
def test_points(text, value):
    assert points(parse_card(text)) == value


def test_masks_round_trip():
    cards = parse_cards("KC AS 7H TD")
    mask = to_mask(cards)
    assert from_mask(mask) == sorted(cards)
    assert mask_points(mask) == 10 + 1 + 7 + 10
    assert cards_str(mask) == "AS 7H TD KC"
    assert cards_str(cards) == "KC AS 7H TD"
    assert to_mask([]) == 0 and from_mask(0) == [] and mask_points(0) == 0


def test_the_table_lookup_reads_a_mask_as_from_mask_does():
    rng = random.Random(7)
    masks = [0, FULL_DECK, 1, 1 << 51, *(rng.getrandbits(52) for _ in range(5000))]
    for mask in masks:
        assert cards_of_mask(mask) == tuple(from_mask(mask))


@pytest.mark.parametrize("bad", [-1, 52, 3.0, "3", True, None])
def test_check_card_rejects(bad):
    with pytest.raises(ValueError):
        check_card(bad)
    with pytest.raises(ValueError):
        card_str(bad)  # type: ignore[arg-type]


BAD_DECKS = {
    "short": list(range(51)),
    "long": list(range(52)) + [0],
    "duplicate": [0] + list(range(51)),
    "out of range": list(range(51)) + [52],
    "negative": [-1] + list(range(1, 52)),
    "empty": [],
}


@pytest.mark.parametrize("name", BAD_DECKS)
def test_bad_decks_raise(name):
    deck = BAD_DECKS[name]
    with pytest.raises(ValueError, match="deck"):
        check_deck(deck)
    with pytest.raises(ValueError):
        GinHand(deck)
    with pytest.raises(ValueError):
        ThreeHandedMatch(ThreeHandedConfig(), role_deck=deck)
    with pytest.raises(ValueError):
        ThreeHandedMatch(ThreeHandedConfig(), deal=lambda i: deck)
    with pytest.raises(ValueError):
        GinMatch(role_deck=deck)


def test_bad_dealer_raises():
    with pytest.raises(ValueError, match="dealer"):
        GinHand(list(range(52)), dealer=2)


# -- what is not a card or a hand is refused, never answered with nonsense ---------------
NOT_CARDS = [-1, 52, 100, 3.0, 2.5, "3", True, None, np.float32(1.9), np.array(3.0), [3]]


@pytest.mark.parametrize("bad", NOT_CARDS)
@pytest.mark.parametrize("helper", [rank, suit, points, card_str])
def test_card_helpers_refuse_non_cards(helper, bad):
    with pytest.raises(ValueError, match=r"card must be an int in 0\.\.51"):
        helper(bad)


@pytest.mark.parametrize("bad", [-1, 1 << 52, -(1 << 60), 1.5, True, "7", np.float64(3)])
@pytest.mark.parametrize("helper", [from_mask, mask_points, cards_str])
def test_mask_helpers_refuse_non_masks(helper, bad):
    # from_mask(-1) and cards_str(-1) used to loop forever
    if helper is cards_str and isinstance(bad, str):
        match = "card ints or a hand mask"
    else:
        match = "hand mask must be an int"
    with pytest.raises(ValueError, match=match):
        helper(bad)


@pytest.mark.parametrize(
    ("rank_", "suit_", "what"),
    [(13, 0, "rank"), (-1, 0, "rank"), (0, 4, "suit"), (0, -1, "suit"), (1.0, 0, "rank"),
     (True, 0, "rank"), (0, "S", "suit")],
)  # fmt: skip
def test_make_card_refuses_out_of_range(rank_, suit_, what):
    with pytest.raises(ValueError, match=f"^{what} must be an int"):
        make_card(rank_, suit_)


@pytest.mark.parametrize("bad", [[100], [-1], [52], [1.5], ["3"], [3, 3], [True]])
def test_to_mask_refuses_non_cards_and_repeats(bad):
    with pytest.raises(ValueError, match="card"):
        to_mask(bad)


@pytest.mark.parametrize("text", ["Aſ", "ＡS", "Aѕ", "ᴀS", "K\u0131", "AS\u0301", "\u2160S"])
def test_parse_card_refuses_lookalikes(text):
    # "ſ".upper() is "S": the long s must not read as the ace of spades
    with pytest.raises(ValueError, match="bad card"):
        parse_card(text)


def test_card_helpers_take_numpy_ints():
    assert rank(np.int64(13)) == 0 and suit(np.int8(51)) == 3 and points(np.int32(12)) == 10
    assert make_card(np.int64(0), np.int64(1)) == 13 and card_str(np.array(51)) == "KC"
    assert from_mask(np.int64(5)) == [0, 2] and cards_str(np.int64(5)) == "AS 3S"
    assert cards_str(np.array([0, 2])) == "AS 3S" and to_mask(np.array([0, 2])) == 5
    assert all(type(c) is int for c in from_mask(np.uint64(7)))
