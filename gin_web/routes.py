"""The HTTP routes of the web server (listed in :mod:`gin_web.app`), each a method of
:class:`Routes` over one :class:`~gin_web.server.Server`; :func:`routes` is the app's list,
the WebSocket route and the page's files included. A route checks the request (where it
comes from, its body) and asks the server; it plays no move itself."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from gin_web import people
from gin_web.guards import cross_site, parse_json
from gin_web.limits import MAX_BODY, MAX_REPLAY, Refused
from gin_web.lobby import check_lobby_agents, games_offered
from gin_web.server import Server
from gin_web.tables import HUMAN, new_table

__all__ = ["Routes", "routes", "Unavailable", "STATIC", "RULES_FILE", "PAGE_HEADERS"]

STATIC = Path(__file__).parent / "static"
#: The project's rules, served as the rules page (present in a clone; a wheel has none).
RULES_FILE = Path(__file__).resolve().parents[1] / "docs" / "RULES.md"
#: The page runs only its own script and talks only to this server (no inline script, no
#: other site), whatever text a table shows.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}
#: The fields of a request to start a table.
_TABLE_FIELDS = {"game", "options", "seats", "seed", "delay", "takeover", "hint_agent"}


class Unavailable(RuntimeError):
    """The store cannot be read now (a 503)."""


def _bad(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request, limit: int, seconds: float) -> Any:
    async def read() -> bytes:
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > limit:
                raise ValueError(f"request too large: at most {limit} bytes")
        return raw

    try:
        raw = await asyncio.wait_for(read(), seconds)
    except TimeoutError:
        raise ValueError(f"the request's body took over {seconds:g} s to arrive") from None
    if not raw.strip():
        raise ValueError("the body is empty: send a JSON object")
    return parse_json(raw)


def _rules_text() -> str:
    return RULES_FILE.read_text("utf-8") if RULES_FILE.is_file() else ""


def _client(request: Request) -> str:
    return request.client.host if request.client else ""


class Routes:
    """The HTTP routes over ``server``."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self._rules: str | None = None

    async def page(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)

    async def game_list(self, request: Request) -> Response:
        return JSONResponse(games_offered())

    async def create_table(self, request: Request) -> Response:
        server = self.server
        if cross_site(request.headers):
            return _bad("cross-site request refused", 403)
        try:
            body = await _body(request, MAX_BODY, server.limits.body_seconds)
            if not isinstance(body, dict):
                raise ValueError("the body is a JSON object")
            extra = sorted(set(body) - _TABLE_FIELDS)
            if extra:
                raise ValueError(f"unknown field(s) {', '.join(extra)}; allowed: "
                                 f"{', '.join(sorted(_TABLE_FIELDS))}")  # fmt: skip
            if "options" in body and not isinstance(body["options"], dict):
                raise ValueError("options is an object of rule options")
            check_lobby_agents(body)
            seats = body.get("seats")
            people_sit = seats is None or (isinstance(seats, list) and HUMAN in seats)
            if body.get("seed") is not None and people_sit:
                raise ValueError(
                    "seed: a table with a person deals from the server's secret; a seed may "
                    "be chosen only at a table of agents (seats all agents)"
                )
            agents_only = isinstance(seats, list) and HUMAN not in seats
            client = _client(request)
            server.check_room(client, agents_only)
            await server.caps.table_turn(client)  # (everyone's rate: the addresses in turn)
            table = new_table(
                body.get("game", "three"),
                body.get("options"),
                seats,
                seed=body.get("seed"),
                delay=body.get("delay", 0.0),
                takeover=body.get("takeover"),
                hint_agent=body.get("hint_agent"),
            )
            # Its agents are made in its worker (never here); one that cannot play the
            # table says why.
            refused = await server.scheduler.prepare(table, client)
            if refused is not None:
                raise ValueError(refused)
            try:
                return JSONResponse(server.add_table(table, client))
            except ValueError:  # (full meanwhile: its agents are let go)
                server.scheduler.forget(table.id)
                raise
        except Refused as err:
            return await self._refused(err)
        except ValueError as err:
            return _bad(str(err))
        except (TimeoutError, BrokenProcessPool) as err:
            return _bad(f"the agents could not be made now ({err}); try again", 503)

    async def rematch(self, request: Request) -> Response:
        server = self.server
        if cross_site(request.headers):
            return _bad("cross-site request refused", 403)
        try:
            body = await _body(request, MAX_BODY, server.limits.body_seconds)
            if not isinstance(body, dict) or set(body) != {"link"}:
                raise ValueError('a rematch request is {"link": <the token of your seat>}')
            token = body["link"]
            if not isinstance(token, str) or not 0 < len(token) <= 200:
                raise ValueError("unknown link: a rematch is asked for from a seat's link")
            return JSONResponse(await server.rematch(token, _client(request)))
        except Refused as err:
            return await self._refused(err)
        except ValueError as err:
            return _bad(str(err))
        except (TimeoutError, BrokenProcessPool) as err:
            return _bad(f"the agents could not be made now ({err}); try again", 503)

    async def _read(self, what: Callable[..., Any], *args: Any) -> Any:
        """A read of the store, in a thread; a database that cannot be read now (locked by
        another process past its wait) is a 503 that says so."""
        try:
            return await asyncio.to_thread(what, *args)
        except sqlite3.Error as err:
            message = f"the server cannot read its data right now ({err}); try again"
            raise Unavailable(message) from None

    def _page(self, request: Request) -> tuple[int, int]:
        """The ``limit`` and ``offset`` of a list's page (a ``ValueError`` names a bad one)."""
        lim = self.server.limits
        out = []
        for name, default, top in (("limit", lim.page_size, lim.max_page),
                                   ("offset", 0, 1_000_000)):  # fmt: skip
            raw = request.query_params.get(name)
            low = 1 if name == "limit" else 0
            if raw is None:
                out.append(default)
                continue
            if not raw.isdigit() or not low <= int(raw) <= top:
                raise ValueError(f"{name} must be an int in {low}..{top}, got {raw[:20]!r}")
            out.append(int(raw))
        return out[0], out[1]

    async def _refused(self, err: Refused) -> JSONResponse:
        """A request refused for a limit: said, :attr:`Limits.refuse_seconds` late."""
        await asyncio.sleep(self.server.limits.refuse_seconds)
        return _bad(str(err))

    async def _listed(self, request: Request) -> JSONResponse | None:
        """A list request refused for the address's rate (a 429 that says so, answered
        :attr:`Limits.refuse_seconds` late: a client that loops makes few), or None."""
        refused = self.server.caps.list_refused(_client(request))
        if refused is None:
            return None
        await asyncio.sleep(self.server.limits.refuse_seconds)
        return _bad(refused, 429)

    async def match_list(self, request: Request) -> Response:
        """``GET /api/matches?limit=&offset=&link=...``: a page of the finished matches,
        newest first, that this client may see (those of the tables its address started,
        sat at or watched, and of the links it names; every one when the server publishes
        them). The page is a JSON list; ``X-Next-Offset`` gives the next page's offset when
        there is one."""
        refused = await self._listed(request)
        if refused is not None:
            return refused
        try:
            limit, offset = self._page(request)
            tokens = request.query_params.getlist("link")
            if len(tokens) > 100 or any(len(t) > 200 for t in tokens):
                raise ValueError("link: at most 100 links of at most 200 characters")
            page = await self.server.match_page(_client(request), limit, offset, tokens)
        except ValueError as err:
            return _bad(str(err))
        except sqlite3.Error as err:
            return _bad(f"the server cannot read its data right now ({err}); try again", 503)
        headers = {} if page["next"] is None else {"X-Next-Offset": str(page["next"])}
        return JSONResponse(page["matches"], headers=headers)

    async def match_file(self, request: Request) -> Response:
        try:
            record = await self._read(self.server.store.match, request.path_params["mid"])
        except Unavailable as err:
            return _bad(str(err), 503)
        if record is None:
            return _bad("no such match", 404)
        name = f"match_{request.path_params['mid']}.json"
        text = await asyncio.to_thread(json.dumps, record, indent=1)
        return Response(
            text,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def replay(self, request: Request) -> Response:
        if cross_site(request.headers):
            return _bad("cross-site request refused", 403)
        try:
            data = await _body(request, MAX_REPLAY, self.server.limits.body_seconds)
            text = await self.server.replay(data)
            return Response(text, media_type="application/json")
        except ValueError as err:
            return _bad(str(err))

    async def rules(self, request: Request) -> Response:
        if self._rules is None:  # read once, in a thread
            self._rules = await asyncio.to_thread(_rules_text)
        if not self._rules:
            return _bad("the rules page needs a clone of the project (docs/RULES.md)", 404)
        return JSONResponse({"path": "docs/RULES.md", "text": self._rules})

    async def people_results(self, request: Request) -> Response:
        """``GET /api/people?limit=&offset=``: people against agents (made in the side
        worker, once per match saved), its agents' rows paged; ``download=1``: all of it as
        the evaluation's JSON."""
        refused = await self._listed(request)
        if refused is not None:
            return refused
        try:
            limit, offset = self._page(request)
            result = await self.server.people()
        except ValueError as err:
            return _bad(str(err))
        except sqlite3.Error as err:
            return _bad(f"the server cannot read its data right now ({err}); try again", 503)
        if request.query_params.get("download") in ("1", "true"):
            text = json.dumps(people.with_provenance(result), indent=1)
            return Response(text, media_type="application/json", headers={
                "Content-Disposition": 'attachment; filename="people_vs_agents.json"'})  # fmt: skip
        rows = result["agents"]
        more = offset + limit < len(rows)
        page = {**result, "agents": rows[offset : offset + limit], "offset": offset,
                "limit": limit, "next": offset + limit if more else None}  # fmt: skip
        return JSONResponse(page)


def routes(server: Server) -> list[BaseRoute]:
    """The app's routes over ``server``: the pages, the API, the WebSocket, the files."""
    r = Routes(server)
    return [
        Route("/", r.page),
        Route("/t/{token}", r.page),
        Route("/replay", r.page),
        Route("/rules", r.page),
        Route("/people", r.page),
        Route("/api/games", r.game_list),
        Route("/api/tables", r.create_table, methods=["POST"]),
        Route("/api/rematch", r.rematch, methods=["POST"]),
        Route("/api/matches", r.match_list),
        Route("/api/matches/{mid}", r.match_file),
        Route("/api/replay", r.replay, methods=["POST"]),
        Route("/api/rules", r.rules),
        Route("/api/people", r.people_results),
        WebSocketRoute("/ws/{token}", server.handle),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
