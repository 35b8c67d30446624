"""The games of the package, listed once: their envs, names, sizes and default players.

Every part of the project that lets a user pick a game (the ``gin-rummy`` command line,
replays, the training league, RLlib, the Gymnasium ids) looks it up here, so a game is
added, renamed or re-sized in one place.

- ``three_handed_gin_v0`` (also ``three_handed``, ``three``, ``three-handed``, ``3``):
  3 players, observation 436, default agent ``heuristic``.
- ``gin_v0`` (also ``gin``, ``two-player``): 2 players, observation 436, ``heuristic``.
- ``rummy_v0`` (also ``rummy``): 2-6 players (``num_players``), observation by player
  count, default agent ``rummy-simple``.
- ``three_handed_gin_v1`` (also ``three_handed_v1``, ``three-v1``) and ``gin_v1`` (also
  ``gin-v1``): the same games with the observation layout v1 (``gin_obs_v1``, 499 entries:
  the v0 entries first, then the rules in view). ``three``, ``gin`` and the other short
  names stay the v0 envs. Their Gymnasium ids are ``gin_env/ThreeHandedGinRulesInView-v0``
  and ``gin_env/GinRulesInView-v0``: a name apart, since Gymnasium reads ``-v1`` of one name
  as the successor of ``-v0`` and warns that ``-v0`` is out of date.

Agents are named as :func:`agents.make` takes them. The gin games share one observation
and action layout (:mod:`gin_env.encoding`), so their agents play both; basic rummy has
its own (:mod:`gin_env.rummy_encoding`) and its own agents. :func:`agent_spec` checks that
a named agent plays the game (and reads ``simple`` as ``rummy-simple`` for rummy).

This module sits with the envs and never imports the agents layer (the Gymnasium wrapper
resolves agent names itself, lazily). It imports nothing but the stdlib when loaded (the
package's ``__init__`` registers the Gymnasium ids from it): env modules, sizes and roles
are looked up on first use.

>>> get("three").name, get("three_handed_gin_v0").players, get("gin").observation_size()
('three_handed_gin_v0', 3, 436)
>>> get("gin-v1").name, get("three_handed_v1").observation_size()
('gin_v1', 499)
>>> get("rummy").make_env(num_players=3).num_players
3
>>> agent_spec("rummy", "simple")
'rummy-simple'
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = ["GameSpec", "GAMES", "get", "names", "agent_spec", "FAMILY_AGENTS"]

#: Agents that play only one family of games (an agent not listed plays the gin games).
FAMILY_AGENTS: dict[str, tuple[str, ...]] = {"rummy": ("rummy-simple",)}
#: Agents that play every game (they read the action mask only).
ANY_GAME_AGENTS = ("random",)


@dataclass(frozen=True)
class GameSpec:
    """One game: its env module and everything the tools need to know about it."""

    name: str  # the env's name (``metadata["name"]``, the module under gin_env)
    short: str  # train --env / RLlib --game: three_handed, gin, rummy
    cli: str  # gin-rummy --game: three, gin, rummy
    aliases: tuple[str, ...]
    family: str  # "gin" or "rummy": which agents play it
    players: int | None  # fixed seats, or None when ``num_players`` chooses (rummy)
    default_agent: str
    gym_id: str
    replays: bool = False  # training.replay can save and check its matches
    version: int = 0  # the gin observation layout: 0 (gin_obs_v0) or 1 (gin_obs_v1)

    @property
    def roles(self) -> tuple[str, ...]:
        """The roles that rotate, in role-id order (``box, captain, adviser``; ``dealer,
        non-dealer``); none for rummy."""
        if self.family != "gin":
            return ()
        from gin_env.gin_aec import role_names_for

        return role_names_for(self.num_players())

    @property
    def sides(self) -> dict[str, int]:
        """The two sides of the table, by role: the first role (the box; the dealer) is
        side 0, the others (the captain's team; the non-dealer) side 1."""
        return {role: int(i > 0) for i, role in enumerate(self.roles)}

    @property
    def module(self) -> ModuleType:
        """The env module (``gin_env.<name>``), imported on first use."""
        return importlib.import_module(f"gin_env.{self.name}")

    def make_env(self, **options: Any) -> Any:
        """A fresh ``raw_env`` of this game with ``options`` (checked by the env)."""
        return self.module.raw_env(**options)

    def make_wrapped_env(self, **options: Any) -> Any:
        """The game's ``env()``: ``raw_env`` inside PettingZoo's standard wrappers."""
        return self.module.env(**options)

    def option_names(self) -> tuple[str, ...]:
        """Every option ``make_env`` takes: the env's own (``reward``, ``episode``...) and,
        for the gin games, the rules' (``knock_limit``...)."""
        env_class = self.module.raw_env
        params = inspect.signature(env_class.__init__).parameters.values()
        own = [p.name for p in params if p.name != "self" and p.kind is not p.VAR_KEYWORD]
        config = getattr(env_class, "config_class", None)
        return tuple(own) + (config.option_names() if config is not None else ())

    def num_players(self, **options: Any) -> int:
        if self.players is not None:
            return self.players
        return int(options.get("num_players", 2))

    def observation_size(self, **options: Any) -> int:
        """Length of a seat's observation vector (rummy's depends on ``num_players``)."""
        if self.family == "gin":
            from gin_env.encoding import LAYOUTS

            return int(LAYOUTS[f"gin_obs_v{self.version}"]["size"])  # type: ignore[call-overload]
        from gin_env.rummy_encoding import observation_size

        return observation_size(self.num_players(**options))

    @property
    def num_actions(self) -> int:
        if self.family == "gin":
            from gin_env.actions import NUM_ACTIONS as GIN_ACTIONS

            return GIN_ACTIONS
        from gin_env.rummy_actions import NUM_ACTIONS

        return NUM_ACTIONS


GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec(
            name="three_handed_gin_v0",
            short="three_handed",
            cli="three",
            aliases=("three-handed", "3"),
            family="gin",
            players=3,
            default_agent="heuristic",
            gym_id="gin_env/ThreeHandedGin-v0",
            replays=True,
        ),
        GameSpec(
            name="gin_v0",
            short="gin",
            cli="gin",
            aliases=("two-player",),
            family="gin",
            players=2,
            default_agent="heuristic",
            gym_id="gin_env/Gin-v0",
            replays=True,
        ),
        GameSpec(
            name="rummy_v0",
            short="rummy",
            cli="rummy",
            aliases=(),
            family="rummy",
            players=None,
            default_agent="rummy-simple",
            gym_id="gin_env/Rummy-v0",
        ),
        GameSpec(
            name="three_handed_gin_v1",
            short="three_handed_v1",
            cli="three-v1",
            aliases=(),
            family="gin",
            players=3,
            default_agent="heuristic",
            gym_id="gin_env/ThreeHandedGinRulesInView-v0",
            replays=True,
            version=1,
        ),
        GameSpec(
            name="gin_v1",
            short="gin_v1",
            cli="gin-v1",
            aliases=(),
            family="gin",
            players=2,
            default_agent="heuristic",
            gym_id="gin_env/GinRulesInView-v0",
            replays=True,
            version=1,
        ),
    )
}

_LOOKUP: dict[str, GameSpec] = {}
for _spec in GAMES.values():
    for _key in (_spec.name, _spec.short, _spec.cli, *_spec.aliases):
        _LOOKUP[_key] = _spec


def names() -> list[str]:
    """Every name a game answers to (env names, short names, CLI names, aliases)."""
    return list(_LOOKUP)


def get(name: str) -> GameSpec:
    """The game called ``name`` (its env name, ``short``, ``cli`` name or an alias); a
    ``ValueError`` lists the games otherwise."""
    spec = _LOOKUP.get(name) if isinstance(name, str) else None
    if spec is None:
        allowed = ", ".join(f"{s.cli} ({s.name})" for s in GAMES.values())
        raise ValueError(f"unknown game {name!r}; allowed: {allowed}")
    return spec


def agent_spec(game: str | GameSpec, spec: str) -> str:
    """The agent spec that plays ``game`` for the name a user gave: for rummy ``simple``
    means ``rummy-simple`` (keeping any ``:options``); an agent of another family is a
    ``ValueError`` naming the agents that fit."""
    g = game if isinstance(game, GameSpec) else get(game)
    if not isinstance(spec, str):
        raise ValueError(f"an agent name must be a string, got {spec!r}")
    base, colon, rest = spec.partition(":")
    base = base.strip()
    own = FAMILY_AGENTS.get(g.family, ())
    if own:  # a family with its own agents: only those (and the mask-only ones) fit
        if base == "simple" and "rummy-simple" in own:
            return "rummy-simple" + colon + rest
        if base not in own + ANY_GAME_AGENTS:
            fits = ", ".join(ANY_GAME_AGENTS + own)
            extra = " (simple = rummy-simple)" if "rummy-simple" in own else ""
            raise ValueError(
                f"agent {spec!r} plays the gin games, not {g.name}; agents for {g.name}: "
                f"{fits}{extra}"
            )
        return spec
    for family, agents in FAMILY_AGENTS.items():
        if base in agents and family != g.family:
            raise ValueError(f"agent {spec!r} plays {family} only, not {g.name}")
    return spec
