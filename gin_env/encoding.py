"""Observation vectors and action masks of the gin envs, built from named parts.

Every observation is from one player's seat and holds only what that player could know.
The vector is ``float32`` of length :data:`OBS_SIZE`; :func:`views` returns its named
parts. Cards are indexed ``suit * 13 + rank`` (see :mod:`gin_env.cards`). It is read back
here and nowhere else: :func:`decode_observation` gives one seat's vector as plain values
(:class:`ObservationView`: card masks, counts, the v1 rules), and :func:`part_masks`,
:func:`top_discards` and :func:`card_masks` read the card parts of a batch ``[B, 436]`` in
a few numpy calls.

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

Also here, each with named parts, every layout listed by id in :data:`LAYOUTS`:

- ``gin_obs_v1`` (:data:`OBS_PARTS_V1`, the ``*_v1`` envs): the parts above, then the
  rules in view (:data:`OBS_V1_EXTRA`);
- the move history of ``observation="history"`` (:func:`encode_history`,
  :data:`HISTORY_PARTS`): the last :data:`HISTORY_LENGTH` moves with a padding mask;
- the global state of ``state()`` (:func:`encode_state`, :func:`state_parts`,
  :func:`state_views`), never part of an observation.

Rummy's layouts (its observation and its state) are in :mod:`gin_env.rummy_encoding`.

>>> OBS_SIZE
436
>>> sorted(views(np.zeros(OBS_SIZE, np.float32)))[:3]
['advising', 'deadwood', 'discard_pile']
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gin_env import actions as A
from gin_env.cards import NUM_CARDS
from gin_env.config import GinTable, ThreeHandedConfig
from gin_env.hand import Phase
from gin_env.layout import int_bits, part_slices, part_views
from gin_env.match import Match, ThreeHandedMatch
from gin_env.melds import deadwood_mask

__all__ = [
    "OBS_PARTS",
    "OBS_SLICES",
    "OBS_SIZE",
    "FULL_STOCK",
    "views",
    "CARD_PARTS",
    "ObservationView",
    "RulesInView",
    "decode_observation",
    "mask_to_cards",
    "cards_in",
    "hand_mask",
    "card_masks",
    "part_masks",
    "first_set",
    "top_discards",
    "encode_observation",
    "action_mask",
    "legal_from_mask",
    "OBS_V1_EXTRA",
    "OBS_PARTS_V1",
    "OBS_SLICES_V1",
    "OBS_SIZE_V1",
    "encode_observation_v1",
    "RULE_MAX",
    "rule_scale",
    "HISTORY_LENGTH",
    "HISTORY_PARTS",
    "HISTORY_FEATURES",
    "HISTORY_SLICES",
    "MOVE_KINDS",
    "move_kind",
    "move_card",
    "encode_history",
    "state_parts",
    "state_size",
    "state_views",
    "encode_state",
    "LAYOUTS",
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


OBS_SLICES: dict[str, slice] = part_slices(OBS_PARTS)
OBS_SIZE: int = sum(size for _, size in OBS_PARTS)
_S = OBS_SLICES
# Every part is 0/1 except six numbers side by side: the whole vector is built as one int
# with a bit per entry, unpacked in a single numpy call, and the numbers written after.
_NUMBERS = slice(_S["stock_size"].start, _S["scores"].stop)
assert _NUMBERS.stop - _NUMBERS.start == 6
_ROLE, _PHASE, _ADVISING = _S["role"].start, _S["phase"].start, _S["advising"].start
_CARDS, _SUGGESTION = _S["hand"].start, _S["suggestion"].start
#: The six 52-card parts, side by side from ``hand`` in this order: one packing reads them.
CARD_PARTS = ("hand", "top_discard", "discard_pile", "opponent_took", "opponent_discarded",
              "partner_discarded")  # fmt: skip
assert all(_S[n].start == _CARDS + i * NUM_CARDS for i, n in enumerate(CARD_PARTS))
_CARD_BLOCK = slice(_CARDS, _CARDS + len(CARD_PARTS) * NUM_CARDS)
_ALL_CARDS = (1 << NUM_CARDS) - 1


def views(obs: np.ndarray) -> dict[str, np.ndarray]:
    """The named parts of an observation vector (views, not copies): the v0 layout (436
    entries) or the v1 layout (:data:`OBS_SIZE_V1`, the v0 parts then the rules in view)."""
    obs = _checked(obs)
    slices = OBS_SLICES_V1 if obs.shape[-1] == OBS_SIZE_V1 else OBS_SLICES
    return {name: obs[..., s] for name, s in slices.items()}


def _checked(obs: np.ndarray) -> np.ndarray:
    obs = np.asarray(obs)
    if obs.ndim == 0 or obs.shape[-1] not in (OBS_SIZE, OBS_SIZE_V1):
        raise ValueError(
            f"an observation vector has {OBS_SIZE} entries (v0) or {OBS_SIZE_V1} (v1) on the "
            f"last axis, got shape {obs.shape}; pass observation['observation'], not the dict"
        )
    return obs


def _bits(mask: int) -> np.ndarray:
    """52 zero/one entries of a card mask (uint8)."""
    return int_bits(mask, NUM_CARDS)


def mask_to_cards(part: np.ndarray) -> list[int]:
    return np.flatnonzero(part).tolist()


def cards_in(obs: np.ndarray, part: str) -> list[int]:
    """Card ints set in a 52-card part of an observation vector, e.g. ``cards_in(o, "hand")``
    (action ids for ``suggestion``)."""
    obs = _checked(obs)
    slices = OBS_SLICES_V1 if obs.shape[-1] == OBS_SIZE_V1 else OBS_SLICES
    if part not in slices:
        raise ValueError(f"part must be one of {', '.join(slices)}; got {part!r}")
    return mask_to_cards(obs[slices[part]])


def hand_mask(obs: np.ndarray, part: str = "hand") -> int:
    """A part of one observation vector as an int mask, entry ``i`` at bit ``i``: a card
    mask for a 52-card part (bit ``c`` = card ``c``)."""
    obs = _checked(obs)
    slices = OBS_SLICES_V1 if obs.shape[-1] == OBS_SIZE_V1 else OBS_SLICES
    if part not in slices:
        raise ValueError(f"part must be one of {', '.join(slices)}; got {part!r}")
    return _mask(obs[slices[part]])


def _mask(part: np.ndarray) -> int:
    """Zero/one entries (any count: one part, or parts side by side) as one int, entry ``i``
    at bit ``i``: a single packing."""
    return int.from_bytes(np.packbits(part > 0.5, bitorder="little").tobytes(), "little")


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
    entries = int_bits(bits, OBS_SIZE)
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


# -- named layouts, by id ----------------------------------------------------------------------
# Layout ids for checkpoints and tools: ``LAYOUTS[name]`` gives ``size`` and ``parts``
# (``(name, size)`` pairs in order). Observation layouts are versioned with the envs:
# ``gin_obs_v0`` is the 436-entry vector of ``gin_v0`` / ``three_handed_gin_v0``;
# ``gin_obs_v1`` (``gin_v1`` / ``three_handed_gin_v1``) appends the rules in view.

#: Extra parts of the v1 observation, after the v0 parts.
OBS_V1_EXTRA: tuple[tuple[str, int], ...] = (
    ("partner_took", NUM_CARDS),  # cards the observed hand took from the pile, still held
    ("knock_limit", 1),  # this hand's knock limit / 10 (Oklahoma: from the upcard)
    ("doubled", 1),  # 1 when this hand's points are doubled (Oklahoma spade upcard)
    ("gin_bonus", 1),  # log-scaled (see rule_scale)
    ("undercut_bonus", 1),
    ("big_gin_bonus", 1),  # log-scaled; 0 when big gin is off
    ("big_gin_on", 1),
    ("target_score", 1),
    ("max_turns_per_hand", 1),
    ("oklahoma", 1),
    ("allow_discard_of_taken_card", 1),
    ("adviser_sees_hand", 1),  # three-handed: the option; gin: 0
)
OBS_PARTS_V1: tuple[tuple[str, int], ...] = OBS_PARTS + OBS_V1_EXTRA
OBS_SIZE_V1: int = sum(size for _, size in OBS_PARTS_V1)
OBS_SLICES_V1: dict[str, slice] = part_slices(OBS_PARTS_V1)
#: The largest value of each log-scaled rule option (their validated ranges).
RULE_MAX = {
    "gin_bonus": 1000,
    "undercut_bonus": 1000,
    "big_gin_bonus": 1000,
    "target_score": 100000,
    "max_turns_per_hand": 100000,
}


def rule_scale(name: str, value: int) -> float:
    """A rule option in [0, 1]: ``log(1 + value) / log(1 + max)`` (defaults stay readable:
    a 25 gin bonus is 0.47, a target of 100 is 0.40)."""
    return float(np.log1p(value) / np.log1p(RULE_MAX[name]))


def rules_in_view(table: GinTable) -> np.ndarray:
    """The ``gin_obs_v1`` entries that are the table's alone (after the hand's knock limit
    and multiplier): the same in every hand, so the compiled engine writes them from here.
    A read-only array, computed once per table (tables are frozen)."""
    return _rules_in_view(table)


@functools.lru_cache(maxsize=256)
def _rules_in_view(table: GinTable) -> np.ndarray:
    big = table.big_gin_bonus
    sees = isinstance(table, ThreeHandedConfig) and table.adviser_sees_hand
    out = np.array(
        (
            rule_scale("gin_bonus", table.gin_bonus),
            rule_scale("undercut_bonus", table.undercut_bonus),
            0.0 if big is None else rule_scale("big_gin_bonus", big),
            big is not None,
            rule_scale("target_score", table.target_score),
            rule_scale("max_turns_per_hand", table.max_turns_per_hand),
            table.oklahoma,
            table.allow_discard_of_taken_card,
            sees,
        ),
        np.float32,
    )
    out.flags.writeable = False
    return out


def encode_observation_v1(match: Match, player: int, adviser_sees_hand: bool = True) -> np.ndarray:
    """The ``gin_obs_v1`` vector: the v0 parts, then what the observed hand took from the
    pile, and the rules the hand is played under (see :data:`OBS_V1_EXTRA`)."""
    obs = np.zeros(OBS_SIZE_V1, np.float32)
    encode_observation(match, player, adviser_sees_hand, out=obs[:OBS_SIZE])
    hand = match.hand
    players = match.record.players
    seat = players.index(player) if player in players else 0
    obs[OBS_SIZE : OBS_SIZE + NUM_CARDS] = _bits(hand.took[seat])
    obs[OBS_SIZE + NUM_CARDS] = hand.knock_limit / 10  # these two change hand by hand
    obs[OBS_SIZE + NUM_CARDS + 1] = hand.multiplier == 2
    obs[OBS_SIZE + NUM_CARDS + 2 :] = rules_in_view(match.config)
    obs[-1] = isinstance(match, ThreeHandedMatch) and adviser_sees_hand  # as the match plays
    return obs


# -- the observation decoded: one seat's vector, or a batch's card parts ------------------------
#: The 52-card parts :func:`part_masks` reads (``partner_took``: v1 only).
_MASK_PARTS = (*CARD_PARTS, "partner_took")
_V1_TAIL = OBS_SIZE + NUM_CARDS  # where the v1 numbers begin (after ``partner_took``)
_V1_AT = {name: s.start - _V1_TAIL for name, s in OBS_SLICES_V1.items() if s.start >= _V1_TAIL}


@dataclass(frozen=True, slots=True)
class RulesInView:
    """The rules a ``gin_obs_v1`` vector shows (:data:`OBS_V1_EXTRA`), read back to the
    table's values (the log scale of :func:`rule_scale` undone)."""

    gin_bonus: int
    undercut_bonus: int
    big_gin_bonus: int | None  # None: big gin is off
    target_score: int
    max_turns_per_hand: int
    oklahoma: bool
    allow_discard_of_taken_card: bool
    adviser_sees_hand: bool  # three-handed, as the match plays; gin: False


@dataclass(frozen=True, slots=True)
class ObservationView:
    """One seat's observation vector (layout ``gin_obs_v0`` or ``gin_obs_v1``) read back
    into plain values: :func:`decode_observation` makes it, and it is what every reader of
    the vector (the agents, the words) starts from.

    Card parts are card masks (bit ``c`` = card ``suit * 13 + rank``); ``top_discard`` is
    one card and ``suggestion`` one action id, each -1 when there is none (an empty pile,
    no suggestion). ``hand`` is 0 and ``deadwood`` 0 when the hand is not seen (an adviser
    who may not see the captain's).
    ``turn`` and ``scores`` stay the fractions the vector holds (of the table's
    ``max_turns_per_hand`` and ``target_score``): a v0 vector does not hold those rules.
    The last four fields are the v1 layout's; None for a v0 vector.
    """

    role: int  # box, captain, adviser (gin: dealer, non-dealer)
    phase: int  # gin_env.hand.Phase
    advising: bool
    hand: int
    top_discard: int
    discard_pile: int
    opponent_took: int
    opponent_discarded: int
    partner_discarded: int
    stock_size: int  # cards left in the stock
    deadwood: int  # of ``hand``
    turn: float  # turns played / max_turns_per_hand
    scores: tuple[float, float, float]  # by role, / target_score, capped at 1
    suggestion: int  # the adviser's suggestion (an action id), shown to the captain only
    partner_took: int | None = None  # v1: cards the observed hand took from the pile, held
    knock_limit: int | None = None  # v1: this hand's (Oklahoma: from the upcard)
    doubled: bool | None = None  # v1: this hand's points count twice (Oklahoma)
    rules: RulesInView | None = None  # v1: the rules in view

    def turns(self, max_turns_per_hand: int) -> int:
        """Turns played this hand, at a table of ``max_turns_per_hand``."""
        return int(round(self.turn * max_turns_per_hand))


def decode_observation(obs: np.ndarray) -> ObservationView:
    """The :class:`ObservationView` of one observation vector (shape ``(436,)``, or
    ``(OBS_SIZE_V1,)`` for the v1 layout): the inverse of :func:`encode_observation` and
    :func:`encode_observation_v1`. A batch's card parts: :func:`part_masks`,
    :func:`top_discards`.

    >>> obs = np.zeros(OBS_SIZE, np.float32)
    >>> obs[[OBS_SLICES["role"].start + 1, OBS_SLICES["hand"].start + 3]] = 1
    >>> view = decode_observation(obs)
    >>> view.role, view.hand, view.top_discard, view.rules
    (1, 8, -1, None)
    """
    obs = np.asarray(obs)
    size = obs.shape
    if size != (OBS_SIZE,) and size != (OBS_SIZE_V1,):
        raise ValueError(
            f"observation must have shape ({OBS_SIZE},) (or ({OBS_SIZE_V1},), layout v1), got "
            f"{size}: one seat's observation['observation'] (a batch: part_masks, top_discards)"
        )
    head = obs[:_CARDS].tolist()  # role, phase, advising
    role, phase = head[0:3], head[3:8]
    packed = _mask(obs[_CARD_BLOCK])  # the six card parts side by side: one packing
    top = packed >> NUM_CARDS & _ALL_CARDS
    stock, dw, turn, *scores = obs[_NUMBERS].tolist()
    suggestion = obs[_SUGGESTION:OBS_SIZE]
    sugg = int(suggestion.argmax())
    return ObservationView(
        role=role.index(max(role)),
        phase=phase.index(max(phase)),
        advising=head[_ADVISING] > 0.5,
        hand=packed & _ALL_CARDS,
        top_discard=(top & -top).bit_length() - 1,
        discard_pile=packed >> 2 * NUM_CARDS & _ALL_CARDS,
        opponent_took=packed >> 3 * NUM_CARDS & _ALL_CARDS,
        opponent_discarded=packed >> 4 * NUM_CARDS & _ALL_CARDS,
        partner_discarded=packed >> 5 * NUM_CARDS,
        stock_size=int(round(stock * FULL_STOCK)),
        deadwood=int(round(dw * DEADWOOD_SCALE)),
        turn=turn,
        scores=(scores[0], scores[1], scores[2]),
        suggestion=sugg if suggestion[sugg] > 0.5 else -1,
        **({} if size[0] == OBS_SIZE else _v1_parts(obs)),
    )


def _v1_parts(obs: np.ndarray) -> dict[str, Any]:
    """The fields of :class:`ObservationView` only a v1 vector holds."""
    tail = obs[_V1_TAIL:].tolist()
    at = _V1_AT

    def rule(name: str) -> int:
        return round(math.expm1(tail[at[name]] * math.log1p(RULE_MAX[name])))

    def flag(name: str) -> bool:
        return bool(tail[at[name]] > 0.5)

    return {
        "partner_took": _mask(obs[OBS_SIZE:_V1_TAIL]),
        "knock_limit": round(tail[at["knock_limit"]] * 10),
        "doubled": flag("doubled"),
        "rules": RulesInView(
            gin_bonus=rule("gin_bonus"),
            undercut_bonus=rule("undercut_bonus"),
            big_gin_bonus=rule("big_gin_bonus") if flag("big_gin_on") else None,
            target_score=rule("target_score"),
            max_turns_per_hand=rule("max_turns_per_hand"),
            oklahoma=flag("oklahoma"),
            allow_discard_of_taken_card=flag("allow_discard_of_taken_card"),
            adviser_sees_hand=flag("adviser_sees_hand"),
        ),
    }


def card_masks(part: np.ndarray) -> np.ndarray:
    """52-card parts ``[..., 52]`` (zero/one) as int64 card masks ``[...]`` (bit ``c`` =
    card ``c``), the whole batch in one packing: ``card_masks(obs[:, OBS_SLICES["hand"]])``.

    >>> part = np.zeros((2, NUM_CARDS), np.float32); part[0, [0, 51]] = 1
    >>> card_masks(part).tolist() == [1 | 1 << 51, 0]
    True
    """
    bits = np.packbits(np.asarray(part) > 0.5, axis=-1, bitorder="little")  # [..., 7]
    padded = np.zeros((*bits.shape[:-1], 8), np.uint8)
    padded[..., : bits.shape[-1]] = bits
    return padded.view("<u8")[..., 0].astype(np.int64)


def part_masks(obs: np.ndarray, part: str = "hand") -> np.ndarray:
    """The 52-card part ``part`` of each observation of a batch ``[..., 436]`` (or v1) as
    int64 card masks ``[...]`` (:func:`card_masks`)."""
    obs = _checked(obs)
    if part not in _MASK_PARTS or (part == "partner_took" and obs.shape[-1] == OBS_SIZE):
        raise ValueError(f"part must be a card part, one of {', '.join(_MASK_PARTS)}; got {part!r}")
    return card_masks(obs[..., OBS_SLICES_V1[part]])


def first_set(part: np.ndarray) -> np.ndarray:
    """Index of the first set entry (> 0.5) on the last axis of ``part``, -1 where none
    (int64): the card of a one-hot card part, the action of ``suggestion``."""
    on = np.asarray(part) > 0.5
    return np.where(on.any(axis=-1), on.argmax(axis=-1), -1).astype(np.int64)


def top_discards(obs: np.ndarray) -> np.ndarray:
    """The top of the discard pile of each observation of a batch ``[..., 436]`` (or v1),
    -1 where the pile is empty (int64)."""
    return first_set(_checked(obs)[..., _S["top_discard"]])


# -- the move history (observation="history") ---------------------------------------------------

#: Moves kept in the history: the last ``HISTORY_LENGTH`` moves of the hand, oldest first.
HISTORY_LENGTH = 64
#: Kinds of move, in the order of the ``kind`` one-hot.
MOVE_KINDS = ("draw_stock", "take_discard", "pass", "no_advice", "discard", "knock", "big_gin")
HISTORY_PARTS: tuple[tuple[str, int], ...] = (
    ("who", 3),  # one-hot: the mover relative to the observer (0 self, 1 next, 2 the one after)
    ("advice", 1),  # 1: the adviser's suggestion, not a move of the hand
    ("kind", len(MOVE_KINDS)),  # one-hot (zeros when the observer may not see it)
    ("card", NUM_CARDS),  # one-hot: the card moved, when the observer may see it
)
HISTORY_FEATURES: int = sum(size for _, size in HISTORY_PARTS)
HISTORY_SLICES: dict[str, slice] = part_slices(HISTORY_PARTS)


def move_kind(action: int) -> int:
    """Index in :data:`MOVE_KINDS` of an action id."""
    if action < A.DISCARD:
        return action  # draw_stock, take_discard, pass, no_advice: ids 0..3
    if action < A.KNOCK:
        return 4
    return 5 if action < A.BIG_GIN else 6


def move_card(action: int, top_discard: int | None, stock_top: int | None) -> int:
    """The card a move moves: the pile's top for a take, the stock's top for a draw, the
    discarded card for a discard or knock; -1 for a pass, no advice or big gin."""
    if action == A.TAKE_DISCARD:
        return -1 if top_discard is None else top_discard
    if action == A.DRAW_STOCK:
        return -1 if stock_top is None else stock_top
    if A.DISCARD <= action < A.BIG_GIN:
        return (action - A.DISCARD) % NUM_CARDS
    return -1


def encode_history(
    moves: list[tuple[int, int, int, bool]],
    observer: int,
    num_players: int,
    sees_card: dict[int, bool] | None = None,
    sees_advice: bool = True,
    out: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``history`` array ``[HISTORY_LENGTH, HISTORY_FEATURES]`` and its padding mask
    (1 for a real move) of ``observer``, from the hand's moves ``(player, action, card,
    advice)`` in order.

    Visibility: a card drawn from the stock is seen only by the drawer and by the players
    ``sees_card`` maps to True for that drawer (the adviser who sees the captain's hand);
    a suggestion's kind and card only when ``sees_advice`` (not the box player); every other
    move is public. The last ``HISTORY_LENGTH`` moves are kept, oldest first, padded after.
    """
    hist = np.zeros((HISTORY_LENGTH, HISTORY_FEATURES), np.float32) if out is None else out
    if out is not None:
        hist[:] = 0
    mask = np.zeros(HISTORY_LENGTH, np.int8)
    recent = moves[-HISTORY_LENGTH:]
    card0 = HISTORY_SLICES["card"].start
    kind0 = HISTORY_SLICES["kind"].start
    for i, (player, action, card, advice) in enumerate(recent):
        row = hist[i]
        row[(player - observer) % num_players] = 1.0
        mask[i] = 1
        if advice:
            row[3] = 1.0
            if not sees_advice:
                continue
        row[kind0 + move_kind(action)] = 1.0
        if card < 0:
            continue
        if action == A.DRAW_STOCK and not advice:
            if player != observer and not (sees_card or {}).get(player, False):
                continue
        row[card0 + card] = 1.0
    return hist, mask


# -- the global state (state() of the envs; never in an observation) ----------------------------


def state_parts(num_players: int) -> tuple[tuple[str, int], ...]:
    """Named parts of the gin envs' ``state()`` vector: everything about the position, by
    player index (not relative to anyone). Rows of per-player parts are players 0..n-1."""
    n = num_players
    return (
        ("hands", n * NUM_CARDS),  # each player's cards (the adviser: none)
        ("took", n * NUM_CARDS),  # cards each player took from the pile and still holds
        ("discarded", n * NUM_CARDS),  # cards each player discarded this hand
        ("stock", NUM_CARDS),  # the stock as a set
        ("stock_order", NUM_CARDS),  # (place from the top + 1) / 31 of each stock card
        ("discard_pile", NUM_CARDS),  # the discard pile as a set
        ("pile_order", NUM_CARDS),  # (place from the bottom + 1) / 52 of each pile card
        ("upcard", NUM_CARDS),  # one-hot: this hand's upcard
        ("taken", NUM_CARDS),  # one-hot: the card taken from the pile this turn
        ("roles", n * 3),  # one-hot role of each player (box/captain/adviser; dealer/non-dealer)
        ("scores", n),  # scores / target, capped at 1
        ("phase", 5),  # one-hot, as in the observation
        ("to_act", n),  # one-hot: the player to act (zeros when nobody)
        ("advising", 1),  # 1 when the adviser is to suggest
        ("suggestion", A.NUM_ACTIONS),  # one-hot: the standing suggestion
        ("must_draw_stock", 1),  # both passed the upcard: the non-dealer draws from the stock
        ("passed_upcard", 2),  # by seat of the hand: non-dealer, dealer
        ("turn", 1),  # turns played / max_turns_per_hand
        ("knock_limit", 1),  # this hand's knock limit / 10
        ("doubled", 1),  # 1 when this hand's points are doubled
    )


def state_size(num_players: int) -> int:
    return sum(size for _, size in state_parts(num_players))


def state_views(state: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """The named parts of a gin state vector; per-player card parts as ``(n, 52)``."""
    per_player = {"hands": NUM_CARDS, "took": NUM_CARDS, "discarded": NUM_CARDS, "roles": 3}
    return part_views(
        state, state_parts(num_players), per_player, num_players,
        f"a {num_players}-player gin state",
    )  # fmt: skip


def encode_state(match: Match) -> np.ndarray:
    """The global state of a gin match (see :func:`state_parts`)."""
    n = match.num_players
    state = np.zeros(state_size(n), np.float32)
    v = state_views(state, n)
    hand = match.hand
    rec = match.record
    for seat, player in enumerate(rec.players):
        v["hands"][player] = _bits(hand.hands[seat])
        v["took"][player] = _bits(hand.took[seat])
        v["discarded"][player] = _bits(hand.discarded[seat])
    for i, c in enumerate(hand.stock):
        v["stock"][c] = 1.0
        v["stock_order"][c] = (i + 1) / FULL_STOCK
    for i, c in enumerate(hand.discard_pile):
        v["discard_pile"][c] = 1.0
        v["pile_order"][c] = (i + 1) / NUM_CARDS
    v["upcard"][hand.upcard] = 1.0
    if hand.taken is not None:
        v["taken"][hand.taken] = 1.0
    for p, role in enumerate(rec.roles):
        v["roles"][p, role] = 1.0
        v["scores"][p] = min(match.scores[p] / match.target_score, 1.0)
    v["phase"][hand.phase] = 1.0
    if match.current_player is not None:
        v["to_act"][match.current_player] = 1.0
    if isinstance(match, ThreeHandedMatch):
        v["advising"][0] = match.advising
        if match.suggestion is not None:
            v["suggestion"][match.suggestion] = 1.0
    v["must_draw_stock"][0] = hand.must_draw_stock
    v["passed_upcard"][:] = (hand.passed_upcard[hand.nondealer], hand.passed_upcard[hand.dealer])
    v["turn"][0] = hand.turns / hand.rules.max_turns_per_hand
    v["knock_limit"][0] = hand.knock_limit / 10
    v["doubled"][0] = hand.multiplier == 2
    return state


def _layouts() -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {
        "gin_obs_v0": {"size": OBS_SIZE, "parts": OBS_PARTS},
        "gin_obs_v1": {"size": OBS_SIZE_V1, "parts": OBS_PARTS_V1},
        "gin_history_v0": {
            "size": HISTORY_LENGTH * HISTORY_FEATURES,
            "parts": HISTORY_PARTS,
            "shape": (HISTORY_LENGTH, HISTORY_FEATURES),
        },
    }
    for n in (2, 3):
        out[f"gin_state_{n}p_v0"] = {"size": state_size(n), "parts": state_parts(n)}
    return out


#: Every layout by id: ``{"size": int, "parts": ((name, size), ...)}`` (and ``shape`` for
#: the history). The observation layout of an env is its ``observation_layout`` attribute.
LAYOUTS: dict[str, dict[str, object]] = _layouts()
