"""The shared ``Discrete(109)`` action layout of the gin envs: ids, names and parsing."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env import actions as A
from gin_env.cards import card_str


def test_layout_is_the_documented_table() -> None:
    assert (A.DRAW_STOCK, A.TAKE_DISCARD, A.PASS, A.NO_ADVICE) == (0, 1, 2, 3)
    assert (A.DISCARD, A.KNOCK, A.BIG_GIN, A.NUM_ACTIONS) == (4, 56, 108, 109)
    assert A.discard(0) == 4 and A.discard(51) == 55
    assert A.knock(0) == 56 and A.knock(51) == 107


@pytest.mark.parametrize("action", range(A.NUM_ACTIONS))
def test_every_id_round_trips(action: int) -> None:
    kind, card = A.decode(action)
    text = A.action_str(action)
    assert A.parse_action(text) == action
    assert A.parse_action(text.upper()) == action
    if card is not None:
        assert text == f"{kind} {card_str(card)}"
        assert (A.discard if kind == "discard" else A.knock)(card) == action
    else:
        assert text == kind


def test_kinds_cover_the_space_once() -> None:
    kinds = [A.decode(a)[0] for a in range(A.NUM_ACTIONS)]
    assert kinds.count("discard") == 52 and kinds.count("knock") == 52
    assert {k for k in kinds if k not in ("discard", "knock")} == {
        "draw", "take", "pass", "no-advice", "big-gin"
    }  # fmt: skip


def test_parse_shortcuts() -> None:
    assert A.parse_action("7h") == A.discard(19)
    assert A.parse_action("  Knock 10S ") == A.knock(9)
    assert A.parse_action("stock") == A.DRAW_STOCK
    assert A.parse_action("none") == A.NO_ADVICE
    assert A.parse_action("gin 3c") == A.knock(41)


@pytest.mark.parametrize("text", ["", "fold", "discard", "discard 1x", "knock 3c 4c", "zz"])
def test_parse_rejects_bad_text_quoting_it(text: str) -> None:
    with pytest.raises(ValueError, match="bad move"):
        A.parse_action(text)


@pytest.mark.parametrize("bad", [-1, 109, True, "3", 1.5, None])
def test_check_action_rejects_and_names_range(bad: object) -> None:
    with pytest.raises(ValueError, match=r"0\.\.108"):
        A.check_action(bad)


def test_check_action_accepts_numpy_ints() -> None:
    assert A.check_action(np.int64(60)) == 60
    assert A.decode(np.int32(60)) == ("knock", 4)
