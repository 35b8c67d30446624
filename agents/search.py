"""L4: determinised Monte Carlo search around the heuristic's move.

At a decision with a real choice the agent

1. lists candidates: the heuristic's (L2) move, take vs draw (pass), the heuristic's best
   few discards and the best knock (a knock's value is the exact showdown, no rollout);
2. samples worlds consistent with what its seat has seen: the unseen cards are the 52 less
   its hand, the discard pile and the cards the opponent took from it; the opponent holds
   his known pickups plus a sample of the unseen (of a few samples, the one with the least
   deadwood above the knock limit: a hand played for a while is better than a random one,
   and one that could knock would have), the stock is the rest, shuffled (the buried
   pile's order is not in the observation, so it is shuffled too);
3. plays every candidate out in the same world (common random numbers) to the end of the
   hand and scores the hand's points for its side; rollouts are a greedy policy straight on
   card masks (:func:`agents.simulate.fast_playout`, thousands of hands a second) unless a
   ``policy`` agent is given (slow, through the engine);
4. leaves the heuristic's move only for a candidate whose mean gain over it, paired over
   the worlds, exceeds ``margin`` standard errors.

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
from agents.heuristic import FULL, HeuristicAgent, banned_card, near_cards
from agents.simulate import (
    fast_playout,
    greedy_discard,
    greedy_takes,
    hand_from_state,
    play_out,
    seat_points,
)
from gin_env import actions as A
from gin_env.cards import from_mask
from gin_env.config import HandRules
from gin_env.encoding import FULL_STOCK
from gin_env.hand import DRAW_AT_STOCK, Phase
from gin_env.melds import deadwood_mask, showdown

__all__ = ["SearchAgent"]


def _is_number(x: object) -> bool:
    return not isinstance(x, bool) and isinstance(x, int | float)


class SearchAgent(ViewAgent):
    """Level 4: determinised Monte Carlo rollouts that can overrule the heuristic (L2).

    ``budget``: seconds per decision (default 0.1); ``worlds``: a fixed number of sampled
    worlds per decision instead (reproducible); ``candidates``: the heuristic's best
    discards considered (default 3); ``policy``: a rollout agent (a
    :class:`~agents.base.ViewAgent`; default None: the fast greedy rollout); ``rules``: the
    hand rules being played (knock limit, bonuses); ``margin``: standard errors by which a
    candidate must beat the heuristic's move; ``opponent_samples``: hands sampled per world
    for the opponent (the best kept); ``decisions``: which decisions are searched, ``+``-joined
    from ``draw`` (take vs draw), ``knock`` (knock vs go on) and ``discard`` (the discard
    when no knock is legal); the others play the heuristic's move.

    Measured (duplicate, 300 pairs, 40 worlds): following the greedy rollouts' best mean
    (``margin=0``) loses to L2 at every kind of decision, so the margin is what keeps the
    search from following the rollouts' bias. Over 1,000 pairs at 0.1 s/move, margin 1
    scored -0.55 [-1.34, 0.24] per hand against L2 and margin 2 (the default) +0.08
    [-0.47, 0.63]; against the L2 that reads the opponent (and searching around it) margin 2
    scores +0.54 [-0.08, 1.16] at 80 ms a move (``results/gin_L4_vs_L2.json``).

    Why the +2 a hand the issue asks for is out of this design's reach (duplicate against
    L2): rollouts played by L2 itself, 60 worlds a decision and margin 1 (about 1 s a
    move, ten times the budget), score -0.36 +/- 1.13 over 300 pairs, so faster L2
    rollouts would not close the gap. What L2 leaves on the table is in its opponent's
    hidden hand: told which discards L2 would take, L2 scores +5.9 +/- 0.7 a hand against
    itself (1,000 pairs), but the seat cannot learn them (see :mod:`agents.heuristic`).
    """

    name = "search"

    def __init__(
        self,
        budget: float | None = 0.1,
        worlds: int | None = None,
        candidates: int = 3,
        policy: ViewAgent | None = None,
        rules: HandRules | None = None,
        seed: int | None = None,
        margin: float = 2.0,
        opponent_samples: int = 3,
        decisions: str = "draw+knock+discard",
    ) -> None:
        if budget is None and worlds is None:
            raise ValueError("SearchAgent needs a budget (seconds) or worlds (a count)")
        if budget is not None and not (_is_number(budget) and budget > 0):
            raise ValueError(f"budget must be a positive number of seconds, got {budget!r}")
        if worlds is not None and (not isinstance(worlds, int) or worlds < 1):
            raise ValueError(f"worlds must be a positive int, got {worlds!r}")
        if not isinstance(candidates, int) or candidates < 1:
            raise ValueError(f"candidates must be a positive int, got {candidates!r}")
        if not (_is_number(margin) and margin >= 0):
            raise ValueError(f"margin must be a number >= 0 (standard errors), got {margin!r}")
        if not isinstance(opponent_samples, int) or opponent_samples < 1:
            raise ValueError(f"opponent_samples must be a positive int, got {opponent_samples!r}")
        kinds = set(decisions.split("+")) if isinstance(decisions, str) else set()
        if not kinds or not kinds <= {"draw", "knock", "discard"}:
            raise ValueError(
                f"decisions must be '+'-joined names from draw, knock, discard; got {decisions!r}"
            )
        self.decisions = kinds
        self.budget = budget
        self.worlds = worlds
        self.candidates = candidates
        self.margin = margin
        self.opponent_samples = opponent_samples
        self.heuristic = HeuristicAgent()
        self.policy = policy
        self.rules = rules if rules is not None else HandRules()
        self._rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return (
            f"SearchAgent(budget={self.budget}, worlds={self.worlds}, "
            f"candidates={self.candidates}, margin={self.margin})"
        )

    # -- candidates -----------------------------------------------------------------------
    def _candidates(self, view: SeatView, legal: list[int]) -> list[int]:
        h = self.heuristic
        if view.phase == PHASE_DISCARD:
            if A.BIG_GIN in legal:
                return [A.BIG_GIN]
            discards, knocks, scores, dws = h.discard_options(view, legal)
            if knocks:
                k = min(knocks, key=lambda c: (dws[c], scores.get(c, 0.0), c))
                if dws[k] == 0:
                    return [A.KNOCK + k]  # gin: nothing beats it
            ranked = sorted(discards, key=lambda c: (scores[c], c))
            wide = "discard" in self.decisions
            if knocks and "knock" not in self.decisions:
                return []
            if not knocks and not wide:
                return []
            out = [A.DISCARD + c for c in ranked[: self.candidates if wide else 1]]
            if knocks:
                out.insert(0, A.KNOCK + k)
            return out
        if "draw" not in self.decisions:
            return []
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
        unseen = from_mask(FULL & ~view.known)
        hidden = 10 - view.opponent_took.bit_count()
        if hidden < 0 or len(unseen) != hidden + view.stock_size or view.top_discard < 0:
            return None
        # A hand that has been played for a while is better than a random one, and one that
        # could knock would (mostly) have knocked: of a few samples keep the lowest deadwood
        # above the knock limit.
        turns = FULL_STOCK - view.stock_size
        tries = 1 + min(self.opponent_samples - 1, turns // 3)
        best: tuple[int, int, np.ndarray] | None = None
        for _ in range(tries):
            perm = rng.permutation(len(unseen))
            opp = view.opponent_took
            for i in perm[:hidden]:
                opp |= 1 << unseen[i]
            if tries == 1:
                best = (0, opp, perm)
                break
            dw = deadwood_mask(opp)
            key = dw if dw > self.rules.knock_limit else 1000 - dw
            if best is None or key < best[0]:
                best = (key, opp, perm)
        assert best is not None
        _, opp, perm = best
        stock = [unseen[i] for i in perm[hidden:]]
        buried = from_mask(view.discard_pile & ~(1 << view.top_discard))
        order = rng.permutation(len(buried))
        pile = [buried[i] for i in order] + [view.top_discard]
        return opp, pile, stock

    def _fast_value(
        self, view: SeatView, world: tuple[int, list[int], list[int]], action: int
    ) -> float:
        """Points for this seat of ``action`` in ``world``, played out greedily on masks."""
        opp, pile, stock = world
        pile, stock = list(pile), list(stock)
        rules = self.rules
        limit = rules.knock_limit
        hand = view.hand
        if A.KNOCK <= action < A.BIG_GIN:
            kept = hand & ~(1 << (action - A.KNOCK))
            sd = showdown(kept, opp, limit, rules.gin_bonus, rules.undercut_bonus)
            return float(-sd.defender_points if sd.kind == "undercut" else sd.knocker_points)
        hands = [hand, opp]  # this seat is 0 here
        must = False
        if action == A.PASS:
            if view.phase == PHASE_UPCARD_NONDEALER:
                if greedy_takes(opp, pile[-1]):
                    return self._after_draw(hands, pile, stock, 1, pile.pop())
                return self._playout(hands, pile, stock, 0, True)
            return self._playout(hands, pile, stock, 1, True)
        if action == A.TAKE_DISCARD:
            return self._after_draw(hands, pile, stock, 0, pile.pop())
        if action == A.DRAW_STOCK:
            return self._after_draw(hands, pile, stock, 0, stock.pop(0), from_pile=False)
        card = action - A.DISCARD
        hands[0] = hand & ~(1 << card)
        pile.append(card)
        if len(stock) <= DRAW_AT_STOCK:
            return 0.0
        return self._playout(hands, pile, stock, 1, must)

    def _after_draw(
        self,
        hands: list[int],
        pile: list[int],
        stock: list[int],
        seat: int,
        card: int,
        from_pile: bool = True,
    ) -> float:
        """``seat`` has drawn ``card``: it discards (or knocks) greedily, then play goes on."""
        rules = self.rules
        hand = hands[seat] | 1 << card
        drop, dw = greedy_discard(hand, card if from_pile else -1)
        hand &= ~(1 << drop)
        hands[seat] = hand
        pile.append(drop)
        if dw <= rules.knock_limit:
            sd = showdown(
                hand, hands[1 - seat], rules.knock_limit, rules.gin_bonus, rules.undercut_bonus
            )
            winner, pts = (
                (1 - seat, sd.defender_points)
                if sd.kind == "undercut"
                else (seat, sd.knocker_points)
            )
            return float(pts if winner == 0 else -pts)
        if len(stock) <= DRAW_AT_STOCK:
            return 0.0
        return self._playout(hands, pile, stock, 1 - seat, False)

    def _playout(
        self, hands: list[int], pile: list[int], stock: list[int], current: int, must: bool
    ) -> float:
        winner, pts = fast_playout(hands, pile, stock, current, self.rules, must_draw_stock=must)
        if winner is None:
            return 0.0
        return float(pts if winner == 0 else -pts)

    def _value(self, view: SeatView, world: tuple[int, list[int], list[int]], action: int) -> float:
        opp, pile, stock = world
        me = 1 if view.role == 0 else 0  # seat 1 deals, as in the engine
        phase = Phase(view.phase)
        banned = -1
        if phase is Phase.DISCARD:
            banned = banned_card(view.hand, view.legal)
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
        assert self.policy is not None
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
        default = self.heuristic.choose(view, rng)
        cands = self._candidates(view, legal)
        if not cands:
            return default
        if default in cands:
            cands.remove(default)
        cands.insert(0, default)
        if len(cands) == 1:
            return default
        rng = rng if rng is not None else self._rng
        value = self._fast_value if self.policy is None else self._value
        rows: list[list[float]] = []
        start = time.perf_counter()
        while True:
            world = self._world(view, rng)
            if world is None:
                return default
            rows.append([value(view, world, a) for a in cands])
            n = len(rows)
            if self.worlds is not None:
                if n >= self.worlds:
                    break
            elif self.budget is not None:
                # Stop when another world would overrun the budget (mean world time so far).
                elapsed = time.perf_counter() - start
                if elapsed * (n + 1) / n > self.budget:
                    break
        # Leave the heuristic's move only for one that is better by ``margin`` standard
        # errors of the paired difference (the same worlds for every candidate).
        vals = np.asarray(rows)
        diffs = vals[:, 1:] - vals[:, :1]
        means = diffs.mean(axis=0)
        i = int(np.argmax(means))
        if means[i] <= 0:
            return default
        if len(rows) > 1:
            se = diffs[:, i].std(ddof=1) / np.sqrt(len(rows))
            if means[i] <= self.margin * se:
                return default
        return int(cands[i + 1])
