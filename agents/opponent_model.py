"""A model of the opponent that learns during the match: a posterior over a pool of styles,
and over the hands he holds under each.

The styles are players of L2's family (:class:`~agents.heuristic.HeuristicParams`), each a
way he may play: L2 itself, the ``tuned`` sets shipped for the named tables, ``gin-only``
(knocks only with gin) and ``knock-early`` (knocks with deadwood in his first turns only,
then plays for gin, as the EAAI-21 champion is described to play). :data:`STYLES` holds
them by name; :func:`style_params` reads a name (``tuned``: the set for the table).

:class:`StylePosterior` keeps, for each style of a pool, its log posterior and a set of
``particles``: hands he may hold if he plays that style (a sequential Monte Carlo filter).
At the deal his hand is a uniform draw of the cards the seat has not seen, so each style's
particles start as such draws. Then, at each of his moves (take or draw, pass, the card he
throws, the knock that ends a hand):

- the particles that hold a card the seat has since seen elsewhere, or lack a card he is
  known to hold, are dealt again (the seat's knowledge is the same for every style);
- the likelihood of the move under a style is the share of its particles in which the style
  plays it (his view and legal moves the engine's own, the style's move the compiled L2's,
  :class:`~agents.heuristic_batched.BatchedHeuristic`), mixed with a uniform choice over
  his legal moves (``epsilon``: a style is a model, and no model plays his every move);
  the style's log posterior adds its log;
- the style's particles are drawn again from those in which it plays the move: the hands
  that style would have played so, carried on (his draw from the stock: a card he could
  have drawn; the card he took; the card he threw).

So the posterior weighs the styles by every move he has made in the match, and each style
has the hands he likely holds if it is his (:meth:`StylePosterior.hands`: what the search
deals his worlds' hands from).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from agents.heuristic import HeuristicParams
from agents.heuristic_batched import BatchedHeuristic
from agents.tuned import load_sets, table_name
from gin_env import actions as A
from gin_env.config import GinConfig, check_real
from gin_env.encoding import OBS_SIZE
from gin_env.fast_game import F_CUR, F_HAND0, config_vector, outputs_kernel
from gin_env.gin_aec import EnvOptions

__all__ = ["ANY_KNOCK", "STYLES", "POOL", "style_params", "pool_params", "StylePosterior"]

FULL = (1 << 52) - 1

#: The styles of L2's family by name (``tuned-<table>``: the set shipped for that table).
STYLES: dict[str, HeuristicParams] = {
    "L2": HeuristicParams(),
    "gin-only": HeuristicParams(knock_early=0, knock_late=0),
    # The knock threshold 10 with a full stock, about 5 after three turns, 0 from half
    # the stock on: knocks with deadwood early only, then plays for gin.
    "knock-early": HeuristicParams(knock_early=10, knock_late=0, knock_bend=-5.0),
}
for _name, _set in load_sets().items():
    STYLES[f"tuned-{_name}"] = HeuristicParams(**_set["params"])
#: The move "a knock or gin, with any card" (a hand he ended, whose last card is not seen).
ANY_KNOCK = -1
#: The pool the posterior of ``best`` is over, by default (the others are held out).
POOL = ("L2", "tuned-eaai", "tuned-default", "knock-early")


def style_params(name: str, table: GinConfig | None = None) -> HeuristicParams:
    """The parameters of style ``name``: one of :data:`STYLES`, or ``tuned`` (the set
    shipped for ``table``'s name); a name it does not know is a ValueError naming them."""
    if name == "tuned":
        key = None if table is None else table_name(table)
        if key is None or f"tuned-{key}" not in STYLES:
            raise ValueError(
                f"no tuned set is shipped for this table ({key!r}); sets: "
                f"{', '.join(k for k in STYLES if k.startswith('tuned-'))}"
            )
        return STYLES[f"tuned-{key}"]
    if name not in STYLES:
        raise ValueError(f"unknown style {name!r}; styles: tuned, {', '.join(STYLES)}")
    return STYLES[name]


def pool_params(names: str, table: GinConfig | None = None) -> dict[str, HeuristicParams]:
    """The styles of a ``+``-joined list of names (``"L2+tuned-eaai"``), by name."""
    if not isinstance(names, str):
        raise ValueError(f"styles are named by a '+'-joined string, got {names!r}")
    out = {n: style_params(n, table) for n in names.split("+") if n}
    if not out:
        raise ValueError(f"a pool names at least one style; styles: {', '.join(STYLES)}")
    return out


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


class StylePosterior:
    """The posterior over the styles of ``pool`` (name -> parameters) of an opponent at
    ``table`` (a two-player gin table: its hand rules), and each style's particles (his
    possible hands), from the moves he is seen to make.

    ``particles``: hands kept per style; ``epsilon``: the weight of a uniform choice over
    his legal moves in each style's likelihood; ``prior``: by name (default uniform);
    ``seed``: the particles' draws; ``jitter``: the share of particles that trade a card
    after each move; ``temper``: the power of each likelihood (below 1 a softer posterior:
    a particle estimate of a likelihood is noisy, and a product of noisy estimates is
    overconfident)."""

    def __init__(
        self,
        pool: Mapping[str, HeuristicParams],
        table: GinConfig,
        particles: int = 64,
        epsilon: float = 0.05,
        prior: Mapping[str, float] | None = None,
        seed: int | None = None,
        jitter: float = 0.5,
        temper: float = 0.5,
    ) -> None:
        if not pool:
            raise ValueError("the pool of styles is empty")
        if isinstance(particles, bool) or not isinstance(particles, int):
            raise ValueError(f"particles must be an integer in 1..4096, got {particles!r}")
        if not 1 <= particles <= 4096:
            raise ValueError(f"particles must be in 1..4096, got {particles!r}")
        self.epsilon = check_real("epsilon", epsilon, 0, 1, above=True)
        self.jitter = check_real("jitter", jitter, 0, 1)
        self.temper = check_real("temper", temper, 0, 1, above=True)
        self.names = list(pool)
        self.policies = [BatchedHeuristic(p, table) for p in pool.values()]
        self.n = particles
        self._cfg = config_vector(table, EnvOptions(episode="hand"))[0]
        self.rng = np.random.default_rng(seed)
        if prior is None:
            self._prior = np.zeros(len(self.names))
        else:
            bad = set(prior) - set(self.names)
            if bad:
                raise ValueError(f"prior names {sorted(bad)} not in the pool {self.names}")
            p = np.array([float(prior.get(n, 0.0)) for n in self.names])
            if (p < 0).any() or p.sum() <= 0:
                raise ValueError("prior weights must be >= 0 and not all 0")
            with np.errstate(divide="ignore"):
                self._prior = np.log(p / p.sum())
        self.log_post = self._prior.copy()
        #: Moves scored since :meth:`reset`.
        self.moves = 0
        #: Per style, his possible hands (card masks); empty before :meth:`new_hand`.
        self.particles = [np.zeros(0, np.int64) for _ in self.names]
        self._size = 10

    def reset(self) -> None:
        """Back to the prior (a new match, a new opponent)."""
        self.log_post = self._prior.copy()
        self.moves = 0
        self.particles = [np.zeros(0, np.int64) for _ in self.names]

    def weights(self) -> np.ndarray:
        """The posterior probability of each style (the order of ``names``)."""
        x = self.log_post - self.log_post.max()
        w = np.exp(x)
        return np.asarray(w / w.sum())

    def posterior(self) -> dict[str, float]:
        """The posterior by style name."""
        return dict(zip(self.names, self.weights().tolist(), strict=True))

    # -- his hands -------------------------------------------------------------------------
    def _deal(self, known: int, free: int, size: int, n: int) -> np.ndarray:
        """``n`` hands of ``size`` cards: ``known`` and a uniform draw of the cards ``free``."""
        cards = np.asarray(_cards(free & ~known), np.int64)
        count = size - known.bit_count()
        hands = np.full(n, known, np.int64)
        if count > 0 and len(cards) >= count:
            perms = self.rng.permuted(np.tile(cards, (n, 1)), axis=1)
            for j in range(count):
                hands |= np.left_shift(np.int64(1), perms[:, j])
        return hands

    def new_hand(self, known: int, free: int, size: int = 10) -> None:
        """A new hand: each style's particles are ``known`` (the cards he is known to hold)
        and a uniform draw of the cards ``free`` (those the seat has not seen)."""
        self._size = size
        self.particles = [self._deal(known, free, size, self.n) for _ in self.names]

    def _fit(self, k: int, known: int, free: int) -> np.ndarray:
        """Style ``k``'s particles that hold ``known`` and nothing outside ``known | free``
        (the others drawn again from these, or dealt again when none is left)."""
        hands = self.particles[k]
        if len(hands) == 0:
            return self._deal(known, free, self._size, self.n)
        ok = ((hands & known) == known) & ((hands & ~(known | free) & FULL) == 0)
        good = hands[ok]
        if len(good) == len(hands):
            return hands
        if len(good) == 0:
            return self._deal(known, free, self._size, self.n)
        return good[self.rng.integers(len(good), size=self.n)]

    def hands(self, n: int, known: int, free: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` of his possible hands now (holding ``known``, the rest among ``free``), drawn
        from the styles' particles in proportion to the posterior; and each one's style."""
        w = self.weights()
        counts = np.floor(w * n).astype(np.int64)
        rest = n - int(counts.sum())
        if rest > 0:
            counts[np.argsort(-(w * n - counts))[:rest]] += 1
        out, style = [], []
        for k, c in enumerate(counts.tolist()):
            if c == 0:
                continue
            hands = self._fit(k, known, free)
            out.append(hands[self.rng.integers(len(hands), size=c)])
            style += [k] * c
        return np.concatenate(out), np.asarray(style, np.int64)

    # -- his moves -------------------------------------------------------------------------
    def _views(
        self, st: np.ndarray, pile: np.ndarray, hands: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The observations and legal moves of the seat to act in ``st`` with each of
        ``hands`` (his cards) in turn, as the engine writes them."""
        n = len(hands)
        rows = np.repeat(st[None, :], n, axis=0)
        rows[:, F_HAND0 + int(st[F_CUR])] = hands
        piles = np.repeat(pile[None, :], n, axis=0)
        obs = np.empty((n, OBS_SIZE), np.float32)
        mask = np.empty((n, A.NUM_ACTIONS), np.bool_)
        seat, role = np.empty(n, np.int64), np.empty(n, np.int64)
        outputs_kernel(rows, piles, self._cfg, obs, mask, seat, role)
        return obs, mask

    def observe(
        self, st: np.ndarray, pile: np.ndarray, move: int, known: int, free: int
    ) -> np.ndarray:
        """His ``move`` at ``st`` (his seat to act; his hand column is ignored), holding
        ``known`` and the rest of his hand among ``free``: each style's likelihood (returned)
        is added to its log posterior, and its particles are drawn again from those in which
        it plays the move. ``move`` :data:`ANY_KNOCK`: a knock or gin with any card."""
        lik = np.empty(len(self.names))
        for k, pol in enumerate(self.policies):
            hands = self._fit(k, known, free)
            obs, mask = self._views(st, pile, hands)
            legal = mask.sum(axis=1)
            if move == ANY_KNOCK:
                fits = mask[:, A.KNOCK : A.BIG_GIN + 1].sum(axis=1)
            else:
                fits = mask[:, move].astype(np.int64)
            # A move no particle allows still has a floor: his hand may be none of them.
            uniform = max(float(np.mean(fits / np.maximum(legal, 1))), 1.0 / A.NUM_ACTIONS)
            played = pol.act(obs, mask)
            hit = played >= A.KNOCK if move == ANY_KNOCK else played == move
            lik[k] = (1 - self.epsilon) * float(np.mean(hit)) + self.epsilon * uniform
            agree = hands[hit] if hit.any() else hands
            # Drawn again from the hands in which it plays the move; a share ``jitter`` of
            # them then trade one unknown card for another unseen one (without it the set
            # narrows to a few hands, and his next move misses them all).
            self.particles[k] = self._jitter(
                agree[self.rng.integers(len(agree), size=self.n)], known, free
            )
        if (lik > 0).any():
            with np.errstate(divide="ignore"):
                self.log_post = self.log_post + self.temper * np.log(lik)
            self.log_post -= self.log_post.max()
            self.moves += 1
        return lik

    def _jitter(self, hands: np.ndarray, known: int, free: int) -> np.ndarray:
        """``hands`` with a share ``jitter`` of them trading one card outside ``known`` for a
        card of ``free`` they do not hold."""
        out = hands.copy()
        cards = _cards(free & ~known)
        for i in np.flatnonzero(self.rng.random(len(out)) < self.jitter).tolist():
            h = int(out[i])
            mine = _cards(h & ~known)
            outs = [c for c in cards if not h >> c & 1]
            if mine and outs:
                drop = mine[int(self.rng.integers(len(mine)))]
                add = outs[int(self.rng.integers(len(outs)))]
                out[i] = (h & ~(1 << drop)) | 1 << add
        return out

    def took(self, card: int) -> None:
        """He took ``card`` from the pile."""
        bit = np.int64(1) << np.int64(card)
        self.particles = [h | bit for h in self.particles]
        self._size = 11

    def drew(self, free: int, then_threw: int = -1) -> None:
        """He drew from the stock, whose cards are among ``free`` (the cards the seat has
        not seen, less his known ones); ``then_threw``: the card he then threw, which he
        either held already or drew (a particle without it drew it, weighted by the chance
        of that draw)."""
        cards = np.asarray(_cards(free), np.int64)
        self._size = 11
        if len(cards) == 0:
            return
        for k, hands in enumerate(self.particles):
            n = len(hands)
            if n == 0:
                continue
            out = hands.copy()
            weight = np.ones(n)
            if then_threw >= 0:
                bit = np.int64(1) << np.int64(then_threw)
                lacks = (hands & bit) == 0
                out[lacks] |= bit
                weight[lacks] = 1.0 / len(cards)
                todo = np.flatnonzero(~lacks)
            else:
                todo = np.arange(n)
            for i in todo.tolist():
                h = int(out[i])
                pool = [c for c in cards.tolist() if not h >> c & 1 and c != then_threw]
                if pool:
                    out[i] = h | 1 << pool[int(self.rng.integers(len(pool)))]
            p = weight / weight.sum()
            self.particles[k] = out[self.rng.choice(n, size=self.n, p=p)]

    def threw(self, card: int) -> None:
        """He threw ``card`` (after :meth:`observe` scored it)."""
        bit = np.int64(1) << np.int64(card)
        self.particles = [h & ~bit for h in self.particles]
        self._size = 10
