"""A learned value of the full state of a two-seat gin hand, for AIVAT-style corrections.

In an evaluation every card is known afterwards, so the value ``V`` of a state may look at
both hands, the pile and the stock. :class:`HandValue` is a small MLP (numpy forward,
:func:`agents.trained.mlp_forward`) of :func:`state_features` that predicts the **box's
points** of the hand (seat 1 of the hand, the dealer; the captain is seat 0), saved as a
small ``.npz`` (:meth:`HandValue.save` / :meth:`HandValue.load`). The package ships one,
:data:`DEFAULT_VALUE_PATH`, the value ``gin-rummy eval three --adjust value`` uses by
default; its ``info`` records how it was fitted.

:func:`value_corrections` turns ``V`` into chance corrections of one played hand: ``V`` of
the state after the deal (its mean over shuffled decks comes from a deals-only Monte
Carlo, :func:`deal_values`), and at each draw from the stock ``V(state after the card
drawn) - mean of V(state after c)`` over every card ``c`` then in the stock, everything
else held equal (:func:`draw_alternatives`, one batched forward per draw). The next card
is uniform over the stock, so each draw correction has mean 0 given the hand so far,
whatever ``V`` is: ``y - beta . corrections`` stays unbiased for any ``V`` and ``beta``
fitted on other hands.

Layers: rules (``gin_env``) and numpy below; no torch (fitting a value is research, in
``studies/team_vs_solo/value_fit.py``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.trained import mlp_forward
from gin_env import actions as A
from gin_env.config import HandRules
from gin_env.fast_melds import discard_deadwoods_batch
from gin_env.hand import GinHand, Phase
from gin_env.layout import part_slices
from gin_env.melds import deadwood_mask, discard_deadwoods, showdown

__all__ = [
    "DEFAULT_VALUE_PATH",
    "FEATURE_SLICES",
    "FEATURE_SIZE",
    "SEAT_FEATURES",
    "HandValue",
    "least_deadwood",
    "replay_hand",
    "state_features",
    "draw_alternatives",
    "value_corrections",
    "deal_values",
]

SEAT_CAPTAIN, SEAT_BOX = 0, 1  # the hand's seats; the box deals
#: The shipped value, installed with the package as ``gin_eval/data/hand_value.npz`` (its
#: ``info`` says how it was fitted; docs/team_vs_solo.md has the study).
DEFAULT_VALUE_PATH = Path(__file__).parent / "data" / "hand_value.npz"
_STOCK_NORM = 31.0  # cards in the stock after the deal
_DW_NORM = 10.0
#: Derived numbers per seat (captain, then box), deadwood from ``gin_env.melds``: ``least``
#: the seat's least deadwood (after its best discard when it holds 11 cards) / 10; ``knock``
#: 1 if that is within the knock limit; ``gin`` 1 if it is 0; ``margin`` when within the
#: limit, (the other seat's least deadwood - this one's) / 10, else 0 (a knock's points
#: before lay-offs); ``eleven`` 1 if the seat holds 11 cards (it must discard);
#: ``knock_now`` for a seat holding 11 cards within the limit, the best net points / 10 of
#: knocking now (over its discards within the limit, :func:`gin_env.melds.showdown` with the
#: hand's gin and undercut bonuses, lay-offs included; negative for an undercut), else 0;
#: the seat's next draw from the stock, for the 10 cards it keeps (after its discard of least
#: deadwood when it holds 11): ``outs_knock`` / ``outs_gin`` the share of the cards in the
#: stock that would bring its least deadwood within the limit / to 0, ``next_least`` the mean
#: over the stock of that least deadwood / 10 (bulk deadwood by :mod:`gin_env.fast_melds`,
#: the compiled kernels of the same rules); for a seat holding 11 cards, its discard of least
#: deadwood offered to the other seat: ``feed_knock`` 1 if taking it would bring the other
#: within the limit, ``feed_points`` then the other's ``knock_now`` (else 0).
SEAT_FEATURES = ("least", "knock", "gin", "margin", "eleven", "knock_now", "feed_knock",
                 "feed_points", "outs_knock", "outs_gin", "next_least")  # fmt: skip
_OUTS = 3  # the last three of SEAT_FEATURES
#: Where each part of :func:`state_features` lies (from the captain's side: seat 0 first).
#: No card bits: on the pilot, the 52-bit blocks of both hands, the pile and its top made the
#: MLP overfit from the first epoch and its corrections weaker (see docs/team_vs_solo.md).
FEATURE_SLICES: dict[str, slice] = part_slices(
    [
        ("stock_size", 1),
        ("to_move", 2),
        ("phase", 4),
        ("knock_limit", 1),
        ("captain_derived", len(SEAT_FEATURES)),
        ("box_derived", len(SEAT_FEATURES)),
    ]
)
#: The length of :func:`state_features`' vector.
FEATURE_SIZE = FEATURE_SLICES["box_derived"].stop
_PHASES = (Phase.UPCARD_NONDEALER, Phase.UPCARD_DEALER, Phase.DRAW, Phase.DISCARD)


@functools.lru_cache(maxsize=1 << 18)
def least_deadwood(hand: int) -> int:
    """The least deadwood of ``hand``: after its best discard when it holds 11 cards."""
    if hand.bit_count() > 10:
        return min(discard_deadwoods(hand).values())
    return deadwood_mask(hand)


@functools.lru_cache(maxsize=1 << 16)
def _knock_now(own: int, other: int, limit: int, gin_bonus: int, undercut_bonus: int) -> int:
    """The best net points (the knocker's minus the defender's) of knocking now with the 11
    cards ``own`` against ``other``, over the discards that leave ``own`` within ``limit``."""
    best = None
    for card, dw in discard_deadwoods(own).items():
        if dw <= limit:
            sd = showdown(own & ~(1 << card), other, limit, gin_bonus, undercut_bonus)
            net = sd.knocker_points - sd.defender_points
            best = net if best is None else max(best, net)
    assert best is not None  # called only within the limit
    return best


def _keep10(hand: int) -> int:
    """``hand`` after its discard of least deadwood (the lowest such card) if it holds 11."""
    if hand.bit_count() <= 10:
        return hand
    options = discard_deadwoods(hand)
    drop = min(options, key=lambda c: (options[c], c))
    return hand & ~(1 << drop)


def _next_least(keeps: np.ndarray, stock: np.ndarray) -> np.ndarray:
    """``out[i, j]``: the least deadwood of the 10 cards ``keeps[i]`` plus ``stock[j]``
    after the best discard."""
    masks = keeps[:, None] | (np.int64(1) << stock.astype(np.int64))[None, :]
    dd = discard_deadwoods_batch(masks.ravel())
    return np.where(dd < 0, 1 << 20, dd).min(axis=1).reshape(masks.shape)


def _outs(least: np.ndarray, limit: int, keep: np.ndarray | None = None) -> np.ndarray:
    """``(rows, 3)``: per row of ``least`` (next draws' least deadwoods), the share within
    ``limit``, the share at 0 and the mean / 10, over the entries ``keep`` allows."""
    w = np.ones_like(least, dtype=float) if keep is None else keep.astype(float)
    n = np.maximum(w.sum(axis=1), 1.0)
    return np.column_stack([((least <= limit) * w).sum(axis=1) / n,
                            ((least == 0) * w).sum(axis=1) / n,
                            (least * w).sum(axis=1) / n / _DW_NORM])  # fmt: skip


def _derived(own: int, other: int, hand: GinHand) -> list[float]:
    return _derived_from(own, other, least_deadwood(own), least_deadwood(other), hand)


def _derived_from(own: int, other: int, d: int, d_other: int, hand: GinHand) -> list[float]:
    limit = hand.knock_limit
    ok = d <= limit
    eleven = own.bit_count() > 10
    r = hand.rules
    now = feed = feed_pts = 0.0
    if ok and eleven:
        now = _knock_now(own, other, limit, r.gin_bonus, r.undercut_bonus) * hand.multiplier
        now /= _DW_NORM
    if eleven:
        fed = other | (own & ~_keep10(own))
        if least_deadwood(fed) <= limit:
            feed = 1.0
            feed_pts = _knock_now(fed, _keep10(own), limit, r.gin_bonus, r.undercut_bonus)
            feed_pts *= hand.multiplier / _DW_NORM
    return [d / _DW_NORM, float(ok), float(d == 0), (d_other - d) / _DW_NORM if ok else 0.0,
            float(eleven), now, feed, feed_pts] + [0.0] * _OUTS  # fmt: skip


def state_features(hand: GinHand) -> np.ndarray:
    """The :data:`FEATURE_SIZE` float32 features of ``hand`` (a hand not over) from the
    captain's side, laid out by :data:`FEATURE_SLICES`: the stock size / 31, the seat to
    move (captain, box), the phase (upcard offered to the non-dealer, to the dealer, draw,
    discard), the knock limit / 10 and per seat the :data:`SEAT_FEATURES`, which see both
    hands and the cards in the stock (not their order)."""
    if hand.is_over:
        raise ValueError("state_features needs a hand that is not over")
    x = np.zeros(FEATURE_SIZE, dtype=np.float32)
    cap, box = hand.hands[SEAT_CAPTAIN], hand.hands[SEAT_BOX]
    x[FEATURE_SLICES["stock_size"]] = hand.stock_size / _STOCK_NORM
    x[FEATURE_SLICES["to_move"].start + hand.current] = 1
    x[FEATURE_SLICES["phase"].start + _PHASES.index(hand.phase)] = 1
    limit = hand.knock_limit
    x[FEATURE_SLICES["knock_limit"]] = limit / _DW_NORM
    x[FEATURE_SLICES["captain_derived"]] = _derived(cap, box, hand)
    x[FEATURE_SLICES["box_derived"]] = _derived(box, cap, hand)
    stock = np.array(hand.stock, dtype=np.int64)
    if stock.size:
        keeps = np.array([_keep10(cap), _keep10(box)], dtype=np.int64)
        outs = _outs(_next_least(keeps, stock), limit)
        for k, part in enumerate(("captain_derived", "box_derived")):
            x[FEATURE_SLICES[part].stop - _OUTS : FEATURE_SLICES[part].stop] = outs[k]
    return x


def draw_alternatives(hand: GinHand) -> tuple[list[int], np.ndarray]:
    """At a draw decision of ``hand``: the cards in the stock (top first) and, for each,
    :func:`state_features` of the hand had the seat to move drawn it from the stock
    (``(cards, FEATURE_SIZE)``), everything else held equal. Row 0 is the card the stock
    would give."""
    if hand.phase is not Phase.DRAW:
        raise ValueError(
            f"draw_alternatives needs a hand at a draw decision, got {hand.phase.name}"
        )
    stock = hand.stock
    seat = hand.current
    held, other = hand.hands[seat], hand.hands[1 - seat]
    base = state_features(hand)
    base[FEATURE_SLICES["stock_size"]] = (hand.stock_size - 1) / _STOCK_NORM
    base[FEATURE_SLICES["phase"]] = 0
    base[FEATURE_SLICES["phase"].start + _PHASES.index(Phase.DISCARD)] = 1
    x = np.repeat(base[None, :], len(stock), axis=0)
    mine = FEATURE_SLICES["captain_derived" if seat == SEAT_CAPTAIN else "box_derived"]
    theirs = FEATURE_SLICES["box_derived" if seat == SEAT_CAPTAIN else "captain_derived"]
    d_other = least_deadwood(other)
    keeps = np.empty(len(stock), dtype=np.int64)
    for i, card in enumerate(stock):
        drawn = held | 1 << card
        d = least_deadwood(drawn)
        x[i, mine] = _derived_from(drawn, other, d, d_other, hand)
        x[i, theirs] = _derived_from(other, drawn, d_other, d, hand)
        keeps[i] = _keep10(drawn)
    # The next draws: from the stock without the card drawn (the diagonal).
    cards = np.array(stock, dtype=np.int64)
    rest = ~np.eye(len(stock), dtype=bool)
    x[:, mine.stop - _OUTS : mine.stop] = _outs(_next_least(keeps, cards), hand.knock_limit, rest)
    other_least = np.broadcast_to(_next_least(np.array([other], np.int64), cards), rest.shape)
    x[:, theirs.stop - _OUTS : theirs.stop] = _outs(other_least, hand.knock_limit, rest)
    return stock, x


def replay_hand(
    deck: Sequence[int],
    actions: Sequence[tuple[int, int]],
    rules: HandRules | None = None,
    on_draw: Callable[[GinHand], Any] | None = None,
    after_draw: Callable[[GinHand], Any] | None = None,
) -> GinHand:
    """The hand ``GinHand(deck, rules, dealer=1)`` after ``actions`` (``(seat, action)`` as
    ``GinHand.actions`` records them; seat 0 the captain, 1 the box). ``on_draw(hand)`` is
    called before each draw from the stock, ``after_draw(hand)`` just after it. A seat or
    action the hand does not allow raises ValueError."""
    hand = GinHand(deck, rules, dealer=SEAT_BOX)
    for k, (seat, action) in enumerate(actions):
        if seat != hand.current or hand.is_over:
            raise ValueError(
                f"replay diverged at action {k}: seat {seat} recorded, "
                + ("the hand is over" if hand.is_over else f"seat {hand.current} to act")
            )
        stock_draw = action == A.DRAW_STOCK and hand.phase is Phase.DRAW
        if stock_draw and on_draw is not None:
            on_draw(hand)
        hand.step(action)
        if stock_draw and after_draw is not None:
            after_draw(hand)
    return hand


class HandValue:
    """``V(state)``: an MLP of :func:`state_features` (inputs standardised by ``shift`` and
    ``scale``, ``layers`` torch-shaped ``(weight, bias)``, ReLU between layers), the
    expected box points of the hand. ``HandValue.zero()`` is ``V = 0``."""

    def __init__(
        self,
        layers: Sequence[tuple[np.ndarray, np.ndarray]],
        shift: np.ndarray | None = None,
        scale: np.ndarray | None = None,
        info: dict[str, Any] | None = None,
    ) -> None:
        layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        if not layers or layers[0][0].ndim != 2 or layers[0][0].shape[1] != FEATURE_SIZE:
            raise ValueError(
                f"a HandValue's first layer must take the {FEATURE_SIZE} state features"
            )
        for k, (w, b) in enumerate(layers):
            if w.ndim != 2 or b.shape != (w.shape[0],):
                raise ValueError(f"layer {k}: weight (out, in) and bias (out,) expected")
            if k and w.shape[1] != layers[k - 1][0].shape[0]:
                raise ValueError(f"layer {k} takes {w.shape[1]} inputs, the layer before gives "
                                 f"{layers[k - 1][0].shape[0]}")  # fmt: skip
        if layers[-1][0].shape[0] != 1:
            raise ValueError("a HandValue's last layer must give one value")
        self.layers = layers
        self.shift = np.zeros(FEATURE_SIZE, np.float32) if shift is None else np.asarray(
            shift, np.float32)  # fmt: skip
        self.scale = np.ones(FEATURE_SIZE, np.float32) if scale is None else np.asarray(
            scale, np.float32)  # fmt: skip
        if self.shift.shape != (FEATURE_SIZE,) or self.scale.shape != (FEATURE_SIZE,):
            raise ValueError(f"shift and scale must have {FEATURE_SIZE} values")
        if not np.all(self.scale > 0):
            raise ValueError("scale must be > 0")
        self.info = dict(info or {})

    @classmethod
    def zero(cls) -> HandValue:
        """``V = 0`` everywhere (no correction: the estimator is the plain mean)."""
        return cls([(np.zeros((1, FEATURE_SIZE)), np.zeros(1))])

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """``V`` of each row of ``x`` (``(n, FEATURE_SIZE)``, or one state): shape ``(n,)``."""
        xv = np.asarray(x, np.float32)
        one = xv.ndim == 1
        xv = np.atleast_2d(xv)
        if xv.shape[1] != FEATURE_SIZE:
            raise ValueError(f"V takes {FEATURE_SIZE} features a state, got {xv.shape[1]}")
        out = mlp_forward((xv - self.shift) / self.scale, self.layers, "relu")[:, 0]
        return out[:1] if one else out

    def save(self, path: str | Path) -> Path:
        """Write the weights, the standardisation and ``info`` (JSON) to ``path`` (.npz)."""
        arrays: dict[str, np.ndarray] = {"shift": self.shift, "scale": self.scale}
        for k, (w, b) in enumerate(self.layers):
            arrays[f"w{k}"], arrays[f"b{k}"] = w, b
        arrays["info"] = np.array(json.dumps(self.info))
        arrays["feature_size"] = np.array(FEATURE_SIZE)
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        with p.open("wb") as f:
            np.savez_compressed(f, **arrays)  # type: ignore[arg-type]
        return p

    @classmethod
    def load(cls, path: str | Path) -> HandValue:
        """A :class:`HandValue` saved by :meth:`save`; a missing file or one of another
        feature size raises ValueError naming it."""
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"no hand value file at {p}")
        with np.load(p, allow_pickle=False) as z:
            size = int(z["feature_size"]) if "feature_size" in z else -1
            if size != FEATURE_SIZE:
                raise ValueError(f"{p} holds a value of {size} features; this code has "
                                 f"{FEATURE_SIZE}")  # fmt: skip
            n = sum(1 for k in z.files if k.startswith("w"))
            layers = [(z[f"w{k}"], z[f"b{k}"]) for k in range(n)]
            return cls(layers, z["shift"], z["scale"], json.loads(str(z["info"])))


def value_corrections(
    deck: Sequence[int],
    actions: Sequence[tuple[int, int]],
    value: HandValue,
    rules: HandRules | None = None,
) -> np.ndarray:
    """``[V(deal), captain's draws, box's draws]`` of one played hand: ``V`` of the state
    after the deal (its mean over decks: :func:`deal_values`), and per seat the sum over its
    draws from the stock of ``V(after the card drawn) - mean over the stock of V(after
    that card)`` (each of mean 0 given the hand so far)."""
    out = np.zeros(3)
    out[0] = value(state_features(GinHand(deck, rules, dealer=SEAT_BOX)))[0]

    def add(hand: GinHand) -> None:
        v = value(draw_alternatives(hand)[1])
        out[1 + hand.current] += v[0] - v.mean()

    replay_hand(deck, actions, rules, add)
    return out


def deal_values(
    value: HandValue, decks: Sequence[Sequence[int]], rules: HandRules | None = None
) -> np.ndarray:
    """``V`` of the state after the deal of each deck (one batched forward)."""
    x = np.array([state_features(GinHand(d, rules, dealer=SEAT_BOX)) for d in decks])
    return value(x) if len(x) else np.zeros(0)
