"""Agents by spec and the checks every evaluation makes before it plays a game.

An evaluation takes its agents as registered names / specs (seated with :func:`agents.seat`)
or as agent objects, so trained players plug in. :func:`agent_of` seats a spec once per
process and table (worker processes seat their own); :func:`check_setup` builds the agents
and an env at the table up front, so that a bad spec, env option or an agent that refuses
the table is an :class:`OptionError` before any game is played.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import agents as agent_registry
from gin_env.config import Table

__all__ = [
    "AgentSpec",
    "OptionError",
    "agent_of",
    "label_of",
    "unique_labels",
    "check_count",
    "check_setup",
]

#: A registered name / spec string, or an agent object.
AgentSpec = Any
_AGENT_CACHE: dict[tuple[str, Table], Any] = {}


class OptionError(ValueError):
    """A bad argument to an evaluation (a count, the agents, the rules), found before any
    game is played; the command line reports it as a usage error."""


def agent_of(spec: AgentSpec, table: Table) -> Any:
    """The agent for ``spec``: an object as given, a spec seated once per process and table
    (:func:`agents.seat`: agents that read the table play its rules)."""
    if not isinstance(spec, str):
        return spec
    key = (spec, table)
    if key not in _AGENT_CACHE:
        _AGENT_CACHE[key] = agent_registry.seat(spec, table)
    return _AGENT_CACHE[key]


def label_of(spec: AgentSpec) -> str:
    """The name results use for ``spec``: the spec itself, or the agent's ``name``."""
    return spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)


def unique_labels(specs: Sequence[AgentSpec]) -> list[str]:
    """:func:`label_of` each, with ``#k`` (the position) added to labels that repeat."""
    labels = [label_of(a) for a in specs]
    if len(set(labels)) < len(labels):
        labels = [f"{lab}#{k}" if labels.count(lab) > 1 else lab for k, lab in enumerate(labels)]
    return labels


def check_count(name: str, value: object, low: int = 1) -> int:
    """``value`` if it is an int ``>= low``, else an :class:`OptionError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise OptionError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def check_setup(specs: Sequence[AgentSpec], make_env: Callable[[], Any], table: Table) -> None:
    """Build an env at the table and the agents seated at it once, up front: a bad spec or
    env option, or an agent that refuses the table (``tuned`` at rules it has no set for),
    is an :class:`OptionError` before any game is played."""
    try:
        make_env()
        for spec in specs:
            agent_of(spec, table)
    except OptionError:
        raise
    except ValueError as err:
        raise OptionError(str(err)) from None
