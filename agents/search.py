"""L4: determinised Monte Carlo search over the heuristic's candidate moves.

At a decision with a real choice the agent

1. lists candidates: take vs draw (pass), the heuristic's best few discards and the best
   knock (a knock's value is the exact showdown, no rollout needed);
2. samples worlds consistent with what its seat has seen: the unseen cards are the 52 less
   its hand, the discard pile and the cards the opponent took from it; the opponent holds
   his known pickups plus a random sample of the unseen, the stock is the rest, shuffled
   (the buried pile's order is not in the observation, so it is shuffled too);
3. plays every candidate out in the same world (common random numbers) to the end of the
   hand with a rollout policy for both seats, and scores the hand's points for its side;
4. picks the best mean, until its budget (seconds per move, or a number of worlds) is spent.

Seeded by the ``rng`` given to :meth:`act` (or ``seed``); with ``worlds=`` instead of a time
budget it is fully reproducible.
"""

from __future__ import annotations

import time

import numpy as np

from agents.base import (
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_DEALER,
    PHASE_UPCARD_NONDEALER,
    SeatView,
    ViewAgent,
    game_actions,
)
from agents.heuristic import FULL, HeuristicAgent, near_cards
from agents.simulate import hand_from_state, play_out, seat_points
from gin_env import actions as A
from gin_env.config import HandRules
from gin_env.hand import Phase

__all__ = ["SearchAgent"]


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class SearchAgent(ViewAgent):
    """Level 4: determinised Monte Carlo rollouts over a policy (L2 by default).

    ``budget``: seconds per decision (default 0.1); ``worlds``: a fixed number of sampled
    worlds per decision instead (reproducible); ``candidates``: discards considered (default
    1: the heuristic's best discard against knocking, and take against draw, which is what
    an L2 rollout budget of 0.1 s affords; more spreads the worlds thinner);
    ``policy``: the rollout policy (a :class:`~agents.base.ViewAgent`); ``rules``: the hand
    rules being played (knock limit, bonuses).
    """

    name = "search"

    def __init__(
        self,
        budget: float | None = 0.1,
        worlds: int | None = None,
        candidates: int = 1,
        policy: ViewAgent | None = None,
        rules: HandRules | None = None,
        seed: int | None = None,
    ) -> None:
        if budget is None and worlds is None:
            raise ValueError("SearchAgent needs a budget (seconds) or worlds (a count)")
        if budget is not None and not budget > 0:
            raise ValueError(f"budget must be a positive number of seconds, got {budget!r}")
        if worlds is not None and (not isinstance(worlds, int) or worlds < 1):
            raise ValueError(f"worlds must be a positive int, got {worlds!r}")
        if not isinstance(candidates, int) or candidates < 1:
            raise ValueError(f"candidates must be a positive int, got {candidates!r}")
        self.budget = budget
        self.worlds = worlds
        self.candidates = candidates
        self.heuristic = HeuristicAgent()
        self.policy = policy if policy is not None else self.heuristic
        self.rules = rules if rules is not None else HandRules()
        self._rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"SearchAgent(budget={self.budget}, worlds={self.worlds})"

    # -- candidates -----------------------------------------------------------------------
    def _candidates(self, view: SeatView, legal: list[int]) -> list[int]:
        h = self.heuristic
        if view.phase == PHASE_DISCARD:
            if A.BIG_GIN in legal:
                return [A.BIG_GIN]
            discards = [a - A.DISCARD for a in legal if A.DISCARD <= a < A.KNOCK]
            knocks = [a - A.KNOCK for a in legal if A.KNOCK <= a < A.BIG_GIN]
            allowed = set(discards)
            banned = next((c for c in _bits(view.hand) if c not in allowed), -1)
            scores, dws = h.keep_scores(view, view.hand, banned)
            if knocks:
                k = min(knocks, key=lambda c: (dws[c], scores.get(c, 0.0), c))
                if dws[k] == 0:
                    return [A.KNOCK + k]  # gin: nothing beats it
            ranked = sorted(discards, key=lambda c: (scores[c], c))
            out = [A.DISCARD + c for c in ranked[: self.candidates]]
            if knocks:
                out.insert(0, A.KNOCK + k)
            return out
        blind = A.PASS if A.PASS in legal else A.DRAW_STOCK
        top = view.top_discard
        if A.TAKE_DISCARD not in legal or top < 0 or not (near_cards(view.hand) >> top) & 1:
            return [blind]  # a card that melds with nothing is never worth taking
        return [A.TAKE_DISCARD, blind]

    # -- worlds ---------------------------------------------------------------------------
    def _world(
        self, view: SeatView, rng: np.random.Generator
    ) -> tuple[int, list[int], list[int]] | None:
        """(opponent's hand, discard pile bottom first, stock top first), or None when the
        view is not consistent with one (e.g. an adviser who does not see the hand)."""
        unseen = _bits(FULL & ~view.known)
        hidden = 10 - view.opponent_took.bit_count()
        if hidden < 0 or len(unseen) != hidden + view.stock_size or view.top_discard < 0:
            return None
        perm = rng.permutation(len(unseen))
        opp = view.opponent_took
        for i in perm[:hidden]:
            opp |= 1 << unseen[i]
        stock = [unseen[i] for i in perm[hidden:]]
        buried = _bits(view.discard_pile & ~(1 << view.top_discard))
        order = rng.permutation(len(buried))
        pile = [buried[i] for i in order] + [view.top_discard]
        return opp, pile, stock

    def _value(self, view: SeatView, world: tuple[int, list[int], list[int]], action: int) -> float:
        opp, pile, stock = world
        me = 1 if view.role == 0 else 0  # seat 1 deals, as in the engine
        phase = Phase(view.phase)
        banned = -1
        if phase is Phase.DISCARD:
            allowed = {a - A.DISCARD for a in view.legal if A.DISCARD <= a < A.KNOCK}
            banned = next((c for c in _bits(view.hand) if c not in allowed), -1)
        must_stock = view.phase == PHASE_DRAW and A.TAKE_DISCARD not in view.legal
        hands = (view.hand, opp) if me == 0 else (opp, view.hand)
        took = (0, view.opponent_took) if me == 0 else (view.opponent_took, 0)
        disc = (
            (view.own_discarded, view.opponent_discarded)
            if me == 0
            else (view.opponent_discarded, view.own_discarded)
        )
        hand = hand_from_state(
            hands,
            pile,
            stock,
            dealer=1,
            current=me,
            phase=phase,
            took=took,
            discarded=disc,
            taken=None if banned < 0 else banned,
            must_draw_stock=must_stock,
            rules=self.rules,
        )
        hand.step(action)
        result = play_out(hand, (self.policy, self.policy))
        return float(seat_points(result, me))

    # -- decisions ------------------------------------------------------------------------
    def choose(self, view: SeatView, rng: np.random.Generator | None = None) -> int:
        legal = game_actions(view.legal)
        if len(legal) == 1:
            return legal[0]
        if view.phase not in (
            PHASE_DISCARD,
            PHASE_DRAW,
            PHASE_UPCARD_NONDEALER,
            PHASE_UPCARD_DEALER,
        ):
            return legal[0]
        cands = self._candidates(view, legal)
        if len(cands) == 1:
            return cands[0]
        rng = rng if rng is not None else self._rng
        totals = np.zeros(len(cands))
        n = 0
        start = time.perf_counter()
        while True:
            world = self._world(view, rng)
            if world is None:
                return self.heuristic.choose(view, rng)
            for i, a in enumerate(cands):
                totals[i] += self._value(view, world, a)
            n += 1
            if self.worlds is not None:
                if n >= self.worlds:
                    break
            else:
                # Stop when another world would overrun the budget (mean world time so far).
                elapsed = time.perf_counter() - start
                if elapsed * (n + 1) / n > self.budget:
                    break
        # Ties go to the earlier candidate: the heuristic's order.
        return int(cands[int(np.argmax(totals))])
