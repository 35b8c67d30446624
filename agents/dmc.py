"""Deep Monte-Carlo (DMC) players: a Q(s, a) network over the observation and each legal
action, played with numpy alone.

The network scores every legal action of a decision at once: its input is the seat's
observation (:mod:`gin_env.encoding`, 436 numbers) and an encoding of the candidate action
(:data:`ACTION_FEATURES`, 61 numbers):

==============  =====  ==============================================================
part            size   meaning
==============  =====  ==============================================================
kind            7      one-hot: draw, take, pass, no-advice, discard, knock, big gin
card            52     one-hot: the card discarded / knocked with, or the card taken
deadwood        1      deadwood of the hand after the move / 100: after discarding the
                       card; after taking the top card and the best discard; the 10-card
                       hand's for draw and pass; 0 for big gin, no advice or an unseen hand
l2              1      1 when the move is the one the L2 heuristic plays here (only in
                       networks trained with ``features="l2"``; 0 otherwise)
suggested       1      only in networks trained with ``features="advice"`` (their action
                       input is one wider, :func:`action_size`): 1 when the move is the
                       adviser's suggestion in the observation's ``suggestion`` part
                       (captain decisions of the three-handed game), else 0
==============  =====  ==============================================================

``features="advice"`` leaves the first 61 entries as in ``"basic"`` (``l2`` is 0) and
adds the ``suggested`` column, so a captain need not learn the match between the
observation's 109-wide suggestion one-hot and its candidate moves from data. The
``"basic"`` and ``"l2"`` encodings (:data:`ACTION_FEATURES` wide) are unchanged.

``features="l2score"`` is ``"l2"`` (L2's move marked) plus one column, ``l2_score``: L2's
own score of the move (:meth:`agents.heuristic.HeuristicAgent.move_scores`: the hand it
keeps, its meld chances, the danger of the discard) less the best score of the decision,
/ 20, clipped to [0, 3] (0 for moves L2 does not score). A network then starts from L2's
judgement of every move, not only of its choice.

``features="facts"`` (no L2) is ``"basic"`` (the first 61 entries unchanged) plus
:data:`FACTS` (10 columns): what the seat can tell about the move from its observation
alone, from the compiled kernel :func:`gin_env.fast_facts.pair_facts_batch` (its docstring
defines each column; :func:`pair_facts_reference` is the readable form). For the hand the
move leaves (as for ``deadwood``): the cards in melds / 10, the live outs (unseen cards
that would join a meld) / 20 and the two-card meld starts with an unseen completing card
/ 10; for a discard or knock card: whether and how many of the opponent's pick-ups meld
with it (/ 4), its rank-mates / suit neighbours the opponent cannot get (/ 3, / 4) and its
points / 10; for take: whether the top card melds with the hand now and the deadwood it
saves / 50. "Unseen" is what the seat has not seen: not its hand, the pile, a discard or
an opponent's pick-up.

The first layer is split in two (``W_obs @ obs + W_act @ action``), so a decision's
observation goes through it once and each candidate only adds its action's part. The
player picks the legal action with the highest Q (its own side's expected hand points /
100). A checkpoint may hold one network per role (``role_nets``) or one network for all
roles (the role is part of the observation).

**The move history** (``history="lstm"``, as DouZero's LSTM over the recent moves): the
network also reads the seat's move history, the ``history`` ``[64, 63]`` and
``history_mask`` ``[64]`` of an env made with ``observation="history"``
(:func:`gin_env.encoding.encode_history`: the hand's moves oldest first, padding after).
An LSTM (:data:`HISTORY_DIM` units) runs over the real moves; its output after the last one
(zeros before the hand's first move) joins the observation at the first layer, whose
``W_obs`` is then ``OBS + HISTORY_DIM`` wide (observation first). Such a player needs the
history in every observation it is given: :class:`DMCAgent` refuses one without it, with an
error that says to make the env with ``observation="history"`` (:meth:`DMCAgent.env_options`).

The same network in torch, for training, is :func:`torch_model` (torch is imported only
there: the ``train`` extra); :func:`qnets` turns trained torch networks into their numpy
twins :class:`QNet`, which score every pair exactly as the torch build does.

A checkpoint is an ``.npz``: the weights and a ``meta`` JSON string holding, among the
run's figures, the input layout it was trained on (:func:`input_layout`); :func:`load`
refuses a checkpoint whose layout differs from the current one instead of guessing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import decode
from agents.heuristic import HeuristicAgent
from gin_env import actions as A
from gin_env.cards import NUM_CARDS
from gin_env.encoding import (
    CARD_PARTS,
    HISTORY_FEATURES,
    HISTORY_LENGTH,
    HISTORY_PARTS,
    OBS_PARTS,
    OBS_SIZE,
    OBS_SLICES,
    card_masks,
    decode_observation,
    part_masks,
    top_discards,
)
from gin_env.fast_facts import FACT_SCALES, FACTS, NUM_FACTS, pair_facts_batch
from gin_env.fast_melds import deadwood_batch, discard_deadwoods_batch
from gin_env.melds import ALL_MELDS, deadwood_mask, discard_deadwoods

__all__ = [
    "ACTION_FEATURES",
    "HISTORY_MODES",
    "HISTORY_DIM",
    "LSTMEncoder",
    "FEATURE_MODES",
    "action_size",
    "encode_pairs",
    "l2_scores",
    "L2_MODES",
    "FORMAT",
    "DMCAgent",
    "QNet",
    "torch_model",
    "qnets",
    "net_groups",
    "input_layout",
    "pair_features",
    "pair_deadwoods",
    "pair_deadwoods_reference",
    "FACTS",
    "pair_facts",
    "pair_facts_reference",
    "load",
    "save",
]

FORMAT = "gin-env-dmc-v1"
FEATURE_MODES = ("basic", "l2", "advice", "l2score", "facts")
#: ``history``: the network reads the observation alone, or also the move history (LSTM).
HISTORY_MODES = ("none", "lstm")
#: Units of the history LSTM (its output's width at the first layer).
HISTORY_DIM = 64
#: The modes that ask L2 for its move at every decision (and allow a ``margin``).
L2_MODES = ("l2", "l2score")
KINDS = ("draw", "take", "pass", "no_advice", "discard", "knock", "big_gin")
ACTION_FEATURES = len(KINDS) + NUM_CARDS + 2
_CARD0 = len(KINDS)
_DW = _CARD0 + NUM_CARDS
_L2 = _DW + 1
_SUGGESTION = OBS_SLICES["suggestion"].start


def _check_features(features: str) -> None:
    if features not in FEATURE_MODES:
        raise ValueError(f"features must be one of {', '.join(FEATURE_MODES)}; got {features!r}")


def _check_history(history: str) -> None:
    if history not in HISTORY_MODES:
        raise ValueError(f"history must be one of {', '.join(HISTORY_MODES)}; got {history!r}")


def action_size(features: str = "basic") -> int:
    """Width of the action encoding of a feature mode: :data:`ACTION_FEATURES` (61) for
    ``"basic"`` and ``"l2"``, one more for ``"advice"`` (``suggested``) and ``"l2score"``
    (``l2_score``), :data:`FACTS` (10) more for ``"facts"``."""
    _check_features(features)
    if features == "facts":
        return ACTION_FEATURES + NUM_FACTS
    return ACTION_FEATURES + (features in ("advice", "l2score"))


def _kind_card_table() -> np.ndarray:
    """Row ``a``: the kind and card one-hots of action id ``a`` (take's card is per row)."""
    table = np.zeros((A.NUM_ACTIONS, ACTION_FEATURES), np.float32)
    for a in range(A.NUM_ACTIONS):
        if a < A.DISCARD:
            table[a, a] = 1.0  # draw, take, pass, no-advice are kinds 0..3
        elif a < A.KNOCK:
            table[a, 4] = 1.0
            table[a, _CARD0 + a - A.DISCARD] = 1.0
        elif a < A.BIG_GIN:
            table[a, 5] = 1.0
            table[a, _CARD0 + a - A.KNOCK] = 1.0
        else:
            table[a, 6] = 1.0
    return table


_KIND_CARD = _kind_card_table()


def _fingerprint(parts: list[list[Any]]) -> str:
    """A short digest of a layout's named parts and sizes."""
    return hashlib.sha1(json.dumps(parts).encode()).hexdigest()[:12]


#: The facts' names and scales, in the layout of ``features="facts"``.
_FACTS_TAG = "+facts-" + _fingerprint([[n, s] for n, s in zip(FACTS, FACT_SCALES, strict=True)])


def input_layout(features: str = "basic", history: str = "none") -> dict[str, Any]:
    """What a network's input means: the observation layout (named parts and sizes, with a
    fingerprint), the action encoding and, for ``history="lstm"``, the move history's
    layout and encoder (no ``history`` key for ``"none"``: the layout of every network
    without one is as before). Stored in every checkpoint and checked on load."""
    _check_features(features)
    _check_history(history)
    parts = [[name, size] for name, size in OBS_PARTS]
    out: dict[str, Any] = {
        "observation": f"flat-{_fingerprint(parts)}",
        "obs_size": OBS_SIZE,
        "obs_parts": parts,
        "action_encoding": "dmc-action-v1"
        + {"advice": "+suggested", "l2score": "+l2score", "facts": _FACTS_TAG}.get(features, ""),
        "action_size": action_size(features),
        "features": features,
    }
    if history != "none":
        moves = [[name, size] for name, size in HISTORY_PARTS]
        out["history"] = {
            "encoder": f"{history}-{HISTORY_DIM}",
            "moves": f"history-{_fingerprint(moves)}",
            "shape": [HISTORY_LENGTH, HISTORY_FEATURES],
            "move_parts": moves,
        }
    return out


def pair_features(
    obs: np.ndarray, mask: np.ndarray, l2_actions: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every legal (row, action) pair of a batch and its action encoding.

    Returns ``rows [P]``, ``actions [P]`` (grouped by row, in row order) and
    ``features [P, ACTION_FEATURES]``. ``l2_actions [B]`` (optional) sets the ``l2`` entry
    of the pair whose action L2 plays in that row.
    """
    obs = np.asarray(obs, np.float32)
    mask = np.asarray(mask).astype(bool)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE or mask.shape != (len(obs), A.NUM_ACTIONS):
        raise ValueError(
            f"pair_features needs obs [B, {OBS_SIZE}] and mask [B, {A.NUM_ACTIONS}]; got "
            f"{obs.shape} and {mask.shape}"
        )
    rows, acts = np.nonzero(mask)
    feats = _KIND_CARD[acts]
    tops = top_discards(obs)  # -1: no pile
    take = np.flatnonzero((acts == A.TAKE_DISCARD) & (tops[rows] >= 0))
    feats[take, _CARD0 + tops[rows[take]]] = 1.0
    feats[:, _DW] = pair_deadwoods(obs, rows, acts)
    if l2_actions is not None:
        l2_actions = np.asarray(l2_actions)
        feats[:, _L2] = (acts == l2_actions[rows]).astype(np.float32)
    return rows, acts, feats


def pair_deadwoods(obs: np.ndarray, rows: np.ndarray, acts: np.ndarray) -> np.ndarray:
    """The ``deadwood`` entry of each pair (see the table above), / 100, from the compiled
    kernels of :mod:`gin_env.fast_melds` over the whole batch;
    :func:`pair_deadwoods_reference` is the same, row by row in Python."""
    obs = np.asarray(obs, np.float32)
    dw = np.zeros(len(rows), np.float32)
    if not len(rows):
        return dw
    hands = part_masks(obs)
    tops = top_discards(obs)  # -1: no pile
    sizes = np.bitwise_count(hands.view(np.uint64)).astype(np.int64)
    n = sizes[rows]
    # 11 cards: the deadwood left after discarding (or knocking with) the card.
    move = np.flatnonzero((n == 11) & (acts >= A.DISCARD) & (acts < A.BIG_GIN))
    if len(move):
        eleven = np.flatnonzero(sizes == 11)
        at = np.full(len(obs), -1, np.int64)
        at[eleven] = np.arange(len(eleven))
        table = discard_deadwoods_batch(hands[eleven])
        v = table[at[rows[move]], (acts[move] - A.DISCARD) % NUM_CARDS]
        dw[move] = np.maximum(v, 0) / 100.0
    # 10 cards: the hand's own deadwood for draw and pass; for take, after the best discard.
    ten = np.flatnonzero(sizes == 10)
    if len(ten):
        own = np.zeros(len(obs), np.int64)
        own[ten] = deadwood_batch(hands[ten])
        keep = np.flatnonzero((n == 10) & ((acts == A.DRAW_STOCK) | (acts == A.PASS)))
        dw[keep] = own[rows[keep]] / 100.0
        take = np.flatnonzero((n == 10) & (acts == A.TAKE_DISCARD) & (tops[rows] >= 0))
        if len(take):
            r = rows[take]
            top = tops[r]
            after = discard_deadwoods_batch(hands[r] | (np.int64(1) << top.astype(np.int64)))
            after = np.where(after < 0, np.iinfo(np.int64).max, after)
            after[np.arange(len(r)), top] = np.iinfo(np.int64).max  # the taken card stays
            dw[take] = after.min(axis=1) / 100.0
    return dw


def pair_deadwoods_reference(obs: np.ndarray, rows: np.ndarray, acts: np.ndarray) -> np.ndarray:
    """:func:`pair_deadwoods` row by row with :mod:`gin_env.melds` (the readable form)."""
    obs = np.asarray(obs, np.float32)
    dw = np.zeros(len(rows), np.float32)
    tops = top_discards(obs).tolist()  # -1: no pile
    hands = part_masks(obs).tolist()
    # Pair ranges of each row (pairs are grouped by row, in row order).
    starts = np.searchsorted(rows, np.arange(len(obs) + 1))
    for b, hand in enumerate(hands):
        lo, hi = int(starts[b]), int(starts[b + 1])
        if lo == hi:
            continue
        n = hand.bit_count()
        if n == 11:
            dds = discard_deadwoods(hand)
            for p in range(lo, hi):
                a = int(acts[p])
                if A.DISCARD <= a < A.BIG_GIN:
                    dw[p] = dds.get((a - A.DISCARD) % NUM_CARDS, 0) / 100.0
        elif n == 10:
            own = deadwood_mask(hand) / 100.0
            for p in range(lo, hi):
                a = int(acts[p])
                if a in (A.DRAW_STOCK, A.PASS):
                    dw[p] = own
                elif a == A.TAKE_DISCARD and tops[b] >= 0:
                    top = tops[b]
                    after = discard_deadwoods(hand | 1 << top)
                    dw[p] = min(v for c, v in after.items() if c != top) / 100.0
    return dw


_CARD_BLOCK = slice(OBS_SLICES[CARD_PARTS[0]].start, OBS_SLICES[CARD_PARTS[-1]].stop)
_ALL_CARDS = (1 << NUM_CARDS) - 1


def fact_masks(obs: np.ndarray) -> tuple[np.ndarray, ...]:
    """The row masks the facts read (int64 card masks, one entry per row): ``hands``,
    ``tops`` (-1: no pile), ``unseen``, ``dead`` and ``opp`` (see :mod:`gin_env.fast_facts`),
    all from the observation's own card parts."""
    obs = np.asarray(obs, np.float32)
    parts = card_masks(obs[:, _CARD_BLOCK].reshape(len(obs), len(CARD_PARTS), NUM_CARDS))
    hand, _, pile, opp, opp_discarded, own_discarded = np.ascontiguousarray(parts.T)
    seen = hand | pile | opp | opp_discarded | own_discarded
    unseen = ~seen & _ALL_CARDS
    dead = (pile | opp_discarded | own_discarded) & ~hand & ~opp
    return hand, top_discards(obs), unseen, dead, opp


def pair_facts(obs: np.ndarray, rows: np.ndarray, acts: np.ndarray) -> np.ndarray:
    """The :data:`FACTS` columns of ``features="facts"`` of each pair ``[P, 10]``, from the
    compiled kernel :func:`gin_env.fast_facts.pair_facts_batch` (its docstring defines each
    column) over the whole batch; :func:`pair_facts_reference` is the same in Python."""
    hand, tops, unseen, dead, opp = fact_masks(obs)
    rows = np.ascontiguousarray(rows, np.int64)
    acts = np.ascontiguousarray(acts, np.int64)
    return pair_facts_batch(hand, tops, unseen, dead, opp, rows, acts)


def _in_a_meld(hand: int) -> int:
    """The cards of ``hand`` in some meld inside it."""
    cover = 0
    for m in ALL_MELDS:
        if m & hand == m:
            cover |= m
    return cover


def _hand_facts_reference(hand: int, unseen: int) -> list[float]:
    """melded, outs, starts of a hand ``H'`` (unscaled), card by card."""
    cover = _in_a_meld(hand)
    dw = deadwood_mask(hand)
    outs = sum(
        1
        for u in range(NUM_CARDS)
        if unseen >> u & 1 and deadwood_mask(hand | 1 << u) < dw + min(u % 13 + 1, 10)
    )
    loose = [c for c in range(NUM_CARDS) if hand >> c & 1 and not cover >> c & 1]
    starts = 0
    for i, x in enumerate(loose):
        for y in loose[i + 1 :]:  # x < y
            (sx, rx), (sy, ry) = divmod(x, 13), divmod(y, 13)
            if rx == ry:
                completing = [13 * s + rx for s in range(4) if s not in (sx, sy)]
            elif sx == sy and ry - rx == 1:
                completing = [13 * sx + r for r in (rx - 1, ry + 1) if 0 <= r < 13]
            elif sx == sy and ry - rx == 2:
                completing = [x + 1]
            else:
                continue
            starts += any(unseen >> c & 1 for c in completing)
    return [cover.bit_count(), outs, starts]


def pair_facts_reference(obs: np.ndarray, rows: np.ndarray, acts: np.ndarray) -> np.ndarray:
    """:func:`pair_facts` pair by pair over :func:`gin_env.encoding.decode_observation`
    and :mod:`gin_env.melds` (the readable form; the table of :mod:`gin_env.fast_facts`)."""
    out = np.zeros((len(rows), NUM_FACTS), np.float32)
    for p, (b, a) in enumerate(zip(np.asarray(rows).tolist(), np.asarray(acts).tolist(),
                                   strict=True)):  # fmt: skip
        view = decode_observation(np.asarray(obs[b], np.float32))
        hand, top, opp = view.hand, view.top_discard, view.opponent_took
        discards = view.discard_pile | view.opponent_discarded | view.partner_discarded
        unseen = _ALL_CARDS & ~(hand | opp | discards)
        dead = discards & ~hand & ~opp
        n = hand.bit_count()
        raw = [0.0] * NUM_FACTS
        if n == 11 and A.DISCARD <= a < A.BIG_GIN:
            c = (a - A.DISCARD) % NUM_CARDS
            after = hand & ~(1 << c)
            raw[:3] = _hand_facts_reference(after, unseen)
            s, r = divmod(c, 13)
            mates = [13 * t + r for t in range(4) if t != s]
            near = [13 * s + q for q in range(13) if 0 < abs(q - r) <= 2]
            held = [x for x in mates + near if opp >> x & 1]
            raw[3], raw[4] = float(bool(held)), len(held)
            raw[5] = sum(1 for x in mates if (dead | after) >> x & 1)
            raw[6] = sum(1 for x in near if (dead | after) >> x & 1)
            raw[7] = min(r + 1, 10)
        elif n == 10 and a in (A.DRAW_STOCK, A.PASS):
            raw[:3] = _hand_facts_reference(hand, unseen)
        elif n == 10 and a == A.TAKE_DISCARD and top >= 0:
            more = hand | 1 << top
            after_dw = discard_deadwoods(more)
            best = min((v, c) for c, v in after_dw.items() if c != top)[1]
            raw[:3] = _hand_facts_reference(more & ~(1 << best), unseen)
            raw[8] = float(any(m >> top & 1 and (m & ~(1 << top)) & hand == m & ~(1 << top)
                               for m in ALL_MELDS))  # fmt: skip
            raw[9] = deadwood_mask(hand) - after_dw[best]
        out[p] = [v / s for v, s in zip(raw, FACT_SCALES, strict=True)]
    return out


def encode_pairs(
    obs: np.ndarray, mask: np.ndarray, features: str = "basic", l2_actions: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`pair_features` in the encoding of ``features``: ``l2_actions`` marks L2's
    moves (``"l2"``); ``"advice"`` appends the ``suggested`` column (1 where the pair's
    action is the suggestion in its row's observation); ``"facts"`` appends the
    :data:`FACTS` columns (:func:`pair_facts`)."""
    _check_features(features)
    rows, acts, feats = pair_features(obs, mask, l2_actions if features in L2_MODES else None)
    if features == "facts":
        return rows, acts, np.concatenate([feats, pair_facts(obs, rows, acts)], axis=1)
    if features == "l2score":
        return rows, acts, np.concatenate([feats, l2_scores(obs, mask, rows, acts)[:, None]], 1)
    if features != "advice":
        return rows, acts, feats
    obs = np.asarray(obs, np.float32)
    suggested = obs[rows, _SUGGESTION + acts] > 0.5
    return rows, acts, np.concatenate([feats, suggested[:, None].astype(np.float32)], axis=1)


_SCORER: Any = None


def l2_scores(obs: np.ndarray, mask: np.ndarray, rows: np.ndarray, acts: np.ndarray) -> np.ndarray:
    """The ``l2_score`` column of pairs ``(rows, acts)``: L2's score of each move less the
    best of its decision, / 20, clipped to [0, 3]; 0 for moves L2 does not score."""
    global _SCORER
    if _SCORER is None:
        _SCORER = HeuristicAgent()
    out = np.zeros(len(rows), np.float32)
    starts = np.searchsorted(rows, np.arange(len(obs) + 1))
    for b in range(len(obs)):
        lo, hi = int(starts[b]), int(starts[b + 1])
        if lo == hi:
            continue
        scores = _SCORER.move_scores(decode({"observation": obs[b], "action_mask": mask[b]}))
        if not scores:
            continue
        best = min(scores.values())
        for p in range(lo, hi):
            v = scores.get(int(acts[p]))
            if v is not None:
                out[p] = min(3.0, (v - best) / 20.0)
    return out


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow warnings for large |x|


def history_lengths(history_mask: np.ndarray) -> np.ndarray:
    """Real moves of each row (the history is oldest first, padding after)."""
    return np.asarray(history_mask).astype(bool).sum(axis=1)


class LSTMEncoder:
    """The history LSTM in numpy, the twin of torch's one-layer ``nn.LSTM`` (gates in its
    order: input, forget, cell, output): ``w_ih [4D, HISTORY_FEATURES]``, ``w_hh [4D, D]``,
    ``b [4D]`` (torch's two biases summed). :meth:`last` gives its output after each row's
    last real move, zeros for a row with none."""

    def __init__(self, w_ih: np.ndarray, w_hh: np.ndarray, b: np.ndarray) -> None:
        self.w_ih = np.asarray(w_ih, np.float32)
        self.w_hh = np.asarray(w_hh, np.float32)
        self.b = np.asarray(b, np.float32)
        self.dim = self.w_hh.shape[1]
        if self.w_ih.shape != (4 * self.dim, HISTORY_FEATURES) or self.w_hh.shape != (
            4 * self.dim,
            self.dim,
        ):
            raise ValueError(
                f"an LSTM over {HISTORY_FEATURES}-wide moves needs w_ih [4D, {HISTORY_FEATURES}]"
                f" and w_hh [4D, D]; got {self.w_ih.shape} and {self.w_hh.shape}"
            )

    def last(self, history: np.ndarray, history_mask: np.ndarray) -> np.ndarray:
        """``history [B, L, HISTORY_FEATURES]``, ``history_mask [B, L]`` -> ``[B, D]``."""
        history = np.asarray(history, np.float32)
        n = history_lengths(history_mask)
        b, d = len(history), self.dim
        out = np.zeros((b, d), np.float32)
        steps = int(n.max()) if b else 0
        if not steps:
            return out
        x = history[:, :steps] @ self.w_ih.T + self.b  # [B, T, 4D]: every step's input part
        h = np.zeros((b, d), np.float32)
        c = np.zeros((b, d), np.float32)
        for t in range(steps):
            g = x[:, t] + h @ self.w_hh.T
            i, f = _sigmoid(g[:, :d]), _sigmoid(g[:, d : 2 * d])
            c = f * c + i * np.tanh(g[:, 2 * d : 3 * d])
            h = _sigmoid(g[:, 3 * d :]) * np.tanh(c)
            done = np.flatnonzero(n == t + 1)
            out[done] = h[done]
        return out

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}lstm_w_ih": self.w_ih, f"{prefix}lstm_w_hh": self.w_hh,
                f"{prefix}lstm_b": self.b}  # fmt: skip


class QNet:
    """One Q network in numpy: ``w_obs [H, OBS]``, ``w_act [H, F]``, ``b0 [H]``, then
    ``(w, b)`` layers with ReLU between them, the last one giving one number. ``F`` is
    :data:`ACTION_FEATURES`, one more for ``features="advice"`` or ``"l2score"``, ten more
    for ``"facts"`` (:func:`action_size`).
    With a ``history`` encoder (:class:`LSTMEncoder`) ``w_obs`` is ``[H, OBS + D]``: the
    observation, then the encoder's output."""

    def __init__(
        self,
        w_obs: np.ndarray,
        w_act: np.ndarray,
        b0: np.ndarray,
        layers: Sequence[tuple[np.ndarray, np.ndarray]],
        history: LSTMEncoder | None = None,
    ) -> None:
        self.w_obs = np.asarray(w_obs, np.float32)
        self.w_act = np.asarray(w_act, np.float32)
        self.b0 = np.asarray(b0, np.float32)
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.history = history
        widths = sorted({action_size(f) for f in FEATURE_MODES})
        obs_in = OBS_SIZE + (history.dim if history is not None else 0)
        if self.w_obs.shape[1] != obs_in or self.w_act.shape[1] not in widths:
            raise ValueError(
                f"a Q network takes {obs_in} observation and {' or '.join(map(str, widths))}"
                f" action inputs; got {self.w_obs.shape[1]} and {self.w_act.shape[1]}"
            )

    def state_input(
        self,
        obs: np.ndarray,
        history: np.ndarray | None = None,
        history_mask: np.ndarray | None = None,
    ) -> np.ndarray:
        """What the first layer's ``W_obs`` reads: the observation (and the history's
        encoding, for a network with a history encoder)."""
        if self.history is None:
            return obs
        if history is None or history_mask is None:
            raise ValueError("this Q network reads the move history: pass history and its mask")
        return np.concatenate([obs, self.history.last(history, history_mask)], axis=1)

    def q(
        self,
        obs: np.ndarray,
        rows: np.ndarray,
        feats: np.ndarray,
        history: np.ndarray | None = None,
        history_mask: np.ndarray | None = None,
    ) -> np.ndarray:
        """Q of each pair: ``obs [B, OBS]``, ``rows [P]`` (row of each pair), ``feats``;
        ``history [B, L, HISTORY_FEATURES]`` and ``history_mask [B, L]`` for a network with
        a history encoder."""
        x = self.state_input(obs, history, history_mask)
        h = _relu((x @ self.w_obs.T)[rows] + feats @ self.w_act.T + self.b0)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w.T + b
            if i < last:
                h = _relu(h)
        return h[:, 0]

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        out = {f"{prefix}w_obs": self.w_obs, f"{prefix}w_act": self.w_act, f"{prefix}b0": self.b0}
        for i, (w, b) in enumerate(self.layers):
            out[f"{prefix}w{i + 1}"], out[f"{prefix}b{i + 1}"] = w, b
        if self.history is not None:
            out.update(self.history.arrays(prefix))
        return out

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], prefix: str) -> QNet:
        layers = []
        i = 1
        while f"{prefix}w{i}" in arrays:
            layers.append((arrays[f"{prefix}w{i}"], arrays[f"{prefix}b{i}"]))
            i += 1
        history = None
        if f"{prefix}lstm_w_ih" in arrays:
            history = LSTMEncoder(
                arrays[f"{prefix}lstm_w_ih"],
                arrays[f"{prefix}lstm_w_hh"],
                arrays[f"{prefix}lstm_b"],
            )
        return cls(
            arrays[f"{prefix}w_obs"], arrays[f"{prefix}w_act"], arrays[f"{prefix}b0"], layers,
            history,
        )  # fmt: skip


def torch_model(hidden: Sequence[int], features: str = "basic", history: str = "none") -> Any:
    """The torch build of :class:`QNet` (same layers, same weight layout), to train.

    ``relu(W_obs obs + W_act action + b)`` then an MLP with ReLU between layers to one
    number. ``model(obs, feats)`` scores one action per row; ``model.pairs(obs, rows,
    feats)`` scores many candidate actions of each row, the observation's part computed once.
    ``history="lstm"``: an ``nn.LSTM`` (:data:`HISTORY_DIM` units) over the move history,
    its output after the last real move concatenated to the observation; both calls then
    take ``history [B, L, HISTORY_FEATURES]`` and ``history_mask [B, L]`` after ``feats``.
    """
    import torch  # the train extra
    from torch import nn

    _check_history(history)
    width = action_size(features)
    hidden = [int(h) for h in hidden]
    reads_history = history != "none"

    class QModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.obs = nn.Linear(OBS_SIZE + HISTORY_DIM * reads_history, hidden[0])
            self.act = nn.Linear(width, hidden[0], bias=False)
            sizes = [*hidden, 1]
            self.layers = nn.ModuleList(
                nn.Linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False)
            )
            self.lstm = (
                nn.LSTM(HISTORY_FEATURES, HISTORY_DIM, batch_first=True) if reads_history else None
            )

        def state_input(self, obs: torch.Tensor, hist: Any, hmask: Any) -> torch.Tensor:
            if self.lstm is None:
                return obs
            if hist is None or hmask is None:
                raise ValueError("this Q network reads the move history: pass history and mask")
            n = hmask.bool().sum(dim=1)
            steps = int(n.max()) if len(n) else 0
            last = torch.zeros(len(obs), HISTORY_DIM, dtype=obs.dtype)
            if steps:
                out, _ = self.lstm(hist[:, :steps])  # padding is after: causal, never read
                real = torch.nonzero(n > 0)[:, 0]
                last = last.index_put((real,), out[real, n[real] - 1])
            return torch.cat([obs, last], dim=1)

        def head(self, h: torch.Tensor) -> torch.Tensor:
            h = torch.relu(h)
            last = len(self.layers) - 1
            for i, layer in enumerate(self.layers):
                h = layer(h)
                if i < last:
                    h = torch.relu(h)
            return h[:, 0]

        def forward(
            self, obs: torch.Tensor, feats: torch.Tensor, hist: Any = None, hmask: Any = None
        ) -> torch.Tensor:
            return self.head(self.obs(self.state_input(obs, hist, hmask)) + self.act(feats))

        def pairs(
            self,
            obs: torch.Tensor,
            rows: torch.Tensor,
            feats: torch.Tensor,
            hist: Any = None,
            hmask: Any = None,
        ) -> Any:
            x = self.obs(self.state_input(obs, hist, hmask))
            return self.head(x[rows] + self.act(feats))

    return QModel()


def qnets(models: Sequence[Any]) -> list[QNet]:
    """The numpy twins (:class:`QNet`) of networks built by :func:`torch_model`."""
    out = []
    for m in models:
        sd = {k: v.detach().cpu().numpy() for k, v in m.state_dict().items()}
        layers = [(sd[f"layers.{i}.weight"], sd[f"layers.{i}.bias"]) for i in range(len(m.layers))]
        history = None
        if getattr(m, "lstm", None) is not None:
            bias = sd["lstm.bias_ih_l0"] + sd["lstm.bias_hh_l0"]
            history = LSTMEncoder(sd["lstm.weight_ih_l0"], sd["lstm.weight_hh_l0"], bias)
        out.append(QNet(sd["obs.weight"], sd["act.weight"], sd["obs.bias"], layers, history))
    return out


class DMCAgent:
    """Plays the legal action with the highest Q.

    ``nets``: one :class:`QNet`, or one per role (``role_nets=True``: net ``r`` plays role
    ``r`` of the observation's role part). ``features="l2"`` asks L2 for its move at every
    decision and marks it in the action encoding, as the network was trained;
    ``features="advice"`` marks the adviser's suggestion (networks one input wider);
    ``features="facts"`` adds the per-move facts (:func:`pair_facts`, numpy and numba only).

    ``margin`` (``features="l2"`` only): L2's move gets this bonus on top of its Q, so the
    player leaves L2's move only where Q says another move is better by more than
    ``margin`` (a conservative policy-improvement step over L2; a large margin plays L2).

    Networks with a history encoder (``history == "lstm"``, taken from the networks) read
    the move history: :meth:`act` needs an observation of an env made with
    :meth:`env_options` (``observation="history"``) and refuses one without
    ``"history"``; :meth:`act_batch` takes the batch's ``history`` and ``history_mask``.
    """

    def __init__(
        self,
        nets: Sequence[QNet],
        role_nets: bool = False,
        features: str = "basic",
        name: str = "dmc",
        meta: Mapping[str, Any] | None = None,
        margin: float = 0.0,
    ) -> None:
        _check_features(features)
        if not nets:
            raise ValueError("nets must hold at least one Q network")
        width = action_size(features)
        if any(net.w_act.shape[1] != width for net in nets):
            raise ValueError(
                f"features={features!r} needs Q networks with {width} action inputs; got "
                f"{sorted({net.w_act.shape[1] for net in nets})}"
            )
        if len({net.history is None for net in nets}) > 1:
            raise ValueError("the Q networks of one player all read the history, or none does")
        self.nets = list(nets)
        self.history = "none" if nets[0].history is None else "lstm"
        self.role_nets = bool(role_nets)
        self.features = features
        if not (isinstance(margin, int | float) and margin >= 0):
            raise ValueError(f"margin must be a number >= 0; got {margin!r}")
        if margin and features not in L2_MODES:
            raise ValueError(f"margin needs features in {L2_MODES} (it is a bonus for L2's move)")
        self.margin = float(margin)
        self.name = name
        self.meta = dict(meta or {})
        self._l2: Any = None
        if features in L2_MODES:
            self._l2 = HeuristicAgent()

    def l2_actions(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
        """L2's move in each row (``features="l2"``), else ``None``."""
        if self._l2 is None:
            return None
        return np.array(
            [
                self._l2.act({"observation": o, "action_mask": m})
                for o, m in zip(obs, mask, strict=False)
            ],
            np.int64,
        )

    def env_options(self) -> dict[str, str]:
        """The env option this player needs: ``{"observation": "history"}`` when it reads
        the move history, else none."""
        return {"observation": "history"} if self.history != "none" else {}

    def q_values(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        history: np.ndarray | None = None,
        history_mask: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``rows, actions, q`` for every legal pair of a batch (``q`` includes the
        ``margin`` bonus of L2's moves); ``history`` / ``history_mask`` (``[B, 64, 63]``,
        ``[B, 64]``) for a player that reads the move history."""
        obs = np.asarray(obs, np.float32)
        if self.history != "none" and (history is None or history_mask is None):
            raise ValueError(
                f"{self.name} reads the move history: pass history and history_mask "
                "(from an env made with observation='history')"
            )
        l2 = self.l2_actions(obs, np.asarray(mask))
        rows, acts, feats = encode_pairs(obs, mask, self.features, l2)
        roles = np.argmax(obs[:, OBS_SLICES["role"]], axis=1)[rows] if self.role_nets else None
        q = np.empty(len(rows), np.float32)
        for k, sel in net_groups(roles, len(self.nets)):
            q[sel] = self.nets[k].q(obs, rows[sel], feats[sel], history, history_mask)
        if self.margin and l2 is not None:
            q = q + self.margin * (acts == l2[rows])
        return rows, acts, q

    def act_batch(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        history: np.ndarray | None = None,
        history_mask: np.ndarray | None = None,
    ) -> np.ndarray:
        """The greedy action of every row."""
        rows, acts, q = self.q_values(obs, mask, history, history_mask)
        return greedy(rows, acts, q, len(obs))

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        if not isinstance(observation, Mapping) or not {"observation", "action_mask"} <= set(
            observation
        ):
            raise ValueError("act takes the env's observation dict {'observation', 'action_mask'}")
        obs = np.asarray(observation["observation"], np.float32)
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if obs.shape != (OBS_SIZE,) or mask.shape != (A.NUM_ACTIONS,):
            raise ValueError(
                f"observation must have shape ({OBS_SIZE},) and action_mask ({A.NUM_ACTIONS},);"
                f" got {obs.shape} and {mask.shape}"
            )
        if not mask.any():
            raise ValueError("the action mask has no legal action: this agent is not to act")
        if self.history == "none":
            return int(self.act_batch(obs[None], mask[None])[0])
        if "history" not in observation or "history_mask" not in observation:
            raise ValueError(
                f"{self.name} reads the move history, but the observation has no 'history': "
                "make the env with observation='history' (DMCAgent.env_options())"
            )
        hist = np.asarray(observation["history"], np.float32)
        hmask = np.asarray(observation["history_mask"])
        if hist.shape != (HISTORY_LENGTH, HISTORY_FEATURES) or hmask.shape != (HISTORY_LENGTH,):
            raise ValueError(
                f"history must have shape ({HISTORY_LENGTH}, {HISTORY_FEATURES}) and "
                f"history_mask ({HISTORY_LENGTH},); got {hist.shape} and {hmask.shape}"
            )
        return int(self.act_batch(obs[None], mask[None], hist[None], hmask[None])[0])

    def __repr__(self) -> str:
        net = self.nets[0]
        sizes = [OBS_SIZE + net.w_act.shape[1], len(net.b0)] + [len(b) for _, b in net.layers]
        per = f"{len(self.nets)} role nets" if self.role_nets else "one net"
        hist = ", history lstm" if self.history != "none" else ""
        return f"DMCAgent({self.name!r}, {'-'.join(map(str, sizes))}, {per}, {self.features}{hist})"


def net_groups(net: np.ndarray | None, n_nets: int) -> Iterator[tuple[int, Any]]:
    """The one per-role dispatch of a player, its actors and its learner: ``(k, sel)`` for
    every network ``k`` with pairs to score, ``sel`` indexing the pairs whose network
    (``net``, one entry per pair) is ``k``; with one network, ``(0, all pairs)``."""
    if n_nets == 1:
        yield 0, slice(None)
        return
    assert net is not None, "role networks need each pair's network"
    for k in range(n_nets):
        sel = np.flatnonzero(net == k)
        if len(sel):
            yield k, sel


def greedy(rows: np.ndarray, acts: np.ndarray, q: np.ndarray, n: int) -> np.ndarray:
    """The action with the highest ``q`` in each of ``n`` rows (ties: the lowest id)."""
    order = np.lexsort((acts, -q, rows))  # by row, then best q, then lowest action id
    first = np.ones(len(order), bool)
    first[1:] = rows[order][1:] != rows[order][:-1]
    out = np.full(n, -1, np.int64)
    out[rows[order][first]] = acts[order][first]
    return out


def save(
    path: str | Path,
    nets: Sequence[QNet],
    role_nets: bool,
    features: str,
    **meta: Any,
) -> Path:
    """Write a DMC player as one ``.npz`` (weights + ``meta`` JSON with the input layout,
    the history's too for networks that read it)."""
    path = Path(path)
    arrays: dict[str, np.ndarray] = {}
    for i, net in enumerate(nets):
        arrays.update(net.arrays(f"net{i}_"))
    history = "none" if nets[0].history is None else "lstm"
    info = {
        **meta,
        "format": FORMAT,
        "num_nets": len(nets),
        "role_nets": bool(role_nets),
        "features": features,
        "input_layout": input_layout(features, history),
    }
    arrays["meta"] = np.array(json.dumps(info, sort_keys=True, default=str))
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
    tmp.replace(path)
    return path


def load(path: str | Path, name: str | None = None) -> DMCAgent:
    """A DMC player from its ``.npz``; a checkpoint trained on another input layout is a
    ValueError that names both layouts."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        raise ValueError(f"{path}: {'empty file' if path.is_file() else 'no such file'}, "
                         "not a DMC player")  # fmt: skip
    try:  # arrays only: allow_pickle=False refuses object arrays (no code runs)
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except Exception as err:  # a truncated or foreign file: many kinds; name the file
        why = str(err).splitlines()[0][:120] if str(err) else ""
        raise ValueError(
            f"{path}: not a readable DMC player .npz ({type(err).__name__}: {why})"
        ) from None
    if "meta" not in arrays:
        raise ValueError(f"{path} is not a DMC checkpoint (no meta)")
    try:
        meta = json.loads(str(arrays.pop("meta")))
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
    except ValueError as err:
        raise ValueError(f"{path}: its meta is not valid JSON ({err})") from None
    if meta.get("format") != FORMAT:
        raise ValueError(f"{path}: format {meta.get('format')!r}, expected {FORMAT!r}")
    features = str(meta.get("features", "basic"))
    saved = meta.get("input_layout", {})
    history = str(saved.get("history", {}).get("encoder", "none")).split("-")[0]
    if history not in HISTORY_MODES:
        raise ValueError(
            f"{path}: history encoder {saved['history'].get('encoder')!r} is not one of "
            f"{', '.join(HISTORY_MODES)}"
        )
    current = input_layout(features, history)
    for key in ("observation", "obs_size", "action_encoding", "action_size", "history"):
        if saved.get(key) != current.get(key):
            raise ValueError(
                f"{path} was trained on input layout {key}={saved.get(key)!r}, but this "
                f"version of gin_env gives {current.get(key)!r}; it cannot play here"
            )
    try:
        nets = [QNet.from_arrays(arrays, f"net{i}_") for i in range(int(meta["num_nets"]))]
    except (KeyError, ValueError, TypeError) as err:
        raise ValueError(f"{path}: its weights are incomplete or malformed ({err!r})") from None
    if any((net.history is None) != (history == "none") for net in nets):
        raise ValueError(f"{path}: its weights and its layout disagree on the history encoder")
    return DMCAgent(
        nets,
        bool(meta["role_nets"]),
        features,
        name=name or str(meta.get("name", path.stem)),
        meta=meta,
        margin=float(meta.get("margin", 0.0)),
    )
