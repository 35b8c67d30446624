"""Baseline agents of known strength, registered by name, and the one way to seat them.

==============  =====  ==========================================================
name            level  what it is
==============  =====  ==========================================================
``random``      L0     uniform over the legal actions (:class:`RandomAgent`)
``simple``      L1     the classic simple strategy (:class:`SimpleAgent`)
``heuristic``   L2     deadwood, meld potential, safe discards (:class:`HeuristicAgent`)
``tuned``       L3     L2 with parameters tuned by CMA-ES per table (``agents.tuned``)
``search``      L4     determinised Monte Carlo over L2 rollouts (:class:`SearchAgent`)
``match-search``       rollouts on the compiled engine around ``tuned``, in match equity
                       (:class:`agents.search_agent.SeatSearch`)
``best``               the strongest player for each named table (``agents.search_agent``)
``rummy-simple``       basic rummy's simple player (``agents.rummy_simple``)
==============  =====  ==========================================================

Every agent has ``act(observation, rng=None) -> int`` and sees only its seat's observation.

:func:`seat` is how code makes an agent for a table: ``seat(spec, table)``, where the
table is the game's validated rules (:data:`gin_env.config.Table`: ``env.config`` of an
env, or ``gin_env.games.get("gin").table(undercut_bonus=25)``). The agents that read the
table (``heuristic`` its undercut bonus, ``search`` every rule of the hand, ``tuned`` the
parameter set tuned for it; ``adviser`` and ``captain`` hand it to their agent) say so when
they are registered (``register(name, factory, reads_table=True)``: the factory is called
with ``table=``). An agent that cannot play the table says so when it is seated, before any
game, with a one-line ``ValueError``: a gin agent at rummy, ``tuned`` at a table no set
was tuned for, a two-player checkpoint at a three-handed table and the reverse.

A spec is a name or a name with options, ``"search:budget=0.05"`` or
``"search:worlds=8,candidates=2"`` (values are read as Python literals). Names that are not
registered are trained players (by shipped name such as ``"gin-ppo"`` or by path, every
kind: :func:`load`; loading reads data only and never unpickles). :func:`make`
makes an agent off any table (the table readers get the standard rules, or rule options
in the spec: ``"heuristic:undercut_bonus=25"``); at a table, rule options in the spec
must agree with the table. Over a batch of games (``[N, 436]`` observations):
:func:`agents.batched.seat_batched` (the batched twin of :func:`seat`),
:mod:`agents.vector` (a Gymnasium ``VectorEnv``, one learner against batched opponents) and
:mod:`agents.single_agent` (the Gymnasium single-agent env).

>>> from gin_env.games import get
>>> seat("heuristic", get("gin").table(undercut_bonus=25)).rules.undercut_bonus
25
>>> seat("search:budget=0.05", get("three_handed").table()).budget
0.05
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import base, families, trained
from agents.advice import Adviser, Captain
from agents.base import Agent, ObservedSeat, ViewAgent, decode
from agents.heuristic import HeuristicAgent, HeuristicParams
from agents.random_agent import RandomAgent
from agents.search import SearchAgent
from agents.simple import SimpleAgent
from agents.tuned import TunedAgent, make_tuned
from gin_env import games
from gin_env.config import GinConfig, GinTable, RummyConfig, Table, ThreeHandedConfig

__all__ = [
    "Agent",
    "ObservedSeat",
    "ViewAgent",
    "decode",
    "RandomAgent",
    "SimpleAgent",
    "HeuristicAgent",
    "HeuristicParams",
    "SearchAgent",
    "TunedAgent",
    "seat",
    "make",
    "load",
    "names",
    "register",
    "reads_table",
    "parse_spec",
    "check_fits",
]


@dataclass(frozen=True)
class _Entry:
    factory: Callable[..., Any]
    reads_table: bool
    #: What a spec may set, for error messages: the callables whose keyword parameters
    #: (a dataclass: its fields) are the options (imported lazily; default: the factory).
    takes: Callable[[], Sequence[Callable[..., Any]]] | None


#: A factory's TypeError for an option it needs: "missing 1 required ... argument: 'model'".
_MISSING_OPTION = re.compile(r"missing \d+ required (?:positional|keyword-only) arguments?: (.*)")
_REGISTRY: dict[str, _Entry] = {}
#: Rule options a spec may set (``"heuristic:undercut_bonus=25"``): the gin tables' fields.
_RULE_OPTIONS = tuple(dict.fromkeys(GinConfig.option_names() + ThreeHandedConfig.option_names()))


def register(
    name: str,
    factory: Callable[..., Any],
    *,
    reads_table: bool = False,
    takes: Callable[[], Sequence[Callable[..., Any]]] | None = None,
) -> None:
    """Register ``factory(**options) -> agent`` under ``name`` (replacing any earlier one).
    ``reads_table=True``: the agent plays by the table's rules, and :func:`seat` calls the
    factory with ``table=`` beside the spec's options (a gin table; None when the agent is
    made off any table by :func:`make`: the factory's default rules). ``takes``: a
    function giving the callables (or dataclasses) whose parameters the spec's options are,
    when the factory passes them on with ``**kwargs`` (named in error messages)."""
    if not isinstance(name, str) or not name or ":" in name or "," in name:
        raise ValueError(f"agent name must be a non-empty string without ':' or ',', got {name!r}")
    _REGISTRY[name] = _Entry(factory, bool(reads_table), takes)


def names() -> list[str]:
    """The registered agent names."""
    return sorted(_REGISTRY)


def reads_table(name: str) -> bool:
    """Whether the registered agent ``name`` (or a spec's base name) reads the table."""
    entry = _REGISTRY.get(parse_spec(name)[0])
    return entry is not None and entry.reads_table


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


def seat(spec: str, table: Table, **options: Any) -> Any:
    """The agent ``spec`` seated at ``table``: the one way to make an agent for a table.
    ``options`` go to the factory beside the spec's (values a spec cannot spell: a path,
    an object).

    Agents that read the table are made with it; an agent that cannot play it (another
    family of games, a checkpoint trained for another number of players, ``tuned`` at a
    table no set was tuned for) is a ``ValueError`` of one line, before any game."""
    if not isinstance(table, GinConfig | ThreeHandedConfig | RummyConfig):
        raise ValueError(
            "a table is a game's rules object (GinConfig, ThreeHandedConfig, RummyConfig: "
            f"env.config, or gin_env.games.get(game).table(...)); got {type(table).__name__}"
        )
    return _build(spec, table, **options)


def make(spec: str, **kwargs: Any) -> Any:
    """A new agent by registered name or spec (``"search:budget=0.05"``), off any table:
    the agents that read the table get the standard rules, or the rule options in the spec
    (``"heuristic:undercut_bonus=25"``). Code that seats an agent at a table calls
    :func:`seat`. ``kwargs`` go to the factory beside the spec's options."""
    return _build(spec, None, **kwargs)


def _build(spec: str, table: Table | None, **kwargs: Any) -> Any:
    """The agent ``spec`` at ``table`` (None: off any table); agents inside others (an
    adviser's, a rollout policy) are built here too, so they are checked alike."""
    if not isinstance(spec, str):
        raise ValueError(f"agent name must be a string, got {spec!r}")
    if table is not None:  # an agent of the table's family of games (rummy: simple is its own)
        spec = families.agent_spec(games.of_table(table), spec)
    agent = _make(spec, table, **kwargs)
    if table is not None:
        check_fits(agent, spec, table)
    return agent


def _make(spec: str, table: Table | None, **kwargs: Any) -> Any:
    base, options = parse_spec(spec)
    options.update(kwargs)
    entry = _REGISTRY.get(base)
    if entry is None:
        try:
            return load(spec, **kwargs)
        except (ValueError, FileNotFoundError, KeyError) as err:
            if Path(spec).is_file():  # a player file that is not one: what is wrong with it
                raise ValueError(str(err)) from None
            raise ValueError(
                f"unknown agent {spec!r}: registered {', '.join(names())}; {err}"
            ) from None
    if entry.reads_table:
        options["table"] = _table_of_spec(spec, options, table)
    try:
        return entry.factory(**options)
    except TypeError as err:
        # An option it needs and was not given ("llm" without a model): say which.
        missing = _MISSING_OPTION.search(str(err))
        if missing:
            needed = missing.group(1).replace("'", "")
            raise ValueError(
                f"agent {base!r} needs option(s) {needed} (e.g. {base}:{needed.split(',')[0]}"
                f"=...); it takes: {_option_names(base)}"
            ) from None
        # An option the factory does not take: say which, and what it does take.
        bad = re.search(r"unexpected keyword argument '([^']+)'|takes no arguments", str(err))
        given = [k for k in options if k != "table"]
        if bad is None or not given:
            raise
        option = bad.group(1) or given[0]
        raise ValueError(
            f"agent {base!r} has no option {option!r}; it takes: {_option_names(base)}"
        ) from None


def _table_of_spec(spec: str, options: dict[str, Any], table: Table | None) -> Table | None:
    """The table a table reader plays at: ``table``, or off a table the standard gin rules
    with the spec's rule options (None without any); at a table, a rule option in the spec
    must agree with it."""
    rules = {k: options.pop(k) for k in list(options) if k in _RULE_OPTIONS}
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


def check_fits(agent: Any, spec: str, table: Table) -> None:
    """Refuse an agent made for another game than ``table``'s: a trained checkpoint records
    the game it was trained on (``meta["env"]``), and plays only tables of that game's
    family and number of players."""
    meta = getattr(agent, "meta", None)
    if not isinstance(meta, dict):
        return
    trained_on = meta.get("env")
    if not isinstance(trained_on, str) or trained_on not in games.names():
        return
    made = games.get(trained_on)
    here = games.of_table(table)
    players = made.players if made.players is not None else meta.get("num_players", 2)
    if made.family != here.family or players != table.num_players:
        raise ValueError(
            f"agent {spec!r} was trained on {made.name} ({players} players), and cannot play "
            f"a {here.name} table ({table.num_players} players)"
        )


def _option_names(name: str) -> str:
    """The options an agent's spec may set, for error messages: the parameters of what it
    takes (its registration's ``takes``, else its factory), then, for an agent that reads
    the table, the table's rule options."""
    entry = _REGISTRY[name]
    found: list[str] = []
    for target in entry.takes() if entry.takes is not None else (entry.factory,):
        if dataclasses.is_dataclass(target):
            found += [f.name for f in dataclasses.fields(target)]
            continue
        found += [
            p.name
            for p in inspect.signature(target).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            and p.name not in ("table", "rules", "kwargs")
        ]
    if entry.reads_table:
        found += list(_RULE_OPTIONS)
    return ", ".join(dict.fromkeys(found)) or "no options"


def load(name_or_path: str, **kwargs: Any) -> Any:
    """A trained agent: a shipped checkpoint by name (``"gin-ppo"``, ``"three-handed-ppo"``)
    or a checkpoint file (:func:`agents.trained.load`). Off any table: at a table,
    :func:`seat` loads it and checks it plays the table."""

    return trained.load(name_or_path, **kwargs)


def _rummy_simple_class() -> Any:
    return importlib.import_module("agents.rummy_simple").RummySimpleAgent


def _rummy_simple(**kwargs: Any) -> Any:
    return _rummy_simple_class()(**kwargs)


def _heuristic(table: GinTable | None, **params: Any) -> HeuristicAgent:
    return HeuristicAgent(HeuristicParams(**params) if params else None, table)


def _search(table: GinTable | None, policy: Any = None, **kwargs: Any) -> SearchAgent:
    # A rollout policy by name plays at the same table.
    rollout = _build(policy, table) if isinstance(policy, str) else policy
    return SearchAgent(policy=rollout, rules=table, **kwargs)


def _tuned(table: GinTable | None, **kwargs: Any) -> TunedAgent:
    return make_tuned(table, **kwargs)


def _adviser(table: GinTable | None, agent: str = "heuristic", **kwargs: Any) -> Any:
    return Adviser(_build(agent, table, **kwargs))


def _captain(
    table: GinTable | None,
    agent: str = "heuristic",
    mode: str = "weigh",
    margin: float = 2.0,
    **kwargs: Any,
) -> Any:
    return Captain(_build(agent, table, **kwargs), mode=mode, margin=margin)


register("random", RandomAgent)
register("simple", SimpleAgent)
register("heuristic", _heuristic, reads_table=True, takes=lambda: (HeuristicParams,))
register("search", _search, reads_table=True, takes=lambda: (SearchAgent,))
register("tuned", _tuned, reads_table=True, takes=lambda: (make_tuned,))
register("rummy-simple", _rummy_simple, takes=lambda: (_rummy_simple_class(),))
# "adviser:agent=search" suggests what search would play; "captain:mode=follow" follows advice.
register("adviser", _adviser, reads_table=True)


def _search_agent_module() -> Any:
    return importlib.import_module("agents.search_agent")


def _match_search(table: GinTable | None, **kwargs: Any) -> Any:
    return _search_agent_module().SeatSearch(table, **kwargs)


def _best(table: GinTable | None, **kwargs: Any) -> Any:
    return _search_agent_module().best(table, **kwargs)


register(
    "match-search",
    _match_search,
    reads_table=True,
    takes=lambda: (_search_agent_module().SeatSearch,),
)
# "best:budget=0.2": the strongest player at a named table, 0.2 s a decision.
register(
    "best",
    _best,
    reads_table=True,
    takes=lambda: (_search_agent_module().best, _search_agent_module().SeatSearch),
)
register("captain", _captain, reads_table=True)


def _llm_class() -> Any:
    return importlib.import_module("agents.llm").LLMAgent


def _llm(table: Table | None, **kwargs: Any) -> Any:
    # agents.llm needs the openai client only when it first asks a model (extra "llm").
    # Players in words read the whole table (the match target too) into their prompt.
    return importlib.import_module("agents.llm").LLMAgent(rules=table, **kwargs)


def _words(table: Table | None, agent: str = "heuristic", **kwargs: Any) -> Any:
    inner = _build(agent, table)
    return importlib.import_module("agents.llm").WordsAgent(inner, rules=table, **kwargs)


# "llm:model=NAME,base_url=URL": a language model; "words:agent=heuristic": moves said in words.
def _words_takes() -> tuple[Callable[..., Any], ...]:
    llm = importlib.import_module("agents.llm")
    return (llm.WordsAgent, llm.WordsAgent.__mro__[1])


register("llm", _llm, reads_table=True, takes=lambda: (_llm_class(), _words_takes()[1]))
register("words", _words, reads_table=True, takes=_words_takes)


def __getattr__(name: str) -> Any:
    if name == "SeatView":  # the decoded observation's name before 0.2.0 (agents.base)
        return base.__getattr__(name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
