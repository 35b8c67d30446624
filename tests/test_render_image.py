"""The table picture: shape, type, and that it shows what changed."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PIL")

from gin_env import gin_v0, three_handed_gin_v0  # noqa: E402
from gin_env.config import GinConfig  # noqa: E402
from gin_env.render_image import rummy_table_image, table_image  # noqa: E402


def _play(env, steps: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("module", [three_handed_gin_v0, gin_v0])
def test_image_shape_and_type(module) -> None:
    env = module.raw_env()
    env.reset(seed=1)
    image = table_image(env)
    assert image.dtype == np.uint8
    assert image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] >= 400 and image.shape[1] >= 600
    assert image.std() > 10  # a drawn table, not a blank canvas


def test_two_states_give_different_pictures() -> None:
    env = three_handed_gin_v0.raw_env()
    env.reset(seed=2)
    before = table_image(env)
    _play(env, 6)
    after = table_image(env)
    assert before.shape == after.shape
    assert (before != after).any(axis=2).mean() > 0.001


def test_show_all_draws_faces_instead_of_backs() -> None:
    env = three_handed_gin_v0.raw_env()
    env.reset(seed=3)
    hidden, shown = table_image(env), table_image(env, show_all=True)
    # Faces are mostly white; backs mostly blue: the face-up picture is much brighter.
    assert shown.mean() > hidden.mean() + 5


def test_different_deals_give_different_pictures() -> None:
    env = gin_v0.raw_env()
    env.reset(seed=4)
    a = table_image(env, show_all=True)
    env.reset(seed=5)
    b = table_image(env, show_all=True)
    assert not np.array_equal(a, b)


def test_finished_match_is_drawn() -> None:
    env = gin_v0.raw_env(target_score=10)
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    while not env.table_state.is_over:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    image = table_image(env)
    assert image.shape[2] == 3 and image.dtype == np.uint8


def test_render_before_reset_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        table_image(three_handed_gin_v0.raw_env())


def test_rummy_table_image() -> None:
    from gin_env.config import RummyConfig
    from gin_env.table_state import TableState

    state = TableState(RummyConfig(num_players=4), deck=list(range(52))[::-1])
    hidden = rummy_table_image(state)
    shown = rummy_table_image(state, show_all=True)
    assert hidden.dtype == np.uint8 and hidden.shape == shown.shape
    assert not np.array_equal(hidden, shown)
    with pytest.raises(ValueError, match="rummy table"):
        rummy_table_image(TableState(GinConfig(), seed=0))


def test_rummy_ace_high_run_shows_the_ace_last() -> None:
    from gin_env.cards import make_card
    from gin_env.render_image import _meld_order

    a, two, three, q, k = (make_card(r, 0) for r in (0, 1, 2, 11, 12))
    assert _meld_order((a, q, k)) == [q, k, a]
    assert _meld_order((two, three, a)) == [a, two, three]
    full = tuple(make_card(r, 0) for r in range(13))  # A to K: the ace low
    assert _meld_order(full[::-1]) == list(full)
    aces = (make_card(0, 2), make_card(0, 1), a)
    assert _meld_order(aces) == sorted(aces)  # a set


# -- render_hands: which hands the picture and the text show face up -------------------------


def _rendered(module, view: str, mode: str, seed: int = 3, **options):
    env = module.raw_env(render_mode=mode, render_hands=view, **options)
    env.reset(seed=seed)
    _play(env, 3)
    return env, env.render()


@pytest.mark.parametrize("module", [three_handed_gin_v0, gin_v0])
def test_render_hands_shows_chosen_hands_in_the_picture(module) -> None:
    _, none = _rendered(module, "none", "rgb_array")
    env, mine = _rendered(module, "player_0", "rgb_array")
    _, every = _rendered(module, "all", "rgb_array")
    assert (none != every).any() and (mine != none).any() and (mine != every).any()
    # Drawn face up, exactly as table_image's show_all draws them.
    assert (every == table_image(env, show_all=True)).all()


def test_render_hands_in_text_shows_one_seat() -> None:
    from gin_env.cards import cards_str

    env, text = _rendered(three_handed_gin_v0, "player_1", "ansi", adviser_sees_hand=False)
    hand = env.match.hand
    rec = env.match.record
    for seat, player in enumerate(rec.players):
        shown = cards_str(hand.hands[seat]) in text
        assert shown == (player == 1)
    _, every = _rendered(three_handed_gin_v0, "all", "ansi", adviser_sees_hand=False)
    assert all(cards_str(h) in every for h in hand.hands)


@pytest.mark.parametrize("sees", [True, False])
def test_render_hands_of_the_adviser_follows_adviser_sees_hand(sees: bool) -> None:
    from gin_env.cards import cards_str

    env = three_handed_gin_v0.raw_env(render_mode="ansi", adviser_sees_hand=sees)
    env.reset(seed=4)
    env.render_hands = f"player_{env.match.adviser}"
    captain = cards_str(env.match.hand.hands[0])
    assert (captain in env.render()) == sees
    assert env.face_up("none") == set() and env.face_up("all") == {0, 1, 2}


@pytest.mark.parametrize("module", [three_handed_gin_v0, gin_v0])
@pytest.mark.parametrize("bad", ["player_9", "mine", 3, None, True])
def test_render_hands_is_validated(module, bad) -> None:
    with pytest.raises(ValueError, match="render_hands"):
        module.raw_env(render_hands=bad)


def test_rummy_render_hands() -> None:
    from gin_env import rummy_v0
    from gin_env.cards import cards_str

    env = rummy_v0.raw_env(render_mode="ansi", render_hands="player_1")
    env.reset(seed=0)
    text = env.render()
    assert cards_str(env.game.hands[1]) in text and cards_str(env.game.hands[0]) not in text
    env.render_hands = "all"
    assert all(cards_str(h) in env.render() for h in env.game.hands)
    with pytest.raises(ValueError, match="render_hands"):
        rummy_v0.raw_env(render_hands="player_2")
    a = rummy_table_image(env, view="none")
    b = rummy_table_image(env, view="player_0")
    assert (a != b).any() and (rummy_table_image(env, view="all") != b).any()
