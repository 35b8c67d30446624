"""Observation vectors and action masks of ``rummy_v0``, built from named parts.

An observation is from one seat and holds only what that player could know. Seats are
relative: index 0 of a per-seat part is the observer, index 1 the player to his left
(who plays after him), and so on. The vector is ``float32`` in [0, 1] of length
``observation_size(num_players)``; :func:`views` returns its named parts (per-seat parts
reshaped to ``(num_players, 52)`` or ``(num_players,)``). The table of parts is in the
docstring of :mod:`gin_env.rummy_v0`.

The 52-card parts come first and side by side, so one ``unpackbits`` fills them all.

Also here: the global state of ``state()`` (:func:`encode_state`, :func:`state_parts`,
:func:`state_views`), never part of an observation, and :data:`LAYOUTS`, rummy's layouts
by id (the gin layouts are in :data:`gin_env.encoding.LAYOUTS`).

>>> observation_size(2), observation_size(6)
(640, 1076)
>>> v = views(np.zeros(observation_size(3), np.float32), 3)
>>> v["melds_by_owner"].shape, v["hand_sizes"].shape
((3, 52), (3,))
"""

from __future__ import annotations

import numpy as np

from gin_env.cards import NUM_CARDS
from gin_env.layout import int_bits, part_slices, part_views
from gin_env.rummy import Phase, RummyGame, deal_size
from gin_env.rummy_actions import NUM_ACTIONS

__all__ = [
    "obs_parts",
    "obs_slices",
    "observation_size",
    "num_players_for_size",
    "views",
    "encode_observation",
    "action_mask",
    "cards_of",
    "mask_of",
    "state_parts",
    "state_size",
    "state_views",
    "encode_state",
    "LAYOUTS",
]

# Each card plane is stored as 56 bits (7 bytes) before unpacking; 52 are kept.
_PLANE_BYTES = 7
_CARD_PLANES = (
    "hand",
    "taken_card",
    "top_discard",
    "discard_pile",
    "stock_known",
    "table_sets",
    "table_runs",
)


def obs_parts(num_players: int) -> tuple[tuple[str, int, int], ...]:
    """``(name, rows, width)`` of each part in order; a part spans ``rows * width`` entries."""
    n = num_players
    return tuple((name, 1, NUM_CARDS) for name in _CARD_PLANES) + (
        ("melds_by_owner", n, NUM_CARDS),
        ("known_held", n, NUM_CARDS),
        ("pile_order", 1, NUM_CARDS),
        ("phase", 1, 3),
        ("hand_sizes", 1, n),
        ("melded_before", 1, n),
        ("dealer", 1, n),
        ("to_act", 1, n),
        ("scores", 1, n),
        ("stock_size", 1, 1),
        ("turn", 1, 1),
        ("ace_high_or_low", 1, 1),
    )


def obs_slices(num_players: int) -> dict[str, slice]:
    return part_slices((name, rows * width) for name, rows, width in obs_parts(num_players))


def observation_size(num_players: int) -> int:
    return sum(rows * width for _, rows, width in obs_parts(num_players))


_SIZE_TO_PLAYERS = {observation_size(n): n for n in range(2, 7)}
_SLICES = {n: obs_slices(n) for n in range(2, 7)}
_DEPTHS = np.arange(1, NUM_CARDS + 1, dtype=np.float32) / NUM_CARDS


def num_players_for_size(size: int) -> int:
    """The player count of an observation vector of this length."""
    try:
        return _SIZE_TO_PLAYERS[size]
    except KeyError:
        raise ValueError(f"{size} is not the size of a rummy_v0 observation") from None


def views(obs: np.ndarray, num_players: int | None = None) -> dict[str, np.ndarray]:
    """The named parts of an observation vector (views, not copies)."""
    n = num_players_for_size(obs.shape[-1]) if num_players is None else num_players
    out = {}
    for name, rows, width in obs_parts(n):
        part = obs[..., _SLICES[n][name]]
        out[name] = part.reshape(part.shape[:-1] + (rows, width)) if rows > 1 else part
    return out


def cards_of(part: np.ndarray) -> list[int]:
    """Card ints set in a 52-entry part, e.g. ``cards_of(views(o)["hand"])``."""
    return np.flatnonzero(part).tolist()


def mask_of(part: np.ndarray) -> int:
    """A 52-entry part as a card mask."""
    mask = 0
    for c in np.flatnonzero(part).tolist():
        mask |= 1 << c
    return mask


def encode_observation(game: RummyGame, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """Fill (and return) the observation vector of ``seat``."""
    n = game.num_players
    s = _SLICES[n]
    size = s["ace_high_or_low"].stop
    obs = np.zeros(size, np.float32) if out is None else out
    if out is not None:
        obs[:] = 0
    order = [(seat + i) % n for i in range(n)]  # relative seats: me, my left, ...
    # -- card planes: packed into one int, 56 bits apiece, unpacked at once ---------------
    my_turn = game.current == seat and game.phase != Phase.OVER
    taken = game.taken_card if my_turn and game.taken_card >= 0 else -1
    top = game.top_discard
    sets = runs = 0
    owned = [0] * n
    for m in game.table:
        if m.is_set:
            sets |= m.cards
        else:
            runs |= m.cards
        owned[m.owner] |= m.cards
    pile = 0
    for c in game.discard_pile:
        pile |= 1 << c
    planes = [
        game.hands[seat],
        (1 << taken) if taken >= 0 else 0,
        (1 << top) if top >= 0 else 0,
        pile,
        game.stock_known,
        sets,
        runs,
    ]
    planes += [owned[p] for p in order]
    planes += [0] + [game.public_cards[p] & game.hands[p] for p in order[1:]]
    packed = 0
    for i, plane in enumerate(planes):
        packed |= plane << (56 * i)
    raw = np.frombuffer(packed.to_bytes(_PLANE_BYTES * len(planes), "little"), np.uint8)
    bits = np.unpackbits(raw, bitorder="little").reshape(len(planes), 56)[:, :NUM_CARDS]
    obs[: len(planes) * NUM_CARDS] = bits.reshape(-1)
    # -- the rest: one list, written at once (scalar writes into numpy are slow) -------------
    if game.discard_pile:
        depth = obs[s["pile_order"]]
        depth[game.discard_pile] = _DEPTHS[: len(game.discard_pile)]
    over = game.phase == Phase.OVER
    phase = [0.0, 0.0, 0.0]
    phase[int(game.phase)] = 1.0
    k = deal_size(n) + 1
    target = game.config.target_score
    one_hot = [0.0] * n
    dealer = one_hot.copy()
    dealer[(game.dealer - seat) % n] = 1.0
    to_act = one_hot.copy()
    if not over:
        to_act[(game.current - seat) % n] = 1.0
    tail = (
        phase
        + [game.hands[p].bit_count() / k for p in order]
        + [float(game.melded_before[p]) for p in order]
        + dealer
        + to_act
        + ([min(game.scores[p] / target, 1.0) for p in order] if target else one_hot)
        + [
            len(game.stock) / NUM_CARDS,
            game.turns / game.config.max_turns,
            float(game.config.ace_high_or_low),
        ]
    )
    obs[s["phase"].start :] = tail
    return obs


def action_mask(legal: list[int], out: np.ndarray | None = None) -> np.ndarray:
    """The int8 mask of ``NUM_ACTIONS`` entries with the legal ids set."""
    mask = np.zeros(NUM_ACTIONS, np.int8) if out is None else out
    if out is not None:
        mask[:] = 0
    mask[legal] = 1
    return mask


# -- the global state (state() of rummy_v0; never in an observation) ---------------------------


def _card_bits(mask: int) -> np.ndarray:
    return int_bits(mask, NUM_CARDS)


def state_parts(num_players: int) -> tuple[tuple[str, int], ...]:
    """Named parts of ``rummy_v0``'s ``state()``, by seat (not relative to anyone)."""
    n = num_players
    return (
        ("hands", n * NUM_CARDS),  # each seat's cards
        ("public_cards", n * NUM_CARDS),  # cards the others saw go into each hand
        ("melds_by_owner", n * NUM_CARDS),  # cards in the melds each seat laid down
        ("stock", NUM_CARDS),  # the stock as a set
        ("stock_order", NUM_CARDS),  # (place from the top + 1) / 52
        ("discard_pile", NUM_CARDS),
        ("pile_order", NUM_CARDS),  # (place from the bottom + 1) / 52
        ("stock_known", NUM_CARDS),  # cards of a turned-over pile still in the stock
        ("table_sets", NUM_CARDS),
        ("table_runs", NUM_CARDS),
        ("taken", NUM_CARDS),  # one-hot: the card taken from the pile this turn
        ("phase", 3),  # one-hot: draw, play, over
        ("to_act", n),  # one-hot (zeros when the hand is over)
        ("dealer", n),
        ("scores", n),  # / target_score, capped at 1 (0 without a target)
        ("melded_before", n),
        ("turn", 1),  # turns / max_turns
        ("melded_this_turn", 1),
    )


def state_size(num_players: int) -> int:
    return sum(size for _, size in state_parts(num_players))


def state_views(state: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """The named parts of a rummy state vector; per-seat card parts as ``(n, 52)``."""
    per_seat = {"hands": NUM_CARDS, "public_cards": NUM_CARDS, "melds_by_owner": NUM_CARDS}
    return part_views(
        state, state_parts(num_players), per_seat, num_players,
        f"a {num_players}-player rummy state",
    )  # fmt: skip


def encode_state(game: RummyGame) -> np.ndarray:
    """The global state of a rummy game (see :func:`state_parts`)."""
    n = game.num_players
    state = np.zeros(state_size(n), np.float32)
    v = state_views(state, n)
    for seat in range(n):
        v["hands"][seat] = _card_bits(game.hands[seat])
        v["public_cards"][seat] = _card_bits(game.public_cards[seat])
    sets = runs = 0
    for meld in game.table:
        v["melds_by_owner"][meld.owner] += _card_bits(meld.cards)
        if meld.is_set:
            sets |= meld.cards
        else:
            runs |= meld.cards
    v["table_sets"][:] = _card_bits(sets)
    v["table_runs"][:] = _card_bits(runs)
    for i, c in enumerate(reversed(game.stock)):  # the stock's top is its last item
        v["stock"][c] = 1.0
        v["stock_order"][c] = (i + 1) / NUM_CARDS
    for i, c in enumerate(game.discard_pile):
        v["discard_pile"][c] = 1.0
        v["pile_order"][c] = (i + 1) / NUM_CARDS
    v["stock_known"][:] = _card_bits(game.stock_known)
    if game.taken_card >= 0:
        v["taken"][game.taken_card] = 1.0
    v["phase"][int(game.phase)] = 1.0
    if game.phase != Phase.OVER:
        v["to_act"][game.current] = 1.0
    v["dealer"][game.dealer] = 1.0
    target = game.config.target_score
    for seat in range(n):
        v["scores"][seat] = min(game.scores[seat] / target, 1.0) if target else 0.0
        v["melded_before"][seat] = game.melded_before[seat]
    v["turn"][0] = min(game.turns / game.config.max_turns, 1.0)
    v["melded_this_turn"][0] = game.turn.melded
    return state


#: Rummy's layouts by id, as :data:`gin_env.encoding.LAYOUTS` lists the gin ones:
#: ``rummy_state_{n}p_v0`` for 2 to 6 players, ``{"size": int, "parts": ((name, size), ...)}``.
LAYOUTS: dict[str, dict[str, object]] = {
    f"rummy_state_{n}p_v0": {"size": state_size(n), "parts": state_parts(n)} for n in range(2, 7)
}
