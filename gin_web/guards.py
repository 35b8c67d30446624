"""What keeps one client from holding up the others, for :mod:`gin_web.app`: the limits of
a link, a client and the server (:class:`Limits`, token buckets), JSON as the server takes
it (:func:`parse_json`: no NaN nor infinities, bounded nesting), and the checks of where a
request comes from (:class:`HostCheck`: the ``Host`` among the server's names, against DNS
rebinding; :func:`cross_site`: the ``Origin``)."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from starlette.responses import JSONResponse

__all__ = [
    "Limits",
    "Bucket",
    "parse_json",
    "host_name",
    "HostCheck",
    "cross_site",
    "MAX_DEPTH",
    "LOOPBACK_HOSTS",
]

#: JSON nested deeper than this is refused (a replay record needs 5 levels).
MAX_DEPTH = 32
#: The names a server on a loopback address answers to.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass
class Limits:
    """What one link, one client (address) and the server allow, so that no client can hold
    up the others. Every figure is checked by a test of ``tests/test_web_attacks.py``."""

    link_sockets: int = 8  # open sockets on one link
    client_sockets: int = 512  # open sockets from one address
    client_tables: int = 200  # unfinished tables started from one address
    tables_burst: float = 120.0  # tables one address may start at once ...
    tables_per_second: float = 1.0  # ... and then this many a second
    messages_burst: float = 40.0  # messages one socket may send at once ...
    messages_per_second: float = 20.0  # ... and then this many a second
    hints_burst: float = 5.0
    hints_per_second: float = 1.0
    agent_tables: int = 16  # tables of agents only playing at once
    agent_hands: int = 200  # hands a table of agents plays before it stops
    unopened_expire: float = 600.0  # a table whose people never came, after 10 minutes
    idle_expire: float = 6 * 3600.0  # a table nobody moved at nor watched, after 6 hours
    finished_keep: float = 3600.0  # a finished table nobody watches leaves memory
    sweep_seconds: float = 30.0  # how often tables are checked for expiry
    silent_close: float = 75.0  # a socket that sends nothing this long (the page pings)
    body_seconds: float = 10.0  # to send a request's body
    replay_moves: int = 10_000  # moves of a replay file
    replay_frames_bytes: int = 48_000_000  # the frames of one replay, as JSON
    slice_seconds: float = 0.002  # tables of agents only run ahead of their share this long
    think_workers: int = 2  # worker processes that think for the agents at people's tables
    lane_workers: int = 1  # ... and for the tables of agents only
    lane_nice: int = 10  # how much lower the priority of the latter is (0..19)
    lane_moves: float = 200.0  # moves a second of all tables of agents only, at most
    think_seconds: float = 60.0  # an agent's move or hint thought longer: its worker is killed
    flood_close: int = 200  # a socket refused this many messages for its rate is closed
    watch_seconds: float = 0.5  # watchers of a table at full speed get a state this often


@dataclass
class Bucket:
    """A token bucket: ``burst`` at once, then ``rate`` a second."""

    rate: float
    burst: float
    level: float = -1.0
    at: float = 0.0

    def take(self) -> bool:
        now = time.monotonic()
        if self.level < 0:
            self.level, self.at = self.burst, now
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level >= 1:
            self.level -= 1
            return True
        return False


def parse_json(text: str | bytes) -> Any:
    """JSON as this server takes it: no NaN nor infinities (``ValueError`` naming them), at
    most :data:`MAX_DEPTH` levels deep."""

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not a number here: numbers must be finite")

    try:
        data = json.loads(text, parse_constant=constant)
    except RecursionError:
        raise ValueError(f"JSON nested too deeply: at most {MAX_DEPTH} levels") from None
    except UnicodeDecodeError:
        raise ValueError("not JSON: the text is not UTF-8") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON ({err.msg} at character {err.pos})") from None
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise ValueError(f"JSON nested too deeply: at most {MAX_DEPTH} levels")
            values = item.values() if isinstance(item, dict) else item
            stack.extend((v, depth + 1) for v in values)
    return data


def host_name(host: str) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8000`` -> ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


class HostCheck:
    """ASGI middleware: a request whose ``Host`` is not one of the names this server
    answers to is refused (421; a WebSocket is closed before it opens). A web page that
    rebinds its own DNS name to this machine sends its own name as ``Host``, so it cannot
    reach the app, whatever its ``Origin``."""

    def __init__(self, app: Any, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = frozenset(host_name(h) for h in hosts)

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] in ("http", "websocket"):
            raw = dict(scope.get("headers") or []).get(b"host", b"")
            name = host_name(raw.decode("latin-1"))
            if name not in self.hosts:
                message = (
                    f"unknown host {name[:80]!r}: this server answers to "
                    f"{', '.join(sorted(self.hosts))} (gin-rummy serve --allow-host adds a name)"
                )
                if scope["type"] == "http":
                    await JSONResponse({"error": message}, status_code=421)(scope, receive, send)
                else:
                    await receive()  # websocket.connect
                    await send({"type": "websocket.close", "code": 4403, "reason": message[:120]})
                return
        await self.app(scope, receive, send)


def cross_site(headers: Mapping[str, str]) -> bool:
    """Does the request come from a page of another site? (Its ``Origin`` names another
    host than the one it was sent to; requests without an ``Origin``, as from scripts, are
    not cross-site.) Such a page may not start tables or play: a browser sends ``Origin``
    with every WebSocket and every POST, so another site's page cannot act on this one.
    The ``Host`` itself is checked by :class:`HostCheck`."""
    origin = headers.get("origin")
    if origin is None:
        return False
    return origin.split("://", 1)[-1].rstrip("/").lower() != headers.get("host", "").lower()
