"""L2: a heuristic player that weighs deadwood, meld potential, safety and the stock.

Every decision scores the 10-card hand it would keep:

- **deadwood** of the hand (exact, :func:`gin_env.melds.discard_deadwoods`);
- **meld potential**: over the cards this seat has not seen (they may still come from the
  stock), the mean pips a draw would take out of the deadwood by completing a meld (a pair
  becoming a set, a near run filled or extended), weighted by ``(stock - 2) / 6`` draws
  and divided by ``1 + 0.5 x`` the cards the opponent took: meld chances are worth most
  early, while the opponent is still far from knocking, and a player who has picked up
  melds is closer to it;
- **danger** of the discard: the chance the opponent can meld it, from what the opponent
  took (those cards are in his hand) and what is still unseen (cards he or the pile threw
  are dead, so discards next to them are safe; partners that would have melded a card
  that went by him, one of our discards he passed or one of his own, are unlikely; a
  player who just threw a card of ``p`` pips keeps few loose cards above ``p``, so unseen
  cards above it are less likely his), weighted by how much it would help him;
- the **knock**: by default as soon as the rules allow; waiting for gin, or a threshold
  lowered by the opponent's shown melds, are options of :class:`HeuristicParams`.

:func:`expected_deadwood` and :func:`knock_chance` are exact one-draw expectations over the
unseen cards (options ``exact_draw`` and ``knock_weight``, off by default).

It takes the upcard / top discard when the best hand it can keep after taking scores
better than the expected hand after a blind draw from the stock.

:class:`HeuristicParams` holds every weight and threshold, and the levers a tuner may
move: the knock threshold bent with the stock and moved with the table's undercut bonus
(the agent is told the table's rules) or by the pips of his last discard
(``knock_last_pips``), the take margin and the weight of kept deadwood varied with the
stock or weighed by his pickups (``keep_took``), the danger weight varied with the stock
and his pickups, and a discard's danger weighed by its pips (``danger_pips``). It reads
the match score too (``match_knock``, ``match_gin``): :func:`agents.match_equity.knock_shifts`
gives, by its score and his, how much more a small win is worth in match equity than a big
loss costs, against 0 to 0 (from L2-against-L2 hand outcomes at the table, its target and
dealer rule); the knock threshold moves by ``match_knock`` times it and the deadwood up to
which it plays on for gin by ``-match_gin`` times it (so a take that lets it knock for the
match is taken by the same threshold). Every such field's default leaves the moves as they
were (``tests/test_heuristic_params.py`` replays moves recorded before the fields existed);
L3 ``tuned`` is L2 with a tuned set of them.

This module is the readable reference; :mod:`agents.heuristic_batched` plays the same moves
compiled over a batch of games (differential test: ``tests/test_heuristic_batched.py``).
What these choices are worth, measured, and what was tried beside them: docs/beating_l2.md
("L2's design, measured").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from agents.base import PHASE_DISCARD, ObservedSeat, ViewAgent, game_actions, table_rules
from agents.match_equity import knock_shifts
from gin_env import actions as A
from gin_env.cards import NUM_CARDS, POINTS, from_mask
from gin_env.config import HandRules
from gin_env.melds import best_arrangement, deadwood_mask, discard_deadwoods

__all__ = [
    "HeuristicAgent",
    "HeuristicParams",
    "near_cards",
    "meld_outs",
    "potential",
    "danger",
    "partner_pairs",
    "opponent_last_discard",
    "expected_deadwood",
    "knock_chance",
    "stock_fill",
    "max_dead",
    "kept_max_dead",
]

# Card-mask tables, shared with the compiled form (agents.heuristic_batched).
FULL = (1 << NUM_CARDS) - 1
SUIT_BITS = (1 << 13) - 1
RANK_SPREAD = 1 | 1 << 13 | 1 << 26 | 1 << 39  # a rank's bit (suit 0) times this: all four
PIP_MASKS = tuple(sum(1 << c for c in range(NUM_CARDS) if POINTS[c] == p) for p in range(11))
ABOVE_PIPS = tuple(sum(1 << c for c in range(NUM_CARDS) if POINTS[c] > p) for p in range(11))
#: The undercut bonus ``knock_undercut`` counts from (the standard rules').
UNDERCUT_BASE = HandRules().undercut_bonus


@dataclass(frozen=True)
class HeuristicParams:
    """Weights of the heuristic (defaults tuned by duplicate play against L1)."""

    potential_weight: float = 1.0  # per draw likely left, up to ``potential_draws``
    potential_draws: float = 6.0
    potential_floor: float = 2.0  # stock size where the potential stops counting
    potential_div: float = 6.0  # weight (stock - 2) / this: meld chances count most early
    lookahead: bool = (
        False  # potential as the one-draw expected fall in deadwood (see ``improvement``)
    )
    danger_weight: float = 5.0  # pips charged for a discard the opponent surely melds
    exact_draw: bool = False  # blind draw valued by :func:`expected_deadwood`
    passed_factor: float = 0.3  # danger of partners that would have melded a passed card
    high_factor: float = 0.3  # his chance of an unseen card above his last discard's pips
    took_hazard: float = 0.5  # potential's draws / (1 + this x cards the opponent took)
    knock_weight: float = 0.0  # pips for the chance to knock after the next draw
    take_margin: float = 0.5  # a taken card also tells the opponent something
    knock_early: int = 10  # knock threshold with a full stock ...
    knock_late: int = 10  # ... and with an empty one
    knock_shown_meld: int = 0  # lower the threshold this much per card the opponent took
    gin_outs: int = 99  # keep going for gin with this many live gin cards (99: never) ...
    gin_stock: int = 12  # ... while the stock holds more than this
    gin_deadwood: int = 3  # ... and the knock would score little (deadwood above 0, <= this)
    # The wider family (for tuning; every default leaves the moves above unchanged). ``f``
    # is the stock's fill, (stock - 2) / 29 within [0, 1]: 1 with a full stock, 0 empty.
    knock_bend: float = 0.0  # knock threshold + this x 4 f (1 - f): a bulge at mid stock
    knock_undercut: float = 0.0  # knock threshold + this per 10 undercut bonus above 10
    take_margin_late: float = 0.0  # take margin + this x (1 - f)
    keep_late: float = 0.0  # kept deadwood weighs 1 + this x (1 - f) in every score
    danger_took: float = 0.0  # danger weight + this per card the opponent took
    danger_late: float = 0.0  # danger weight + this x (1 - f)
    # His hand as his discards show it (Tonic's knock reads it) and the kept deadwood as his
    # pickups bring his knock nearer; defaults again leave the moves unchanged.
    knock_last_pips: float = 0.0  # knock threshold + this x (pips of his last discard - 5) / 5
    keep_took: float = 0.0  # kept deadwood weighs + this per card the opponent took
    danger_pips: float = 1.0  # a discard's danger weighs 1 + this x its pips / 10
    # The match score (:func:`agents.match_equity.knock_shift_table`: by my score and his,
    # how much more a small win is worth than a big loss costs, 0 at 0 to 0); defaults 0
    # leave the moves unchanged.
    match_knock: float = 0.0  # knock threshold + this x the shift
    match_gin: float = 0.0  # play on for gin only with deadwood <= gin_deadwood - this x it

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(f.default, bool):
                if not isinstance(value, bool):
                    raise ValueError(f"{f.name} must be True or False, got {value!r}")
            elif (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
            ):
                raise ValueError(f"{f.name} must be a finite number, got {value!r}")


def banned_card(hand: int, legal: list[int]) -> int:
    """The held card that may not be discarded (just taken from the pile), or -1."""
    allowed = {a - A.DISCARD for a in legal if A.DISCARD <= a < A.KNOCK}
    return next((c for c in from_mask(hand) if c not in allowed), -1)


def opponent_last_discard(view: ObservedSeat, banned: int) -> int:
    """The card the opponent threw last, or -1 before his first discard: the card this
    seat just took from the pile (``banned``), else the top of the pile."""
    card = banned if banned >= 0 else view.top_discard
    return card if card >= 0 and view.opponent_discarded >> card & 1 else -1


def near_cards(hand: int) -> int:
    """Cards that could meld with a card of ``hand``: same rank, or within two in a suit."""
    out = 0
    ranks = 0
    for s in range(4):
        p = (hand >> (13 * s)) & SUIT_BITS
        ranks |= p
        out |= (((p << 1) | (p >> 1) | (p << 2) | (p >> 2)) & SUIT_BITS) << (13 * s)
    return (out | ranks * RANK_SPREAD) & FULL


def meld_outs(hand: int) -> int:
    """Cards not in ``hand`` that would make a meld with two or more of its cards."""
    a = hand & SUIT_BITS
    b = (hand >> 13) & SUIT_BITS
    c = (hand >> 26) & SUIT_BITS
    d = hand >> 39
    pairs = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
    out = pairs * RANK_SPREAD
    for s, p in enumerate((a, b, c, d)):
        fill = ((p >> 1) & (p >> 2)) | ((p << 1) & (p >> 1)) | ((p << 1) & (p << 2))
        out |= (fill & SUIT_BITS) << (13 * s)
    return out & FULL & ~hand


def potential(hand: int, unseen: int, base: int | None = None) -> float:
    """Mean pips taken out of the deadwood of ``hand`` by one card drawn from ``unseen``."""
    n = unseen.bit_count()
    if n == 0:
        return 0.0
    dw = deadwood_mask(hand) if base is None else base
    total = 0
    for u in from_mask(meld_outs(hand) & unseen):
        gain = dw + POINTS[u] - deadwood_mask(hand | 1 << u)
        if gain > 0:
            total += gain
    return total / n


def danger(
    card: int,
    opp_took: int,
    unseen: int,
    opp_hidden: int,
    opp_passed: int = 0,
    passed_factor: float = 0.3,
    high_pips: int = 10,
    high_factor: float = 1.0,
) -> float:
    """Chance (capped at 1) that the opponent can meld ``card`` if it is discarded.

    Cards he took are in his hand; the ``opp_hidden`` others are among the unseen, an
    unseen card worth more than ``high_pips`` being ``high_factor`` times as likely his as
    one worth less (a player who just threw a card of ``high_pips`` keeps few loose cards
    above it); anything else (the pile, our hand, his discards) is dead. A pair of
    partners that would also have melded a card that went by him (``opp_passed``: our
    discards he left on the pile, his own discards) is less likely in his hand: its chance
    is multiplied by ``passed_factor``.
    """
    high = unseen & ABOVE_PIPS[high_pips]
    weight = (unseen & ~high).bit_count() + high_factor * high.bit_count()
    p = opp_hidden / weight if weight else 0.0
    p_high = min(1.0, p * high_factor)
    p = min(1.0, p)

    def w(c: int) -> float:
        bit = 1 << c
        if opp_took & bit:
            return 1.0
        if not unseen & bit:
            return 0.0
        return p_high if high & bit else p

    total = 0.0
    for x, y in partner_pairs(card):
        chance = w(x) * w(y)
        if chance and opp_passed and meld_outs(1 << x | 1 << y) & opp_passed:
            chance *= passed_factor
        total += chance
    return min(total, 1.0)


def partner_pairs(card: int) -> list[tuple[int, int]]:
    """The pairs of cards that make a meld with ``card``: two of its rank, or two next to
    it in its suit."""
    r, s = card % 13, card // 13
    others = [13 * t + r for t in range(4) if t != s]
    out = [(others[0], others[1]), (others[0], others[2]), (others[1], others[2])]
    base = 13 * s
    for lo, hi in ((r - 2, r - 1), (r - 1, r + 1), (r + 1, r + 2)):
        if 0 <= lo and hi < 13:
            out.append((base + lo, base + hi))
    return out


def max_dead(hand: int) -> int:
    """Pips of the highest card left out of the best arrangement of ``hand``."""
    _, dead = best_arrangement(hand)
    return max((POINTS[c] for c in from_mask(dead)), default=0)


def kept_max_dead(hand11: int, dead11: int, card: int) -> int:
    """:func:`max_dead` of ``hand11`` without ``card``, given the dead cards ``dead11`` of
    ``hand11``'s best arrangement (which stays optimal when a dead card goes)."""
    if dead11 >> card & 1:
        return max((POINTS[x] for x in from_mask(dead11 & ~(1 << card))), default=0)
    return max_dead(hand11 & ~(1 << card))


def improvement(hand: int, unseen: int, dw: int, max_dead: int) -> float:
    """Expected fall in the deadwood of ``hand`` from drawing one card of ``unseen`` and
    then discarding the highest deadwood card: a card that melds takes its partners out
    of the deadwood; any other card may replace a higher deadwood card."""
    n = unseen.bit_count()
    if n == 0 or dw == 0:
        return 0.0
    outs = meld_outs(hand) & unseen
    total = 0.0
    for u in from_mask(outs):
        after = deadwood_mask(hand | 1 << u) - max_dead
        total += dw - min(dw, max(0, after))
    rest = unseen & ~outs
    for p in range(1, max_dead):
        k = (rest & PIP_MASKS[p]).bit_count()
        if k:
            total += k * (max_dead - p)
    return total / n


def expected_deadwood(hand: int, unseen: int) -> float:
    """Exact mean deadwood of ``hand`` (10 cards) after drawing one card of ``unseen`` and
    making the best discard (the drawn card included).

    A card that melds with none of the hand stays deadwood in every arrangement, so it is
    discarded or replaces the best single discard of the hand: only meld outs need the
    11-card search.
    """
    n = unseen.bit_count()
    dw = deadwood_mask(hand)
    if n == 0:
        return float(dw)
    best10 = min(discard_deadwoods(hand).values())
    outs = meld_outs(hand) & unseen
    total = 0
    for u in from_mask(outs):
        total += min(discard_deadwoods(hand | 1 << u).values())
    rest = unseen & ~outs
    for p in range(1, 11):
        k = (rest & PIP_MASKS[p]).bit_count()
        if k:
            total += k * min(dw, p + best10)
    return total / n


def knock_chance(hand: int, unseen: int, limit: int) -> float:
    """Chance that one card drawn from ``unseen`` lets ``hand`` (10 cards) knock with a
    deadwood of at most ``limit``."""
    n = unseen.bit_count()
    if n == 0 or limit < 0:
        return 0.0
    dw = deadwood_mask(hand)
    best10 = min(discard_deadwoods(hand).values())
    outs = meld_outs(hand) & unseen
    hits = 0
    for u in from_mask(outs):
        if min(discard_deadwoods(hand | 1 << u).values()) <= limit:
            hits += 1
    rest = unseen & ~outs
    if dw <= limit:
        hits += rest.bit_count()
    else:
        for p in range(1, min(10, limit - best10) + 1):
            hits += (rest & PIP_MASKS[p]).bit_count()
    return hits / n


def stock_fill(stock_size: int) -> float:
    """How full the stock is, 1.0 (31 cards) down to 0.0 (the two dead cards)."""
    return min(1.0, max(0.0, (stock_size - 2) / 29))


class HeuristicAgent(ViewAgent):
    """Level 2: deadwood + meld potential + safe discards, with a stock-aware knock.

    ``rules``: the table (a gin table, or :class:`HandRules` for a hand alone); the undercut
    bonus is read (``knock_undercut``), and with ``match_knock`` / ``match_gin`` the match's
    target and dealer rule (defaults 100 and alternate); None the standard rules."""

    name = "heuristic"

    def __init__(
        self, params: HeuristicParams | None = None, rules: HandRules | None = None
    ) -> None:
        self.params = params if params is not None else HeuristicParams()
        self.rules = table_rules(rules)
        #: The table as given (its match target and dealer rule, for the match shifts).
        self.match_rules = rules
        self._shifts: np.ndarray | None = None

    def match_shift(self, view: ObservedSeat) -> float:
        """The match score's shift at this view (:func:`agents.match_equity.knock_shifts`):
        my score and the hand opponent's, in points (the adviser reads the captain's)."""
        if self._shifts is None:
            self._shifts = knock_shifts(self.match_rules)
        target = self._shifts.shape[0] - 1
        me = view.role if view.role < 2 else 1  # dealer/box 0, non-dealer/captain 1
        mine = int(round(view.scores[me] * target))
        his = int(round(view.scores[1 - me] * target))
        return float(self._shifts[mine, his])

    # -- pieces ---------------------------------------------------------------------------
    def _draws_left(self, view: ObservedSeat) -> float:
        # Each of us draws about half of what is left above the two dead cards; fewer
        # when his pickups show him closer to knocking.
        prm = self.params
        draws = min(
            prm.potential_draws,
            max(0.0, (view.stock_size - prm.potential_floor) / prm.potential_div),
        )
        return draws / (1 + prm.took_hazard * view.opponent_took.bit_count())

    def keep_scores(
        self, view: ObservedSeat, hand11: int, banned: int = -1
    ) -> tuple[dict[int, float], dict[int, int]]:
        """Score (lower is better) of each discard from an 11-card hand, and the deadwood
        each leaves."""
        prm = self.params
        dws = discard_deadwoods(hand11)
        unseen = FULL & ~(hand11 | view.discard_pile | view.opponent_took)
        weight = prm.potential_weight * self._draws_left(view)
        best = min(v for c, v in dws.items() if c != banned)
        limit = self.knock_limit(view, banned)
        late = 1 - stock_fill(view.stock_size)
        keep = self.keep_weight(view)
        dweight = (
            prm.danger_weight
            + prm.danger_took * view.opponent_took.bit_count()
            + prm.danger_late * late
        )
        dead11 = best_arrangement(hand11)[1] if prm.lookahead else 0
        # A discard 12 pips worse than the best never wins: skip its work.
        worth = [c for c, v in dws.items() if c != banned and v <= best + 12]
        risks = self.dangers(view, hand11, worth, banned)
        scores = {}
        for c, v in dws.items():
            if c == banned:
                continue
            if c not in risks:
                scores[c] = v + 100.0
                continue
            kept = hand11 & ~(1 << c)
            if not weight:
                pot = 0.0
            elif prm.lookahead:
                pot = improvement(kept, unseen, v, kept_max_dead(hand11, dead11, c))
            else:
                pot = potential(kept, unseen, v)
            charge = dweight * risks[c] * (1 + prm.danger_pips * POINTS[c] / 10)
            scores[c] = v * keep - weight * pot + charge
            if prm.knock_weight and v > limit and v <= best + 10:
                scores[c] -= prm.knock_weight * knock_chance(kept, unseen, limit)
        return scores, dws

    def dangers(
        self, view: ObservedSeat, hand11: int, cards: list[int], banned: int = -1
    ) -> dict[int, float]:
        """:func:`danger` of discarding each of ``cards`` from ``hand11`` (``banned``: the
        card just taken from the pile, so his last discard is the one under it), with this
        player's parameters: the term :meth:`keep_scores` charges."""
        prm = self.params
        unseen = FULL & ~(hand11 | view.discard_pile | view.opponent_took)
        hidden = max(0, 10 - view.opponent_took.bit_count())
        # Cards that went by him (ours he left on the pile, his own discards): he could
        # not (or chose not to) meld them.
        passed = (view.own_discarded | view.opponent_discarded) & ~view.opponent_took
        last = opponent_last_discard(view, banned)
        high = POINTS[last] if last >= 0 else 10
        took = view.opponent_took
        pf, hf = prm.passed_factor, prm.high_factor
        return {c: danger(c, took, unseen, hidden, passed, pf, high, hf) for c in cards}

    def keep_weight(self, view: ObservedSeat) -> float:
        """What a pip of kept deadwood weighs in every score (1 at L2's defaults)."""
        prm = self.params
        late = 1 - stock_fill(view.stock_size)
        return 1 + prm.keep_late * late + prm.keep_took * view.opponent_took.bit_count()

    def knock_limit(self, view: ObservedSeat, banned: int = -1) -> int:
        """The most deadwood this player knocks with (the table's limit comes on top);
        ``banned``: the card just taken from the pile (so his last discard is known)."""
        prm = self.params
        frac = stock_fill(view.stock_size)
        limit = prm.knock_late + (prm.knock_early - prm.knock_late) * frac
        limit += prm.knock_bend * 4 * frac * (1 - frac)
        limit += prm.knock_undercut * (self.rules.undercut_bonus - UNDERCUT_BASE) / 10
        limit -= prm.knock_shown_meld * view.opponent_took.bit_count()
        if prm.knock_last_pips:
            last = opponent_last_discard(view, banned)
            if last >= 0:
                limit += prm.knock_last_pips * (POINTS[last] - 5) / 5
        if prm.match_knock:
            limit += prm.match_knock * self.match_shift(view)
        return int(round(limit))

    def take_margin(self, view: ObservedSeat) -> float:
        """Pips by which taking must beat a blind draw."""
        prm = self.params
        return prm.take_margin + prm.take_margin_late * (1 - stock_fill(view.stock_size))

    def gin_outs(self, hand10: int, unseen: int) -> int:
        return sum(
            1
            for u in from_mask(meld_outs(hand10) & unseen)
            if min(discard_deadwoods(hand10 | 1 << u).values()) == 0
        )

    # -- decisions ------------------------------------------------------------------------
    def choose(self, view: ObservedSeat, rng: np.random.Generator | None = None) -> int:
        legal = game_actions(view.legal)
        if len(legal) == 1:
            return legal[0]
        if view.phase == PHASE_DISCARD:
            return self._discard(view, legal)
        return self._draw(view, legal)

    def discard_options(
        self, view: ObservedSeat, legal: list[int]
    ) -> tuple[list[int], list[int], dict[int, float], dict[int, int]]:
        """The legal discards and knock discards (as cards), with :meth:`keep_scores` of the
        hand; a held card that is not a legal discard is the one just taken from the pile."""
        discards = [a - A.DISCARD for a in legal if A.DISCARD <= a < A.KNOCK]
        knocks = [a - A.KNOCK for a in legal if A.KNOCK <= a < A.BIG_GIN]
        scores, dws = self.keep_scores(view, view.hand, banned_card(view.hand, legal))
        return discards, knocks, scores, dws

    def _discard(self, view: ObservedSeat, legal: list[int]) -> int:
        if A.BIG_GIN in legal:
            return A.BIG_GIN
        discards, knocks, scores, dws = self.discard_options(view, legal)
        if knocks:
            k = min(knocks, key=lambda c: (dws[c], scores.get(c, 0.0), c))
            if self._should_knock(view, k, dws[k], banned_card(view.hand, legal)):
                return A.KNOCK + k
        c = min(discards, key=lambda c: (scores[c], -POINTS[c], c))
        return A.DISCARD + c

    def _should_knock(self, view: ObservedSeat, card: int, dw: int, banned: int = -1) -> bool:
        if dw == 0:
            return True
        prm = self.params
        gin_deadwood: float = prm.gin_deadwood
        if prm.match_gin:
            gin_deadwood -= prm.match_gin * self.match_shift(view)
        if dw <= gin_deadwood and view.stock_size > prm.gin_stock:
            kept = view.hand & ~(1 << card)
            unseen = FULL & ~(view.hand | view.discard_pile | view.opponent_took)
            if self.gin_outs(kept, unseen) >= prm.gin_outs:
                return False
        return dw <= self.knock_limit(view, banned)

    def _draw(self, view: ObservedSeat, legal: list[int]) -> int:
        blind = A.PASS if A.PASS in legal else A.DRAW_STOCK
        top = view.top_discard
        if A.TAKE_DISCARD not in legal or top < 0:
            return blind
        hand = view.hand
        taken = hand | 1 << top
        scores, dws = self.keep_scores(view, taken, banned=top)
        if not scores:
            return blind
        best = min(scores.values())
        # Taking lets us knock now: compare with knocking's bar directly.
        if min(dws[c] for c in scores) <= self.knock_limit(view):
            return A.TAKE_DISCARD
        return A.TAKE_DISCARD if best + self.take_margin(view) < self.blind_score(view) else blind

    def blind_score(self, view: ObservedSeat) -> float:
        """Score (as :meth:`keep_scores`, lower is better) of the 10-card hand before a blind
        draw from the stock: its deadwood less what the draws likely left may take out."""
        prm = self.params
        hand = view.hand
        unseen = FULL & ~(hand | view.discard_pile | view.opponent_took)
        dw = deadwood_mask(hand)
        keep = self.keep_weight(view)
        if prm.lookahead:
            pot = improvement(hand, unseen, dw, max_dead(hand))
        else:
            pot = potential(hand, unseen, dw)
        if prm.exact_draw:
            # The stock's card may meld or replace a dead card: the exact expectation.
            return expected_deadwood(hand, unseen) * keep - pot * prm.potential_weight * (
                self._draws_left(view)
            )
        return dw * keep - pot * (1 + prm.potential_weight * self._draws_left(view))

    def move_scores(self, view: ObservedSeat) -> dict[int, float]:
        """L2's score (lower is better) of each legal move it scores: a discard or a knock
        with card ``c`` is the kept hand's :meth:`keep_scores`; taking is the best kept hand
        after taking (plus ``take_margin``); drawing blind or passing is
        :meth:`blind_score`. Big gin and no-advice are not scored. For learners that start
        from L2's judgement (:mod:`agents.dmc`, ``features="l2score"``)."""
        legal = game_actions(view.legal)
        out: dict[int, float] = {}
        if view.phase == PHASE_DISCARD:
            scores, _ = self.keep_scores(view, view.hand, banned_card(view.hand, legal))
            for a in legal:
                if A.DISCARD <= a < A.BIG_GIN:
                    out[a] = scores[(a - A.DISCARD) % NUM_CARDS]
            return out
        top = view.top_discard
        if A.TAKE_DISCARD in legal and top >= 0:
            taken, _ = self.keep_scores(view, view.hand | 1 << top, banned=top)
            if taken:
                out[A.TAKE_DISCARD] = min(taken.values()) + self.take_margin(view)
        for a in (A.DRAW_STOCK, A.PASS):
            if a in legal:
                out[a] = self.blind_score(view)
        return out
