"""Fitting the learned value of a hand state (``python -m studies.team_vs_solo fit-value``):
the research behind ``gin_eval/data/hand_value.npz``, the value that
``gin-rummy eval three --adjust value`` uses.

:func:`fit_value_on_pilot` plays single hands on a **pilot** seed (never the seed a study
reports) and fits :func:`fit_value` (torch) on every state ``V`` is evaluated at
(:func:`hand_states`: after the deal and after each draw from the stock), each with its
hand's final box points as the target. The result is a
:class:`gin_eval.hand_value.HandValue`, which the library only loads and
applies. Why these features and this size: docs/team_vs_solo.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from gin_env.config import HandRules, ThreeHandedConfig, table_changes
from gin_env.hand import GinHand
from gin_eval.checks import AgentSpec, OptionError, check_count, unique_labels
from gin_eval.hand_value import (
    FEATURE_SIZE,
    SEAT_BOX,
    HandValue,
    replay_hand,
    state_features,
)
from gin_eval.luck import check_three
from gin_eval.play import PERMUTATIONS, role_hand_job, seat_specs
from gin_eval.pool import pool_map

__all__ = ["hand_states", "fit_value", "fit_value_on_pilot"]


def hand_states(
    deck: Sequence[int], actions: Sequence[tuple[int, int]], rules: HandRules | None = None
) -> np.ndarray:
    """The states ``V`` is evaluated at along one played hand: :func:`state_features` after
    the deal, then after each draw from the stock (``(1 + draws, FEATURE_SIZE)``); the
    training rows of :func:`fit_value`."""
    rows = [state_features(GinHand(deck, rules, dealer=SEAT_BOX))]

    def add(hand: GinHand) -> None:
        if not hand.is_over:
            rows.append(state_features(hand))

    replay_hand(deck, actions, rules, after_draw=add)
    return np.array(rows)


def fit_value(
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    hidden: Sequence[int] = (256, 128),
    epochs: int = 30,
    batch: int = 512,
    lr: float = 1e-3,
    weight_decay: float = 1e-5,
    holdout: float = 0.1,
    seed: int = 0,
    log: Callable[[str], Any] | None = None,
) -> HandValue:
    """Fit a :class:`HandValue` to ``y`` (the box's final points of each row's hand) on the
    states ``x`` (``(rows, FEATURE_SIZE)``) by mean squared error (torch, Adam).
    ``groups`` (int, one per row: the deal) picks the ``holdout`` share of deals kept out of
    the fit; the epoch with the least held-out error is kept. ``info`` records the sizes
    and the held-out R^2 (None when the held-out targets are all equal)."""
    import torch  # train extra: torch

    from training.mlp import numpy_layers, relu_mlp  # train extra: torch

    xv, yv, gv = np.asarray(x, np.float32), np.asarray(y, np.float32), np.asarray(groups)
    if xv.ndim != 2 or xv.shape[1] != FEATURE_SIZE or yv.shape != (xv.shape[0],):
        raise ValueError(
            f"x must be (rows, {FEATURE_SIZE}) and y (rows,); got {xv.shape} and {yv.shape}"
        )
    if gv.shape != yv.shape:
        raise ValueError(f"groups must have one id per row, got shape {gv.shape}")
    if not hidden or any(isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in hidden):
        raise ValueError(f"hidden must be a non-empty list of ints >= 1, got {hidden!r}")
    if not 0 < holdout < 1:
        raise ValueError(f"holdout must be in (0, 1), got {holdout!r}")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    ids = np.unique(gv)
    held_ids = rng.choice(ids, max(1, int(round(holdout * ids.size))), replace=False)
    val = np.isin(gv, held_ids)
    if val.all() or not val.any():
        raise ValueError("fit_value needs rows of at least two deals")
    shift = xv[~val].mean(axis=0)
    scale = xv[~val].std(axis=0)
    scale[scale < 1e-6] = 1.0
    xt = torch.from_numpy((xv - shift) / scale)
    yt = torch.from_numpy(yv)
    net = relu_mlp([FEATURE_SIZE, *hidden, 1])
    last = net[-1]
    assert isinstance(last, torch.nn.Linear)
    with torch.no_grad():
        last.bias.fill_(float(yv[~val].mean()))
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)
    train_idx = np.flatnonzero(~val)
    xval, yval = xt[val], yt[val]
    best = (math.inf, [p.detach().clone() for p in net.parameters()], 0)
    var_val = float(yval.var())
    for epoch in range(epochs):
        net.train()
        perm = rng.permutation(train_idx)
        for s in range(0, perm.size, batch):
            b = torch.from_numpy(perm[s : s + batch])
            opt.zero_grad()
            loss = ((net(xt[b])[:, 0] - yt[b]) ** 2).mean()
            loss.backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            mse = float(((net(xval)[:, 0] - yval) ** 2).mean())
        if log is not None and var_val > 0:
            log(f"epoch {epoch + 1}: held-out R^2 {1 - mse / var_val:.4f}")
        if mse < best[0]:
            best = (mse, [p.detach().clone() for p in net.parameters()], epoch + 1)
    with torch.no_grad():
        for p, q in zip(net.parameters(), best[1], strict=True):
            p.copy_(q)
    layers = numpy_layers(net)
    info = {
        "hidden": list(hidden),
        "rows": int(xv.shape[0]),
        "deals": int(ids.size),
        "heldout_deals": int(held_ids.size),
        "heldout_r2": 1 - best[0] / var_val if var_val > 0 else None,  # None: constant y
        "best_epoch": best[2],
        "epochs": epochs,
        "seed": seed,
    }
    return HandValue(layers, shift, scale, info)


def fit_value_on_pilot(
    agents: Sequence[AgentSpec],
    deals: int,
    seed: int,
    workers: int = 1,
    adviser: str = "suggest",
    table: ThreeHandedConfig | None = None,
    progress: bool = False,
    hidden: Sequence[int] = (64, 32),
    epochs: int = 12,
) -> HandValue:
    """A :class:`~gin_eval.hand_value.HandValue` fitted on ``6 * deals`` single hands of
    a **pilot** ``seed`` (never the seed a study reports): fresh deals, the three agents in the six
    role assignments in turn (the plain design of
    :func:`~gin_eval.duplicate.duplicate_three`), every state ``V`` is evaluated at
    (:func:`hand_states`) with its hand's final box points as the target (:func:`fit_value`)."""
    if len(agents) != 3:
        raise OptionError(f"the pilot needs exactly 3 agents, got {len(agents)}")
    check_count("deals", deals)
    check_count("workers", workers)
    check_count("epochs", epochs)
    table = replace(table or ThreeHandedConfig(), adviser=adviser)
    check_three(agents, table)
    jobs = [(seat_specs(agents, perm), seed, 6 * i + p, table)
            for i in range(deals) for p, perm in enumerate(PERMUTATIONS)]  # fmt: skip
    res = pool_map(role_hand_job, jobs, workers, progress, "pilot hands for V")
    hand_rules = table.hand_rules()
    xs, ys, groups = [], [], []
    for k, r in enumerate(res):
        h = r["hands"][0]
        x = hand_states(h["deck"], h["actions"], hand_rules)
        xs.append(x)
        ys += [h["box_points"]] * len(x)
        groups += [k] * len(x)
    try:
        v = fit_value(np.concatenate(xs), np.array(ys), np.array(groups), hidden, epochs)
    except ValueError as err:
        raise OptionError(str(err)) from None
    v.info.update(agents=unique_labels(agents), pilot_seed=seed, pilot_hands=len(res),
                  adviser=adviser, rules=table_changes(table))  # fmt: skip
    return v
