"""One hand of gin between two seats, as an explicit state machine.

Seats are 0 and 1; ``dealer`` says which one dealt. The hand receives an already
shuffled deck and never draws random numbers: ``deck[0:20]`` are dealt one at a time
alternately starting with the non-dealer, ``deck[20]`` is the upcard and ``deck[21]``
the top of the stock.

Phases, in order (RULES.md section 3):

- ``UPCARD_NONDEALER``: the non-dealer takes the upcard or passes;
- ``UPCARD_DEALER``: after a pass, the dealer takes it or passes (if both pass, the
  non-dealer's first draw must come from the stock);
- ``DRAW``: draw from the stock or take the top of the discard pile;
- ``DISCARD``: discard, knock (with a discard) or, with ``big_gin_bonus``, lay down big gin;
- ``OVER``: the hand has a :class:`HandResult` (the showdown is resolved at once).

>>> from gin_env.cards import parse_cards
>>> from gin_env import actions as A
>>> hand = GinHand(list(range(52)), dealer=1)
>>> hand.phase.name, hand.current, A.action_str(hand.legal_actions()[0])
('UPCARD_NONDEALER', 0, 'take')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from gin_env import actions as A
from gin_env.cards import NUM_CARDS, card_str, cards_str, points, rank, suit
from gin_env.config import HandRules
from gin_env.melds import Showdown, best_arrangement, deadwood_mask, discard_deadwoods, showdown

__all__ = ["Phase", "HandResult", "GinHand", "check_deck", "DRAW_AT_STOCK"]

#: The hand is a draw when a discard leaves this many cards in the stock.
DRAW_AT_STOCK = 2


class Phase(IntEnum):
    UPCARD_NONDEALER = 0
    UPCARD_DEALER = 1
    DRAW = 2
    DISCARD = 3
    OVER = 4


@dataclass(frozen=True)
class HandResult:
    """How a hand ended. ``winner`` is the seat that scored (None for a draw)."""

    kind: str  # "knock", "undercut", "gin", "big_gin" or "draw"
    winner: int | None
    points: int
    knocker: int | None
    showdown: Showdown | None
    final_hands: tuple[int, int]
    reason: str = ""  # for a draw: "stock" or "max_turns"

    def describe(self, names: Sequence[str] = ("seat 0", "seat 1")) -> str:
        if self.kind == "draw":
            why = "two cards left in the stock" if self.reason == "stock" else "turn limit"
            return f"draw ({why})"
        assert self.winner is not None and self.knocker is not None
        who, knocker = names[self.winner], names[self.knocker]
        text = f"{who} scores {self.points} ({self.kind}, {knocker} knocked)"
        if self.showdown is not None:
            text += "\n  " + self.showdown.describe()
        return text


def check_deck(deck: Sequence[int]) -> list[int]:
    cards = list(deck)
    if len(cards) != NUM_CARDS or sorted(cards) != list(range(NUM_CARDS)):
        raise ValueError(f"deck must be a permutation of the 52 card ints 0..51, got {deck!r}")
    return cards


class GinHand:
    """A two-player gin hand. ``step`` applies one action id of :mod:`gin_env.actions`."""

    def __init__(self, deck: Sequence[int], rules: HandRules | None = None, dealer: int = 1):
        if dealer not in (0, 1):
            raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
        self.rules = rules if rules is not None else HandRules()
        self.deck = check_deck(deck)
        self.dealer = dealer
        self.nondealer = 1 - dealer
        hands = [0, 0]
        for i in range(20):
            hands[self.nondealer if i % 2 == 0 else dealer] |= 1 << self.deck[i]
        self.hands = hands
        self.upcard = self.deck[20]
        self.discard_pile = [self.upcard]
        self.stock_pos = 21  # index in deck of the top of the stock
        if self.rules.oklahoma:
            self.knock_limit = 0 if rank(self.upcard) == 0 else points(self.upcard)
            self.multiplier = 2 if suit(self.upcard) == 0 else 1
        else:
            self.knock_limit = self.rules.knock_limit
            self.multiplier = 1
        self.phase = Phase.UPCARD_NONDEALER
        self.current = self.nondealer
        self.taken: int | None = None  # card just taken from the pile, this turn
        self.must_draw_stock = False
        self.turns = 0
        self.took = [0, 0]  # cards each seat took from the pile and has not discarded
        self.discarded = [0, 0]  # cards each seat discarded
        self.passed_upcard = [False, False]
        self.actions: list[tuple[int, int]] = []
        self.result: HandResult | None = None
        self._legal: list[int] | None = None
        self._discard_dw: dict[int, int] | None = None

    # -- views ----------------------------------------------------------------------------
    @property
    def stock_size(self) -> int:
        return NUM_CARDS - self.stock_pos

    @property
    def stock(self) -> list[int]:
        """Cards left in the stock, top first."""
        return self.deck[self.stock_pos :]

    @property
    def top_discard(self) -> int | None:
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def discard_deadwoods(self) -> dict[int, int]:
        """Deadwood left after each possible discard (11-card hand, DISCARD phase)."""
        if self._discard_dw is None:
            self._discard_dw = discard_deadwoods(self.hands[self.current])
        return self._discard_dw

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase is Phase.UPCARD_NONDEALER or phase is Phase.UPCARD_DEALER:
            return [A.TAKE_DISCARD, A.PASS]
        if phase is Phase.DRAW:
            if self.must_draw_stock or not self.discard_pile:
                return [A.DRAW_STOCK]
            return [A.DRAW_STOCK, A.TAKE_DISCARD]
        if phase is Phase.DISCARD:
            hand = self.hands[self.current]
            banned = (
                -1 if self.rules.allow_discard_of_taken_card or self.taken is None else self.taken
            )
            dws = self.discard_deadwoods()
            limit = self.knock_limit
            discards = []
            knocks = []
            for c in sorted(dws):
                if c == banned:
                    continue
                discards.append(A.DISCARD + c)
                if dws[c] <= limit:
                    knocks.append(A.KNOCK + c)
            legal = discards + knocks
            if self.rules.big_gin_bonus is not None and deadwood_mask(hand) == 0:
                legal.append(A.BIG_GIN)
            return legal
        return []

    # -- transitions ----------------------------------------------------------------------
    def step(self, action: int) -> None:
        """Apply ``action`` for the current seat; an illegal one raises and changes nothing."""
        a = A.check_action(action)
        legal = self.legal_actions()
        if a not in legal:
            raise ValueError(
                f"illegal action {a} ({A.action_str(a)}) for seat {self.current} in phase "
                f"{self.phase.name}; legal: {', '.join(f'{x} ({A.action_str(x)})' for x in legal)}"
            )
        seat = self.current
        self.actions.append((seat, a))
        self._legal = None
        phase = self.phase
        if phase is Phase.UPCARD_NONDEALER or phase is Phase.UPCARD_DEALER:
            if a == A.TAKE_DISCARD:
                self._take_discard(seat)
            else:
                self.passed_upcard[seat] = True
                if phase is Phase.UPCARD_NONDEALER:
                    self.phase = Phase.UPCARD_DEALER
                    self.current = self.dealer
                else:
                    self.phase = Phase.DRAW
                    self.current = self.nondealer
                    self.must_draw_stock = True
        elif phase is Phase.DRAW:
            if a == A.DRAW_STOCK:
                self.hands[seat] |= 1 << self.deck[self.stock_pos]
                self.stock_pos += 1
                self.taken = None
                self._discard_dw = None
                self.phase = Phase.DISCARD
            else:
                self._take_discard(seat)
            self.must_draw_stock = False
        else:  # DISCARD
            if a == A.BIG_GIN:
                self._big_gin(seat)
                return
            card = a - A.DISCARD if a < A.KNOCK else a - A.KNOCK
            self.hands[seat] &= ~(1 << card)
            self.discard_pile.append(card)
            self.discarded[seat] |= 1 << card
            self.took[seat] &= ~(1 << card)
            self.taken = None
            self._discard_dw = None
            self.turns += 1
            if a >= A.KNOCK:
                self._knock(seat)
            elif self.stock_size <= DRAW_AT_STOCK:
                self._end_draw("stock")
            elif self.turns >= self.rules.max_turns_per_hand:
                self._end_draw("max_turns")
            else:
                self.current = 1 - seat
                self.phase = Phase.DRAW

    def _take_discard(self, seat: int) -> None:
        card = self.discard_pile.pop()
        self.hands[seat] |= 1 << card
        self.took[seat] |= 1 << card
        self.taken = card
        self._discard_dw = None
        self.phase = Phase.DISCARD

    def _knock(self, seat: int) -> None:
        r = self.rules
        sd = showdown(
            self.hands[seat], self.hands[1 - seat], self.knock_limit, r.gin_bonus, r.undercut_bonus
        )
        # The kind decides who won: a gin with gin_bonus=0 against no deadwood scores 0.
        if sd.kind != "undercut":
            winner, pts = seat, sd.knocker_points
        else:
            winner, pts = 1 - seat, sd.defender_points
        self._finish(HandResult(sd.kind, winner, pts * self.multiplier, seat, sd, self._final()))

    def _big_gin(self, seat: int) -> None:
        melds, _ = best_arrangement(self.hands[seat])
        d_melds, d_dead = best_arrangement(self.hands[1 - seat])
        d_dw = deadwood_mask(self.hands[1 - seat])
        assert self.rules.big_gin_bonus is not None
        pts = self.rules.big_gin_bonus + d_dw
        sd = Showdown("big_gin", pts, 0, 0, d_dw, tuple(melds), 0, tuple(d_melds), d_dead, 0)
        self.turns += 1
        self._finish(HandResult("big_gin", seat, pts * self.multiplier, seat, sd, self._final()))

    def _end_draw(self, reason: str) -> None:
        self._finish(HandResult("draw", None, 0, None, None, self._final(), reason))

    def _final(self) -> tuple[int, int]:
        return (self.hands[0], self.hands[1])

    def _finish(self, result: HandResult) -> None:
        self.result = result
        self.phase = Phase.OVER
        self._legal = []

    # -- text -----------------------------------------------------------------------------
    def describe(self) -> str:
        top = "-" if self.top_discard is None else card_str(self.top_discard)
        lines = [
            f"phase {self.phase.name}, seat {self.current} to act, stock {self.stock_size}, "
            f"discard pile top {top}"
        ]
        for s in (0, 1):
            tag = "dealer" if s == self.dealer else "non-dealer"
            lines.append(f"seat {s} ({tag}): {cards_str(self.hands[s])}")
        return "\n".join(lines)
