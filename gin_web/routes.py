"""The HTTP routes of the web server (listed in :mod:`gin_web.app`), each a method of
:class:`Routes` over one :class:`~gin_web.server.Server`; :func:`routes` is the app's list,
the WebSocket route and the page's files included. A route checks the request (where it
comes from, its body) and asks the server; it plays no move itself."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from gin_web import people
from gin_web.guards import cross_site, parse_json
from gin_web.limits import MAX_BODY, MAX_REPLAY
from gin_web.lobby import check_lobby_agents, games_offered
from gin_web.server import Server
from gin_web.tables import HUMAN, link_key, new_table

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


def _client(request: Request) -> str:
    return request.client.host if request.client else ""


class Routes:
    """The HTTP routes over ``server``."""

    def __init__(self, server: Server) -> None:
        self.server = server

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
            server.check_room(_client(request), agents_only)
            table = new_table(
                body.get("game", "three"),
                body.get("options"),
                seats,
                seed=body.get("seed"),
                delay=body.get("delay", 0.0),
                takeover=body.get("takeover"),
                hint_agent=body.get("hint_agent"),
            )
            return JSONResponse(server.add_table(table, _client(request)))
        except ValueError as err:
            return _bad(str(err))

    async def rematch(self, request: Request) -> Response:
        server = self.server
        if cross_site(request.headers):
            return _bad("cross-site request refused", 403)
        try:
            body = await _body(request, MAX_BODY, server.limits.body_seconds)
            if not isinstance(body, dict) or set(body) != {"link"}:
                raise ValueError('a rematch request is {"link": <the token of your seat>}')
            token = body["link"]
            found = server.links.get(link_key(token)) if isinstance(token, str) else None
            if found is None or found[1] is None:
                raise ValueError("unknown link: a rematch is asked for from a seat's link")
            old = found[0]
            if not old.over:
                raise ValueError("the match is not over yet: a rematch follows a finished match")
            server.check_room(_client(request), old.agent_only)
            table = new_table(
                old.game,
                old.options,
                [s.kind for s in old.seats],
                delay=old.delay,
                takeover=old.takeover,
                hint_agent=old.hint_agent,
            )
            return JSONResponse(server.add_table(table, _client(request)))
        except ValueError as err:
            return _bad(str(err))

    async def _read(self, what: Callable[..., Any], *args: Any) -> Any:
        """A read of the store, in a thread; a database that cannot be read now (locked by
        another process past its wait) is a 503 that says so."""
        try:
            return await asyncio.to_thread(what, *args)
        except sqlite3.Error as err:
            message = f"the server cannot read its data right now ({err}); try again"
            raise Unavailable(message) from None

    async def match_list(self, request: Request) -> Response:
        try:
            return JSONResponse(await self._read(self.server.store.matches))
        except Unavailable as err:
            return _bad(str(err), 503)

    async def match_file(self, request: Request) -> Response:
        try:
            record = await self._read(self.server.store.match, request.path_params["mid"])
        except Unavailable as err:
            return _bad(str(err), 503)
        if record is None:
            return _bad("no such match", 404)
        name = f"match_{request.path_params['mid']}.json"
        return Response(
            json.dumps(record, indent=1),
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
        if not RULES_FILE.is_file():
            return _bad("the rules page needs a clone of the project (docs/RULES.md)", 404)
        return JSONResponse({"path": "docs/RULES.md", "text": RULES_FILE.read_text("utf-8")})

    async def people_results(self, request: Request) -> Response:
        try:
            records = await self._read(self.server.store.records)
        except Unavailable as err:
            return _bad(str(err), 503)
        result = await asyncio.to_thread(people.results, records)
        if request.query_params.get("download") in ("1", "true"):
            text = json.dumps(people.with_provenance(result), indent=1)
            return Response(text, media_type="application/json", headers={
                "Content-Disposition": 'attachment; filename="people_vs_agents.json"'})  # fmt: skip
        return JSONResponse(result)


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
