"""One hand of gin between two seats, as an explicit state machine.

Seats are 0 and 1; ``dealer`` says which one dealt. The hand receives an already
shuffled deck and never draws random numbers: ``deck[0:20]`` are dealt one at a time
alternately starting with the non-dealer, ``deck[20]`` is the upcard and ``deck[21]``
the top of the stock.

Phases, in order (docs/RULES.md section 3):

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

import operator
import reprlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Protocol

from gin_env import actions as A
from gin_env.cards import NUM_CARDS, card_str, cards_str, from_mask, points, rank, suit
from gin_env.config import HandRules
from gin_env.melds import Showdown, best_arrangement, deadwood_mask, discard_deadwoods, showdown

__all__ = ["Phase", "HandResult", "GinHand", "check_deck", "DRAW_AT_STOCK", "HAND_KINDS"]

#: The hand is a draw when a discard leaves this many cards in the stock.
DRAW_AT_STOCK = 2
#: Every ``HandResult.kind``, in the order their numeric ids follow (``infos="numeric"``,
#: ``VectorGinEnv.hand_results``).
HAND_KINDS = ("knock", "undercut", "gin", "big_gin", "draw")


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
    multiplier: int = 1  # Oklahoma: 2 when the upcard was a spade ("the spade double")

    def breakdown(self) -> tuple[tuple[str, int], ...]:
        """``points`` as the parts the scoring added, before the :attr:`multiplier`:
        ``("deadwood difference", n)``, ``("undercut bonus", n)``, ``("gin bonus", n)``,
        ``("big gin bonus", n)``, ``("defender's deadwood", n)``. The bonuses are read back
        from the points the showdown scored, so the parts always add up to
        ``points // multiplier``.

        >>> from gin_env.cards import parse_cards, to_mask
        >>> from gin_env.melds import showdown
        >>> sd = showdown(to_mask(parse_cards("AS 2S 3S 4H 5H 6H 7C 8C 9C 2D")),
        ...               to_mask(parse_cards("KS KH KD QC JC TC 9H 8H 7H 3D")))
        >>> HandResult(sd.kind, 0, sd.knocker_points, 0, sd, (0, 0)).breakdown()
        (('deadwood difference', 1),)
        """
        sd = self.showdown
        if sd is None:
            return ()
        base = self.points // self.multiplier
        if self.kind == "knock":
            return (("deadwood difference", base),)
        if self.kind == "undercut":
            diff = sd.knocker_deadwood - sd.defender_deadwood
            return (("undercut bonus", base - diff), ("deadwood difference", diff))
        bonus = "gin bonus" if self.kind == "gin" else "big gin bonus"
        return ((bonus, base - sd.defender_deadwood), ("defender's deadwood", sd.defender_deadwood))

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


def check_deck(deck: Sequence[int], name: str = "deck") -> list[int]:
    """``deck`` as a list of plain ints, checked to hold each card int 0..51 exactly once.

    The one deck check of every game here (gin hands, matches, rummy, the envs' ``deck``
    reset option). A ``ValueError`` names the bad entry: a value that is not an int (a
    float, a string, None, a bool), a card out of range, a duplicate, or a wrong length.
    It changes nothing, so callers check before they change anything.
    """
    bad = f"{name} must be a sequence of the 52 card ints 0..51, got {reprlib.repr(deck)}"
    if isinstance(deck, str | bytes | dict) or not hasattr(deck, "__iter__"):
        raise ValueError(bad)
    try:
        cards = list(deck)
    except TypeError:  # a 0-d array
        raise ValueError(bad) from None
    if not all(type(c) is int for c in cards):
        for i, c in enumerate(cards):
            try:
                if isinstance(c, bool):
                    raise TypeError
                cards[i] = operator.index(c)  # numpy ints too; 1.0, "5", True, a row are not
            except TypeError:
                raise ValueError(
                    f"{name}[{i}] is {reprlib.repr(c)}: a {name} is a flat sequence of the 52 "
                    "card ints 0..51"
                ) from None
    seen = 0
    for i, c in enumerate(cards):
        if not 0 <= c < NUM_CARDS:
            raise ValueError(f"{name}[{i}] is {c}: a card is an int 0..51")
        if seen >> c & 1:
            raise ValueError(f"{name} holds card {c} ({card_str(c)}) twice (again at {i})")
        seen |= 1 << c
    if len(cards) != NUM_CARDS:
        missing = [card_str(c) for c in range(NUM_CARDS) if not seen >> c & 1]
        raise ValueError(
            f"{name} must hold the 52 cards 0..51 once each, got {len(cards)} cards "
            f"(missing: {' '.join(missing[:10])}{' ...' if len(missing) > 10 else ''})"
        )
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
            raise A.IllegalAction(
                f"illegal action {a} ({A.action_str(a)}) for seat {self.current} in phase "
                f"{self.phase.name}; legal: {', '.join(f'{x} ({A.action_str(x)})' for x in legal)}",
                a,
                legal,
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
        self._finish(
            HandResult(
                sd.kind, winner, pts * self.multiplier, seat, sd, self._final(), "", self.multiplier
            )
        )

    def _big_gin(self, seat: int) -> None:
        melds, _ = best_arrangement(self.hands[seat])
        d_melds, d_dead = best_arrangement(self.hands[1 - seat])
        d_dw = deadwood_mask(self.hands[1 - seat])
        assert self.rules.big_gin_bonus is not None
        pts = self.rules.big_gin_bonus + d_dw
        sd = Showdown("big_gin", pts, 0, 0, d_dw, tuple(melds), 0, tuple(d_melds), d_dead, 0)
        self.turns += 1
        self._finish(
            HandResult(
                "big_gin", seat, pts * self.multiplier, seat, sd, self._final(), "", self.multiplier
            )
        )

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

    # -- copies, states in mid-play, determinisation (search) -----------------------------
    def clone(self) -> GinHand:
        """An independent copy of the hand: stepping one leaves the other unchanged."""
        new = type(self).__new__(type(self))
        state = new.__dict__
        for key, value in self.__dict__.items():
            state[key] = value.copy() if isinstance(value, list | dict | set) else value
        return new

    @classmethod
    def from_state(
        cls,
        hands: Sequence[int],
        discard_pile: Sequence[int],
        stock: Sequence[int],
        *,
        dealer: int,
        current: int,
        phase: Phase | int,
        rules: HandRules | None = None,
        upcard: int | None = None,
        took: Sequence[int] = (0, 0),
        discarded: Sequence[int] = (0, 0),
        turns: int = 0,
        taken: int | None = None,
        must_draw_stock: bool = False,
        passed_upcard: Sequence[bool] = (False, False),
    ) -> GinHand:
        """A hand in mid-play (not over): ``hands`` are the two seats' card masks,
        ``discard_pile`` bottom first, ``stock`` top first, ``took`` / ``discarded`` the
        masks of cards each seat took from the pile (and holds) / discarded, ``taken`` the
        card the seat to act just took from the pile. ``upcard`` (default: the bottom of the
        pile, else ``taken``) sets the Oklahoma knock limit and multiplier. The history
        (:attr:`actions`) starts empty. A state no hand can be in is a ValueError.

        >>> h = GinHand(list(range(52)), dealer=1)
        >>> g = GinHand.from_state(h.hands, h.discard_pile, h.stock, dealer=1, current=0,
        ...                        phase=Phase.UPCARD_NONDEALER)
        >>> g.legal_actions() == h.legal_actions(), g.upcard == h.upcard
        (True, True)
        """
        if dealer not in (0, 1) or current not in (0, 1):
            raise ValueError(f"dealer and current must be 0 or 1, got {dealer!r} and {current!r}")
        try:
            phase = Phase(phase)
        except ValueError:
            raise ValueError(
                f"phase must be one of {', '.join(p.name for p in Phase)}, got {phase!r}"
            ) from None
        if phase is Phase.OVER:
            raise ValueError("from_state builds a hand in play; phase OVER has no result to give")
        if len(hands) != 2 or len(took) != 2 or len(discarded) != 2 or len(passed_upcard) != 2:
            raise ValueError("hands, took, discarded and passed_upcard need one entry per seat")
        full = (1 << NUM_CARDS) - 1
        for name, masks in (("hands", hands), ("took", took), ("discarded", discarded)):
            for m in masks:
                if isinstance(m, bool) or not isinstance(m, int) or m & ~full or m < 0:
                    raise ValueError(f"{name} must be masks of the 52 cards, got {m!r}")
        if hands[0] & hands[1]:
            raise ValueError("the two hands share cards")
        pile = list(discard_pile)
        stock = list(stock)
        for c in pile + stock:
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < NUM_CARDS:
                raise ValueError(f"discard_pile and stock must hold card ints 0..51, got {c!r}")
        in_play = hands[0] | hands[1]
        for c in pile:
            in_play |= 1 << c
        total = hands[0].bit_count() + hands[1].bit_count() + len(pile)
        everything = in_play
        for c in stock:
            everything |= 1 << c
        if in_play.bit_count() != total or not (
            everything.bit_count() == total + len(stock) == NUM_CARDS
        ):
            raise ValueError("hands, discard_pile and stock must hold the 52 cards exactly once")
        sizes = [hands[0].bit_count(), hands[1].bit_count()]
        want = [10, 10]
        if phase is Phase.DISCARD:
            want[current] = 11
        if sizes != want:
            raise ValueError(f"in phase {phase.name} the hands hold {want} cards, got {sizes}")
        if len(stock) > NUM_CARDS - 21:
            raise ValueError(f"the stock holds at most {NUM_CARDS - 21} cards, got {len(stock)}")
        if upcard is None:
            upcard = pile[0] if pile else taken
            if upcard is None:
                raise ValueError("upcard must be given when the discard pile is empty")
        if not 0 <= upcard < NUM_CARDS or not in_play >> upcard & 1:
            raise ValueError(f"upcard must be a card in a hand or the pile, got {upcard!r}")
        for s in (0, 1):
            if took[s] & ~hands[s]:
                raise ValueError(f"took[{s}] holds cards seat {s} does not hold")
        if taken is not None and (phase is not Phase.DISCARD or not hands[current] >> taken & 1):
            raise ValueError(
                f"taken must be a card the seat to act holds, in phase DISCARD; got {taken!r}"
            )
        if must_draw_stock and phase is not Phase.DRAW:
            raise ValueError("must_draw_stock applies to phase DRAW only")
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 0:
            raise ValueError(f"turns must be an int >= 0, got {turns!r}")
        order = [c for c in from_mask(in_play) if c != upcard]
        order.insert(20, upcard)  # the engine reads the upcard at deck[20]
        hand = cls(order + stock, rules, dealer=dealer)
        hand.hands = [hands[0], hands[1]]
        hand.discard_pile = pile
        hand.stock_pos = NUM_CARDS - len(stock)
        hand.phase = phase
        hand.current = current
        hand.took = [took[0], took[1]]
        hand.discarded = [discarded[0], discarded[1]]
        hand.passed_upcard = [bool(passed_upcard[0]), bool(passed_upcard[1])]
        hand.turns = turns
        hand.taken = taken
        hand.must_draw_stock = must_draw_stock
        hand._legal = None
        hand._discard_dw = None
        return hand

    def resample(self, seat: int, rng: Shuffler) -> GinHand:
        """A copy of the hand in a world consistent with what ``seat`` has seen.

        ``seat`` knows its hand, the pile (and its order), every discard and the cards the
        other seat took from the pile; the other seat's remaining cards and the stock are
        unseen. They are dealt again at random: the other seat keeps its known pickups and
        gets as many unseen cards as it hid, the stock the rest in a random order.
        Everything else (pile, phase, turns, whose turn, upcard and so the Oklahoma knock
        limit and multiplier, the action history) is unchanged, and so is ``self``. The
        deck is rewritten so that replaying the history on it reaches the new world.

        ``rng``: anything with ``shuffle(list)`` (``random.Random``, a numpy Generator).
        The unseen cards, in increasing order, are dealt by the permutation
        ``list(range(n))`` shuffled: the first ones to the other seat, the rest to the
        stock, top first.
        """
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        if self.phase is Phase.OVER:
            raise ValueError("the hand is over: both hands are shown, nothing to resample")
        opp = 1 - seat
        hidden = self.hands[opp] & ~self.took[opp]
        stock = self.deck[self.stock_pos :]
        unseen_mask = hidden
        for c in stock:
            unseen_mask |= 1 << c
        unseen = from_mask(unseen_mask)
        order = list(range(len(unseen)))
        rng.shuffle(order)
        k = hidden.bit_count()
        new_hidden = [unseen[i] for i in order[:k]]
        swap = dict(zip(from_mask(hidden), new_hidden, strict=True))
        new = self.clone()
        new.deck = [swap.get(c, c) for c in self.deck[: self.stock_pos]] + [
            unseen[i] for i in order[k:]
        ]
        mask = self.took[opp]
        for c in new_hidden:
            mask |= 1 << c
        new.hands[opp] = mask
        new._legal = None
        new._discard_dw = None
        return new


class Shuffler(Protocol):
    """A random source for :meth:`GinHand.resample`: ``random.Random`` or a numpy Generator."""

    def shuffle(self, x: list[int]) -> None: ...
