"""A Gymnasium ``VectorEnv`` of N games on the batched engine: one learner seat per game,
every other seat played by batched opponent policies.

:class:`LearnerVectorEnv` is the batched counterpart of :class:`agents.single_agent.SingleAgentEnv`
(one learner against policies over an AEC env). It runs on
:class:`gin_env.vector.VectorGinEnv`; after the learner's actions the opponents of every game
act together, batch by batch (:mod:`agents.batched`: ``random`` and ``simple`` over numpy,
other agents row by row), the games where the learner is to act again waiting
(``VectorGinEnv.step(..., active=...)``), until the learner is to act in every game.

Why here (the agents layer) and not in ``gin_env``: the opponents are agents, seated by
name at the engine's table through :func:`agents.batched.seat_batched` (the env layer may
not import agents); the SB3 adapter,
which needs stable-baselines3, is in the training layer (:mod:`training.vec_env`).

Semantics, as the single-agent wrapper's:

- ``learner="random"``: each game's learner seat is drawn (seeded) at every episode start;
  an int (or ``"player_k"``) fixes it.
- The reward of a step is what the learner's seat received from its action until its next
  decision (the env's reward mode, ``reward_scale`` included). Rewards that fall after an
  episode's end, before the learner's first decision of the next one, are not counted.
- Episodes end as the engine's do (``episode="hand"`` or the match, ``max_hands``); every
  end is reported as a termination (the engine does not tell a ``max_hands`` cut apart),
  and the game has already restarted (``autoreset_mode`` SAME_STEP): the observation
  returned is the new episode's first, the ended episode's last state is not kept
  (``infos`` carries no ``final_obs``).
- :meth:`action_masks` gives the learner's legal actions, ``[N, 109]`` bool; :meth:`state`
  the global state of every game (for a centralized critic); :meth:`history` the learner's
  move history (with ``observation="history"``).

The masks, three ways (Gymnasium's vector wrappers, ``RecordEpisodeStatistics`` and the
rest, forward neither methods nor ``call``, so a mask is reached through what they keep):

- ``infos["action_mask"]`` ``[N, 109]`` bool (with ``infos["_action_mask"]``), in every
  ``reset`` and ``step``: infos pass through every wrapper, so this works wrapped or not;
- ``env.unwrapped.call("action_masks")``: a tuple of ``N`` masks, as Gymnasium's
  ``SyncVectorEnv`` / ``AsyncVectorEnv`` answer it for the single-agent env (so
  ``np.stack(venv.unwrapped.call("action_masks"))`` serves every ``make_vec`` mode);
- ``env.unwrapped.action_masks()``: the ``[N, 109]`` array itself. sb3-contrib reaches it
  through the SB3 adapter :mod:`training.vec_env` (``env_method("action_masks")``, what its
  ``get_action_masks`` calls).

Each gin id's Gymnasium ``vector_entry_point`` is :func:`make_vec` below, so
``gymnasium.make_vec("gin_env/Gin-v0", num_envs=1024, vectorization_mode=
"vector_entry_point", opponents="heuristic")`` is this env on the compiled engine, with the
single-agent wrapper's default learner (``"player_0"``).

>>> env = LearnerVectorEnv(4, opponents="simple", seed=0, backend="python")
>>> obs, infos = env.reset()
>>> obs.shape, env.action_masks().shape, sorted(infos)
((4, 436), (4, 109), ['_action_mask', '_learner_seat', 'action_mask', 'learner_seat'])
>>> np.array_equal(np.stack(env.call("action_masks")), infos["action_mask"])
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from agents.batched import BatchedPolicy, seat_batched
from gin_env import actions as A
from gin_env import games
from gin_env.vector import VectorGinEnv

__all__ = [
    "LearnerVectorEnv",
    "make_vec",
]

#: Opponents: one name / batched policy for every other seat, or one per seat (a sequence
#: of ``num_players`` entries or a mapping from seat to entry; the learner's seat is
#: skipped when it is fixed).
Opponents = str | BatchedPolicy | Sequence[str | BatchedPolicy] | Mapping[int, str | BatchedPolicy]


class LearnerVectorEnv(VectorEnv):  # type: ignore[type-arg]
    """``num_envs`` games of ``game``, a learner seat in each against ``opponents``.

    ``options`` are the AEC env's (rules, reward, episode...), checked by it; ``backend``
    as :class:`~gin_env.vector.VectorGinEnv`'s. Opponents named by spec are seated at the
    engine's table (:func:`agents.batched.seat_batched`): they play its rules.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int,
        game: str = "gin",
        opponents: Opponents = "random",
        learner: int | str = "random",
        seed: int | None = None,
        backend: str = "auto",
        **options: Any,
    ) -> None:
        self.engine = VectorGinEnv(num_envs, game, seed=seed, backend=backend, **options)
        self.num_envs = num_envs
        self.num_players = self.engine.num_players
        players = list(range(self.num_players))
        names = [f"player_{p}" for p in players]
        if learner in names:
            learner = names.index(str(learner))
        if learner != "random" and (isinstance(learner, bool) or learner not in players):
            raise ValueError(
                f"learner must be 'random', a seat {players} or one of {names}; got {learner!r}"
            )
        self.learner_spec = learner
        self._policies = self._resolve(opponents)
        size = self.engine.observation_size  # 436, or 499 for the v1 games
        self.single_observation_space = gym.spaces.Box(0.0, 1.0, (size,), np.float32)
        self.single_action_space = gym.spaces.Discrete(A.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._learner = np.zeros(num_envs, np.int64)
        self._seat_rng = np.random.default_rng(None if seed is None else [seed, 1])
        self._opp_rng = np.random.default_rng(None if seed is None else [seed, 2])
        self._out: dict[str, np.ndarray] | None = None

    # -- opponents ------------------------------------------------------------------------
    def _resolve(self, opponents: Opponents) -> list[BatchedPolicy | None]:
        """One batched policy per seat (None for a fixed learner's seat); a name used for
        several seats is one policy (so one batch)."""
        seats = range(self.num_players)
        fixed = None if self.learner_spec == "random" else self.learner_spec
        if isinstance(opponents, str) or callable(getattr(opponents, "act", None)):
            per_seat: dict[int, Any] = dict.fromkeys(seats, opponents)
        elif isinstance(opponents, Mapping):
            per_seat = dict(opponents)
        elif isinstance(opponents, Sequence) and len(opponents) == self.num_players:
            per_seat = dict(enumerate(opponents))
        else:
            raise ValueError(
                "opponents must be an agent name, a batched policy (act(observations, masks, "
                f"rng) -> actions), or one of those per seat ({self.num_players} seats); got "
                f"{opponents!r}"
            )
        needed = [s for s in seats if s != fixed]
        missing = [s for s in needed if per_seat.get(s) is None]
        unknown = [s for s in per_seat if s not in seats]
        if missing or unknown:
            raise ValueError(
                f"opponents must give a policy for every seat the learner does not hold "
                f"({needed}); " + (f"unknown seats {unknown}" if unknown else f"missing {missing}")
            )
        made: dict[str, BatchedPolicy] = {}
        out: list[BatchedPolicy | None] = []
        for s in seats:
            spec = per_seat.get(s) if s != fixed else None
            if isinstance(spec, str):
                if spec not in made:
                    # Seated at the engine's table: the table's own rules object.
                    made[spec] = seat_batched(spec, self.engine.table)
                out.append(made[spec])
            else:
                out.append(spec)
        return out

    @property
    def opponents(self) -> list[BatchedPolicy | None]:
        """The batched policy of every seat (None for a fixed learner's seat)."""
        return list(self._policies)

    # -- Gymnasium API --------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game (game ``i`` seeded ``seed + i`` as :class:`VectorGinEnv`);
        ``options`` as the engine's (``{"decks": [N, 52] card ints}``)."""
        # The engine first: it checks the seed and the options before it changes anything.
        out = self.engine.reset(seed=seed, options=options)
        super().reset(seed=seed)
        if seed is not None:
            self._seat_rng = np.random.default_rng([seed, 1])
            self._opp_rng = np.random.default_rng([seed, 2])
        self._learner = self._draw_learners(np.ones(self.num_envs, bool))
        reward = np.zeros(self.num_envs, np.float32)
        ended = np.zeros(self.num_envs, bool)
        self._out = self._advance(out, reward, ended)
        return self._out["observation"].copy(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self._out is None:
            raise RuntimeError("call reset() before step()")
        # The engine's check, as every route's: integer ids in range, one per game (a float
        # array, 3.0 included, is refused: a cast would hide a trainer's wrong action space).
        out = self.engine.step(actions)
        rows = np.arange(self.num_envs)
        reward = out["rewards"][rows, self._learner].astype(np.float32)
        ended = out["done"].copy()
        if ended.any():
            self._learner[ended] = self._draw_learners(ended)[ended]
        self._out = self._advance(out, reward, ended)
        truncated = np.zeros(self.num_envs, bool)
        return self._out["observation"].copy(), reward, ended, truncated, self._infos()

    def action_masks(self) -> np.ndarray:
        """``[num_envs, 109]`` bool: the learner's legal actions in every game."""
        if self._out is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._out["action_mask"].copy()

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """As Gymnasium's ``SyncVectorEnv.call``: ``call("action_masks")`` is a tuple of
        every game's learner mask (``[109]`` bool each); another name calls this env's own
        method (or reads its attribute) once and returns its result for every game."""
        if name == "action_masks":
            return tuple(self.action_masks())
        attr = getattr(self, name)
        value = attr(*args, **kwargs) if callable(attr) else attr
        return (value,) * self.num_envs

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """As Gymnasium's ``SyncVectorEnv.get_attr``: the attribute, once per game."""
        return (getattr(self, name),) * self.num_envs

    def state(self) -> np.ndarray:
        """``[num_envs, state_size]`` float32: the global state of every game at the
        learner's decision (:meth:`gin_env.vector.VectorGinEnv.state`; every hand and the
        stock, for a centralized critic: never give it to the acting policy)."""
        if self._out is None:
            raise RuntimeError("call reset() before state()")
        return self.engine.state()

    def history(self) -> tuple[np.ndarray, np.ndarray]:
        """The learner's move history in every game: ``history`` ``[num_envs, 64, 63]``
        float32 and ``history_mask`` ``[num_envs, 64]`` bool
        (:meth:`gin_env.vector.VectorGinEnv.history`). Needs ``observation="history"``."""
        if self._out is None:
            raise RuntimeError("call reset() before history()")
        return self.engine.history(self._learner)

    def close(self, **kwargs: Any) -> None:
        self.engine.close()
        self._out = None
        self.closed = True

    # -- the opponents' turns -------------------------------------------------------------
    def _draw_learners(self, which: np.ndarray) -> np.ndarray:
        if self.learner_spec == "random":
            return self._seat_rng.integers(self.num_players, size=self.num_envs).astype(np.int64)
        return np.full(self.num_envs, int(self.learner_spec), np.int64)

    def _advance(
        self, out: dict[str, np.ndarray], reward: np.ndarray, ended: np.ndarray
    ) -> dict[str, np.ndarray]:
        """Let the opponents act, all games together, until the learner is to act in every
        game; adds the learner's rewards (until its episode ends) to ``reward``, marks ends
        in ``ended``."""
        n = self.num_envs
        while True:
            waiting = out["seat"] != self._learner
            if not waiting.any():
                return out
            acts = np.zeros(n, np.int64)
            seats = out["seat"]
            done_policies: set[int] = set()
            for s in range(self.num_players):
                policy = self._policies[s]
                if policy is None or id(policy) in done_policies:
                    continue
                done_policies.add(id(policy))
                same = [t for t in range(self.num_players) if self._policies[t] is policy]
                rows = np.flatnonzero(waiting & np.isin(seats, same))
                if len(rows):
                    acts[rows] = policy.act(
                        out["observation"][rows], out["action_mask"][rows], self._opp_rng
                    )
            out = self.engine.step(acts, active=waiting)
            live = waiting & ~ended
            reward[live] += out["rewards"][live, self._learner[live]]
            new = out["done"] & waiting
            if new.any():
                ended |= new
                self._learner[new] = self._draw_learners(new)[new]

    def _infos(self) -> dict[str, Any]:
        assert self._out is not None
        every = np.ones(self.num_envs, bool)
        return {
            "learner_seat": self._learner.copy(),
            "_learner_seat": every,
            # The masks travel in infos too: Gymnasium's vector wrappers hide action_masks().
            "action_mask": self._out["action_mask"].copy(),
            "_action_mask": every.copy(),
        }


#: Options of the single-agent wrapper with no batched counterpart here.
_SINGLE_AGENT_ONLY = {
    "illegal": "an illegal action raises here",
    "illegal_reward": "an illegal action raises here",
    "extras": "use state() and history()",
}


def make_vec(game: str, num_envs: int = 1, **options: Any) -> LearnerVectorEnv:
    """``gymnasium.make_vec`` of a batched game's id (its ``vector_entry_point``; the id
    passes ``game``, its env name; :mod:`gin_env.games`)."""
    taken = sorted(set(options) & set(_SINGLE_AGENT_ONLY))
    if taken:
        why = "; ".join(f"{k}: {_SINGLE_AGENT_ONLY[k]}" for k in taken)
        raise ValueError(
            f"option(s) {', '.join(taken)} belong to the single-agent wrapper (gymnasium.make, "
            f"or make_vec with vectorization_mode 'sync'/'async'), not to LearnerVectorEnv "
            f"({why})"
        )
    options.setdefault("learner", "player_0")  # as gymnasium.make's single-agent wrapper
    return LearnerVectorEnv(num_envs, games.get(game).short, **options)
