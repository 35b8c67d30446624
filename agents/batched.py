"""Agents over a batch of games: ``act(observations [N, 436], masks [N, 109]) -> [N]``.

The batched engine (:class:`gin_env.vector.VectorGinEnv`) hands out the observation and
action mask of the seat to act in every game as arrays; these policies answer for all rows
at once, with the same decisions as the per-game agents given the same rows:

==============  ================================================================================
``random``      :class:`BatchedRandom`: uniform over each row's legal actions (numpy; seeded, not
                the per-game agent's draws)
``simple``      :class:`BatchedSimple`: L1, exactly :class:`agents.simple.SimpleAgent` (numpy over
                the batch, deadwoods from the compiled kernels of :mod:`gin_env.fast_melds`)
``heuristic``   :class:`agents.heuristic_batched.BatchedHeuristic`: L2, exactly
                :class:`agents.heuristic.HeuristicAgent` with the spec's parameters at the
                table's rules (numba kernels; ``heuristic:danger_weight=3.0`` too)
``tuned``       the same kernels with the parameter set tuned for the table (L3,
                :mod:`agents.tuned`)
``captain``     :class:`agents.heuristic_batched.BatchedCaptain` /
``adviser``     :class:`~agents.heuristic_batched.BatchedAdviser`: the wrappers of
                :mod:`agents.advice` around the batched form of their agent
anything else   :class:`PerRow`: ``agents.seat(name, table).act`` row by row (``search``, trained
                checkpoints)
==============  ================================================================================

L2 is compiled, with the Python agent as the readable reference and a differential test
(``tests/test_heuristic_batched.py``); ``benchmarks/bench_heuristic.py`` prints the
speed-up.

>>> import numpy as np
>>> from gin_env.vector import VectorGinEnv
>>> env = VectorGinEnv(3, seed=0, backend="python")
>>> out = env.reset()
>>> acts = BatchedSimple().act(out["observation"], out["action_mask"])
>>> bool(out["action_mask"][np.arange(3), acts].all())
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

import agents
from agents.advice import Adviser, Captain
from agents.batched_policy import BatchedPolicy, card_masks, check_batch
from agents.heuristic import HeuristicAgent
from agents.heuristic_batched import BatchedAdviser, BatchedCaptain, BatchedHeuristic
from agents.random_agent import RandomAgent
from agents.simple import SimpleAgent
from agents.tuned import TunedAgent
from gin_env import actions as A
from gin_env.cards import NUM_CARDS, POINTS
from gin_env.config import Table
from gin_env.encoding import OBS_SLICES
from gin_env.fast_melds import discard_deadwoods_batch
from gin_env.hand import Phase
from gin_env.melds import best_arrangement

__all__ = [
    "BatchedPolicy",
    "BatchedRandom",
    "BatchedSimple",
    "PerRow",
    "seat_batched",
    "batched_form",
    "BATCHED_NAMES",
    "card_masks",
    "check_batch",
]

#: Names with a batched implementation (other agent names run row by row).
BATCHED_NAMES = ("random", "simple", "heuristic", "tuned", "captain", "adviser")

_S = OBS_SLICES
_POINTS = np.asarray(POINTS, np.int64)
# A discard's rank among equal deadwoods: the higher card first, then the lower id.
_TIE = (10 - _POINTS) * 64 + np.arange(NUM_CARDS)
_BIG = np.int64(1 << 40)


class BatchedRandom:
    """L0 over a batch: uniform over each row's legal actions (advice included), seeded by
    the ``rng`` given to :meth:`act` or ``seed``."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        _, legal = check_batch(observations, masks)
        rng = rng if rng is not None else self._rng
        counts = legal.sum(axis=1)
        k = (rng.random(len(counts)) * counts).astype(np.int64)  # which legal action, 0-based
        return np.argmax(legal.cumsum(axis=1) > k[:, None], axis=1).astype(np.int64)

    def __repr__(self) -> str:
        return "BatchedRandom()"


class BatchedSimple:
    """L1 over a batch: the decisions of :class:`agents.simple.SimpleAgent` for every row.

    Discards and knocks take the discard that leaves the least deadwood (ties to the higher
    card), knocking (or big gin) when legal; the upcard / top discard is taken when it melds
    and lowers the deadwood. Deadwoods come from the compiled kernels; whether the card ends
    up melded in the best arrangement is asked of :func:`gin_env.melds.best_arrangement`
    (the arrangement L1 reads, ties included) for the rows where the deadwood would fall.
    """

    name = "simple"

    def __init__(self) -> None:

        self._dd = discard_deadwoods_batch

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        obs, legal = check_batch(observations, masks)
        hand = card_masks(obs[:, _S["hand"]])
        phase = np.argmax(obs[:, _S["phase"]], axis=1)
        advising = obs[:, _S["advising"].start] > 0.5
        count = np.bitwise_count(hand.view(np.uint64)).astype(np.int64)
        out = np.argmax(legal, axis=1).astype(np.int64)  # the first legal id
        # The moves of the hand: NO_ADVICE dropped unless it is all there is.
        game = legal.copy()
        game[:, A.NO_ADVICE] = False
        only_advice = ~game.any(axis=1)
        game[only_advice] = legal[only_advice]
        blind = advising & (count != 10) & (count != 11)
        single = game.sum(axis=1) == 1
        out[single] = np.argmax(game[single], axis=1)
        todo = ~blind & ~single
        out[blind] = np.where(legal[blind, A.NO_ADVICE], A.NO_ADVICE, out[blind])
        discard_rows = np.flatnonzero(todo & (phase == Phase.DISCARD))
        if len(discard_rows):
            out[discard_rows] = self._discards(hand[discard_rows], game[discard_rows])
        draw_rows = np.flatnonzero(todo & (phase != Phase.DISCARD))
        if len(draw_rows):
            out[draw_rows] = self._draws(obs[draw_rows], hand[draw_rows], game[draw_rows])
        return out

    def _discards(self, hand: np.ndarray, game: np.ndarray) -> np.ndarray:
        dws = self._dd(hand)  # [R, 52], -1 for cards not held
        key = dws * 4096 + _TIE
        knock_ok = game[:, A.KNOCK : A.KNOCK + NUM_CARDS]
        discard_ok = game[:, A.DISCARD : A.DISCARD + NUM_CARDS]
        knock = np.argmin(np.where(knock_ok, key, _BIG), axis=1)
        discard = np.argmin(np.where(discard_ok, key, _BIG), axis=1)
        return np.where(
            game[:, A.BIG_GIN],
            A.BIG_GIN,
            np.where(knock_ok.any(axis=1), A.KNOCK + knock, A.DISCARD + discard),
        )

    def _draws(self, obs: np.ndarray, hand: np.ndarray, game: np.ndarray) -> np.ndarray:

        top_part = obs[:, _S["top_discard"]] > 0.5
        has_top = top_part.any(axis=1)
        top = np.argmax(top_part, axis=1)
        blind = np.where(game[:, A.PASS], A.PASS, A.DRAW_STOCK)
        out = blind.copy()
        ask = np.flatnonzero(game[:, A.TAKE_DISCARD] & has_top)
        if not len(ask):
            return out
        bit = np.left_shift(np.int64(1), top[ask])
        taken = hand[ask] | bit
        dws = self._dd(taken)  # [R, 52]
        rows = np.arange(len(ask))
        now = dws[rows, top[ask]]  # the deadwood of the hand without the card
        key = dws * 4096 + _TIE
        key[rows, top[ask]] = _BIG
        key[dws < 0] = _BIG
        drop = np.argmin(key, axis=1)
        falls = np.flatnonzero(dws[rows, drop] < now)
        for j in falls.tolist():  # does the card end up melded? (few rows)
            card = int(top[ask[j]])
            _, dead = best_arrangement(int(taken[j]) & ~(1 << int(drop[j])))
            if not dead >> card & 1:
                out[ask[j]] = A.TAKE_DISCARD
        return out

    def __repr__(self) -> str:
        return "BatchedSimple()"


class PerRow:
    """Any per-game agent over a batch: its ``act`` on every row (an adapter, no speed-up)."""

    def __init__(self, agent: Any, name: str | None = None) -> None:
        if not callable(getattr(agent, "act", None)):
            raise ValueError(f"PerRow needs an agent with act(observation, rng); got {agent!r}")
        self.agent = agent
        self.name = name if name is not None else getattr(agent, "name", type(agent).__name__)

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        obs, legal = check_batch(observations, masks)
        act = self.agent.act
        return np.fromiter(
            (
                act({"observation": obs[i], "action_mask": legal[i].astype(np.int8)}, rng)
                for i in range(obs.shape[0])
            ),
            np.int64,
            obs.shape[0],
        )

    def __repr__(self) -> str:
        return f"PerRow({self.agent!r})"


def batched_form(agent: Any, name: str | None = None) -> BatchedPolicy:
    """The batched policy playing as the per-game ``agent``: L0, L1, L2 (any parameters, the
    tuned sets of L3 too) and the advice wrappers around them batched, any other agent row
    by row (:class:`PerRow`)."""
    kind = type(agent)
    if kind is RandomAgent:
        return BatchedRandom()
    if kind is SimpleAgent:
        return BatchedSimple()
    if kind in (HeuristicAgent, TunedAgent):  # L3 decides as L2 with its set's parameters
        return BatchedHeuristic(agent.params, agent.match_rules)  # the whole table
    if kind is Captain:
        return BatchedCaptain(batched_form(agent.agent), agent.mode, agent.margin)
    if kind is Adviser:
        return BatchedAdviser(batched_form(agent.agent), name=agent.name)
    return PerRow(agent, name=name)


def seat_batched(spec: str, table: Table) -> BatchedPolicy:
    """The batched twin of :func:`agents.seat`: the agent ``spec`` seated at ``table`` (its
    checks and refusals included), in its batched form (:func:`batched_form`): ``random``,
    ``simple``, ``heuristic`` (any parameters: ``heuristic:knock_late=6``), ``tuned``,
    ``captain`` and ``adviser`` around them batched; any other (``search:budget=0.05``,
    ``gin-ppo``) row by row."""

    if not isinstance(spec, str):
        raise ValueError(f"an opponent is named by a string, got {spec!r}")
    base, options = agents.parse_spec(spec)
    agent = agents.seat(spec, table)
    if base in ("random", "simple"):
        # Without options the numpy forms; with options the per-game agent's own draws.
        return batched_form(agent) if not options else PerRow(agent, name=spec)
    return batched_form(agent, name=spec)
