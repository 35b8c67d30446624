"""Agents by spec and the checks every evaluation makes before it plays a game.

An evaluation takes its agents as registered names / specs (seated with :func:`agents.seat`)
or as agent objects, so trained players plug in. :func:`agent_of` seats a spec once per
process and table (worker processes seat their own); :func:`check_setup` builds the agents
and an env at the table up front, so that a bad spec, env option or an agent that refuses
the table is an :class:`OptionError` before any game is played.

Results name an agent by :func:`label_of`: a spec as written, except a language model's
(``llm:``), named by its ``name=`` or its model, and any spec with ``name=``; the full
specs stay in a result's ``"specs"`` (:func:`specs_of`). :func:`seating` gives the
language models seated inside it a transcript and a run name unless their spec has its
own (``gin-rummy eval``: the run's). :func:`play_here` plays the games in this process
when a player in words is seated, so that its figures are counted (:func:`text_stats
<gin_eval.outcomes.text_stats>`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import agents as agent_registry
from agents.spec import is_path, parse_spec
from gin_env.config import Table

__all__ = [
    "AgentSpec",
    "OptionError",
    "agent_of",
    "label_of",
    "unique_labels",
    "specs_of",
    "seating",
    "words_players",
    "play_here",
    "check_count",
    "check_setup",
]

#: A registered name / spec string, or an agent object.
AgentSpec = Any
_AGENT_CACHE: dict[tuple[str, Table, tuple[tuple[str, str], ...]], Any] = {}
#: What :func:`seating` gives the language models seated inside it.
_SEATING: dict[str, str] = {}
#: The registered agents that play in words (they keep ``stats()``).
_WORDS = ("llm", "words")


class OptionError(ValueError):
    """A bad argument to an evaluation (a count, the agents, the rules), found before any
    game is played; the command line reports it as a usage error."""


def _options(spec: str) -> dict[str, Any]:
    """The options a spec sets (none for a path, or a spec that does not parse)."""
    if is_path(spec):
        return {}
    try:
        return parse_spec(spec)[1]
    except ValueError:
        return {}


def _seat_options(spec: str) -> dict[str, str]:
    """What :func:`seating` adds to ``spec`` (a language model's, where its spec is silent)."""
    if not _SEATING or is_path(spec) or spec.partition(":")[0].strip() != "llm":
        return {}
    given = _options(spec)
    return {k: v for k, v in _SEATING.items() if k not in given}


def agent_of(spec: AgentSpec, table: Table) -> Any:
    """The agent for ``spec``: an object as given, a spec seated once per process and table
    (:func:`agents.seat`: agents that read the table play its rules; a language model
    inside :func:`seating` gets its transcript and run)."""
    if not isinstance(spec, str):
        return spec
    extra = _seat_options(spec)
    key = (spec, table, tuple(sorted(extra.items())))
    if key not in _AGENT_CACHE:
        _AGENT_CACHE[key] = agent_registry.seat(spec, table, **extra)
    return _AGENT_CACHE[key]


@contextlib.contextmanager
def seating(transcript: str | Path | None = None, run: str | None = None) -> Iterator[None]:
    """Inside it, the language models (``llm:`` specs) seated by :func:`agent_of` write
    their exchanges into ``transcript`` and name their run ``run``, where their spec does
    not say its own (every thread of this process; worker processes do not see it)."""
    saved = dict(_SEATING)
    _SEATING.clear()
    if transcript is not None:
        _SEATING["transcript"] = str(transcript)
    if run is not None:
        _SEATING["run"] = str(run)
    try:
        yield
    finally:
        _SEATING.clear()
        _SEATING.update(saved)


def label_of(spec: AgentSpec) -> str:
    """The name results use for ``spec``: a language model's ``name=`` or its model
    (``llm:model=gpt-4o-mini,base_url=...`` is ``gpt-4o-mini``), a spec's ``name=``, else
    the spec as written; for an object, its ``name``."""
    if not isinstance(spec, str):
        return str(getattr(spec, "name", type(spec).__name__))
    options = _options(spec)
    name = options.get("name")
    if isinstance(name, str | int | float) and str(name).strip():
        return str(name).strip()
    model = options.get("model")
    if spec.partition(":")[0].strip() == "llm" and isinstance(model, str | int | float):
        return str(model)
    return spec


def specs_of(specs: Sequence[AgentSpec], labels: Sequence[str] | None = None) -> dict[str, str]:
    """Each agent's full spec by the label results use (an object's: its ``repr``)."""
    labels = list(labels) if labels is not None else unique_labels(specs)
    return {lab: s if isinstance(s, str) else repr(s) for lab, s in zip(labels, specs, strict=True)}


def words_players(specs: Sequence[AgentSpec], tables: Sequence[Table]) -> dict[int, list[Any]]:
    """By the position of each spec, its agents that play in words (``stats()``) seated at
    ``tables`` (each object once: a spec seated at two tables is two agents)."""
    out: dict[int, list[Any]] = {}
    for k, spec in enumerate(specs):
        if isinstance(spec, str) and spec.partition(":")[0].strip() not in _WORDS:
            continue  # seat no other agent here only to ask (a trained player is heavy)
        found: list[Any] = []
        for table in tables:
            agent = agent_of(spec, table)
            if callable(getattr(agent, "stats", None)) and all(a is not agent for a in found):
                found.append(agent)
        if found:
            out[k] = found
    return out


def play_here(
    specs: Sequence[AgentSpec], tables: Sequence[Table], workers: int, concurrency: int
) -> int:
    """The worker processes to play with: one (this process) when a player in words is
    seated and ``concurrency`` does not play the games in threads here, so that its
    counters, kept by the agent objects of the process that played, are counted."""
    if concurrency > 1 or workers <= 1:
        return workers
    return 1 if words_players(specs, tables) else workers


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
