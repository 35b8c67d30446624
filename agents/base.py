"""What every agent shares: the ``Agent`` interface and :class:`ObservedSeat`, an observation
decoded into card masks.

Agents see only what their seat sees. :func:`decode` reads the observation dict (vector and
action mask) with the layout's one decoder (:func:`gin_env.encoding.decode_observation`)
and nothing else, so an agent can run on observations detached from any env. The search
agent's simulator builds the same :class:`ObservedSeat` straight from a sampled hand, so
one policy code path serves both.

>>> import numpy as np
>>> from gin_env import actions as A
>>> from gin_env.encoding import OBS_SIZE, OBS_SLICES
>>> obs = np.zeros(OBS_SIZE, np.float32)
>>> obs[OBS_SLICES["hand"].start + 3] = 1
>>> obs[OBS_SLICES["stock_size"].start] = 20 / 31
>>> mask = np.zeros(A.NUM_ACTIONS, np.int8); mask[[0, 1]] = 1
>>> view = decode({"observation": obs, "action_mask": mask})
>>> view.hand, view.stock_size, view.legal
(8, 20, [0, 1])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from gin_env import actions as A
from gin_env.config import HandRules
from gin_env.encoding import decode_observation
from gin_env.hand import Phase
from gin_env.match import ADVISER, BOX, CAPTAIN

__all__ = [
    "Agent",
    "ObservedSeat",
    "decode",
    "legal_actions",
    "game_actions",
    "ViewAgent",
    "table_rules",
    "ROLE_BOX",
    "ROLE_CAPTAIN",
    "ROLE_ADVISER",
    "PHASE_UPCARD_NONDEALER",
    "PHASE_UPCARD_DEALER",
    "PHASE_DRAW",
    "PHASE_DISCARD",
    "PHASE_OVER",
]

# The observation's role and phase one-hots are indexed by these (gin_env.encoding).
ROLE_BOX, ROLE_CAPTAIN, ROLE_ADVISER = BOX, CAPTAIN, ADVISER
PHASE_UPCARD_NONDEALER, PHASE_UPCARD_DEALER, PHASE_DRAW, PHASE_DISCARD, PHASE_OVER = (
    int(p) for p in Phase
)


@runtime_checkable
class Agent(Protocol):
    """A policy: the id of a legal action for an observation dict."""

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int: ...


@dataclass(slots=True)
class ObservedSeat:
    """One seat's knowledge of a hand, as masks of card ints (``suit * 13 + rank``).

    ``hand`` is the seen hand (the adviser's: the captain's). ``top_discard`` is -1 when
    the pile is empty; ``suggestion`` is -1 when there is none.
    """

    role: int
    phase: int
    advising: bool
    hand: int
    top_discard: int
    discard_pile: int
    opponent_took: int
    opponent_discarded: int
    own_discarded: int
    stock_size: int
    suggestion: int
    legal: list[int]
    #: The match's scores by role (dealer, non-dealer, 0 in gin; box, captain, adviser)
    #: over the target, capped at 1, as the observation shows them.
    scores: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def known(self) -> int:
        """Cards whose place this seat knows: its hand, the pile, the opponent's pickups."""
        return self.hand | self.discard_pile | self.opponent_took


def legal_actions(observation: dict[str, Any]) -> list[int]:
    mask = np.asarray(observation["action_mask"])
    legal: list[int] = np.flatnonzero(mask).tolist()
    if not legal:
        raise ValueError("the action mask has no legal action: this agent is not to act")
    return legal


def decode(observation: dict[str, Any]) -> ObservedSeat:
    """The :class:`ObservedSeat` of an observation dict ``{"observation", "action_mask"}``."""
    if not isinstance(observation, Mapping) or not {"observation", "action_mask"} <= set(
        observation
    ):
        raise ValueError(
            "an agent acts on the env's observation dict {'observation', 'action_mask'}; "
            f"got {type(observation).__name__}"
            + (f" with keys {sorted(observation)}" if isinstance(observation, Mapping) else "")
        )
    v = decode_observation(observation["observation"])  # either layout (v1: v0's first)
    mask_shape = np.shape(observation["action_mask"])
    if mask_shape != (A.NUM_ACTIONS,):
        raise ValueError(f"action_mask must have shape ({A.NUM_ACTIONS},), got {mask_shape}")
    return ObservedSeat(
        role=v.role,
        phase=v.phase,
        advising=v.advising,
        hand=v.hand,
        top_discard=v.top_discard,
        discard_pile=v.discard_pile,
        opponent_took=v.opponent_took,
        opponent_discarded=v.opponent_discarded,
        own_discarded=v.partner_discarded,
        stock_size=v.stock_size,
        suggestion=v.suggestion,
        legal=legal_actions(observation),
        scores=v.scores,
    )


def game_actions(legal: list[int]) -> list[int]:
    """The legal ids that are moves of the hand (the adviser's ``NO_ADVICE`` dropped)."""
    return [a for a in legal if a != A.NO_ADVICE] or legal


def table_rules(rules: HandRules | None) -> HandRules:
    """The rules of one hand at a table: those of a gin table
    (:class:`~gin_env.config.GinConfig`, :class:`~gin_env.config.ThreeHandedConfig`) or a
    :class:`~gin_env.config.HandRules`; None is the standard rules. Anything else is a
    ``ValueError`` (a table is typed: build one with ``gin_env.games.get(game).table()``).

    >>> from gin_env.config import ThreeHandedConfig
    >>> table_rules(ThreeHandedConfig(oklahoma=True, target_score=50)).oklahoma
    True
    """
    if rules is None:
        return HandRules()
    if isinstance(rules, HandRules):
        return rules.hand_rules()
    raise ValueError(
        "rules must be a gin table (GinConfig, ThreeHandedConfig), HandRules or None; got "
        f"{type(rules).__name__}"
    )


class ViewAgent:
    """Base of the rule-based agents: ``act`` decodes the observation, ``choose`` decides.

    ``choose`` is also what the search agent's simulator calls with views it builds itself.
    """

    name = "view"

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        view = decode(observation)
        if view.advising and view.hand.bit_count() not in (10, 11):
            # An adviser who does not see the captain's hand has nothing to go on.
            return A.NO_ADVICE if A.NO_ADVICE in view.legal else view.legal[0]
        return self.choose(view, rng)

    def choose(self, view: ObservedSeat, rng: np.random.Generator | None = None) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
