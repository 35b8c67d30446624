"""The AEC machinery shared by ``gin_v0`` and ``three_handed_gin_v0``.

The env only translates: the match engine (:mod:`gin_env.match`) holds every rule, the
encoding (:mod:`gin_env.encoding`) builds observations and masks, and this class maps
players to agents, shuffles decks with its seeded ``np_random``, and hands out rewards.
Documentation of the options lives in the two env modules.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv

from gin_env import actions as A
from gin_env.aec_tools import (
    RENDER_MODES,
    ActionSpace,
    AgentSpaces,
    StatePickle,
    TableRender,
    TurnChecks,
    before_reset,
    check_options,
    check_render_hands,
)
from gin_env.cards import cards_str
from gin_env.config import HandRules, check_choice, check_int, check_option_names, check_real
from gin_env.encoding import (
    HISTORY_FEATURES,
    HISTORY_LENGTH,
    OBS_SIZE,
    OBS_SIZE_V1,
    action_mask,
    encode_history,
    encode_observation,
    encode_observation_v1,
    encode_state,
    state_size,
)
from gin_env.hand import HAND_KINDS, check_deck
from gin_env.match import ROLE_NAMES, HandRecord, Match
from gin_env.optional import require
from gin_env.render_image import table_image
from gin_env.table_state import TableState

__all__ = [
    "GinFamilyEnv",
    "EnvOptions",
    "REWARD_MODES",
    "EPISODE_MODES",
    "OBSERVATION_MODES",
    "INFOS_MODES",
    "make_config",
    "env_option_names",
    "role_names_for",
]

REWARD_MODES = ("team", "zero_sum", "individual", "match")
EPISODE_MODES = ("match", "hand")
OBSERVATION_MODES = ("flat", "history")
#: ``infos``: ``"readable"`` (roles by name, the hand result as a dict) or ``"numeric"`` (the
#: same as numbers under fixed keys, for libraries that turn every info into a tensor).
INFOS_MODES = ("readable", "numeric")
C = TypeVar("C", bound=HandRules)


@dataclass(frozen=True)
class EnvOptions:
    """What a gin env does with a table that is not a rule: the reward, the episode, the
    observation and the infos (the env's page documents each). Checked here, once, for the
    AEC envs and the compiled engine alike."""

    reward: str = "team"
    episode: str = "match"
    reward_scale: float = 1.0
    max_hands: int | None = None
    observation: str = "flat"
    infos: str = "readable"

    def __post_init__(self) -> None:
        check_choice("reward", self.reward, REWARD_MODES)
        check_choice("episode", self.episode, EPISODE_MODES)
        check_choice("observation", self.observation, OBSERVATION_MODES)
        check_choice("infos", self.infos, INFOS_MODES)
        check_real("reward_scale", self.reward_scale, 0, 1e6, above=True)
        if self.max_hands is not None:
            check_int("max_hands", self.max_hands, 1, 10**6)

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


class GinFamilyEnv(TurnChecks, AgentSpaces, TableRender, StatePickle, AECEnv, EzPickle):
    """Base AEC env over a :class:`~gin_env.match.Match`; subclasses make the match."""

    metadata: dict[str, Any] = {
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }
    num_players: int
    role_names: tuple[str, ...]
    #: Observation layout version: 0 (``gin_obs_v0``, 436 entries) or 1 (``gin_obs_v1``).
    obs_version: int = 0
    #: The rules' options (``make_config`` builds one from the keyword options).
    config_class: type[HandRules]

    def __init__(
        self,
        reward: str = "team",
        episode: str = "match",
        reward_scale: float = 1.0,
        max_hands: int | None = None,
        render_mode: str | None = None,
        render_hands: str = "none",
        observation: str = "flat",
        infos: str = "readable",
        **kwargs: Any,
    ) -> None:
        # By name: the subclasses' signatures differ in order (three_handed_gin_v0 starts
        # with adviser options).
        EzPickle.__init__(
            self,
            reward=reward,
            episode=episode,
            reward_scale=reward_scale,
            max_hands=max_hands,
            render_mode=render_mode,
            render_hands=render_hands,
            observation=observation,
            infos=infos,
            **kwargs,
        )
        super().__init__()
        #: The options that are not rules (the rules are :attr:`config`, the table), held
        #: once: every step reads them here.
        self.options = EnvOptions(reward, episode, reward_scale, max_hands, observation, infos)
        if render_mode is not None:
            check_choice("render_mode", render_mode, (None,) + RENDER_MODES)
        if render_mode == "rgb_array":
            require("PIL", needed_for='render_mode="rgb_array"')
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.render_hands = check_render_hands(render_hands, self.possible_agents)
        self.agents = self.possible_agents[:]
        self.observation_layout = f"gin_obs_v{self.obs_version}"
        size = OBS_SIZE_V1 if self.obs_version == 1 else OBS_SIZE
        parts: dict[str, spaces.Space] = {
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (A.NUM_ACTIONS,), np.int8),
        }
        if observation == "history":
            shape = (HISTORY_LENGTH, HISTORY_FEATURES)
            parts["history"] = spaces.Box(0.0, 1.0, shape, np.float32)
            parts["history_mask"] = spaces.Box(0, 1, (HISTORY_LENGTH,), np.int8)
        self._obs_space = spaces.Dict(parts)
        #: PettingZoo's global state (:meth:`state`): layout ``gin_state_{n}p_v0``.
        self.state_space = spaces.Box(0.0, 1.0, (state_size(self.num_players),), np.float32)
        self.state_layout = f"gin_state_{self.num_players}p_v0"
        self._act_space = ActionSpace(A.NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._act_space)
        self.np_random, _ = seeding.np_random(None)
        #: The table in play (:class:`~gin_env.table_state.TableState`), from ``reset``.
        self.table_state: TableState | None = None
        self.last_action: tuple[str, int] | None = None
        self._player_of = {a: i for i, a in enumerate(self.possible_agents)}
        self._rewarded = False
        self._last_hand_result: dict[str, Any] | None = None

    @property
    def match(self) -> Match | None:
        """The engine of the table in play, for the env modules (everyone else holds
        :attr:`table_state`)."""
        return None if self.table_state is None else self.table_state.match

    def _adviser_sees_hand(self) -> bool:
        return bool(getattr(self.config, "adviser_sees_hand", True))

    # -- the AEC API ----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # Check first, change nothing on a bad deck (not even the seed). ``deck=None`` is no
        # deck; other keys are ignored, as PettingZoo's api_test expects of reset options.
        first_deck = None
        options = check_options(options)
        if options.get("deck") is not None:
            first_deck = check_deck(options["deck"])
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        # The decks depend on the seed alone: the table in play draws them from its own
        # generator, untouched by play.
        self.table_state = TableState(
            self.config, seed, deck=first_deck, np_random=self.np_random, name=self.metadata["name"]
        )
        match = self.table_state.match
        assert match is not None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._rewarded = False
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.last_action = None
        self._last_hand_result = None
        self._update_infos(None)
        self.agent_selection = self._agent(match.current_player)
        if self.render_mode == "human":
            self.render()

    def role_name(self, agent: str) -> str:
        """``agent``'s role as its infos give it, by name under either ``infos`` mode (the
        numeric infos give the id in :attr:`role_names`)."""
        role = self.infos[agent]["role"]
        return self.role_names[int(role)] if isinstance(role, int | np.integer) else str(role)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        match = self.match
        if match is None:
            raise RuntimeError(before_reset("observe"))
        player = self._seat_of(agent, self._player_of)
        sees = self._adviser_sees_hand()
        if self.obs_version == 1:
            obs = encode_observation_v1(match, player, sees)
        else:
            obs = encode_observation(match, player, sees)
        if self._to_act(agent):
            mask = action_mask(match.legal_actions())
        else:
            mask = np.zeros(A.NUM_ACTIONS, np.int8)
        out = {"observation": obs, "action_mask": mask}
        if self.options.observation == "history":
            out["history"], out["history_mask"] = self._history(player)
        return out

    def _history(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """``player``'s view of the moves of the hand on the table (see ``encode_history``),
        as the table in play recorded them."""
        state = self._require_state()
        rec = self._require_match().record
        moves = state.moves
        captain = rec.players[0]
        adviser = player not in rec.players
        sees_card = {captain: adviser and self._adviser_sees_hand()}
        sees_advice = self.num_players == 2 or rec.roles[player] != 0  # not the box
        return encode_history(moves, player, self.num_players, sees_card, sees_advice)

    def state(self) -> np.ndarray:
        """The global state (PettingZoo's convention, for centralized critics): every hand,
        the stock as a set and in order, the pile in order, roles, scores, phase, the player
        to act, the suggestion; never part of an observation. Layout:
        :func:`gin_env.encoding.state_parts` (``state_views`` names the parts)."""
        self._check_order("state")
        return encode_state(self._require_match())

    def step(self, action: int | None) -> None:
        checked = self._dead_step(action)
        if checked is None:
            return
        action = checked
        agent = self.agent_selection
        state = self._require_state()
        match = self._require_match()
        options = self.options
        # The engine raises on an illegal action before it changes anything. A hand that
        # ends the episode stays on the table: the final observation shows it, not a new deal.
        last_hand = options.episode == "hand" or (
            options.max_hands is not None and len(match.history) >= options.max_hands
        )
        record = state.apply(action, next_hand=not last_hand)
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:  # last step's rewards go back to zero (most steps skip this)
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewarded = False
        self.last_action = (agent, action)
        if record is not None:
            self._score_hand(record)
            if options.episode == "hand" or match.is_over:
                self.terminations = dict.fromkeys(self.agents, True)
            elif last_hand:
                self.truncations = dict.fromkeys(self.agents, True)
            self._update_infos(record)
        elif self._last_hand_result is not None and self.infos[agent].get("hand_over"):
            self._update_infos(None)  # the hand that just ended is no longer "over"
        if not (self.terminations[agent] or self.truncations[agent]):
            self.agent_selection = self.possible_agents[match.current_player]  # type: ignore[index]
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # -- rewards and infos ----------------------------------------------------------------
    def _score_hand(self, record: HandRecord) -> None:
        match = self._require_match()
        result = record.result
        assert result is not None
        rewards = dict.fromkeys(self.agents, 0.0)
        if self.options.reward == "match":
            if match.is_over:
                assert match.winner is not None
                losers = self.num_players - 1
                for i, a in enumerate(self.possible_agents):
                    rewards[a] = 1.0 if i == match.winner else -1.0 / losers
        elif result.winner is not None:
            points = result.points * self.options.reward_scale
            scorer = record.players[result.winner]
            if self.options.reward == "individual":
                rewards[self._agent(scorer)] = points
            else:
                rewards.update(self._side_rewards(record, scorer, points))
        self.rewards = rewards
        self._rewarded = any(rewards.values())

    def _side_rewards(self, record: HandRecord, scorer: int, points: float) -> dict[str, float]:
        """Rewards of ``team`` and ``zero_sum`` modes: the two playing sides, +/- points."""
        loser = [p for p in record.players if p != scorer][0]
        return {self._agent(scorer): points, self._agent(loser): -points}

    def _update_infos(self, record: HandRecord | None) -> None:
        """Fresh info dicts: at reset, when a hand ends and on the step after (roles and
        scores change only then). The last hand's result stays in them once there is one."""
        match = self._require_match()
        hand_over = record is not None and record.result is not None
        if self.options.infos == "numeric":
            self._update_numeric_infos(hand_over, record)
            return
        if hand_over:
            assert record is not None and record.result is not None
            r = record.result
            self._last_hand_result = {
                "kind": r.kind,
                "points": r.points,
                "winner": None if r.winner is None else self._agent(record.players[r.winner]),
                "knocker": None if r.knocker is None else self._agent(record.players[r.knocker]),
                "roles": {
                    self._agent(p): self.role_names[role] for p, role in enumerate(record.roles)
                },
            }
        roles = match.record.roles
        for i, a in enumerate(self.possible_agents):
            if a not in self.infos:
                continue  # already removed by _was_dead_step
            info: dict[str, Any] = {
                "role": self.role_names[roles[i]],
                **match.standings(),
                "hand_over": hand_over,
            }
            if self._last_hand_result is not None:
                info["hand_result"] = self._last_hand_result
            self.infos[a] = info

    def _update_numeric_infos(self, hand_over: bool, record: HandRecord | None) -> None:
        """``infos="numeric"``: the same facts as numbers, under the same keys at every step
        (TorchRL builds its info spec from the first infos and fills it at each step).

        ``role`` is the role id (``role_names``); ``scores`` the match scores; the last hand
        (``-1`` before any has ended): ``hand_kind`` (index into ``HAND_KINDS``),
        ``hand_points``, ``hand_winner`` and ``hand_knocker`` (player ids),
        ``hand_roles`` (each player's role id in it); with ``hollywood``, ``games``
        ``[3, 2]`` and ``game_winners`` ``[3]`` (``-1``: not won yet)."""
        match = self._require_match()
        if record is not None and record.result is not None:
            r = record.result
            self._last_hand_result = {  # kept until reset, as the readable one
                "hand_kind": HAND_KINDS.index(r.kind),
                "hand_points": int(r.points),
                "hand_winner": -1 if r.winner is None else record.players[r.winner],
                "hand_knocker": -1 if r.knocker is None else record.players[r.knocker],
                "hand_roles": np.asarray(record.roles, np.int64),
            }
        last = self._last_hand_result or {
            "hand_kind": -1,
            "hand_points": 0,
            "hand_winner": -1,
            "hand_knocker": -1,
            "hand_roles": np.full(self.num_players, -1, np.int64),
        }
        standings = match.standings()
        common: dict[str, Any] = {
            "scores": np.asarray(standings["scores"], np.int64),
            "hand_over": hand_over,
        }
        if "games" in standings:
            common["games"] = np.asarray(standings["games"], np.int64)
            common["game_winners"] = np.asarray(
                [-1 if w is None else w for w in standings["game_winners"]], np.int64
            )
        roles = match.record.roles
        for i, a in enumerate(self.possible_agents):
            if a in self.infos:  # not already removed by _was_dead_step
                self.infos[a] = {"role": int(roles[i]), **common, **last}

    # -- helpers --------------------------------------------------------------------------
    def _agent(self, player: int | None) -> str:
        assert player is not None
        return self.possible_agents[player]

    def _require_state(self) -> TableState:
        if self.table_state is None:
            raise RuntimeError("call reset() before using the env")
        return self.table_state

    def _require_match(self) -> Match:
        match = self._require_state().match
        assert match is not None
        return match

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent to act (a copy: the engine caches its list)."""
        return self._require_state().legal_actions()

    # -- rendering ------------------------------------------------------------------------
    def _table_image(self) -> np.ndarray:

        return table_image(self, view=self.render_hands)

    def face_up(self, view: str) -> set[int]:
        """Players whose hands ``view`` shows face up before the hand ends: ``"none"``, ``"all"``,
        or an agent's name (its own hand; an adviser who sees the hand, the captain's)."""
        match = self._require_match()
        check_render_hands(view, self.possible_agents)
        if view == "none":
            return set()
        if view == "all":
            return set(range(self.num_players))
        player = self._player_of[view]
        players = match.record.players
        if player in players:
            return {player}
        return {players[0]} if self._adviser_sees_hand() else set()

    def hides_advice(self, view: str) -> bool:
        """Does ``view`` belong to the box player, who never sees the adviser's suggestion?"""
        if view in ("none", "all") or self.num_players != 3:
            return False
        return self._require_match().record.roles[self._player_of[view]] == 0  # the box

    def table_text(self, show_all: bool = False, view: str = "none") -> str:
        """The table as an onlooker sees it: ``show_all`` also shows the hidden hands;
        ``view`` (a ``render_hands`` value) shows what one seat knows."""
        match = self._require_match()
        faces = self.face_up(view)
        hand = match.hand
        rec = match.record
        lines = [f"Hand {rec.index + 1}   scores: " + ", ".join(
            f"{a} {s}" for a, s in zip(self.possible_agents, match.scores, strict=True)
        )]  # fmt: skip
        standings = match.standings()
        if "games" in standings:  # Hollywood scoring: three games at once
            lines[0] += "   games: " + "  ".join(
                f"{g + 1}) {a}-{b}" + ("" if w is None else f" won by {self.possible_agents[w]}")
                for g, ((a, b), w) in enumerate(
                    zip(standings["games"], standings["game_winners"], strict=True)
                )
            )
        for seat in (0, 1):
            p = rec.players[seat]
            role = self.role_names[rec.roles[p]]
            dealer = " (dealer)" if seat == hand.dealer else ""
            shown = show_all or hand.is_over or p in faces
            cards = (
                cards_str(hand.hands[seat]) if shown else f"{hand.hands[seat].bit_count()} cards"
            )
            lines.append(f"  {self.possible_agents[p]:9} {role:10}{dealer:9} {cards}")
        for p, role_id in enumerate(rec.roles):
            if p not in rec.players:
                lines.append(f"  {self.possible_agents[p]:9} {self.role_names[role_id]}")
        top = "-" if hand.top_discard is None else cards_str([hand.top_discard])
        lines.append(f"  upcard/discard: {top}   pile: {len(hand.discard_pile)}   stock: "
                     f"{hand.stock_size}   phase: {hand.phase.name.lower()}")  # fmt: skip
        if self.last_action is not None:
            who, act = self.last_action
            advice = self._player_of[who] not in rec.players  # only the adviser sits out
            what = "advised" if advice and self.hides_advice(view) else A.action_str(act)
            lines.append(f"  last action: {who} {what}")
        last = match.history[-2] if hand.result is None and len(match.history) > 1 else None
        done = rec if hand.result is not None else last
        if done is not None and done.result is not None:
            names = [self.possible_agents[p] for p in done.players]
            lines.append("  last hand: " + done.result.describe(names).replace("\n", "\n  "))
        if match.is_over:
            lines.append(f"  match over: {self.possible_agents[match.winner or 0]} wins")
        return "\n".join(lines)


def role_names_for(num_players: int) -> tuple[str, ...]:
    return ROLE_NAMES if num_players == 3 else ("dealer", "non-dealer")


def make_config(cls: type[C], rules: dict[str, Any], env: Any = None) -> C:
    """Build a rules config from keyword options; an unknown option is a ``ValueError``
    naming the env's options (``env``, its class) and the rules'."""
    allowed: dict[str, Sequence[str]] = {"the rules'": cls.option_names()}
    if env is not None:
        allowed = {"the env's": env_option_names(env), **allowed}
    check_option_names(rules, allowed, env.metadata["name"] if env is not None else cls.__name__)
    return cls(**rules)


def env_option_names(env_class: Any) -> tuple[str, ...]:
    """The options an env class takes itself (its ``__init__``'s named parameters), the
    rules apart."""
    params = inspect.signature(env_class.__init__).parameters.values()
    return tuple(p.name for p in params if p.name != "self" and p.kind is not p.VAR_KEYWORD)
