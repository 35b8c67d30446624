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
``"search:worlds=8,candidates=2"`` (values are read as Python literals; :mod:`agents.spec`
reads it, and refuses an option the agent does not take, by its factory's signature).
Factories for agents whose constructors do not take a spec's options as they are live in
:mod:`agents.factories`. Names that are not registered are trained players (by shipped
name such as ``"gin-ppo"`` or by path, every kind: :func:`load`; loading reads data only
and never unpickles): a run folder of ``gin-rummy train`` (``seat("runs/gin-dmc",
table)``: its best player if it kept one, else its latest), a player file (a DMC
``.npz``, an actor ``.zip``) or a stable-baselines3 ``.zip``, its weights read as
tensors only (:func:`agents.trained.load_sb3`); a run folder of ``--algo tune`` seats
the parameter set it found (:func:`agents.tuned.tuned_from_run`). :func:`make` makes an
agent off any table (the table readers get the standard rules, or rule options in the
spec: ``"heuristic:undercut_bonus=25"``); at a table, rule options in the spec must agree
with the table. Over a batch of games
(``[N, 436]`` observations): :func:`agents.batched.seat_batched` (the batched twin of
:func:`seat`), :mod:`agents.vector` (a Gymnasium ``VectorEnv``, one learner against
batched opponents) and :mod:`agents.single_agent` (the Gymnasium single-agent env).

>>> from gin_env.games import get
>>> seat("heuristic", get("gin").table(undercut_bonus=25)).rules.undercut_bonus
25
>>> seat("search:budget=0.05", get("three_handed").table()).budget
0.05
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from agents import factories, families, trained
from agents.base import Agent, ObservedSeat, ViewAgent, decode
from agents.heuristic import HeuristicAgent, HeuristicParams
from agents.llm import LLMAgent, WordsAgent
from agents.random_agent import RandomAgent
from agents.rummy_simple import RummySimpleAgent
from agents.search import SearchAgent
from agents.search_agent import SeatSearch, best
from agents.simple import SimpleAgent
from agents.spec import (
    AgentOptionError,
    Options,
    is_path,
    parse_spec,
    spec_table,
    written_as_path,
)
from agents.tuned import TunedAgent, is_tune_run, make_tuned, tuned_from_run
from gin_env import games
from gin_env.config import GinConfig, RummyConfig, Table, ThreeHandedConfig

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
    "AgentOptionError",
]


@dataclass(frozen=True)
class _Entry:
    factory: Callable[..., Any]
    reads_table: bool
    builds_inner: bool
    #: What a spec may set, read off the signatures of the factory and what it takes.
    options: Options


_REGISTRY: dict[str, _Entry] = {}


def register(
    name: str,
    factory: Callable[..., Any],
    *,
    reads_table: bool = False,
    builds_inner: bool = False,
    takes: Sequence[Callable[..., Any]] = (),
) -> None:
    """Register ``factory(**options) -> agent`` under ``name`` (replacing any earlier one).
    ``reads_table=True``: the agent plays by the table's rules, and :func:`seat` calls the
    factory with ``table=`` beside the spec's options (a gin table; None when the agent is
    made off any table by :func:`make`: the factory's default rules). ``builds_inner=True``:
    the factory makes agents inside it by spec, and is called with ``build=``
    (:class:`agents.factories.Build`: an agent at the same table). ``takes``: the callables
    (or dataclasses) whose parameters the spec's options are, when the factory passes them
    on with ``**kwargs``; a spec that sets another, or not one the factory needs, is a
    ``ValueError`` (:class:`agents.spec.AgentOptionError`) naming what it takes."""
    if not isinstance(name, str) or not name or ":" in name or "," in name:
        raise ValueError(f"agent name must be a non-empty string without ':' or ',', got {name!r}")
    options = Options.of(factory, tuple(takes), bool(reads_table))
    _REGISTRY[name] = _Entry(factory, bool(reads_table), bool(builds_inner), options)


def names() -> list[str]:
    """The registered agent names."""
    return sorted(_REGISTRY)


def reads_table(name: str) -> bool:
    """Whether the registered agent ``name`` (or a spec's base name) reads the table."""
    entry = _REGISTRY.get(parse_spec(name)[0])
    return entry is not None and entry.reads_table


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
    name, options = parse_spec(spec)
    options.update(kwargs)
    entry = _REGISTRY.get(name) if not is_path(spec) else None
    if entry is None and is_path(spec) and is_tune_run(spec):  # its parameter set (L3)
        return tuned_from_run(spec, table)  # type: ignore[arg-type]
    if entry is None:
        try:
            return load(spec, **kwargs)
        except (ValueError, FileNotFoundError, KeyError) as err:
            if written_as_path(spec):  # a player file or run folder: what is wrong with it
                raise ValueError(str(err)) from None
            raise ValueError(
                f"unknown agent {spec!r}: registered {', '.join(names())}; {err}"
            ) from None
    entry.options.check(name, options)  # an option it does not take, or lacks: say which
    if entry.reads_table:
        options["table"] = spec_table(spec, options, table)
    if entry.builds_inner:
        options["build"] = partial(_build, table=table)
    return entry.factory(**options)


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


def load(name_or_path: str, **kwargs: Any) -> Any:
    """A trained agent: a shipped checkpoint by name (``"gin-ppo"``, ``"three-handed-ppo"``),
    a player file or a run folder (:func:`agents.trained.load`). Off any table: at a table,
    :func:`seat` loads it and checks it plays the table."""
    return trained.load(name_or_path, **kwargs)


register("random", RandomAgent)
register("simple", SimpleAgent)
register("heuristic", factories.heuristic, reads_table=True, takes=(HeuristicParams,))
register("search", factories.search, reads_table=True, builds_inner=True, takes=(SearchAgent,))
register("tuned", factories.tuned, reads_table=True, takes=(make_tuned,))
register("rummy-simple", RummySimpleAgent)
# "adviser:agent=search" suggests what search would play; "captain:mode=follow" follows advice.
register("adviser", factories.adviser, reads_table=True, builds_inner=True)
register("captain", factories.captain, reads_table=True, builds_inner=True)
register("match-search", SeatSearch, reads_table=True)
# "best:budget=0.2": the strongest player at a named table, 0.2 s a decision.
register("best", best, reads_table=True, takes=(best, SeatSearch))
# "llm:model=NAME,base_url=URL": a language model; "words:agent=heuristic": moves said in words.
register("llm", factories.llm, reads_table=True, takes=(LLMAgent, factories.WORDS_PLAYER))
register(
    "words",
    factories.words,
    reads_table=True,
    builds_inner=True,
    takes=(WordsAgent, factories.WORDS_PLAYER),
)
