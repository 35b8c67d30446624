"""Rollout search on the compiled engine: is a one-step improvement of L3 worth a point a hand?

L4 (:mod:`agents.search`) plays its rollouts in Python, 40 worlds a decision at 0.1 s, and
scored +0.54 [-0.08, +1.16] against L2; the same search with L2 itself playing the rollouts
was too slow to measure well (-0.36 +/- 1.13 over 300 pairs). This study plays that search
on the batched engine, where a rollout costs what a compiled L2 move costs, with many more
worlds:

1. at each of the searcher's decisions with a real choice (take or draw; the discard or
   knock), the candidates are its base player's move (L3 ``tuned`` for the table, or any
   L2 parameter set), every other draw choice, the discards that leave the least deadwood
   and the least-deadwood knock;
2. ``worlds`` worlds are dealt from what its seat knows: the game's public state as it
   stands (the pile, the cards the opponent took and still holds, the counts), the
   seat's own hand, and the unseen cards dealt again (the opponent's hidden cards and the
   stock, shuffled; with ``--opp-samples k`` the opponent gets, of ``k`` draws, the hand
   with the least deadwood, as L4 does): the true hidden cards are overwritten in every
   world, so the search learns nothing the seat could not;
3. every candidate is played in every world (common random numbers), both sides then
   playing on by their policies: the searcher's base player for its seat, L2 (the
   opponent's true policy, which the search is told: an opponent model) for the other;
4. the candidate with the best mean gain over the base move is played when that gain
   exceeds ``margin`` standard errors (paired over the worlds); otherwise the base move.

Figures are duplicate pairs against L2 on the deals of :func:`gin_eval.gin.deal_deck`
(the same deals as ``gin-rummy eval gin``), both cores::

    python -m studies.rollout_search --pairs 400 --seed 0 --worlds 32 --margin 1 --workers 2

One JSON line is printed (and written under ``--out``): points per hand against L2 with
its 95% CI, the base player's own points on the same deals (paired: the difference and its
CI), how often the search overruled the base move, and the wall time.
"""

from __future__ import annotations

import argparse
import json
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents.batched import batched_form
from agents.heuristic import HeuristicAgent, HeuristicParams
from agents.tuned import load_sets
from gin_env import actions as A
from gin_env.config import GinConfig, table_options
from gin_env.encoding import OBS_SIZE
from gin_env.fast_game import (
    F_CUR,
    F_HAND0,
    F_PHASE,
    F_PILE_LEN,
    F_PLAYER0,
    F_STOCK_POS,
    F_TOOK0,
    config_vector,
    outputs_kernel,
)
from gin_env.fast_melds import deadwood_nb, discard_deadwoods_nb
from gin_env.gin_aec import EnvOptions
from gin_env.hand import Phase
from gin_env.vector import VectorGinEnv
from gin_eval.gin import deal_deck, play_duplicate_batched, signed_points
from gin_eval.pool import pool_map
from gin_eval.stats import mean_ci
from gin_eval.writer import write_json

__all__ = ["Search", "play_pairs", "add_search_arguments", "search_options", "main"]

_DRAW_PHASES = (int(Phase.UPCARD_NONDEALER), int(Phase.UPCARD_DEALER), int(Phase.DRAW))
_DISCARD_PHASE = int(Phase.DISCARD)
FULL = (1 << 52) - 1


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def base_params(name: str) -> HeuristicParams:
    """``"tuned"``: the shipped set for the default table; ``"L2"``: L2's defaults."""
    if name == "L2":
        return HeuristicParams()
    sets = load_sets()
    if name != "tuned" or "default" not in sets:
        raise ValueError(f"base must be 'tuned' or 'L2', got {name!r}")
    return HeuristicParams(**sets["default"]["params"])


class Search:
    """The rollout search of the module docstring, at one ``table``."""

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
        self.base = batched_form(HeuristicAgent(base, rules=table))
        self.opponent = batched_form(HeuristicAgent(opponent, rules=table))
        #: His policies in the rollouts, world ``j`` played by ``models[j % len(models)]``
        #: (one: his model; several: a mixture, for an opponent the search does not know).
        self.models = [self.opponent]
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
        self.decisions = set(decisions.split("+"))
        if not self.decisions <= allowed:
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

    # -- candidates ------------------------------------------------------------------------
    def candidates(self, phase: int, hand: int, legal: np.ndarray, base_move: int) -> list[int]:
        """The base move first, then the alternatives worth a rollout."""
        moves = np.flatnonzero(legal).tolist()
        if phase in _DRAW_PHASES:
            if "draw" not in self.decisions:
                return [base_move]
            return [base_move] + [m for m in moves if m != base_move]
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
            gains = vals[1:] - vals[0]
            mean = gains.mean(axis=1)
            se = gains.std(axis=1, ddof=1) / np.sqrt(vals.shape[1])
            best = int(np.argmax(mean))
            self.searched += 1
            if mean[best] > 0 and mean[best] > self.margin * se[best]:
                moves[i] = cands[i][best + 1]
                self.overruled += 1
        return moves

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
        # The stock, dealt again: deck[stock_pos:] of each row (one length per game).
        j = 0
        for stocks in stocks_all:
            sim.deck[j : j + len(stocks), 52 - stocks.shape[1] :] = stocks
            j += len(stocks)
        cap = sim.num_envs
        world = np.arange(cap) % w  # every row's candidates are blocks of w worlds
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
                points[idx] = signed_points(sim.results, idx, player[idx])
                active &= ~over
            if not active.any():
                break
            me = active & (out["seat"] == player)
            actions = np.zeros(cap, np.int64)
            his = [
                (m, active & ~me & (world % len(self.models) == j))
                for j, m in enumerate(self.models)
            ]
            for pol, sel in [(self.base, me), *his]:
                idx = np.flatnonzero(sel)
                if len(idx):
                    view = self.rollout_view(out["observation"][idx], idx)
                    actions[idx] = pol.act(view, out["action_mask"][idx])
            out = sim.step(actions, active)
        values, at = [], 0
        for c in cands:
            values.append(points[at : at + len(c) * w].reshape(len(c), w))
            at += len(c) * w
        return values


def _table_moves(
    search: Search,
    searching: bool,
    out: dict[str, np.ndarray],
    active: np.ndarray,
    a_player: np.ndarray,
    games: Any,
) -> np.ndarray:
    """One step of :func:`play_pairs`: L2 for the opponent, the base player (overruled by
    the search when ``searching``) for A."""
    me = active & (out["seat"] == a_player)
    actions = np.zeros(len(me), np.int64)
    idx = np.flatnonzero(active & ~me)
    if len(idx):
        actions[idx] = search.opponent.act(out["observation"][idx], out["action_mask"][idx])
        if searching and search.filter_samples:
            search.record(games, idx, actions[idx])
    idx = np.flatnonzero(me)
    if len(idx):
        moves = search.base.act(out["observation"][idx], out["action_mask"][idx])
        if searching:
            moves = search.choose(games, idx, a_player[idx], out["action_mask"][idx], moves)
        actions[idx] = moves
    return actions


def play_pairs(
    search_kw: dict[str, Any], base: str, seed: int, start: int, pairs: int
) -> dict[str, Any]:
    """Deals ``start .. start + pairs`` of ``seed``: the searcher and, on the same deals, its
    base player, each against L2 in both seats; points per deal (mean of its two hands)."""
    table: GinConfig = search_kw["table"]
    bp = base_params(base)
    search = Search(bp, HeuristicParams(), seed=seed * 1_000_003 + start, **search_kw)
    decks = np.asarray([deal_deck(seed, start + d) for d in range(pairs)])
    result: dict[str, Any] = {}
    for arm in ("search", "base"):
        act = partial(_table_moves, search, arm == "search")
        points = play_duplicate_batched(decks, table, act)
        result[arm] = points.reshape(pairs, 2).mean(axis=1).tolist()
    result["filtered"] = search.filtered
    result["consistent"] = search.consistent
    result["searched"] = search.searched
    result["overruled"] = search.overruled
    return result


def add_search_arguments(
    parser: argparse.ArgumentParser, pairs: int, worlds: int, decisions: str
) -> None:
    """The flags of the search and its run (this study's and ``studies.match_search``'s):
    :func:`search_options` reads the search's."""
    parser.add_argument("--pairs", type=int, default=pairs)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worlds", type=int, default=worlds)
    parser.add_argument("--discards", type=int, default=3)
    parser.add_argument("--margin", type=float, default=1.0)
    parser.add_argument(
        "--opp-samples",
        type=int,
        default=1,
        help="hands drawn for him a world (least deadwood kept)",
    )
    parser.add_argument("--filter", type=int, default=0, help="hands drawn for the filter (0: off)")
    parser.add_argument("--decisions", default=decisions)
    parser.add_argument("--block", type=int, default=50, help="pairs per job")
    parser.add_argument("--workers", type=int, default=1)


def search_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`Search` options of the flags of :func:`add_search_arguments`."""
    return {
        "worlds": args.worlds,
        "discards": args.discards,
        "margin": args.margin,
        "opp_samples": args.opp_samples,
        "filter_samples": args.filter,
        "decisions": args.decisions,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        prog="python -m studies.rollout_search", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--base", default="tuned", choices=("tuned", "L2"))
    add_search_arguments(parser, pairs=400, worlds=32, decisions="draw+discard")
    parser.add_argument("--out", default="runs/rollout_search")
    a = parser.parse_args(argv)
    kw = {"table": GinConfig(), **search_options(a)}
    t0 = time.time()
    jobs = [(kw, a.base, a.seed, s, min(a.block, a.pairs - s)) for s in range(0, a.pairs, a.block)]
    parts = pool_map(play_pairs, jobs, a.workers)
    search = [x for p in parts for x in p["search"]]
    base = [x for p in parts for x in p["base"]]
    diff = [s - b for s, b in zip(search, base, strict=True)]

    def fig(xs: list[float]) -> dict[str, Any]:
        m, lo, hi = mean_ci(xs)
        return {"points_per_hand": round(m, 3), "ci95": [round(lo, 3), round(hi, 3)]}

    searched = sum(p["searched"] for p in parts)
    overruled = sum(p["overruled"] for p in parts)
    row = {
        "study": "rollout_search",
        "args": vars(a),
        "vs_L2": fig(search),
        "base_vs_L2": fig(base),
        "search_minus_base": fig(diff),
        "searched_decisions": searched,
        "overruled": overruled,
        "overruled_share": round(overruled / max(1, searched), 4),
        "consistent_share": round(
            sum(p["consistent"] for p in parts) / max(1, sum(p["filtered"] for p in parts)), 4
        ),
        "wall_s": round(time.time() - t0, 1),
    }
    print(json.dumps(row))
    name = (
        f"w{a.worlds}_m{a.margin}_k{a.opp_samples}_f{a.filter}_{a.decisions}_{a.base}"
        f"_s{a.seed}_p{a.pairs}.json"
    )
    write_json(Path(a.out) / name, {**row, "per_deal": {"search": search, "base": base}}, [a.seed])
    return row


if __name__ == "__main__":
    main()
