"""The ASGI app of ``gin-rummy serve`` (Starlette; extra ``web``).

HTTP routes::

    GET  /                    the lobby (the page: gin_web/static/index.html)
    GET  /t/<link>            a seat's or a spectator's page (the link is the invite)
    GET  /replay              the replay viewer
    GET  /rules               the rules page (docs/RULES.md, rendered by the page)
    GET  /people              people against agents: each agent's results against people
    GET  /api/games           the games, their options with defaults and help, the named
                              tables, the agents
    POST /api/tables          start a table: {"game", "options", "seats", "delay",
                              "takeover", "hint_agent", "seed"}; returns its links (never
                              its seed; a seed is taken only at a table of agents)
    POST /api/rematch         {"link": <token>}: the table's rematch (one per table, made
                              by the first who asks) and the asker's own seat at it
    GET  /api/matches         a page (?limit=&offset=) of the finished matches this client
                              may see: those of the tables its address started, sat at or
                              watched, and of the links it names (?link=<token>, repeated);
                              every one when the server publishes them
    GET  /api/matches/<id>    one of them as a replay file (download)
    POST /api/replay          a replay file -> its frames, every hand face up
    GET  /api/rules           the text of docs/RULES.md
    GET  /api/people          people against agents as the evaluation's JSON (its rows
                              paged: ?limit=&offset=)

The WebSocket ``/ws/<link>`` carries the play. The server sends ``{"type": "state", ...}``
(:meth:`gin_web.tables.LiveTable.view` of the link's seat) after every change, ``{"type":
"error", "message"}`` for a refused message, ``{"type": "hint", ...}``, ``{"type":
"chat", ...}`` and ``{"type": "notice", "message"}`` (the server cannot save right now,
a table of agents stopped at its cap; ``""`` clears it). A client sends JSON text frames of
at most :data:`MAX_MESSAGE` bytes:

- ``{"type": "move", "action": <id>, "seq": <move number>}`` (``seq`` optional: with it a
  move sent for a table that has moved on is refused instead of played);
- ``{"type": "hint"}``: what the table's hint agent would play (L2 by default);
- ``{"type": "chat", "text": "..."}``: a message to the partner (captain and adviser);
- ``{"type": "presence", "here": true|false}``: the page is shown or hidden (a hidden
  page's seat counts as away, and its takeover clock runs);
- ``{"type": "ping"}`` (the page sends one every 20 s; a socket silent for
  :attr:`Limits.silent_close` seconds is closed).

Anything else (not JSON, NaN or infinities, nested too deep, not an object, an unknown type
or field, a wrong type, a move out of turn or illegal, a spectator's move, a binary frame,
an oversized frame, more messages or hints than a link may send) gets an error for that
client and changes nothing. A person who reconnects with the same link gets the same seat
back, also from a restarted server (:mod:`gin_web.store` keeps the tables at play).

The event loop owns every table and never thinks for an agent: agents' moves and hints are
thought in worker processes (:mod:`gin_web.thinkers`; those of tables of agents only at a
lower priority), and replay frames are built in another (:mod:`gin_web.replays`); the loop
reads each observation and plays each move it gets back, so no table is changed elsewhere.

Every table deals from a secret of :data:`gin_web.tables.SECRET_BITS` bits that leaves the
server only in the record of the finished match. Requests must name this server (its
``Host`` among the names it answers to: a rebound DNS name is refused) and come from its own
page or from no page at all (``Origin``).

This module puts the app together; each part does one thing:

- :mod:`gin_web.routes`: the HTTP routes (:mod:`gin_web.lobby`: what the lobby offers);
- :mod:`gin_web.server`: the tables, their links, seats and sockets, the store;
- :mod:`gin_web.sockets`: the WebSocket protocol;
- :mod:`gin_web.scheduler`: the agents' moves and the hints, thought in workers;
- :mod:`gin_web.limits`: the limits (rates, caps) and their keeping;
- :mod:`gin_web.replay_pool`: the replay worker;
- :mod:`gin_web.guards`: JSON as the server takes it, where a request comes from.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

try:
    import resource
except ImportError:  # (not on Windows: no limit on open files to read there)
    resource = None  # type: ignore[assignment]

from gin_web.guards import LOOPBACK_HOSTS, ConnectionGuard, HostCheck, RequestBudget, parse_json
from gin_web.limits import MAX_BODY, MAX_MESSAGE, MAX_PENDING, MAX_REPLAY, MAX_TABLES, Limits
from gin_web.lobby import AGENT_HELP, NOT_IN_LOBBY, OPTION_HELP, named_tables
from gin_web.routes import PAGE_HEADERS, RULES_FILE, STATIC, routes
from gin_web.server import Server
from gin_web.sockets import Conn

__all__ = [
    "Server",
    "Limits",
    "Conn",
    "create_app",
    "serve",
    "server_config",
    "ConnectionGuard",
    "AGENT_HELP",
    "answered_hosts",
    "named_tables",
    "parse_json",
    "LOOPBACK_HOSTS",
    "OPTION_HELP",
    "NOT_IN_LOBBY",
    "MAX_MESSAGE",
    "MAX_PENDING",
    "MAX_TABLES",
    "MAX_BODY",
    "MAX_REPLAY",
    "PAGE_HEADERS",
    "RULES_FILE",
    "STATIC",
]


def create_app(
    data_dir: str | Path,
    hosts: Iterable[str] = LOOPBACK_HOSTS,
    limits: Limits | None = None,
    publish: bool = False,
) -> Starlette:
    """The app; its tables live in memory, its matches and decisions in ``data_dir``. It
    answers to the names in ``hosts`` only (:class:`HostCheck`); the server itself is
    ``app.state.server``. ``publish``: ``/api/matches`` lists every finished match to
    anyone (else only to those who were at its table)."""
    server = Server(data_dir, limits, publish=publish)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with server.running():
            yield

    app = Starlette(lifespan=lifespan, routes=routes(server))
    app.state.server = server
    lim = server.limits
    app.add_middleware(HostCheck, hosts=tuple(hosts))
    app.add_middleware(RequestBudget, rate=lim.requests_per_second, burst=lim.requests_burst,
                       delay=lim.refuse_seconds)  # fmt: skip
    return app


def answered_hosts(host: str, extra: Iterable[str] = ()) -> list[str]:
    """The names a server bound to ``host`` answers to: the loopback names, the address it
    is bound to (unless it is every address), and ``extra`` (``--allow-host``)."""
    names = list(LOOPBACK_HOSTS)
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    names.extend(extra)
    return names


def server_config(app: Starlette, host: str, port: int, limits: Limits | None = None) -> Any:
    """The ``uvicorn.Config`` the app is served with: no per-message compression (it would
    cost the one loop more than the bytes it saves on loopback and local networks: a
    state is a few KiB), no proxy headers (a client's address, its limits, is the one it
    connects from, not one it names in X-Forwarded-For), WebSocket pings, idle connections
    closed after :attr:`Limits.keep_alive` seconds, and the connections guarded
    (:class:`ConnectionGuard`: per address, in all, headers in time; in all, at most what
    the process may open, less a margin for its own files)."""
    import uvicorn  # web extra: uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol  # web extra: uvicorn
    from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol  # web extra: uvicorn

    lim = limits or Limits()
    most = _file_room(lim.max_connections)
    guard = ConnectionGuard(lim.client_connections, most, lim.header_seconds)
    app.state.guard = guard
    assert AutoWebSocketsProtocol is not None, "uvicorn needs websockets (the web extra)"
    return uvicorn.Config(
        app, host=host, port=port, log_level="warning", ws_max_size=65_536,
        ws_ping_interval=20.0, ws_ping_timeout=20.0, ws_per_message_deflate=False,
        proxy_headers=False, timeout_keep_alive=lim.keep_alive, limit_concurrency=most + 64,
        http=guard.http(AutoHTTPProtocol),
        ws=guard.websocket(AutoWebSocketsProtocol),  # type: ignore[arg-type]
    )  # fmt: skip


def _file_room(wanted: int) -> int:
    """How many connections the process may hold: ``wanted``, or fewer where its open
    files are fewer (the soft limit raised to the hard one first, as far as it goes), less
    256 for the database, the workers and the page's files."""
    if resource is None:  # (no such limits here)
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted + 256:
        target = wanted + 256 if hard == resource.RLIM_INFINITY else min(hard, wanted + 256)
        with contextlib.suppress(OSError, ValueError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return wanted if soft == resource.RLIM_INFINITY else max(16, min(wanted, soft - 256))


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    data_dir: str | Path = "runs/web",
    allow_hosts: Iterable[str] = (),
    limits: Limits | None = None,
    publish: bool = False,
) -> None:
    """Run the app with uvicorn (WebSockets by the ``websockets`` library) until stopped
    (``publish``: every finished match listed to anyone)."""
    import uvicorn  # web extra: uvicorn

    app = create_app(data_dir, answered_hosts(host, allow_hosts), limits, publish)
    uvicorn.Server(server_config(app, host, port, limits)).run()
