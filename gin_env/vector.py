"""N games of gin or three-handed gin stepped together: :class:`VectorGinEnv`.

One object holds ``num_envs`` independent games (slots) and steps them all at once. Each
call returns, for every slot, the observation and action mask of the seat to act, the seat
and its role; ``step`` adds the rewards of that step, whether a hand ended and whether the
episode ended (the slot has then already started its next episode).

>>> env = VectorGinEnv(4, "three_handed", seed=7, backend="python")
>>> out = env.reset()
>>> out["observation"].shape, out["action_mask"].shape, out["seat"].shape
((4, 436), (4, 109), (4,))
>>> legal = [int(np.flatnonzero(m)[0]) for m in out["action_mask"]]
>>> sorted(env.step(legal))
['action_mask', 'done', 'hand_over', 'observation', 'rewards', 'role', 'seat']

Two backends give identical outputs:

- ``"python"``: one AEC ``raw_env`` per slot (:mod:`gin_env.gin_v0` or
  :mod:`gin_env.three_handed_gin_v0`, or their v1), looped in Python. It is the reference.
- ``"numba"`` (``"auto"`` where numba is installed): the games as arrays stepped by
  compiled kernels (:mod:`gin_env.fast_game`), the deadwood and showdown by
  :mod:`gin_env.fast_melds`. The first use in a fresh checkout compiles the kernels (about
  a minute; ``benchmarks/bench_vector.py`` prints the figure); numba caches them on disk, and
  later processes load them in about a second. A step runs on one thread; setting
  ``fast_game.PARALLEL_MIN_ENVS`` shares big batches among numba's threads (off by default:
  slower on a busy machine, see there).

Every call returns new arrays (safe to keep). ``hand_results()`` gives each slot's last
finished hand (kind, points, winner, knocker, scores after it), for logging and tests.

Encodings a researcher can choose, each exactly the AEC envs' (both backends):

- ``state()``: ``[N, state_size]`` float32, each game's global state, the AEC env's
  ``state()`` (layout ``state_layout``, ``gin_state_2p_v0`` / ``gin_state_3p_v0``:
  :func:`gin_env.encoding.state_parts`, named by ``encoding.state_views``): every hand, the
  stock and the pile in order, roles, scores, the player to act, the suggestion. For
  centralized critics in training; never a player's input.
- ``observation="history"`` (the AEC option): every output also carries ``"history"``
  ``[N, 64, 63]`` float32 and ``"history_mask"`` ``[N, 64]`` bool, the move history of the
  seat to act (:func:`gin_env.encoding.encode_history`: the hand's last 64 moves, oldest
  first); ``history(seats)`` gives any seat's, as the AEC env's ``observe(player_k)``. A
  card drawn from the stock shows only to the drawer (and to the adviser who sees the
  captain's hand, for the captain's draws); the adviser's suggestions show to the box only
  as "advice given". The numba backend keeps each slot's last 64 moves (player, action, card,
  suggestion or not) in a side array (``BatchedGames.log``) and encodes from it.
- The v1 games, ``game="gin_v1"`` / ``"three_handed_v1"``: the envs
  :mod:`gin_env.gin_v1` / :mod:`gin_env.three_handed_gin_v1`, observation layout
  ``gin_obs_v1`` (``observation_size`` 499: the 436 v0 entries, then the rules in view).

>>> env = VectorGinEnv(2, "gin_v1", seed=0, backend="python", observation="history")
>>> out = env.reset()
>>> out["observation"].shape, out["history"].shape, out["history_mask"].shape
((2, 499), (2, 64, 63), (2, 64))
>>> env.state().shape, env.state_layout
((2, 755), 'gin_state_2p_v0')

Cost (``benchmarks/bench_vector.py``, N = 1024, numba, one thread): ``state()`` after every
step about halves the steps per second; the history, a fresh ``[N, 64, 63]`` array (16.5 MB
at N = 1024) each step, leaves about a quarter (allocating and zeroing that array is most
of it).

Which engine the AEC envs run, the choice made: they stay on the Python engine (``hand.py``,
``match.py``), which remains the readable reference, and ``tests/test_vector.py`` proves
the compiled engine identical to it (masks, every seat's observation, rewards, hand ends and
scores over many thousands of hands, every option combination, random, L1 and L2 play).
Why: the AEC envs serve one game, one step at a time, where a compiled kernel saves little
(the Python call per step dominates) and costs a compile on first use; the rules read as
Python are what a reader checks against docs/RULES.md and what the error messages, histories,
replays, renderings and ``infos`` are built from. Moving the envs onto the batched engine
would make the reference the hard-to-read code. The price is two implementations of the
game flow (the meld rules exist once, compiled, in ``fast_melds``), kept equal by the
differential test, which replays any slot through the AEC env.

Determinism: slot ``i`` plays exactly the deals that ``raw_env(**options)`` plays after
``reset(seed=seed + i)`` followed by a plain ``reset()`` for each later episode.
"""

from __future__ import annotations

import importlib.util
import secrets
from typing import Any

import numpy as np

from gin_env import actions as A
from gin_env import games
from gin_env.aec_tools import check_options
from gin_env.cards import NUM_CARDS
from gin_env.config import (
    GinConfig,
    GinTable,
    ThreeHandedConfig,
    check_choice,
    check_int,
    check_option_names,
)
from gin_env.encoding import HISTORY_FEATURES, HISTORY_LENGTH, LAYOUTS, state_size
from gin_env.fast_game import BatchedGames
from gin_env.gin_aec import EnvOptions
from gin_env.hand import HAND_KINDS

__all__ = ["VectorGinEnv", "GAMES", "ENVS", "BACKENDS", "HAND_KINDS"]

#: The ``game`` names (the games' short names, :attr:`gin_env.games.GameSpec.short`) and the
#: AEC env each one plays (its module under ``gin_env``): the two gin games, and their v1
#: versions (the same game, observation layout ``gin_obs_v1``).
ENVS = {
    g.short: g.name
    for g in sorted(games.GAMES.values(), key=lambda g: (g.version, g.players or 0))
    if g.family == "gin"
}
GAMES = tuple(ENVS)
BACKENDS = ("auto", "numba", "python")
#: Options of the AEC envs that make no sense for a batch of games.
_REFUSED = ("render_mode",)


def _empty_results(n: int, players: int) -> dict[str, np.ndarray]:
    return {
        "kind": np.full(n, -1, np.int64),
        "points": np.zeros(n, np.int64),
        "winner": np.full(n, -1, np.int64),
        "knocker": np.full(n, -1, np.int64),
        "scores": np.zeros((n, players), np.int64),
    }


def _store_result(results: dict[str, np.ndarray], i: int, record: Any) -> None:
    r = record.result
    results["kind"][i] = HAND_KINDS.index(r.kind)
    results["points"][i] = r.points
    results["winner"][i] = -1 if r.winner is None else record.players[r.winner]
    results["knocker"][i] = -1 if r.knocker is None else record.players[r.knocker]
    results["scores"][i] = record.scores_after


class _PythonBackend:
    """The reference: one AEC ``raw_env`` per slot."""

    def __init__(self, module: Any, options: dict[str, Any], num_envs: int) -> None:
        self.envs = [module.raw_env(**options) for _ in range(num_envs)]
        self.num_players = self.envs[0].num_players
        self.agents = self.envs[0].possible_agents
        self.player_of = {a: i for i, a in enumerate(self.agents)}
        self.results = _empty_results(num_envs, self.num_players)
        self.obs_size = self.envs[0].observation_space(self.agents[0])["observation"].shape[0]

    def reset(self, seed: int | None, decks: np.ndarray | None) -> None:
        for i, env in enumerate(self.envs):
            options = None if decks is None else {"deck": decks[i].tolist()}
            env.reset(seed=None if seed is None else seed + i, options=options)

    def legal(self, i: int) -> list[int]:
        return self.envs[i].legal_actions()

    def outputs(self) -> dict[str, np.ndarray]:
        n = len(self.envs)
        obs = np.empty((n, self.obs_size), np.float32)
        mask = np.zeros((n, A.NUM_ACTIONS), np.bool_)
        seat = np.empty(n, np.int64)
        role = np.empty(n, np.int64)
        for i, env in enumerate(self.envs):
            agent = env.agent_selection
            o = env.observe(agent)
            obs[i] = o["observation"]
            mask[i] = o["action_mask"] != 0
            p = self.player_of[agent]
            seat[i] = p
            role[i] = env.table_state.roles[p]
        return {"observation": obs, "action_mask": mask, "seat": seat, "role": role}

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> dict[str, np.ndarray]:
        n = len(self.envs)
        rewards = np.zeros((n, self.num_players), np.float32)
        hand_over = np.zeros(n, np.bool_)
        done = np.zeros(n, np.bool_)
        for i, env in enumerate(self.envs):
            if active is not None and not active[i]:
                continue
            record = env.table_state.history[-1]  # the hand on the table
            env.step(int(actions[i]))
            rewards[i] = [env.rewards[a] for a in self.agents]
            hand_over[i] = record.result is not None
            if hand_over[i]:
                _store_result(self.results, i, record)
            if any(env.terminations.values()) or any(env.truncations.values()):
                done[i] = True
                env.reset()
        out = self.outputs()
        out.update(rewards=rewards, hand_over=hand_over, done=done)
        return out

    def first_illegal(self, mask: np.ndarray, actions: np.ndarray) -> int:
        """The first slot whose action is out of range or not legal, or -1."""
        in_range = (actions >= 0) & (actions < A.NUM_ACTIONS)
        ok = in_range.copy()
        rows = np.flatnonzero(in_range)
        ok[rows] = mask[rows, actions[rows]]
        return -1 if ok.all() else int(np.flatnonzero(~ok)[0])

    def observe(self, seats: np.ndarray) -> np.ndarray:
        obs = np.empty((len(self.envs), self.obs_size), np.float32)
        for i, env in enumerate(self.envs):
            obs[i] = env.observe(self.agents[int(seats[i])])["observation"]
        return obs

    def global_state(self) -> np.ndarray:
        return np.stack([env.state() for env in self.envs])

    def history(self, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The AEC envs' ``history`` / ``history_mask`` (they run with
        ``observation="history"``) of ``seats[i]`` in slot ``i``."""
        n = len(self.envs)
        hist = np.empty((n, HISTORY_LENGTH, HISTORY_FEATURES), np.float32)
        hmask = np.empty((n, HISTORY_LENGTH), np.bool_)
        for i, env in enumerate(self.envs):
            o = env.observe(self.agents[int(seats[i])])
            hist[i] = o["history"]
            hmask[i] = o["history_mask"] != 0
        return hist, hmask


class VectorGinEnv:
    """``num_envs`` games of ``game`` (``"gin"``, ``"three_handed"``, or their v1
    ``"gin_v1"``, ``"three_handed_v1"``: :data:`ENVS`) stepped together.

    ``options`` are the AEC env's (``gin_v0.raw_env`` / ``three_handed_gin_v0.raw_env``)
    rule, adviser, reward and episode options, checked by the same code (a bad one is the
    same ``ValueError``). ``seed=None`` draws a random base seed. See the module docstring
    for the outputs and the determinism contract.
    """

    def __init__(
        self,
        num_envs: int,
        game: str = "gin",
        seed: int | None = None,
        backend: str = "auto",
        **options: Any,
    ) -> None:
        check_int("num_envs", num_envs, 1, 10**7)
        check_choice("game", game, GAMES)
        check_choice("backend", backend, BACKENDS)
        if seed is not None:
            check_int("seed", seed, 0, 2**63 - 1 - num_envs)
        refused = sorted(set(options) & set(_REFUSED))
        if refused:
            raise ValueError(f"option(s) {', '.join(refused)} are not taken by VectorGinEnv")
        spec = games.get(ENVS[game])
        table, rest = spec.split_options(options)
        allowed = {
            "the rules'": spec.table_class.option_names(),
            "the env's": EnvOptions.option_names(),
        }
        check_option_names(rest, allowed, "VectorGinEnv")
        assert isinstance(table, GinConfig | ThreeHandedConfig)  # the gin games' tables
        #: The table: the games' rules (:data:`gin_env.config.Table`).
        self.table: GinTable = table
        #: The options that are not rules (reward, episode, observation...).
        self.env_options = EnvOptions(**rest)
        self.num_envs = num_envs
        self.game = game
        self.num_players: int = table.num_players
        self.options = dict(options)
        #: ``"flat"`` or ``"history"`` (the AEC option ``observation``): with ``"history"``
        #: every output also carries the seat to act's move history.
        self.observation_mode: str = self.env_options.observation
        #: Length of a :meth:`state` row, layout ``state_layout`` (``encoding.LAYOUTS``).
        self.state_size: int = state_size(self.num_players)
        self.state_layout = f"gin_state_{self.num_players}p_v0"
        #: The observation layout (``gin_obs_v0``, 436 entries; ``gin_obs_v1`` for the
        #: ``*_v1`` games) and its length.
        self.observation_layout = f"gin_obs_v{spec.version}"
        self.observation_size = int(LAYOUTS[self.observation_layout]["size"])  # type: ignore[call-overload]
        if backend == "auto":
            backend = "numba" if importlib.util.find_spec("numba") is not None else "python"
        self.backend = backend
        self.seed = secrets.randbits(62) if seed is None else seed
        self._started = False
        self._impl: Any
        if self.backend == "python":
            self._impl = _PythonBackend(spec.module, self.options, num_envs)
        else:
            self._impl = BatchedGames(table, self.env_options, num_envs, spec.version)
        self._last: dict[str, np.ndarray] | None = None
        self._legal = np.zeros((num_envs, A.NUM_ACTIONS), np.bool_)

    # -- API ----------------------------------------------------------------------------
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> dict[str, np.ndarray]:
        """Start every slot: with ``seed`` (or, on the first call, the constructor's seed)
        slot ``i`` is seeded with ``seed + i``; a later ``reset()`` without one starts each
        slot's next episode. ``options={"decks": [N, 52] card ints}`` deals those decks for
        each slot's first hand, as the AEC env's ``reset(options={"deck": ...})`` (the deck
        stream is unchanged by it); other keys are ignored."""
        if seed is not None:
            check_int("seed", seed, 0, 2**63 - 1 - self.num_envs)
        decks = None
        options = check_options(options, "{'decks': [N, 52] card ints}")
        if options.get("decks") is not None:
            decks = self._check_decks(options["decks"])
        if seed is not None:
            self.seed = seed
        elif not self._started:
            seed = self.seed
        self._impl.reset(seed, decks)
        self._started = True
        out = self._with_history(self._impl.outputs())
        self._last = out
        self._legal = out["action_mask"].copy()  # the caller may write into what it gets
        return out

    def step(self, actions: Any, active: Any = None) -> dict[str, np.ndarray]:
        """Apply one action per slot (the seat to act's); an illegal action anywhere raises
        ``ValueError`` naming the slot, the action and the legal ids, and changes nothing.

        ``active`` (``[num_envs]`` bool, default all): only those slots move; the others
        keep their state (their ``actions`` entries are ignored) and return zero rewards, no
        hand end and no episode end: for tables where some games wait (for a learner)."""
        if self._last is None:
            raise RuntimeError("call reset() before step()")
        on = None
        if active is not None:
            on = np.asarray(active)
            if on.shape != (self.num_envs,) or on.dtype != np.bool_:
                raise ValueError(
                    f"active must be {self.num_envs} bools (one per slot), got shape "
                    f"{on.shape} of {on.dtype}"
                )
            arr = np.asarray(actions)
            if arr.shape == (self.num_envs,) and arr.dtype.kind in "iu":
                actions = np.where(on, arr, np.argmax(self._legal, axis=1))
        acts = self._check_actions(actions, self._legal)
        out = self._with_history(self._impl.step(acts, on))
        self._last = out
        self._legal = out["action_mask"].copy()
        return out

    def observe(self, seats: Any) -> np.ndarray:
        """``[num_envs, observation_size]``: the view of ``seats[i]`` (a player index) in slot
        ``i``."""
        self._require_reset("observe")
        return self._impl.observe(self._check_seats(seats))  # type: ignore[no-any-return]

    def state(self) -> np.ndarray:
        """``[num_envs, state_size]`` float32: the global state of each game, exactly the AEC
        env's ``state()`` (layout ``gin_state_{n}p_v0``: :func:`gin_env.encoding.state_parts`,
        named by ``state_views``). Everything about the position, hidden cards included: for
        centralized critics in training, never for a player's input."""
        self._require_reset("state")
        return self._impl.global_state()  # type: ignore[no-any-return]

    def history(self, seats: Any) -> tuple[np.ndarray, np.ndarray]:
        """The move history of ``seats[i]`` (a player index) in slot ``i``: ``history``
        ``[num_envs, 64, 63]`` float32 and ``history_mask`` ``[num_envs, 64]`` bool, the AEC
        env's ``observe(player_k)["history"]`` / ``["history_mask"]``. Needs
        ``observation="history"``."""
        self._require_reset("history")
        if self.observation_mode != "history":
            raise ValueError(
                'history() needs VectorGinEnv(..., observation="history"); this env was made '
                f"with observation={self.observation_mode!r}"
            )
        return self._impl.history(self._check_seats(seats))  # type: ignore[no-any-return]

    def hand_results(self) -> dict[str, np.ndarray]:
        """The last hand each slot finished (``-1`` kind before its first): ``kind`` (index
        in :data:`HAND_KINDS`), ``points`` (as scored, Oklahoma's doubling included),
        ``winner`` and ``knocker`` (player, -1 for none), ``scores`` ``[N, players]`` after
        it (under Hollywood scoring, the first game still open, as the match reports)."""
        return {k: v.copy() for k, v in self._impl.results.items()}

    def close(self) -> None:
        self._last = None

    # -- checks -------------------------------------------------------------------------
    def _require_reset(self, what: str) -> None:
        if self._last is None:
            raise RuntimeError(f"call reset() before {what}()")

    def _with_history(self, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        if self.observation_mode == "history":
            out["history"], out["history_mask"] = self._impl.history(out["seat"])
        return out

    def _check_seats(self, seats: Any) -> np.ndarray:
        arr = np.asarray(seats)
        if arr.shape != (self.num_envs,) or arr.dtype.kind not in "iu":
            raise ValueError(
                f"seats must be {self.num_envs} ints (one per slot), got shape {arr.shape} "
                f"of {arr.dtype}"
            )
        bad = np.flatnonzero((arr < 0) | (arr >= self.num_players))
        if len(bad):
            i = int(bad[0])
            raise ValueError(
                f"slot {i}: seat {int(arr[i])} is not a player; seats are 0..{self.num_players - 1}"
            )
        return arr.astype(np.int64)

    def _check_decks(self, decks: Any) -> np.ndarray:
        arr = np.asarray(decks)
        if arr.shape != (self.num_envs, NUM_CARDS) or arr.dtype.kind not in "iu":
            raise ValueError(
                f"options['decks'] must be {self.num_envs} decks of {NUM_CARDS} card ints, got "
                f"shape {arr.shape} of {arr.dtype}"
            )
        ok = (np.sort(arr, axis=1) == np.arange(NUM_CARDS)).all(axis=1)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"options['decks'][{i}] must be a permutation of the 52 card ints 0..51, "
                f"got {arr[i].tolist()}"
            )
        return arr.astype(np.int64)

    def _check_actions(self, actions: Any, mask: np.ndarray) -> np.ndarray:
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,) or arr.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} ints in 0..{A.NUM_ACTIONS - 1} (one per slot), "
                f"got shape {arr.shape} of {arr.dtype}"
            )
        out = np.flatnonzero((arr < 0) | (arr >= A.NUM_ACTIONS))
        if len(out):  # the range as every route words it
            i = int(out[0])
            try:
                A.check_action(int(arr[i]))
            except ValueError as err:
                raise ValueError(f"slot {i}: {err}") from None
        if arr.dtype != np.int64:
            arr = arr.astype(np.int64)
        i = self._impl.first_illegal(mask, arr)
        if i >= 0:
            a = int(arr[i])
            legal = np.flatnonzero(mask[i]).tolist()
            what = f"{a} ({A.action_str(a)})" if 0 <= a < A.NUM_ACTIONS else str(a)
            raise ValueError(
                f"slot {i}: illegal action {what}; legal: "
                + ", ".join(f"{x} ({A.action_str(x)})" for x in legal)
            )
        return arr
