"""A Gymnasium single-agent view of any of the AEC envs, for stable-baselines3 and friends.

The learner is one player (``"player_0"``), a random player each episode (``"random"``),
or whoever holds a role when the episode starts (``"box"``, ``"captain"``, ``"adviser"``;
``"dealer"``, ``"non-dealer"`` in ``gin_v0``; with ``episode="hand"`` the role is held for
the whole episode). Every other agent is played by a policy: any object with
``act(observation: dict, rng) -> int`` (uniform random over legal actions by default), or
an agent's name or spec as :func:`agents.make` takes it (``opponents="heuristic"``,
``"search:budget=0.05"``, ``"gin-ppo"``; for rummy ``"simple"`` is its simple player),
one for every other seat or a mapping from agent names to policies or names::

    gymnasium.make("gin_env/Gin-v0", opponents="heuristic")
    make("three_handed_gin_v0", opponents={"player_1": "simple", "player_2": "heuristic"})

Names are resolved when the wrapper is made, each seat getting its own agent seated at the
env's table; an agent that does not play the game (a gin agent at rummy) is a
``ValueError`` naming the ones that do. The env seats agents, so it lives in the agents
layer; the Gymnasium ids are registered by ``gin_env`` with string entry points into this
module (``import gin_env`` imports no agent).

An illegal action ends the episode with ``illegal_reward`` (-1), as PettingZoo's
``TerminateIllegalWrapper`` does, and its ``info["illegal_action"]`` holds the refused id
(``illegal="raise"`` raises instead). A value that is not an action at all (``2.5``,
``"1"``, ``True``, an id out of range) raises a ``ValueError`` under either mode and
changes nothing (:func:`gin_env.actions.check_action`).

The observation is the learner's flat vector; :meth:`SingleAgentEnv.action_masks` gives
the learner's mask for sb3-contrib's ``MaskablePPO``. ``gymnasium.make`` wraps the env
(``OrderEnforcing``, ``PassiveEnvChecker``), so reach the mask through the wrappers::

    env = gymnasium.make("gin_env/Gin-v0", opponents="heuristic")
    obs, info = env.reset(seed=0)
    mask = env.unwrapped.action_masks()  # or env.get_wrapper_attr("action_masks")()

Once an episode is over (before ``reset``) ``action_masks()`` allows every action: under
Gymnasium's default NEXT_STEP autoreset (``gymnasium.make_vec`` with ``"sync"`` or
``"async"``) a finished sub-env's next action is ignored (that step resets it), and a
masked sampler needs a mask with a legal action. ``vector_kwargs={"autoreset_mode":
gymnasium.vector.AutoresetMode.SAME_STEP}`` resets in the step that ends the episode
instead, so ``call("action_masks")`` always gives the new episode's real mask. Without
a ``vectorization_mode``, ``gymnasium.make_vec`` of a gin id gives its vector entry point,
the compiled batched engine (:class:`agents.vector.LearnerVectorEnv`, SAME_STEP, its
``action_masks()`` ``[num_envs, 109]``, the same in ``infos["action_mask"]``); rummy's is
vectorized from this wrapper. Gymnasium's vector wrappers (``RecordEpisodeStatistics``...)
forward neither methods nor ``call``: reach the masks through
``np.stack(envs.unwrapped.call("action_masks"))`` (every mode) or the infos (the compiled
engine's).

The reward of a step is everything the learner's own agent received since its previous
action (its own side's points).

Every option of :class:`SingleAgentEnv` (``learner``, ``opponents``, ``illegal``,
``illegal_reward``, ``extras``) goes through ``gymnasium.make`` beside the env's own
(``gymnasium.make("gin_env/Gin-v0", extras=("state",), illegal="raise",
episode="hand")``); an unknown option is a ``ValueError`` listing both kinds.

``extras`` makes the observation a ``gymnasium.spaces.Dict`` holding the flat vector as
``"observation"`` and, by name:

- ``"history"``: the learner's view of the hand's moves, ``"history"`` ``[64, 63]`` and
  ``"history_mask"`` ``[64]`` (the AEC env must be made with ``observation="history"``);
- ``"state"``: the env's global ``state()`` (every hand, the stock's order).

Leak rule: ``"state"`` is for a centralized critic only (training.encoders keeps it out
of the acting network); a policy that reads it to act sees the other players' cards. Without
``extras`` (the default) the observation is the flat ``Box`` as before.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Union

import gymnasium as gym
import numpy as np
from pettingzoo import AECEnv

from agents import seat
from gin_env import games
from gin_env.actions import check_action
from gin_env.config import (
    GinConfig,
    RummyConfig,
    Table,
    ThreeHandedConfig,
    check_option_names,
    check_real,
)

__all__ = [
    "make",
    "WRAPPER_OPTIONS",
    "Policy",
    "Opponents",
    "RandomPolicy",
    "SingleAgentEnv",
    "LEARNER_ROLES",
    "EXTRAS",
    "Observation",
    "seat_opponent",
]

#: Roles a learner may be given: every role of the games (:mod:`gin_env.games`).
LEARNER_ROLES = tuple(dict.fromkeys(role for g in games.GAMES.values() for role in g.roles))
#: What ``extras`` may add to the learner's observation (a ``Dict`` then).
EXTRAS = ("history", "state")
#: The observation a ``SingleAgentEnv`` returns: the flat vector, or a dict with ``extras``.
Observation = np.ndarray | dict[str, np.ndarray]


class Policy(Protocol):
    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int: ...


class RandomPolicy:
    """Uniform over the legal actions (the wrapper's default opponent)."""

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        rng = rng if rng is not None else np.random.default_rng()
        legal = np.flatnonzero(observation["action_mask"])
        # The same draw as rng.choice(legal), without its overhead.
        return int(legal[rng.integers(len(legal))])


#: What ``opponents`` takes: a policy or an agent name, for every other seat, or a mapping
#: from agent names (``"player_1"``) to policies or agent names.
Opponents = Union["Policy", str, Mapping[str, Union["Policy", str]]]


def seat_opponent(spec: str, table: Table | None) -> Policy:
    """The agent ``spec`` seated at the env's ``table`` (:func:`agents.seat`)."""
    if table is None:
        raise ValueError("opponents by name need an env of this package (its table: config)")
    try:
        return seat(spec, table)  # type: ignore[no-any-return]
    except ValueError as err:
        raise ValueError(f"opponents: {err}") from None


class SingleAgentEnv(gym.Env):
    """One learner against policies, over an AEC env (``raw_env`` of one of our games)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        aec_env: AECEnv,
        learner: str = "player_0",
        opponents: Opponents | None = None,
        illegal: str = "terminate",
        illegal_reward: float = -1.0,
        extras: Sequence[str] = (),
    ) -> None:
        if illegal not in ("terminate", "raise"):
            raise ValueError(f"illegal must be 'terminate' or 'raise'; got {illegal!r}")
        self.illegal = illegal
        self.illegal_reward = check_real("illegal_reward", illegal_reward, -1e6, 1e6)
        self._done = True
        self.aec = aec_env
        agents = list(aec_env.possible_agents)
        roles = getattr(aec_env, "role_names", LEARNER_ROLES)  # this game's roles, if it says
        allowed = agents + ["random"] + [r for r in LEARNER_ROLES if r in roles]
        if learner not in allowed:
            raise ValueError(f"learner must be one of {', '.join(allowed)}; got {learner!r}")
        self.learner_spec = learner
        self.learner = agents[0] if learner not in agents else learner
        self.opponents = self._resolve(opponents, agents)
        policies = (
            self.opponents.values() if isinstance(self.opponents, Mapping) else [self.opponents]
        )
        for policy in policies:
            if not callable(getattr(policy, "act", None)):
                raise ValueError(
                    "opponents must be a policy with act(observation, rng) -> action or an "
                    "agent name, or a mapping from agent names to those; got "
                    f"{policy!r}"
                )
        space = aec_env.observation_space(agents[0])
        #: The flat observation's space, with or without ``extras``.
        self.flat_observation_space = space["observation"]
        self.extras = self._check_extras(extras, space)
        self.observation_space = self.flat_observation_space
        if self.extras:
            parts: dict[str, gym.Space[Any]] = {"observation": self.flat_observation_space}
            if "history" in self.extras:
                parts["history"] = space["history"]
                parts["history_mask"] = space["history_mask"]
            if "state" in self.extras:
                parts["state"] = aec_env.state_space
            self.observation_space = gym.spaces.Dict(parts)
        self.action_space = aec_env.action_space(agents[0])
        self.render_mode = getattr(aec_env, "render_mode", None)
        # The wrapped env's own metadata (its name, render modes and frame rate) shows through.
        self.metadata = {**type(self).metadata, **getattr(aec_env, "metadata", {})}
        self._mask = np.zeros(int(self.action_space.n), np.int8)  # type: ignore[attr-defined]
        self._opp_rng = np.random.default_rng()

    def _check_extras(self, extras: Sequence[str], space: Any) -> tuple[str, ...]:
        if isinstance(extras, str):
            extras = (extras,)
        out = tuple(dict.fromkeys(extras))
        bad = [e for e in out if e not in EXTRAS]
        if bad:
            raise ValueError(f"extras must be among {', '.join(EXTRAS)}; got {bad[0]!r}")
        if "history" in out and "history" not in space.spaces:
            raise ValueError("extras 'history' needs the AEC env made with observation='history'")
        if "state" in out and getattr(self.aec, "state_space", None) is None:
            raise ValueError("extras 'state' needs an AEC env with state() and state_space")
        return out

    def _observe(self, obs: dict[str, np.ndarray]) -> Observation:
        """The learner's observation from the AEC env's dict: the flat vector, or with
        ``extras`` a dict (the global state added for a centralized critic only)."""
        if not self.extras:
            return obs["observation"]
        out = {"observation": obs["observation"]}
        if "history" in self.extras:
            out["history"] = obs["history"]
            out["history_mask"] = obs["history_mask"]
        if "state" in self.extras:
            out["state"] = np.asarray(self.aec.state(), np.float32)
        return out

    def _resolve(
        self, opponents: Opponents | None, agents: list[str]
    ) -> Policy | Mapping[str, Policy]:
        """Agent names become agents (one per seat); policies are kept as given."""
        if opponents is None:
            return RandomPolicy()
        # The env's table (its validated rules): every agent named is seated at it.
        config = getattr(self.aec, "config", None)
        table = config if isinstance(config, GinConfig | ThreeHandedConfig | RummyConfig) else None
        if isinstance(opponents, str):
            return {a: seat_opponent(opponents, table) for a in agents}
        if isinstance(opponents, Mapping):
            unknown = [a for a in opponents if a not in agents]
            # A fixed learner leaves the other seats to cover; a drawn one, every seat.
            needed = [a for a in agents if a != self.learner_spec]
            missing = [a for a in needed if a not in opponents]
            if unknown or missing:
                raise ValueError(
                    f"opponents must map every other seat ({', '.join(needed)}) to a policy; "
                    + (f"unknown {unknown}" if unknown else f"missing {missing}")
                )
            return {
                a: seat_opponent(p, table) if isinstance(p, str) else p
                for a, p in opponents.items()
            }
        return opponents

    def _policy(self, agent: str) -> Policy:
        opp = self.opponents
        if isinstance(opp, Mapping):
            return opp[agent]
        return opp  # type: ignore[return-value]

    def _choose_learner(self) -> None:
        agents = self.aec.possible_agents
        spec = self.learner_spec
        if spec == "random":
            self.learner = agents[int(self.np_random.integers(len(agents)))]
        elif spec in LEARNER_ROLES:
            holders = [a for a in agents if self.aec.role_name(a) == spec]
            if not holders:
                raise ValueError(f"no agent holds role {spec!r} in this game")
            self.learner = holders[0]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._opp_rng = np.random.default_rng(seed + 1)
        aec_seed = None if seed is None else seed
        if seed is None and not hasattr(self, "_seeded"):
            aec_seed = int(self.np_random.integers(2**31))
        self._seeded = True
        self.aec.reset(seed=aec_seed, options=options)
        self._choose_learner()
        obs, _, done = self._advance()
        self._done = done
        if done:  # the episode ended before the learner acted; start another
            return self.reset(options=options)
        return obs, self._info()

    def _info(self, **more: Any) -> dict[str, Any]:
        """The learner's info, a copy of its own: the env keeps its info (its arrays and the
        hand's result) until a hand ends, and a user may keep every step's."""
        return {**copy.deepcopy(self.aec.infos[self.learner]), **more}

    def _advance(self) -> tuple[Observation, float, bool]:
        """Let the other agents act until the learner is to act or the episode ends."""
        aec = self.aec
        while True:
            agent = aec.agent_selection
            done = aec.terminations[agent] or aec.truncations[agent]
            if agent == self.learner or done:
                break
            obs = aec.observe(agent)
            aec.step(self._policy(agent).act(obs, self._opp_rng))
        obs = aec.observe(self.learner)
        self._mask = obs["action_mask"]
        reward = float(aec._cumulative_rewards[self.learner])
        done = aec.terminations[self.learner] or aec.truncations[self.learner]
        return self._observe(obs), reward, done

    def step(self, action: int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        aec = self.aec
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        # Not an action at all (2.5, "1", True, an id out of range): refused, nothing changes.
        a = check_action(action, len(self._mask))
        if not self._mask[a]:
            if self.illegal == "raise":
                legal = np.flatnonzero(self._mask).tolist()
                raise ValueError(f"illegal action {a} for {self.learner}; legal: {legal}")
            # As PettingZoo's TerminateIllegalWrapper: the episode ends, the learner pays;
            # the info says why (the move refused) so that a training log can count them.
            self._done = True
            obs = self._observe(aec.observe(self.learner))
            return obs, self.illegal_reward, True, False, self._info(illegal_action=a)
        aec.step(a)
        obs, reward, done = self._advance()
        self._done = done
        terminated = bool(aec.terminations[self.learner])
        truncated = bool(aec.truncations[self.learner]) and not terminated
        return obs, reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, as booleans (sb3-contrib's MaskablePPO reads this).
        Once the episode is over, every action: the next step of a NEXT_STEP autoreset
        vector env ignores it and resets (a mask with no legal action breaks samplers)."""
        if self._done:
            return np.ones(len(self._mask), bool)
        return self._mask.astype(bool)

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


#: Options of the single-agent wrapper itself (:class:`SingleAgentEnv`); ``gymnasium.make``
#: hands every other option to the AEC env.
WRAPPER_OPTIONS = ("learner", "opponents", "illegal", "illegal_reward", "extras")


def make(game: str, learner: str = "player_0", opponents: Any = None, **options: Any) -> Any:
    """``gymnasium.make(<a game's id>, ...)``: the entry point of every game's id (the id
    passes ``game``, its env name; :mod:`gin_env.games`)."""
    spec = games.get(game)
    own = {k: options.pop(k) for k in WRAPPER_OPTIONS[2:] if k in options}
    allowed = {"the env's": spec.option_names(), "the wrapper's": WRAPPER_OPTIONS}
    check_option_names(options, allowed, spec.gym_id)
    return SingleAgentEnv(spec.make_env(**options), learner, opponents, **own)
