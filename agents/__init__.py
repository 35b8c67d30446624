"""Baseline agents of known strength, registered by name.

==============  =====  ==========================================================
name            level  what it is
==============  =====  ==========================================================
``random``      L0     uniform over the legal actions (:class:`RandomAgent`)
``simple``      L1     the classic simple strategy (:class:`SimpleAgent`)
``heuristic``   L2     deadwood, meld potential, safe discards (:class:`HeuristicAgent`)
``tuned``       L3     L2 with parameters tuned by CMA-ES per table (``agents.tuned``)
``search``      L4     determinised Monte Carlo over L2 rollouts (:class:`SearchAgent`)
``rummy-simple``       basic rummy's simple player (``agents.rummy_simple``)
==============  =====  ==========================================================

Every agent has ``act(observation, rng=None) -> int`` and sees only its seat's observation.
:func:`make` takes a name or a spec with options, ``"search:budget=0.05"`` or
``"search:worlds=8,candidates=2"`` (values are read as Python literals). Names that are not
registered are handed to :func:`load`, i.e. ``agents.trained.load(name)`` (trained
players by shipped name such as ``"gin-ppo"`` or by path, every kind; loading reads data
only and never unpickles). Code that seats an agent at an env calls
:func:`make_for_table` with the env's config, so that agents which play hands out (search)
play the table's rules, and ``tuned`` takes the parameter set tuned for them. Over a batch
of games (``[N, 436]`` observations):
:mod:`agents.batched` (L0, L1 batched; any agent row by row) and :mod:`agents.vector` (a
Gymnasium ``VectorEnv``, one learner against batched opponents).

>>> make("simple").name
'simple'
>>> make("search:budget=0.05").budget
0.05
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents import trained
from agents.advice import Adviser, Captain
from agents.base import Agent, SeatView, ViewAgent, decode, table_rules
from agents.heuristic import HeuristicAgent, HeuristicParams
from agents.random_agent import RandomAgent
from agents.search import SearchAgent
from agents.simple import SimpleAgent
from agents.tuned import TunedAgent, make_tuned
from gin_env.config import HandRules

__all__ = [
    "Agent",
    "SeatView",
    "ViewAgent",
    "decode",
    "RandomAgent",
    "SimpleAgent",
    "HeuristicAgent",
    "HeuristicParams",
    "SearchAgent",
    "TunedAgent",
    "make",
    "make_for_table",
    "load",
    "names",
    "register",
    "parse_spec",
]

_REGISTRY: dict[str, Callable[..., Any]] = {}


def register(name: str, factory: Callable[..., Any]) -> None:
    """Register ``factory(**options) -> agent`` under ``name`` (replacing any earlier one)."""
    if not isinstance(name, str) or not name or ":" in name or "," in name:
        raise ValueError(f"agent name must be a non-empty string without ':' or ',', got {name!r}")
    _REGISTRY[name] = factory


def names() -> list[str]:
    """The registered agent names."""
    return sorted(_REGISTRY)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"search:budget=0.05,candidates=2"`` -> ``("search", {"budget": 0.05, ...})``;
    ``true`` / ``false`` in any case are booleans."""
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


def _rummy_simple_class() -> Any:
    return importlib.import_module("agents.rummy_simple").RummySimpleAgent


def _rummy_simple(**kwargs: Any) -> Any:
    return _rummy_simple_class()(**kwargs)


def _search(**kwargs: Any) -> SearchAgent:
    # Rule options in the spec ("search:oklahoma=True,undercut_bonus=25") are the table's.
    table = {k: kwargs.pop(k) for k in list(kwargs) if k in HandRules.option_names()}
    if table:
        rules = kwargs.pop("rules", None)
        kwargs["rules"] = {**(_rule_dict(rules) if rules is not None else {}), **table}
    policy = kwargs.pop("policy", None)
    if isinstance(policy, str):
        kwargs["policy"] = make(policy)
    elif policy is not None:
        kwargs["policy"] = policy
    return SearchAgent(**kwargs)


def make_for_table(spec: str, rules: Any, **kwargs: Any) -> Any:
    """:func:`make` for a seat at a table with ``rules`` (the env's config, a
    :class:`~gin_env.config.HandRules` or a dict of rule options): agents that play hands
    out (``search``) or read them (``heuristic``: its undercut bonus; ``tuned``: the
    parameter set tuned for them), and an ``adviser`` / ``captain`` around them, are told
    the table's rules; the others do not use them. What code that seats agents at an env
    should call."""
    base, options = parse_spec(spec)
    inner = str(options.get("agent", "heuristic")) if base in ("adviser", "captain") else base
    if parse_spec(inner)[0] in ("llm", "words"):
        # Players in words read the whole table (the match target too) into their prompt.
        return make(spec, rules=rules if rules is not None else None, **kwargs)
    if parse_spec(inner)[0] in ("search", "heuristic", "tuned"):
        return make(spec, rules=_rule_dict(rules), **kwargs)
    return make(spec, **kwargs)


def _rule_dict(rules: Any) -> dict[str, Any]:
    hand = table_rules(rules)
    return {k: getattr(hand, k) for k in HandRules.option_names()}


def make(name: str, **kwargs: Any) -> Any:
    """A new agent by registered name or spec (``"search:budget=0.05"``); options in the
    spec and keyword arguments are passed to its factory."""
    if not isinstance(name, str):
        raise ValueError(f"agent name must be a string, got {name!r}")
    base, options = parse_spec(name)
    options.update(kwargs)
    factory = _REGISTRY.get(base)
    if factory is not None:
        try:
            return factory(**options)
        except TypeError as err:
            # An option the factory does not take: say which, and what it does take.
            bad = re.search(r"unexpected keyword argument '([^']+)'|takes no arguments", str(err))
            if bad is None or not options:
                raise
            option = bad.group(1) or next(iter(options))
            raise ValueError(
                f"agent {base!r} has no option {option!r}; it takes: {_option_names(base)}"
            ) from None
    try:
        return load(name, **kwargs)
    except (ValueError, FileNotFoundError, KeyError) as err:
        if Path(name).is_file():  # a player file that is not one: what is wrong with it
            raise ValueError(str(err)) from None
        registered = ", ".join(names())
        raise ValueError(f"unknown agent {name!r}: registered {registered}; {err}") from None


def _option_names(name: str) -> str:
    """The options an agent's spec may set, for error messages."""
    if name in ("llm", "words"):
        llm = importlib.import_module("agents.llm")
        cls = llm.LLMAgent if name == "llm" else llm.WordsAgent
        found = [
            p.name
            for c in (cls, llm.WordsAgent.__mro__[1])
            for p in inspect.signature(c).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "kwargs"
        ]
        return ", ".join(dict.fromkeys(found))
    if name == "heuristic":
        # Its parameters, then the table's rules (only the undercut bonus is read).
        found = [f.name for f in dataclasses.fields(HeuristicParams)]
        found += ["rules", *HandRules.option_names()]
    else:
        target = (
            SearchAgent
            if name == "search"
            else _rummy_simple_class()
            if name == "rummy-simple"
            else _REGISTRY[name]
        )
        found = [
            p.name
            for p in inspect.signature(target).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
    return ", ".join(found) or "no options"


def load(name_or_path: str, **kwargs: Any) -> Any:
    """A trained agent: a shipped checkpoint by name (``"gin-ppo"``, ``"three-handed-ppo"``)
    or a checkpoint file (:func:`agents.trained.load`)."""

    return trained.load(name_or_path, **kwargs)


register("random", RandomAgent)
register("simple", SimpleAgent)


def _heuristic(rules: Any = None, **kwargs: Any) -> HeuristicAgent:
    # Rule options in the spec ("heuristic:undercut_bonus=25") are the table's.
    table = {k: kwargs.pop(k) for k in list(kwargs) if k in HandRules.option_names()}
    if table:
        rules = {**(_rule_dict(rules) if rules is not None else {}), **table}
    return HeuristicAgent(HeuristicParams(**kwargs) if kwargs else None, rules=rules)


register("heuristic", _heuristic)
register("search", _search)
register("tuned", make_tuned)
register("rummy-simple", _rummy_simple)


def _adviser(agent: str = "heuristic", **kwargs: Any) -> Any:

    return Adviser(make(agent, **kwargs))


def _captain(
    agent: str = "heuristic", mode: str = "weigh", margin: float = 2.0, **kwargs: Any
) -> Any:

    return Captain(make(agent, **kwargs), mode=mode, margin=margin)


# "adviser:agent=search" suggests what search would play; "captain:mode=follow" follows advice.
register("adviser", _adviser)
register("captain", _captain)


def _llm(**kwargs: Any) -> Any:
    # agents.llm needs the openai client only when it first asks a model (extra "llm").
    return importlib.import_module("agents.llm").LLMAgent(**kwargs)


def _words(agent: str = "heuristic", rules: Any = None, **kwargs: Any) -> Any:
    inner = make(agent) if rules is None else make_for_table(agent, rules)
    return importlib.import_module("agents.llm").WordsAgent(inner, rules=rules, **kwargs)


# "llm:model=NAME,base_url=URL": a language model; "words:agent=heuristic": moves said in words.
register("llm", _llm)
register("words", _words)
