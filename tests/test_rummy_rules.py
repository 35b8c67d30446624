"""Rules of basic rummy (docs/RULES.md section 5): scenarios over text hands, options,
invariants."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from gin_env import rummy_actions as ra
from gin_env.cards import card_str, mask_points, parse_card, parse_cards, to_mask
from gin_env.rummy import HandResult, Phase, RummyConfig, RummyGame, deal_size, stacked_deck

ROOT = Path(__file__).resolve().parents[1]


def new_game(hands: list[str], upcard: str, stock: str = "", **options: object) -> RummyGame:
    game = RummyGame(RummyConfig(num_players=len(hands), **options))  # type: ignore[arg-type]
    game.start_hand(stacked_deck(hands, upcard, stock))
    return game


def play(game: RummyGame, script: str) -> None:
    """Replay lines like ``0: draw, meld 5H 6H 7H, discard KS`` (seat: actions of a turn)."""
    for line in script.strip().splitlines():
        seat, actions = line.split(":")
        for text in actions.split(","):
            assert game.current == int(seat), f"{text!r}: seat {game.current} is to act"
            game.step(ra.parse_action(text))


def hand(game: RummyGame, seat: int) -> int:
    return game.hands[seat]


def mask(text: str) -> int:
    return to_mask(parse_cards(text))


def snapshot(game: RummyGame) -> tuple[object, ...]:
    return (
        list(game.hands),
        list(game.stock),
        list(game.discard_pile),
        [vars(m).copy() for m in game.table],
        game.phase,
        game.current,
        game.taken_card,
        list(game.legal_actions()),
        len(game.history),
    )


# -- action layout ---------------------------------------------------------------------------


def test_every_action_id_round_trips() -> None:
    assert ra.NUM_ACTIONS == 527 and ra.NUM_MELDS == 369
    for a in range(ra.NUM_ACTIONS):
        kind, value = ra.decode(a)
        assert ra.encode(kind, value) == a
        assert ra.parse_action(ra.action_str(a)) == a
    for bad in (-1, ra.NUM_ACTIONS, "x"):
        with pytest.raises(ValueError):
            ra.decode(bad)  # type: ignore[arg-type]


def test_named_offsets_match_the_table() -> None:
    assert (ra.DRAW_STOCK, ra.TAKE_DISCARD, ra.DISCARD) == (0, 1, 2)
    assert (ra.MELD, ra.LAY_OFF_SET, ra.LAY_OFF_RUN) == (54, 423, 475)
    assert ra.decode(ra.meld(mask("QS KS AS"))) == ("meld", mask("QS KS AS"))
    with pytest.raises(ValueError, match="not a meld"):
        ra.meld(mask("KS AS 2S"))  # never K-A-2


def test_rules_layer_uses_the_standard_library_only() -> None:
    allowed = {"gin_env.cards", "gin_env.config", "gin_env.hand", "gin_env.melds",
               "gin_env.rummy_actions"}  # fmt: skip
    for name in ("rummy.py", "rummy_actions.py"):
        tree = ast.parse((ROOT / "gin_env" / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module or ""]
            else:
                continue
            for mod in mods:
                top = mod.split(".")[0]
                assert mod in allowed or top in {"__future__", "enum", "collections", "dataclasses",
                                                 "typing"}, f"{name} imports {mod}"  # fmt: skip


# -- options and deal ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 7}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"ace_high_or_low": 1}, "ace_high_or_low"),
        ({"max_turns": 0}, "max_turns"),
        ({"target_score": 0}, "target_score"),
        ({"target_score": 10.5}, "target_score"),
    ],
)
def test_bad_option_names_itself(options: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        RummyConfig(**options)  # type: ignore[arg-type]


def test_config_is_frozen() -> None:
    with pytest.raises(AttributeError):
        RummyConfig().max_turns = 3  # type: ignore[misc]


@pytest.mark.parametrize(("n", "k"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_deal_sizes_and_order(n: int, k: int) -> None:
    assert deal_size(n) == k
    game = RummyGame(RummyConfig(num_players=n))
    deck = list(range(52))
    game.start_hand(deck)
    assert game.dealer == n - 1 and game.current == 0
    # One card at a time starting left of the dealer (seat 0 here).
    for seat in range(n):
        assert hand(game, seat) == to_mask(deck[seat : n * k : n])
    assert game.discard_pile == [deck[n * k]]
    assert game.stock[-1] == deck[n * k + 1] and len(game.stock) == 52 - n * k - 1


def test_bad_deck() -> None:
    game = RummyGame()
    with pytest.raises(ValueError, match="deck"):
        game.start_hand([0] * 52)


def test_dealer_rotation() -> None:
    # Two players: the winner deals the next hand.
    game = new_game(["AS 2S 3S 4S 5D 5H 5C 5S 9C 9H", "2D 3D 6C 7C 8D TD JD QC KD KH"], "4D", "9S")
    assert game.dealer == 1
    play(game, "0: draw, meld AS 2S 3S 4S, meld 5D 5H 5C 5S, meld 9C 9H 9S")
    assert game.result is not None and game.result.winner == 0
    game.start_hand(list(range(52)))
    assert game.dealer == 0 and game.current == 1
    # Three players: the deal passes left whoever wins.
    game = RummyGame(RummyConfig(num_players=3, max_turns=1))
    dealers = []
    for _ in range(4):
        game.start_hand(list(range(52)))
        dealers.append(game.dealer)
        play(game, f"{game.current}: draw, discard {card_str(game.stock[-1])}")
    assert dealers == [2, 0, 1, 2]


# -- scenarios -------------------------------------------------------------------------------


def test_meld_and_lay_off_onto_another_players_meld() -> None:
    game = new_game(
        ["5H 6H 7H 2C 4C 6C 8C TC QC KS", "8H 9S 9D 2D 4D 6D 8D TD QD KD"], "3S", "JS JH"
    )
    play(game, "0: draw, meld 5H 6H 7H, discard KS\n1: draw")
    assert ra.lay_off_run(parse_card("8H")) in game.legal_actions()
    play(game, "1: lay off 8H on run, discard KD")
    assert [(m.owner, m.cards) for m in game.table] == [(0, mask("5H 6H 7H 8H"))]
    assert hand(game, 1) == mask("9S 9D 2D 4D 6D 8D TD QD JH")
    assert game.melded_before == [True, True]


def test_lay_off_onto_a_set_of_three() -> None:
    game = new_game(
        ["7S 7H 7D 2C 4C 6C 8C TC QC KS", "7C 9S 9D 2D 4D 6D 8D TD QD KD"], "3S", "JS JH"
    )
    play(game, "0: draw, meld 7S 7H 7D, discard KS\n1: draw, lay off 7C on set")
    assert game.table[0].cards == mask("7S 7H 7D 7C")
    assert not any(a >= ra.LAY_OFF_SET for a in game.legal_actions())  # four is full


def test_lay_off_chain() -> None:
    game = new_game(
        ["8H 9H TH 2C 4C 6C 8C TC QC KS", "7H 6H 9S 2D 4D 6D 8D TD QD KD"], "3S", "JS JD"
    )
    play(game, "0: draw, meld 8H 9H TH, discard KS\n1: draw")
    legal = game.legal_actions()
    assert ra.lay_off_run(parse_card("7H")) in legal
    assert ra.lay_off_run(parse_card("6H")) not in legal  # only once 7H is there
    play(game, "1: lay off 7H on run, lay off 6H on run, discard KD")
    assert game.table[0].cards == mask("6H 7H 8H 9H TH")
    assert (game.table[0].low, game.table[0].high) == (5, 9)


def test_go_out_without_discard_and_rummy_doubles() -> None:
    game = new_game(["AS 2S 3S 4S 5D 5H 5C 5S 9C 9H", "2D 3D 6C 7C 8D TD JD QC KD KH"], "4D", "9S")
    play(game, "0: draw, meld AS 2S 3S 4S, meld 5D 5H 5C 5S, meld 9C 9H 9S")
    r = game.result
    assert game.phase == Phase.OVER and r is not None
    assert r.winner == 0 and r.rummy and not r.went_out_by_discard
    loser_pips = mask_points(mask("2D 3D 6C 7C 8D TD JD QC KD KH"))
    assert loser_pips == 76
    assert r.payments == (2 * 76, -2 * 76)
    assert game.scores == [152, 0]
    assert game.legal_actions() == []
    with pytest.raises(ValueError, match="OVER"):
        game.step(ra.DRAW_STOCK)


def test_no_rummy_after_melding_on_an_earlier_turn() -> None:
    game = new_game(
        ["AS 2S 3S 4S 5D 5H 5C 9C 9H JD", "2D 3D 6C 7C 8D TD QD QC KD KH"],
        "4D",
        "KS 9S QS 9D",
    )
    play(
        game,
        """
        0: draw, meld AS 2S 3S 4S, discard KS
        1: draw, discard 9S
        0: draw, meld 5D 5H 5C, discard QS
        1: take discard, discard KH
        """,
    )
    # Seat 0 melded on earlier turns, so going out now is no rummy.
    play(game, "0: draw, meld 9C 9H 9D, discard JD")
    r = game.result
    assert r is not None and r.winner == 0 and not r.rummy and r.went_out_by_discard
    pips = mask_points(mask("2D 3D 6C 7C 8D TD QD QC KD QS"))
    assert r.payments == (pips, -pips)


def test_rummy_by_final_discard() -> None:
    game = new_game(["AS 2S 3S 4S 5D 5H 5C 9C 9H JD", "2D 3D 6C 7C 8D TD QD QC KD KH"], "4D", "9S")
    play(game, "0: draw, meld AS 2S 3S 4S, meld 5D 5H 5C, meld 9C 9H 9S, discard JD")
    r = game.result
    assert r is not None and r.rummy and r.went_out_by_discard
    assert r.payments[0] == 2 * mask_points(mask("2D 3D 6C 7C 8D TD QD QC KD KH"))


def test_card_taken_from_the_discard_pile_cannot_be_discarded() -> None:
    game = new_game(
        ["5H 6H 7H 2C 4C 6C 8C TC QC KS", "8H 9S 9D 2D 4D 6D 8D TD QD KD"], "3S", "JS JH"
    )
    play(game, "0: take discard")
    assert game.taken_card == parse_card("3S")
    before = snapshot(game)
    with pytest.raises(ValueError) as err:
        game.step(ra.parse_action("discard 3S"))
    message = str(err.value)
    assert "discard 3S" in message and "PLAY" in message and "legal:" in message
    assert snapshot(game) == before
    # A card drawn from the stock may be discarded at once.
    play(game, "0: discard KS\n1: draw, discard JS")


def test_taken_card_never_stranded() -> None:
    # 8S taken: melding everything else would leave 8S alone, undiscardable: not allowed.
    game = new_game(["2C 3C 4C 5D 6D 7D 9D 9H 9C 9S", "8H AS 2D 4D 6C 8D TD QD KD KH"], "8S", "JS")
    play(game, "0: take discard, meld 2C 3C 4C, meld 9D 9H 9C 9S")
    legal = game.legal_actions()
    assert ra.parse_action("meld 5D 6D 7D") not in legal
    assert ra.parse_action("discard 8S") not in legal
    assert ra.parse_action("discard 5D") in legal
    # 8D taken: the same meld leaves 8D, which can then go onto 5D-6D-7D: allowed.
    game = new_game(["2C 3C 4C 5D 6D 7D 9D 9H 9C 9S", "8H AS 2S 4D 6C 8S TD QD KD KH"], "8D", "JS")
    play(game, "0: take discard, meld 2C 3C 4C, meld 9D 9H 9C 9S, meld 5D 6D 7D")
    play(game, "0: lay off 8D on run")
    assert game.result is not None and game.result.winner == 0 and game.result.rummy


def test_stock_exhaustion_turns_the_pile_over_in_order() -> None:
    game = RummyGame(RummyConfig(num_players=6))
    game.start_hand(list(range(52)))
    assert len(game.stock) == 15
    for _ in range(15):  # everyone draws and throws the card back
        top = game.stock[-1]
        game.step(ra.DRAW_STOCK)
        game.step(ra.discard(top))
    assert game.stock == [] and game.phase == Phase.DRAW
    assert game.legal_actions() == [ra.DRAW_STOCK, ra.TAKE_DISCARD]
    pile = list(game.discard_pile)
    assert pile[0] == 36  # the upcard is the oldest card of the pile
    seat = game.current
    game.step(ra.DRAW_STOCK)
    # Turned over unshuffled: the oldest discard is drawn, the next oldest is the new top.
    assert hand(game, seat) >> pile[0] & 1
    assert game.discard_pile == []
    assert game.stock[::-1] == pile[1:]
    assert game.pile_turnovers == 1
    assert game.stock_known == to_mask(pile[1:])
    # The taken card rule does not apply to a card drawn from a turned-over stock.
    assert ra.discard(pile[0]) in game.legal_actions()


def test_stock_exhausted_take_the_top_discard_instead() -> None:
    game = RummyGame(RummyConfig(num_players=6))
    game.start_hand(list(range(52)))
    for _ in range(15):
        top = game.stock[-1]
        game.step(ra.DRAW_STOCK)
        game.step(ra.discard(top))
    top = game.discard_pile[-1]
    game.step(ra.TAKE_DISCARD)
    assert game.taken_card == top and game.stock == []


@pytest.mark.parametrize("ace_high", [False, True])
def test_ace_high_or_low(ace_high: bool) -> None:
    game = new_game(
        ["QH KH AH 2C 4C 6C 8C TC QC KS", "2H 3H 9S 9D 4D 6D 8D TD QD KD"],
        "3S",
        "JS JH",
        ace_high_or_low=ace_high,
    )
    play(game, "0: draw")
    qka = ra.parse_action("meld QH KH AH")
    assert (qka in game.legal_actions()) == ace_high
    if not ace_high:
        with pytest.raises(ValueError, match="illegal action"):
            game.step(qka)
        return
    play(game, "0: meld QH KH AH, discard KS\n1: draw")
    # Q-K-A takes the jack below, never the two (no K-A-2 wrap).
    legal = game.legal_actions()
    assert ra.lay_off_run(parse_card("JH")) in legal
    assert ra.lay_off_run(parse_card("2H")) not in legal
    play(game, "1: lay off JH on run")
    assert (game.table[0].low, game.table[0].high) == (10, 13)


@pytest.mark.parametrize("ace_high", [False, True])
def test_ace_lays_off_above_the_king_only_with_the_option(ace_high: bool) -> None:
    game = new_game(
        ["JH QH KH 2C 4C 6C 8C TC QC KS", "AH 3H 9S 9D 4D 6D 8D TD QD KD"],
        "3S",
        "JS 2S",
        ace_high_or_low=ace_high,
    )
    play(game, "0: draw, meld JH QH KH, discard KS\n1: draw")
    assert (ra.lay_off_run(parse_card("AH")) in game.legal_actions()) == ace_high


def test_king_never_goes_below_an_ace_low_run() -> None:
    game = new_game(
        ["AH 2H 3H 2C 4C 6C 8C TC QC KS", "KH 5H 9S 9D 4D 6D 8D TD QD KD"],
        "3S",
        "JS 2S",
        ace_high_or_low=True,
    )
    play(game, "0: draw, meld AH 2H 3H, discard KS\n1: draw")
    legal = game.legal_actions()
    assert ra.lay_off_run(parse_card("KH")) not in legal
    with pytest.raises(ValueError, match="not a meld"):
        ra.meld(mask("KH AH 2H"))  # K-A-2 has no id at all


def test_pip_payments_to_the_winner() -> None:
    game = new_game(
        ["AS 2S 3S 5H 6H 7H KC", "2D 5C 9H TD JD QC 4C", "3D 6C 8D KD KH 7C AC"],
        "9C",
        "KS 8C 8S 4H",
    )
    play(
        game,
        """
        0: draw, meld AS 2S 3S, discard KS
        1: draw, discard 8C
        2: draw, discard 8S
        0: draw, meld 4H 5H 6H 7H, discard KC
        """,
    )
    r = game.result
    assert r is not None and r.winner == 0 and not r.rummy
    # Everyone pays the pips in his hand: face cards 10, ace 1.
    assert r.payments == (50 + 45, -50, -45)
    assert r.cards_left[1] == mask("2D 5C 9H TD JD QC 4C")
    assert game.scores == [95, 0, 0]


def test_max_turns_truncates_with_no_payments() -> None:
    game = RummyGame(RummyConfig(num_players=2, max_turns=4))
    game.start_hand(list(range(52)))
    for _ in range(4):
        top = game.stock[-1]
        game.step(ra.DRAW_STOCK)
        game.step(ra.discard(top))
    r = game.result
    assert game.phase == Phase.OVER and r is not None
    assert r.truncated and r.winner is None and r.payments == (0, 0) and r.turns == 4


def test_match_to_target_score() -> None:
    rng = random.Random(5)
    game = RummyGame(RummyConfig(num_players=3, target_score=100))
    hands = 0
    while not game.match_over:
        deck = list(range(52))
        rng.shuffle(deck)
        game.start_hand(deck)
        hands += 1
        while game.phase != Phase.OVER:
            game.step(rng.choice(game.legal_actions()))
    assert max(game.scores) >= 100 and hands == len(game.results) == game.hand_number
    assert sum(r.payments[s] for r in game.results for s in range(3)) == 0
    with pytest.raises(ValueError, match="match is over"):
        game.start_hand(list(range(52)))


# -- invariants over random hands ------------------------------------------------------------


def _random_hand(game: RummyGame, rng: random.Random) -> HandResult:
    deck = list(range(52))
    rng.shuffle(deck)
    game.start_hand(deck)
    n = game.num_players
    while game.phase != Phase.OVER:
        legal = game.legal_actions()
        assert legal, "a player to act always has a legal action"
        game.step(rng.choice(legal))
        # 52 cards always accounted for: hands + table melds + stock + discard pile.
        held = 0
        count = 0
        for s in range(n):
            held |= game.hands[s]
            count += game.hands[s].bit_count()
        table = game.table_mask()
        piles = to_mask(game.stock) | to_mask(game.discard_pile)
        assert held | table | piles == (1 << 52) - 1
        assert count + table.bit_count() + len(game.stock) + len(game.discard_pile) == 52
    assert game.result is not None
    return game.result


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_hands_invariants(n: int) -> None:
    rng = random.Random(1000 + n)
    seen_winner = seen_truncated = False
    for i in range(300):
        game = RummyGame(RummyConfig(num_players=n, ace_high_or_low=bool(i % 2)))
        r = _random_hand(game, rng)
        assert sum(r.payments) == 0  # zero-sum
        assert r.turns <= 500  # every hand ends
        if r.winner is None:
            assert r.truncated and r.turns == 500 and not any(r.payments)
            seen_truncated = True
        else:
            seen_winner = True
            assert game.hands[r.winner] == 0
            factor = 2 if r.rummy else 1
            for s in range(n):
                if s != r.winner:
                    assert r.payments[s] == -factor * mask_points(game.hands[s])
    assert seen_winner and seen_truncated
