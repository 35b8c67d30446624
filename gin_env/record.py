"""Replays: a finished match saved as JSON, and played back as text or as a GIF.

A replay file holds everything needed to rebuild the match: the game's env name, the env
options, the seed, the agents' names, the role draw, and for every hand its deck, roles,
every action ``(player, action id)``, its result and the scores after it::

    {"format": 1, "game": "three_handed_gin_v0", "seed": 7, "options": {...},
     "agents": {"player_0": "heuristic", ...}, "role_deck": [...],
     "hands": [HandRecord.to_dict(), ...], "scores": [..], "winner": 2}

The seed fixes every deal, unless the first hand was dealt from a deck given at reset
(``reset(options={"deck": ...})``: duplicate evaluation deals each deal's deck to both
seatings): then ``"first_deck"`` holds that deck (the 52 card ints, hand 1's deck), and
:func:`reset` deals it again. A record without it (every record before it) is dealt by its
seed alone.

:func:`replay_env` plays the actions back through a fresh env made from the same options,
seed and first deck, and checks, hand by hand, that the decks, results and scores come out
as recorded; a file that does not reproduce raises
``ValueError`` saying where it diverged. :func:`load` first checks the file's structure
(:func:`check`: every field's type and range, hand by hand and action by action) and
names the file and the bad field (``hands[2].actions[5][1] (action id)``).
:func:`replay_text` and :func:`replay_gif` are built on it.

>>> import numpy as np
>>> from gin_env import gin_v0
>>> env = gin_v0.raw_env(target_score=20)
>>> env.reset(seed=3)
>>> rng = np.random.default_rng(0)
>>> while not env.table_state.is_over:
...     env.step(int(rng.choice(env.legal_actions())))
>>> data = match_record(3, {"target_score": 20}, env)
>>> list(replay_env(data).table_state.scores) == data["scores"]
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from gin_env import actions as A
from gin_env import games
from gin_env.cards import NUM_CARDS
from gin_env.gin_aec import role_names_for
from gin_env.match import ADVISER, BOX, CAPTAIN, DEALER, NONDEALER, ROLE_NAMES, HandRecord
from gin_env.optional import require
from gin_env.render_image import table_image

__all__ = [
    "FORMAT",
    "GAMES",
    "match_record",
    "table_record",
    "RUMMY_FORMAT",
    "save_match",
    "load",
    "check",
    "make_env",
    "reset",
    "replay_env",
    "replay_moves",
    "replay_frames",
    "replay_text",
    "replay_gif",
    "hand_lines",
]

FORMAT = 1
#: The games whose matches replay: the gin games (a replay checks every hand on the gin
#: hand engine; basic rummy keeps no such record).
GAMES = tuple(g.name for g in games.GAMES.values() if g.family == "gin")
RESULT_KINDS = ("knock", "undercut", "gin", "big_gin", "draw")


# -- saving ----------------------------------------------------------------------------------
def match_record(
    seed: int | None,
    options: Mapping[str, Any],
    env: Any,
    agents: Mapping[str, str] | None = None,
    first_deck: Sequence[int] | None = None,
) -> dict[str, Any]:
    """The replay record (a JSON-ready dict) of ``env``'s match, played from ``reset(seed)``
    of an env made with ``options`` (``first_deck``: the deck given to that reset, if one
    was). The match need not be over (a truncated one saves too).
    """
    raw = getattr(env, "unwrapped", env)
    state = raw.table_state
    if state is None:
        raise ValueError("the env has no match to save; reset it and play first")
    game = raw.metadata.get("name")
    if game not in GAMES:
        raise ValueError(f"cannot save a replay of game {game!r}; allowed: {', '.join(GAMES)}")
    json.dumps(dict(options))  # the options must survive the trip to JSON
    return {
        "format": FORMAT,
        "game": game,
        "seed": seed,
        "options": dict(options),
        "agents": dict(agents or {}),
        "role_deck": state.role_deck,
        **_first(first_deck),
        "hands": [rec.to_dict() for rec in state.history],
        "scores": list(state.scores),
        "winner": state.winner,
    }


def _first(first_deck: Sequence[int] | None) -> dict[str, list[int]]:
    """The record's ``first_deck`` field: the deck given at reset, or nothing."""
    return {} if first_deck is None else {"first_deck": [int(c) for c in first_deck]}


#: The format of a basic rummy match's record: its moves, played again from its seed.
RUMMY_FORMAT = "gin-web-rummy-1"


def table_record(
    seed: int | None,
    options: Mapping[str, Any],
    env: Any,
    agents: Mapping[str, str] | None = None,
    moves: Sequence[tuple[int, int]] = (),
    first_deck: Sequence[int] | None = None,
) -> dict[str, Any]:
    """The record of ``env``'s match, of any game: a gin game's :func:`match_record`;
    basic rummy's moves ``(player, action)`` from ``reset(seed)`` (``first_deck``: the
    deck given to it, if one was), its scores and winner (:func:`replay_moves` plays it)."""
    raw = getattr(env, "unwrapped", env)
    if raw.table_state is not None and raw.table_state.family == "gin":
        return match_record(seed, options, raw, agents, first_deck)
    json.dumps(dict(options))  # the options must survive the trip to JSON
    state = raw.table_state.summary()
    return {
        "format": RUMMY_FORMAT,
        "game": raw.metadata["name"],
        "seed": seed,
        "options": dict(options),
        "agents": dict(agents or {}),
        **_first(first_deck),
        "moves": [[int(p), int(a)] for p, a in moves],
        "scores": list(state.scores),
        "winner": state.winner,
    }


def save_match(
    path: str | Path,
    seed: int | None,
    options: Mapping[str, Any],
    env: Any,
    agents: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Save ``env``'s match as a JSON replay at ``path``; return the record saved."""
    data = match_record(seed, options, env, agents)
    Path(path).write_text(json.dumps(data, indent=1) + "\n")
    return data


def load(path: str | Path) -> dict[str, Any]:
    """Read a replay file and check its structure: every field a replay needs, with the
    right type and range (hand by hand, action by action). A file that is not UTF-8 JSON,
    or whose structure is wrong, is a ``ValueError`` naming the file and the bad field."""
    where = f"replay file {str(path)!r}"
    raw = Path(path).read_bytes()
    if not raw.strip():
        raise ValueError(f"{where} is empty: a replay is a JSON record saved by match --save")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(
            f"{where} is not a replay: not UTF-8 text (byte {err.start}; binary data?)"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{where} is not valid JSON: {err}") from None
    check(data, where)
    return data


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Checker:
    """Explicit structure checks with the path of the bad field in every message."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, field: str, message: str) -> NoReturn:
        raise ValueError(f"{self.where}: field {field}: {message}")

    def int_(self, value: Any, field: str, lo: int | None = None, hi: int | None = None) -> int:
        if not _is_int(value):
            self.fail(field, f"expected an integer, got {value!r}")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            span = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            self.fail(field, f"expected an integer in {span}, got {value!r}")
        return int(value)

    def optional_int(self, value: Any, field: str, lo: int, hi: int) -> None:
        if value is not None:
            self.int_(value, field, lo, hi)

    def list_(self, value: Any, field: str, length: int | None = None) -> list[Any]:
        if not isinstance(value, list):
            self.fail(field, f"expected a list, got {type(value).__name__}")
        if length is not None and len(value) != length:
            self.fail(field, f"expected {length} entries, got {len(value)}")
        return value

    def dict_(self, value: Any, field: str, keys: Sequence[str] = ()) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(field, f"expected an object, got {type(value).__name__}")
        missing = [k for k in keys if k not in value]
        if missing:
            self.fail(field, f"missing key(s) {', '.join(missing)}")
        return value

    def ints(
        self, value: Any, field: str, lo: int, hi: int | None, length: int | None = None
    ) -> list[int]:
        for i, x in enumerate(self.list_(value, field, length)):
            self.int_(x, f"{field}[{i}]", lo, hi)
        return value  # type: ignore[no-any-return]

    def deck(self, value: Any, field: str) -> None:
        """A deck: the 52 card ints 0..51, each exactly once."""
        cards = self.ints(value, field, 0, NUM_CARDS - 1, NUM_CARDS)
        if len(set(cards)) != NUM_CARDS:
            twice = next(c for c in cards if cards.count(c) > 1)
            self.fail(field, f"expected each card 0..51 once (a shuffled deck), card {twice} "
                      "is there twice")  # fmt: skip

    def seating(self, hand: dict[str, Any], at: str, players: int) -> None:
        """A hand's seats and roles as the match deals them: ``players`` is (non-dealer,
        dealer), two different players; ``roles`` gives each player one role, each role once
        (three-handed: the non-dealer is the captain, the dealer the box, the third player
        the adviser; two-player: dealer and non-dealer)."""
        seats = self.ints(hand["players"], f"{at}.players", 0, players - 1, 2)
        if seats[0] == seats[1]:
            self.fail(f"{at}.players", f"expected two different players, got {seats}")
        roles = self.ints(hand["roles"], f"{at}.roles", 0, players - 1, players)
        if sorted(roles) != list(range(players)):
            self.fail(f"{at}.roles", f"expected each role 0..{players - 1} once, got {roles}")
        first, second = (CAPTAIN, BOX) if players == 3 else (NONDEALER, DEALER)
        if (roles[seats[0]], roles[seats[1]]) != (first, second):
            names = role_names_for(players)
            self.fail(
                f"{at}.players",
                f"expected (the {names[first]}, the {names[second]}) as roles gives them, got "
                f"players {seats} with roles {roles}",
            )


def check(data: Any, where: str = "replay") -> None:
    """Check a replay record's structure (see the module docstring); a ``ValueError`` names
    ``where`` and the bad field (``hands[2].actions[5]``). Whether the record reproduces is
    :func:`replay_env`'s check."""
    c = _Checker(where)
    if not isinstance(data, dict):
        raise ValueError(f"{where}: a replay is a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ValueError(f"{where}: format must be {FORMAT}, got {data.get('format')!r}")
    missing = [k for k in ("game", "seed", "options", "hands", "scores") if k not in data]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    if data["game"] not in GAMES:
        raise ValueError(f"{where}: game must be one of {', '.join(GAMES)}, got {data['game']!r}")
    players = games.get(data["game"]).num_players()
    if data["seed"] is not None:
        c.int_(data["seed"], "seed", 0)
    options = c.dict_(data["options"], "options")
    for key in options:
        if not key.isidentifier():
            c.fail("options", f"option names are identifiers, got {key!r}")
    agents = c.dict_(data.get("agents", {}), "agents")
    seats = [f"player_{i}" for i in range(players)]
    for key, name in agents.items():
        if key not in seats:
            c.fail("agents", f"expected seats from {', '.join(seats)}, got {key!r}")
        if not isinstance(name, str):
            c.fail(f"agents.{key}", f"expected an agent name, got {name!r}")
    if "role_deck" in data:
        c.deck(data["role_deck"], "role_deck")
    first = data.get("first_deck")
    if first is not None:
        c.deck(first, "first_deck")
    c.ints(data["scores"], "scores", 0, None, players)
    c.optional_int(data.get("winner"), "winner", 0, players - 1)
    keys = ("index", "deck", "players", "roles", "actions", "result", "scores_after")
    for h, hand in enumerate(c.list_(data["hands"], "hands")):
        at = f"hands[{h}]"
        c.dict_(hand, at, keys)
        c.int_(hand["index"], f"{at}.index", h, h)
        c.deck(hand["deck"], f"{at}.deck")
        if h == 0 and first is not None and hand["deck"] != first:
            c.fail("first_deck", "expected hand 1's deck (the deck given at reset)")
        c.seating(hand, at, players)
        for i, pair in enumerate(c.list_(hand["actions"], f"{at}.actions")):
            c.list_(pair, f"{at}.actions[{i}]", 2)
            c.int_(pair[0], f"{at}.actions[{i}][0] (player)", 0, players - 1)
            c.int_(pair[1], f"{at}.actions[{i}][1] (action id)", 0, A.NUM_ACTIONS - 1)
        result = hand["result"]
        if result is not None:
            res = f"{at}.result"
            c.dict_(result, res, ("kind", "winner", "points", "knocker", "reason"))
            if result["kind"] not in RESULT_KINDS:
                c.fail(f"{res}.kind", f"expected one of {', '.join(RESULT_KINDS)}, "
                       f"got {result['kind']!r}")  # fmt: skip
            for key in ("winner", "knocker"):  # one of the hand's two players, or none
                who = result[key]
                c.optional_int(who, f"{res}.{key}", 0, players - 1)
                if who is not None and who not in hand["players"]:
                    c.fail(f"{res}.{key}", f"expected one of the hand's players "
                           f"{hand['players']}, got {who}")  # fmt: skip
            c.int_(result["points"], f"{res}.points", 0)
            if not isinstance(result["reason"], str):
                c.fail(f"{res}.reason", f"expected text, got {result['reason']!r}")
        # Empty while the hand is unfinished, one score per player after it.
        after = c.list_(hand["scores_after"], f"{at}.scores_after")
        c.ints(after, f"{at}.scores_after", 0, None, players if after else 0)


# -- playing back ----------------------------------------------------------------------------
def make_env(data: Mapping[str, Any], **extra: Any) -> Any:
    """A fresh ``raw_env`` of the replay's game and options (``extra`` adds e.g. render_mode)."""
    check(data)
    try:
        return games.get(data["game"]).make_env(**{**data["options"], **extra})
    except (TypeError, ValueError) as err:
        raise ValueError(f"replay field options: {err}") from None


def reset(env: Any, data: Mapping[str, Any]) -> None:
    """Reset ``env`` as the record's match began: its seed, and its first deck when the
    record holds one (``first_deck``)."""
    first = data.get("first_deck")
    env.reset(seed=data["seed"], options=None if first is None else {"deck": list(first)})


def replay_frames(data: Mapping[str, Any], **extra: Any) -> Iterator[tuple[Any, int | None]]:
    """Play the replay back: yield ``(env, hand index)`` after ``reset`` and after every
    action (the index of the hand that action belonged to; None for the reset). The env is
    the same object each time, so copy anything you keep. Raises ``ValueError`` where the
    replay stops matching its record."""
    env = make_env(data, **extra)
    reset(env, data)
    state = env.table_state
    if "role_deck" in data and state.role_deck != list(data["role_deck"]):
        raise ValueError("replay diverged: the role draw's deck differs from the record")
    yield env, None
    names = env.possible_agents
    for h, hand in enumerate(data["hands"]):
        rec = state.history[h] if h < len(state.history) else None
        if rec is None or list(rec.deck) != list(hand["deck"]):
            raise ValueError(f"replay diverged: hand {h + 1}'s deck differs from the record")
        if list(rec.players) != list(hand["players"]) or list(rec.roles) != list(hand["roles"]):
            raise ValueError(
                f"replay diverged: hand {h + 1} seats players {list(rec.players)} with roles "
                f"{list(rec.roles)}, recorded {hand['players']} / {hand['roles']}"
            )
        for player, action in hand["actions"]:
            if state.is_over or env.agent_selection != names[player]:
                to_act = "nobody" if state.is_over else env.agent_selection
                raise ValueError(
                    f"replay diverged in hand {h + 1}: {names[player]} recorded, {to_act} to act"
                )
            try:
                env.step(int(action))
            except ValueError as err:
                raise ValueError(f"replay diverged in hand {h + 1}: {err}") from None
            yield env, h
        done = state.history[h]
        if done.to_dict()["result"] != hand["result"] or list(done.scores_after) != list(
            hand["scores_after"]
        ):
            raise ValueError(
                f"replay diverged: hand {h + 1} ended {done.to_dict()['result']} with scores "
                f"{list(done.scores_after)}, recorded {hand['result']} / {hand['scores_after']}"
            )
    if list(state.scores) != list(data["scores"]):
        raise ValueError(
            f"replay diverged: final scores {list(state.scores)}, recorded {data['scores']}"
        )


def replay_moves(data: Mapping[str, Any]) -> Any:
    """Play a basic rummy record (:data:`RUMMY_FORMAT`: its moves from its seed and first
    deck, :func:`table_record`) back and return the env at its end. Every move is checked
    (the player to act, a legal action there), then the scores and the winner; a
    ``ValueError`` says where the record stops matching."""
    if not isinstance(data, Mapping) or data.get("format") != RUMMY_FORMAT:
        raise ValueError(f"replay: not a {RUMMY_FORMAT} record")
    c = _Checker("replay")
    spec = games.get(str(data.get("game")))
    if spec.family != "rummy":
        c.fail("game", f"expected a rummy game, got {data.get('game')!r}")
    if data.get("seed") is not None:
        c.int_(data["seed"], "seed", 0)
    if data.get("first_deck") is not None:
        c.deck(data["first_deck"], "first_deck")
    moves = c.list_(data.get("moves"), "moves")
    try:
        env = spec.make_env(**c.dict_(data.get("options"), "options"))
    except (TypeError, ValueError) as err:
        raise ValueError(f"replay field options: {err}") from None
    reset(env, data)
    names = env.possible_agents
    for i, move in enumerate(moves):
        player = c.int_(c.list_(move, f"moves[{i}]", 2)[0], f"moves[{i}][0]", 0, len(names) - 1)
        action = c.int_(move[1], f"moves[{i}][1]", 0)
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent] or agent != names[player]:
            raise ValueError(f"replay diverged at move {i + 1}: {names[player]} recorded, "
                             f"{agent} to act")  # fmt: skip
        mask = env.observe(agent)["action_mask"]
        if action >= len(mask) or not mask[action]:
            raise ValueError(f"replay diverged at move {i + 1}: action {action} is not legal")
        env.step(action)
    state = env.table_state.summary()
    if list(state.scores) != list(data.get("scores", state.scores)) or state.winner != data.get(
        "winner", state.winner
    ):
        raise ValueError(
            f"replay diverged: the moves end at scores {list(state.scores)}, winner "
            f"{state.winner}; recorded {data.get('scores')}, winner {data.get('winner')}"
        )
    return env


def replay_env(data: Mapping[str, Any]) -> Any:
    """Play the whole replay back and return the env at its end (checked against the record)."""
    frames = replay_frames(data)
    env, _ = next(frames)
    for _frame in frames:  # the same env object each time: run it to the end
        pass
    return env


def hand_lines(
    rec: HandRecord,
    names: Sequence[str],
    role_names: Sequence[str],
    actions: bool = False,
) -> list[str]:
    """A finished hand in words: roles, optionally every action, the result with the
    showdown's arrangements and lay-offs, and the scores after it."""
    roles = ", ".join(f"{names[p]} {role_names[r]}" for p, r in enumerate(rec.roles))
    lines = [f"hand {rec.index + 1} [{roles}]"]
    if actions:
        for player, action in rec.actions:
            role = role_names[rec.roles[player]]
            verb = "suggests" if role == ROLE_NAMES[ADVISER] else ""
            text = A.action_str(action)
            lines.append(f"    {names[player]:9} {role:10} {verb + ' ' if verb else ''}{text}")
    if rec.result is not None:
        seat_names = [names[p] for p in rec.players]
        lines.append("  " + rec.result.describe(seat_names).replace("\n", "\n  "))
        lines.append(f"  scores {list(rec.scores_after)}")
    return lines


def replay_text(data: Mapping[str, Any], actions: bool = True) -> str:
    """The replayed match, hand by hand, as text (checked against the record)."""
    start = make_env(data)
    reset(start, data)
    # The roles as first drawn (a finished match's box/captain/adviser have moved on).
    roles = start.table_state.describe_roles()
    env = replay_env(data)
    state = env.table_state
    agents = data.get("agents") or {}
    who = ", ".join(f"{a}={agents[a]}" for a in env.possible_agents if a in agents)
    lines = [f"{data['game']}, seed {data['seed']}" + (f", agents {who}" if who else "")]
    if roles:
        lines.append(roles)
    for rec in state.history:
        if rec.result is not None:
            lines += hand_lines(rec, env.possible_agents, env.role_names, actions)
    lines.append(match_outcome(env))
    return "\n".join(lines)


def match_outcome(env: Any) -> str:
    """The match's last line: who won (or that it is not finished), after how many hands,
    and the scores (under Hollywood scoring, the three games)."""
    state = env.table_state
    games = state.standings().get("games")
    tally = f"games {games}" if games else f"scores {list(state.scores)}"
    n = len(state.history)
    if state.is_over:
        return f"{env.possible_agents[state.winner]} wins the match after {n} hands: {tally}"
    return f"match not finished after {n} hands: {tally}"


def replay_gif(
    data: Mapping[str, Any],
    path: str | Path,
    hands: Sequence[int] | None = None,
    show_all: bool = True,
    duration_ms: int = 600,
    max_frames: int = 400,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write the replay as an animated GIF of table pictures; return the number of frames.

    ``hands`` picks hands by number (1-based; default all), ``show_all`` draws the hidden
    hands face up, ``max_frames`` caps the length (a match has hundreds of actions).
    ``progress`` is called with 1 after each frame (for a progress bar).
    """
    pil_image = require("PIL.Image", needed_for="a GIF replay")

    if max_frames < 1:
        raise ValueError(f"max_frames must be >= 1, got {max_frames!r}")
    wanted = None if hands is None else {h - 1 for h in hands}
    frames: list[Any] = []
    for env, h in replay_frames(data):
        if len(frames) >= max_frames:
            break
        if h is None and wanted is not None and 0 not in wanted:
            continue
        if h is not None and wanted is not None and h not in wanted:
            continue
        # Adviser suggestions change little on the table: skip them to keep the GIF short.
        if h is not None and _is_advice(env, data["hands"][h]["roles"]):
            continue
        frames.append(pil_image.fromarray(table_image(env, show_all=show_all)).quantize(64))
        if progress is not None:
            progress(1)
    if not frames:
        raise ValueError(f"no frames: hands {list(hands or [])} are not in this replay")
    frames[0].save(
        path, save_all=True, append_images=frames[1:], duration=duration_ms, loop=0, optimize=True
    )
    return len(frames)


def _is_advice(env: Any, roles: Sequence[int]) -> bool:
    """Was the last action an adviser's suggestion? (``roles``: the roles during its hand.)"""
    agent, _ = env.last_action
    return env.role_names[roles[env.possible_agents.index(agent)]] == ROLE_NAMES[ADVISER]
