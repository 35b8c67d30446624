"""What every AEC env of the package shares: PettingZoo's standard wrappers (made fast),
an action space with a quick membership test, and text-or-picture rendering; and
:class:`HistoryInObservation`, the move history inside the flat observation for libraries
that keep only ``obs["observation"]`` (Tianshou's ``PettingZooEnv``).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper, wrappers

from gin_env.actions import check_action

__all__ = [
    "RENDER_MODES",
    "ActionSpace",
    "AgentSpaces",
    "StatePickle",
    "TableRender",
    "wrap",
    "wrap_plain",
    "check_options",
    "HistoryInObservation",
]

RENDER_MODES = ("ansi", "human", "rgb_array")


class _Forwarding:
    """Reads of the AEC attributes, forwarded to the raw env by properties.

    PettingZoo's wrappers reach these through ``BaseWrapper.__getattr__``, one failed lookup
    per wrapper layer; in the ``agent_iter``/``last``/``step`` loop that chain cost about as
    much as the env itself. The values (and the errors before ``reset``) are the same.
    """

    env: AECEnv
    _raw_env: AECEnv

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        super().__init__(env, *args, **kwargs)  # type: ignore[call-arg]
        self._raw_env = env.unwrapped


def _forward(name: str, guarded: bool) -> property:
    def set_(self: Any, value: Any) -> None:
        setattr(self._raw_env, name, value)

    if not guarded:
        # attrgetter runs in C: no Python frame per read.
        return property(attrgetter(f"_raw_env.{name}"), set_, doc=f"``{name}`` of the raw env.")

    # OrderEnforcingWrapper refuses these before reset(); an AttributeError raised here falls
    # through to its __getattr__, which raises its own message.
    def get(self: Any) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw_env, name)

    return property(get, set_, doc=f"``{name}`` of the raw env.")


_GUARDED = ("agent_selection", "agents", "terminations", "truncations", "rewards", "infos")
_FORWARDED = _GUARDED + ("_cumulative_rewards",)


class _TerminateIllegal(_Forwarding, wrappers.TerminateIllegalWrapper):
    pass


class _AssertOutOfBounds(_Forwarding, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's bounds check, as a ``ValueError`` that names the value and the range
    (:func:`gin_env.actions.check_action`) rather than a bare ``assert``, which says
    neither and which ``python -O`` strips (then ``-1`` reached the illegal-move wrapper
    as the mask's last entry). It runs before the illegal-move wrapper, so a value that
    is not an action raises and changes nothing, while a legal-range illegal move still
    ends the game as PettingZoo's wrappers do."""

    def step(self, action: Any) -> None:
        raw = self._raw_env
        agent = raw.agent_selection
        if not (raw.terminations[agent] or raw.truncations[agent]):
            if action is None:
                raise ValueError(f"{agent} must act: action None is only for finished agents")
            action = check_action(action, raw.action_space(agent).n)
        super().step(action)


class _OrderEnforcing(_Forwarding, wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks, with the raw envs' messages: a ``RuntimeError`` that says
    what to do (PettingZoo's own are an ``AssertionError`` before ``reset``, an
    ``AttributeError`` from ``last``, and only a warning for a step after the end)."""

    def _check_order(self, what: str) -> None:
        if not self._has_reset:
            raise RuntimeError(before_reset(what))
        if not self._raw_env.agents and what not in ("observe", "state"):
            raise RuntimeError(episode_over(what))

    def step(self, action: Any) -> None:
        if not (self._has_reset and self._raw_env.agents):
            self._check_order("step")
        super().step(action)

    def observe(self, agent: Any) -> Any:
        if not self._has_reset:
            self._check_order("observe")
        return super().observe(agent)

    def last(self, observe: bool = True) -> Any:
        if not (self._has_reset and self._raw_env.agents):
            self._check_order("last")
        return super().last(observe)

    def state(self) -> np.ndarray:
        self._check_order("state")
        return super().state()


for _name in _FORWARDED:
    setattr(_TerminateIllegal, _name, _forward(_name, False))
    setattr(_AssertOutOfBounds, _name, _forward(_name, False))
    setattr(_OrderEnforcing, _name, _forward(_name, _name in _GUARDED))


def wrap(env: AECEnv) -> AECEnv:
    """PettingZoo's standard wrappers, as the classic envs use them: an illegal action
    ends the game with reward -1 for the agent who made it.

    They are PettingZoo's own ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper``, subclassed to forward attribute reads by properties (see
    ``_Forwarding``) and to refuse a value that is not an action with a ``ValueError``;
    :func:`wrap_plain` applies the originals.
    """
    env = _TerminateIllegal(env, illegal_reward=-1)
    env = _AssertOutOfBounds(env)
    return _OrderEnforcing(env)


def wrap_plain(env: AECEnv) -> AECEnv:
    """The same wrappers without the forwarding properties (for comparison benchmarks)."""
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


class StatePickle:
    """Pickling and ``copy.deepcopy`` keep the whole env, mid-game included: the copy
    continues exactly as the original would (same cards to come, same seeded generator).

    Put before ``EzPickle`` in the bases: ``EzPickle`` alone pickles only the constructor's
    arguments, so a copy would come back as a fresh, never-reset env.
    """

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``contains`` answers a plain ``int`` at once.

    ``AssertOutOfBoundsWrapper`` checks every action with ``contains``; gymnasium's builds
    ``np.iinfo`` and a numpy scalar for each. Anything but a plain int takes that path.
    """

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return bool(self.start <= x < self.start + self.n)
        return super().contains(x)


def check_render_hands(value: object, agents: list[str]) -> str:
    """The ``render_hands`` option: ``"none"``, ``"all"`` or an agent's name."""
    allowed = ("none", "all", *agents)
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(
            f"render_hands must be one of {', '.join(map(repr, allowed))}; got {value!r}"
        )
    return value


class TableRender:
    """``render()`` for an env with ``render_mode``, ``table_text()`` and ``_table_image()``:
    ``"ansi"`` returns the text, ``"human"`` prints it, ``"rgb_array"`` draws the table.

    ``render_hands`` says which hands are face up before a hand ends (both pictures and
    text): ``"none"`` (an onlooker: card counts and backs only), ``"all"`` (every hand, for
    debugging), or an agent's name (what that seat knows: its own hand; an adviser who sees
    the hand, the captain's; the adviser's suggestion only for the captain's team).
    """

    render_mode: str | None
    render_hands: str = "none"

    def table_text(self, show_all: bool = False, view: str = "none") -> str:
        raise NotImplementedError

    def _table_image(self) -> np.ndarray:
        raise NotImplementedError

    def face_up(self, view: str) -> set[int]:
        """Players whose hands ``view`` (a ``render_hands`` value) shows face up."""
        raise NotImplementedError

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self.render_mode == "rgb_array":
            return self._table_image()
        text = self.table_text(view=self.render_hands)
        if self.render_mode == "human":
            print(text, end="\n\n")
            return None
        return text


class AgentSpaces:
    """``observation_space(agent)`` / ``action_space(agent)`` read from the dicts an env
    fills once in ``__init__`` (PettingZoo wants the same object on every call)."""

    observation_spaces: dict[str, spaces.Space]
    action_spaces: dict[str, spaces.Space]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]


def check_options(options: object, example: str = "{'deck': [52 card ints]}") -> dict[str, Any]:
    """``reset``'s ``options``: None (no options) or a dict, returned as a dict; anything else
    raises a ``ValueError`` that shows the form (a list used to fail as an AttributeError)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(
            f"reset options must be a dict such as {example}, or None; got {options!r}"
        )
    return options


def before_reset(what: str) -> str:
    return f"{what}() before reset(): call reset() first to start an episode"


def episode_over(what: str) -> str:
    return f"{what}(): the episode is over (every agent is done); call reset() to start a new one"


class TurnChecks:
    """The checks every turn-based env here makes before it observes or steps: whose turn
    it is, PettingZoo's dead step for a finished agent, ``None`` or a non-int refused for a
    live one; and a ``close`` with nothing to release."""

    agent_selection: str
    terminations: dict[str, bool]
    truncations: dict[str, bool]

    def _seat_of(self, agent: str, seats: dict[str, int]) -> int:
        """``seats[agent]``, or a KeyError that lists the agents."""
        try:
            return seats[agent]
        except (KeyError, TypeError):
            raise KeyError(f"unknown agent {agent!r}; agents: {', '.join(seats)}") from None

    def _to_act(self, agent: str) -> bool:
        """Is ``agent`` the one to act, and still playing?"""
        return agent == self.agent_selection and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True)
        )

    def _check_order(self, what: str) -> None:
        """A ``RuntimeError`` that says what to do for a call before ``reset()``, or (but
        for ``observe``) after every agent is done."""
        if not hasattr(self, "agent_selection"):
            raise RuntimeError(before_reset(what))
        if what not in ("observe", "state") and not self.agents:  # type: ignore[attr-defined]
            raise RuntimeError(episode_over(what))

    def last(self, observe: bool = True) -> Any:
        self._check_order("last")
        return super().last(observe)  # type: ignore[misc]

    def _dead_step(self, action: object) -> int | None:
        """None when the agent to act has finished (the step was PettingZoo's dead step);
        else the action as a plain int, checked by :func:`gin_env.actions.check_action`
        (a live agent's ``None``, a float, a bool, a string or an id out of range raises
        ``ValueError`` before anything changes)."""
        try:
            agent = self.agent_selection
        except AttributeError:  # before reset
            agent = ""
        if not agent or not self.agents:  # type: ignore[attr-defined]
            self._check_order("step")  # raises: before reset, or every agent done
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)  # type: ignore[attr-defined]
            return None
        if action is None:
            raise ValueError(f"{agent} must act: action None is only for finished agents")
        return check_action(action, self.action_space(agent).n)  # type: ignore[attr-defined]

    def close(self) -> None:
        pass


class HistoryInObservation(BaseWrapper):  # type: ignore[type-arg]
    """An env made with ``observation="history"``, its move history moved inside the flat
    ``observation`` vector: the vector, then ``history`` row by row (64 x 63), then
    ``history_mask`` (64); ``action_mask`` as before. For libraries that keep only
    ``obs["observation"]`` and the mask (Tianshou's ``PettingZooEnv``), so the history
    reaches the policy, which reshapes ``obs[n:n + 64 * 63]`` (``n`` the flat size, 436 for
    the v0 layout) back to ``[64, 63]``.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        space = env.observation_space(env.possible_agents[0])
        if not isinstance(space, spaces.Dict) or "history" not in space.spaces:
            raise ValueError("HistoryInObservation needs an env made with observation='history'")
        flat_shape, history_shape = space["observation"].shape, space["history"].shape
        assert flat_shape is not None and history_shape is not None  # Box spaces
        self.flat_size = int(flat_shape[0])
        self.history_shape = tuple(history_shape)
        size = self.flat_size + int(np.prod(self.history_shape)) + self.history_shape[0]
        self._space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                "action_mask": space["action_mask"],
            }
        )
        self.observation_spaces = dict.fromkeys(env.possible_agents, self._space)

    def observation_space(self, agent: str) -> spaces.Space:  # type: ignore[type-arg]
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        flat = np.concatenate(
            [obs["observation"], obs["history"].ravel(), obs["history_mask"].astype(np.float32)]
        )
        return {"observation": flat, "action_mask": obs["action_mask"]}
