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
    POST /api/rematch         {"link": <token>}: the same table again, new links
    GET  /api/matches         the finished matches kept in SQLite
    GET  /api/matches/<id>    one of them as a replay file (download)
    POST /api/replay          a replay file -> its frames, every hand face up
    GET  /api/rules           the text of docs/RULES.md
    GET  /api/people          people against agents as the evaluation's JSON

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

from starlette.applications import Starlette

from gin_web.guards import LOOPBACK_HOSTS, HostCheck, parse_json
from gin_web.limits import MAX_BODY, MAX_MESSAGE, MAX_PENDING, MAX_REPLAY, MAX_TABLES, Limits
from gin_web.lobby import NOT_IN_LOBBY, OPTION_HELP, named_tables
from gin_web.routes import PAGE_HEADERS, RULES_FILE, STATIC, routes
from gin_web.server import Server
from gin_web.sockets import Conn

__all__ = [
    "Server",
    "Limits",
    "Conn",
    "create_app",
    "serve",
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
) -> Starlette:
    """The app; its tables live in memory, its matches and decisions in ``data_dir``. It
    answers to the names in ``hosts`` only (:class:`HostCheck`); the server itself is
    ``app.state.server``."""
    server = Server(data_dir, limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with server.running():
            yield

    app = Starlette(lifespan=lifespan, routes=routes(server))
    app.state.server = server
    app.add_middleware(HostCheck, hosts=tuple(hosts))
    return app


def answered_hosts(host: str, extra: Iterable[str] = ()) -> list[str]:
    """The names a server bound to ``host`` answers to: the loopback names, the address it
    is bound to (unless it is every address), and ``extra`` (``--allow-host``)."""
    names = list(LOOPBACK_HOSTS)
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    names.extend(extra)
    return names


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    data_dir: str | Path = "runs/web",
    allow_hosts: Iterable[str] = (),
    limits: Limits | None = None,
) -> None:
    """Run the app with uvicorn (WebSockets by the ``websockets`` library) until stopped."""
    import uvicorn  # web extra: uvicorn

    app = create_app(data_dir, answered_hosts(host, allow_hosts), limits)
    # No per-message compression: it would cost the one loop more than the bytes it saves
    # on loopback and local networks (a state is a few KiB). No proxy headers: a client's
    # address (its limits) is the one it connects from, not one it names (X-Forwarded-For).
    uvicorn.run(app, host=host, port=port, ws_max_size=65_536, log_level="warning",
                ws_ping_interval=20.0, ws_ping_timeout=20.0, timeout_keep_alive=5,
                ws_per_message_deflate=False, proxy_headers=False)  # fmt: skip
