"""What a request must be, for :mod:`gin_web.app`: JSON as the server takes it
(:func:`parse_json`: no NaN nor infinities, bounded nesting), and the checks of where a
request comes from (:class:`HostCheck`: the ``Host`` among the server's names, against DNS
rebinding; :func:`cross_site`: the ``Origin``). How much a client may send is
:mod:`gin_web.limits`'s."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any

from starlette.responses import JSONResponse

__all__ = [
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
