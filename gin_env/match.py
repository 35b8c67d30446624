"""Matches: the three-handed game (box, captain, adviser) and two-player gin.

A match is a sequence of :class:`~gin_env.hand.GinHand` s. It never draws random numbers:
it is given a ``role_deck`` (shuffled cards for the initial draw) and ``deal``, a function
from the hand's index to that hand's shuffled deck. Its :attr:`Match.history` holds every
hand's deck, actions and result, and :meth:`Match.replay` plays a history back to the
same end.

Three-handed roles (docs/RULES.md section 3): the box player deals every hand and plays
against the captain, who has the upcard option; after a box win the captain and the
adviser swap; after a box loss the box player becomes adviser, the captain goes into the
box and the adviser becomes captain; a draw keeps the roles. With the table's
``adviser="suggest"`` the adviser acts just before each captain decision, suggesting one of
the captain's legal actions or ``NO_ADVICE`` (the table alone says so, and whether the
adviser sees the captain's hand).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gin_env import actions as A
from gin_env.cards import NUM_CARDS, card_str, rank
from gin_env.config import GinConfig, ThreeHandedConfig
from gin_env.hand import GinHand, HandResult, Phase, check_deck

__all__ = [
    "BOX",
    "CAPTAIN",
    "ADVISER",
    "ROLE_NAMES",
    "HandRecord",
    "Match",
    "ThreeHandedMatch",
    "GinMatch",
    "draw_for_order",
    "next_dealer",
    "side_points",
]

BOX, CAPTAIN, ADVISER = 0, 1, 2
ROLE_NAMES = ("box", "captain", "adviser")
#: For two-player gin, the "roles" are dealer and non-dealer.
DEALER, NONDEALER = 0, 1
#: Games scored at once under Hollywood scoring.
HOLLYWOOD_GAMES = 3


def side_points(roles: Sequence[int], scorer: int | None, points: float) -> tuple[float, ...]:
    """Each player's side of a hand's result, the one rule of box against team: in the
    three-handed game (``roles`` of three players) the box gets ``+points`` when he scored
    and ``-points`` when the captain did, the captain and the adviser (the team) the
    reverse; in two-player gin the scorer ``+points``, the other ``-points``. A drawn hand
    (``scorer`` None) is 0 for all.

    >>> side_points((BOX, CAPTAIN, ADVISER), 1, 12)  # the captain scored 12
    (-12, 12, 12)
    >>> side_points((DEALER, NONDEALER), 0, 7), side_points((BOX, ADVISER, CAPTAIN), None, 5)
    ((7, -7), (0, 0, 0))
    """
    if scorer is None:
        return (0,) * len(roles)
    if len(roles) == 3:
        box_won = roles[scorer] == BOX
        return tuple(points if (role == BOX) == box_won else -points for role in roles)
    return tuple(points if p == scorer else -points for p in range(len(roles)))


def draw_for_order(
    role_deck: Sequence[int], players: Sequence[int]
) -> tuple[list[int], list[tuple[int, int]]]:
    """Each player draws a card from ``role_deck`` in turn; highest rank first, ties draw again.

    Returns the players ordered from highest to lowest and the draws made, in order.
    """
    deck = check_deck(role_deck, "role_deck")
    draws: list[tuple[int, int]] = []
    pos = 0

    def order(group: list[int]) -> list[int]:
        nonlocal pos
        drawn = {}
        for p in group:
            if pos == len(deck):
                raise ValueError("role_deck ran out of cards while breaking ties")
            drawn[p] = deck[pos]
            draws.append((p, deck[pos]))
            pos += 1
        out: list[int] = []
        for r in sorted({rank(c) for c in drawn.values()}, reverse=True):
            tied = [p for p in group if rank(drawn[p]) == r]
            out.extend(tied if len(tied) == 1 else order(tied))
        return out

    return order(list(players)), draws


def next_dealer(rule: str, dealer: int, winner: int | None) -> int:
    """Who deals the next hand of two-player gin (players 0 and 1) under ``dealer_rule``
    ``rule``, after a hand dealt by ``dealer`` that ``winner`` won (None: a dead hand)."""
    if rule == "alternate":
        return 1 - dealer
    if winner is None:
        return dealer  # a dead hand is dealt again by the same dealer
    if rule == "alternate_scored":
        return 1 - dealer
    return winner if rule == "winner" else 1 - winner


@dataclass
class HandRecord:
    """One hand of a match: who held which role, the deal, every action and the result."""

    index: int
    deck: list[int]
    players: tuple[int, int]  # (non-dealer, dealer) as player ids; seat i of the hand
    roles: tuple[int, ...]  # role of each player during the hand
    actions: list[tuple[int, int]] = field(default_factory=list)  # (player, action id)
    result: HandResult | None = None
    scores_after: tuple[int, ...] = ()
    # Hollywood scoring: each game's two scores after the hand (replayed, not saved).
    games_after: tuple[tuple[int, ...], ...] = ()

    def to_dict(self) -> dict:
        r = self.result
        return {
            "index": self.index,
            "deck": self.deck,
            "players": list(self.players),
            "roles": list(self.roles),
            "actions": [list(x) for x in self.actions],
            "result": None
            if r is None
            else {
                "kind": r.kind,
                "winner": None if r.winner is None else self.players[r.winner],
                "points": r.points,
                "knocker": None if r.knocker is None else self.players[r.knocker],
                "reason": r.reason,
            },
            "scores_after": list(self.scores_after),
        }


class Match:
    """What both matches share: hands in sequence, cumulative scores, history and replay."""

    num_players: int
    config: GinConfig | ThreeHandedConfig
    role_deck: list[int]  # the deck of the draw for seats or roles

    def __init__(self, deal: Callable[[int], Sequence[int]]) -> None:
        self._deal = deal
        self.scores = [0] * self.num_players
        self.history: list[HandRecord] = []
        self.winner: int | None = None
        self.hand: GinHand
        self.record: HandRecord

    # Subclasses say who sits where for the next hand and what a result does to the roles.
    def _seating(self) -> tuple[tuple[int, int], tuple[int, ...]]:
        raise NotImplementedError

    def _after_hand(self, result: HandResult, players: tuple[int, int]) -> None:
        raise NotImplementedError

    def _start_hand(self) -> None:
        index = len(self.history)
        deck = check_deck(self._deal(index))
        players, roles = self._seating()
        # Seat 0 of the hand is the non-dealer, seat 1 the dealer.
        self.hand = GinHand(deck, self.config.hand_rules(), dealer=1)
        self.record = HandRecord(index, deck, players, roles)
        self.history.append(self.record)

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def current_player(self) -> int | None:
        """The player to act; None once the match is over, or while a finished hand is held
        (``step(..., next_hand=False)``)."""
        if self.winner is not None or self.hand.phase is Phase.OVER:
            return None
        return self.record.players[self.hand.current]

    def legal_actions(self) -> list[int]:
        """Legal action ids of the player to act (a fresh list: the caller may keep it)."""
        return [] if self.is_over else list(self.hand.legal_actions())

    def step(self, action: int, next_hand: bool = True) -> HandRecord | None:
        """Apply the current player's action; return the hand's record if it just ended.

        When the action ends a hand and the match goes on, the next hand is dealt at once,
        unless ``next_hand`` is False: then the ended hand stays (phase over, nobody to act)
        and :meth:`start_next_hand` deals the next one. An env whose episode ends with the
        hand passes False, so its final observation shows the hand that ended.
        """
        if self.is_over:
            raise ValueError(f"the match is over; no action is legal (got {action!r})")
        player = self.current_player
        if player is None:
            raise ValueError(f"the hand is over; call start_next_hand() (got {action!r})")
        self.hand.step(action)
        self.record.actions.append((player, int(action)))
        return self._maybe_end_hand(next_hand)

    def start_next_hand(self) -> None:
        """Deal the next hand after one held by ``step(..., next_hand=False)``."""
        if self.is_over or not self.hand.is_over:
            raise ValueError("start_next_hand() needs a finished hand in a match still going on")
        self._start_hand()

    def _maybe_end_hand(self, next_hand: bool = True) -> HandRecord | None:
        result = self.hand.result
        if result is None:
            return None
        record = self.record
        record.result = result
        if result.winner is not None:
            self._enter_points(record.players[result.winner], result.points)
        record.scores_after = tuple(self.scores)
        record.games_after = self._games_now()
        self._after_hand(result, record.players)
        self.winner = self._match_winner()
        if self.winner is None and next_hand:
            self._start_hand()
        return record

    def _enter_points(self, player: int, points: int) -> None:
        self.scores[player] += points

    def _games_now(self) -> tuple[tuple[int, ...], ...]:
        """Hollywood's games as they stand (empty for a match scored as one game)."""
        return ()

    def standings(self) -> dict[str, Any]:
        """The scores as the env's ``infos`` report them."""
        return {"scores": list(self.scores)}

    def _match_winner(self) -> int | None:
        leaders = [p for p in range(self.num_players) if self.scores[p] >= self.target_score]
        # Only the hand's scorer can cross the target, so there is at most one.
        return leaders[0] if leaders else None

    @property
    def target_score(self) -> int:
        return self.config.target_score

    def role_of(self, player: int) -> int:
        return self.record.roles[player]


class ThreeHandedMatch(Match):
    """Three-handed gin to ``config.target_score``; players 0, 1, 2."""

    num_players = 3
    config: ThreeHandedConfig

    def __init__(
        self,
        config: ThreeHandedConfig | None = None,
        role_deck: Sequence[int] = tuple(range(52)),
        deal: Callable[[int], Sequence[int]] = lambda i: list(range(52)),
    ) -> None:
        self.config = config if config is not None else ThreeHandedConfig()
        # The adviser's rules are the table's alone (``adviser``, ``adviser_sees_hand``).
        self.advice = self.config.adviser == "suggest"
        #: False: the adviser's suggestions follow the blind rule (:meth:`_blind_advice`).
        self.adviser_sees_hand = self.config.adviser_sees_hand
        self.role_deck = check_deck(role_deck, "role_deck")
        order, self.role_draws = draw_for_order(self.role_deck, (0, 1, 2))
        self.box, self.captain, self.adviser = order
        self.suggestion: int | None = None  # the adviser's last suggestion, for the captain
        self._advised = False
        #: True when the adviser is to act: before each captain decision, with advice on.
        self.advising = False
        self._advice_legal: list[int] = []
        super().__init__(deal)
        self._start_hand()
        self._update_advising()

    def _seating(self) -> tuple[tuple[int, int], tuple[int, ...]]:
        roles = [0, 0, 0]
        roles[self.box], roles[self.captain], roles[self.adviser] = BOX, CAPTAIN, ADVISER
        return (self.captain, self.box), tuple(roles)

    def _after_hand(self, result: HandResult, players: tuple[int, int]) -> None:
        self.suggestion = None
        self._advised = False
        if result.winner is None:
            return
        if players[result.winner] == self.box:
            self.captain, self.adviser = self.adviser, self.captain
        else:
            self.box, self.captain, self.adviser = self.captain, self.adviser, self.box

    def _update_advising(self) -> None:
        # Kept as a flag (not a property) because the env reads it several times a step.
        hand = self.hand
        self.advising = (
            self.advice
            and not self._advised
            and self.record.players[hand.current] == self.captain
            and self.winner is None
            and hand.phase is not Phase.OVER
        )
        if not self.advising:
            self._advice_legal = []
            return
        legal = self.hand.legal_actions() if self.adviser_sees_hand else self._blind_advice()
        self._advice_legal = sorted(legal + [A.NO_ADVICE])

    def _blind_advice(self) -> list[int]:
        """The suggestions of an adviser who does not see the captain's hand (the adviser
        blind rule, docs/RULES.md section 3): only what it can know is legal.

        Upcard offer: take or pass. Draw: the captain's own legal draws, which are public
        (after both passed the upcard the captain must draw from the stock, and everyone
        saw both passes). Discard: only a card the
        adviser saw the captain take from the discard pile and still held, not the card
        taken this turn unless ``allow_discard_of_taken_card``; never a knock or big gin,
        whose legality depends on the hidden hand. ``NO_ADVICE`` is added by the caller.
        """
        hand = self.hand
        phase = hand.phase
        if phase is Phase.UPCARD_NONDEALER or phase is Phase.UPCARD_DEALER:
            return [A.TAKE_DISCARD, A.PASS]
        if phase is Phase.DRAW:
            return list(hand.legal_actions())
        seat = hand.current  # the captain's seat
        known = hand.took[seat]
        if hand.taken is not None and not hand.rules.allow_discard_of_taken_card:
            known &= ~(1 << hand.taken)
        return [A.DISCARD + c for c in range(NUM_CARDS) if known >> c & 1]

    @property
    def current_player(self) -> int | None:
        if self.advising:
            return self.adviser
        return super().current_player

    def legal_actions(self) -> list[int]:
        if self.advising:
            return list(self._advice_legal)
        return super().legal_actions()

    def step(self, action: int, next_hand: bool = True) -> HandRecord | None:
        if self.advising:
            a = A.check_action(action)
            legal = self.legal_actions()
            if a not in legal:
                raise A.IllegalAction(
                    f"illegal advice {a} ({A.action_str(a)}) from the adviser; legal: "
                    + ", ".join(f"{x} ({A.action_str(x)})" for x in legal),
                    a,
                    legal,
                )
            self.suggestion = a
            self._advised = True
            self.record.actions.append((self.adviser, a))
            self._update_advising()
            return None
        record = super().step(action, next_hand)
        if self._advised and not self.is_over:
            # The captain has decided: the next captain decision gets fresh advice.
            self._advised = False
            self.suggestion = None
        self._update_advising()
        return record

    def start_next_hand(self) -> None:
        super().start_next_hand()
        self._update_advising()

    @classmethod
    def replay(
        cls,
        config: ThreeHandedConfig,
        role_deck: Sequence[int],
        history: Sequence[HandRecord],
    ) -> ThreeHandedMatch:
        decks = [rec.deck for rec in history]
        match = cls(config, role_deck, lambda i: decks[i])
        _replay_actions(match, history)
        return match

    def describe_roles(self) -> str:
        draws = ", ".join(f"player_{p} drew {card_str(c)}" for p, c in self.role_draws)
        return (
            f"{draws}: box player_{self.box}, captain player_{self.captain}, "
            f"adviser player_{self.adviser}"
        )


class GinMatch(Match):
    """Two-player gin to ``config.target_score``; players 0 and 1.

    The lower card of the initial draw deals first; then ``config.dealer_rule`` decides.
    With ``config.hollywood`` three games are scored at once (see
    :class:`~gin_env.config.GinConfig`): :attr:`games` holds each game's two scores,
    :attr:`game_winners` who closed it, and :attr:`scores` follows the first game still
    open (the last game once all are closed).
    """

    num_players = 2
    config: GinConfig

    def __init__(
        self,
        config: GinConfig | None = None,
        role_deck: Sequence[int] = tuple(range(52)),
        deal: Callable[[int], Sequence[int]] = lambda i: list(range(52)),
    ) -> None:
        self.config = config if config is not None else GinConfig()
        self.role_deck = check_deck(role_deck, "role_deck")
        order, self.role_draws = draw_for_order(self.role_deck, (0, 1))
        self.dealer = order[1]
        self.hands_won = [0, 0]
        self.games = [[0, 0] for _ in range(HOLLYWOOD_GAMES)]
        self.game_winners: list[int | None] = [None] * HOLLYWOOD_GAMES
        super().__init__(deal)
        self._start_hand()

    def _games_now(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(g) for g in self.games) if self.config.hollywood else ()

    def _enter_points(self, player: int, points: int) -> None:
        if not self.config.hollywood:
            super()._enter_points(player, points)
            return
        self.hands_won[player] += 1
        open_games = [g for g, w in enumerate(self.game_winners) if w is None]
        for g in open_games[: self.hands_won[player]]:
            self.games[g][player] += points
            if self.games[g][player] >= self.target_score:
                self.game_winners[g] = player
        still_open = [g for g, w in enumerate(self.game_winners) if w is None]
        self.scores = list(self.games[still_open[0] if still_open else -1])

    def standings(self) -> dict[str, Any]:
        out = super().standings()
        if self.config.hollywood:
            out["games"] = [list(g) for g in self.games]
            out["game_winners"] = list(self.game_winners)
        return out

    def _match_winner(self) -> int | None:
        if not self.config.hollywood:
            return super()._match_winner()
        if None in self.game_winners:
            return None
        return max((0, 1), key=self.game_winners.count)

    def _seating(self) -> tuple[tuple[int, int], tuple[int, ...]]:
        roles = [NONDEALER, NONDEALER]
        roles[self.dealer] = DEALER
        return (1 - self.dealer, self.dealer), tuple(roles)

    def _after_hand(self, result: HandResult, players: tuple[int, int]) -> None:
        winner = None if result.winner is None else players[result.winner]
        self.dealer = next_dealer(self.config.dealer_rule, self.dealer, winner)

    @classmethod
    def replay(
        cls, config: GinConfig, role_deck: Sequence[int], history: Sequence[HandRecord]
    ) -> GinMatch:
        decks = [rec.deck for rec in history]
        match = cls(config, role_deck, lambda i: decks[i])
        _replay_actions(match, history)
        return match


def _replay_actions(match: Match, history: Sequence[HandRecord]) -> None:
    for rec in history:
        for player, action in rec.actions:
            if match.current_player != player:
                raise ValueError(
                    f"replay diverged in hand {rec.index}: player_{player} recorded, "
                    f"player_{match.current_player} to act"
                )
            match.step(action)
