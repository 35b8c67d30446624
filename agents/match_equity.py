"""Match equity: the chance of winning a two-player gin match from any pair of scores.

A match is a sequence of hands. If the players' hands are independent draws from a
hand-outcome distribution (A's signed points: + when A scores, - when B does, 0 for a dead
hand), one distribution for each dealer, the chance that A wins the match from scores
``(a, b)`` with a given dealer solves a dynamic programme over the scores to the target:

    E_d(a, b) = sum_x p_d(x) E_d'(a + x+, b + x-)

where ``x+`` / ``x-`` are the points A / B scored, ``d'`` is the next dealer under the
table's ``dealer_rule``, a score at the target or over it ends the match (E = 1 when A got
there, 0 when B did), and a dead hand (``x = 0``) leaves the scores as they are: it is dealt
again by the same dealer (``alternate_scored``, ``winner``, ``loser``), or by the other
(``alternate``), which makes each pair of scores a 2 x 2 linear system, solved exactly.
States are swept by the sum of the scores, from the target down, one diagonal at a time.

The distribution is measured by playing hands (``gin_eval.matches``
measures it on the compiled engine between any two batched players); the table is
recomputed for any target and dealer rule. What the model leaves out: players that change
their play with the score change the distribution with it (the table is the one of players
who do not). ``gin_eval.matches`` checks the table against simulated matches
of real hands (``results/match_equity/``).

:data:`SHIPPED` holds the L2-against-L2 distribution of each named table
(``agents/checkpoints/hand_outcomes.json``), which the match-aware levers of
:class:`agents.heuristic.HeuristicParams` read (:func:`knock_shift_table`).

>>> coin = HandOutcomes(np.array([-25, 25]), np.array([[0.5, 0.5], [0.5, 0.5]]))
>>> round(float(match_equity(coin, target=50)[0, 25, 0]), 3)  # one hand from the win
0.75
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import table_rules
from gin_env.config import DEALER_RULES, HandRules, check_choice, check_int
from gin_env.match import next_dealer

__all__ = [
    "HandOutcomes",
    "match_equity",
    "simulate_model",
    "SHIPPED",
    "shipped_outcomes",
    "knock_shift_table",
    "knock_shifts",
    "KNOCK_WIN",
    "LOSS_OVER_UNDERCUT",
]

#: What :func:`knock_shifts` weighs: a knock's usual win, and a loss as the undercut bonus
#: plus this (his deadwood difference).
KNOCK_WIN = 12
LOSS_OVER_UNDERCUT = 5
#: The longest match :func:`knock_shifts` solves.
MAX_TARGET = 1000
SHIPPED = Path(__file__).resolve().parent / "checkpoints" / "hand_outcomes.json"
FORMAT = "gin-env-hand-outcomes-v1"


@dataclass(frozen=True)
class HandOutcomes:
    """A hand's outcome between players A and B: ``points`` (A's signed points, sorted
    distinct ints) and ``chances`` ``[2, len(points)]``, row 0 when A deals, row 1 when B
    deals, each row summing to 1."""

    points: np.ndarray
    chances: np.ndarray

    def __post_init__(self) -> None:
        pts, ch = np.asarray(self.points), np.asarray(self.chances, np.float64)
        if pts.ndim != 1 or len(pts) == 0 or not np.issubdtype(pts.dtype, np.integer):
            raise ValueError(f"points must be a non-empty 1-d array of ints, got {pts!r}")
        if ch.shape != (2, len(pts)) or (ch < 0).any():
            raise ValueError(f"chances must be [2, {len(pts)}] non-negative, got {ch.shape}")
        if not np.allclose(ch.sum(axis=1), 1.0):
            raise ValueError(f"each row of chances must sum to 1, got {ch.sum(axis=1)}")
        if (ch[:, pts == 0] >= 1).any():
            raise ValueError("a dealer whose every hand is dead never ends the match")

    @classmethod
    def from_samples(cls, a_deals: Any, b_deals: Any) -> HandOutcomes:
        """From A's signed points in hands A dealt and in hands B dealt."""
        rows = [np.asarray(a_deals, np.int64), np.asarray(b_deals, np.int64)]
        if any(len(r) == 0 for r in rows):
            raise ValueError("from_samples needs at least one hand with each dealer")
        points = np.unique(np.concatenate(rows))
        chances = np.array([[np.mean(r == p) for p in points] for r in rows])
        return cls(points, chances)

    def swapped(self) -> HandOutcomes:
        """The same hands from B's side."""
        return HandOutcomes(-self.points[::-1], self.chances[::-1, ::-1])

    def to_dict(self) -> dict[str, Any]:
        return {"points": self.points.tolist(), "chances": self.chances.tolist()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandOutcomes:
        return cls(np.asarray(data["points"], np.int64), np.asarray(data["chances"]))


def _next_dealer(rule: str, dealer: int, a_won: bool | None) -> int:
    """The dealer (0: A, 1: B) after a hand (``a_won`` None: a dead hand)."""
    return next_dealer(rule, dealer, None if a_won is None else (0 if a_won else 1))


def match_equity(
    outcomes: HandOutcomes, target: int = 100, dealer_rule: str = "alternate"
) -> np.ndarray:
    """``E[d, a, b]``: the chance that A wins the match to ``target`` from scores ``a`` (A)
    and ``b`` (B), both below the target, A dealing the next hand when ``d`` is 0."""
    check_int("target", target, 1, 100000)
    check_choice("dealer_rule", dealer_rule, DEALER_RULES)
    pts = np.asarray(outcomes.points, np.int64)
    ch = np.asarray(outcomes.chances, np.float64)
    reach = int(np.abs(pts).max())
    size = target + reach + 1
    # Scores at the target or over it are the match's end: A's (1) or B's (0).
    e = np.zeros((2, size, size))
    e[:, target:, :] = 1.0
    dead = np.flatnonzero(pts == 0)
    q = ch[:, dead[0]] if len(dead) else np.zeros(2)
    scored = [(int(x), ch[:, k]) for k, x in enumerate(pts) if x != 0]
    for s in range(2 * target - 2, -1, -1):
        a = np.arange(max(0, s - target + 1), min(s, target - 1) + 1)
        b = s - a
        r = np.zeros((2, len(a)))
        for d in (0, 1):
            for x, p in scored:
                nd = _next_dealer(dealer_rule, d, x > 0)
                r[d] += p[d] * e[nd, a + max(x, 0), b + max(-x, 0)]
        if dealer_rule == "alternate":  # a dead hand passes the deal: a 2 x 2 system
            det = 1.0 - q[0] * q[1]
            e[0, a, b] = (r[0] + q[0] * r[1]) / det
            e[1, a, b] = (r[1] + q[1] * r[0]) / det
        else:
            e[0, a, b] = r[0] / (1.0 - q[0])
            e[1, a, b] = r[1] / (1.0 - q[1])
    return e[:, :target, :target]


def simulate_model(
    outcomes: HandOutcomes,
    a: int,
    b: int,
    a_deals: bool,
    matches: int,
    rng: np.random.Generator,
    target: int = 100,
    dealer_rule: str = "alternate",
) -> float:
    """The share of ``matches`` simulated matches A wins from ``(a, b)``, hands drawn from
    ``outcomes`` (a check of :func:`match_equity`'s programme, not of its model)."""
    wins = 0
    for _ in range(matches):
        sa, sb, d = a, b, 0 if a_deals else 1
        while sa < target and sb < target:
            x = int(rng.choice(outcomes.points, p=outcomes.chances[d]))
            sa, sb = sa + max(x, 0), sb + max(-x, 0)
            d = _next_dealer(dealer_rule, d, None if x == 0 else x > 0)
        wins += sa >= target
    return wins / matches


def shipped_outcomes(table: str) -> HandOutcomes:
    """L2 against L2's hand outcomes at the named table (:data:`SHIPPED`)."""
    data = json.loads(SHIPPED.read_text())
    if data.get("format") != FORMAT:
        raise ValueError(f"{SHIPPED}: not a hand-outcome file (format {FORMAT!r})")
    tables = data["tables"]
    if table not in tables:
        raise ValueError(f"no hand outcomes shipped for table {table!r}; have {sorted(tables)}")
    return HandOutcomes.from_dict(tables[table]["outcomes"])


@functools.lru_cache(maxsize=16)
def knock_shift_table(table: str, target: int, dealer_rule: str, win: int, loss: int) -> np.ndarray:
    """``[target + 1, target + 1]``: by my score and his (capped at the target), how much
    more a point won is worth than a point lost, against 0 to 0: the log of the ratio of
    the equity a win of ``win`` points gains per point to what a loss of ``loss`` points
    costs per point, less the same at the start of the match. Positive: winning a little
    now is worth more than usual against a big loss (knock sooner); negative: only a big
    win helps (play on for gin). The match equity is L2 against L2's at ``table``, each
    score's two dealers averaged."""
    e = match_equity(shipped_outcomes(table), target, dealer_rule).mean(axis=0)
    full = np.zeros((target + 1 + max(win, loss), target + 1 + max(win, loss)))
    full[target:, :] = 1.0
    full[:target, :target] = e
    full[:target, target:] = 0.0
    m = np.arange(target + 1)[:, None]
    o = np.arange(target + 1)[None, :]
    here = full[m, o]
    gain = (full[m + win, o] - here) / win
    cost = (here - full[m, o + loss]) / loss
    tiny = 1e-9
    ratio = np.log(np.maximum(gain, tiny) / np.maximum(cost, tiny))
    out = ratio - ratio[0, 0]
    # A score at the target is a match over: nothing to decide there.
    out[target, :] = 0.0
    out[:, target] = 0.0
    return np.clip(out, -math.log(1e3), math.log(1e3))


def _shipped_table_for(hand: dict[str, Any]) -> str:
    data = json.loads(SHIPPED.read_text())
    for name, entry in data["tables"].items():
        if entry["rules"] == hand:
            return str(name)
    return "default"


def knock_shifts(rules: HandRules | None = None) -> np.ndarray:
    """:func:`knock_shift_table` for a table of ``rules`` (a gin table, the rules of a hand
    alone, or None): the shipped outcomes of the named table with the same hand rules (else the
    default table's), the table's target and dealer rule (defaults 100 and ``alternate``),
    a win of :data:`KNOCK_WIN` against a loss of the undercut bonus plus
    :data:`LOSS_OVER_UNDERCUT`. Above :data:`MAX_TARGET` no shift: in so long a match
    the score hardly matters."""
    hand = table_rules(rules)
    target = getattr(rules, "target_score", 100)
    rule = getattr(rules, "dealer_rule", "alternate")
    if target > MAX_TARGET:
        return np.zeros((target + 1, target + 1))
    options = {k: getattr(hand, k) for k in HandRules.option_names()}
    loss = hand.undercut_bonus + LOSS_OVER_UNDERCUT
    return knock_shift_table(_shipped_table_for(options), target, rule, KNOCK_WIN, loss)
