"""The ASGI app of ``gin-rummy serve`` (Starlette; extra ``web``).

HTTP routes::

    GET  /                    the lobby (the page: gin_web/static/index.html)
    GET  /t/<link>            a seat's or a spectator's page (the link is the invite)
    GET  /replay              the replay viewer
    GET  /api/games           the games, their options with defaults, the agents
    POST /api/tables          start a table: {"game", "options", "seats", "delay",
                              "takeover", "hint_agent", "seed"}; returns its links
    GET  /api/matches         the finished matches kept in SQLite
    GET  /api/matches/<id>    one of them as a replay file (download)
    POST /api/replay          a replay file -> its frames, every hand face up

The WebSocket ``/ws/<link>`` carries the play. The server sends ``{"type": "state", ...}``
(:meth:`gin_web.tables.LiveTable.view` of the link's seat) after every change, ``{"type":
"error", "message"}`` for a refused message, ``{"type": "hint", ...}`` and ``{"type":
"chat", ...}``. A client sends JSON text frames of at most :data:`MAX_MESSAGE` bytes:

- ``{"type": "move", "action": <id>, "seq": <move number>}`` (``seq`` optional: with it a
  move sent for a table that has moved on is refused instead of played);
- ``{"type": "hint"}``: what the table's hint agent would play (L2 by default);
- ``{"type": "chat", "text": "..."}``: a message to the partner (captain and adviser);
- ``{"type": "ping"}``.

Anything else (not JSON, not an object, an unknown type or field, a wrong type, a move
out of turn or illegal, a spectator's move, a binary frame, an oversized frame) gets an
error for that client and changes nothing. A person who reconnects with the same link
gets the same seat back, also from a restarted server (:mod:`gin_web.store` keeps the
tables at play).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

import agents
from agents import families
from gin_env import games
from gin_env import record as replay_files
from gin_web.store import Store
from gin_web.tables import (
    GAMES,
    HUMAN,
    Decision,
    LiveTable,
    MoveError,
    Seat,
    game_options,
    link_key,
    new_table,
    option_choices,
    restore_table,
)

__all__ = ["Server", "create_app", "MAX_MESSAGE", "MAX_BODY", "MAX_REPLAY"]

STATIC = Path(__file__).parent / "static"
#: The largest WebSocket message a client may send (a move is ~50 bytes).
MAX_MESSAGE = 4096
#: The largest JSON body of a table request, and of a replay file.
MAX_BODY = 16_384
MAX_REPLAY = 4_000_000
#: Messages other than states waiting for one client, at most.
MAX_PENDING = 64
#: The most tables a server holds at once (finished ones are dropped first).
MAX_TABLES = 2000
#: The page runs only its own script and talks only to this server (no inline script, no
#: other site), whatever text a table shows.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}
#: Agents the lobby does not offer, nor seats for a client (code that runs the server still
#: seats them by name): wrappers of another
#: agent, and agents that think for seconds or ask a remote model, which would hold up
#: every table of the server (the agents play in its one event loop).
NOT_IN_LOBBY = ("adviser", "captain", "search", "llm", "words")
_FIELDS = {
    "move": {"type", "action", "seq"},
    "hint": {"type"},
    "chat": {"type", "text"},
    "ping": {"type"},
}


@dataclass(eq=False)
class Conn:
    """One open WebSocket: its table, its seat (None: a spectator), face-up watching, and
    what waits to be sent to it.

    A table never waits on a client: messages go into the connection's outbox, which its
    own task sends. Each state is the whole view, so a client that reads slowly gets the
    latest state instead of every one (the outbox keeps one pending state), and at most
    :data:`MAX_PENDING` other messages."""

    ws: WebSocket
    table: LiveTable
    player: int | None
    open_hands: bool = False
    outbox: deque[tuple[bool, str]] = field(default_factory=deque)  # (is a state, text)
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    def put(self, message: dict[str, Any]) -> None:
        state = message.get("type") == "state"
        if state:  # a newer state makes a pending one useless
            kept = [m for m in self.outbox if not m[0]]
            if len(kept) != len(self.outbox):
                self.outbox = deque(kept)
        elif sum(1 for m in self.outbox if not m[0]) >= MAX_PENDING:
            return  # a client that reads nothing gets no more errors to read
        self.outbox.append((state, json.dumps(message)))
        self.ready.set()

    async def pump(self) -> None:
        """Send the outbox, in order, until the socket fails or the task is cancelled."""
        with contextlib.suppress(Exception):  # a closed socket: its handler cleans up
            while True:
                await self.ready.wait()
                self.ready.clear()
                while self.outbox:
                    _, text = self.outbox.popleft()
                    await self.ws.send_text(text)


class Server:
    """The tables of one server, their links and connections, and the store."""

    def __init__(self, data_dir: str | Path) -> None:
        self.store = Store(data_dir)
        self.tables: dict[str, LiveTable] = {}
        self.links: dict[str, tuple[LiveTable, int | None]] = {}  # by link_key
        self.conns: dict[str, list[Conn]] = {}
        self.saved: set[str] = set()
        self._running: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.restored = 0
        for tid, config, moves in self.store.open_tables(MAX_TABLES):
            try:
                table = restore_table(tid, config, moves)
            except (ValueError, TypeError, KeyError) as err:  # a table that no longer plays
                print(f"gin_web: table {tid} not restored: {err}", flush=True)
                continue
            self._register(table)
            self.restored += 1

    # -- tables -----------------------------------------------------------------------------
    def _register(self, table: LiveTable) -> None:
        game, tid = table.game, table.id
        table.on_decision = lambda d: self._decision(game, d)
        table.on_move = lambda n, p, a: self.store.add_move(tid, n, p, a)
        self.tables[tid] = table
        self.conns[tid] = []
        for seat in table.seats:
            if seat.key is not None:
                self.links[seat.key] = (table, seat.player)
        self.links[table.spectator_key] = (table, None)

    def add_table(self, table: LiveTable) -> dict[str, Any]:
        if len(self.tables) >= MAX_TABLES:
            self._drop_finished()
        if len(self.tables) >= MAX_TABLES:
            raise ValueError(f"this server holds {MAX_TABLES} tables already")
        self.store.add_table(table.id, table.config())
        self._register(table)
        links = {
            table.names[seat.player]: f"/t/{seat.token}"
            for seat in table.seats
            if seat.token is not None
        }
        self.start_agents(table)
        return {
            "table": table.id,
            "game": table.game,
            "seed": table.seed,
            "seats": links,
            "spectator": f"/t/{table.spectator_token}",
        }

    def _drop_finished(self) -> None:
        for tid, table in list(self.tables.items()):
            if table.over and not self.conns.get(tid):
                self._forget(table)

    def _forget(self, table: LiveTable) -> None:
        self.tables.pop(table.id, None)
        self.conns.pop(table.id, None)
        for key in [s.key for s in table.seats if s.key] + [table.spectator_key]:
            self.links.pop(key, None)

    def _decision(self, game: str, d: Decision) -> None:
        self.store.add_decision(game, d)

    def _after_change(self, table: LiveTable) -> None:
        if table.over and table.id not in self.saved:
            self.store.add_match(table.id, table.game, table.record())
            self.saved.add(table.id)

    # -- agents -----------------------------------------------------------------------------
    def start_agents(self, table: LiveTable) -> None:
        """Let the agents play until a person is to act (a task: the loop stays free)."""
        if table.id in self._running or not table.waiting_for_agent():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop yet (a table made before the server runs)
            return
        self._running.add(table.id)
        task = loop.create_task(self._run_agents(table))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_agents(self, table: LiveTable) -> None:
        try:
            moves = 0
            while table.waiting_for_agent() and table.id in self.tables:
                table.agent_move()
                moves += 1
                self._after_change(table)
                if table.delay > 0:
                    await self.broadcast(table)
                    await asyncio.sleep(table.delay)
                elif moves % 8 == 0:
                    await asyncio.sleep(0)  # let other tables and clients in
            await self.broadcast(table)
        finally:
            self._running.discard(table.id)

    async def play(self, table: LiveTable) -> None:
        """After a person's move: the agents' moves inline when the table has no delay (so
        the person's next state comes in one message), else in a task."""
        self._after_change(table)
        if table.delay > 0:
            await self.broadcast(table)
            self.start_agents(table)
            return
        moves = 0
        while table.waiting_for_agent() and table.id not in self._running:
            table.agent_move()
            self._after_change(table)
            moves += 1
            if moves % 16 == 0:
                await asyncio.sleep(0)
        await self.broadcast(table)

    # -- connections ------------------------------------------------------------------------
    async def send(self, conn: Conn, message: dict[str, Any]) -> None:
        conn.put(message)

    async def broadcast(self, table: LiveTable) -> None:
        for conn in list(self.conns.get(table.id, [])):
            await self.send(conn, table.view(conn.player, conn.open_hands))

    def takeover_check(self, table: LiveTable, player: int, left_at: float) -> None:
        seat = table.seats[player]
        if seat.connections == 0 and seat.left_at == left_at and not table.over:
            seat.stand_in = True
            self.start_agents(table)

    async def handle(self, ws: WebSocket) -> None:
        await ws.accept()
        if cross_site(ws.headers):
            await ws.send_text(json.dumps({"type": "error", "message": "cross-site connection"}))
            await ws.close(code=4403)
            return
        token = ws.path_params.get("token", "")
        found = self.links.get(link_key(token))
        if found is None:
            await ws.send_text(json.dumps({"type": "error", "message": "unknown link"}))
            await ws.close(code=4404)
            return
        table, player = found
        open_hands = ws.query_params.get("open") in ("1", "true")
        if open_hands and not table.agent_only:
            await ws.send_text(json.dumps({"type": "error", "message":
                "hands are shown face up only at a table of agents"}))  # fmt: skip
            await ws.close(code=4403)
            return
        conn = Conn(ws, table, player, open_hands)
        pump = asyncio.create_task(conn.pump())
        self.conns.setdefault(table.id, []).append(conn)
        seat = None if player is None else table.seats[player]
        if seat is not None:
            seat.connections += 1
            seat.left_at = None
            seat.stand_in = False  # the person is back: the stand-in agent steps aside
            if table.to_act == player:
                table.turn_started = time.monotonic()
        await self.broadcast(table)
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                await self.on_message(conn, msg)
        except WebSocketDisconnect:
            pass
        finally:
            pump.cancel()
            with contextlib.suppress(ValueError):
                self.conns.get(table.id, []).remove(conn)
            if seat is not None:
                seat.connections -= 1
                if seat.connections == 0:
                    seat.left_at = time.monotonic()
                    if table.takeover is not None:
                        left = seat.left_at
                        asyncio.get_running_loop().call_later(
                            table.takeover, self.takeover_check, table, seat.player, left
                        )
            with contextlib.suppress(Exception):
                await self.broadcast(table)

    async def error(self, conn: Conn, message: str) -> None:
        await self.send(conn, {"type": "error", "message": message, "seq": conn.table.step_count})

    async def on_message(self, conn: Conn, msg: Mapping[str, Any]) -> None:
        text = msg.get("text")
        if text is None:
            await self.error(conn, "binary frames are not accepted: send JSON text")
            return
        if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
            await self.error(conn, f"message too large: at most {MAX_MESSAGE} bytes")
            return
        try:
            data = json.loads(text)
        except ValueError:
            await self.error(conn, 'not JSON: send an object such as {"type": "move", ...}')
            return
        if not isinstance(data, dict):
            await self.error(conn, f"a message is a JSON object, got {type(data).__name__}")
            return
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in _FIELDS:
            await self.error(conn, f"unknown message type {kind!r}; allowed: {', '.join(_FIELDS)}")
            return
        extra = sorted(set(data) - _FIELDS[kind])
        if extra:
            await self.error(
                conn, f"unknown field(s) {', '.join(map(repr, extra))} in a {kind} message; "
                f"it has: {', '.join(sorted(_FIELDS[kind]))}"
            )  # fmt: skip
            return
        table = conn.table
        if kind == "ping":
            await self.send(conn, {"type": "pong", "seq": table.step_count})
            return
        if conn.player is None:
            await self.error(conn, f"a spectator cannot send {kind} messages")
            return
        if kind == "move":
            if "action" not in data:
                await self.error(conn, "a move needs an action id ('action')")
                return
            if table.id in self._running:
                await self.error(conn, "it is not your turn: the agents are playing")
                return
            try:
                table.move(conn.player, data["action"], data.get("seq"))
            except MoveError as err:
                await self.error(conn, str(err))
                return
            await self.play(table)
        elif kind == "hint":
            try:
                action = table.hint(conn.player)
            except MoveError as err:
                await self.error(conn, str(err))
                return
            await self.send(conn, {"type": "hint", "action": action, "agent": table.hint_agent,
                                   "label": table.action_label(action),
                                   "seq": table.step_count})  # fmt: skip
        elif kind == "chat":
            await self.chat(conn, data.get("text"))

    async def chat(self, conn: Conn, text: Any) -> None:
        table = conn.table
        if not isinstance(text, str) or not text.strip() or len(text) > 500:
            await self.error(conn, "a chat message is text of 1..500 characters")
            return
        if table.family != "gin" or table.env.num_players != 3:
            await self.error(conn, "team messages are for the captain and his adviser")
            return
        match = table.env.match
        team = {match.captain, match.adviser}
        if conn.player not in team:
            await self.error(conn, "team messages are for the captain and his adviser")
            return
        out = {"type": "chat", "from": table.names[conn.player or 0], "text": text.strip()}
        for other in list(self.conns.get(table.id, [])):
            if other.player in team:
                await self.send(other, out)


def cross_site(headers: Mapping[str, str]) -> bool:
    """Does the request come from a page of another site? (Its ``Origin`` names another
    host than the one it was sent to; requests without an ``Origin``, as from scripts, are
    not cross-site.) Such a page may not start tables or play: a browser sends ``Origin``
    with every WebSocket and every POST, so another site's page cannot act on this one."""
    origin = headers.get("origin")
    if origin is None:
        return False
    return origin.split("://", 1)[-1].rstrip("/") != headers.get("host", "")


def _bad(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request, limit: int) -> Any:
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise ValueError(f"request too large: at most {limit} bytes")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("the body is not JSON") from None


#: Basic rummy's match record as the app saves it (:meth:`LiveTable.record`): its moves, the
#: deals by seed (the project's match format holds the gin games only).
RUMMY_FORMAT = "gin-web-rummy-1"
MAX_RUMMY_MOVES = 20_000


def replay_frames(data: Any) -> list[dict[str, Any]]:
    """A replay file's frames: the table after the deal and after every move, every hand
    face up (the record checked first: structure, then that it reproduces)."""
    if isinstance(data, dict) and data.get("format") == RUMMY_FORMAT:
        return _rummy_frames(data)
    replay_files.check(data, "replay")
    if len(data["hands"]) > 500:
        raise ValueError("replay: at most 500 hands")
    replay_files.replay_env(data)  # raises where the file does not reproduce
    spec = games.get(data["game"])
    if spec.name not in GAMES.values():
        raise ValueError(f"replay: game {data['game']!r} is not played here")
    names = data.get("agents") or {}
    env = replay_files.make_env(data)
    env.reset(seed=data["seed"])
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
    frames = [table.view(None, open_hands=True)]
    for hand in data["hands"]:
        for player, action in hand["actions"]:
            table.play_move(int(player), int(action))
            frames.append(table.view(None, open_hands=True))
    return frames


def _rummy_frames(data: dict[str, Any]) -> list[dict[str, Any]]:
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
    if not isinstance(moves, list) or len(moves) > MAX_RUMMY_MOVES:
        raise ValueError(f"replay: moves must be a list of at most {MAX_RUMMY_MOVES} moves")
    names = data.get("agents") or {}
    if not isinstance(names, dict):
        raise ValueError("replay: agents must be an object from players to names")
    env = games.get("rummy_v0").make_env(**options)  # the env names a bad option
    env.reset(seed=seed)
    table = LiveTable(
        id="replay",
        game="rummy_v0",
        options=dict(options),
        seed=seed,
        env=env,
        seats=[Seat(p, str(names.get(a, "agent"))) for p, a in enumerate(env.possible_agents)],
        spectator_token="",
    )
    frames = [table.view(None, open_hands=True)]
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
        frames.append(table.view(None, open_hands=True))
    scores = [int(s) for s in env.game.scores]
    if "scores" in data and data["scores"] != scores:
        raise ValueError(
            f"replay: the moves end at scores {scores}, but the record says {data['scores']!r}"
        )
    return frames


def create_app(data_dir: str | Path) -> Starlette:
    """The app; its tables live in memory, its matches and decisions in ``data_dir``."""
    server = Server(data_dir)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)

    async def game_list(request: Request) -> Response:
        out = {}
        for short, name in GAMES.items():
            spec = games.get(name)
            fits = _lobby_agents(short)
            out[short] = {
                "env": name,
                "players": spec.players,
                "options": game_options(name),
                "choices": option_choices(name),
                "agents": fits,
                "default_agent": families.default_agent(spec),
            }
        return JSONResponse(out)

    async def create_table(request: Request) -> Response:
        if cross_site(request.headers):
            return _bad("cross-site request refused", 403)
        try:
            body = await _body(request, MAX_BODY)
            if not isinstance(body, dict):
                raise ValueError("the body is a JSON object")
            allowed = {"game", "options", "seats", "seed", "delay", "takeover", "hint_agent"}
            extra = sorted(set(body) - allowed)
            if extra:
                raise ValueError(f"unknown field(s) {', '.join(extra)}; allowed: "
                                 f"{', '.join(sorted(allowed))}")  # fmt: skip
            if "options" in body and not isinstance(body["options"], dict):
                raise ValueError("options is an object of rule options")
            _check_lobby_agents(body)
            table = new_table(
                body.get("game", "three"),
                body.get("options"),
                body.get("seats"),
                seed=body.get("seed"),
                delay=body.get("delay", 0.0),
                takeover=body.get("takeover"),
                hint_agent=body.get("hint_agent"),
            )
            return JSONResponse(server.add_table(table))
        except ValueError as err:
            return _bad(str(err))

    async def match_list(request: Request) -> Response:
        return JSONResponse(server.store.matches())

    async def match_file(request: Request) -> Response:
        record = server.store.match(request.path_params["mid"])
        if record is None:
            return _bad("no such match", 404)
        name = f"match_{request.path_params['mid']}.json"
        return Response(
            json.dumps(record, indent=1),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def replay(request: Request) -> Response:
        if cross_site(request.headers):
            return _bad("cross-site request refused", 403)
        try:
            data = await _body(request, MAX_REPLAY)
            return JSONResponse({"frames": replay_frames(data), "record": data})
        except ValueError as err:
            return _bad(str(err))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        for table in list(server.tables.values()):  # restored tables: agents to move go on
            server.start_agents(table)
            if table.takeover is not None:  # and nobody is connected yet: the clock runs
                for seat in table.seats:
                    if seat.human:
                        seat.left_at = time.monotonic()
                        loop.call_later(table.takeover, server.takeover_check, table,
                                        seat.player, seat.left_at)  # fmt: skip
        yield

    app = Starlette(
        lifespan=lifespan,
        routes=[
            Route("/", page),
            Route("/t/{token}", page),
            Route("/replay", page),
            Route("/api/games", game_list),
            Route("/api/tables", create_table, methods=["POST"]),
            Route("/api/matches", match_list),
            Route("/api/matches/{mid}", match_file),
            Route("/api/replay", replay, methods=["POST"]),
            WebSocketRoute("/ws/{token}", server.handle),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
    )
    app.state.server = server
    return app


def _lobby_agents(game: str) -> list[str]:
    """The agents a client may seat at ``game``: registered names that play it, bare (no
    spec options, no file paths), less :data:`NOT_IN_LOBBY`."""
    spec = games.get(GAMES.get(game, game))
    return [a for a in agents.names() if _fits(spec, a) and a not in NOT_IN_LOBBY]


def _check_lobby_agents(body: dict[str, Any]) -> None:
    """A client names agents only from the lobby's list: a spec with options or a path could
    make the server read its files, call another host (``llm:base_url=...``) or think for
    minutes (``search:budget=...``). Code that runs the server seats any agent by name."""
    game = body.get("game", "three")
    if not isinstance(game, str):
        return  # new_table names the bad game
    try:
        allowed = _lobby_agents(game)
    except (ValueError, KeyError):
        return  # an unknown game: new_table names it and the games there are
    seats = body.get("seats")
    named = [(f"seat {p}", s) for p, s in enumerate(seats)] if isinstance(seats, list) else []
    named.append(("hint_agent", body.get("hint_agent")))
    for where, name in named:
        if not isinstance(name, str) or name == HUMAN:
            continue  # new_table names a seat that is not a string
        if name not in agents.names():
            raise ValueError(
                f"{where}: unknown agent {name[:60]!r}; a client may seat: {', '.join(allowed)}"
            )
        if name in NOT_IN_LOBBY:
            raise ValueError(
                f"{where}: agent {name!r} is not seated for clients (it wraps another agent or "
                f"thinks for seconds); a client may seat: {', '.join(allowed)}"
            )


def _fits(spec: games.GameSpec, name: str) -> bool:
    try:
        families.agent_spec(spec, name)
    except ValueError:
        return False
    return True


def serve(host: str = "127.0.0.1", port: int = 8000, data_dir: str | Path = "runs/web") -> None:
    """Run the app with uvicorn (WebSockets by the ``websockets`` library) until stopped."""
    import uvicorn  # web extra: uvicorn

    app = create_app(data_dir)
    uvicorn.run(app, host=host, port=port, ws_max_size=65_536, log_level="warning")
