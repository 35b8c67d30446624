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
deadwood            1      deadwood of ``hand`` / 128 (0 when the hand is not seen)
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
#: Eleven cards hold at most 110 points, so deadwood / 128 stays below 1.
DEADWOOD_SCALE = 128.0

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
# Every part is 0/1 except six numbers side by side: the whole vector is built as one int
# with a bit per entry, unpacked in a single numpy call, and the numbers written after.
_NUMBERS = slice(_S["stock_size"].start, _S["scores"].stop)
assert _NUMBERS.stop - _NUMBERS.start == 6
_ROLE, _PHASE, _ADVISING = _S["role"].start, _S["phase"].start, _S["advising"].start
_CARDS, _SUGGESTION = _S["hand"].start, _S["suggestion"].start
# The six 52-card parts sit side by side from ``hand``, in this order.
_CARD_PARTS = ("hand", "top_discard", "discard_pile", "opponent_took", "opponent_discarded",
               "partner_discarded")  # fmt: skip
assert all(_S[n].start == _CARDS + i * NUM_CARDS for i, n in enumerate(_CARD_PARTS))
_OBS_BYTES = (OBS_SIZE + 7) // 8
# np.unpackbits is fastest with its default big-endian bit order; reversing the bits of each
# little-endian byte first (bytes.translate) puts bit i of the int at position i.
_REVERSE_BITS = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))


def views(obs: np.ndarray) -> dict[str, np.ndarray]:
    """The named parts of an observation vector (views, not copies)."""
    obs = _checked(obs)
    return {name: obs[..., s] for name, s in OBS_SLICES.items()}


def _checked(obs: np.ndarray) -> np.ndarray:
    obs = np.asarray(obs)
    if obs.ndim == 0 or obs.shape[-1] != OBS_SIZE:
        raise ValueError(
            f"an observation vector has {OBS_SIZE} entries (the last axis), got shape "
            f"{obs.shape}; pass observation['observation'], not the dict"
        )
    return obs


def _bits(mask: int) -> np.ndarray:
    """52 zero/one entries of a card mask (uint8)."""
    raw = mask.to_bytes(7, "little").translate(_REVERSE_BITS)
    return np.unpackbits(np.frombuffer(raw, np.uint8))[:NUM_CARDS]


def mask_to_cards(part: np.ndarray) -> list[int]:
    return np.flatnonzero(part).tolist()


def cards_in(obs: np.ndarray, part: str) -> list[int]:
    """Card ints set in a 52-card part of an observation vector, e.g. ``cards_in(o, "hand")``
    (action ids for ``suggestion``)."""
    if part not in OBS_SLICES:
        raise ValueError(f"part must be one of {', '.join(OBS_SLICES)}; got {part!r}")
    return mask_to_cards(_checked(obs)[OBS_SLICES[part]])


def hand_mask(obs: np.ndarray, part: str = "hand") -> int:
    mask = 0
    for c in cards_in(obs, part):
        mask |= 1 << c
    return mask


def encode_observation(
    match: Match, player: int, adviser_sees_hand: bool = True, out: np.ndarray | None = None
) -> np.ndarray:
    """Fill (and return) the observation vector of ``player`` in ``match``."""
    record = match.record
    hand = match.hand
    phase = hand.phase
    bits = 1 << (_ROLE + record.roles[player]) | 1 << (_PHASE + phase)
    players = record.players
    # Seat watched: a playing player's own seat; the adviser watches the captain (seat 0).
    playing = player in players
    seat = players.index(player) if playing else 0
    opp = 1 - seat
    scores = match.scores
    # Scores by the roles of the hand shown (a finished hand keeps its roles).
    by_role = [0, 0, 0]
    for p, role in enumerate(record.roles):
        by_role[role] = scores[p]
    if isinstance(match, ThreeHandedMatch):
        if match.advising:
            bits |= 1 << _ADVISING
        elif player == match.captain and match.suggestion is not None:
            bits |= 1 << (_SUGGESTION + match.suggestion)
    hands = hand.hands
    discarded = hand.discarded
    own = partner_discarded = 0
    dw = 0.0
    if playing or adviser_sees_hand:
        own = hands[seat]
        partner_discarded = discarded[seat]
        if phase is not Phase.OVER:
            dw = deadwood_mask(own) / DEADWOOD_SCALE
    top = pile = 0
    if hand.discard_pile:
        top = 1 << hand.discard_pile[-1]
        # The pile holds every card discarded (and the upcard) that no hand has taken back.
        pile = (discarded[0] | discarded[1] | 1 << hand.upcard) & ~(hands[0] | hands[1])
    cards = (
        own
        | top << NUM_CARDS
        | pile << 2 * NUM_CARDS
        | hand.took[opp] << 3 * NUM_CARDS
        | discarded[opp] << 4 * NUM_CARDS
        | partner_discarded << 5 * NUM_CARDS
    )
    bits |= cards << _CARDS
    raw = bits.to_bytes(_OBS_BYTES, "little").translate(_REVERSE_BITS)
    entries = np.unpackbits(np.frombuffer(raw, np.uint8))[:OBS_SIZE]
    if out is None:
        obs = entries.astype(np.float32)
    else:
        obs = out
        obs[:] = entries
    target = match.target_score
    obs[_NUMBERS] = (
        hand.stock_size / FULL_STOCK,
        dw,
        hand.turns / hand.rules.max_turns_per_hand,
        min(by_role[0] / target, 1.0),
        min(by_role[1] / target, 1.0),
        min(by_role[2] / target, 1.0),
    )
    return obs


def action_mask(legal: list[int]) -> np.ndarray:
    """The int8 mask of ``legal`` (writable; built in a bytearray, cheaper than numpy's
    fancy indexing for a short list)."""
    mask = bytearray(A.NUM_ACTIONS)
    for a in legal:
        mask[a] = 1
    return np.frombuffer(mask, np.int8)


def legal_from_mask(mask: np.ndarray) -> list[int]:
    return np.flatnonzero(mask).tolist()
