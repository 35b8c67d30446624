"""The table in play: one object that owns a game's deal, state, moves and every seat's view.

A :class:`TableState` is built from a table (the typed rules, :data:`gin_env.config.Table`:
the only place the adviser's rules and every other rule live) and a seed or a first deck.
It owns

- the deal stream: every deck of the match comes from a generator seeded by the seed alone
  (:func:`deck_generator`), never from the moves, so duplicate deals hold whatever the
  agents do;
- the engine (:class:`~gin_env.match.GinMatch`, :class:`~gin_env.match.ThreeHandedMatch` or
  :class:`~gin_env.rummy.RummyGame`), who acts, the legal moves and :meth:`TableState.apply`
  (checked once, by the engine: an illegal move raises
  :class:`~gin_env.actions.IllegalAction` and changes nothing);
- the moves of the hand as they are applied, with the card each moved and who may see it,
  from which every seat's view is built (:meth:`TableState.view`, a
  :class:`~gin_env.seat_view.SeatView`) and the ``history`` observation is encoded;
- the record (every hand's deck, moves and result) and :meth:`TableState.clone`.

The AEC envs (``gin_v0``, ``three_handed_gin_v0``, ``rummy_v0``, their v1) translate one of
these into PettingZoo's API and hold it as ``env.table_state``; the front ends, the record
and evaluation hold it too, never the env's insides.

>>> from gin_env.config import ThreeHandedConfig
>>> state = TableState(ThreeHandedConfig(adviser="none"), seed=1)
>>> state.advising, state.legal_actions()[:2]  # the captain's upcard offer, no advice turn
(False, [1, 2])
>>> twin = state.clone()
>>> _ = state.apply(2); _ = twin.apply(2)
>>> state.view(0) == twin.view(0)
True
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict, replace
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.cards import NUM_CARDS, cards_of_mask
from gin_env.config import GinConfig, RummyConfig, Table, ThreeHandedConfig
from gin_env.hand import check_deck
from gin_env.match import ROLE_NAMES, GinMatch, HandRecord, Match, ThreeHandedMatch
from gin_env.rummy import Phase as RummyPhase
from gin_env.rummy import RummyGame
from gin_env.seat_view import (
    GIN_PHASES,
    RUMMY_PHASES,
    HandPoints,
    Move,
    SeatView,
    ShowdownView,
    TableSummary,
    arranged,
    discard_table,
    phase_id,
)

__all__ = ["TableState", "deck_generator", "WIDE_SEED", "GameMove"]

#: Seeds below this deal as they always have (the deck stream seeded from 63 bits drawn
#: from ``np_random``); a seed at or above it seeds the deck stream from all its bits.
WIDE_SEED = 2**63

#: One move of a gin hand as applied: ``(player, action, card, advice)``; ``card`` is the
#: card it moved (the pile's top taken, the stock's top drawn, the card discarded; -1 for
#: none) and ``advice`` marks an adviser's suggestion (whose card is -1 unless it names a
#: discard). The ``history`` observation encodes these (:func:`gin_env.encoding.encode_history`).
GameMove = tuple[int, int, int, bool]

#: The env name of each table's game in observation layout v0.
_GAME_NAMES = {
    GinConfig: "gin_v0",
    ThreeHandedConfig: "three_handed_gin_v0",
    RummyConfig: "rummy_v0",
}


def deck_generator(np_random: np.random.Generator, seed: int | None) -> np.random.Generator:
    """The generator of a match's decks. A seed below :data:`WIDE_SEED` (or none: the stream
    goes on from ``np_random``) seeds it from 63 bits drawn from ``np_random``, as every
    release has, so the deals of those seeds never change. A larger seed (a web table's
    128-bit secret) seeds it from every bit of the seed: ``SeedSequence(seed)``'s first
    child, a stream apart from ``np_random``'s own, so two seeds that differ in any bit deal
    differently. ``np_random`` draws its 63 bits either way (it stays where it was)."""
    drawn = int(np_random.integers(2**63))
    if seed is not None and seed >= WIDE_SEED:
        return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    return np.random.default_rng(drawn)


class _Decks:
    """The ``deal`` function of a match: hand ``i``'s shuffled deck, drawn from the deck
    generator in order (``first`` replaces hand 0's). A class, not a closure, so that a
    table pickles mid-game."""

    def __init__(self, rng: np.random.Generator, first: list[int] | None) -> None:
        self.rng = rng
        self.first = first
        self.decks: list[list[int]] = []

    def __call__(self, i: int) -> list[int]:
        while len(self.decks) <= i:
            self.decks.append(self.rng.permutation(NUM_CARDS).tolist())
        if i == 0 and self.first is not None:
            return self.first
        return self.decks[i]


class TableState:
    """A table in play: the deal, the engine, the moves and every seat's view.

    ``table`` is the game's typed rules; ``seed`` (or ``np_random``, an already seeded
    generator, as an env holds) fixes every deal; ``deck`` (52 card ints) replaces the first
    hand's deck. ``name`` is the env name the views carry (``gin_v1``...); by default the
    table's game in layout v0.
    """

    def __init__(
        self,
        table: Table,
        seed: int | None = None,
        *,
        deck: Sequence[int] | None = None,
        np_random: np.random.Generator | None = None,
        name: str | None = None,
    ) -> None:
        if type(table) not in _GAME_NAMES:
            raise ValueError(
                "a table is a game's rules object (GinConfig, ThreeHandedConfig, RummyConfig);"
                f" got {type(table).__name__}"
            )
        first = None if deck is None else check_deck(deck)
        if np_random is None:
            np_random, _ = seeding.np_random(seed)
        self.table = table
        self.name = name or _GAME_NAMES[type(table)]
        self.family = "rummy" if isinstance(table, RummyConfig) else "gin"
        self.num_players = int(table.num_players)
        #: Each player's role by id, in words (``box``...; ``dealer``...; none in rummy).
        self.role_names: tuple[str, ...] = (
            ROLE_NAMES if self.num_players == 3 else ("dealer", "non-dealer")
        )
        #: The table's rules as a dict of option names (a view's ``rules``).
        self.rules: dict[str, Any] = asdict(table)
        self._deck_rng = deck_generator(np_random, seed)
        self.match: Match | None = None
        self.game: RummyGame | None = None
        #: The moves of the hand on the table as applied; ``last_moves`` the hand before's.
        self.moves: list[GameMove] = []
        self.last_moves: list[GameMove] = []
        self._finished: dict[int, tuple[HandPoints, ShowdownView]] = {}
        if isinstance(table, RummyConfig):
            self.game = RummyGame(table)
            drawn = self._next_deck()
            self.game.start_hand(drawn if first is None else first)
        else:
            role_deck = self._deck_rng.permutation(NUM_CARDS).tolist()
            deal = _Decks(self._deck_rng, first)
            if isinstance(table, ThreeHandedConfig):
                self.match = ThreeHandedMatch(table, role_deck, deal)
            else:
                self.match = GinMatch(table, role_deck, deal)

    def _next_deck(self) -> list[int]:
        return self._deck_rng.permutation(NUM_CARDS).tolist()

    # -- who acts, and what may be done ---------------------------------------------------
    @property
    def is_over(self) -> bool:
        """The match (rummy without a target: the hand) is over."""
        if self.match is not None:
            return self.match.is_over
        assert self.game is not None
        return bool(self.game.match_over)

    @property
    def hand_over(self) -> bool:
        """The hand on the table is over (held by ``apply(..., next_hand=False)``, or the
        match's last)."""
        if self.match is not None:
            return bool(self.match.hand.is_over)
        assert self.game is not None
        return self.game.phase == RummyPhase.OVER

    @property
    def to_act(self) -> int | None:
        """The player to act; None once the match is over or while a finished hand is held."""
        if self.match is not None:
            return self.match.current_player
        assert self.game is not None
        return None if self.hand_over else int(self.game.current)

    @property
    def advising(self) -> bool:
        """The adviser is to suggest the captain's move (three-handed, adviser on)."""
        return bool(getattr(self.match, "advising", False))

    @property
    def suggestion(self) -> int | None:
        """The adviser's suggestion to the captain's decision at hand, if any."""
        s = getattr(self.match, "suggestion", None)
        return None if s is None else int(s)

    @property
    def top_discard(self) -> int | None:
        """The card a take would take now (the upcard or the pile's top), or None."""
        if self.match is not None:
            return self.match.hand.top_discard
        assert self.game is not None
        return None if self.game.top_discard < 0 else self.game.top_discard

    def legal_actions(self) -> list[int]:
        """Legal action ids of the player to act (a fresh list); empty when nobody is to act."""
        if self.match is not None:
            return list(self.match.legal_actions())
        assert self.game is not None
        return [] if self.hand_over else list(self.game.legal_actions())

    # -- scores and the record ------------------------------------------------------------
    @property
    def scores(self) -> tuple[int, ...]:
        engine = self.match if self.match is not None else self.game
        assert engine is not None
        return tuple(int(s) for s in engine.scores)

    @property
    def winner(self) -> int | None:
        """The match's winner once it is over (rummy: the highest score; a single hand: its
        winner, None when it was truncated); None before."""
        if not self.is_over:
            return None
        if self.match is not None:
            return None if self.match.winner is None else int(self.match.winner)
        assert self.game is not None
        return _rummy_winner(self.game)

    @property
    def history(self) -> list[HandRecord]:
        """Every gin hand so far: its deck, players, roles, actions and result."""
        return [] if self.match is None else self.match.history

    @property
    def rummy_results(self) -> list[Any]:
        """Every finished rummy hand's ``HandResult`` (:class:`gin_env.rummy.HandResult`:
        winner, payments, rummy, truncation, the cards left in each hand), in order; empty
        at a gin table. A read-only copy for those who hold the table (evaluation, the
        record), not for a seat: ``cards_left`` shows every hand, so agents get
        observations."""
        return [] if self.game is None else list(self.game.results)

    def open_hand(self) -> Any:
        """A copy (:meth:`GinHand.clone <gin_env.hand.GinHand.clone>`) of the gin hand on the
        table, every card in it (both hands, the stock's order); None at a rummy table. For
        perfect-information work only (a study's rollouts of the true deal, an analysis):
        never hand it to a seat, which must learn only what its observation shows."""
        return None if self.match is None else self.match.hand.clone()

    @property
    def role_deck(self) -> list[int]:
        """The deck of the draw for seats (gin) or roles (three-handed); empty in rummy."""
        return [] if self.match is None else list(self.match.role_deck)

    @property
    def hand_index(self) -> int:
        if self.match is not None:
            return int(self.match.record.index)
        assert self.game is not None
        return max(int(self.game.hand_number) - 1, 0)

    @property
    def roles(self) -> tuple[int, ...]:
        """Each player's role id in the hand on the table (rummy: none)."""
        return () if self.match is None else tuple(self.match.record.roles)

    def role_name(self, player: int) -> str:
        return self.role_names[self.roles[player]] if self.roles else ""

    def standings(self) -> dict[str, Any]:
        """The scores as the env's ``infos`` report them (with Hollywood's three games)."""
        if self.match is not None:
            return self.match.standings()
        return {"scores": list(self.scores)}

    def describe_roles(self) -> str | None:
        """The three-handed draw for roles in words; None for the other games."""
        describe = getattr(self.match, "describe_roles", None)
        return None if describe is None else str(describe())

    def sees(
        self, player: int | None, open_hands: bool = False, record: HandRecord | None = None
    ) -> set[int]:
        """Whose cards ``player`` sees in the hand of ``record`` (default: the hand on the
        table): his own; the adviser the captain's when the table lets him; everyone's with
        ``open_hands``."""
        if open_hands:
            return set(range(self.num_players))
        if player is None:
            return set()
        out = {player}
        if record is None and self.match is not None:
            record = self.match.record
        if record is not None and player not in record.players and self.adviser_sees_hand:
            out.add(record.players[0])  # the adviser sees the captain (the hand's non-dealer)
        return out

    @property
    def adviser_sees_hand(self) -> bool:
        return bool(getattr(self.table, "adviser_sees_hand", True))

    # -- moves ------------------------------------------------------------------------------
    def apply(self, action: int, next_hand: bool = True) -> Any:
        """Apply the move of the player to act. An illegal one raises
        :class:`~gin_env.actions.IllegalAction` (a ``ValueError``) and changes nothing.

        Returns the hand's result if it just ended (gin: its
        :class:`~gin_env.match.HandRecord`; rummy: its ``HandResult``), else None. A hand that
        ends while the match goes on is followed at once by the next deal, unless
        ``next_hand`` is False: then the ended hand stays on the table until
        :meth:`start_next_hand` (an env whose episode ends with the hand).
        """
        if self.match is not None:
            return self._apply_gin(self.match, action, next_hand)
        assert self.game is not None
        game = self.game
        game.step(action)  # raises on an illegal action before anything changes
        if game.phase != RummyPhase.OVER:
            return None
        result = game.result
        if next_hand and game.config.target_score is not None and not game.match_over:
            game.start_hand(self._next_deck())
        return result

    def _apply_gin(self, match: Match, action: int, next_hand: bool) -> HandRecord | None:
        hand = match.hand
        player = match.current_player
        advice = self.advising
        a = A.check_action(action)
        if advice:
            card = (a - A.DISCARD) % NUM_CARDS if A.DISCARD <= a < A.BIG_GIN else -1
        elif a == A.TAKE_DISCARD:
            card = -1 if hand.top_discard is None else hand.top_discard
        elif a == A.DRAW_STOCK:
            card = hand.deck[hand.stock_pos] if hand.stock_size else -1
        elif A.DISCARD <= a < A.BIG_GIN:
            card = (a - A.DISCARD) % NUM_CARDS
        else:
            card = -1
        record = match.step(a, next_hand=next_hand)  # raises on an illegal move, unchanged
        assert player is not None
        if record is not None and match.record is not record:  # the next hand is dealt
            self.last_moves = [*self.moves, (player, a, card, advice)]
            self.moves = []
        else:
            self.moves.append((player, a, card, advice))
        return record

    def start_next_hand(self) -> None:
        """Deal the next hand after one held by ``apply(..., next_hand=False)``."""
        if self.match is not None:
            self.match.start_next_hand()
            self.last_moves, self.moves = self.moves, []
            return
        assert self.game is not None
        self.game.start_hand(self._next_deck())

    # -- views ------------------------------------------------------------------------------
    def view(self, player: int | None, open_hands: bool = False) -> SeatView:
        """What ``player`` (a player index; None: a spectator) may see; ``open_hands`` shows
        every hand (watching an agents-only table; a finished match)."""
        if player is not None and not (
            isinstance(player, int)
            and not isinstance(player, bool)
            and 0 <= player < self.num_players
        ):
            raise ValueError(
                f"player must be None or an int in 0..{self.num_players - 1}; got {player!r}"
            )
        if self.match is not None:
            return _gin_view(self, player, open_hands)
        return _rummy_view(self, player, open_hands)

    def finished(self, record: HandRecord) -> tuple[HandPoints, ShowdownView]:
        """The score-sheet row and the showdown of a finished gin hand, built once."""
        found = self._finished.get(record.index)
        if found is None:
            row = _gin_points(self, record)
            found = self._finished[record.index] = (row, _gin_showdown(record, row))
        return found

    def summary(self) -> TableSummary:
        """What a front end that runs the table needs between moves (public facts only)."""
        over = self.is_over
        return TableSummary(
            family=self.family,
            over=over,
            to_act=None if over else self.to_act,
            legal=() if over else tuple(self.legal_actions()),
            hand_index=self.hand_index,
            hand_over=self.hand_over,
            roles=tuple(self.role_name(p) for p in range(self.num_players)),
            scores=self.scores,
            winner=self.winner,
        )

    def clone(self) -> TableState:
        """An independent copy: the same moves applied to both give the same states."""
        return copy.deepcopy(self)


def _rummy_winner(game: RummyGame) -> int | None:
    # A match: the highest score; a single hand (no target): its winner (None: truncated).
    if game.config.target_score is None and game.results:
        last = game.results[-1].winner
        return None if last is None else int(last)
    return int(max(range(len(game.scores)), key=lambda p: game.scores[p]))


# -- every seat's view, built from the moves recorded as they were applied ---------------------
def _gin_points(state: TableState, rec: Any) -> HandPoints:
    """The score-sheet row of the finished gin hand of ``rec``."""
    r = rec.result
    winner = None if r.winner is None else rec.players[r.winner]
    scored = [0] * state.num_players
    if winner is not None:
        scored[winner] = r.points
    return HandPoints(
        hand=rec.index,
        kind=r.kind,
        winner=winner,
        knocker=None if r.knocker is None else rec.players[r.knocker],
        points=r.points,
        parts=r.breakdown(),
        multiplier=r.multiplier,
        scored=tuple(scored),
        scores_after=tuple(rec.scores_after),
        roles=tuple(state.role_names[x] for x in rec.roles),
        reason=r.reason,
        games_after=rec.games_after,
    )


def _gin_showdown(rec: Any, row: HandPoints) -> ShowdownView:
    """The showdown of the finished gin hand of ``rec``, whose row is ``row``."""
    r = rec.result
    sd = r.showdown
    if sd is None:  # a drawn hand is thrown in unseen
        return ShowdownView(row, ())
    hands = tuple((p, cards_of_mask(r.final_hands[s])) for s, p in enumerate(rec.players))
    return ShowdownView(
        row,
        hands,
        tuple(cards_of_mask(m) for m in sd.knocker_melds),
        cards_of_mask(sd.knocker_deadwood_cards),
        sd.knocker_deadwood,
        tuple(cards_of_mask(m) for m in sd.defender_melds),
        cards_of_mask(sd.defender_deadwood_cards),
        sd.defender_deadwood,
        cards_of_mask(sd.layoffs),
    )


def _seen_moves(
    state: TableState,
    rec: HandRecord,
    moves: Sequence[GameMove],
    player: int | None,
    open_hands: bool,
) -> tuple[Move, ...]:
    """The moves of the hand of ``rec``, as recorded when applied, as ``player`` saw them: a
    card drawn from the stock only to whoever sees that hand, a suggestion only to the
    captain's team (the captain and the adviser, who sits out)."""
    roles = tuple(state.role_names[r] for r in rec.roles)
    sees = state.sees(player, open_hands, rec)
    outside = [p for p in range(state.num_players) if p not in rec.players]
    advice_seen = open_hands or (bool(outside) and player in (rec.players[0], outside[0]))
    gin = rec.result is not None and rec.result.kind in ("gin", "big_gin")  # the knock's
    out = []
    for who, action, card, advice in moves:
        if advice:
            out.append(Move(who, action if advice_seen else None, None, True, roles[who]))
            continue
        shown = None if card < 0 or (action == A.DRAW_STOCK and who not in sees) else card
        out.append(
            Move(who, action, shown, False, roles[who], gin=A.KNOCK <= action < A.BIG_GIN and gin)
        )
    return tuple(out)


def _gin_view(state: TableState, player: int | None, open_hands: bool) -> SeatView:
    """:meth:`TableState.view` of a gin table."""
    match = state.match
    assert match is not None
    hand = match.hand
    rec = match.record
    n = state.num_players
    three = n == 3
    outside = tuple(p for p in range(n) if p not in rec.players)
    adviser = outside[0] if outside else None
    captain = rec.players[0] if three else None
    roles = tuple(state.role_names[r] for r in rec.roles)
    sees = state.sees(player, open_hands)
    hands = {p: arranged(hand.hands[s]) for s, p in enumerate(rec.players) if p in sees}
    counts = [0] * n
    took: dict[int, tuple[int, ...]] = {}
    discarded: dict[int, tuple[int, ...]] = {}
    for s, p in enumerate(rec.players):
        counts[p] = hand.hands[s].bit_count()
        took[p] = cards_of_mask(hand.took[s] & hand.hands[s])
        discarded[p] = cards_of_mask(hand.discarded[s])
    done = [r for r in match.history if r.result is not None]
    over = bool(match.is_over)
    to_act = None if over else match.current_player
    suggestion = state.suggestion
    if suggestion is not None and not (open_hands or player in (captain, adviser)):
        suggestion = None
    legal = tuple(state.legal_actions()) if to_act == player is not None else ()
    # What each legal discard or knock leaves in deadwood (0 after a knock: gin), from the
    # hand of the seat to act (or of the captain the adviser advises, if he sees it).
    leaves: dict[int, int] = {}
    acting = next((p for p in (to_act, captain) if p in hands), None) if legal else None
    if acting is not None and len(hands[acting].cards) == 11:
        seat = rec.players.index(acting)
        # The engine keeps the seat to act's (its legal knocks need them).
        left = hand.discard_deadwoods() if seat == hand.current else discard_table(hand.hands[seat])
        leaves = {a: left[(a - A.DISCARD) % 52] for a in legal if A.DISCARD <= a < A.BIG_GIN}
    # The moves of the hand on the table; once it is over (the next not yet begun), its own.
    last = not state.moves and bool(done) and not rec.actions
    moves_rec = done[-1] if last else rec
    moves = _seen_moves(state, moves_rec, state.last_moves if last else state.moves, player,
                        open_hands)  # fmt: skip
    phase = phase_id(hand.phase)
    standings = match.standings()
    return SeatView(
        game=state.name,
        family="gin",
        player=player,
        num_players=n,
        roles=roles,
        to_act=to_act,
        phase=GIN_PHASES.get(phase, phase),
        advising=state.advising,
        hand_index=int(rec.index),
        hands=hands,
        counts=tuple(counts),
        pile=tuple(hand.discard_pile),
        upcard=hand.top_discard,
        taken=hand.taken if phase == "discard" else None,
        took=took,
        stock=hand.stock_size,
        knock_limit=hand.knock_limit,
        multiplier=hand.multiplier,
        scores=tuple(map(int, match.scores)),
        target=match.target_score,
        over=over,
        winner=None if not over else match.winner,
        sheet=tuple(state.finished(r)[0] for r in done),
        suggestion=suggestion,
        legal=legal,
        showdown=state.finished(done[-1])[1] if done else None,
        moves=moves,
        sitting_out=outside,
        dealer=rec.players[1],
        games=standings.get("games"),
        game_winners=standings.get("game_winners"),
        open_hands=open_hands,
        rules=dict(state.rules),
        discarded=discarded,
        turn=hand.turns,
        phase_id=phase,
        leaves=leaves,
        moves_hand=int(moves_rec.index),
    )


def _rummy_points(game: Any, index: int, result: Any, scores_after: tuple[int, ...]) -> HandPoints:
    n = len(result.payments)
    winner = result.winner
    scored = [0] * n
    if winner is not None:
        scored[winner] = result.payments[winner]
    gain = 0 if winner is None else result.payments[winner]
    parts: tuple[tuple[str, int], ...] = ()
    if winner is not None:
        pips = gain // (2 if result.rummy else 1)
        parts = (("pips left in the others' hands", pips),)
    return HandPoints(
        hand=index,
        kind="draw" if winner is None else "rummy" if result.rummy else "out",
        winner=winner,
        knocker=None,
        points=gain,
        parts=parts,
        multiplier=2 if result.rummy else 1,
        scored=tuple(scored),
        scores_after=scores_after,
        reason="max_turns" if result.truncated else "",
        paid=tuple(result.payments),
    )


def _rummy_view(state: TableState, player: int | None, open_hands: bool) -> SeatView:
    """:meth:`TableState.view` of a rummy table."""
    game = state.game
    assert game is not None
    n = state.num_players
    ace_high = bool(game.config.ace_high_or_low)
    sees = state.sees(player, open_hands)
    over = bool(game.match_over)
    to_act = None if over else int(game.current)
    # The score sheet adds up: a row's ``scored`` is what the scores gained (the winner the
    # payments; ``paid`` says who paid them).
    running = [0] * n
    sheet = []
    for i, r in enumerate(game.results):
        row = _rummy_points(game, i, r, ())
        running = [a + b for a, b in zip(running, row.scored, strict=True)]
        sheet.append(_with_scores(row, tuple(running)))
    showdown = None
    if game.results:
        last = game.results[-1]
        showdown = ShowdownView(
            sheet[-1], tuple((p, cards_of_mask(last.cards_left[p])) for p in range(n))
        )
    phase = phase_id(game.phase)
    legal = tuple(state.legal_actions()) if to_act == player is not None else ()
    return SeatView(
        game=state.name,
        family="rummy",
        player=player,
        num_players=n,
        roles=("",) * n,
        to_act=to_act,
        phase=RUMMY_PHASES.get(phase, phase),
        advising=False,
        hand_index=state.hand_index,
        hands={p: arranged(game.hands[p], ace_high) for p in sorted(sees)},
        counts=tuple(h.bit_count() for h in game.hands),
        pile=tuple(game.discard_pile),
        upcard=None if game.top_discard < 0 else int(game.top_discard),
        taken=None if game.taken_card < 0 else int(game.taken_card),
        took={p: cards_of_mask(game.public_cards[p] & game.hands[p]) for p in range(n)},
        stock=len(game.stock),
        knock_limit=None,
        multiplier=1,
        scores=state.scores,
        target=game.config.target_score,
        over=over,
        winner=state.winner,
        sheet=tuple(sheet),
        suggestion=None,
        legal=legal,
        showdown=showdown,
        moves=_rummy_moves(game, player, open_hands),
        moves_hand=int(game.hand_number) - (1 if not game.history and game.last_history else 0) - 1,
        dealer=int(game.dealer),
        melds=tuple((m.owner, cards_of_mask(m.cards)) for m in game.table),
        open_hands=open_hands,
        rules=dict(state.rules),
        turn=int(game.turns),
        melded_before=tuple(bool(x) for x in game.melded_before),
        phase_id=phase,
    )


def _rummy_moves(game: Any, player: int | None, open_hands: bool) -> tuple[Move, ...]:
    """The hand's moves as ``player`` saw them (the last hand's, before this one's first
    move), from the moves the game recorded as they were made: a card drawn from the stock
    only to the drawer, every other card is laid face up."""
    if game.history:
        moves = [(s, a, c) for (s, a), c in zip(game.history, game.moved, strict=True)]
    else:
        moves = game.last_history
    return tuple(
        Move(
            seat,
            action,
            None if card < 0 or (action == R.DRAW_STOCK and seat != player and not open_hands)
            else card,
            family="rummy",
        )
        for seat, action, card in moves
    )  # fmt: skip


def _with_scores(row: HandPoints, scores: tuple[int, ...]) -> HandPoints:
    return replace(row, scores_after=scores)
