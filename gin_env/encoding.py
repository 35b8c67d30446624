"""Observation vectors and action masks of the gin envs, built from named parts.

Every observation is from one player's seat and holds only what that player could know.
The vector is ``float32`` of length :data:`OBS_SIZE`; :func:`views` returns its named
parts. Cards are indexed ``suit * 13 + rank`` (see :mod:`gin_env.cards`).

==================  =====  ===========================================================
part                size   meaning
==================  =====  ===========================================================
role                3      one-hot: box, captain, adviser (``gin_v0``: dealer, non-dealer, -)
phase               5      one-hot: upcard (non-dealer), upcard (dealer), draw, discard, over
advising            1      1 when the adviser is to suggest the captain's next action
hand                52     own cards (adviser: the captain's, when ``adviser_sees_hand``)
top_discard         52     one-hot: the upcard / top of the discard pile
discard_pile        52     every card in the discard pile
opponent_took       52     cards the opponent took from the discard pile and still holds
opponent_discarded  52     cards the opponent discarded
partner_discarded   52     cards the observed hand discarded (own discards; the adviser:
                           the captain's)
stock_size          1      cards left in the stock / 31
deadwood            1      deadwood of ``hand`` / 100 (0 when the hand is not seen)
turn                1      turns played this hand / ``max_turns_per_hand``
scores              3      cumulative scores by role (box, captain, adviser) / target, capped at 1
suggestion          109    one-hot: the adviser's suggestion (captain only)
==================  =====  ===========================================================

"The opponent" is the other playing seat of the hand: for the box player the captain,
for the captain and the adviser the box player.

>>> OBS_SIZE
436
>>> sorted(views(np.zeros(OBS_SIZE, np.float32)))[:3]
['advising', 'deadwood', 'discard_pile']
"""

from __future__ import annotations

import numpy as np

from gin_env import actions as A
from gin_env.cards import NUM_CARDS
from gin_env.hand import Phase
from gin_env.match import Match, ThreeHandedMatch
from gin_env.melds import deadwood_mask

__all__ = [
    "OBS_PARTS",
    "OBS_SLICES",
    "OBS_SIZE",
    "FULL_STOCK",
    "views",
    "mask_to_cards",
    "cards_in",
    "hand_mask",
    "encode_observation",
    "action_mask",
    "legal_from_mask",
]

FULL_STOCK = 31

OBS_PARTS: tuple[tuple[str, int], ...] = (
    ("role", 3),
    ("phase", 5),
    ("advising", 1),
    ("hand", NUM_CARDS),
    ("top_discard", NUM_CARDS),
    ("discard_pile", NUM_CARDS),
    ("opponent_took", NUM_CARDS),
    ("opponent_discarded", NUM_CARDS),
    ("partner_discarded", NUM_CARDS),
    ("stock_size", 1),
    ("deadwood", 1),
    ("turn", 1),
    ("scores", 3),
    ("suggestion", A.NUM_ACTIONS),
)


def _slices() -> dict[str, slice]:
    out, start = {}, 0
    for name, size in OBS_PARTS:
        out[name] = slice(start, start + size)
        start += size
    return out


OBS_SLICES: dict[str, slice] = _slices()
OBS_SIZE: int = sum(size for _, size in OBS_PARTS)
_S = OBS_SLICES
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")


def views(obs: np.ndarray) -> dict[str, np.ndarray]:
    """The named parts of an observation vector (views, not copies)."""
    return {name: obs[..., s] for name, s in OBS_SLICES.items()}


def _bits(mask: int) -> np.ndarray:
    """52 zero/one entries of a card mask."""
    return _BYTE_BITS[np.frombuffer(mask.to_bytes(7, "little"), np.uint8)].reshape(-1)[:NUM_CARDS]


def mask_to_cards(part: np.ndarray) -> list[int]:
    return np.flatnonzero(part).tolist()


def cards_in(obs: np.ndarray, part: str) -> list[int]:
    """Card ints set in a 52-card part of an observation vector, e.g. ``cards_in(o, "hand")``."""
    return mask_to_cards(obs[OBS_SLICES[part]])


def hand_mask(obs: np.ndarray, part: str = "hand") -> int:
    mask = 0
    for c in cards_in(obs, part):
        mask |= 1 << c
    return mask


def encode_observation(
    match: Match, player: int, adviser_sees_hand: bool = True, out: np.ndarray | None = None
) -> np.ndarray:
    """Fill (and return) the observation vector of ``player`` in ``match``."""
    obs = np.zeros(OBS_SIZE, np.float32) if out is None else out
    if out is not None:
        obs[:] = 0
    record = match.record
    hand = match.hand
    role = record.roles[player]
    obs[_S["role"].start + role] = 1
    obs[_S["phase"].start + int(hand.phase)] = 1
    players = record.players
    # Seat watched: a playing player's own seat; the adviser watches the captain (seat 0).
    seat = players.index(player) if player in players else 0
    sees_hand = player in players or adviser_sees_hand
    opp = 1 - seat
    if isinstance(match, ThreeHandedMatch):
        if match.advising:
            obs[_S["advising"].start] = 1
        if player == match.captain and match.suggestion is not None and not match.advising:
            obs[_S["suggestion"].start + match.suggestion] = 1
        by_role = (match.box, match.captain, match.adviser)
        scores = [match.scores[p] for p in by_role]
    else:
        scores = [match.scores[players[1]], match.scores[players[0]], 0]
    if sees_hand:
        obs[_S["hand"]] = _bits(hand.hands[seat])
        if hand.phase is not Phase.OVER:
            obs[_S["deadwood"].start] = deadwood_mask(hand.hands[seat]) / 100.0
        obs[_S["partner_discarded"]] = _bits(hand.discarded[seat])
    if hand.discard_pile:
        obs[_S["top_discard"].start + hand.discard_pile[-1]] = 1
        pile = obs[_S["discard_pile"]]
        pile[hand.discard_pile] = 1
    obs[_S["opponent_took"]] = _bits(hand.took[opp])
    obs[_S["opponent_discarded"]] = _bits(hand.discarded[opp])
    obs[_S["stock_size"].start] = hand.stock_size / FULL_STOCK
    obs[_S["turn"].start] = hand.turns / hand.rules.max_turns_per_hand
    target = match.target_score
    obs[_S["scores"]] = [min(s / target, 1.0) for s in scores]
    return obs


def action_mask(legal: list[int]) -> np.ndarray:
    mask = np.zeros(A.NUM_ACTIONS, np.int8)
    mask[legal] = 1
    return mask


def legal_from_mask(mask: np.ndarray) -> list[int]:
    return np.flatnonzero(mask).tolist()
