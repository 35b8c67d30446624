"""What the lobby offers and lets a client choose: the games with their options (each with
a line of help), the named tables, and the agents a client may seat (:data:`NOT_IN_LOBBY`
left out); :func:`check_lobby_agents` refuses any other."""

from __future__ import annotations

from typing import Any

import agents
from agents import families
from agents.tuned import TABLES as NAMED_GIN_TABLES
from gin_env import games
from gin_env.config import table_changes
from gin_web.tables import GAMES, HUMAN, game_options, option_choices

__all__ = [
    "OPTION_HELP",
    "NOT_IN_LOBBY",
    "AGENT_HELP",
    "games_offered",
    "named_tables",
    "lobby_agents",
    "check_lobby_agents",
]

#: Agents the lobby does not offer, nor seats for a client (code that runs the server still
#: seats them by name): wrappers of another agent, and agents that think for seconds
#: (``search``, ``match-search``, ``best``: half a second a move, and ``best`` is slow to
#: make at long targets) or ask a remote model, which would hold up every table sharing
#: their worker process (:mod:`gin_web.thinkers`).
NOT_IN_LOBBY = ("adviser", "captain", "search", "match-search", "best", "llm", "words")
#: What each agent the lobby offers is, in a line (as docs/agents.md and docs/web.md name
#: them; a test holds it complete).
#: The line of an agent registered by a plugin (``agents.register``), which has none here.
REGISTERED = "an agent registered on this server (agents.register)"
AGENT_HELP = {
    "random": "L0: plays any legal move at random",
    "simple": "L1: takes a card only if it joins a meld, throws its highest loose card, "
    "knocks at once",
    "heuristic": "L2: weighs meld chances, reads what the opponent took and threw, knocks "
    "with the stock in mind",
    "tuned": "L3: L2 with its settings tuned for the table's rules (only at the tables a set "
    "was tuned for)",
    "rummy-simple": "basic rummy's simple player: melds and lays off what it can, throws its "
    "highest card",
}
#: One line of help for every option the lobby offers (a test holds it complete).
OPTION_HELP = {
    "adviser": "suggest: the adviser suggests a move before each of the captain's "
    "decisions; none: no adviser turns",
    "adviser_sees_hand": "the adviser sees the captain's hand (else he advises blind)",
    "knock_limit": "the most deadwood a knocker may keep (0: gin only)",
    "gin_bonus": "points for going gin, on top of the other hand's deadwood",
    "undercut_bonus": "points to a defender whose deadwood is as low as the knocker's or lower",
    "big_gin_bonus": "empty: off; else the bonus for laying down all 11 cards melded",
    "allow_discard_of_taken_card": "may the card just taken from the pile be thrown straight back",
    "max_turns_per_hand": "a hand that reaches this many turns ends as a draw",
    "oklahoma": "the upcard sets the knock limit (an ace: gin only); a spade upcard "
    "doubles the hand's points",
    "target_score": "the match ends when a player reaches this score",
    "dealer_rule": "who deals next: alternate, the winner, the loser, or alternate after "
    "a scored hand only",
    "hollywood": "score three games at once; the match goes to whoever wins two",
    "num_players": "players at the table (2 to 6)",
    "ace_high_or_low": "the ace may also end a run Q-K-A (never K-A-2)",
    "max_turns": "a hand with no winner after this many turns ends without one",
}


def games_offered() -> dict[str, dict[str, Any]]:
    """``GET /api/games``: each game of the lobby with its env name, players, options (their
    defaults, help and choices), named tables, the agents a client may seat and the
    default one."""
    out = {}
    named = named_tables()
    for short, name in GAMES.items():
        spec = games.get(name)
        options = game_options(name)
        out[short] = {
            "env": name,
            "players": spec.players,
            "options": options,
            "help": {k: OPTION_HELP.get(k, "") for k in options},
            "choices": option_choices(name),
            "tables": named[short],
            "agents": lobby_agents(short),
            "agent_help": {a: AGENT_HELP.get(a, REGISTERED) for a in lobby_agents(short)},
            "default_agent": families.default_agent(spec),
        }
    return out


def named_tables() -> dict[str, dict[str, dict[str, Any]]]:
    """The tables the lobby offers by name, per game: the rules each changes from the
    game's defaults (two-player gin: the tuned agents' tables, Oklahoma and Hollywood;
    three-handed: Oklahoma)."""
    gin = {name: table_changes(rules) for name, rules in NAMED_GIN_TABLES.items()}
    gin["oklahoma"] = {"oklahoma": True}
    gin["hollywood"] = {"hollywood": True}
    three = {"default": {}, "oklahoma": {"oklahoma": True}}
    return {
        short: {"default": {}} if spec.family == "rummy" else gin if spec.players == 2 else three
        for short, spec in ((short, games.get(name)) for short, name in GAMES.items())
    }


def lobby_agents(game: str) -> list[str]:
    """The agents a client may seat at ``game``: registered names that play it, bare (no
    spec options, no file paths), less :data:`NOT_IN_LOBBY`."""
    spec = games.get(GAMES.get(game, game))
    return [a for a in agents.names() if _fits(spec, a) and a not in NOT_IN_LOBBY]


def check_lobby_agents(body: dict[str, Any]) -> None:
    """A client names agents only from the lobby's list: a spec with options or a path could
    make the server read its files, call another host (``llm:base_url=...``) or think for
    minutes (``search:budget=...``). Code that runs the server seats any agent by name."""
    game = body.get("game", "three")
    if not isinstance(game, str):
        return  # new_table names the bad game
    try:
        allowed = lobby_agents(game)
    except (ValueError, KeyError):
        return  # an unknown game: new_table names it and the games there are
    seats = body.get("seats")
    named = [(f"seat {p}", s) for p, s in enumerate(seats)] if isinstance(seats, list) else []
    hint = body.get("hint_agent")
    if hint == HUMAN:
        raise ValueError(
            f"hint_agent: 'human' is a kind of seat, not an agent; choose one of: "
            f"{', '.join(allowed)}"
        )
    named.append(("hint_agent", hint))
    for where, name in named:
        if not isinstance(name, str) or name == HUMAN:
            continue  # new_table names a seat that is not a string
        if name not in agents.names():
            raise ValueError(
                f"{where}: unknown agent {name[:60]!r}; a client may seat: {', '.join(allowed)}"
            )
        if name in NOT_IN_LOBBY:
            raise ValueError(
                f"{where}: agent {name!r} is not seated for clients (it wraps another agent, "
                f"thinks for seconds or asks another host); a client may seat: "
                f"{', '.join(allowed)}"
            )


def _fits(spec: games.GameSpec, name: str) -> bool:
    try:
        families.agent_spec(spec, name)
    except ValueError:
        return False
    return True
