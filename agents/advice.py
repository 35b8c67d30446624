"""Adviser and captain behaviour for the three-handed game.

The adviser acts just before each captain decision and suggests one of the captain's
legal actions (or ``NO_ADVICE``); the captain sees the suggestion and decides.

- :class:`Adviser` suggests what a given agent would play in the captain's seat (it sees
  the captain's hand by default; without it, it gives no advice). Off the adviser's chair
  it plays as that agent.
- :class:`Captain` wraps an agent and says what it does with advice: ``"follow"`` plays the
  suggestion, ``"ignore"`` plays its own choice, ``"weigh"`` plays the suggestion unless
  the heuristic's score of its own choice beats the suggestion's by more than ``margin``
  pips.

Any :class:`~agents.base.ViewAgent` already advises as it would play; these classes make the
choice explicit and let any agent (a trained one too) be wrapped.
"""

from __future__ import annotations

import numpy as np

from agents.base import PHASE_DISCARD, ROLE_ADVISER, ROLE_CAPTAIN, Agent, ObservedSeat, decode
from agents.heuristic import HeuristicAgent
from gin_env import actions as A
from gin_env.cards import POINTS
from gin_env.config import check_real
from gin_env.melds import deadwood_mask

__all__ = ["Adviser", "Captain", "CAPTAIN_MODES", "check_captain_mode"]

CAPTAIN_MODES = ("follow", "weigh", "ignore")


def check_captain_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`CAPTAIN_MODES`, else a ValueError naming them."""
    if mode not in CAPTAIN_MODES:
        raise ValueError(f"captain mode must be one of {', '.join(CAPTAIN_MODES)}; got {mode!r}")
    return mode


def _strip_advice(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The observation with ``NO_ADVICE`` masked out (what the captain could play)."""
    mask = np.array(observation["action_mask"], copy=True)
    if mask[A.NO_ADVICE] and mask.sum() > 1:
        mask[A.NO_ADVICE] = 0
    return {"observation": observation["observation"], "action_mask": mask}


class Adviser:
    """Suggests what ``agent`` would play as captain; plays as ``agent`` elsewhere."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = f"adviser({getattr(agent, 'name', type(agent).__name__)})"

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        view = decode(observation)
        if view.advising and view.role == ROLE_ADVISER:
            if view.hand == 0:  # the captain's hand is hidden: nothing useful to say
                return A.NO_ADVICE
            return int(self.agent.act(_strip_advice(observation), rng))
        return int(self.agent.act(observation, rng))


class Captain:
    """``agent`` as captain, doing ``mode`` (follow / weigh / ignore) with the advice."""

    def __init__(self, agent: Agent, mode: str = "weigh", margin: float = 2.0) -> None:
        self.agent = agent
        self.mode = check_captain_mode(mode)
        self.margin = check_real("margin (points)", margin, 0, 1e9)
        self._judge = HeuristicAgent()
        self.name = f"captain-{mode}({getattr(agent, 'name', type(agent).__name__)})"

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        view = decode(observation)
        suggestion = view.suggestion
        has_advice = (
            view.role == ROLE_CAPTAIN
            and not view.advising
            and suggestion >= 0
            and suggestion != A.NO_ADVICE
            and suggestion in view.legal
        )
        if has_advice and self.mode == "follow":
            return suggestion
        own = int(self.agent.act(observation, rng))
        if not has_advice or self.mode == "ignore" or own == suggestion:
            return own
        return (
            suggestion
            if self._score(view, suggestion) <= self._score(view, own) + self.margin
            else own
        )

    def _score(self, view: ObservedSeat, action: int) -> float:
        """The heuristic's score (lower is better) of the hand an action keeps."""
        j = self._judge
        if view.phase == PHASE_DISCARD and A.DISCARD <= action < A.BIG_GIN:
            card = (action - A.DISCARD) % 52 if action < A.KNOCK else action - A.KNOCK
            allowed = {a - A.DISCARD for a in view.legal if A.DISCARD <= a < A.KNOCK}
            banned = next((c for c in range(52) if view.hand >> c & 1 and c not in allowed), -1)
            scores, dws = j.keep_scores(view, view.hand, banned)
            if action >= A.KNOCK:  # ending the hand: its value is the deadwood shown
                return float(dws[card]) - 10.0
            return scores.get(card, float(dws.get(card, 100)))
        if action == A.TAKE_DISCARD and view.top_discard >= 0:
            taken = view.hand | 1 << view.top_discard
            scores, _ = j.keep_scores(view, taken, banned=view.top_discard)
            return min(scores.values()) if scores else 100.0
        # Drawing blind: the hand as it stands.
        return float(deadwood_mask(view.hand)) - POINTS[0]
