"""L4: determinised Monte Carlo search around the heuristic's move.

At a decision with a real choice the agent

1. lists candidates: the heuristic's (L2) move, take vs draw (pass), the heuristic's best
   few discards and the best knock (a knock's value is the exact showdown, no rollout);
2. samples worlds consistent with what its seat has seen: it builds the hand its view
   describes (:meth:`GinHand.from_state <gin_env.hand.GinHand.from_state>`) and deals the
   unseen cards again (:meth:`GinHand.resample <gin_env.hand.GinHand.resample>`): the
   opponent keeps his known pickups and gets a sample of the unseen (of a few samples, the
   one with the least deadwood above the hand's knock limit: a hand played for a while is
   better than a random one, and one that could knock would have), the stock is the rest,
   shuffled (the buried pile's order is not in the observation, so it is shuffled too);
3. plays every candidate out in the same world (common random numbers) to the end of the
   hand on the rules engine with the table's rules and scores the hand's points for its
   side; rollouts are the greedy policy (:func:`agents.simulate.greedy_playout`) unless a
   ``policy`` agent is given (slower: it decodes a view at every move);
4. leaves the heuristic's move only for a candidate whose mean gain over it, paired over
   the worlds, exceeds ``margin`` standard errors.

The rules are the table's: seat it at the table (``agents.seat("search", env.config)``, which
gives ``rules`` the table's hand rules; off a table ``agents.make("search:oklahoma=True")``
also works). Under
Oklahoma the hand's knock limit comes from the upcard, which the agent reads from what its
seat saw (see :meth:`SearchAgent.upcard`). A table whose legal knocks (or big gin) do not
fit the agent's rules is a ValueError, not silently searched with the wrong rules.

Seeded by the ``rng`` given to :meth:`act` (or ``seed``); with ``worlds=`` instead of a time
budget it is fully reproducible.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np

from agents.base import (
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_DEALER,
    PHASE_UPCARD_NONDEALER,
    ObservedSeat,
    ViewAgent,
    game_actions,
    table_rules,
)
from agents.heuristic import FULL, HeuristicAgent, banned_card, near_cards
from agents.simulate import greedy_playout, play_out, seat_points
from gin_env import actions as A
from gin_env.cards import from_mask
from gin_env.config import HandRules, check_int, check_real
from gin_env.encoding import FULL_STOCK, OBS_SLICES
from gin_env.hand import GinHand, Phase
from gin_env.melds import deadwood_mask, discard_deadwoods

__all__ = ["SearchAgent", "table_rules"]


#: A rollout that has not ended the hand this many turns after the move scores as a draw.
HORIZON = 61
_UPCARD_PHASES = (PHASE_UPCARD_NONDEALER, PHASE_UPCARD_DEALER)
#: Upcards remembered (Oklahoma), for an agent that plays many tables at once.
_UPCARD_MEMORY = 8192


class SearchAgent(ViewAgent):
    """Level 4: determinised Monte Carlo rollouts that can overrule the heuristic (L2).

    ``budget``: seconds per decision (default 0.1); ``worlds``: a fixed number of sampled
    worlds per decision instead (reproducible); ``candidates``: the heuristic's best
    discards considered (default 3); ``policy``: a rollout agent (a
    :class:`~agents.base.ViewAgent`; default None: the fast greedy rollout); ``rules``: the
    table's rules (see :func:`table_rules`; None: the standard rules); ``margin``: standard
    errors by which a candidate must beat the heuristic's move; ``opponent_samples``: hands
    sampled per world for the opponent (the best kept); ``decisions``: which decisions are
    searched, ``+``-joined from ``draw`` (take vs draw), ``knock`` (knock vs go on) and
    ``discard`` (the discard when no knock is legal); the others play the heuristic's move.

    Measured (duplicate, 300 pairs, 40 worlds): following the greedy rollouts' best mean
    (``margin=0``) loses to L2 at every kind of decision, so the margin is what keeps the
    search from following the rollouts' bias. Over 1,000 pairs at 0.1 s/move, margin 1
    scored -0.55 [-1.34, 0.24] per hand against L2 and margin 2 (the default) +0.08
    [-0.47, 0.63]; against the L2 that reads the opponent (and searching around it) margin 2
    scores +0.54 [-0.08, 1.16] at 80 ms a move (``results/gin_L4_vs_L2.json``).

    Why the +2 a hand the issue asks for is out of this design's reach (duplicate against
    L2): rollouts played by L2 itself, 60 worlds a decision and margin 1 (about 1 s a
    move, ten times the budget), score -0.36 +/- 1.13 over 300 pairs, so faster L2
    rollouts would not close the gap (measured since on the compiled engine, 32-128 worlds
    a decision: no gain, ``results/rollout_search/``). What L2 leaves on the table is in its
    opponent's hidden hand: told which discards L2 would take, L2 scores +5.9 +/- 0.7 a hand
    against itself (1,000 pairs), but the seat cannot learn them (see :mod:`agents.heuristic`).
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
        # Finite and bounded: budget=1e400 (inf) made act() never return.
        if budget is not None:
            budget = check_real("budget (seconds per decision)", budget, 0, 3600, above=True)
        if worlds is not None:
            check_int("worlds", worlds, 1, 10**6)
        check_int("candidates", candidates, 1, A.NUM_ACTIONS)
        margin = check_real("margin (standard errors)", margin, 0, 1e9)
        check_int("opponent_samples", opponent_samples, 1, 10**4)
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
        self.rules = table_rules(rules)
        self._rng = np.random.default_rng(seed)
        # Upcards read (Oklahoma), by (role, seen hand when read): (upcard, stock size then);
        # and the turns played, read from the observation by ``act``.
        self._upcards: dict[tuple[int, int], tuple[int, int]] = {}
        self._turns = 0

    def __repr__(self) -> str:
        return (
            f"SearchAgent(budget={self.budget}, worlds={self.worlds}, "
            f"candidates={self.candidates}, margin={self.margin})"
        )

    # -- candidates -----------------------------------------------------------------------
    def _candidates(self, view: ObservedSeat, legal: list[int]) -> list[int]:
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

    # -- the hand's rules ----------------------------------------------------------------
    def upcard(self, view: ObservedSeat) -> int | None:
        """The hand's upcard as this seat saw it, or None when it cannot tell.

        In the upcard phases it is the top of the pile. Later, a card in the pile (or in
        the opponent's pickups) that nobody discarded can only be the upcard. Every seat's
        first decision of a hand comes before any stock draw (stock 31), where one of the
        two holds, and the agent remembers the card for the rest of the hand (it may play
        many tables at once): a memory belongs to the hand where the same role holds, or
        has discarded, every card the seat held when it read the upcard.
        """
        card = -1
        if view.phase in _UPCARD_PHASES:
            card = view.top_discard
        else:
            never_discarded = (view.discard_pile | view.opponent_took) & ~(
                view.own_discarded | view.opponent_discarded
            )
            if never_discarded.bit_count() == 1:
                card = never_discarded.bit_length() - 1
            elif (
                view.stock_size == FULL_STOCK
                and view.discard_pile.bit_count() == 1
                and not view.own_discarded | view.opponent_took
            ):
                card = view.top_discard  # the non-dealer took the upcard and threw it back
        if card >= 0:
            memory = self._upcards
            memory.pop((view.role, view.hand), None)
            memory[(view.role, view.hand)] = (card, view.stock_size)
            while len(memory) > _UPCARD_MEMORY:
                del memory[next(iter(memory))]  # the oldest
            return card
        held = view.hand | view.own_discarded
        seen = view.known | view.own_discarded | view.opponent_discarded
        found = {
            up
            for (role, hand), (up, stock) in self._upcards.items()
            if role == view.role
            and hand & ~held == 0
            and view.stock_size <= stock
            and seen >> up & 1
        }
        return found.pop() if len(found) == 1 else None

    def _check_table(self, view: ObservedSeat, limit: int) -> None:
        """Refuse a table whose legal knocks or big gin do not fit this agent's rules."""
        if view.phase != PHASE_DISCARD or view.hand.bit_count() != 11:
            return
        legal = set(view.legal)
        big_gin = A.BIG_GIN in legal
        wrong = big_gin != (self.rules.big_gin_bonus is not None and deadwood_mask(view.hand) == 0)
        if not wrong:
            for c, v in discard_deadwoods(view.hand).items():
                if A.DISCARD + c in legal and (A.KNOCK + c in legal) != (v <= limit):
                    wrong = True
                    break
        if wrong:
            raise ValueError(
                f"the table's legal knocks do not fit this agent's rules ({self.rules}, knock "
                f"limit {limit} this hand): seat the agent at the env's table, e.g. "
                "agents.seat('search', env.unwrapped.config)"
            )

    # -- worlds ---------------------------------------------------------------------------
    def _base(self, view: ObservedSeat) -> tuple[GinHand, int] | None:
        """The hand as this seat's view describes it (the opponent's hidden cards and the
        stock filled in any order, the pile's buried cards in increasing order) and this
        seat's index in it; None when the view is not consistent with one (e.g. an adviser
        who does not see the hand)."""
        unseen = from_mask(FULL & ~view.known)
        hidden = 10 - view.opponent_took.bit_count()
        if hidden < 0 or len(unseen) != hidden + view.stock_size or view.top_discard < 0:
            return None
        me = 1 if view.role == 0 else 0  # seat 1 deals, as in the engine
        opp = view.opponent_took
        for c in unseen[:hidden]:
            opp |= 1 << c
        buried = from_mask(view.discard_pile & ~(1 << view.top_discard))
        banned = banned_card(view.hand, view.legal) if view.phase == PHASE_DISCARD else -1
        upcard = None
        if self.rules.oklahoma:
            upcard = self.upcard(view)
            if upcard is None:
                return None  # the hand's knock limit is not known
        try:
            hand = GinHand.from_state(
                (view.hand, opp) if me == 0 else (opp, view.hand),
                buried + [view.top_discard],
                unseen[hidden:],
                dealer=1,
                current=me,
                phase=Phase(view.phase),
                rules=self.rules,
                upcard=upcard,
                took=(0, view.opponent_took) if me == 0 else (view.opponent_took, 0),
                discarded=(
                    (view.own_discarded, view.opponent_discarded)
                    if me == 0
                    else (view.opponent_discarded, view.own_discarded)
                ),
                turns=min(self._turns, self.rules.max_turns_per_hand - 1),
                taken=None if banned < 0 else banned,
                must_draw_stock=view.phase == PHASE_DRAW and A.TAKE_DISCARD not in view.legal,
            )
        except ValueError:
            return None
        return hand, me

    def _world(self, base: GinHand, me: int, rng: np.random.Generator) -> GinHand:
        """A world for this seat: ``base`` with the unseen cards dealt again and the buried
        pile shuffled."""
        # A hand that has been played for a while is better than a random one, and one that
        # could knock would (mostly) have knocked: of a few samples keep the lowest deadwood
        # above the knock limit.
        turns = FULL_STOCK - base.stock_size
        tries = 1 + min(self.opponent_samples - 1, turns // 3)
        limit = base.knock_limit
        best: tuple[int, GinHand] | None = None
        for _ in range(tries):
            world = base.resample(me, rng)
            if tries == 1:
                best = (0, world)
                break
            dw = deadwood_mask(world.hands[1 - me])
            key = dw if dw > limit else 1000 - dw
            if best is None or key < best[0]:
                best = (key, world)
        assert best is not None
        world = best[1]
        pile = world.discard_pile
        buried = pile[:-1]
        order = rng.permutation(len(buried))
        world = GinHand.from_state(
            world.hands,
            [buried[i] for i in order] + pile[-1:],
            world.stock,
            dealer=world.dealer,
            current=world.current,
            phase=world.phase,
            rules=world.rules,
            upcard=world.upcard,
            took=world.took,
            discarded=world.discarded,
            turns=world.turns,
            taken=world.taken,
            must_draw_stock=world.must_draw_stock,
        )
        world.legal_actions()  # worked out once here, copied by every candidate's clone
        return world

    def _value(self, world: GinHand, me: int, action: int) -> float:
        """Points for this seat of ``action`` in ``world``, played out to the hand's end on
        the engine (greedily, or by ``policy``)."""
        hand = world.clone()
        t0 = hand.turns
        hand.step(action)
        if self.policy is None:
            result = greedy_playout(hand, HORIZON - (hand.turns - t0))
        else:
            result = play_out(hand, (self.policy, self.policy))
        return 0.0 if result is None else float(seat_points(result, me))

    def _rows(
        self, based: tuple[GinHand, int], cands: list[int], rng: np.random.Generator
    ) -> list[list[float]]:
        """Values of the candidates (columns) in sampled worlds (rows)."""
        base, me = based
        rows: list[list[float]] = []
        start = time.perf_counter()
        while True:
            world = self._world(base, me, rng)
            rows.append([self._value(world, me, a) for a in cands])
            n = len(rows)
            if self.worlds is not None:
                if n >= self.worlds:
                    return rows
            elif self.budget is not None:
                # Stop when another world would overrun the budget (mean world time so far).
                elapsed = time.perf_counter() - start
                if elapsed * (n + 1) / n > self.budget:
                    return rows

    def candidate_values(
        self, view: ObservedSeat, rng: np.random.Generator | None = None
    ) -> dict[int, float]:
        """The mean points for this seat of each candidate move over the sampled worlds
        (the heuristic's move first); empty when the decision is not searched."""
        legal = game_actions(view.legal)
        if len(legal) < 2 or view.phase not in (PHASE_DISCARD, PHASE_DRAW) + _UPCARD_PHASES:
            return {}
        based = self._base(view)
        if based is None:
            return {}
        searched = self._candidates(view, legal)
        if not searched:
            return {}
        default = self.heuristic.choose(view, rng)
        cands = [default] + [a for a in searched if a != default]
        rows = self._rows(based, cands, rng if rng is not None else self._rng)
        return dict(zip(cands, np.asarray(rows).mean(axis=0).tolist(), strict=True))

    # -- decisions ------------------------------------------------------------------------
    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        # The turn count is in the observation but not in the view (it matters with a
        # small ``max_turns_per_hand``).
        turn = (
            np.asarray(observation["observation"])[OBS_SLICES["turn"]]
            if isinstance(observation, Mapping) and "observation" in observation
            else None
        )
        self._turns = 0
        if turn is not None and turn.shape == (1,):
            self._turns = int(round(float(turn[0]) * self.rules.max_turns_per_hand))
        try:
            return super().act(observation, rng)
        finally:
            self._turns = 0

    def choose(self, view: ObservedSeat, rng: np.random.Generator | None = None) -> int:
        legal = game_actions(view.legal)
        if self.rules.oklahoma:
            self.upcard(view)  # remember it from the hand's first decision
        if len(legal) == 1:
            return legal[0]
        if view.phase not in (
            PHASE_DISCARD,
            PHASE_DRAW,
            PHASE_UPCARD_NONDEALER,
            PHASE_UPCARD_DEALER,
        ):
            return legal[0]
        based = self._base(view)
        if based is not None:
            self._check_table(view, based[0].knock_limit)
        default = self.heuristic.choose(view, rng)
        cands = self._candidates(view, legal)
        if not cands:
            return default
        if default in cands:
            cands.remove(default)
        cands.insert(0, default)
        if len(cands) == 1 or based is None:
            return default
        rows = self._rows(based, cands, rng if rng is not None else self._rng)
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
