"""The games of the package, listed once: their envs, names, sizes and roles.

Every part of the project that builds a game (the Gymnasium ids, the batched engine, the
command line, replays, the training league, RLlib) looks it up here, so a game is added,
renamed or re-sized in one place. A game answers to its env name and its short name:

- ``three_handed_gin_v0`` (``three_handed``): 3 players, observation 436;
- ``gin_v0`` (``gin``): 2 players, observation 436;
- ``rummy_v0`` (``rummy``): 2-6 players (``num_players``), observation by player count;
- ``three_handed_gin_v1`` (``three_handed_v1``) and ``gin_v1`` (``gin_v1``): the same games
  with the observation layout v1 (``gin_obs_v1``, 499 entries: the v0 entries first, then
  the rules in view). Their Gymnasium ids are ``gin_env/ThreeHandedGinRulesInView-v0`` and
  ``gin_env/GinRulesInView-v0``: a name apart, since Gymnasium reads ``-v1`` of one name as
  the successor of ``-v0`` and warns that ``-v0`` is out of date.

The layers above keep what is theirs: the command line's names (``--game three``) are
:data:`gin_cli.main.GAME_NAMES`, the agents that play each game (and the default one) are
:mod:`agents.families`. The gin games share one observation and action layout
(:mod:`gin_env.encoding`); basic rummy has its own (:mod:`gin_env.rummy_encoding`).

>>> get("three_handed").name, get("three_handed_gin_v0").players, get("gin").observation_size()
('three_handed_gin_v0', 3, 436)
>>> get("gin_v1").name, get("three_handed_v1").observation_size()
('gin_v1', 499)
>>> get("rummy").make_env(num_players=3).num_players
3
>>> gin_games(), gin_games(version=1)
(('gin', 'three_handed'), ('gin_v1', 'three_handed_v1'))
>>> table = get("three_handed").table(knock_limit=0)
>>> type(table).__name__, table.knock_limit, get("three_handed").make_env(table).config == table
('ThreeHandedConfig', 0, True)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from gin_env.actions import NUM_ACTIONS as GIN_ACTIONS
from gin_env.config import Table, check_option_names, table_options
from gin_env.encoding import LAYOUTS
from gin_env.gin_aec import env_option_names, role_names_for
from gin_env.rummy_actions import NUM_ACTIONS as RUMMY_ACTIONS
from gin_env.rummy_encoding import observation_size as rummy_observation_size

__all__ = ["GameSpec", "GAMES", "get", "names", "cli_names", "gin_games", "of_table"]


@dataclass(frozen=True)
class GameSpec:
    """One game: its env module and everything the tools need to know about it."""

    name: str  # the env's name (``metadata["name"]``, the module under gin_env)
    short: str  # the short name: VectorGinEnv's game, the trainers' --env
    family: str  # "gin" or "rummy": the rules, the observation and action layouts
    players: int | None  # fixed seats, or None when ``num_players`` chooses (rummy)
    gym_id: str
    version: int = 0  # the gin observation layout: 0 (gin_obs_v0) or 1 (gin_obs_v1)
    cli: str = ""  # the command line's --game and the lobby's name (three, gin, rummy...)
    aliases: tuple[str, ...] = ()  # other names the command line takes (three-handed, 3...)
    title: str = ""  # in words, for menus and the lobby
    vector: bool = False  # the batched engine plays it (gin_env.vector, gymnasium.make_vec)
    sees: str = ""  # what its seats see, in a sentence

    @property
    def text_game(self) -> str:
        """The game the words speak of (:mod:`gin_env.text`): ``three_handed``, ``gin`` or
        ``rummy``, the same for every observation layout of a game."""
        return self.short.removesuffix("_v1")

    @property
    def entry_point(self) -> str:
        """Gymnasium's entry point (the learner-vs-opponents env of
        :mod:`agents.single_agent`, with ``game=`` this game's name): a string, so that
        ``import gin_env`` never imports the agents layer."""
        return "agents.single_agent:make"

    @property
    def vector_entry_point(self) -> str | None:
        """``gymnasium.make_vec``'s entry point (:mod:`agents.vector`), or None."""
        return "agents.vector:make_vec" if self.vector else None

    @property
    def roles(self) -> tuple[str, ...]:
        """The roles that rotate, in role-id order (``box, captain, adviser``; ``dealer,
        non-dealer``); none for rummy."""
        if self.family != "gin":
            return ()

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

    @property
    def table_class(self) -> type[Table]:
        """The class of this game's tables (:data:`gin_env.config.Table`)."""
        return self.module.raw_env.config_class  # type: ignore[no-any-return]

    def table(self, **rules: Any) -> Table:
        """This game's table with the rule options ``rules`` (the others at their defaults);
        an option that is not one of its rules is a ``ValueError`` naming them."""
        check_option_names(rules, {"the rules'": self.table_class.option_names()}, self.name)
        return self.table_class(**rules)

    def split_options(self, options: dict[str, Any]) -> tuple[Table, dict[str, Any]]:
        """Env options as the table (the rule options) and the rest (reward, episode,
        observation, render...), which are not rules and are left to the env to check."""
        names = set(self.table_class.option_names())
        table = self.table(**{k: v for k, v in options.items() if k in names})
        return table, {k: v for k, v in options.items() if k not in names}

    def make_env(self, table: Table | None = None, **options: Any) -> Any:
        """A fresh ``raw_env`` of this game with ``options`` (checked by the env); with a
        ``table`` (of this game) its rules, and ``options`` the others only."""
        return self.module.raw_env(**self._with_table(table, options))

    def table_options(self, table: Table) -> dict[str, Any]:
        """``table``'s rules as this game's env options; a table of another game (a
        two-player table at the three-handed game) is a ``ValueError``."""
        if type(table) is not self.table_class:
            raise ValueError(
                f"{self.name} is played at a {self.table_class.__name__} table, not a "
                f"{type(table).__name__}"
            )
        return table_options(table)

    def make_wrapped_env(self, table: Table | None = None, **options: Any) -> Any:
        """The game's ``env()``: ``raw_env`` inside PettingZoo's standard wrappers."""
        return self.module.env(**self._with_table(table, options))

    def _with_table(self, table: Table | None, options: dict[str, Any]) -> dict[str, Any]:
        """The env options of ``table`` and ``options``; with a table, a rule option among
        ``options`` is a ``ValueError`` (the table holds the rules)."""
        if table is None:
            return options
        rules = sorted(set(options) & set(self.table_class.option_names()))
        if rules:
            raise ValueError(
                f"option(s) {', '.join(rules)} are rules: with a table, give them in the table"
            )
        return {**self.table_options(table), **options}

    def option_names(self) -> tuple[str, ...]:
        """Every option ``make_env`` takes: the env's own (``reward``, ``episode``...) and,
        for the gin games, the rules' (``knock_limit``...)."""
        own = env_option_names(self.module.raw_env)
        return tuple(dict.fromkeys(own + self.table_class.option_names()))

    def num_players(self, **options: Any) -> int:
        if self.players is not None:
            return self.players
        return int(options.get("num_players", 2))

    def observation_size(self, **options: Any) -> int:
        """Length of a seat's observation vector (rummy's depends on ``num_players``)."""
        if self.family == "gin":
            return int(LAYOUTS[f"gin_obs_v{self.version}"]["size"])  # type: ignore[call-overload]
        return rummy_observation_size(self.num_players(**options))

    @property
    def num_actions(self) -> int:
        return GIN_ACTIONS if self.family == "gin" else RUMMY_ACTIONS


_GIN_SEES = (
    "its own hand (the adviser: the captain's, when adviser_sees_hand), the discard pile in "
    "order, the cards the other took from it, the stock's size, roles and scores"
)
GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec(
            name="three_handed_gin_v0",
            short="three_handed",
            family="gin",
            players=3,
            gym_id="gin_env/ThreeHandedGin-v0",
            cli="three",
            aliases=("three-handed", "3"),
            title="Three-handed gin",
            vector=True,
            sees=_GIN_SEES + "; the captain the adviser's suggestion",
        ),
        GameSpec(
            name="gin_v0",
            short="gin",
            family="gin",
            players=2,
            gym_id="gin_env/Gin-v0",
            cli="gin",
            aliases=("two-player",),
            title="Two-player gin",
            vector=True,
            sees=_GIN_SEES,
        ),
        GameSpec(
            name="rummy_v0",
            short="rummy",
            family="rummy",
            players=None,
            gym_id="gin_env/Rummy-v0",
            cli="rummy",
            title="Basic rummy",
            sees=(
                "its own hand, the pile in order, the melds on the table, the cards each "
                "player took from the pile and still holds, hand sizes and scores"
            ),
        ),
        GameSpec(
            name="three_handed_gin_v1",
            short="three_handed_v1",
            family="gin",
            players=3,
            gym_id="gin_env/ThreeHandedGinRulesInView-v0",
            version=1,
            cli="three-v1",
            title="Three-handed gin, rules in view",
            vector=True,
            sees=_GIN_SEES + "; the captain the adviser's suggestion; the table's rules",
        ),
        GameSpec(
            name="gin_v1",
            short="gin_v1",
            family="gin",
            players=2,
            gym_id="gin_env/GinRulesInView-v0",
            version=1,
            cli="gin-v1",
            title="Two-player gin, rules in view",
            vector=True,
            sees=_GIN_SEES + "; the table's rules",
        ),
    )
}

_LOOKUP: dict[str, GameSpec] = {}
for _spec in GAMES.values():
    for _key in (_spec.name, _spec.short, _spec.cli, *_spec.aliases):
        _LOOKUP[_key] = _spec


def names() -> list[str]:
    """Every name a game answers to (env names, short names, command-line names and their
    aliases)."""
    return list(_LOOKUP)


def cli_names(version: int | None = None) -> dict[str, str]:
    """The command line's (and the lobby's) name of every game, to its env name; only the
    games of observation layout ``version`` when given (``{"three": "three_handed_gin_v0",
    ...}``)."""
    return {s.cli: s.name for s in GAMES.values() if version is None or s.version == version}


def gin_games(version: int = 0) -> tuple[str, ...]:
    """The short names of the gin family's games of observation layout ``version``, by
    number of players (``("gin", "three_handed")``): the trainers' ``--env`` and the
    games :mod:`training.periodic_eval` deals duplicate."""
    gin = [s for s in GAMES.values() if s.family == "gin" and s.version == version]
    return tuple(s.short for s in sorted(gin, key=lambda s: s.players or 0))


def get(name: str) -> GameSpec:
    """The game called ``name`` (its env name, ``short``, ``cli`` name or an alias); a
    ``ValueError`` lists the games otherwise."""
    spec = _LOOKUP.get(name) if isinstance(name, str) else None
    if spec is None:
        allowed = ", ".join(f"{s.cli} ({s.name})" for s in GAMES.values())
        raise ValueError(f"unknown game {name!r}; allowed: {allowed}")
    return spec


def of_table(table: Table) -> GameSpec:
    """The game (observation layout v0) played at ``table``: ``gin_v0`` at a
    :class:`~gin_env.config.GinConfig`, ``three_handed_gin_v0`` at a
    :class:`~gin_env.config.ThreeHandedConfig`, ``rummy_v0`` at a
    :class:`~gin_env.config.RummyConfig`."""
    for spec in GAMES.values():
        if spec.version == 0 and type(table) is spec.table_class:
            return spec
    raise ValueError(
        "a table is a game's rules object (GinConfig, ThreeHandedConfig, RummyConfig); got "
        f"{type(table).__name__}"
    )
