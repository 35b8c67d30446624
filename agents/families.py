"""Which agents play which game: the gin games share one observation and action layout, so
their agents play all of them; basic rummy has its own agents. The env layer knows nothing
of agents: this is where a game's agents, and its default one, are listed.

>>> agent_spec("rummy", "simple"), default_agent("three_handed")
('rummy-simple', 'heuristic')
"""

from __future__ import annotations

from gin_env import games
from gin_env.games import GameSpec

__all__ = ["FAMILY_AGENTS", "ANY_GAME_AGENTS", "DEFAULT_AGENTS", "default_agent", "agent_spec"]

#: Agents that play only one family of games (an agent not listed plays the gin games).
FAMILY_AGENTS: dict[str, tuple[str, ...]] = {"rummy": ("rummy-simple",)}
#: Agents that play every game (they read the action mask only, or, the players in words,
#: the game's text).
ANY_GAME_AGENTS = ("random", "llm", "words")
#: The agent that fills a seat nobody named, by family of games.
DEFAULT_AGENTS = {"gin": "heuristic", "rummy": "rummy-simple"}


def _spec(game: str | GameSpec) -> GameSpec:
    return game if isinstance(game, GameSpec) else games.get(game)


def default_agent(game: str | GameSpec) -> str:
    """The agent that plays ``game`` when none is named (L2 for the gin games)."""
    return DEFAULT_AGENTS[_spec(game).family]


def agent_spec(game: str | GameSpec, spec: str) -> str:
    """The agent spec that plays ``game`` for the name a user gave: for rummy ``simple``
    means ``rummy-simple`` (keeping any ``:options``); an agent of another family is a
    ``ValueError`` naming the agents that fit."""
    g = _spec(game)
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
    for family, members in FAMILY_AGENTS.items():
        if base in members and family != g.family:
            raise ValueError(f"agent {spec!r} plays {family} only, not {g.name}")
    return spec
