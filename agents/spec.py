"""Agent specs: ``"search:budget=0.05,candidates=2"`` read into a name and its options, what
a registered agent's spec may set (read off the signatures of its factory), and the table a
table reader plays at given the spec's rule options.

>>> parse_spec("search:budget=0.05,policy=simple,exact_draw=TRUE")
('search', {'budget': 0.05, 'policy': 'simple', 'exact_draw': True})
>>> takes = Options.of(lambda model, temperature=0.0: None)
>>> try:
...     takes.check("llm", {"temperature": 1.0, "colour": "red"})
... except UnknownOptionError as err:
...     print(err)
agent 'llm' has no option 'colour'; it takes: model, temperature
>>> try:
...     takes.check("llm", {"temperature": 1.0})
... except MissingOptionError as err:
...     print(err.options, err)
('model',) agent 'llm' needs option(s) model (e.g. llm:model=...); it takes: model, temperature
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gin_env.config import GinConfig, Table, ThreeHandedConfig

__all__ = [
    "PLAYER_SUFFIXES",
    "is_path",
    "written_as_path",
    "RULE_OPTIONS",
    "INJECTED",
    "parse_spec",
    "Options",
    "AgentOptionError",
    "UnknownOptionError",
    "MissingOptionError",
    "spec_table",
]

#: Rule options a spec may set (``"heuristic:undercut_bonus=25"``): the gin tables' fields.
RULE_OPTIONS = tuple(dict.fromkeys(GinConfig.option_names() + ThreeHandedConfig.option_names()))
#: Parameters a spec never sets: the registry gives a factory ``table`` (the table it reads)
#: and ``build`` (how it makes the agents inside it); a factory gives ``rules`` (the table).
INJECTED = ("table", "rules", "build")


#: The endings of a player file a spec may name by path (``agents.trained``'s kinds).
PLAYER_SUFFIXES = (".npz", ".zip")


def is_path(spec: str) -> bool:
    """Whether ``spec`` names a player by path: a file or folder that exists (``~``
    expanded) and is written as a path (a ``/``, a ``\\`` or a player file's ending:
    ``runs/gin``, ``./best.npz``, ``model.zip``), so that a bare word stays an agent's
    name even where a folder of that name is. The path is the whole spec: a ``:`` in it is
    no option (``parse_spec`` keeps it whole)."""
    return written_as_path(spec) and Path(spec.strip()).expanduser().exists()


def written_as_path(spec: str) -> bool:
    """Whether ``spec`` is written as a path (:func:`is_path`, whether or not it exists)."""
    if not isinstance(spec, str) or not spec.strip():
        return False
    text = spec.strip()
    return "/" in text or "\\" in text or text.endswith(PLAYER_SUFFIXES) or text == "."


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"search:budget=0.05,candidates=2"`` -> ``("search", {"budget": 0.05, ...})``;
    ``true`` / ``false`` in any case are booleans. A spec that names a player by path
    (:func:`is_path`: ``runs/gin-dmc``, ``/tmp/x:y/best.npz``) is that path, whole, with no
    options.

    >>> parse_spec("runs/no-such-run:deterministic=false")[0]
    'runs/no-such-run'
    """
    if is_path(spec):
        return spec.strip(), {}
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"bad agent option {item!r} in {spec!r}: expected key=value")
        word = value.strip()
        if word.lower() in ("true", "false"):  # as the command line's -o takes them
            options[key.strip()] = word.lower() == "true"
            continue
        try:
            options[key.strip()] = ast.literal_eval(word)
        except (ValueError, SyntaxError):
            options[key.strip()] = word  # a bare word, e.g. policy=simple
    return name.strip(), options


class AgentOptionError(ValueError):
    """A spec's options do not fit its agent: ``agent`` (the registered name), ``options``
    (the ones at fault), ``takes`` (what it does take, for the message)."""

    def __init__(self, message: str, agent: str, options: Sequence[str], takes: str) -> None:
        super().__init__(message)
        self.agent = agent
        self.options = tuple(options)
        self.takes = takes


class UnknownOptionError(AgentOptionError):
    """An option the agent does not take (``"search:colour=red"``)."""


class MissingOptionError(AgentOptionError):
    """An option the agent needs and was not given (``"llm"`` without a model)."""


@dataclass(frozen=True)
class Options:
    """What a registered agent's spec may set, read off signatures (never off the text of
    a factory's TypeError): its factory's keyword parameters and, when the factory passes
    options on with ``**kwargs``, those of the callables (or dataclasses) it ``takes``."""

    #: Every option a spec may set, in the signatures' order (the table's rule options last).
    names: tuple[str, ...]
    #: The factory's parameters without a default: a spec must set them.
    required: tuple[str, ...]
    #: The factory passes options it does not name on (``**kwargs``, nothing it ``takes``
    #: named): to an agent it builds by spec, which checks them itself.
    passed_on: bool

    @classmethod
    def of(
        cls,
        factory: Callable[..., Any],
        takes: Sequence[Callable[..., Any]] = (),
        reads_table: bool = False,
    ) -> Options:
        """The options of ``factory`` (with what it ``takes``; ``reads_table``: the table's
        rule options too)."""
        own = _parameters(factory)
        if own is None:  # no signature to read (a builtin): the factory checks its options
            return cls((), (), True)
        named = [p.name for taken in takes for p in _keywords(_parameters(taken) or [])]
        named += [p.name for p in _keywords(own)]
        if reads_table:
            named += RULE_OPTIONS
        required = tuple(p.name for p in _keywords(own) if p.default is p.empty)
        passes_on = not takes and any(p.kind is p.VAR_KEYWORD for p in own)
        return cls(tuple(dict.fromkeys(named)), required, passes_on)

    def takes(self) -> str:
        """The options, for messages: ``"budget, worlds, ..."`` or ``"no options"``."""
        return ", ".join(self.names) or "no options"

    def check(self, agent: str, options: Mapping[str, Any]) -> None:
        """Refuse ``options`` for the agent registered as ``agent``: one it does not take
        (:class:`UnknownOptionError`), or none for one it needs (:class:`MissingOptionError`)."""
        unknown = [k for k in options if k in INJECTED or not (self.passed_on or k in self.names)]
        if unknown:
            raise UnknownOptionError(
                f"agent {agent!r} has no option {unknown[0]!r}; it takes: {self.takes()}",
                agent,
                unknown,
                self.takes(),
            )
        missing = [k for k in self.required if k not in options]
        if missing:
            raise MissingOptionError(
                f"agent {agent!r} needs option(s) {', '.join(missing)} (e.g. {agent}:"
                f"{missing[0]}=...); it takes: {self.takes()}",
                agent,
                missing,
                self.takes(),
            )


def _parameters(target: Callable[..., Any]) -> list[inspect.Parameter] | None:
    """The parameters of ``target`` (a dataclass: its fields), None if it has no signature."""
    try:
        return list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):  # inspect's two kinds of "no signature to read"
        return None


def _keywords(parameters: list[inspect.Parameter]) -> list[inspect.Parameter]:
    """Those of ``parameters`` a spec can set: by keyword, and not given by the registry."""
    return [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in INJECTED
    ]


def spec_table(spec: str, options: dict[str, Any], table: Table | None) -> Table | None:
    """The table a table reader plays at: ``table``, or off a table the standard gin rules
    with the spec's rule options (None without any), which leave ``options``; at a table, a
    rule option in the spec must agree with it."""
    rules = {k: options.pop(k) for k in list(options) if k in RULE_OPTIONS}
    if table is None:
        if not rules:
            return None
        three = "adviser" in rules or "adviser_sees_hand" in rules
        return (ThreeHandedConfig if three else GinConfig)(**rules)
    differ = {k: v for k, v in rules.items() if getattr(table, k, v) != v}
    if differ:
        k, v = next(iter(differ.items()))
        raise ValueError(
            f"agent {spec!r} sets {k}={v!r}, but the table plays {k}={getattr(table, k)!r}: "
            "an agent at a table plays the table's rules"
        )
    return table
