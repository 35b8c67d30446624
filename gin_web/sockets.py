"""The WebSocket protocol of the web server (``/ws/<link>``, described in :mod:`gin_web.app`):
a link's socket opened (:func:`handle`), each message a client sends checked and answered
(:func:`on_message`), and what waits to be sent to each socket (:class:`Conn`).

A table never waits on a client: messages go into the connection's outbox, which its own
task sends. A refused message gets an error for that client and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from starlette.responses import JSONResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

from gin_web.guards import cross_site, parse_json
from gin_web.limits import MAX_MESSAGE, MAX_PENDING, Bucket, Caps, Limits
from gin_web.tables import LiveTable, MoveError, link_key

if TYPE_CHECKING:
    from gin_web.scheduler import Scheduler


class Server(Protocol):
    """What the socket protocol uses of the server (:class:`gin_web.server.Server`): named
    here, so that the sockets need not import the server that holds them."""

    links: dict[str, tuple[LiveTable, int | None]]
    conns: dict[str, list[Conn]]
    opened: set[str]
    stopped: set[str]
    notices: dict[str, str]
    caps: Caps
    limits: Limits
    scheduler: Scheduler

    async def find(self, key: str) -> tuple[LiveTable, int | None] | str: ...
    def first_open(self, table: LiveTable) -> None: ...
    def visit(self, table_id: str, client: str) -> None: ...
    def touch(self, table: LiveTable) -> None: ...
    def arrive(self, conn: Conn) -> None: ...
    def depart(self, conn: Conn) -> None: ...
    async def broadcast(self, table: LiveTable) -> None: ...


__all__ = ["Conn", "handle", "on_message", "FIELDS"]

#: The fields of each type of message a client may send.
FIELDS = {
    "move": {"type", "action", "seq"},
    "hint": {"type"},
    "chat": {"type", "text"},
    "presence": {"type", "here"},
    "ping": {"type"},
}
#: The roles of the three-handed team that may send each other messages.
_TEAM = ("captain", "adviser")


@dataclass(eq=False)
class Conn:
    """One open WebSocket: its table, its seat (None: a spectator), face-up watching, and
    what waits to be sent to it.

    A table never waits on a client: messages go into the connection's outbox, which its
    own task sends. Each state is the whole view, so a client that reads slowly gets the
    latest state instead of every one (the outbox keeps one pending state), and at most
    :data:`~gin_web.limits.MAX_PENDING` other messages."""

    ws: WebSocket
    table: LiveTable
    player: int | None
    open_hands: bool = False
    key: str = ""  # the link's key
    client: str = ""  # the client's address
    token: str = ""  # the link itself (in memory only: its rematch's link is made from it)
    here: bool = True  # the page is shown (a hidden page's seat is away)
    refused: int = 0  # messages refused for the socket's rate
    messages: Bucket = field(default_factory=lambda: Bucket(20.0, 40.0))
    hints: Bucket = field(default_factory=lambda: Bucket(1.0, 5.0))
    outbox: deque[tuple[bool, str]] = field(default_factory=deque)  # (is a state, text)
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    def put(self, message: dict[str, Any]) -> None:
        self.put_text(message.get("type") == "state", json.dumps(message))

    def put_text(self, state: bool, text: str) -> None:
        if state:  # a newer state makes a pending one useless
            kept = [m for m in self.outbox if not m[0]]
            if len(kept) != len(self.outbox):
                self.outbox = deque(kept)
        elif sum(1 for m in self.outbox if not m[0]) >= MAX_PENDING:
            return  # a client that reads nothing gets no more errors to read
        self.outbox.append((state, text))
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


# -- a socket, from open to close -------------------------------------------------------------
async def _refuse(server: Server, ws: WebSocket, client: str, message: str, code: int) -> None:
    """Refuse a socket with ``message``: accepted, told, closed with ``code``; or, when this
    address had a socket refused lately, answered before the handshake (an HTTP answer whose
    body holds the message: a flood of refused sockets costs the server little)."""
    if server.caps.refused_lately(client) and "websocket.http.response" in ws.scope.get(
        "extensions", {}
    ):
        status = {4403: 403, 4404: 404}.get(code, 429)
        await ws.send_denial_response(JSONResponse({"error": message}, status_code=status))
        return
    await ws.accept()
    await ws.send_text(json.dumps({"type": "error", "message": message}))
    await ws.close(code=code)


async def handle(server: Server, ws: WebSocket) -> None:
    """A socket on ``/ws/<link>``: checked before it is accepted (its origin, the sockets
    its link, its address and the server hold, its link, face-up watching only at a table
    of agents), then its messages until it closes or stays silent for
    :attr:`~gin_web.limits.Limits.silent_close` seconds."""
    client = ws.client.host if ws.client else ""
    if cross_site(ws.headers):
        await _refuse(server, ws, client, "cross-site connection", 4403)
        return
    token = ws.path_params.get("token", "")
    key = link_key(token)
    caps = server.caps
    refused = caps.socket_refused(key, client)
    if refused is not None:
        await _refuse(server, ws, client, refused, 4429)
        return
    caps.add_socket(key, client)  # (counted while it waits its turn and its link is found)
    try:
        refused = await caps.socket_turn(client)
        if refused is not None:
            await _refuse(server, ws, client, refused, 4429)
            return
        await _serve(server, ws, token, key, client)
    finally:
        caps.remove_socket(key, client)


async def _serve(server: Server, ws: WebSocket, token: str, key: str, client: str) -> None:
    found = await server.find(key)
    if isinstance(found, str):
        await _refuse(server, ws, client, found, 4404)
        return
    table, player = found
    open_hands = ws.query_params.get("open") in ("1", "true")
    if open_hands and not table.agent_only:
        await _refuse(server, ws, client, "hands are shown face up only at a table of agents", 4403)
        return
    await ws.accept()
    caps = server.caps
    conn = Conn(
        ws,
        table,
        player,
        open_hands,
        key=key,
        client=client,
        token=token,
        messages=caps.message_bucket(),
        hints=caps.hint_bucket(),
    )
    pump = asyncio.create_task(conn.pump())
    server.conns.setdefault(table.id, []).append(conn)
    if player is not None and table.id not in server.opened:
        server.first_open(table)
    server.visit(table.id, client)
    server.touch(table)
    server.arrive(conn)
    await server.broadcast(table)
    if server.notices.get(table.id):
        conn.put({"type": "notice", "message": server.notices[table.id]})
    silent = server.limits.silent_close
    try:
        while True:
            try:
                msg = await asyncio.wait_for(ws.receive(), silent)
            except TimeoutError:
                conn.put({"type": "error", "message": f"no message for "
                          f"{silent:g} s: the socket is closed"})  # fmt: skip
                await asyncio.sleep(0.05)  # (the pump sends it)
                await ws.close(code=4408)
                break
            if msg["type"] == "websocket.disconnect":
                break
            try:
                await on_message(server, conn, msg)
            except Exception as err:  # the server's own failure: said, the socket stays
                print(f"gin_web: a message failed: {err!r}", flush=True)
                error(conn, f"the server failed on this message "
                      f"({type(err).__name__}); nothing was changed")  # fmt: skip
    except WebSocketDisconnect:
        pass
    finally:
        pump.cancel()
        with contextlib.suppress(ValueError):
            server.conns.get(table.id, []).remove(conn)
        if conn.here:
            server.depart(conn)
        server.touch(table)
        with contextlib.suppress(Exception):
            await server.broadcast(table)


# -- a message --------------------------------------------------------------------------------
def error(conn: Conn, message: str) -> None:
    conn.put({"type": "error", "message": message, "seq": conn.table.step_count})


async def _flooded(server: Server, conn: Conn, message: str) -> None:
    """A message refused for the socket's rate; past
    :attr:`~gin_web.limits.Limits.flood_close` of them the socket is closed (code 4429): no
    person sends that many."""
    if not server.caps.flood_closes(conn):
        error(conn, message)
        return
    error(conn, f"{message}; this socket sent {conn.refused} messages over its "
          "limit and is closed")  # fmt: skip
    await asyncio.sleep(0.05)  # (the pump sends it)
    with contextlib.suppress(Exception):
        await conn.ws.close(code=4429)


def _checked(conn: Conn, msg: Mapping[str, Any]) -> dict[str, Any] | None:
    """The message as a JSON object of a known type and its fields; None (the client told
    why) for anything else."""
    text = msg.get("text")
    if text is None:
        error(conn, "binary frames are not accepted: send JSON text")
        return None
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
        error(conn, f"message too large: at most {MAX_MESSAGE} bytes")
        return None
    try:
        data = parse_json(text)
    except ValueError as err:
        error(conn, f'{err}; send an object such as {{"type": "move", ...}}')
        return None
    if not isinstance(data, dict):
        error(conn, f"a message is a JSON object, got {type(data).__name__}")
        return None
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        error(conn, f"unknown message type {kind!r}; allowed: {', '.join(FIELDS)}")
        return None
    extra = sorted(set(data) - FIELDS[kind])
    if extra:
        error(conn, f"unknown field(s) {', '.join(map(repr, extra))} in a {kind} message; "
              f"it has: {', '.join(sorted(FIELDS[kind]))}")  # fmt: skip
        return None
    return data


async def on_message(server: Server, conn: Conn, msg: Mapping[str, Any]) -> None:
    """One message of a client (an ASGI ``websocket.receive``), checked, then acted on."""
    refused = server.caps.message_refused(conn)
    if refused is not None:
        await _flooded(server, conn, refused)
        return
    data = _checked(conn, msg)
    if data is None:
        return
    kind = data["type"]
    table = conn.table
    if kind == "ping":
        conn.put({"type": "pong", "seq": table.step_count})
        return
    if kind == "presence":
        here = data.get("here")
        if not isinstance(here, bool):
            error(conn, f"here must be true or false, got {here!r}")
            return
        if here != conn.here:
            conn.here = here
            (server.arrive if here else server.depart)(conn)
            if here and conn.player is not None:
                server.scheduler.start(table)  # (nothing to do unless a stand-in is to act)
            await server.broadcast(table)
        return
    if conn.player is None:
        error(conn, f"a spectator cannot send {kind} messages")
        return
    if kind == "move":
        if "action" not in data:
            error(conn, "a move needs an action id ('action')")
            return
        if table.id in server.stopped:
            error(conn, "this table has stopped: no move is played")
            return
        refused = server.caps.move_refused(conn.client)
        if refused is not None:
            await _flooded(server, conn, refused)
            return
        try:
            table.move(conn.player, data["action"], data.get("seq"))
        except MoveError as err:
            error(conn, str(err))
            return
        await server.scheduler.after_person(table)
    elif kind == "hint":
        refused = server.caps.hint_refused(conn)
        if refused is not None:
            await _flooded(server, conn, refused)
            return
        try:
            action, seq = await server.scheduler.hint(table, conn.player, conn.client)
        except MoveError as err:
            error(conn, str(err))
            return
        conn.put({"type": "hint", "action": action, "agent": table.hint_agent,
                  "label": table.action_label(action), "seq": seq})  # fmt: skip
    elif kind == "chat":
        chat(server, conn, data.get("text"))


def chat(server: Server, conn: Conn, text: Any) -> None:
    """A team message: from the captain or the adviser of the hand on the table (as every
    page shows the roles), to both of them."""
    table = conn.table
    if not isinstance(text, str) or not text.strip() or len(text) > 500:
        error(conn, "a chat message is text of 1..500 characters")
        return
    if table.spec.players != 3:
        error(conn, "team messages are for the captain and his adviser")
        return
    roles = table.summary().roles
    team = {p for p, role in enumerate(roles) if role in _TEAM}
    if conn.player not in team:
        error(conn, "team messages are for the captain and his adviser")
        return
    out = {"type": "chat", "from": table.names[conn.player or 0], "text": text.strip()}
    for other in list(server.conns.get(table.id, [])):
        if other.player in team:
            other.put(out)
