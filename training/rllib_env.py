"""The gin envs as RLlib multi-agent envs (new API stack), and the role-based policy mapping.

:class:`RLlibGinEnv` wraps the PettingZoo AEC env of ``three_handed_gin_v0`` or ``gin_v0``
in RLlib's :class:`~ray.rllib.env.multi_agent_env.MultiAgentEnv`:

- **Agent ids are roles**: ``"box"``, ``"captain"``, ``"adviser"`` (three-handed) or
  ``"dealer"``, ``"non-dealer"`` (gin). RLlib maps an agent id to one RL module for a whole
  episode, but a player's role rotates from hand to hand; naming agents by role lets a
  per-role policy always play its role, also in a whole-match episode. The seat
  (``player_0`` ...) is in ``infos[role]["player"]``.
- **Turn-based**: each step returns an observation for the one agent to act next only.
- **Observations** are ``{"observations": float32[436], "action_mask": float32[109]}``
  (``[499]`` in the v1 games): the keys RLlib's ``ActionMaskingTorchRLModule`` expects
  (PettingZoo's are ``"observation"`` and ``"action_mask"``, int8).
- **Rewards** are the AEC env's (``reward=`` option), given at the step that ends a hand
  (or the match) to every role that took part, to the role held *during that hand*.
  RLlib adds a reward that arrives while an agent waits to that agent's next step.
- **Episodes**: ``episode="hand"`` (default here: a role is one player for the whole
  episode) or ``"match"``. At the end every role that acted gets a final observation.
- An action that the mask forbids raises ``ValueError``: legality is never silently fixed.

:class:`PolicyMapping` maps agents (roles) to module ids: one shared ``"main"`` module, or
one module per role; with self-play snapshots one side of the table (the box against the
captain's team; the dealer against the non-dealer) plays frozen copies of the main
modules, chosen per episode.

This module imports ray at the top; nothing outside ``training/`` imports it.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

from gin_env import games
from gin_env.actions import NUM_ACTIONS, check_action
from gin_env.match import ADVISER, ROLE_NAMES
from gin_env.optional import require

if TYPE_CHECKING:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
else:  # a missing ray is reported naming the extra that installs it
    MultiAgentEnv = require(
        "ray.rllib.env.multi_agent_env", needed_for="training.rllib_env"
    ).MultiAgentEnv

__all__ = [
    "GAMES",
    "POLICY_MODES",
    "RLlibGinEnv",
    "PolicyMapping",
    "roles_of",
    "sides_of",
    "main_module_ids",
    "snapshot_module_id",
    "to_rllib_obs",
]

#: The games RLlib trains, by short name (``three_handed``, ``gin``): the gin family of
#: :data:`gin_env.games.GAMES`.
GAMES = tuple(g.short for g in games.GAMES.values() if g.family == "gin")
POLICY_MODES = ("shared", "per_role")
SHARED_MODULE = "main"


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")


def roles_of(game: str, adviser: str = "suggest") -> tuple[str, ...]:
    """The roles that act in ``game`` (the adviser only when it suggests)."""
    _check_choice("game", game, GAMES)
    roles = games.get(game).roles
    if adviser == "none":  # the adviser's turns are dropped: the role does not act
        roles = tuple(r for r in roles if r != ROLE_NAMES[ADVISER])
    return roles


def sides_of(game: str) -> dict[str, int]:
    """The two sides of the table: the box (0) against the captain's team (1); the dealer
    against the non-dealer. Self-play puts the learner on one side, a snapshot on the other."""
    _check_choice("game", game, GAMES)
    return games.get(game).sides


def main_module_ids(game: str, policies: str, adviser: str = "suggest") -> list[str]:
    """The trained modules: ``["main"]`` or one per acting role."""
    _check_choice("policies", policies, POLICY_MODES)
    return [SHARED_MODULE] if policies == "shared" else list(roles_of(game, adviser))


def snapshot_module_id(main_id: str, slot: int) -> str:
    """The frozen copy of ``main_id`` kept in snapshot ``slot``."""
    return f"{main_id}_snap{slot}"


def to_rllib_obs(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A PettingZoo observation dict in the layout RLlib's action-masking module reads."""
    return {
        "observations": np.asarray(observation["observation"], np.float32),
        "action_mask": np.asarray(observation["action_mask"], np.float32),
    }


class RLlibGinEnv(MultiAgentEnv):
    """A gin AEC env as an RLlib ``MultiAgentEnv`` with role agent ids.

    ``config`` (RLlib's ``env_config``): ``game`` (``"three_handed"`` or ``"gin"``),
    ``episode`` (``"hand"`` here by default, or ``"match"``), and any option of the
    underlying ``raw_env`` (``adviser``, ``reward``, ``reward_scale``, rules ...).
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        options = dict(config or {})
        self.game = options.pop("game", "three_handed")
        _check_choice("game", self.game, GAMES)
        options.setdefault("episode", "hand")
        self.aec = games.get(self.game).make_env(**options)
        adviser = getattr(self.aec.config, "adviser", "none")  # the table's (three-handed)
        self.agents = self.possible_agents = list(roles_of(self.game, adviser))
        obs_space = gym.spaces.Dict(
            {
                # High 2, not 1: the deadwood entry (deadwood / 100) passes 1 for the
                # rare 11-card hand with more than 100 points of deadwood.
                "observations": gym.spaces.Box(
                    0.0, 2.0, (games.get(self.game).observation_size(),), np.float32
                ),
                "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
            }
        )
        act_space = gym.spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.agents, obs_space)
        self.action_spaces = dict.fromkeys(self.agents, act_space)
        self._to_act: str | None = None
        self._acted: set[str] = set()
        self._player_of: dict[str, str] = {}

    # -- helpers --------------------------------------------------------------------------
    def _roles_now(self) -> dict[str, str]:
        """AEC agent -> its role in the hand being played."""
        return {a: self.aec.role_name(a) for a in self.aec.possible_agents}

    def _info(self, player: str) -> dict[str, Any]:
        return {**self.aec.infos[player], "player": player}

    def _next_turn(self) -> tuple[dict[str, Any], dict[str, Any]]:
        player = self.aec.agent_selection
        role = self.aec.role_name(player)
        self._to_act = role
        self._player_of[role] = player
        obs = to_rllib_obs(self.aec.observe(player))
        return {role: obs}, {role: self._info(player)}

    # -- the MultiAgentEnv API ------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.aec.reset(seed=seed, options=options)
        self._acted = set()
        self._player_of = {}
        return self._next_turn()

    def step(
        self, action_dict: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        role = self._to_act
        if role is None:
            raise RuntimeError("call reset() before step(), and again after the episode ends")
        if set(action_dict) != {role}:
            raise ValueError(
                f"action_dict must hold exactly the agent to act, {role!r}; "
                f"got {sorted(action_dict)}"
            )
        player = self._player_of[role]
        action = check_action(action_dict[role])  # an integer id in range, nothing else
        mask = self.aec.observe(player)["action_mask"]
        if not mask[action]:
            raise ValueError(
                f"illegal action {action} for {role} ({player}); legal: "
                f"{np.flatnonzero(mask).tolist()}"
            )
        # Rewards of this step belong to the hand being played, so to the roles held now.
        roles_before = self._roles_now()
        self.aec.step(action)
        self._acted.add(role)
        rewards: dict[str, float] = {}
        for a, r in self.aec.rewards.items():
            r_role = roles_before[a]
            if r_role in self._acted:  # an agent RLlib has not seen yet cannot be paid
                rewards[r_role] = rewards.get(r_role, 0.0) + float(r)
        terminated = any(self.aec.terminations.values())
        truncated = any(self.aec.truncations.values()) and not terminated
        if terminated or truncated:
            self._to_act = None
            player_by_role = {r: a for a, r in roles_before.items()}
            obs, infos = {}, {}
            for r in sorted(self._acted):
                p = player_by_role[r]
                obs[r] = to_rllib_obs(self.aec.observe(p))
                infos[r] = self._info(p)
            return obs, rewards, {"__all__": terminated}, {"__all__": truncated}, infos
        obs, infos = self._next_turn()
        return obs, rewards, {"__all__": False}, {"__all__": False}, infos

    def render(self) -> str | None:
        return self.aec.table_text()


class PolicyMapping:
    """RLlib's ``policy_mapping_fn``: agent (a role) -> module id.

    Without snapshots every role plays its main module (``"main"`` or the role's own).
    With ``num_snapshots`` > 0, each episode draws (from its id, so teammates agree) a
    learning side and a snapshot slot: roles of the learning side play the main modules,
    the other side plays the frozen copies in that slot.
    """

    def __init__(self, game: str, policies: str, num_snapshots: int = 0) -> None:
        _check_choice("game", game, GAMES)
        _check_choice("policies", policies, POLICY_MODES)
        if isinstance(num_snapshots, bool) or not isinstance(num_snapshots, int):
            raise ValueError(f"num_snapshots must be an int >= 0, got {num_snapshots!r}")
        if num_snapshots < 0:
            raise ValueError(f"num_snapshots must be an int >= 0, got {num_snapshots!r}")
        self.game = game
        self.policies = policies
        self.num_snapshots = num_snapshots
        self.sides = sides_of(game)

    def main_for(self, role: str) -> str:
        if role not in self.sides:
            raise ValueError(f"agent id must be one of {', '.join(self.sides)}; got {role!r}")
        return SHARED_MODULE if self.policies == "shared" else role

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        main = self.main_for(agent_id)
        if self.num_snapshots == 0 or episode is None:
            return main
        # Seeded by the episode id (str seeds hash stably across processes).
        draw = random.Random(f"gin-selfplay:{episode.id_}")
        learner_side = draw.randrange(2)
        slot = draw.randrange(self.num_snapshots)
        if self.sides[agent_id] == learner_side:
            return main
        return snapshot_module_id(main, slot)
