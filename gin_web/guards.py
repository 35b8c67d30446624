"""What a request must be, for :mod:`gin_web.app`: JSON as the server takes it
(:func:`parse_json`: no NaN nor infinities, bounded nesting), the checks of where a
request comes from (:class:`HostCheck`: the ``Host`` among the server's names, against DNS
rebinding; :func:`cross_site`: the ``Origin``), and the connections the ASGI server keeps
(:class:`ConnectionGuard`: so many from an address and in all, a request's headers within
so many seconds). How much a client may send is :mod:`gin_web.limits`'s."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any

from starlette.responses import JSONResponse

from gin_web.limits import Buckets

__all__ = [
    "parse_json",
    "host_name",
    "HostCheck",
    "cross_site",
    "ConnectionGuard",
    "RequestBudget",
    "MAX_DEPTH",
    "LOOPBACK_HOSTS",
]

#: JSON nested deeper than this is refused (a replay record needs 5 levels).
MAX_DEPTH = 32
#: The names a server on a loopback address answers to.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


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
                await refuse(scope, receive, send, 421, 4403, message)
                return
        await self.app(scope, receive, send)


async def refuse(
    scope: MutableMapping[str, Any],
    receive: Callable[[], Awaitable[Any]],
    send: Callable[[Any], Awaitable[None]],
    status: int,
    close_code: int,
    message: str,
) -> None:
    """Answer a request with ``{"error": message}`` and ``status``, or close a WebSocket
    before it opens with ``close_code`` and the message (its first 120 characters)."""
    if scope["type"] == "http":
        await JSONResponse({"error": message}, status_code=status)(scope, receive, send)
    else:
        await receive()  # websocket.connect
        await send({"type": "websocket.close", "code": close_code, "reason": message[:120]})


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


class RequestBudget:
    """ASGI middleware: each address may make ``burst`` requests (pages, API calls, sockets
    opened) at once, then ``rate`` a second; one over that is answered 429 (a socket is
    closed, code 4429), with a message, after ``delay`` seconds: a client that floods the
    server waits for each refusal, so it cannot make many (its connections are capped)."""

    def __init__(self, app: Any, rate: float, burst: float, delay: float) -> None:
        self.app = app
        self.rate, self.burst, self.delay = rate, burst, delay
        self.buckets = Buckets(rate, burst)
        self.refused = 0

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] in ("http", "websocket"):
            client = scope.get("client")
            if not self.buckets.take(str(client[0]) if client else ""):
                self.refused += 1
                await asyncio.sleep(self.delay)
                message = (f"too many requests from this address: at most {self.burst:.0f} at "
                           f"once, then {self.rate:g} a second; wait a moment")  # fmt: skip
                await refuse(scope, receive, send, 429, 4429, message)
                return
        await self.app(scope, receive, send)


def _answer(status: str, message: str) -> bytes:
    """An HTTP answer that closes the connection, its body ``{"error": message}``."""
    body = json.dumps({"error": message}).encode()
    head = (f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")  # fmt: skip
    return head.encode("ascii") + body


#: An address with fewer connections open than this may take the last quarter of the
#: server's (:class:`ConnectionGuard`): a person's page needs a few.
FEW_CONNECTIONS = 8


class ConnectionGuard:
    """The connections of the ASGI server (uvicorn), counted as they open and close: at most
    ``client_connections`` from one address and ``max_connections`` in all, the last
    quarter of them kept for addresses with fewer than :data:`FEW_CONNECTIONS` open (a
    connection over any is answered 429 or 503, with a message, and closed at once), and each
    request's headers within ``header_seconds`` of the connection opening or of the last
    answer on it (else 408, closed): a client that sends header lines slowly, or nothing,
    holds no connection for long. Idle connections between requests are uvicorn's own
    ``timeout_keep_alive``. :meth:`http` and :meth:`websocket` wrap uvicorn's protocol
    classes; a connection upgraded to a WebSocket stays counted until it closes."""

    def __init__(
        self, client_connections: int, max_connections: int, header_seconds: float
    ) -> None:
        self.client_connections = client_connections
        self.max_connections = max_connections
        self.header_seconds = header_seconds
        self.open: Counter[str] = Counter()
        self.total = 0
        self.refused = 0  # connections refused for the caps
        self.timed_out = 0  # connections closed for slow headers

    def admit(self, host: str) -> bytes | None:
        """Count a new connection from ``host``; the answer that refuses it, or None."""
        if self.open[host] >= self.client_connections:
            self.refused += 1
            return _answer("429 Too Many Requests", (
                f"this address has {self.open[host]} connections open, the most it may have "
                f"({self.client_connections}); close some"))  # fmt: skip
        if self.total >= self.max_connections:
            self.refused += 1
            return _answer("503 Service Unavailable", (
                f"this server has {self.total} connections open, the most it holds "
                f"({self.max_connections}); try again in a few minutes"))  # fmt: skip
        if self.total >= self.max_connections * 3 // 4 and self.open[host] >= FEW_CONNECTIONS:
            self.refused += 1  # (the last quarter is kept for addresses with few connections)
            busy = self.open[host]
            return _answer("503 Service Unavailable", (
                f"this server has {self.total} connections open; the last of its "
                f"{self.max_connections} are kept for addresses with fewer than "
                f"{FEW_CONNECTIONS} (this one has {busy}); try again later"))  # fmt: skip
        self.open[host] += 1
        self.total += 1
        return None

    def release(self, host: str) -> None:
        self.open[host] -= 1
        if self.open[host] <= 0:
            del self.open[host]
        self.total -= 1

    def http(self, base: type[asyncio.Protocol]) -> type[asyncio.Protocol]:
        """uvicorn's HTTP protocol class ``base`` (httptools' or h11's), guarded."""
        guard = self
        timeout_answer = _answer("408 Request Timeout", (
            f"the request's headers took over {self.header_seconds:g} s to arrive"))  # fmt: skip

        class Guarded(base):  # type: ignore[valid-type,misc]
            _guard_host: str | None = None  # counted (None: refused, or not yet)
            _guard_timer: asyncio.TimerHandle | None = None
            _guard_cycle: Any = None
            _guard_upgraded = False

            def connection_made(self, transport: Any) -> None:
                super().connection_made(transport)
                host = self.client[0] if self.client else ""
                refused = guard.admit(host)
                if refused is not None:
                    transport.write(refused)
                    transport.close()
                    return
                self._guard_host = host
                self._guard_arm()

            def _guard_arm(self) -> None:
                self._guard_disarm()
                self._guard_timer = self.loop.call_later(guard.header_seconds, self._guard_late)

            def _guard_disarm(self) -> None:
                if self._guard_timer is not None:
                    self._guard_timer.cancel()
                    self._guard_timer = None

            def _guard_late(self) -> None:
                self._guard_timer = None
                cycle = self.cycle
                if cycle is not None and cycle is not self._guard_cycle:
                    return  # (the headers came: a request at work)
                guard.timed_out += 1
                if not self.transport.is_closing():
                    self.transport.write(timeout_answer)
                    self.transport.close()

            def data_received(self, data: bytes) -> None:
                if self._guard_host is None:
                    return  # (refused: closing)
                super().data_received(data)
                cycle = self.cycle
                if cycle is not None and cycle is not self._guard_cycle:
                    self._guard_cycle = cycle  # a request's headers are in
                    self._guard_disarm()

            def on_response_complete(self) -> None:
                super().on_response_complete()
                if not self.transport.is_closing() and not self._guard_upgraded:
                    self._guard_arm()  # the next request's headers, in time

            def handle_websocket_upgrade(self, *args: Any) -> None:
                self._guard_disarm()
                self._guard_upgraded = True  # (the WebSocket's protocol releases it)
                super().handle_websocket_upgrade(*args)

            def connection_lost(self, exc: Exception | None) -> None:
                self._guard_disarm()
                if self._guard_host is not None and not self._guard_upgraded:
                    guard.release(self._guard_host)
                    self._guard_host = None
                super().connection_lost(exc)

        Guarded.__name__ = f"Guarded{base.__name__}"
        return Guarded

    def websocket(self, base: type[asyncio.Protocol]) -> type[asyncio.Protocol]:
        """uvicorn's WebSocket protocol class ``base``: its connection (upgraded from a
        counted HTTP one) is released when it closes."""
        guard = self

        class Guarded(base):  # type: ignore[valid-type,misc]
            _guard_host: str | None = None

            def connection_made(self, transport: Any) -> None:
                super().connection_made(transport)
                peer = transport.get_extra_info("peername")
                self._guard_host = str(peer[0]) if isinstance(peer, tuple) and peer else ""

            def connection_lost(self, exc: Exception | None) -> None:
                if self._guard_host is not None:
                    guard.release(self._guard_host)
                    self._guard_host = None
                super().connection_lost(exc)

        Guarded.__name__ = f"Guarded{base.__name__}"
        return Guarded
