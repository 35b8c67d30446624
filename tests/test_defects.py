"""Defects found on the env side, each pinned by a test that failed before its fix:
the blind adviser's information leak, the terminal observation, pickling mid-game, deck
validation, calls out of order, and the picture of the table."""

from __future__ import annotations

import copy
import importlib.util
import pickle
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gin_env import actions as A
from gin_env import gin_v0, gin_v1, rummy_v0, three_handed_gin_v0, three_handed_gin_v1
from gin_env.encoding import cards_in, views
from gin_env.hand import Phase

# -- 1. the blind adviser learns nothing hidden ------------------------------------------------


def _swap_hidden(env: Any, rng: random.Random) -> list[int]:
    """The deck of the first hand with the captain's unseen cards (held, not taken from the
    pile) swapped with cards still in the stock, so that replaying the same actions reaches
    a position the adviser cannot tell apart."""
    match = env.match
    hand = match.hand
    seat = match.record.players.index(match.captain)
    hidden = [c for c in range(52) if (hand.hands[seat] & ~hand.took[seat]) >> c & 1]
    stock = hand.stock
    deck = list(hand.deck)
    for c in hidden:
        if not stock:
            break
        other = stock.pop(rng.randrange(len(stock)))
        i, j = deck.index(c), deck.index(other)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _adviser_view(env: Any, image: bool = False) -> tuple[Any, ...]:
    """Everything the adviser's seat gets: observation, mask, infos, and the table rendered
    for that seat (text, and the picture when asked)."""
    agent = f"player_{env.match.adviser}"
    o = env.observe(agent)
    seen = (o["observation"].tobytes(), o["action_mask"].tobytes(), repr(env.infos[agent]))
    text = env.table_text(view=agent)
    if not image:
        return (*seen, text)
    from gin_env.render_image import table_image

    return (*seen, text, table_image(env, view=agent).tobytes())


def test_blind_adviser_sees_nothing_of_the_captains_hidden_cards() -> None:
    rng = random.Random(3)
    checked = discard_turns = 0
    for seed in range(6):
        opts = dict(adviser_sees_hand=False, episode="hand")
        env = three_handed_gin_v0.raw_env(**opts)
        env.reset(seed=seed)
        actions: list[int] = []
        while not any(env.terminations.values()):
            if env.match.advising:
                twin = three_handed_gin_v0.raw_env(**opts)
                twin.reset(seed=seed, options={"deck": _swap_hidden(env, rng)})
                for a in actions:
                    twin.step(a)
                image = checked % 15 == 0 and importlib.util.find_spec("PIL") is not None
                assert _adviser_view(twin, image) == _adviser_view(env, image)
                checked += twin.match.hand.hands != env.match.hand.hands
                discard_turns += env.match.hand.phase is Phase.DISCARD
                # No suggestion needs the hidden hand: never a knock, never big gin.
                assert all(a < A.KNOCK for a in env.legal_actions())
            action = rng.choice(env.legal_actions())
            env.step(action)
            actions.append(action)
    assert checked > 50 and discard_turns > 20


def test_blind_adviser_suggests_only_cards_seen_taken() -> None:
    rng = random.Random(5)
    seen = 0
    for seed in range(10):
        env = three_handed_gin_v0.raw_env(adviser_sees_hand=False, episode="hand")
        env.reset(seed=seed)
        while not any(env.terminations.values()):
            match = env.match
            hand = match.hand
            if match.advising and hand.phase is Phase.DISCARD:
                took = hand.took[hand.current]
                if hand.taken is not None:
                    took &= ~(1 << hand.taken)
                expected = [A.NO_ADVICE] + [A.DISCARD + c for c in range(52) if took >> c & 1]
                assert env.legal_actions() == expected
                seen += len(expected) > 1
            env.step(rng.choice(env.legal_actions()))
    assert seen > 0


def test_blind_adviser_suggests_only_what_the_captain_may_do() -> None:
    """A fuzz over many hands of random play: every blind suggestion but NO_ADVICE is one of
    the captain's legal moves; in particular no take after both passed the upcard (both
    passes are public, so the captain's draw-from-stock is known)."""
    rng = random.Random(11)
    env = three_handed_gin_v0.raw_env(adviser_sees_hand=False, episode="hand")
    forced_draws = 0
    for seed in range(400):
        env.reset(seed=seed)
        while not any(env.terminations.values()):
            match = env.match
            if match.advising:
                captain = set(match.hand.legal_actions()) | {A.NO_ADVICE}
                suggestions = env.legal_actions()
                assert set(suggestions) <= captain, (seed, match.hand.phase, suggestions)
                mask = env.observe(env.agent_selection)["action_mask"]
                assert np.flatnonzero(mask).tolist() == suggestions
                forced_draws += match.hand.must_draw_stock
            env.step(rng.choice(env.legal_actions()))
    assert forced_draws > 5  # the position of the defect was reached


def test_seeing_adviser_suggests_the_captains_legal_actions() -> None:
    rng = random.Random(1)
    env = three_handed_gin_v0.raw_env(adviser_sees_hand=True, episode="hand")
    env.reset(seed=2)
    while not any(env.terminations.values()):
        if env.match.advising:
            captain = sorted(env.match.hand.legal_actions() + [A.NO_ADVICE])
            assert env.legal_actions() == captain
            mask = env.observe(env.agent_selection)["action_mask"]
            assert np.flatnonzero(mask).tolist() == captain
        env.step(rng.choice(env.legal_actions()))


# -- 2. the final observation shows the hand that ended ---------------------------------------

ENDINGS = [
    dict(episode="hand"),
    dict(target_score=30),  # the match ends
    dict(max_hands=2),  # truncated after two hands
]


def _play_to_end(env: Any, rng: random.Random) -> None:
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        env.step(rng.choice(env.legal_actions()))


@pytest.mark.parametrize("module", [gin_v0, three_handed_gin_v0])
@pytest.mark.parametrize("options", ENDINGS, ids=lambda o: next(iter(o)))
def test_final_observation_is_the_hand_that_ended(module: Any, options: dict) -> None:
    rng = random.Random(0)
    for seed in range(4):
        env = module.raw_env(**options)
        env.reset(seed=seed)
        _play_to_end(env, rng)
        match = env.match
        ended = match.history[-1]
        assert ended.result is not None, "a new hand was dealt that will never be played"
        assert match.record is ended and match.hand.phase is Phase.OVER
        if "max_hands" in options:
            assert len(match.history) == 2 and any(env.truncations.values())
        for agent in env.agents:
            obs = env.observe(agent)
            v = views(obs["observation"])
            assert v["phase"].tolist() == [0, 0, 0, 0, 1]
            assert v["stock_size"][0] == pytest.approx(match.hand.stock_size / 31)
            assert not obs["action_mask"].any()
            assert env.infos[agent]["hand_over"] is True
        # The player who ended the hand sees the hand's final cards, not a fresh deal of 10.
        seat = ended.players.index(int(env.agent_selection.split("_")[1]))
        own = cards_in(env.observe(env.agent_selection)["observation"], "hand")
        assert sum(1 << c for c in own) == ended.result.final_hands[seat]


# -- 3. every env pickles and copies mid-game, and the copy plays on identically ------------

MAKERS = [
    (module, wrapped)
    for module in (gin_v0, three_handed_gin_v0, rummy_v0, gin_v1, three_handed_gin_v1)
    for wrapped in (False, True)
]


def _trace(env: Any, rng: random.Random, steps: int) -> list[tuple[Any, ...]]:
    """Play ``steps`` steps at random; what every agent saw and got along the way."""
    out: list[tuple[Any, ...]] = []
    for _ in range(steps):
        if not env.agents:
            break
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        env.step(action)
        seen = [[v.tobytes() for v in env.observe(a).values()] for a in env.agents]
        out.append((agent, action, reward, repr(info), seen, dict(env.rewards)))
    return out


@pytest.mark.parametrize("module,wrapped", MAKERS, ids=lambda x: getattr(x, "__name__", str(x)))
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_env_copies_mid_game_and_plays_on_identically(module: Any, wrapped: bool, how: str) -> None:
    # The v1 envs play with the move history too: it must survive the copy as well.
    options = {"observation": "history"} if module in (gin_v1, three_handed_gin_v1) else {}
    env = (module.env if wrapped else module.raw_env)(**options)
    env.reset(seed=11)
    _trace(env, random.Random(0), 25)  # mid-game
    twin = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    assert type(twin) is type(env)
    assert twin.agent_selection == env.agent_selection
    ahead = _trace(env, random.Random(1), 400)
    again = _trace(twin, random.Random(1), 400)
    assert again == ahead and len(ahead) > 100
    # The copy is independent: it has its own generator and its own game.
    env.reset(seed=3)
    twin.reset(seed=3)
    assert _trace(env, random.Random(2), 30) == _trace(twin, random.Random(2), 30)


def test_three_handed_copy_keeps_its_options_before_reset() -> None:
    env = three_handed_gin_v0.raw_env(adviser="none", adviser_sees_hand=False, reward="individual")
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert (twin.config.adviser, twin.config.adviser_sees_hand, twin.options.reward) == (
            "none",
            False,
            "individual",
        )
        assert twin._ezpickle_kwargs == env._ezpickle_kwargs
        twin.reset(seed=1)  # and it plays
        assert not twin.match.advising


# -- 4. a bad deck is refused before anything changes -------------------------------------

GOOD = list(range(52))
BAD_DECKS = {
    "float half": ([0.5] + GOOD[1:], r"deck\[0\] is 0.5"),
    "float whole": ([float(c) for c in GOOD], r"deck\[0\] is 0.0"),
    "digit strings": ([str(c) for c in GOOD], r"deck\[0\] is '0'"),
    "letters": (["x"] * 52, r"deck\[0\] is 'x'"),
    "a bool": ([True] + GOOD[1:], r"deck\[0\] is True"),
    "None inside": (GOOD[:51] + [None], r"deck\[51\] is None"),
    "an int": (5, "deck must be a sequence"),
    "a string": ("AS 2S", "deck must be a sequence"),
    "short": (GOOD[:51], r"got 51 cards \(missing: KC\)"),
    "long": (GOOD + [0], "holds card 0 .AS. twice"),
    "duplicate": ([1] + GOOD[1:], "holds card 1 .2S. twice"),
    "out of range": (GOOD[:51] + [52], r"deck\[51\] is 52"),
    "negative": ([-1] + GOOD[1:], r"deck\[0\] is -1"),
}


def _snapshot(env: Any) -> tuple[Any, ...]:
    game = env.match if hasattr(env, "match") else env.game
    return (
        game,
        pickle.dumps(game),
        env.agent_selection,
        env.np_random.bit_generator.state,
        [env.observe(a)["observation"].tobytes() for a in env.agents],
    )


@pytest.mark.parametrize("module", [gin_v0, three_handed_gin_v0, rummy_v0])
@pytest.mark.parametrize("bad", BAD_DECKS, ids=str)
def test_bad_deck_is_refused_naming_the_card_and_changes_nothing(module: Any, bad: str) -> None:
    deck, message = BAD_DECKS[bad]
    env = module.raw_env()
    env.reset(seed=5)
    _trace(env, random.Random(0), 7)
    before = _snapshot(env)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=7, options={"deck": deck})
    after = _snapshot(env)
    assert after[0] is before[0] and after[1:] == before[1:]


@pytest.mark.parametrize("module", [gin_v0, three_handed_gin_v0, rummy_v0])
def test_deck_none_means_no_deck_and_numpy_ints_are_cards(module: Any) -> None:
    plain, given = module.raw_env(), module.raw_env()
    plain.reset(seed=4)
    given.reset(seed=4, options={"deck": None})
    assert _snapshot(plain)[1:] == _snapshot(given)[1:]
    deck = np.random.default_rng(0).permutation(52)  # numpy int64 cards
    given.reset(seed=4, options={"deck": deck})
    plain.reset(seed=4, options={"deck": deck.tolist()})
    assert _snapshot(plain)[1:] == _snapshot(given)[1:]


# -- 5. calls out of order say what to do -----------------------------------------------------


@pytest.mark.parametrize("module", [gin_v0, three_handed_gin_v0, rummy_v0])
@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "env"])
def test_calls_before_reset_and_after_the_end_say_what_to_do(module: Any, wrapped: bool) -> None:
    short = {} if module is rummy_v0 else {"episode": "hand"}
    env = (module.env if wrapped else module.raw_env)(**short)
    for call in (lambda: env.step(0), env.last, lambda: env.observe("player_0")):
        with pytest.raises(RuntimeError, match=r"before reset\(\): call reset\(\) first"):
            call()
    env.reset(seed=0)
    rng = random.Random(0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        env.step(None if term or trunc else rng.choice(legal))
    assert not env.agents
    for call in (lambda: env.step(0), lambda: env.step(None), env.last):
        with pytest.raises(RuntimeError, match=r"episode is over .* call reset\(\)"):
            call()
    assert env.observe("player_0")["observation"].shape  # the final observation stays
    env.reset(seed=1)  # and a reset starts again
    assert env.agents and env.last()[0]["action_mask"].any()


# -- 9. the rules live in the repository ---------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def test_rules_document_is_in_the_repo_and_names_every_rule_option() -> None:
    from dataclasses import fields

    from gin_env.config import GinConfig, ThreeHandedConfig
    from gin_env.rummy import RummyConfig

    text = (ROOT / "docs" / "RULES.md").read_text()
    options = {*GinConfig.option_names(), *ThreeHandedConfig.option_names()}
    options |= {f.name for f in fields(RummyConfig)} | {"adviser", "adviser_sees_hand"}
    missing = sorted(o for o in options if f"`{o}`" not in text)
    assert not missing, f"docs/RULES.md does not document {missing}"
    for topic in ("Oklahoma", "Hollywood", "blind rule", "Draw", "tests/golden/showdown.jsonl"):
        assert topic in text


def test_nothing_points_outside_the_repository() -> None:
    outside = ("../" + "shared", "shared/" + "RULES", "shared/" + "golden")
    found = []
    for folder in ("gin_env", "agents", "training", "tests", "notebooks"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".ipynb") or path.name == "test_readme.py":
                continue
            text = path.read_text()
            found += [f"{path.relative_to(ROOT)}: {o}" for o in outside if o in text]
    assert not found
    # Every "RULES.md" the code cites is the repository's own document.
    for path in (ROOT / "gin_env").glob("*.py"):
        text = path.read_text().replace("docs/RULES.md", "")
        assert "RULES.md" not in text, path.name
