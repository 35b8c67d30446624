"""The random-play study counts every hand once, by a kind the rules name."""

from __future__ import annotations

import pytest

from gin_env.hand import HAND_KINDS
from studies import random_play


@pytest.mark.parametrize("game", random_play.GAMES)
def test_every_hand_is_counted_once_by_its_kind(game: str) -> None:
    kinds = random_play.hand_kinds(game, 12, seed=3)
    assert sum(kinds.values()) == 12
    assert set(kinds) <= set(HAND_KINDS)
    assert kinds == random_play.hand_kinds(game, 12, seed=3)  # the seed fixes the hands


def test_a_bad_number_of_hands_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        random_play.main(["--hands", "0"])
    assert "--hands must be a positive number of hands; got 0" in capsys.readouterr().err
