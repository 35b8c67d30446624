"""Determinised rollout search on the compiled engine, seated like any agent; and ``best``.

:class:`RolloutSearch` is the search of ``studies/rollout_search.py`` and
``studies/match_search.py`` (their ``Search`` and ``MatchSearch`` are built on it): at a
searched decision the candidates are the base player's move, the least-deadwood discards,
the least-deadwood knock and the base move's discard without its knock; ``worlds`` worlds
are dealt from what the seat knows (his hidden cards and the stock dealt again from the
unseen cards; of ``opp_samples`` draws his hand with the least deadwood); every candidate
is played in every world to the end of the hand on the batched engine (common random
numbers), the searcher's side by its base player, his by his model; a rollout is worth its
points or (:class:`EquitySearch`) the match equity of the scores it ends in
(:mod:`agents.match_equity`); the best candidate replaces the base move when its mean gain
exceeds ``margin`` standard errors, paired over the worlds.

The studies hand the search the engine's arrays (``act_in_match``). :class:`SeatSearch`
builds its one-game table from the seat's own view instead: its observation and what the
seat saw earlier in the hand (it remembers its own views: the pile's order, the cards it
took, his takes, passes and discards), so ``agents.seat("match-search", table)`` plays it
anywhere an agent plays (the env, the CLI, the browser, a Gymnasium env, an evaluation),
and its batched form plays it row by row. Every card of the seat's view is its own; the
cards it has not seen are dealt again in every world (``tests/test_best.py`` checks that no
world holds a card the seat cannot know, and that it plays ``studies.match_search``'s
decisions on the same deals and seeds).

His model (``model``) is a style of :data:`agents.opponent_model.STYLES`, a ``+``-joined
mixture (his worlds played by each in turn), or ``posterior``: the
:class:`~agents.opponent_model.StylePosterior` over a pool of styles learnt from his moves
in the match, his worlds played by the styles in proportion to it and his hands in them
weighted by how well they agree with his last discard under it.

``best`` (:func:`best`) is the project's strongest player for each table it was built for
(:data:`BEST_SETTINGS`): the search around that table's ``tuned`` set with the settings
chosen on the selection seed (``docs/best.md``, ``results/best/``), a per-decision time budget
(default 0.5 s, ``budget=``); at a table it was not built for it is refused with the tables
it knows.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from agents.base import (
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_DEALER,
    PHASE_UPCARD_NONDEALER,
    ROLE_BOX,
    ObservedSeat,
    decode,
    game_actions,
)
from agents.heuristic import HeuristicParams, banned_card
from agents.heuristic_batched import BatchedHeuristic
from agents.match_equity import match_equity, shipped_outcomes
from agents.opponent_model import ANY_KNOCK, POOL, StylePosterior, pool_params, style_params
from agents.tuned import TABLES, rules_dict, table_name
from gin_env import actions as A
from gin_env.config import GinConfig, GinTable, ThreeHandedConfig, check_choice, table_options
from gin_env.encoding import FULL_STOCK, OBS_SIZE, OBS_SLICES
from gin_env.fast_game import (
    F_CUR,
    F_DEALER,
    F_DISC0,
    F_HAND0,
    F_HANDS,
    F_LIMIT,
    F_MULT,
    F_MUST_DRAW,
    F_PHASE,
    F_PILE_LEN,
    F_PLAYER0,
    F_RES_KIND,
    F_RES_KNOCKER,
    F_RES_WINNER,
    F_ROLE0,
    F_SCORE0,
    F_STOCK_POS,
    F_SUGGESTION,
    F_TAKEN,
    F_TOOK0,
    F_TURNS,
    F_UPCARD,
    NUM_FIELDS,
    config_vector,
    outputs_kernel,
)
from gin_env.fast_melds import deadwood_nb, discard_deadwoods_nb
from gin_env.gin_aec import EnvOptions
from gin_env.hand import Phase
from gin_env.match import DEALER, NONDEALER, next_dealer
from gin_env.vector import VectorGinEnv

__all__ = [
    "RolloutSearch",
    "EquitySearch",
    "SeatSearch",
    "BEST_SETTINGS",
    "best",
    "rollout_points",
    "VALUES",
]

_DRAW_PHASES = (int(Phase.UPCARD_NONDEALER), int(Phase.UPCARD_DEALER), int(Phase.DRAW))
_DISCARD_PHASE = int(Phase.DISCARD)
FULL = (1 << 52) - 1
#: His hands in the worlds: of ``opp_samples`` uniform draws the least deadwood, or drawn
#: from the posterior's particles (``model="posterior"``).
HANDS = ("least-deadwood", "posterior")
#: How a rollout is valued: the match equity of the scores it ends in, or its points.
VALUES = ("equity", "points")
#: More points than any one hand scores (the equity table is padded by it).
_REACH = 256


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def rollout_points(
    results: Mapping[str, np.ndarray], rows: np.ndarray, players: np.ndarray
) -> np.ndarray:
    """The points of each of ``rows``' finished hand for ``players``: + when that player
    scored, - when the other did, 0 for a draw (the engine's hand results)."""
    won = results["winner"][rows]
    sign = np.where(won == players, 1.0, np.where(won < 0, 0.0, -1.0))
    return np.asarray(sign * results["points"][rows])


class RolloutSearch:
    """The rollout search of the module docstring at one ``table`` (a two-player gin table:
    its rules are the rollouts'), around the player ``base`` with ``opponent`` his model."""

    def __init__(
        self,
        base: HeuristicParams,
        opponent: HeuristicParams,
        table: GinConfig,
        worlds: int = 32,
        discards: int = 3,
        margin: float = 1.0,
        opp_samples: int = 1,
        filter_samples: int = 0,
        decisions: str = "draw+discard",
        seed: int = 0,
    ) -> None:
        self.table = table
        self.base = BatchedHeuristic(base, table)
        self.opponent = BatchedHeuristic(opponent, table)
        #: His policies in the rollouts, world ``j`` played by ``models[j % len(models)]``
        #: (one: his model; several: a mixture, for an opponent the search does not know),
        #: unless ``world_models`` gives each world's model (its index in ``models``).
        self.models = [self.opponent]
        self.world_models: np.ndarray | None = None
        #: His hand in each world (one row searched at a time; None: dealt by
        #: :meth:`_deal` from the unseen cards).
        self.his_hands: np.ndarray | None = None
        self.worlds = int(worlds)
        self.discards = int(discards)
        self.margin = float(margin)
        self.opp_samples = int(opp_samples)
        self.filter_samples = int(filter_samples)
        #: Per main-table game: the opponent's last discard (his game's state and pile then,
        #: the card he threw), see :meth:`record`.
        self.last: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}
        self.filtered = 0
        self.consistent = 0.0
        allowed = {"draw", "discard", "knock"}
        self.decisions = set(decisions.split("+")) if isinstance(decisions, str) else set()
        if not self.decisions or not self.decisions <= allowed:
            raise ValueError(
                f"decisions must be '+'-joined from {sorted(allowed)}, got {decisions!r}"
            )
        self.rng = np.random.default_rng(seed)
        self._envs: dict[int, VectorGinEnv] = {}
        #: The table's configuration vector, as the engine's kernels read it.
        self._cfg = config_vector(table, EnvOptions(episode="hand"))[0]
        self.searched = 0
        self.overruled = 0
        self._scratch = np.zeros(52, np.int64)
        #: The last row's worlds as dealt: (his hands, the stocks).
        self.dealt: tuple[np.ndarray, np.ndarray] | None = None
        #: Per main-table row: (my score, his score) entered in the rollouts' state
        #: (None: the rows' own).
        self.scores: dict[int, tuple[int, int]] | None = None

    # -- candidates ------------------------------------------------------------------------
    def candidates(self, phase: int, hand: int, legal: np.ndarray, base_move: int) -> list[int]:
        """The base move first, then the alternatives worth a rollout."""
        moves = np.flatnonzero(legal).tolist()
        if phase in _DRAW_PHASES:
            if "draw" not in self.decisions:
                return [base_move]
            return [base_move] + [m for m in moves if m != base_move and m != A.NO_ADVICE]
        if phase != _DISCARD_PHASE or A.BIG_GIN in moves:  # nothing beats big gin
            return [base_move]
        can_knock = any(A.KNOCK <= m < A.BIG_GIN for m in moves)
        if "discard" not in self.decisions and not ("knock" in self.decisions and can_knock):
            return [base_move]
        discard_deadwoods_nb(hand, self._scratch)
        plain = sorted(
            (int(self._scratch[m - A.DISCARD]), m) for m in moves if A.DISCARD <= m < A.KNOCK
        )
        knocks = sorted(
            (int(self._scratch[m - A.KNOCK]), m) for m in moves if A.KNOCK <= m < A.BIG_GIN
        )
        out = [base_move]
        for _, m in plain[: self.discards]:
            if m not in out:
                out.append(m)
        if knocks and knocks[0][1] not in out:
            out.append(knocks[0][1])
        if base_move >= A.KNOCK and base_move - A.KNOCK + A.DISCARD not in out:
            out.append(base_move - A.KNOCK + A.DISCARD)  # the same discard, playing on
        return out

    # -- worlds ----------------------------------------------------------------------------
    def _env(self, size: int) -> VectorGinEnv:
        """A rollout table of ``size`` slots rounded up to a power of two, one kept for each
        such size (a step writes every slot's outputs, so one table of the largest size
        would cost the small searches as much as the large)."""
        cap = 1 << max(6, (size - 1).bit_length())
        if cap not in self._envs:
            options = table_options(self.table)
            env = VectorGinEnv(cap, "gin", seed=0, backend="numba", episode="hand", **options)
            env.reset()
            # A rollout stops at its hand's end: the next deals are never played, so the
            # slots need no new decks (drawing them would cost more than the rollouts).
            env._impl._refill = lambda: None
            self._envs[cap] = env
        return self._envs[cap]

    def record(self, games: Any, rows: np.ndarray, actions: np.ndarray) -> None:
        """The opponent's plain discards in ``rows`` of the main table (his game's state and
        pile as he threw, and the card): what the filter of :meth:`_deal` checks a sampled
        hand against. His hand in that state is replaced by each sample before it is read."""
        for k, r in enumerate(rows.tolist()):
            a = int(actions[k])
            if int(games.state[r, F_PHASE]) == _DISCARD_PHASE and A.DISCARD <= a < A.KNOCK:
                self.last[r] = (games.state[r].copy(), games.pile[r].copy(), a - A.DISCARD)

    def consistent_with(self, r: int, hands: np.ndarray) -> np.ndarray:
        """For each sampled 10-card hand of the opponent: would his model (L2) have thrown
        the card he threw, holding it and that card, with what he saw then? His view and
        legal moves are the engine's own (:func:`~gin_env.fast_game.outputs_kernel`)."""
        st0, pile0, thrown = self.last[r]
        n = len(hands)
        st = np.repeat(st0[None, :], n, axis=0)
        st[:, F_HAND0 + int(st0[F_CUR])] = hands | np.int64(1) << thrown
        pile = np.repeat(pile0[None, :], n, axis=0)
        obs = np.empty((n, OBS_SIZE), np.float32)
        mask = np.empty((n, A.NUM_ACTIONS), np.bool_)
        seat, role = np.empty(n, np.int64), np.empty(n, np.int64)
        outputs_kernel(st, pile, self._cfg, obs, mask, seat, role)
        moves = self.opponent.act(obs, mask)
        return np.asarray(moves == A.DISCARD + thrown)

    def _deal(
        self, st: np.ndarray, pile: np.ndarray, seat: int, r: int = -1
    ) -> tuple[np.ndarray, np.ndarray]:
        """``worlds`` (opponent hand masks, stock orders) consistent with ``seat``'s view of one
        game (``st``, ``pile``: its state row and pile; ``r``: its row in the main table)."""
        opp = 1 - seat
        mine = int(st[F_HAND0 + seat])
        pile_mask = 0
        for c in pile[: int(st[F_PILE_LEN])].tolist():
            pile_mask |= 1 << c
        true_opp = int(st[F_HAND0 + opp])
        known = int(st[F_TOOK0 + opp]) & ~pile_mask & ~mine & FULL
        unseen = FULL & ~mine & ~pile_mask & ~known
        n_hidden = bin(true_opp).count("1") - bin(known).count("1")
        stock_n = 52 - int(st[F_STOCK_POS])
        cards = np.asarray(_cards(unseen), np.int64)
        if len(cards) != n_hidden + stock_n or known & ~true_opp:
            raise RuntimeError("the seat's view does not account for the hidden cards")
        w, k = self.worlds, self.opp_samples
        if self.his_hands is not None:  # his hands given: the stock is the rest, shuffled
            hands = np.asarray(self.his_hands[:w], np.int64)
            if len(hands) != w or any(
                (h & known) != known
                or h & ~(known | unseen)
                or h.bit_count() != n_hidden + known.bit_count()
                for h in hands.tolist()
            ):
                raise RuntimeError("his given hands do not fit the seat's view")
            stocks = np.stack(
                [self.rng.permutation(_cards(unseen & ~h)) for h in hands.tolist()]
            ).astype(np.int64)
            return hands, stocks
        if self.filter_samples and r in self.last:
            f = self.filter_samples
            perms = self.rng.permuted(np.tile(cards, (f, 1)), axis=1)
            hands = np.full(f, known, np.int64)
            for j in range(n_hidden):
                hands |= np.left_shift(1, perms[:, j]).astype(np.int64)
            ok = np.flatnonzero(self.consistent_with(r, hands))
            self.filtered += 1
            self.consistent += len(ok) / f
            if len(ok):  # the worlds drawn from the consistent hands
                pick = ok[self.rng.integers(len(ok), size=w)] if len(ok) < w else ok[:w]
                return hands[pick], perms[pick, n_hidden:]
        perms = self.rng.permuted(np.tile(cards, (w * k, 1)), axis=1)
        hands = np.full(w * k, known, np.int64)
        for j in range(n_hidden):
            hands |= np.left_shift(1, perms[:, j]).astype(np.int64)
        if k > 1:  # of k draws per world, the hand with the least deadwood
            dw = np.array([deadwood_nb(int(h)) for h in hands]).reshape(w, k)
            pick = np.arange(w) * k + dw.argmin(axis=1)
            hands, perms = hands[pick], perms[pick]
        return hands, perms[:, n_hidden:]

    # -- the search -----------------------------------------------------------------------
    def choose(
        self, games: Any, rows: np.ndarray, seats: np.ndarray, legal: np.ndarray, base: np.ndarray
    ) -> np.ndarray:
        """The searcher's move in each of ``rows`` of ``games`` (the main table's
        :class:`~gin_env.fast_game.BatchedGames`), ``seats`` its player there."""
        moves = base.copy()
        hseats = self.hand_seats(games, rows, seats)
        cands = []
        for i, r in enumerate(rows.tolist()):
            st = games.state[r]
            hand = int(st[F_HAND0 + hseats[i]])
            cands.append(self.candidates(int(st[F_PHASE]), hand, legal[i], int(base[i])))
        todo = [i for i, c in enumerate(cands) if len(c) > 1]
        if not todo:
            return moves
        values = self.values(games, rows[todo], seats[todo], [cands[i] for i in todo])
        for i, vals in zip(todo, values, strict=True):
            pick = self.pick(vals)
            self.searched += 1
            if pick > 0:
                moves[i] = cands[i][pick]
                self.overruled += 1
        return moves

    def pick(self, vals: np.ndarray) -> int:
        """The candidate played (0: the base move) from ``[candidates, worlds]`` values:
        the best mean gain over the base move when it exceeds ``margin`` standard errors
        (paired over the worlds)."""
        gains = vals[1:] - vals[0]
        mean = gains.mean(axis=1)
        se = gains.std(axis=1, ddof=1) / np.sqrt(vals.shape[1])
        best = int(np.argmax(mean))
        if mean[best] > 0 and mean[best] > self.margin * se[best]:
            return best + 1
        return 0

    def rollout_view(self, observations: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """What a rollout player sees in rollout ``slots`` (here: the engine's view)."""
        return observations

    @staticmethod
    def hand_seats(games: Any, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The hand's seat (0 or 1) of player ``seats[i]`` in game ``rows[i]``."""
        return (games.state[rows, F_PLAYER0] != seats).astype(np.int64)

    def values(
        self, games: Any, rows: np.ndarray, seats: np.ndarray, cands: list[list[int]]
    ) -> list[np.ndarray]:
        """``[candidates, worlds]`` points of player ``seats[i]`` for each of ``rows``: every
        candidate played in every world dealt by :meth:`_deal`, the hand then played out."""
        w = self.worlds
        hseats = self.hand_seats(games, rows, seats)
        size = sum(w * len(c) for c in cands)
        sim = self._env(size)._impl
        src, first, seat_of, hseat_of = [], [], [], []
        hands_all, stocks_all = [], []
        for i, c in enumerate(cands):
            r = int(rows[i])
            hands, stocks = self._deal(games.state[r], games.pile[r], int(hseats[i]), r)
            self.dealt = (hands, stocks)
            for m in c:
                src.extend([r] * w)
                first.extend([m] * w)
                seat_of.extend([int(seats[i])] * w)
                hseat_of.extend([int(hseats[i])] * w)
                hands_all.append(hands)
                stocks_all.append(stocks)
        src_a = np.asarray(src)
        n = len(src_a)
        sim.state[:n] = games.state[src_a]
        sim.deck[:n] = games.deck[src_a]
        sim.pile[:n] = games.pile[src_a]
        sim.log[:n] = games.log[src_a]
        sim.state[np.arange(n), F_HAND0 + 1 - np.asarray(hseat_of)] = np.concatenate(hands_all)
        if self.scores is not None:  # the match score, as the rollout players see it
            me = np.asarray(seat_of)
            sim.state[np.arange(n), F_SCORE0 + me] = [self.scores[r][0] for r in src]
            sim.state[np.arange(n), F_SCORE0 + 1 - me] = [self.scores[r][1] for r in src]
        # The stock, dealt again: deck[stock_pos:] of each row (one length per game).
        j = 0
        for stocks in stocks_all:
            sim.deck[j : j + len(stocks), 52 - stocks.shape[1] :] = stocks
            j += len(stocks)
        cap = sim.num_envs
        world = np.arange(cap) % w  # every row's candidates are blocks of w worlds
        if self.world_models is None:
            model_of = world % len(self.models)
        else:
            model_of = self.world_models[world]
        active = np.zeros(cap, np.bool_)
        active[:n] = True
        actions = np.zeros(cap, np.int64)
        actions[:n] = first
        points = np.zeros(n)
        player = np.full(cap, -1)
        player[:n] = seat_of
        out = sim.step(actions, active)
        while True:
            over = out["hand_over"] & active
            if over.any():
                idx = np.flatnonzero(over)
                points[idx] = rollout_points(sim.results, idx, player[idx])
                active &= ~over
            if not active.any():
                break
            me_sel = active & (out["seat"] == player)
            actions = np.zeros(cap, np.int64)
            his = [(m, active & ~me_sel & (model_of == j)) for j, m in enumerate(self.models)]
            for pol, sel in [(self.base, me_sel), *his]:
                idx = np.flatnonzero(sel)
                if len(idx):
                    seen = self.rollout_view(out["observation"][idx], idx)
                    actions[idx] = pol.act(seen, out["action_mask"][idx])
            out = sim.step(actions, active)
        values, at = [], 0
        for c in cands:
            values.append(points[at : at + len(c) * w].reshape(len(c), w))
            at += len(c) * w
        return values


class EquitySearch(RolloutSearch):
    """:class:`RolloutSearch` in a match: a rollout's value is the match equity of the
    scores it ends in (``value="equity"``) or its points (``"points"``); the rollout players
    see the match score. ``mixture``: his other models beside ``opponent``, his worlds
    played by each in turn. :meth:`set_context` gives each row's scores and dealer."""

    def __init__(
        self,
        base: HeuristicParams,
        opponent: HeuristicParams,
        table: GinConfig,
        value: str = "equity",
        mixture: tuple[HeuristicParams, ...] | list[HeuristicParams] = (),
        **kw: Any,
    ) -> None:
        super().__init__(base, opponent, table, **kw)
        self.models += [BatchedHeuristic(m, table) for m in mixture]
        check_choice("value", value, VALUES)
        self.value = value
        name = table_name(table)
        if name is None:
            raise ValueError(
                f"match equity needs a named table (agents.tuned.TABLES: {', '.join(TABLES)})"
            )
        target, rule = table.target_score, table.dealer_rule
        equity = match_equity(shipped_outcomes(name), target, rule)
        # By the next dealer (0: me) and the scores: 1 once mine reaches the target, 0 his.
        self.equity = np.zeros((2, target + _REACH, target + _REACH))
        self.equity[:, target:, :] = 1.0
        self.equity[:, :target, :target] = equity
        self.target = target
        # The next dealer (0: me) by this hand's dealer (0: me) and its winner (me, him, none).
        self._next = np.array(
            [[next_dealer(rule, d, w) for w in (0, 1, None)] for d in (0, 1)], np.int64
        )
        self._context: dict[int, tuple[int, int, bool]] = {}

    def set_context(self, rows: np.ndarray, scores: np.ndarray, deals: np.ndarray) -> None:
        """Row ``rows[i]``: the searcher's match score and his (``scores[i]``) and whether the
        searcher deals the hand (``deals[i]``)."""
        self._context = {
            int(r): (int(s[0]), int(s[1]), bool(d))
            for r, s, d in zip(np.asarray(rows).tolist(), scores, deals, strict=True)
        }

    def equity_after(self, points: np.ndarray, mine: int, his: int, i_deal: bool) -> np.ndarray:
        """My match equity after hands that gave me ``points`` (signed) from ``mine`` to
        ``his``, this hand dealt by me when ``i_deal``."""
        x = np.asarray(points, np.int64)
        winner = np.where(x > 0, 0, np.where(x < 0, 1, 2))
        nd = self._next[0 if i_deal else 1, winner]
        return np.asarray(self.equity[nd, mine + np.maximum(x, 0), his + np.maximum(-x, 0)])

    def values(
        self, games: Any, rows: np.ndarray, seats: np.ndarray, cands: list[list[int]]
    ) -> list[np.ndarray]:
        self.scores = {r: (m, h) for r, (m, h, _) in self._context.items()}
        points = super().values(games, rows, seats, cands)
        if self.value == "points":
            return points
        return [
            self.equity_after(p, *self._context[int(r)])
            for r, p in zip(rows.tolist(), points, strict=True)
        ]


# -- the seat's own view ----------------------------------------------------------------------


@dataclass
class _Hand:
    """What the seat remembers of a hand after one of its decisions."""

    role: int
    phase: int
    action: int
    hand: int  # after the action, as far as the seat knows it (a stock draw adds later)
    own_disc: int
    opp_disc: int
    opp_took: int
    stock: int
    turns: int
    pile: list[int]  # the pile in order, after the action
    upcard: int
    my_took: int
    scores: tuple[int, int]  # (mine, his)
    view: ObservedSeat = field(repr=False)


class _OneGame:
    """One game's arrays, as :meth:`RolloutSearch.values` reads a main table's."""

    def __init__(self, state: np.ndarray, pile: np.ndarray) -> None:
        self.state = state[None, :]
        self.pile = pile[None, :]
        self.deck = np.zeros((1, 52), np.int64)
        self.log = np.zeros((1, 64), np.int64)


def _score_of(view: ObservedSeat, role: int, target: int) -> int:
    return int(round(view.scores[role] * target))


def _check_table(table: Any) -> GinTable:
    """``table`` if match-search plays it: a gin table, neither Oklahoma (the knock limit
    comes from an upcard the seat may not have seen) nor Hollywood."""
    if not isinstance(table, GinConfig | ThreeHandedConfig):
        raise ValueError(
            f"match-search plays the gin tables (GinConfig, ThreeHandedConfig); got "
            f"{type(table).__name__}"
        )
    if table.oklahoma:
        raise ValueError(
            "match-search does not play Oklahoma (oklahoma=True): the knock limit comes "
            "from an upcard the seat may not have seen"
        )
    if getattr(table, "hollywood", False):
        raise ValueError("match-search does not play Hollywood scoring (hollywood=True)")
    return table


def _check_sizes(worlds: Any, opp_samples: Any, discards: Any, budget: Any) -> None:
    """The search's sizes and its budget in range, or a ``ValueError`` naming the range."""
    for name, x, lo, hi in (
        ("worlds", worlds, 2, 4096),
        ("opp_samples", opp_samples, 1, 4096),
        ("discards", discards, 1, 52),
    ):
        if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
            raise ValueError(f"{name} must be an integer in {lo}..{hi}, got {x!r}")
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, int | float):
            raise ValueError(f"budget must be seconds (a number) or None, got {budget!r}")
        if not 0 < float(budget) <= 60:
            raise ValueError(f"budget must be in (0, 60] seconds, got {budget!r}")


def _value_for(value: str | None, named: str | None) -> str:
    """What the search values: ``equity`` where a match-equity table is shipped for the
    named two-player table ``named``, else ``points`` (None: the default for the table)."""
    if value is None:
        value = "equity" if named is not None else "points"
    check_choice("value", value, VALUES)
    if value == "equity" and named is None:
        raise ValueError(
            "value='equity' needs a named two-player table (agents.tuned.TABLES: "
            f"{', '.join(TABLES)}); use value='points' here"
        )
    return value


def _searcher(
    base: Any, his: list[Any], hand_table: GinConfig, value: str, kw: dict[str, Any]
) -> RolloutSearch:
    """The rollout search for ``value``, playing ``base`` against the models ``his`` (the
    first his main model, the others a mixture)."""
    if value == "equity":
        return EquitySearch(base, his[0], hand_table, value=value, mixture=his[1:], **kw)
    search = RolloutSearch(base, his[0], hand_table, **kw)
    search.models += [BatchedHeuristic(m, hand_table) for m in his[1:]]
    return search


def _warm_up(search: RolloutSearch) -> None:
    """Build the rollout tables a search may need and load the compiled players and
    kernels it calls: the first of a process costs about half a second, which a decision
    within its budget cannot pay."""
    for size in (64, 128, 256):
        search._env(size)
    out = search._env(64)._impl.outputs()
    for pol in [search.base, *search.models]:
        pol.act(out["observation"][:2], out["action_mask"][:2])
    discard_deadwoods_nb(int(search._env(64)._impl.state[0, F_HAND0]), search._scratch)
    deadwood_nb(0)


class SeatSearch:
    """The search of :class:`EquitySearch` as an agent: ``act(observation, rng) -> int``.

    ``table``: a gin table (two-player or three-handed; Oklahoma is refused: the knock
    limit depends on an upcard the seat may not have seen). ``base``: the searcher's own
    player, a style name (``tuned``: the set shipped for the table, the default where one
    is; else ``L2``). ``model``: his model: a style, ``+``-joined styles (a mixture), or
    ``posterior`` (learnt in the match over ``pool``, a ``+``-joined list of styles).
    ``worlds``, ``margin``, ``opp_samples``, ``decisions``, ``discards``: the search's;
    ``value``: ``equity`` (named two-player tables only) or ``points``; ``budget``: seconds a
    decision (None: always ``worlds`` worlds, reproducible); ``seed``: the worlds' draws.
    """

    name = "match-search"

    def __init__(
        self,
        table: GinTable | None = None,
        base: str = "tuned",
        model: str = "L2",
        pool: str = "+".join(POOL),
        worlds: int = 32,
        margin: float = 2.0,
        opp_samples: int = 64,
        decisions: str = "knock",
        discards: int = 3,
        value: str | None = None,
        budget: float | None = None,
        hands: str = "least-deadwood",
        seed: int | None = None,
        particles: int = 32,
    ) -> None:
        table = _check_table(GinConfig() if table is None else table)
        _check_sizes(worlds, opp_samples, discards, budget)
        self.table = table
        three = isinstance(table, ThreeHandedConfig)
        # The rollouts play the hand's rules on the two-player engine (the three-handed
        # hand is the captain's against the box).
        hand_table = (
            GinConfig(**rules_dict(table)) if isinstance(table, ThreeHandedConfig) else table
        )
        value = _value_for(value, None if three else table_name(hand_table))
        base_name = base
        if base == "tuned" and table_name(hand_table) is None:
            base_name = "L2"  # no set tuned for this table: L2 itself
        self.base_params = style_params(base_name, hand_table)
        self.model = model
        self.posterior: StylePosterior | None = None
        if model == "posterior":
            styles = pool_params(pool, hand_table)
            self.posterior = StylePosterior(styles, hand_table, particles=particles, seed=seed)
            his = list(styles.values())
        else:
            his = list(pool_params(model, hand_table).values())
        kw: dict[str, Any] = {
            "worlds": worlds,
            "discards": discards,
            "margin": margin,
            "opp_samples": opp_samples,
            "decisions": decisions,
            "seed": 0 if seed is None else seed,
        }
        self.search = _searcher(self.base_params, his, hand_table, value, kw)
        if seed is None:
            self.search.rng = np.random.default_rng()
        self.value = value
        self.worlds = worlds
        check_choice("hands", hands, HANDS)
        if hands == "posterior" and self.posterior is None:
            raise ValueError("hands='posterior' needs model='posterior' (its particles)")
        self.hands = hands
        self.budget = None if budget is None else float(budget)
        self.hand_table = hand_table
        self.three = three
        self.target = table.target_score
        self._cfg = config_vector(hand_table, EnvOptions(episode="hand"))[0]
        self._memory: dict[tuple[int, int, int], _Hand] = {}
        self._last_scores: tuple[int, int] | None = None
        #: Seconds per rollout slot (a candidate in a world), measured.
        self._slot_s = 0.0
        #: Per decision: seconds spent (the last 10,000), for the cost report.
        self.seconds: list[float] = []
        if self.budget is not None:
            _warm_up(self.search)
        #: The last decision's worlds (what the no-leak test reads): (his hands, stocks).
        self.last_worlds: tuple[np.ndarray, np.ndarray] | None = None

    def __repr__(self) -> str:
        return (
            f"SeatSearch(model={self.model!r}, worlds={self.worlds}, margin="
            f"{self.search.margin}, value={self.value!r}, budget={self.budget})"
        )

    # -- the hand as the seat saw it -------------------------------------------------------
    def _recall(self, view: ObservedSeat) -> _Hand | None:
        """The seat's memory of its previous decision in this hand, if it has one: kept by
        its role, its hand after the move and its discards (games that share all three, in a
        batch, are the same hand so far)."""
        keys = [view.hand]
        if view.phase == PHASE_DISCARD:  # a card was drawn since
            keys += [view.hand & ~(1 << c) for c in _cards(view.hand)]
        for k in keys:
            got = self._memory.get((view.role, k, view.own_discarded))
            if (
                got is not None
                and 0 <= got.stock - view.stock_size <= 1
                and got.opp_disc & ~view.opponent_discarded == 0
            ):
                return got
        return None

    def _remember(self, h: _Hand) -> None:
        memory = self._memory
        key = (h.role, h.hand, h.own_disc)
        memory.pop(key, None)
        memory[key] = h
        while len(memory) > 8192:
            del memory[next(iter(memory))]  # the oldest

    @staticmethod
    def _pile_order(view: ObservedSeat, prev: _Hand | None) -> list[int]:
        """The pile in order (bottom first): the remembered order, less the cards taken
        since, with the cards thrown since on top; without a memory the buried cards in
        increasing order (their order is not in the observation)."""
        pile = view.discard_pile
        top = view.top_discard
        if prev is not None:
            order = [c for c in prev.pile if pile >> c & 1]
            seen = set(order)
            new = [c for c in _cards(pile) if c not in seen and c != top]
            if top >= 0 and top not in seen:
                new.append(top)
            order += new
            if (top < 0 and not order) or (order and order[-1] == top):
                return order
        buried = [c for c in _cards(pile) if c != top]
        return buried + ([top] if top >= 0 else [])

    def _upcard(self, view: ObservedSeat, prev: _Hand | None, pile: list[int]) -> int:
        """The hand's upcard when the seat knows it, else a card whose place it knows (the
        engine reads the upcard only to tell the pile's cards)."""
        if prev is not None and prev.upcard >= 0:
            return prev.upcard
        if view.phase in _DRAW_PHASES[:2]:
            return view.top_discard
        never = (view.discard_pile | view.opponent_took) & ~(
            view.own_discarded | view.opponent_discarded
        )
        if never.bit_count() == 1:
            return never.bit_length() - 1
        if view.stock_size == FULL_STOCK and view.phase == PHASE_DRAW and pile:
            return pile[0]
        return -1

    # -- the one-game table ----------------------------------------------------------------
    def _row(
        self,
        me: int,
        my_hand: int,
        his_hand: int,
        pile: list[int],
        stock: int,
        took: tuple[int, int],
        disc: tuple[int, int],
        phase: int,
        cur: int,
        taken: int,
        must_draw: bool,
        turns: int,
        scores: tuple[int, int],
        upcard: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """A state row of the engine for one hand: seat ``me`` (0 the non-dealer, 1 the
        dealer) holds ``my_hand`` and the other ``his_hand``; ``took``, ``disc`` and
        ``scores`` are (mine, his)."""
        st = np.zeros(NUM_FIELDS, np.int64)
        pl = np.zeros(52, np.int64)
        he = 1 - me
        st[F_HAND0 + me], st[F_HAND0 + he] = my_hand, his_hand
        st[F_STOCK_POS] = 52 - stock
        st[F_PILE_LEN] = len(pile)
        pl[: len(pile)] = pile
        if upcard < 0:  # any card whose place is known tells the pile alike
            upcard = pile[0] if pile else (my_hand & -my_hand).bit_length() - 1
        st[F_UPCARD] = upcard
        st[F_PHASE], st[F_CUR] = phase, cur
        st[F_TAKEN] = taken
        st[F_MUST_DRAW] = int(must_draw)
        st[F_TURNS] = turns
        st[F_TOOK0 + me], st[F_TOOK0 + he] = took
        st[F_DISC0 + me], st[F_DISC0 + he] = disc
        st[F_LIMIT] = self.hand_table.knock_limit
        st[F_MULT] = 1
        st[F_PLAYER0], st[F_PLAYER0 + 1] = 0, 1  # player p sits at seat p
        st[F_ROLE0], st[F_ROLE0 + 1] = NONDEALER, DEALER
        st[F_DEALER] = 1
        st[F_SCORE0 + me], st[F_SCORE0 + he] = scores
        st[F_HANDS] = 1
        st[F_SUGGESTION] = -1
        st[F_RES_KIND] = st[F_RES_WINNER] = st[F_RES_KNOCKER] = -1
        return st, pl

    # -- his moves, for the posterior ------------------------------------------------------
    def _his_moves(self, view: ObservedSeat, prev: _Hand) -> None:
        """Score his moves between the seat's previous decision and this one."""
        post = self.posterior
        assert post is not None
        me = 1 if prev.role == DEALER else 0
        he = 1 - me
        x = view.top_discard
        threw = x >= 0 and bool(view.opponent_discarded >> x & 1) and not prev.opp_disc >> x & 1
        if prev.phase == PHASE_DISCARD and A.DISCARD <= prev.action < A.KNOCK:
            d = prev.action - A.DISCARD
            took_d = bool(view.opponent_took >> d & 1) and not prev.opp_took >> d & 1
            pile0 = prev.pile  # with d on top
            free = FULL & ~(prev.hand | _mask(pile0) | prev.opp_took)
            st, pl = self._row(
                me, prev.hand, 0, pile0, prev.stock, (prev.my_took, prev.opp_took),
                (prev.own_disc, prev.opp_disc), PHASE_DRAW, he, -1, False, prev.turns,
                prev.scores, prev.upcard,
            )  # fmt: skip
            post.observe(st, pl, A.TAKE_DISCARD if took_d else A.DRAW_STOCK, prev.opp_took, free)
            if took_d:
                post.took(d)
            else:
                post.drew(free, x if threw else -1)
            if threw:
                self._his_discard(view, prev, pile0[:-1] if took_d else pile0,
                                  d if took_d else -1, x, me)  # fmt: skip
            return
        if prev.phase == PHASE_UPCARD_NONDEALER and prev.action == A.PASS:
            up = prev.view.top_discard
            took_up = bool(view.opponent_took >> up & 1)
            free = FULL & ~(prev.hand | (1 << up))
            st, pl = self._row(
                me, prev.hand, 0, [up], prev.stock, (0, 0), (0, 0), PHASE_UPCARD_DEALER,
                he, -1, False, 0, prev.scores, up,
            )  # fmt: skip
            post.observe(st, pl, A.TAKE_DISCARD if took_up else A.PASS, 0, free)
            if took_up:
                post.took(up)
                if threw:
                    self._his_discard(view, prev, [], up, x, me)

    def _his_discard(
        self, view: ObservedSeat, prev: _Hand, pile: list[int], taken: int, x: int, me: int
    ) -> None:
        """Score his discard of ``x`` (not a knock: the hand went on) after his draw."""
        post = self.posterior
        assert post is not None
        known = (view.opponent_took | (1 << x)) & FULL
        my_hand = view.hand  # the seat has not drawn yet
        free = FULL & ~(my_hand | _mask(pile) | known)
        st, pl = self._row(
            me, my_hand, 0, pile, view.stock_size, (prev.my_took & my_hand, known),
            (view.own_discarded, view.opponent_discarded & ~(1 << x)), PHASE_DISCARD, 1 - me,
            taken, False, prev.turns, prev.scores, prev.upcard,
        )  # fmt: skip
        post.observe(st, pl, A.DISCARD + x, known, free)
        post.threw(x)

    def _his_knock(self, scores: tuple[int, int]) -> None:
        """At a new hand: score his knock if the last one ended by it (someone scored, the
        seat did not knock, and the seat's last move was a discard he answered)."""
        prev = self._ended
        post = self.posterior
        if prev is None or post is None or scores == prev.scores:
            return
        if not (prev.phase == PHASE_DISCARD and A.DISCARD <= prev.action < A.KNOCK):
            return
        me = 1 if prev.role == DEALER else 0
        free = FULL & ~(prev.hand | _mask(prev.pile) | prev.opp_took)
        post.drew(free)  # his draw is not seen: taken as from the stock
        st, pl = self._row(
            me, prev.hand, 0, prev.pile, prev.stock - 1, (prev.my_took, prev.opp_took),
            (prev.own_disc, prev.opp_disc), PHASE_DISCARD, 1 - me, -1, False, prev.turns,
            prev.scores, prev.upcard,
        )  # fmt: skip
        post.observe(st, pl, ANY_KNOCK, prev.opp_took, free)

    # -- deciding --------------------------------------------------------------------------
    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        t0 = time.perf_counter()
        try:
            return self._act(observation)
        finally:
            self.seconds.append(time.perf_counter() - t0)
            if len(self.seconds) > 10_000:
                del self.seconds[:5_000]

    def _act(self, observation: dict[str, np.ndarray]) -> int:
        view = decode(observation)
        obs = np.asarray(observation["observation"], np.float32)[:OBS_SIZE]
        if view.advising and view.hand.bit_count() not in (10, 11):
            return A.NO_ADVICE if A.NO_ADVICE in view.legal else view.legal[0]
        legal_moves = game_actions(view.legal)
        game_mask = np.zeros(A.NUM_ACTIONS, np.bool_)
        game_mask[legal_moves] = True
        base = int(self.search.base.act(obs[None, :], game_mask[None, :])[0])
        if view.phase not in (PHASE_DISCARD, *_DRAW_PHASES):
            return base
        # Roles: two-player gin DEALER/NONDEALER; three-handed the box against the captain
        # (the adviser sees the captain's seat).
        dealer = view.role == DEALER if not self.three else view.role == ROLE_BOX
        role = DEALER if dealer else NONDEALER
        me = 1 if dealer else 0
        scores = (0, 0)
        if not self.three:
            scores = (
                _score_of(view, view.role, self.target),
                _score_of(view, 1 - view.role, self.target),
            )
            if self._last_scores is not None and (
                scores[0] < self._last_scores[0] or scores[1] < self._last_scores[1]
            ):
                self._new_match()
            self._last_scores = scores
        prev = self._recall(_with_role(view, role))
        pile = self._pile_order(view, prev)
        upcard = self._upcard(view, prev, pile)
        if self.posterior is not None:
            if prev is not None:
                self._his_moves(view, prev)
            elif view.stock_size == FULL_STOCK or not self.posterior.particles[0].size:
                self._his_knock(scores)  # the last hand's end, then this hand's deal
                unseen = FULL & ~(view.known | view.own_discarded | view.opponent_discarded)
                self.posterior.new_hand(view.opponent_took, unseen | view.opponent_took)
        my_took = view.hand & (view.opponent_discarded | ((1 << upcard) if upcard >= 0 else 0))
        turns = int(round(float(obs[OBS_SLICES["turn"].start]) * self.table.max_turns_per_hand))
        move = self._decide(view, role, me, base, game_mask, pile, upcard, my_took, turns, scores)
        self._after(view, role, move, pile, upcard, my_took, turns, scores)
        return move

    def _new_match(self) -> None:
        # The hands' memory stays: it is keyed by hand, and a batch of games shares it.
        self._ended = None
        if self.posterior is not None:
            self.posterior.reset()

    def _decide(
        self,
        view: ObservedSeat,
        role: int,
        me: int,
        base: int,
        game_mask: np.ndarray,
        pile: list[int],
        upcard: int,
        my_took: int,
        turns: int,
        scores: tuple[int, int],
    ) -> int:
        search = self.search
        cands = search.candidates(view.phase, view.hand, game_mask, base)
        sugg = view.suggestion
        if len(cands) > 1 and sugg >= 0 and sugg != A.NO_ADVICE and game_mask[sugg]:
            if sugg not in cands:  # the captain weighs the adviser's suggestion too
                cands.append(sugg)
        if len(cands) < 2:
            return base
        hidden = 10 - view.opponent_took.bit_count()
        unseen = _cards(FULL & ~view.known)
        if hidden < 0 or len(unseen) != hidden + view.stock_size:
            return base  # a view that does not describe one hand
        filler = 0
        for c in unseen[:hidden]:
            filler |= 1 << c
        taken = -1
        if view.phase == PHASE_DISCARD:
            taken = banned_card(view.hand, view.legal)
        must_draw = view.phase == PHASE_DRAW and not game_mask[A.TAKE_DISCARD]
        st, pl = self._row(
            me, view.hand, view.opponent_took | filler, pile, view.stock_size,
            (my_took, view.opponent_took), (view.own_discarded, view.opponent_discarded),
            view.phase, me, taken, must_draw, turns, scores, upcard,
        )  # fmt: skip
        games = _OneGame(st, pl)
        self._plan(len(cands))
        if isinstance(search, EquitySearch):
            search.set_context(np.array([0]), np.array([scores]), np.array([role == DEALER]))
        if self.posterior is not None:
            self._posterior_worlds(view)
        t0 = time.perf_counter()
        vals = search.values(games, np.array([0]), np.array([me]), [cands])[0]
        self._slot_s = 0.5 * self._slot_s + 0.5 * (time.perf_counter() - t0) / vals.size
        self.last_worlds = search.dealt
        search.searched += 1
        pick = search.pick(vals)
        if pick > 0:
            search.overruled += 1
        return int(cands[pick])

    #: The seat's last decision (the hand it ended in, if he ended it), for the posterior.
    _ended: _Hand | None = None

    def _plan(self, n_cands: int) -> None:
        """The worlds of this decision: ``worlds``, fewer when the time budget would not
        hold them (from the measured time of a rollout)."""
        w = self.worlds
        if self.budget is not None and self._slot_s > 0:
            # Half the budget for the rollouts: the rest is the base move, the posterior
            # and the worlds' deal.
            fit = int(0.5 * self.budget / (self._slot_s * n_cands))
            w = max(2, min(w, fit))
        self.search.worlds = w

    def _posterior_worlds(self, view: ObservedSeat) -> None:
        """His worlds played by the pool's styles in proportion to the posterior; with
        ``hands="posterior"`` his hands in them drawn from those styles' particles."""
        post = self.posterior
        assert post is not None
        w = self.search.worlds
        if self.hands == "posterior":
            known = view.opponent_took
            hands, styles = post.hands(w, known, FULL & ~view.known | known)
            self.search.his_hands = hands
            self.search.world_models = styles
            return
        p = post.weights()
        counts = np.floor(p * w).astype(np.int64)
        rest = w - int(counts.sum())
        if rest > 0:
            counts[np.argsort(-(p * w - counts))[:rest]] += 1
        self.search.world_models = np.repeat(np.arange(len(p)), counts)
        self.search.his_hands = None

    def _after(
        self,
        view: ObservedSeat,
        role: int,
        move: int,
        pile: list[int],
        upcard: int,
        my_took: int,
        turns: int,
        scores: tuple[int, int],
    ) -> None:
        """Remember the hand after this move (for the next decision in it)."""
        hand, own_disc, order = view.hand, view.own_discarded, list(pile)
        if move == A.TAKE_DISCARD and order:
            hand |= 1 << order.pop()
            my_took |= hand & (1 << view.top_discard)
        elif A.DISCARD <= move < A.BIG_GIN:
            if move >= A.KNOCK:
                self._ended = None
                return  # the hand ends
            c = move - A.DISCARD
            hand &= ~(1 << c)
            own_disc |= 1 << c
            my_took &= ~(1 << c)
            order.append(c)
            turns += 1
        elif move == A.BIG_GIN:
            self._ended = None
            return
        self._ended = _Hand(
                role=role, phase=view.phase, action=move, hand=hand, own_disc=own_disc,
                opp_disc=view.opponent_discarded, opp_took=view.opponent_took,
                stock=view.stock_size, turns=turns, pile=order, upcard=upcard,
                my_took=my_took, scores=scores, view=view,
        )  # fmt: skip
        self._remember(self._ended)


def _mask(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _with_role(view: ObservedSeat, role: int) -> ObservedSeat:
    return view if view.role == role else replace(view, role=role)


#: ``best``'s settings by table name (chosen on the selection seed: docs/best.md).
BEST_SETTINGS: dict[str, dict[str, Any]] = {
    "eaai": {
        "model": "L2+tuned",
        "worlds": 32,
        "margin": 2.0,
        "opp_samples": 64,
        "decisions": "knock",
        "value": "equity",
    },
    "default": {
        "model": "L2+tuned",
        "worlds": 32,
        "margin": 2.0,
        "opp_samples": 64,
        "decisions": "knock",
        "value": "equity",
    },
    "openspiel": {
        "model": "L2+tuned",
        "worlds": 32,
        "margin": 2.0,
        "opp_samples": 64,
        "decisions": "knock",
        "value": "points",
    },
}


def best(table: GinTable | None = None, budget: float = 0.5, **options: Any) -> SeatSearch:
    """``best``: the project's strongest player at ``table`` (a named table's rules:
    :data:`BEST_SETTINGS`; the three-handed game at a named table's hand rules too), its
    per-decision time ``budget`` in seconds (default 0.5); ``options`` override a setting.
    At a table it was not built for it is a ValueError naming the tables it knows."""
    table = GinConfig() if table is None else table
    hand = GinConfig(**rules_dict(table)) if isinstance(table, ThreeHandedConfig) else table
    name = table_name(hand) if isinstance(hand, GinConfig) else None
    if name not in BEST_SETTINGS or getattr(table, "oklahoma", False):
        known = ", ".join(f"{n} ({_describe_table(n)})" for n in BEST_SETTINGS)
        raise ValueError(
            f"agent 'best' was not built for this table; it knows the tables {known} "
            "(two-player, or three-handed at their hand rules)"
        )
    settings = dict(BEST_SETTINGS[name])
    if isinstance(table, ThreeHandedConfig):
        # His side changes with the roles (the box, or the captain and his adviser): a
        # fixed mixture rather than a posterior over one opponent; the hand's points.
        settings.update(model="L2+tuned", value="points")
    settings.update(options)
    return SeatSearch(table, budget=budget, **settings)


def _describe_table(name: str) -> str:
    t = TABLES[name]
    return f"undercut {t.undercut_bonus}, gin {t.gin_bonus}, knock {t.knock_limit}"
