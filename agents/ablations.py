"""Ablations of the advice channel, as advisers: what the captain's team scores when the
adviser says nothing (:class:`MutedAdviser`), suggests moves of the right form that carry no
information about the cards (:class:`ShuffledAdviser`), or suggests what the captain would
play anyway (:class:`OwnPolicyAdviser`). :func:`make_adviser` builds the adviser of a spec
that names one of :data:`ADVICE_ABLATIONS` or any agent.

>>> type(make_adviser("muted", None)).__name__, make_adviser("none", None)
('MutedAdviser', None)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import agents as agent_registry
from agents.advice import Captain
from gin_env import actions as A
from gin_env.cards import NUM_CARDS
from gin_env.encoding import OBS_SLICES
from gin_env.match import CAPTAIN

__all__ = [
    "ADVICE_ABLATIONS",
    "MutedAdviser",
    "ShuffledAdviser",
    "OwnPolicyAdviser",
    "make_adviser",
]

#: Adviser specs that are ablations of the advice channel rather than agents.
ADVICE_ABLATIONS = ("none", "muted", "shuffled", "own")


_CARD_PARTS = ("hand", "top_discard", "discard_pile", "opponent_took", "opponent_discarded",
               "partner_discarded")  # fmt: skip


def _without_no_advice(mask: np.ndarray) -> np.ndarray:
    out = np.array(mask, dtype=np.int8, copy=True)
    if out[A.NO_ADVICE] and out.sum() > 1:
        out[A.NO_ADVICE] = 0
    return out


class MutedAdviser:
    """The advice channel muted: the adviser always says ``NO_ADVICE`` (the captain sees
    the one-hot of ``NO_ADVICE``, unlike ``adviser="none"`` where it sees no suggestion)."""

    name = "muted"

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        mask = np.asarray(observation["action_mask"])
        return A.NO_ADVICE if mask[A.NO_ADVICE] else int(np.flatnonzero(mask)[0])


class ShuffledAdviser:
    """Advice of the right form and frequency carrying no information about the cards.

    At each decision the adviser's observation is relabelled by a fresh random permutation
    ``s`` of the 52 cards (every card part, and the discard/knock entries of the mask), the
    ``agent`` (L2 by default) chooses a suggestion there, and card ``s[c]`` of its choice is
    mapped back to card ``c``. The suggestion is always legal and draws, takes, passes,
    discards and knocks as the agent would on some position, but which card it names is
    unrelated to the captain's melds.
    """

    name = "shuffled"

    def __init__(self, agent: Any = None) -> None:
        self.agent = agent if agent is not None else agent_registry.make("heuristic")

    @staticmethod
    def relabel(observation: dict[str, np.ndarray], perm: np.ndarray) -> dict[str, np.ndarray]:
        """The observation with card ``c`` renamed ``perm[c]`` (``NO_ADVICE`` masked out)."""
        obs = np.array(observation["observation"], dtype=np.float32, copy=True)
        for part in _CARD_PARTS:
            s = OBS_SLICES[part]
            block = obs[s].copy()
            obs[s.start + perm] = block
        mask = _without_no_advice(np.asarray(observation["action_mask"]))
        new_mask = mask.copy()
        for base in (A.DISCARD, A.KNOCK):
            new_mask[base + perm] = mask[base : base + NUM_CARDS]
        return {"observation": obs, "action_mask": new_mask}

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        rng = rng if rng is not None else np.random.default_rng()
        perm = rng.permutation(NUM_CARDS)
        a = int(self.agent.act(self.relabel(observation, perm), rng))
        inverse = np.argsort(perm)
        for base in (A.DISCARD, A.KNOCK):
            if base <= a < base + NUM_CARDS:
                return base + int(inverse[a - base])
        return a


class OwnPolicyAdviser:
    """Suggests what ``policy`` would play in the captain's own seat: the adviser's
    observation turned into the captain's (role captain, not advising, no suggestion,
    ``NO_ADVICE`` masked out). With the captain's own policy this is advice that adds no
    information; a captain that follows it plays as it would alone."""

    name = "own"

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        obs = np.array(observation["observation"], dtype=np.float32, copy=True)
        obs[OBS_SLICES["role"]] = 0
        obs[OBS_SLICES["role"].start + CAPTAIN] = 1
        obs[OBS_SLICES["advising"]] = 0
        obs[OBS_SLICES["suggestion"]] = 0
        mask = _without_no_advice(np.asarray(observation["action_mask"]))
        return int(self.policy.act({"observation": obs, "action_mask": mask}, rng))


def _own_policy(captain: Any) -> Any:
    return captain.agent if isinstance(captain, Captain) else captain


def make_adviser(spec: Any, captain: Any, make: Callable[[Any], Any] | None = None) -> Any:
    """The adviser for ``spec``: ``None`` for ``"none"`` (the env's ``adviser="none"``),
    :class:`MutedAdviser`, :class:`ShuffledAdviser` (L2 on relabelled cards),
    :class:`OwnPolicyAdviser` of the captain's own policy (a :class:`~agents.advice.Captain`'s
    wrapped agent), or any agent spec / object (``"adviser:agent=heuristic"`` suggests what
    L2 would play as captain), built by ``make`` (default :func:`agents.make`; an object
    is used as it is)."""
    if spec == "none":
        return None
    if spec == "muted":
        return MutedAdviser()
    if spec == "shuffled":
        return ShuffledAdviser()
    if spec == "own":
        return OwnPolicyAdviser(_own_policy(captain))
    if make is not None:
        return make(spec)
    return agent_registry.make(spec) if isinstance(spec, str) else spec
