"""The one decoder of the gin observation (gin_env.encoding.decode_observation and its batch
readers) reads back what the envs' encoder writes, seat by seat, in every layout."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.base import decode
from gin_env import gin_v0, gin_v1, three_handed_gin_v0, three_handed_gin_v1
from gin_env.cards import to_mask
from gin_env.encoding import (
    CARD_PARTS,
    OBS_SIZE,
    OBS_SIZE_V1,
    OBS_SLICES,
    card_masks,
    decode_observation,
    first_set,
    hand_mask,
    part_masks,
    top_discards,
)
from gin_env.hand import Phase
from gin_env.match import ThreeHandedMatch
from gin_env.melds import deadwood_mask

OKLAHOMA = {
    "oklahoma": True,
    "big_gin_bonus": 31,
    "target_score": 50,
    "max_turns_per_hand": 150,
    "gin_bonus": 30,
    "undercut_bonus": 15,
    "allow_discard_of_taken_card": True,
}
ENVS = [
    (gin_v0, {}),
    (three_handed_gin_v0, {}),
    (three_handed_gin_v0, {"adviser_sees_hand": False}),
    (gin_v1, OKLAHOMA),
    (three_handed_gin_v1, {"adviser_sees_hand": False, "target_score": 60}),
]
RULES = ("gin_bonus", "undercut_bonus", "big_gin_bonus", "target_score", "max_turns_per_hand",
         "oklahoma", "allow_discard_of_taken_card")  # fmt: skip
IDS = ["gin_v0", "three_handed_v0", "three_handed_v0-blind", "gin_v1-oklahoma", "three_v1-blind"]


def _expected(env: Any, player: int) -> dict[str, Any]:
    """What the observation of ``player`` holds, read off the engine."""
    match = env.match
    hand, rec = match.hand, match.record
    playing = player in rec.players
    seat = rec.players.index(player) if playing else 0
    opp = 1 - seat
    sees = (playing or env.config.adviser_sees_hand) if env.num_players == 3 else True
    three = isinstance(match, ThreeHandedMatch)
    advising = three and match.advising
    suggestion = -1
    if three and not advising and player == match.captain and match.suggestion is not None:
        suggestion = match.suggestion
    by_role = [0, 0, 0]
    for p, role in enumerate(rec.roles):
        by_role[role] = match.scores[p]
    own = hand.hands[seat] if sees else 0
    return {
        "role": rec.roles[player],
        "phase": int(hand.phase),
        "advising": advising,
        "hand": own,
        "top_discard": hand.discard_pile[-1] if hand.discard_pile else -1,
        "discard_pile": to_mask(hand.discard_pile),
        "opponent_took": hand.took[opp],
        "opponent_discarded": hand.discarded[opp],
        "partner_discarded": hand.discarded[seat] if sees else 0,
        "stock_size": hand.stock_size,
        "deadwood": deadwood_mask(own) if sees and hand.phase is not Phase.OVER else 0,
        "suggestion": suggestion,
        "turns": hand.turns,
        "scores": [min(s / match.target_score, 1.0) for s in by_role],
        "partner_took": hand.took[seat],
        "knock_limit": hand.knock_limit,
        "doubled": hand.multiplier == 2,
    }


@pytest.mark.parametrize(("module", "options"), ENVS, ids=IDS)
def test_the_decoder_reads_back_every_seat_of_random_play(module: Any, options: dict) -> None:
    checked = 0
    for seed in range(3):
        env = module.raw_env(episode="match", **options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        batch = []
        for _ in range(120):
            if not env.agents:
                break
            for i, agent in enumerate(env.possible_agents):
                obs = env.observe(agent)["observation"]
                want = _expected(env, i)
                v = decode_observation(obs)
                for name in ("role", "phase", "advising", *CARD_PARTS, "stock_size", "deadwood",
                             "suggestion"):  # fmt: skip
                    assert getattr(v, name) == want[name], (name, seed, agent)
                assert v.turns(env.config.max_turns_per_hand) == want["turns"]
                assert v.scores == pytest.approx(want["scores"])
                if env.obs_version == 0:
                    assert obs.shape == (OBS_SIZE,)
                    assert (v.partner_took, v.knock_limit, v.doubled, v.rules) == (None,) * 4
                else:
                    assert obs.shape == (OBS_SIZE_V1,)
                    assert v.partner_took == want["partner_took"]
                    assert (v.knock_limit, v.doubled) == (want["knock_limit"], want["doubled"])
                    r, c = v.rules, env.config
                    assert r is not None
                    for name in RULES:
                        assert getattr(r, name) == getattr(c, name), name
                    assert r.adviser_sees_hand == (env.num_players == 3 and c.adviser_sees_hand)
                if agent == env.agent_selection:  # the agents' view: the decoder's, and legal
                    seat = decode(env.observe(agent))
                    assert (seat.hand, seat.top_discard, seat.own_discarded, seat.scores) == (
                        v.hand, v.top_discard, v.partner_discarded, v.scores
                    )  # fmt: skip
                batch.append((obs, v))
                checked += 1
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(rng.choice(legal)))
        # The batch readers say the same as the decoder, row by row.
        obs_b = np.stack([o for o, _ in batch])
        for part in CARD_PARTS:
            # (the view's top_discard is the card, -1 for none; the part holds it as a mask)
            masks = [getattr(v, part) for _, v in batch]
            if part == "top_discard":
                masks = [0 if c < 0 else 1 << c for c in masks]
            assert part_masks(obs_b, part).tolist() == masks
            assert card_masks(obs_b[:, OBS_SLICES[part]]).tolist() == masks
        assert top_discards(obs_b).tolist() == [v.top_discard for _, v in batch]
        suggestions = first_set(obs_b[:, OBS_SLICES["suggestion"]]).tolist()
        assert suggestions == [v.suggestion for _, v in batch]
        assert [hand_mask(o) for o, _ in batch] == [v.hand for _, v in batch]
    assert checked > 500


def test_the_decoder_refuses_what_is_not_one_observation() -> None:
    for bad in (np.zeros(10), np.zeros((2, OBS_SIZE)), np.float32(0)):
        with pytest.raises(ValueError, match=rf"observation must have shape \({OBS_SIZE},\)"):
            decode_observation(bad)
    with pytest.raises(ValueError, match="part must be a card part"):
        part_masks(np.zeros((2, OBS_SIZE)), "stock_size")
    with pytest.raises(ValueError, match="part must be a card part"):
        part_masks(np.zeros((2, OBS_SIZE)), "partner_took")  # v1 only
    with pytest.raises(ValueError, match="not the dict"):
        top_discards(np.zeros((2, 5)))


def test_a_view_is_frozen_and_the_batch_readers_keep_leading_axes() -> None:
    v = decode_observation(np.zeros(OBS_SIZE, np.float32))
    with pytest.raises(AttributeError):
        v.hand = 1  # type: ignore[misc]
    assert (v.top_discard, v.suggestion, v.hand) == (-1, -1, 0)
    obs = np.zeros((2, 3, OBS_SIZE), np.float32)
    obs[1, 2, OBS_SLICES["hand"].start + 51] = 1
    obs[0, 1, OBS_SLICES["top_discard"].start + 7] = 1
    assert part_masks(obs).tolist() == [[0, 0, 0], [0, 0, 1 << 51]]
    assert top_discards(obs).tolist() == [[-1, 7, -1], [-1, -1, -1]]


def test_the_readers_of_the_vector_keep_no_decoder_of_their_own() -> None:
    # One decoder: the agents, the batch players and the words read the vector through
    # gin_env.encoding; the observation's old name in agents.base (never released) is gone.
    import agents.base
    import agents.batched_policy
    import agents.dmc
    import gin_env.encoding
    import gin_env.text.views

    assert not hasattr(agents.base, "SeatView") and not hasattr(agents.base, "_mask_of")
    assert not hasattr(agents.dmc, "hand_masks")
    assert agents.batched_policy.card_masks is gin_env.encoding.card_masks
    assert not hasattr(gin_env.text.views, "_S") and not hasattr(gin_env.text.views, "_PARTS")
