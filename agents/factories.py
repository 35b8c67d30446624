"""The registry's factories: a spec's options in, an agent out, for the agents whose
constructors do not take the options as they are (:func:`agents.register`).

A factory that reads the table is called with ``table=`` (None off any table: the agent's
default rules); one that makes agents inside it (a rollout policy, an adviser's agent, the
agent behind a player in words) is called with ``build=`` as well: :class:`Build`, which
makes an agent by spec at the same table, checked as the registry checks any.
"""

from __future__ import annotations

from typing import Any, Protocol

from agents.advice import Adviser, Captain
from agents.heuristic import HeuristicAgent, HeuristicParams
from agents.llm import LLMAgent, WordsAgent
from agents.search import SearchAgent
from agents.tuned import TunedAgent, make_tuned
from gin_env.config import GinTable, Table

__all__ = [
    "Build",
    "WORDS_PLAYER",
    "heuristic",
    "search",
    "tuned",
    "adviser",
    "captain",
    "llm",
    "words",
]

#: The settings every player in words takes (the base class of :class:`LLMAgent` and
#: :class:`WordsAgent`), for the options of ``llm`` and ``words``.
WORDS_PLAYER = WordsAgent.__mro__[1]


class Build(Protocol):
    """Makes the agent ``spec`` (with ``options`` beside the spec's) at the table of the
    agent being made."""

    def __call__(self, spec: str, **options: Any) -> Any: ...


def heuristic(table: GinTable | None, **params: Any) -> HeuristicAgent:
    """``"heuristic:danger_weight=3.0"``: L2 with :class:`HeuristicParams` set."""
    return HeuristicAgent(HeuristicParams(**params) if params else None, table)


def search(table: GinTable | None, build: Build, policy: Any = None, **kwargs: Any) -> SearchAgent:
    """``"search:worlds=8,policy=simple"``: a rollout policy by name plays at the same table."""
    rollout = build(policy) if isinstance(policy, str) else policy
    return SearchAgent(policy=rollout, rules=table, **kwargs)


def tuned(table: GinTable | None, **kwargs: Any) -> TunedAgent:
    """``"tuned"``: L2 with the parameter set tuned for the table."""
    return make_tuned(table, **kwargs)


def adviser(table: GinTable | None, build: Build, agent: str = "heuristic", **kwargs: Any) -> Any:
    """``"adviser:agent=search"`` suggests what ``search`` would play (``kwargs``: its options)."""
    return Adviser(build(agent, **kwargs))


def captain(
    table: GinTable | None,
    build: Build,
    agent: str = "heuristic",
    mode: str = "weigh",
    margin: float = 2.0,
    **kwargs: Any,
) -> Any:
    """``"captain:mode=follow"``: ``agent`` (``kwargs``: its options) weighs advice by ``mode``."""
    return Captain(build(agent, **kwargs), mode=mode, margin=margin)


def llm(table: Table | None, model: str, **kwargs: Any) -> LLMAgent:
    """``"llm:model=NAME,base_url=URL"``: a language model. It reads the whole table (the
    match target too) into its prompt; the openai client is needed only when it first asks
    the model (extra "llm")."""
    return LLMAgent(model=model, rules=table, **kwargs)


def words(table: Table | None, build: Build, agent: str = "heuristic", **kwargs: Any) -> WordsAgent:
    """``"words:agent=heuristic"``: ``agent``'s moves said in words (``kwargs``: the player in
    words' settings)."""
    return WordsAgent(build(agent), rules=table, **kwargs)
