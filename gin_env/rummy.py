"""Rules engine of basic rummy for 2-6 players (docs/RULES.md section 5).

Seat-based (seats 0..n-1, clockwise, so "left" is the next seat), deterministic, standard
library only: each hand receives an already-shuffled deck and no random number is drawn
here. Decisions are the action ids of :mod:`gin_env.rummy_actions`; an explicit phase
machine says what is legal:

- ``DRAW``: the player to act draws (``DRAW_STOCK``) or takes the top discard
  (``TAKE_DISCARD``). When the stock is empty, ``DRAW_STOCK`` turns the discard pile over,
  unshuffled (its oldest card becomes the top of the new stock), and draws its top card.
- ``PLAY``: any number of ``MELD`` and ``LAY_OFF_*``, then one ``DISCARD`` (not the card
  just taken from the discard pile), which ends the turn. A hand that becomes empty goes
  out at once, with or without a final discard.
- ``OVER``: the hand is over; :attr:`RummyGame.result` says who won and who paid what.

Choices made where the published rules are silent (**[decided]**):

- Deal: ``deck[0:n*k]`` one card at a time starting left of the dealer, ``deck[n*k]`` the
  upcard, ``deck[n*k+1]`` the top of the stock. The first hand's dealer is the last seat,
  so seat 0 plays first. With 2 players the winner deals next (after a truncated hand the
  same dealer deals again); with more the deal passes left.
- A meld or lay-off may not leave the player holding only the card he took from the
  discard pile unless that card can then be laid off: he could neither discard it nor
  finish his turn otherwise.
- ``max_turns`` counts finished turns; the hand that reaches it ends with no winner and
  no payments (``truncated``).
- Match scoring (``target_score``): the winner of a hand scores the total paid to him; the
  match ends when someone's total reaches the target.

>>> from gin_env.cards import parse_cards
>>> from gin_env.rummy_actions import parse_action
>>> game = RummyGame(RummyConfig(num_players=2))
>>> deck = stacked_deck(["AS 2S 3S 4S 5S 6S 7S 8S 9S TS", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH"],
...                     upcard="KD", stock="JS")
>>> game.start_hand(deck)
>>> [game.step(parse_action(a)) for a in ["draw", "meld AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS"]]
[None, None]
>>> game.result.winner, game.result.payments, game.result.rummy
(0, (110, -110), True)
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from gin_env.cards import (
    NUM_CARDS,
    NUM_RANKS,
    card_str,
    cards_str,
    from_mask,
    mask_points,
    parse_cards,
    to_mask,
)
from gin_env.config import MAX_RUMMY_PLAYERS, MIN_RUMMY_PLAYERS, IllegalAction, RummyConfig
from gin_env.hand import check_deck
from gin_env.melds import GIN_MELDS, MeldTable
from gin_env.rummy_actions import (
    ACE_HIGH_TABLE,
    DISCARD,
    DRAW_STOCK,
    LAY_OFF_RUN,
    LAY_OFF_SET,
    MELD,
    MELD_ID,
    TAKE_DISCARD,
    action_str,
)

__all__ = [
    "Phase",
    "RummyConfig",
    "TableMeld",
    "HandResult",
    "RummyGame",
    "deal_size",
    "stacked_deck",
]


#: Seats at a basic rummy table (:class:`~gin_env.config.RummyConfig` checks them).
MIN_PLAYERS, MAX_PLAYERS = MIN_RUMMY_PLAYERS, MAX_RUMMY_PLAYERS


def deal_size(num_players: int) -> int:
    """Cards dealt to each player: 10 with 2 players, 7 with 3-4, 6 with 5-6."""
    if num_players == 2:
        return 10
    return 7 if num_players <= 4 else 6


class Phase(enum.IntEnum):
    DRAW = 0
    PLAY = 1  # meld, lay off, then discard
    OVER = 2


@dataclass
class TableMeld:
    """A meld on the table: its cards (laid-off cards included) and who laid it down.

    Runs keep their ends as positions 0..13 where 13 is an ace above the king.
    """

    owner: int
    cards: int
    is_set: bool
    suit: int = -1
    low: int = -1
    high: int = -1


@dataclass(frozen=True)
class HandResult:
    winner: int | None  # None when the hand was truncated
    payments: tuple[int, ...]  # per seat, zero-sum: everyone pays the winner
    rummy: bool  # went out in one turn with nothing melded or laid off before: double
    went_out_by_discard: bool
    truncated: bool  # max_turns reached with no winner
    turns: int
    dealer: int
    cards_left: tuple[int, ...]  # mask of the cards left in each hand


@dataclass
class _Turn:
    """Per-turn bookkeeping of the player to act."""

    taken: int = -1  # card taken from the discard pile this turn, -1 if none
    melded: bool = False  # melded or laid off this turn
    history: list[int] = field(default_factory=list)


class RummyGame:
    """A hand (or a match of hands) of basic rummy.

    Call :meth:`start_hand` with a shuffled deck, then :meth:`step` with legal ids until
    ``phase`` is ``OVER``; in a match call :meth:`start_hand` again until ``match_over``.
    """

    def __init__(self, config: RummyConfig | None = None) -> None:
        self.config = config if config is not None else RummyConfig()
        n = self.config.num_players
        self.num_players = n
        self.meld_table: MeldTable = ACE_HIGH_TABLE if self.config.ace_high_or_low else GIN_MELDS
        # Melds grouped by their lowest card: a hand only looks at the melds of its cards.
        by_low: list[list[tuple[int, int]]] = [[] for _ in range(NUM_CARDS)]
        for m in self.meld_table.melds:
            by_low[(m & -m).bit_length() - 1].append((m, MELD + MELD_ID[m]))
        self._melds_by_low = by_low
        self.scores = [0] * n
        self.next_dealer = n - 1  # so seat 0 plays first in the first hand
        self.hand_number = 0
        self.results: list[HandResult] = []
        self._reset_hand_state()

    # -- state ------------------------------------------------------------------------------
    def _reset_hand_state(self) -> None:
        n = self.num_players
        self.dealer = self.next_dealer
        self.current = (self.dealer + 1) % n
        self.phase = Phase.OVER
        self.hands = [0] * n
        self.stock: list[int] = []  # top is the last item
        self.discard_pile: list[int] = []  # top is the last item
        self.table: list[TableMeld] = []
        self.public_cards = [0] * n  # cards the others saw go into each hand
        self.stock_known = 0  # cards of a turned-over pile still in the stock
        self.melded_before = [False] * n  # melded or laid off in an earlier turn
        self.turns = 0
        self.pile_turnovers = 0
        self.turn = _Turn()
        # The last hand's moves stay readable until this one's first (a front end's log).
        done = getattr(self, "history", [])
        self.last_history: list[tuple[int, int, int]] = [
            (seat, action, card) for (seat, action), card in zip(done, self.moved, strict=True)
        ] if done else getattr(self, "last_history", [])  # fmt: skip
        self.history: list[tuple[int, int]] = []  # (seat, action) of this hand
        self.moved: list[int] = []  # the card each move of history moved (-1: a meld)
        self.result: HandResult | None = None
        self._layoff_set = 0  # cards that complete a set of three on the table
        self._layoff_run_up: dict[int, int] = {}  # card -> table index of the run it tops
        self._layoff_run_down: dict[int, int] = {}  # card -> index of the run it extends down
        self._layoff_run = 0
        self._legal: list[int] | None = None

    @property
    def match_over(self) -> bool:
        target = self.config.target_score
        if self.phase != Phase.OVER or self.hand_number == 0:
            return False
        return target is None or max(self.scores) >= target

    @property
    def taken_card(self) -> int:
        """The card taken from the discard pile this turn (may not be discarded), or -1."""
        return self.turn.taken

    @property
    def top_discard(self) -> int:
        return self.discard_pile[-1] if self.discard_pile else -1

    def table_mask(self) -> int:
        mask = 0
        for m in self.table:
            mask |= m.cards
        return mask

    # -- deal -------------------------------------------------------------------------------
    def start_hand(self, deck: Sequence[int]) -> None:
        """Deal a new hand from ``deck`` (52 distinct card ints, ``deck[0]`` dealt first)."""
        deck = check_deck(deck)
        if self.hand_number and self.phase != Phase.OVER:
            raise ValueError("the current hand is not over")
        if self.match_over and self.config.target_score is not None:
            raise ValueError("the match is over")
        self._reset_hand_state()
        n = self.num_players
        k = deal_size(n)
        for i in range(n * k):
            self.hands[(self.dealer + 1 + i) % n] |= 1 << deck[i]
        self.discard_pile = [deck[n * k]]
        self.stock = deck[n * k + 1 :][::-1]
        self.phase = Phase.DRAW
        self.hand_number += 1

    # -- legal actions ----------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Sorted legal ids of the player to act (empty when the hand is over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)  # a copy: the cache must not be changed by callers

    def _compute_legal(self) -> list[int]:
        if self.phase == Phase.DRAW:
            # The discard pile is never empty here: every turn ends with a discard.
            return [DRAW_STOCK, TAKE_DISCARD]
        if self.phase == Phase.OVER:
            return []
        hand = self.hands[self.current]
        taken = self.turn.taken
        legal = [DISCARD + c for c in from_mask(hand) if c != taken]
        melds = []
        rest = hand
        while rest:
            low = rest & -rest
            rest ^= low
            for m, a in self._melds_by_low[low.bit_length() - 1]:
                if m & hand == m:
                    melds.append(a)
        legal.extend(sorted(melds))
        legal.extend(LAY_OFF_SET + c for c in from_mask(hand & self._layoff_set))
        legal.extend(LAY_OFF_RUN + c for c in from_mask(hand & self._layoff_run))
        if taken >= 0:
            legal = [a for a in legal if a < MELD or not self._strands_taken_card(a)]
        return legal

    def _strands_taken_card(self, action: int) -> bool:
        """Would this meld or lay-off leave only the taken card, with nowhere to lay it off?"""
        if action < MELD:
            return False
        hand = self.hands[self.current]
        taken = self.turn.taken
        if action < LAY_OFF_SET:
            played = ACE_HIGH_TABLE.melds[action - MELD]
        else:
            played = 1 << ((action - LAY_OFF_SET) % NUM_CARDS)
        if hand & ~played != 1 << taken:
            return False
        saved = (self.table, self._layoff_set, self._layoff_run_up, self._layoff_run_down)
        self.table = [TableMeld(**vars(m)) for m in self.table]
        try:
            self._apply_meld_or_layoff(action, self.current)
            return not (1 << taken) & (self._layoff_set | self._layoff_run)
        finally:
            self.hands[self.current] = hand
            self.table, self._layoff_set, self._layoff_run_up, self._layoff_run_down = saved
            self._layoff_run = _keys_mask(self._layoff_run_up) | _keys_mask(self._layoff_run_down)

    # -- step -------------------------------------------------------------------------------
    def step(self, action: int) -> None:
        """Apply the decision of the player to act; an illegal one raises ``ValueError``."""
        if self._legal is None:
            self._legal = self._compute_legal()
        legal = self._legal
        if isinstance(action, bool) or action not in legal:
            try:
                what = f"{action} ({action_str(action)})"
            except ValueError:
                what = repr(action)
            shown = ", ".join(f"{a} ({action_str(a)})" for a in legal) or "none"
            raise IllegalAction(
                f"illegal action {what} in phase {self.phase.name} for seat {self.current}; "
                f"legal: {shown}",
                action if isinstance(action, int) else -1,
                legal,
            )
        action = int(action)
        seat = self.current
        self._legal = None
        self.history.append((seat, action))
        if action == DRAW_STOCK:
            if not self.stock:
                # Turn the pile over unshuffled: its oldest card is the new top of the stock.
                self.stock = self.discard_pile[::-1]
                self.discard_pile = []
                self.stock_known = to_mask(self.stock)
                self.pile_turnovers += 1
            card = self.stock.pop()
            if self.stock_known >> card & 1:
                self.stock_known &= ~(1 << card)
                self.public_cards[seat] |= 1 << card
            self.hands[seat] |= 1 << card
            self.moved.append(card)
            self.phase = Phase.PLAY
        elif action == TAKE_DISCARD:
            card = self.discard_pile.pop()
            self.moved.append(card)
            self.hands[seat] |= 1 << card
            self.public_cards[seat] |= 1 << card
            self.turn.taken = card
            self.phase = Phase.PLAY
        elif action < MELD:
            card = action - DISCARD
            self.moved.append(card)
            self.hands[seat] &= ~(1 << card)
            self.discard_pile.append(card)
            if not self.hands[seat]:
                self._go_out(seat, by_discard=True)
            else:
                self._end_turn(seat)
        else:
            self.moved.append(-1 if action < LAY_OFF_SET else (action - LAY_OFF_SET) % NUM_CARDS)
            self._apply_meld_or_layoff(action, seat)
            self.turn.melded = True
            if not self.hands[seat]:
                self._go_out(seat, by_discard=False)

    def _apply_meld_or_layoff(self, action: int, seat: int) -> None:
        if action < LAY_OFF_SET:
            m = ACE_HIGH_TABLE.melds[action - MELD]
            self.hands[seat] &= ~m
            self.table.append(_table_meld(seat, m))
        else:
            card = (action - LAY_OFF_SET) % NUM_CARDS
            self.hands[seat] &= ~(1 << card)
            if action < LAY_OFF_RUN:
                target = next(m for m in self.table if m.is_set and _same_rank(m.cards, card))
            else:
                index = self._layoff_run_up.get(card)
                if index is not None:
                    target = self.table[index]
                    target.high += 1  # 13 when an ace goes above the king
                else:
                    target = self.table[self._layoff_run_down[card]]
                    target.low -= 1
            target.cards |= 1 << card
        self._refresh_layoffs()

    def _refresh_layoffs(self) -> None:
        """Recompute which cards can be laid off where (only when the table changes)."""
        ace_high = self.config.ace_high_or_low
        lay_set = 0
        up: dict[int, int] = {}
        down: dict[int, int] = {}
        for i, m in enumerate(self.table):
            if m.is_set:
                if _popcount(m.cards) == 3:
                    rank = (m.cards & -m.cards).bit_length() - 1
                    four = sum(1 << (13 * s + rank % NUM_RANKS) for s in range(4))
                    lay_set |= four & ~m.cards
                continue
            base = 13 * m.suit
            if m.high < 12 or (m.high == 12 and ace_high and not m.cards & 1 << base):
                up[base + (m.high + 1) % NUM_RANKS] = i
            if m.low > 0 and not (m.low == 1 and m.high == 13):  # never K-A-2
                down[base + m.low - 1] = i
        self._layoff_set = lay_set
        self._layoff_run_up = up
        self._layoff_run_down = down
        self._layoff_run = _keys_mask(up) | _keys_mask(down)

    def _end_turn(self, seat: int) -> None:
        if self.turn.melded:
            self.melded_before[seat] = True
        self.turn = _Turn()
        self.turns += 1
        if self.turns >= self.config.max_turns:
            self._finish(None, rummy=False, by_discard=False)
            return
        self.current = (seat + 1) % self.num_players
        self.phase = Phase.DRAW

    def _go_out(self, seat: int, by_discard: bool) -> None:
        self.turns += 1
        self._finish(seat, rummy=not self.melded_before[seat], by_discard=by_discard)

    def _finish(self, winner: int | None, rummy: bool, by_discard: bool) -> None:
        n = self.num_players
        payments = [0] * n
        if winner is not None:
            factor = 2 if rummy else 1
            for s in range(n):
                if s != winner:
                    payments[s] = -factor * mask_points(self.hands[s])
            payments[winner] = -sum(payments)
            self.scores[winner] += payments[winner]
            self.next_dealer = winner if n == 2 else (self.dealer + 1) % n
        else:
            self.next_dealer = self.dealer if n == 2 else (self.dealer + 1) % n
        self.result = HandResult(
            winner=winner,
            payments=tuple(payments),
            rummy=rummy and winner is not None,
            went_out_by_discard=by_discard,
            truncated=winner is None,
            turns=self.turns,
            dealer=self.dealer,
            cards_left=tuple(self.hands),
        )
        self.results.append(self.result)
        self.phase = Phase.OVER
        self._legal = None

    # -- display ----------------------------------------------------------------------------
    def describe(self) -> str:
        """Multi-line text of the whole table (every hand shown), for logs and ``ansi``."""
        lines = [
            f"hand {self.hand_number}  dealer {self.dealer}  turn {self.turns}  "
            f"phase {self.phase.name}  to act {self.current}",
            f"stock {len(self.stock)}  discard pile [{' '.join(map(card_str, self.discard_pile))}]",
        ]
        for s in range(self.num_players):
            melds = " | ".join(cards_str(m.cards) for m in self.table if m.owner == s)
            lines.append(
                f"seat {s}: score {self.scores[s]:>4}  hand [{cards_str(self.hands[s])}]"
                f"  melds {melds or '-'}"
            )
        if self.result is not None:
            r = self.result
            if r.winner is None:
                lines.append(f"truncated after {r.turns} turns: no payments")
            else:
                lines.append(
                    f"seat {r.winner} went out{' with rummy' if r.rummy else ''}: "
                    f"payments {list(r.payments)}"
                )
        return "\n".join(lines)


def stacked_deck(
    hands: Sequence[str], upcard: str, stock: str = "", dealer: int | None = None
) -> list[int]:
    """A deck that deals the given text hands (seat order) with the given upcard and stock top.

    ``stock`` lists the top cards of the stock, top first; the remaining cards follow in
    increasing order. ``dealer`` defaults to the first hand's dealer (the last seat).
    """
    n = len(hands)
    dealer = n - 1 if dealer is None else dealer
    parsed = [parse_cards(h) for h in hands]
    k = deal_size(n)
    if any(len(h) != k for h in parsed):
        raise ValueError(f"each hand must have {k} cards with {n} players")
    deck = []
    for i in range(k):
        for j in range(n):
            deck.append(parsed[(dealer + 1 + j) % n][i])
    deck += parse_cards(upcard) + parse_cards(stock)
    used = set(deck)
    if len(used) != len(deck):
        raise ValueError("a card appears twice in the stacked deck")
    deck += [c for c in range(NUM_CARDS) if c not in used]
    return deck


# -- helpers --------------------------------------------------------------------------------


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


def _keys_mask(cards: dict[int, int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def _same_rank(mask: int, card: int) -> bool:
    low = (mask & -mask).bit_length() - 1
    return low % NUM_RANKS == card % NUM_RANKS


def _table_meld(owner: int, mask: int) -> TableMeld:
    cards = from_mask(mask)
    if cards[0] % NUM_RANKS == cards[1] % NUM_RANKS:
        return TableMeld(owner, mask, is_set=True)
    suit = cards[0] // NUM_RANKS
    ranks = [c % NUM_RANKS for c in cards]
    if ranks[0] == 0 and ranks[-1] == 12 and len(ranks) < NUM_RANKS:
        # The ace sits above the king (Q-K-A and longer): position 13.
        return TableMeld(owner, mask, is_set=False, suit=suit, low=ranks[1], high=13)
    return TableMeld(owner, mask, is_set=False, suit=suit, low=ranks[0], high=ranks[-1])
