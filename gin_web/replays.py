"""The replay viewer's frames (:mod:`gin_web.app`'s ``POST /api/replay``): a saved match
played again from its record (the project's match format for the gin games, the app's own
for basic rummy), every move checked, every hand face up, bounded in moves and in bytes.
The app builds them in a worker process (:func:`replay_json`)."""

from __future__ import annotations

import json
from typing import Any

from gin_env import games
from gin_env import record as replay_files
from gin_web.tables import GAMES, HUMAN, LiveTable, Seat

__all__ = ["replay_frames", "replay_json", "RUMMY_FORMAT", "MAX_RUMMY_MOVES"]

#: Basic rummy's match record as the app saves it (:meth:`LiveTable.record`): its moves, the
#: deals by seed (the project's match format holds the gin games only).
RUMMY_FORMAT = "gin-web-rummy-1"
MAX_RUMMY_MOVES = 20_000


class _Frames:
    """A replay's frames, each without what it repeats from the one before: ``sheet`` is
    left out when unchanged, and the log is ``log_add`` (the lines added) unless it was
    started again (``log``). The page fills them in. The JSON is bounded."""

    def __init__(self, limit: int) -> None:
        self.frames: list[dict[str, Any]] = []
        self.size = 0
        self.limit = limit
        self._sheet: Any = None
        self._log: list[str] = []

    def add(self, view: dict[str, Any]) -> None:
        frame = dict(view)
        if self.frames and frame.get("sheet") == self._sheet:
            del frame["sheet"]
        else:
            self._sheet = view.get("sheet")
        log = list(view.get("log", []))
        if self.frames and log[: len(self._log)] == self._log:
            del frame["log"]
            frame["log_add"] = log[len(self._log) :]
        self._log = log
        self.size += len(json.dumps(frame))
        if self.size > self.limit:
            raise ValueError(
                f"replay: too large to show (over {self.limit // 1_000_000} MB of frames)"
            )
        self.frames.append(frame)


def replay_json(data: Any, max_moves: int, max_bytes: int) -> str:
    """``{"frames": replay_frames(...)}`` as JSON text (what the replay worker returns)."""
    return json.dumps({"frames": replay_frames(data, max_moves, max_bytes)})


def replay_frames(
    data: Any, max_moves: int = 10_000, max_bytes: int = 48_000_000
) -> list[dict[str, Any]]:
    """A replay file's frames: the table after the deal and after every move, every hand
    face up (the record checked first: structure, then that it reproduces); at most
    ``max_moves`` moves and ``max_bytes`` of frames (:class:`_Frames`)."""
    if isinstance(data, dict) and data.get("format") == RUMMY_FORMAT:
        return _rummy_frames(data, min(max_moves, MAX_RUMMY_MOVES), max_bytes)
    replay_files.check(data, "replay")
    if len(data["hands"]) > 500:
        raise ValueError("replay: at most 500 hands")
    count = sum(len(h["actions"]) for h in data["hands"])
    if count > max_moves:
        raise ValueError(f"replay: at most {max_moves} moves, the file has {count}")
    replay_files.replay_env(data)  # raises where the file does not reproduce
    spec = games.get(data["game"])
    if spec.name not in GAMES.values():
        raise ValueError(f"replay: game {data['game']!r} is not played here")
    names = data.get("agents") or {}
    env = replay_files.make_env(data)
    replay_files.reset(env, data)  # its seed, and the deck it was given (duplicate deals)
    seats = [str(names.get(a, "agent")) for a in env.possible_agents]
    table = LiveTable(
        id="replay",
        game=spec.name,
        options=dict(data["options"]),
        seed=data["seed"],
        env=env,
        seats=[Seat(p, k if k != HUMAN else "person") for p, k in enumerate(seats)],
        spectator_token="",
    )
    frames = _Frames(max_bytes)
    frames.add(table.view(None, open_hands=True))
    for hand in data["hands"]:
        for player, action in hand["actions"]:
            table.play_move(int(player), int(action))
            frames.add(table.view(None, open_hands=True))
    return frames.frames


def _rummy_frames(data: dict[str, Any], max_moves: int, max_bytes: int) -> list[dict[str, Any]]:
    """The frames of a basic rummy record: every move checked (the player to act, a legal
    action there) as it is played again from the seed, and the final scores compared."""
    if data.get("game") != "rummy_v0":
        raise ValueError(
            f"replay: a {RUMMY_FORMAT} record plays rummy_v0, not {data.get('game')!r}"
        )
    seed, options, moves = data.get("seed"), data.get("options"), data.get("moves")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"replay: seed must be an int >= 0, got {seed!r}")
    if not isinstance(options, dict):
        raise ValueError("replay: options must be an object of rule options")
    if not isinstance(moves, list) or len(moves) > max_moves:
        raise ValueError(f"replay: moves must be a list of at most {max_moves} moves")
    names = data.get("agents") or {}
    if not isinstance(names, dict):
        raise ValueError("replay: agents must be an object from players to names")
    try:
        env = games.get("rummy_v0").make_env(**options)
    except (TypeError, ValueError) as err:
        raise ValueError(f"replay: bad option: {err}") from None
    try:
        replay_files.reset(env, data)  # its seed, and the deck it was given, if any
    except (TypeError, ValueError) as err:
        raise ValueError(f"replay: bad first_deck: {err}") from None
    table = LiveTable(
        id="replay",
        game="rummy_v0",
        options=dict(options),
        seed=seed,
        env=env,
        seats=[Seat(p, str(names.get(a, "agent"))) for p, a in enumerate(env.possible_agents)],
        spectator_token="",
    )
    frames = _Frames(max_bytes)
    frames.add(table.view(None, open_hands=True))
    for i, move in enumerate(moves):
        if (
            not isinstance(move, list)
            or len(move) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in move)
        ):
            raise ValueError(f"replay: move {i} must be [player, action], got {move!r}")
        try:
            table.play_recorded(*move)
        except ValueError as err:
            raise ValueError(f"replay: {err}") from None
        frames.add(table.view(None, open_hands=True))
    scores = list(table.table_state.scores)
    if "scores" in data and data["scores"] != scores:
        raise ValueError(
            f"replay: the moves end at scores {scores}, but the record says {data['scores']!r}"
        )
    return frames.frames
