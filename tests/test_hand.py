"""One gin hand as a state machine: decks built by hand, scripted actions, expected states."""

from __future__ import annotations

import copy

import pytest
from helpers import brute_showdown, hand, make_deck

from gin_env import actions as A
from gin_env.cards import parse_card
from gin_env.config import HandRules
from gin_env.hand import GinHand, Phase

# Non-dealer: 2-4S, 7-9H, three jacks and 5D: deadwood 5, so he can knock after any draw by
# discarding the card he drew.
KNOCKY = "2S 3S 4S 7H 8H 9H JC JD JS 5D"
# Dealer: no melds, nothing to lay off onto KNOCKY's melds; deadwood 65.
LOOSE = "AD 3D 9D 7C 9C QH KH 4C 2C TD"
SPADE_GIN = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS"
HEART_GIN = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH"


def c(text: str) -> int:
    return parse_card(text)


def new_hand(
    nondealer: str, dealer: str, upcard: str, stock: str = "", seat_of_dealer: int = 1, **rules
) -> GinHand:
    deck = make_deck(nondealer, dealer, upcard, stock)
    return GinHand(deck, HandRules(**rules), dealer=seat_of_dealer)


def discards(legal: list[int]) -> list[int]:
    return [a - A.DISCARD for a in legal if A.DISCARD <= a < A.KNOCK]


def knocks(legal: list[int]) -> list[int]:
    return [a - A.KNOCK for a in legal if A.KNOCK <= a < A.BIG_GIN]


# -- the deal ----------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1])
def test_deal_alternates_starting_with_the_non_dealer(dealer):
    deck = make_deck(KNOCKY, LOOSE, "KC", "QC JH")
    for i in range(20):
        assert deck[i] == parse_card((KNOCKY if i % 2 == 0 else LOOSE).split()[i // 2])
    h = GinHand(deck, dealer=dealer)
    assert h.dealer == dealer and h.nondealer == 1 - dealer
    assert h.hands[1 - dealer] == hand(KNOCKY)
    assert h.hands[dealer] == hand(LOOSE)
    assert h.upcard == c("KC") == h.top_discard
    assert h.discard_pile == [c("KC")]
    assert h.stock[:2] == [c("QC"), c("JH")]
    assert h.stock == deck[21:] and h.stock_size == 31
    assert h.phase is Phase.UPCARD_NONDEALER and h.current == 1 - dealer
    assert h.legal_actions() == [A.TAKE_DISCARD, A.PASS]


# -- the upcard offer --------------------------------------------------------------------


def test_non_dealer_takes_the_upcard():
    h = new_hand(KNOCKY, LOOSE, "KC", "QC")
    h.step(A.TAKE_DISCARD)
    assert h.phase is Phase.DISCARD and h.current == 0
    assert h.hands[0] == hand(KNOCKY + " KC") and h.discard_pile == []
    assert c("KC") not in discards(h.legal_actions()) + knocks(h.legal_actions())
    h.step(A.DISCARD + c("5D"))
    assert h.phase is Phase.DRAW and h.current == 1
    assert h.legal_actions() == [A.DRAW_STOCK, A.TAKE_DISCARD]
    assert h.top_discard == c("5D") and h.stock_size == 31


def test_dealer_takes_the_upcard_after_a_pass():
    h = new_hand(KNOCKY, LOOSE, "KC", "QC")
    h.step(A.PASS)
    assert h.phase is Phase.UPCARD_DEALER and h.current == 1
    assert h.legal_actions() == [A.TAKE_DISCARD, A.PASS]
    h.step(A.TAKE_DISCARD)
    assert h.phase is Phase.DISCARD and h.current == 1
    assert h.hands[1] == hand(LOOSE + " KC")
    h.step(A.DISCARD + c("AD"))
    # Then the non-dealer takes a normal turn, the dealer's discard on offer.
    assert h.phase is Phase.DRAW and h.current == 0
    assert h.legal_actions() == [A.DRAW_STOCK, A.TAKE_DISCARD]
    h.step(A.TAKE_DISCARD)
    assert h.hands[0] == hand(KNOCKY + " AD")


def test_both_pass_then_the_non_dealer_must_draw_from_the_stock():
    h = new_hand(KNOCKY, LOOSE, "KC", "QC")
    h.step(A.PASS)
    h.step(A.PASS)
    assert h.phase is Phase.DRAW and h.current == 0
    assert h.legal_actions() == [A.DRAW_STOCK]
    with pytest.raises(ValueError, match="DRAW"):
        h.step(A.TAKE_DISCARD)
    h.step(A.DRAW_STOCK)
    assert h.hands[0] == hand(KNOCKY + " QC") and h.stock_size == 30
    h.step(A.DISCARD + c("QC"))
    # The dealer may take the pile (QC) on his normal turn.
    assert h.legal_actions() == [A.DRAW_STOCK, A.TAKE_DISCARD]
    assert h.passed_upcard == [True, True]


def test_knock_on_the_upcard_offer():
    h = new_hand(KNOCKY, LOOSE, "4D", "QC")
    h.step(A.TAKE_DISCARD)
    assert A.KNOCK + c("5D") in h.legal_actions()
    h.step(A.KNOCK + c("5D"))
    r = h.result
    assert r is not None and h.phase is Phase.OVER and h.legal_actions() == []
    assert (r.kind, r.winner, r.knocker, r.points) == ("knock", 0, 0, 65 - 4)


# -- the card just taken -----------------------------------------------------------------


def test_card_taken_from_the_pile_cannot_be_discarded_by_default():
    h = new_hand(KNOCKY, LOOSE, "KC", "QC")
    h.step(A.PASS)
    h.step(A.PASS)
    h.step(A.DRAW_STOCK)
    h.step(A.DISCARD + c("5D"))
    h.step(A.TAKE_DISCARD)  # the dealer takes 5D
    assert h.taken == c("5D")
    assert c("5D") not in discards(h.legal_actions())
    assert len(discards(h.legal_actions())) == 10
    with pytest.raises(ValueError, match="discard 5D"):
        h.step(A.DISCARD + c("5D"))


def test_card_taken_can_be_discarded_with_the_option():
    h = new_hand(KNOCKY, LOOSE, "3C", "QC", allow_discard_of_taken_card=True)
    h.step(A.TAKE_DISCARD)
    legal = h.legal_actions()
    assert c("3C") in discards(legal) and len(discards(legal)) == 11
    assert c("3C") in knocks(legal)  # back to deadwood 5
    h.step(A.DISCARD + c("3C"))
    assert h.top_discard == c("3C")


def test_taken_card_ban_covers_the_knock():
    # Taking 6D: knocking needs a discard; 6D itself is banned even though deadwood allows it.
    h = new_hand(KNOCKY, LOOSE, "6D", "QC")
    h.step(A.TAKE_DISCARD)
    legal = h.legal_actions()
    assert c("6D") not in knocks(legal)
    assert knocks(legal) == [c("5D")]


# -- end of the stock and turn limits ----------------------------------------------------


def play_stock_turns(h: GinHand, turns: int) -> None:
    """Each turn: draw from the stock and discard the card drawn."""
    for _ in range(turns):
        assert h.legal_actions()[0] == A.DRAW_STOCK
        h.step(A.DRAW_STOCK)
        drawn = h.deck[h.stock_pos - 1]
        h.step(A.DISCARD + drawn)


def test_draw_when_a_discard_leaves_two_cards_in_the_stock():
    h = new_hand(KNOCKY, LOOSE, "KC")
    h.step(A.PASS)
    h.step(A.PASS)
    play_stock_turns(h, 28)
    assert not h.is_over and h.stock_size == 3 and h.current == 0
    h.step(A.DRAW_STOCK)
    assert h.stock_size == 2 and h.phase is Phase.DISCARD
    drawn = h.deck[h.stock_pos - 1]
    h.step(A.DISCARD + drawn)
    r = h.result
    assert r is not None and r.kind == "draw" and r.reason == "stock"
    assert r.winner is None and r.points == 0 and r.knocker is None
    assert h.turns == 29 and h.stock_size == 2


def test_knock_on_the_last_turn():
    h = new_hand(KNOCKY, LOOSE, "KC")
    h.step(A.PASS)
    h.step(A.PASS)
    play_stock_turns(h, 28)
    h.step(A.DRAW_STOCK)
    assert h.stock_size == 2
    drawn = h.deck[h.stock_pos - 1]
    assert drawn in knocks(h.legal_actions())
    h.step(A.KNOCK + drawn)
    r = h.result
    assert r is not None and r.kind == "knock" and r.winner == 0 and r.knocker == 0
    expected = brute_showdown(h.hands[0], h.hands[1])
    assert ("knock", r.points, 0) == expected


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_max_turns_per_hand(limit):
    h = new_hand(KNOCKY, LOOSE, "KC", max_turns_per_hand=limit)
    h.step(A.PASS)
    h.step(A.PASS)
    play_stock_turns(h, limit - 1)
    assert not h.is_over
    play_stock_turns(h, 1)
    r = h.result
    assert r is not None and r.kind == "draw" and r.reason == "max_turns" and h.turns == limit


def test_endless_pile_swapping_ends_at_the_turn_limit():
    h = new_hand(LOOSE, "AH 3H 5H 7S 9S QD KD 4S 6S TH", "KC")
    h.step(A.TAKE_DISCARD)
    while not h.is_over:
        if h.phase is Phase.DRAW:
            h.step(A.TAKE_DISCARD)
        else:
            h.step(h.legal_actions()[0])  # the lowest discard, never a knock
    r = h.result
    assert r is not None and r.kind == "draw" and r.reason == "max_turns"
    assert h.turns == 200 and h.stock_size == 31


# -- Oklahoma ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("upcard", "limit", "multiplier"),
    [("7D", 7, 1), ("AH", 0, 1), ("AS", 0, 2), ("5S", 5, 2), ("KS", 10, 2), ("TC", 10, 1),
     ("JH", 10, 1), ("2D", 2, 1)],
)  # fmt: skip
def test_oklahoma_knock_limit_and_multiplier(upcard, limit, multiplier):
    h = new_hand("2S 3S 4S 7H 8H 9H JC JD JS 8D", LOOSE.replace("TD", "QS"), upcard, "KC",
                 oklahoma=True, knock_limit=10)  # fmt: skip
    assert (h.knock_limit, h.multiplier) == (limit, multiplier)
    h.step(A.PASS)
    h.step(A.PASS)
    h.step(A.DRAW_STOCK)  # KC: the best discard leaves 8D, deadwood 8
    legal_knocks = knocks(h.legal_actions())
    assert (c("KC") in legal_knocks) is (limit >= 8)  # leaves 8D
    assert (c("8D") in legal_knocks) is (limit >= 10)  # leaves KC
    assert len(legal_knocks) == (limit >= 8) + (limit >= 10)


def test_oklahoma_spade_doubles_the_points():
    h = new_hand("2S 3S 4S 7H 8H 9H JC JD JS 8D", LOOSE, "8S", "KC", oklahoma=True)
    h.step(A.PASS)
    h.step(A.PASS)
    h.step(A.DRAW_STOCK)
    h.step(A.KNOCK + c("KC"))
    r = h.result
    assert r is not None and (r.kind, r.winner) == ("knock", 0)
    assert r.points == 2 * (65 - 8)
    assert r.showdown is not None and r.showdown.knocker_points == 65 - 8


def test_oklahoma_ace_upcard_is_gin_only():
    h = new_hand(SPADE_GIN, LOOSE, "AC", "KC", oklahoma=True)
    h.step(A.PASS)
    h.step(A.PASS)
    h.step(A.DRAW_STOCK)
    assert knocks(h.legal_actions()) == [c("KC")]
    h.step(A.KNOCK + c("KC"))
    assert h.result is not None and h.result.kind == "gin" and h.result.points == 25 + 65


# -- gin and big gin ---------------------------------------------------------------------


def test_gin_scores_bonus_plus_defender_deadwood():
    h = new_hand(SPADE_GIN, LOOSE, "KC", "QC")
    h.step(A.PASS)
    h.step(A.PASS)
    h.step(A.DRAW_STOCK)
    assert A.BIG_GIN not in h.legal_actions()
    h.step(A.KNOCK + c("QC"))
    r = h.result
    assert r is not None and (r.kind, r.winner, r.knocker, r.points) == ("gin", 0, 0, 25 + 65)
    assert r.final_hands == (hand(SPADE_GIN), hand(LOOSE))


def test_gin_with_zero_bonus_against_a_gin_defender_is_still_the_knockers():
    """A gin knocker never loses the hand: with ``gin_bonus=0`` against a defender with no
    deadwood he scores 0, and the defender must not become the hand's winner."""
    h = new_hand(SPADE_GIN, HEART_GIN, "KC", "QC", gin_bonus=0)
    h.step(A.PASS)
    h.step(A.PASS)
    h.step(A.DRAW_STOCK)
    h.step(A.KNOCK + c("QC"))
    r = h.result
    assert r is not None and r.kind == "gin" and r.points == 0
    assert r.winner == 0, "the defender is credited with the knocker's gin"


@pytest.mark.parametrize("bonus", [None, 31])
def test_big_gin_only_with_the_option(bonus):
    h = new_hand(SPADE_GIN, LOOSE, "KC", "JS", big_gin_bonus=bonus)
    h.step(A.PASS)
    h.step(A.PASS)
    h.step(A.DRAW_STOCK)  # JS: eleven spades in one run
    legal = h.legal_actions()
    assert (A.BIG_GIN in legal) is (bonus is not None)
    if bonus is None:
        with pytest.raises(ValueError, match="big-gin"):
            h.step(A.BIG_GIN)
        return
    h.step(A.BIG_GIN)
    r = h.result
    assert r is not None and (r.kind, r.winner, r.knocker) == ("big_gin", 0, 0)
    assert r.points == bonus + 65
    assert r.final_hands[0] == hand(SPADE_GIN + " JS")


# -- illegal actions ---------------------------------------------------------------------


def snapshot(h: GinHand) -> dict:
    h.legal_actions()  # fill the caches first: they may be part of the state
    return copy.deepcopy(h.__dict__)


@pytest.mark.parametrize(
    ("prefix", "action", "phase"),
    [
        ([], A.DRAW_STOCK, "UPCARD_NONDEALER"),
        ([], A.DISCARD + 0, "UPCARD_NONDEALER"),
        ([], A.NO_ADVICE, "UPCARD_NONDEALER"),
        ([A.PASS], A.DRAW_STOCK, "UPCARD_DEALER"),
        ([A.PASS, A.PASS], A.TAKE_DISCARD, "DRAW"),
        ([A.PASS, A.PASS], A.PASS, "DRAW"),
        ([A.PASS, A.PASS, A.DRAW_STOCK], A.DRAW_STOCK, "DISCARD"),
        ([A.PASS, A.PASS, A.DRAW_STOCK], A.DISCARD + 51, "DISCARD"),  # KC: not held
        ([A.PASS, A.PASS, A.DRAW_STOCK], A.KNOCK + 2, "DISCARD"),  # 3S: deadwood too high
        ([A.PASS, A.PASS, A.DRAW_STOCK], A.BIG_GIN, "DISCARD"),
    ],
)
def test_illegal_action_raises_and_changes_nothing(prefix, action, phase):
    h = new_hand(KNOCKY, LOOSE, "KC", "QC")
    for a in prefix:
        h.step(a)
    before = snapshot(h)
    with pytest.raises(ValueError) as err:
        h.step(action)
    message = str(err.value)
    assert str(action) in message and A.action_str(action) in message
    assert phase in message
    assert snapshot(h) == before
    # The hand goes on normally afterwards.
    h.step(h.legal_actions()[0])


@pytest.mark.parametrize("action", [-1, 109, 1000, "0", 1.0, None, True])
def test_malformed_action_raises_and_changes_nothing(action):
    h = new_hand(KNOCKY, LOOSE, "KC", "QC")
    before = snapshot(h)
    with pytest.raises(ValueError, match="action"):
        h.step(action)  # type: ignore[arg-type]
    assert snapshot(h) == before


def test_no_action_after_the_hand_is_over():
    h = new_hand(KNOCKY, LOOSE, "4D", "QC")
    h.step(A.TAKE_DISCARD)
    h.step(A.KNOCK + c("5D"))
    before = snapshot(h)
    for action in (A.DRAW_STOCK, A.PASS, A.DISCARD + c("4D")):
        with pytest.raises(ValueError, match="OVER"):
            h.step(action)
    assert snapshot(h) == before


def test_numpy_integer_actions_are_accepted():
    np = pytest.importorskip("numpy")
    h = new_hand(KNOCKY, LOOSE, "KC", "QC")
    h.step(np.int64(A.PASS))
    assert h.phase is Phase.UPCARD_DEALER
