"""Observation layout and masks of the gin envs, checked against a plain reference encoder."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import knocky_policy

from gin_env import actions as A
from gin_env.config import GinConfig, ThreeHandedConfig
from gin_env.encoding import (
    OBS_PARTS,
    OBS_SIZE,
    OBS_SLICES,
    action_mask,
    cards_in,
    encode_observation,
    hand_mask,
    legal_from_mask,
    views,
)
from gin_env.hand import Phase
from gin_env.match import GinMatch, Match, ThreeHandedMatch
from gin_env.melds import deadwood_mask


def test_parts_tile_the_vector() -> None:
    assert OBS_SIZE == 436
    start = 0
    for name, size in OBS_PARTS:
        assert OBS_SLICES[name] == slice(start, start + size)
        start += size
    assert start == OBS_SIZE


def test_views_are_named_writable_views() -> None:
    obs = np.zeros(OBS_SIZE, np.float32)
    v = views(obs)
    assert list(v) == [name for name, _ in OBS_PARTS]
    v["hand"][[0, 13, 51]] = 1
    assert cards_in(obs, "hand") == [0, 13, 51]
    assert hand_mask(obs) == 1 | 1 << 13 | 1 << 51
    batch = np.zeros((5, OBS_SIZE), np.float32)
    assert views(batch)["suggestion"].shape == (5, A.NUM_ACTIONS)


def test_helpers_refuse_a_wrong_part_or_vector() -> None:
    obs = np.zeros(OBS_SIZE, np.float32)
    with pytest.raises(ValueError, match="part must be one of role, phase"):
        cards_in(obs, "stock")
    with pytest.raises(ValueError, match=f"an observation vector has {OBS_SIZE} entries"):
        cards_in(np.zeros(52), "hand")
    with pytest.raises(ValueError, match="not the dict"):
        views(np.zeros(3))


def test_action_mask_round_trip() -> None:
    legal = [A.DRAW_STOCK, A.discard(7), A.knock(51)]
    mask = action_mask(legal)
    assert mask.dtype == np.int8 and mask.shape == (A.NUM_ACTIONS,)
    assert legal_from_mask(mask) == legal


def _bits(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def reference_observation(match: Match, player: int, adviser_sees_hand: bool) -> np.ndarray:
    """The documented layout, filled card by card (slow and plain on purpose)."""
    obs = np.zeros(OBS_SIZE, np.float32)
    v = views(obs)
    hand, rec = match.hand, match.record
    v["role"][rec.roles[player]] = 1
    v["phase"][int(hand.phase)] = 1
    playing = player in rec.players
    seat = rec.players.index(player) if playing else 0
    opp = 1 - seat
    if isinstance(match, ThreeHandedMatch):
        v["advising"][0] = float(match.advising)
        if player == match.captain and not match.advising and match.suggestion is not None:
            v["suggestion"][match.suggestion] = 1
        by_role = [match.scores[p] for p in (match.box, match.captain, match.adviser)]
    else:
        by_role = [match.scores[rec.players[1]], match.scores[rec.players[0]], 0]
    if playing or adviser_sees_hand:
        for c in _bits(hand.hands[seat]):
            v["hand"][c] = 1
        for c in _bits(hand.discarded[seat]):
            v["partner_discarded"][c] = 1
        if hand.phase is not Phase.OVER:
            v["deadwood"][0] = deadwood_mask(hand.hands[seat]) / 128
    for c in hand.discard_pile:
        v["discard_pile"][c] = 1
    if hand.discard_pile:
        v["top_discard"][hand.discard_pile[-1]] = 1
    for c in _bits(hand.took[opp]):
        v["opponent_took"][c] = 1
    for c in _bits(hand.discarded[opp]):
        v["opponent_discarded"][c] = 1
    v["stock_size"][0] = hand.stock_size / 31
    v["turn"][0] = hand.turns / hand.rules.max_turns_per_hand
    v["scores"][:] = [min(s / match.target_score, 1.0) for s in by_role]
    return obs


def _random_match(rng: random.Random, kind: int) -> Match:
    decks: dict[int, list[int]] = {}

    def deal(i: int) -> list[int]:
        if i not in decks:
            decks[i] = rng.sample(range(52), 52)
        return decks[i]

    role_deck = rng.sample(range(52), 52)
    if kind == 0:
        return GinMatch(GinConfig(target_score=40), role_deck, deal)
    adviser = "suggest" if kind == 1 else "none"
    return ThreeHandedMatch(ThreeHandedConfig(target_score=40, adviser=adviser), role_deck, deal)


@pytest.mark.parametrize("kind", [0, 1, 2], ids=["gin", "three-advice", "three-no-advice"])
def test_encoder_matches_reference_over_random_matches(kind: int) -> None:
    rng = random.Random(kind)
    out = np.full(OBS_SIZE, 7.0, np.float32)  # a dirty buffer must come back clean
    checked = 0
    for _ in range(4):
        match = _random_match(rng, kind)
        while not match.is_over:
            for player in range(match.num_players):
                for sees in (True, False):
                    want = reference_observation(match, player, sees)
                    got = encode_observation(match, player, sees)
                    np.testing.assert_array_equal(got, want)
                    assert encode_observation(match, player, sees, out=out) is out
                    np.testing.assert_array_equal(out, want)
                    checked += 1
            dws = match.hand.discard_deadwoods() if match.hand.phase is Phase.DISCARD else None
            match.step(knocky_policy(match.legal_actions(), rng, dws))
    assert checked > 500


def test_values_stay_in_the_box() -> None:
    rng = random.Random(5)
    match = _random_match(rng, 1)
    for _ in range(300):
        if match.is_over:
            break
        for player in range(3):
            obs = encode_observation(match, player)
            assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            assert views(obs)["role"].sum() == 1 and views(obs)["phase"].sum() == 1
        match.step(rng.choice(match.legal_actions()))


def test_part_slices_lay_parts_side_by_side_and_refuse_a_name_twice() -> None:
    from gin_env.layout import int_bits, part_slices

    assert part_slices([("a", 2), ("b", 0), ("c", 3)]) == {
        "a": slice(0, 2),
        "b": slice(2, 2),
        "c": slice(2, 5),
    }
    with pytest.raises(ValueError, match="'a' is named twice"):
        part_slices([("a", 1), ("a", 2)])
    with pytest.raises(ValueError, match="negative size"):
        part_slices([("a", -1)])
    mask = (1 << 0) | (1 << 13) | (1 << 51)
    assert np.flatnonzero(int_bits(mask, 52)).tolist() == [0, 13, 51]


def test_the_gin_encoding_imports_nothing_of_rummy() -> None:
    # Rummy's layouts live in gin_env.rummy_encoding; the gin encoding stands without them.
    import ast
    from pathlib import Path

    import gin_env.encoding

    tree = ast.parse(Path(gin_env.encoding.__file__).read_text())
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert imported and not [m for m in imported if "rummy" in m]
