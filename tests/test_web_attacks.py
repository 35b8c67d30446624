"""The web app under attack, on loopback only: each attack of issue 40 is made against a live
server (uvicorn on 127.0.0.1, in a thread) while a person plays at another table, bounded in
count and time. Each test checks that the attack is refused or bounded with a message that
names what was wrong, that the other table still answers (a bounded "still answers" check:
every round trip under :data:`ANSWERS_WITHIN` seconds; latency itself is measured by
``benchmarks/bench_web.py``), and, where the attack leaves something behind, that the server
starts again cleanly on the same data."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

from web_helpers import live_server  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from gin_web.app import Limits  # noqa: E402

#: A round trip of the other table's person beyond this fails the test: the server froze.
ANSWERS_WITHIN = 2.0


def call(base: str, path: str, body: Any = None, raw: bytes | None = None,
         headers: dict[str, str] | None = None,
         source: str | None = None) -> tuple[int, Any]:  # fmt: skip
    """``(status, JSON)`` of a request to the server (a POST when a body is given), from
    the loopback address ``source`` (default 127.0.0.1)."""
    status, out, _ = request(base, path, body, raw, headers, source)
    return status, out


def request(base: str, path: str, body: Any = None, raw: bytes | None = None,
            headers: dict[str, str] | None = None,
            source: str | None = None) -> tuple[int, Any, dict[str, str]]:  # fmt: skip
    """``(status, JSON, headers)`` of a request (as :func:`call`)."""
    host, port = base.split("//", 1)[1].split(":")
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    conn = http.client.HTTPConnection(host, int(port), timeout=30,
                                      source_address=(source, 0) if source else None)  # fmt: skip
    try:
        conn.request("GET" if data is None else "POST", path, body=data, headers=headers or {})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"null"), dict(r.getheaders())
    finally:
        conn.close()


def ws_from(base: str, path: str, source: str, **kwargs: Any) -> Any:
    """A WebSocket on a link, opened from the loopback address ``source``."""
    return connect(ws_url(base, path), source_address=(source, 0), **kwargs).__enter__()


def first(ws: Any) -> dict[str, Any]:
    return json.loads(ws.recv(timeout=30))  # type: ignore[no-any-return]


def ws_url(base: str, path: str) -> str:
    return base.replace("http", "ws") + "/ws/" + path.rsplit("/", 1)[1]


def play_move(view: dict[str, Any], rng: np.random.Generator) -> int:
    legal = view["legal"]
    for kind in ("knock", "big-gin", "meld"):
        found = [m["id"] for m in legal if m["kind"] == kind]
        if found:
            return int(found[0])
    return int(rng.choice([m["id"] for m in legal]))


class Probe:
    """A person at a two-player gin table against L2, moving as soon as it is his turn:
    every round trip (move sent to the next state) is kept."""

    def __init__(self, base: str, pace: float = 0.06) -> None:
        self.base = base
        self.pace = pace  # seconds between his moves
        self.rng = np.random.default_rng(0)
        self.rtts: list[float] = []
        self.notices: list[str] = []  # what the server told this person
        self._open()

    def _open(self) -> None:
        status, out = call(
            self.base, "/api/tables", {"game": "gin", "seats": ["human", "heuristic"]}
        )
        assert status == 200, out
        self.table = out["table"]
        self.ws = connect(ws_url(self.base, out["seats"]["player_0"]), max_size=2**22).__enter__()
        self.view = self.state()

    def state(self) -> dict[str, Any]:
        while True:
            msg = json.loads(self.ws.recv(timeout=30))
            if msg["type"] == "state":
                return msg  # type: ignore[no-any-return]
            if msg["type"] == "notice":
                self.notices.append(msg["message"])

    def moves(self, n: int) -> None:
        for _ in range(n):
            if self.view["over"]:
                self.ws.close()
                self._open()
            while not self.view["legal"]:
                self.view = self.state()
            time.sleep(self.pace)  # a person's pace: under the 20 messages a second a socket sends
            sent = self.view["seq"]
            start = time.perf_counter()
            self.ws.send(json.dumps({"type": "move", "action": play_move(self.view, self.rng),
                                     "seq": sent}))  # fmt: skip
            self.view = self.state()
            while self.view["seq"] <= sent:
                self.view = self.state()
            self.rtts.append(time.perf_counter() - start)

    def check(self, what: str) -> None:
        assert self.rtts, "the probe made no move"
        worst = max(self.rtts)
        p99 = float(np.percentile(np.asarray(self.rtts) * 1000, 99))
        print(f"{what}: {len(self.rtts)} probe moves, p99 {p99:.1f} ms, max {worst * 1000:.1f} ms")
        assert worst < ANSWERS_WITHIN, f"{what}: a move took {worst:.2f} s"

    def close(self) -> None:
        self.ws.close()


def during(attack: Callable[[], None], probe: Probe, seconds: float = 30.0) -> None:
    """Run ``attack`` in a thread while ``probe`` keeps moving (bounded by ``seconds``)."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            attack()
        except BaseException as err:  # raised in the test below
            errors.append(err)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + seconds
    while thread.is_alive() and time.monotonic() < deadline:
        probe.moves(1)
        time.sleep(0.01)
    thread.join(timeout=max(0.0, deadline - time.monotonic()))
    assert not thread.is_alive(), "the attack did not end in time"
    if errors:
        raise errors[0]


def not_a_state(ws: Any) -> dict[str, Any]:
    """The next message that is not a state (the agents' first moves, thought in a worker,
    may send one at any time)."""
    while True:
        msg = json.loads(ws.recv(timeout=30))
        if msg["type"] != "state":
            return msg  # type: ignore[no-any-return]


def notices_until(ws: Any, wanted: Callable[[str], bool], seconds: float = 10.0) -> list[str]:
    """The notices that come within ``seconds``, up to the first that is ``wanted`` (then the
    last of them); other messages are passed over."""
    seen: list[str] = []
    end = time.monotonic() + seconds
    with contextlib.suppress(TimeoutError):  # (then the caller's assert says what came)
        while time.monotonic() < end:
            msg = json.loads(ws.recv(timeout=max(0.1, end - time.monotonic())))
            if msg["type"] == "notice":
                seen.append(msg["message"])
                if wanted(msg["message"]):
                    break
    return seen


def restarts(data: Path, limits: Limits | None = None) -> None:
    """A new server on the same data starts and answers."""
    with live_server(data, limits) as (base, app):
        status, info = call(base, "/api/games")
        assert status == 200 and "gin" in info


# -- the deal -----------------------------------------------------------------------------------
def test_no_seed_leaves_a_running_table_and_a_person_cannot_choose_one(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as (base, app):
        status, out = call(base, "/api/tables", {"game": "gin", "seats": ["human", "human"],
                                                 "seed": 5})  # fmt: skip
        assert status == 400 and "seed" in out["error"] and "table of agents" in out["error"]
        status, out = call(base, "/api/tables", {"game": "gin", "seed": 5})  # default: a person
        assert status == 400 and "seed" in out["error"]
        status, out = call(base, "/api/tables", {"game": "gin", "seats": ["human", "heuristic"],
                                                 "options": {"target_score": 40}})  # fmt: skip
        assert status == 200 and "seed" not in out
        table = app.state.server.tables[out["table"]]
        secret = str(table.seed)
        assert table.seed.bit_length() > 64  # 128 random bits: no seat searches them
        assert secret not in json.dumps(out)
        seen = []
        with connect(ws_url(base, out["seats"]["player_0"])) as ws:
            rng = np.random.default_rng(1)
            view = json.loads(ws.recv(timeout=30))
            while not view.get("over"):
                seen.append(ws_text := json.dumps(view))
                assert secret not in ws_text
                if view.get("type") == "state" and view["legal"]:
                    time.sleep(0.1)  # a person's pace (a socket may send 20 messages a second)
                    ws.send(json.dumps({"type": "move", "action": play_move(view, rng),
                                        "seq": view["seq"]}))  # fmt: skip
                    ws.send(json.dumps({"type": "hint"}))
                view = json.loads(ws.recv(timeout=30))
        for path in ("/api/matches", f"/api/matches/{out['table']}"):
            status, listed = call(base, path)
        assert len(seen) >= 2
        # The finished record holds the secret and says so: the match replays.
        status, record = call(base, f"/api/matches/{out['table']}")
        assert status == 200 and record["seed"] == table.seed and record["deal"] == "secret"
        status, frames = call(base, "/api/replay", record)
        assert status == 200 and frames["frames"][-1]["over"]
        # A table of agents may take a seed (to be watched again), and its record says so.
        status, out = call(
            base,
            "/api/tables",
            {"game": "gin", "seats": ["heuristic"] * 2, "seed": 5, "options": {"target_score": 10}},
        )
        assert status == 200 and "seed" not in out


# -- values and messages ------------------------------------------------------------------------
def test_non_finite_and_deep_values_are_refused_and_the_server_restarts(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with live_server(data) as (base, app):
        for raw, word in (
            (b'{"game": "gin", "takeover": NaN}', "NaN is not a number here"),
            (b'{"game": "gin", "takeover": Infinity}', "Infinity is not a number here"),
            (b'{"game": "gin", "delay": -Infinity}', "-Infinity is not a number here"),
            (b"[" * 100_000 + b"]" * 100_000, "request too large"),
            (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
            (b'{"a":' * 40 + b"1" + b"}" * 40, "nested too deeply"),
        ):
            status, out = call(base, "/api/tables", raw=raw)
            assert status == 400 and word in out["error"], (raw[:40], out)
        status, out = call(base, "/api/tables", {"game": "gin", "takeover": 1e308 * 10 / 10})
        assert status == 400 or "table" in out
        status, out = call(base, "/api/tables", {"game": "gin", "takeover": 10**6})
        assert status == 400 and "takeover must be None or a positive number" in out["error"]
        status, out = call(base, "/api/tables", {"game": "gin", "hint_agent": "human"})
        assert status == 400 and "'human' is a kind of seat, not an agent" in out["error"]
        assert not app.state.server.tables
        status, out = call(base, "/api/tables", {"game": "gin", "seats": ["human", "heuristic"],
                                                 "takeover": 30})  # fmt: skip
        assert status == 200
        with connect(ws_url(base, out["seats"]["player_0"])) as ws:
            json.loads(ws.recv(timeout=30))
            for text, word in (
                ("[" * 3000 + "]" * 3000, "message too large"),
                ("[" * 1000 + "]" * 1000, "nested too deeply"),
                ('{"type": "move", "action": NaN}', "NaN is not a number"),
                ('{"type": "presence", "here": 1}', "here must be true or false"),
            ):
                ws.send(text)
                reply = not_a_state(ws)
                assert reply["type"] == "error" and word in reply["message"], (text[:30], reply)
            ws.send(json.dumps({"type": "ping"}))  # the socket is still open
            assert not_a_state(ws)["type"] == "pong"
    # A row forged with a NaN takeover (as an older server could write) does not keep the
    # server from starting: that table is left out, with its reason.
    db = sqlite3.connect(data / "gin_web.sqlite3")
    (tid, config), *_ = db.execute("SELECT id, config FROM tables").fetchall()
    db.execute("UPDATE tables SET config = ? WHERE id = ?",
               (config.replace('"takeover": 30.0', '"takeover": NaN'), tid))  # fmt: skip
    db.commit()
    db.close()
    with live_server(data) as (base, app):
        assert tid in app.state.server.not_restored
        assert call(base, "/api/games")[0] == 200


# -- floods ---------------------------------------------------------------------------------------
def test_a_hint_flood_is_cut_short_and_holds_up_nobody(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as (base, app):
        probe = Probe(base)
        status, out = call(base, "/api/tables", {"game": "three", "seats": ["human"] * 3})
        server = app.state.server
        table = server.tables[out["table"]]
        mover = table.to_act
        counts = {"hint": 0, "error": 0}
        closed: list[int | None] = []

        def flood() -> None:
            with connect(ws_url(base, out["seats"][f"player_{mover}"])) as ws:
                json.loads(ws.recv(timeout=30))
                end = time.monotonic() + 3
                try:
                    while time.monotonic() < end:
                        for _ in range(50):
                            ws.send(json.dumps({"type": "hint"}))
                        for _ in range(50):
                            msg = json.loads(ws.recv(timeout=30))
                            while msg["type"] == "state":
                                msg = json.loads(ws.recv(timeout=30))
                            counts[msg["type"]] += 1
                            if msg["type"] == "error":
                                assert "too many" in msg["message"], msg
                except ConnectionClosed as err:
                    closed.append(err.rcvd.code if err.rcvd else None)

        during(flood, probe)
        probe.check("hint flood")
        probe.close()
        # 5 at once then 1 a second: in the few seconds of the flood, no more than a dozen
        # hints answered; after 200 refused, the socket is closed.
        assert counts["hint"] <= 5 + 5 and counts["error"] == Limits().flood_close, counts
        assert closed == [4429]
        deadline = time.monotonic() + 10
        while table.seats[mover].connections:  # the server lets the socket go
            assert time.monotonic() < deadline
            time.sleep(0.05)


def test_watchers_on_one_link_are_capped(tmp_path: Path) -> None:
    limits = Limits()
    with live_server(tmp_path / "data", limits) as (base, app):
        probe = Probe(base)
        status, out = call(
            base,
            "/api/tables",
            {
                "game": "gin",
                "seats": ["heuristic"] * 2,
                "delay": 0.05,
                "options": {"target_score": 500},
            },
        )
        socks, refused = [], []

        def watchers() -> None:
            for _ in range(60):
                try:
                    ws = connect(ws_url(base, out["spectator"])).__enter__()
                except InvalidStatus as err:  # refused before the handshake: said in the body
                    assert err.response.status_code == 429
                    refused.append(json.loads(err.response.body or b"{}")["error"])
                    continue
                first = json.loads(ws.recv(timeout=30))
                if first["type"] == "error":
                    refused.append(first["message"])
                    ws.close()
                else:
                    socks.append(ws)

        during(watchers, probe)
        probe.moves(20)
        probe.check("60 watchers on one link")
        assert len(socks) == limits.link_sockets and len(refused) == 60 - limits.link_sockets
        assert all("the most it may have (8)" in m for m in refused)
        for ws in socks:
            ws.close()
        probe.close()


def test_an_agent_that_thinks_for_seconds_holds_up_nobody(tmp_path: Path) -> None:
    """Agents think in worker processes, not in the server's loop: while an agent that
    thinks 1.5 s a move plays, a person at another table is answered well within that."""
    from gin_web.tables import new_table

    with live_server(tmp_path / "data") as (base, app):
        probe = Probe(base)
        server = app.state.server
        # A client may not seat it (it is not in the lobby); the server's own code may.
        slow = new_table("gin", {"target_score": 500}, ["search:budget=1.5"] * 2)
        server.loop.call_soon_threadsafe(server.add_table, slow)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            probe.moves(1)
        probe.check("an agent thinking 1.5 s a move at another table")
        assert slow.step_count >= 3, "the slow agents did not play"
        assert max(probe.rtts) < 1.0, f"a move took {max(probe.rtts):.2f} s"
        probe.close()


def test_an_agent_that_thinks_past_the_limit_is_stopped_and_said(tmp_path: Path) -> None:
    """Limits.think_seconds: a move thought longer ends its worker, the table is told that
    its agent failed, and the server answers everyone else meanwhile."""
    from gin_web.tables import new_table

    with live_server(tmp_path / "data", Limits(think_seconds=0.5)) as (base, app):
        probe = Probe(base)
        server = app.state.server
        hung = new_table("gin", {}, ["search:budget=30"] * 2)
        server.loop.call_soon_threadsafe(server.add_table, hung)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "TimeoutError" not in server.notices.get(hung.id, ""):
            probe.moves(1)
        assert "an agent failed (TimeoutError)" in server.notices.get(hung.id, ""), server.notices
        # The table stops there, not always at its first move: the search may decide a
        # move inside the limit (the table's deal is drawn afresh each run).
        stopped_at = hung.step_count
        probe.moves(3)
        assert hung.step_count == stopped_at
        probe.check("an agent thinking past the limit at another table")
        probe.close()


def test_tables_of_agents_are_capped_and_stop(tmp_path: Path) -> None:
    limits = Limits(agent_tables=10, client_agent_tables=10, agent_hands=2, refuse_seconds=0.05)
    data = tmp_path / "data"
    with live_server(data, limits) as (base, app):
        probe = Probe(base)
        never_ending = {"game": "gin", "seats": ["heuristic"] * 2,
                        "options": {"knock_limit": 0, "target_score": 100_000}}  # fmt: skip
        made = []

        def start() -> None:
            for _ in range(12):
                made.append(call(base, "/api/tables", never_ending))

        during(start, probe)
        ok = [out for status, out in made if status == 200]
        refused = [out["error"] for status, out in made if status != 200]
        assert len(ok) == 10 and len(refused) == 2
        assert all("at most 10 tables of agents at once" in e for e in refused)
        server = app.state.server
        # (While a person plays, such tables get an eighth of the loop: knock limit 0 makes
        # long hands.)
        deadline = time.monotonic() + 180
        while any(out["table"] not in server.stopped for out in ok):
            probe.moves(2)
            assert time.monotonic() < deadline, "the tables of agents did not stop"
        probe.check("ten never-ending tables of agents")
        assert all(server.tables[o["table"]].hand_index == 2 for o in ok)
        with connect(ws_url(base, ok[0]["spectator"])) as ws:
            msgs = [json.loads(ws.recv(timeout=30)) for _ in range(2)]
        assert any(m["type"] == "notice" and "stopped after 2 hands" in m["message"]
                   for m in msgs)  # fmt: skip
        # A stopped table makes room for another.
        assert call(base, "/api/tables", never_ending)[0] == 200
        probe.close()
    with live_server(data, limits) as (base, app):  # stopped tables are not played again
        assert not set(app.state.server.tables) & {o["table"] for o in ok}


def test_a_table_flood_is_capped_and_unopened_tables_expire(tmp_path: Path) -> None:
    limits = Limits(client_tables=20, tables_burst=30, tables_per_second=5, refuse_seconds=0.0,
                    unopened_expire=1.0, sweep_seconds=0.2)  # fmt: skip
    with live_server(tmp_path / "data", limits) as (base, app):
        # (Naming other addresses in X-Forwarded-For changes nothing: the address is the
        # connection's.)
        results = [call(base, "/api/tables", {"game": "gin"},
                        headers={"X-Forwarded-For": f"10.0.{i}.1"}) for i in range(60)]  # fmt: skip
        ok = [o for s, o in results if s == 200]
        errors = {o["error"].split(";")[0] for s, o in results if s != 200}
        assert len(ok) == 20, errors
        assert errors == {"this address has 20 unfinished tables, the most one may have (20)"}
        time.sleep(2.0)  # nobody came: they expire, and the address may start tables again
        server = app.state.server
        assert not set(server.tables) & {o["table"] for o in ok}
        status, out = call(base, "/api/tables", {"game": "gin"})
        assert status == 200
        with connect(ws_url(base, out["seats"]["player_0"])):  # opened: it stays
            time.sleep(1.5)
        assert out["table"] in server.tables
        # The burst: more than tables_burst at once is refused, whatever the cap.
    restarts(tmp_path / "data", limits)


def test_another_host_name_is_refused_even_from_its_own_page(tmp_path: Path) -> None:
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends
    ``Host: evil.example`` and ``Origin: http://evil.example`` (they agree)."""
    with live_server(tmp_path / "data") as (base, app):
        port = base.rsplit(":", 1)[1]
        evil = {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
        for path, body in (("/api/tables", {"game": "gin"}), ("/api/matches", None), ("/", None)):
            status, out = call(base, path, body, headers=evil)
            assert status == 421 and "unknown host 'evil.example'" in out["error"], path
        assert not app.state.server.tables
        status, out = call(base, "/api/tables", {"game": "gin"})
        with pytest.raises(Exception):  # noqa: B017  (the handshake is refused)
            with connect(ws_url(base, out["seats"]["player_0"]), additional_headers=evil) as ws:
                ws.recv(timeout=10)
        for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
            assert call(base, "/api/games", headers={"Host": host})[0] == 200


# -- the database -------------------------------------------------------------------------------
def test_a_locked_database_holds_up_nobody_is_reported_and_loses_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with live_server(data) as (base, app):
        probe = Probe(base)
        probe.moves(3)

        def hold() -> None:
            lock = sqlite3.connect(data / "gin_web.sqlite3", isolation_level=None, timeout=5)
            lock.execute("BEGIN EXCLUSIVE")
            time.sleep(3.0)
            lock.execute("COMMIT")
            lock.close()

        thread = threading.Thread(target=hold)
        thread.start()
        time.sleep(0.2)
        seq_before = probe.view["seq"]
        probe.moves(10)  # the person plays on while the file is locked
        while "" not in probe.notices:  # told that it cannot save, then that it can again
            msg = json.loads(probe.ws.recv(timeout=30))
            if msg["type"] == "notice":
                probe.notices.append(msg["message"])
        notices = probe.notices
        thread.join()
        assert "cannot save right now" in notices[0] and "locked" in notices[0]
        probe.check("a database locked for 3 s")
        server = app.state.server
        assert server.store.flush(30)
        table = server.tables[probe.table]
        moves = sqlite3.connect(data / "gin_web.sqlite3").execute(
            "SELECT COUNT(*) FROM moves WHERE tbl = ?", (probe.table,)).fetchone()[0]  # fmt: skip
        assert moves == table.step_count > seq_before
        probe.close()
        hand = table.view(0)["hand"]
    with live_server(data) as (base, app):  # every move was kept: the table is restored
        again = app.state.server.tables[probe.table]
        assert again.view(0)["hand"] == hand


def test_a_full_disk_is_reported_and_the_match_is_saved_once_there_is_room(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    with live_server(data) as (base, app):
        store = app.state.server.store
        status, out = call(
            base,
            "/api/tables",
            {"game": "gin", "seats": ["human", "heuristic"], "options": {"target_score": 10}},
        )
        with connect(ws_url(base, out["seats"]["player_0"])) as ws:
            view = json.loads(ws.recv(timeout=30))
            pages = store._writer_db.execute("PRAGMA page_count").fetchone()[0]
            # The writer's connection may not grow the file: as a full disk does.
            store._writer_db.execute(f"PRAGMA max_page_count = {pages}")
            rng = np.random.default_rng(3)
            notices = []
            while True:
                if view["type"] == "state":
                    if view["over"]:
                        break
                    if view["legal"]:
                        ws.send(json.dumps({"type": "move", "action": play_move(view, rng),
                                            "seq": view["seq"]}))  # fmt: skip
                elif view["type"] == "notice":
                    notices.append(view["message"])
                view = json.loads(ws.recv(timeout=30))
            # The writer thread commits after the moves are played, so a short match can be
            # over before its last writes fail and are said.
            if not any("full" in n for n in notices):
                notices += notices_until(ws, lambda n: "full" in n)
            assert any("full" in n for n in notices), notices  # said, and the socket stayed
            store._writer_db.execute("PRAGMA max_page_count = 1073741823")  # room again
            assert store.flush(30)
            cleared = notices_until(ws, lambda n: n == "")
            assert cleared[-1:] == [""], cleared  # the notice taken back
        status, record = call(base, f"/api/matches/{out['table']}")
        assert status == 200 and record["winner"] is not None
    restarts(data)


def test_a_data_dir_that_cannot_be_written_is_a_clear_error(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gin_cli.main import cli

    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    result = CliRunner().invoke(cli, ["serve", "--data-dir", str(blocker / "data")])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "cannot keep the app's data in" in result.output and "--data-dir" in result.output


def test_export_refuses_a_match_id_that_leaves_its_folder(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gin_cli.main import cli
    from gin_web.store import Store

    data = tmp_path / "data"
    Store(data).close()
    db = sqlite3.connect(data / "gin_web.sqlite3")
    db.execute("INSERT INTO matches VALUES (?,?,?,?)",
               ("../../escaped", "rummy_v0", 1.0, json.dumps({"scores": [1, 0]})))  # fmt: skip
    db.commit()
    db.close()
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["serve", "--data-dir", str(data), "--export", str(out)])
    assert result.exit_code == 0, result.output
    assert "refused match id '../../escaped'" in result.output
    assert not (tmp_path / "escaped.json").exists() and not list(tmp_path.glob("*.json"))
    assert json.loads((out / "people_vs_agents.json").read_text())["matches_with_people"] == 0


# -- slow clients, delays -----------------------------------------------------------------------
def test_slow_senders_are_timed_out(tmp_path: Path) -> None:
    import socket

    limits = Limits(body_seconds=1.0, silent_close=1.0)
    with live_server(tmp_path / "data", limits) as (base, app):
        host, port = base.rsplit("/", 1)[1].split(":")
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall(
                f"POST /api/tables HTTP/1.1\r\nHost: {host}:{port}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{".encode()
            )
            answer = s.recv(4096).decode()  # fmt: skip
        assert " 400 " in answer and "took over 1 s to arrive" in answer
        status, out = call(base, "/api/tables", {"game": "gin"})
        with connect(ws_url(base, out["seats"]["player_0"])) as ws:
            start = time.monotonic()
            messages = []
            with pytest.raises(ConnectionClosed):
                while True:
                    messages.append(json.loads(ws.recv(timeout=10)))
            assert time.monotonic() - start < 5
            assert "no message for 1 s" in messages[-1]["message"]


def test_a_person_may_move_as_soon_as_the_agents_have(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as (base, app):
        status, out = call(
            base,
            "/api/tables",
            {"game": "three", "delay": 1.0, "seats": ["human", "heuristic", "heuristic"]},
        )
        rng = np.random.default_rng(0)
        with connect(ws_url(base, out["seats"]["player_0"])) as ws:
            moved = 0
            deadline = time.monotonic() + 40
            while moved < 3 and time.monotonic() < deadline:
                view = json.loads(ws.recv(timeout=30))
                if view["type"] == "error":
                    raise AssertionError(view["message"])
                if view["type"] == "state" and view["legal"]:
                    ws.send(json.dumps({"type": "move", "action": play_move(view, rng),
                                        "seq": view["seq"]}))  # fmt: skip
                    moved += 1
            assert moved == 3


# -- replays --------------------------------------------------------------------------------------
def _rummy_record(moves: int) -> dict[str, Any]:
    from gin_env import rummy_v0

    env = rummy_v0.raw_env(num_players=3, target_score=100_000)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    made: list[list[int]] = []
    while len(made) < moves and not env.game.match_over:
        p = int(env.game.current)
        a = int(rng.choice(env.game.legal_actions()))
        env.step(a)
        made.append([p, a])
    return {"format": "gin-web-rummy-1", "game": "rummy_v0", "seed": 1,
            "options": {"num_players": 3, "target_score": 100_000}, "moves": made}  # fmt: skip


def test_a_large_replay_is_bounded_and_holds_up_nobody(tmp_path: Path) -> None:
    limits = Limits(replay_moves=3000, replay_frames_bytes=8_000_000)
    with live_server(tmp_path / "data", limits) as (base, app):
        probe = Probe(base)
        record = _rummy_record(4000)
        results = []

        def replays() -> None:
            results.append(call(base, "/api/replay", record))
            results.append(call(base, "/api/replay", dict(record, moves=record["moves"][:2500])))

        during(replays, probe, seconds=120)
        probe.check("replays of 4000 and 2500 rummy moves")
        (s1, big), (s2, ok) = results
        assert s1 == 400 and "at most 3000 moves" in big["error"]
        assert (s2 == 200 and len(ok["frames"]) == 2501) or (
            s2 == 400 and "too large to show" in ok["error"]
        )
        probe.close()


# -- issue 56: agents made in the workers, one pace, budgets, caps across addresses ----------------
def test_best_is_not_offered_and_tables_started_back_to_back_make_no_agent_on_the_loop(
    tmp_path: Path,
) -> None:
    """The lobby offers what the docs say (no ``best``, each agent with its line); a table's
    agents are made in its worker (the loop's tables hold none), one that cannot play the
    table is refused by the worker with its message, and tables started back to back from
    other addresses hold up nobody."""
    from gin_web.lobby import AGENT_HELP, REGISTERED

    limits = Limits(tables_burst=40, refuse_seconds=0.05)
    with live_server(tmp_path / "data", limits) as (base, app):
        status, info = call(base, "/api/games")
        for game in info.values():
            assert "best" not in game["agents"] and "search" not in game["agents"]
            assert game["agent_help"] == {a: AGENT_HELP.get(a, REGISTERED) for a in game["agents"]}
        for body in ({"game": "gin", "seats": ["human", "best"]},
                     {"game": "three", "hint_agent": "best"}):  # fmt: skip
            status, out = call(base, "/api/tables", body)
            assert status == 400 and "'best' is not seated for clients" in out["error"], out
        # tuned at a table no set was tuned for: refused, by the worker that made it.
        status, out = call(base, "/api/tables", {"game": "gin", "seats": ["human", "tuned"],
                                                 "options": {"knock_limit": 3}})  # fmt: skip
        assert status == 400 and out["error"].startswith("seat 1: "), out
        probe = Probe(base)
        made: list[tuple[int, Any]] = []

        def starts() -> None:
            body = {"game": "gin", "seats": ["human", "tuned"],
                    "options": {"target_score": 100_000}}  # fmt: skip
            for i in range(60):
                made.append(call(base, "/api/tables", body, source=f"127.0.0.{2 + i % 3}"))

        during(starts, probe)
        probe.check("60 tables started back to back from three addresses")
        ok = [o for s, o in made if s == 200]
        refused = {o["error"] for s, o in made if s != 200}
        # Within each address's limits; the server's own rate (all addresses) says so.
        assert len(ok) >= 20 and refused <= {
            f"this server is starting many tables now (at most {limits.all_tables_per_second:g} "
            "a second from everyone); try again in a few seconds"
        }, refused
        server = app.state.server
        assert all(s.agent is None for o in ok for s in server.tables[o["table"]].seats)
        probe.close()


def test_where_nobody_plays_every_agents_move_keeps_one_pace_whatever_the_delay(
    tmp_path: Path,
) -> None:
    """Tables of agents with a delay of 1e-300 s (a delay once skipped the pace) and tables
    whose person left with a stand-in playing for him, from several addresses: all their
    moves together stay within Limits.lane_moves a second, and a person elsewhere is
    answered at once."""
    limits = Limits(lane_moves=40.0)
    window = 4.0
    with live_server(tmp_path / "data", limits) as (base, app):
        server = app.state.server
        probe = Probe(base)
        ids = []
        for i in range(8):
            status, out = call(base, "/api/tables", {
                "game": "gin", "seats": ["heuristic"] * 2, "delay": 1e-300,
                "options": {"knock_limit": 0, "target_score": 100_000}},
                source=f"127.0.0.{2 + i % 2}")  # fmt: skip
            assert status == 200, out
            ids.append(out["table"])
        for _ in range(8):  # a person opens his seat and leaves: a stand-in plays on
            status, out = call(base, "/api/tables", {
                "game": "gin", "seats": ["human", "heuristic"], "takeover": 0.01,
                "options": {"knock_limit": 0, "target_score": 100_000}},
                source="127.0.0.4")  # fmt: skip
            assert status == 200, out
            first(ws := ws_from(base, out["seats"]["player_0"], "127.0.0.4"))
            ws.close()
            ids.append(out["table"])
        time.sleep(1.0)  # (under way)
        before = sum(server.tables[t].step_count for t in ids)
        end = time.monotonic() + window
        while time.monotonic() < end:
            probe.moves(1)
        moved = sum(server.tables[t].step_count for t in ids) - before
        probe.check("16 tables where nobody plays, half of them with delay 1e-300")
        assert 0 < moved <= limits.lane_moves * (window + 1.0), moved
        probe.close()


def test_a_table_nobody_opened_has_no_stand_ins_and_expires_in_minutes(tmp_path: Path) -> None:
    limits = Limits(unopened_expire=1.5, sweep_seconds=0.2)
    with live_server(tmp_path / "data", limits) as (base, app):
        server = app.state.server
        ids = []
        for _ in range(6):
            status, out = call(base, "/api/tables", {"game": "gin", "takeover": 0.01,
                                                     "seats": ["human", "heuristic"]})  # fmt: skip
            ids.append(out["table"])
        time.sleep(0.8)
        held = [server.tables[t] for t in ids]
        assert all(t.to_act == 0 for t in held)  # the agents moved up to his turn, no further
        before = [t.step_count for t in held]
        time.sleep(0.3)
        assert [t.step_count for t in held] == before
        time.sleep(1.5)
        assert not set(server.tables) & set(ids)  # gone, stand-ins or not
        status, out = call(base, "/api/tables", {"game": "gin"})
        assert status == 200


def test_one_address_moves_within_its_budget_at_all_its_tables(tmp_path: Path) -> None:
    """Many tables of one client moving at once (each socket within its own rate): the
    address's moves are budgeted across its tables, the rest refused with a message that
    says so, and a person of another address is answered at once."""
    limits = Limits(moves_burst=20, moves_per_second=5, client_tables=200, tables_burst=200,
                    all_tables_burst=200)  # fmt: skip
    seconds = 3.0
    with live_server(tmp_path / "data", limits) as (base, app):
        server = app.state.server
        probe = Probe(base, pace=0.25)  # (within the moves an address may make, 5 a second)
        socks, tables = [], []
        for _ in range(30):
            status, out = call(base, "/api/tables", {"game": "gin"}, source="127.0.0.2")
            assert status == 200, out
            socks.append(ws_from(base, out["seats"]["player_0"], "127.0.0.2"))
            tables.append(server.tables[out["table"]])
        refused: list[str] = []
        rng = np.random.default_rng(5)

        def person_moves() -> int:
            return sum(1 for t in tables for p, _ in t.moves if p == 0)

        before = person_moves()

        def flood() -> None:
            views: dict[Any, dict[str, Any]] = {ws: {} for ws in socks}
            sent: dict[Any, int | None] = dict.fromkeys(socks)
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                for ws in socks:
                    with contextlib.suppress(TimeoutError):
                        while True:
                            msg = json.loads(ws.recv(timeout=0.005))
                            if msg["type"] == "error":
                                refused.append(msg["message"])
                                sent[ws] = None
                            elif msg["type"] == "state":
                                views[ws] = msg
                                if sent[ws] is not None and msg["seq"] > (sent[ws] or 0):
                                    sent[ws] = None
                    view = views[ws]
                    if view.get("legal") and not view["over"] and sent[ws] is None:
                        ws.send(json.dumps({"type": "move", "action": play_move(view, rng),
                                            "seq": view["seq"]}))  # fmt: skip
                        sent[ws] = view["seq"]

        during(flood, probe)
        moved = person_moves() - before
        probe.check("30 tables of one address moving at once")
        assert refused and all("too many moves from this address" in m for m in refused[:5])
        assert 0 < moved <= limits.moves_burst + limits.moves_per_second * (seconds + 1), moved
        for ws in socks:
            ws.close()
        probe.close()


def test_slow_headers_idle_connections_and_connections_per_address_are_cut(
    tmp_path: Path,
) -> None:
    limits = Limits(header_seconds=1.0, keep_alive=1, client_connections=6)
    with live_server(tmp_path / "data", limits) as (base, app):
        host, port = base.rsplit("/", 1)[1].split(":")
        probe = Probe(base)

        def slow(lines: bool) -> tuple[float, bytes]:
            s = socket.create_connection((host, int(port)), timeout=10,
                                         source_address=("127.0.0.2", 0))  # fmt: skip
            start = time.monotonic()
            got = b""
            with s:
                if lines:
                    s.sendall(b"GET /api/games HTTP/1.1\r\n")
                s.settimeout(0.3)
                while time.monotonic() - start < 8:
                    try:
                        chunk = s.recv(4096)
                    except TimeoutError:
                        if lines:
                            s.sendall(b"X-Slow: 1\r\n")  # a header line now and then
                        continue
                    except OSError:
                        break
                    if not chunk:
                        break
                    got += chunk
            return time.monotonic() - start, got

        results: list[tuple[float, bytes]] = []
        during(lambda: results.extend([slow(True), slow(False)]), probe)
        for took, got in results:  # a slow sender, an idle one: each cut off within 2 s
            assert took < 2.5 and b" 408 " in got and b"headers took over 1 s" in got, (took, got)
        held = [
            socket.create_connection((host, int(port)), timeout=10, source_address=("127.0.0.3", 0))
            for _ in range(6)
        ]
        with socket.create_connection((host, int(port)), timeout=10,
                                      source_address=("127.0.0.3", 0)) as s:  # fmt: skip
            answer = s.recv(4096)
        assert b" 429 " in answer and b"connections open, the most it may have (6)" in answer
        assert call(base, "/api/games", source="127.0.0.4")[0] == 200  # others still come in
        # A connection left idle after an answer is closed after keep_alive (1 s here).
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall(f"GET /api/games HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            start, got = time.monotonic(), b""
            while chunk := s.recv(65536):
                got += chunk
            assert b" 200 " in got and time.monotonic() - start < 3
        for s in held:
            s.close()
        probe.moves(5)
        probe.check("slow headers, idle connections, connections per address")
        guard = app.state.guard
        assert guard.timed_out >= 2 and guard.refused >= 1
        probe.close()


def test_lists_are_paged_and_rate_limited(tmp_path: Path) -> None:
    from gin_web.store import Store

    data = tmp_path / "data"
    store = Store(data)
    record = {"scores": [100, 3], "agents": {"player_0": "human", "player_1": "heuristic"},
              "padding": "x" * 5000}  # fmt: skip
    for i in range(600):
        store.add_match(f"m{i:04d}", "gin_v0", record)
    store.close()
    limits = Limits(lists_burst=8, lists_per_second=1.0, refuse_seconds=0.1)
    with live_server(data, limits, publish=True) as (base, app):
        probe = Probe(base)
        status, page, headers = request(base, "/api/matches")
        assert status == 200 and len(page) == limits.page_size and headers["x-next-offset"] == "50"
        status, page, headers = request(base, "/api/matches?limit=200&offset=500")
        assert status == 200 and len(page) == 100 and "x-next-offset" not in headers
        assert page[0]["scores"] == [100, 3] and "padding" not in page[0]
        for bad, word in (("limit=1000", "limit must be an int in 1..200"),
                          ("limit=0", "limit must be an int in 1..200"),
                          ("offset=-1", "offset must be an int in 0..")):  # fmt: skip
            status, out = call(base, f"/api/matches?{bad}", source="127.0.0.5")
            assert status == 400 and word in out["error"], (bad, out)
        status, out = call(base, "/api/people?limit=5000", source="127.0.0.5")
        assert status == 400 and "limit must be an int" in out["error"]
        answers: list[int] = []

        def lists() -> None:
            for i in range(40):
                path = "/api/people" if i % 4 == 0 else "/api/matches?limit=200"
                answers.append(call(base, path, source="127.0.0.2")[0])

        during(lists, probe)
        probe.check("list requests in a loop over 600 stored matches")
        assert answers.count(200) <= limits.lists_burst + 10 and answers.count(429) > 0
        status, out = call(base, "/api/matches", source="127.0.0.2")
        assert status == 429 and "too many list requests" in out["error"]
        probe.close()


def test_caps_hold_across_addresses_and_unopened_tables_make_room_first(tmp_path: Path) -> None:
    """Many loopback addresses, each within its own limits, fill the server: the tables
    nobody opened are reclaimed first (their links say so), a person's opened table never
    is, and once every table has a person the next is refused with a message that says the
    server is full; the sockets from everyone are capped too."""
    limits = Limits(max_tables=12, client_tables=5, max_sockets=16, all_tables_burst=1000)
    with live_server(tmp_path / "data", limits) as (base, app):
        server = app.state.server
        probe = Probe(base)  # 127.0.0.1: one opened table
        made = []
        for i in range(20):
            status, out = call(base, "/api/tables", {"game": "gin"}, source=f"127.0.0.{2 + i // 5}")
            assert status == 200, out
            made.append(out)
        assert len(server.tables) <= 12 and probe.table in server.tables
        gone = [o for o in made if o["table"] not in server.tables]
        assert len(gone) >= 8
        with ws_from(base, gone[0]["seats"]["player_0"], "127.0.0.9") as ws:
            msg = first(ws)
        assert msg["type"] == "error" and "closed to make room" in msg["message"], msg
        # Every table left gets a person: no room is made at their cost.
        held = [ws_from(base, o["seats"]["player_0"], "127.0.0.9")
                for o in made if o["table"] in server.tables]  # fmt: skip
        while len(server.tables) < 12:
            status, out = call(base, "/api/tables", {"game": "gin"}, source="127.0.0.10")
            held.append(ws_from(base, out["seats"]["player_0"], "127.0.0.10"))
        assert all(first(ws)["type"] == "state" for ws in held)
        status, out = call(base, "/api/tables", {"game": "gin"}, source="127.0.0.11")
        assert status == 400 and "this server is full" in out["error"], out
        # Sockets: 16 from everyone, whatever the addresses.
        answers = []
        for i in range(10):
            ws = ws_from(base, made[-1]["spectator"] if i % 2 else out_spectator(server),
                         f"127.0.0.{20 + i}")  # fmt: skip
            answers.append(first(ws))
            held.append(ws)
        refusals = [a["message"] for a in answers if a["type"] == "error"]
        assert len(held) - len(refusals) + 1 == limits.max_sockets
        assert all("this server has 16 sockets open" in m for m in refusals), refusals
        probe.moves(5)
        probe.check("caps across addresses")
        assert probe.table in server.tables
        for ws in held:
            ws.close()
        probe.close()


def out_spectator(server: Any) -> str:
    """The spectators' link of a table of ``server`` whose token it still holds."""
    return next(f"/t/{t.spectator_token}" for t in server.tables.values() if t.spectator_token)


def test_matches_are_listed_only_to_those_who_were_at_the_table(tmp_path: Path) -> None:
    with live_server(tmp_path / "data") as (base, app):
        status, out = call(base, "/api/tables", {"game": "gin", "seats": ["heuristic"] * 2,
                                                 "options": {"target_score": 10}},
                            source="127.0.0.2")  # fmt: skip
        assert status == 200
        deadline = time.monotonic() + 60
        while out["table"] not in app.state.server.saved:
            assert time.monotonic() < deadline
            time.sleep(0.1)

        def listed(source: str, query: str = "") -> set[str]:
            status, page = call(base, "/api/matches" + query, source=source)
            assert status == 200, page
            return {m["id"] for m in page}

        assert out["table"] in listed("127.0.0.2")  # it started the table
        assert out["table"] not in listed("127.0.0.3")  # another address
        spectator = out["spectator"].rsplit("/", 1)[1]
        assert out["table"] in listed("127.0.0.3", f"?link={spectator}")  # a link it holds
        with ws_from(base, out["spectator"], "127.0.0.4") as ws:  # one who watched
            first(ws)
        assert out["table"] in listed("127.0.0.4")
    with live_server(tmp_path / "data", publish=True) as (base, app):  # published: anyone
        status, page = call(base, "/api/matches", source="127.0.0.5")
        assert out["table"] in {m["id"] for m in page}


def test_a_request_flood_is_answered_late_and_newcomers_keep_room(tmp_path: Path) -> None:
    """Requests over an address's rate are refused with a message, each answered late (so
    a flood makes few); tables from every address together have a rate too, beyond which
    each waits its turn, the addresses in turn: a newcomer's table comes after at most one
    of a flooding address's, and that address's others are refused with a message."""
    from concurrent.futures import ThreadPoolExecutor

    limits = Limits(requests_burst=15, requests_per_second=2, refuse_seconds=0.5,
                    all_tables_burst=4, all_tables_per_second=2, gate_seconds=1.5)  # fmt: skip
    with live_server(tmp_path / "data", limits) as (base, app):
        start = time.monotonic()
        answers = [call(base, "/api/games", source="127.0.0.2") for _ in range(20)]
        took = time.monotonic() - start
        refused = [out["error"] for status, out in answers if status == 429]
        assert 2 <= len(refused) <= 7 and took >= 0.5 * len(refused), (len(refused), took)
        assert all("too many requests from this address" in m for m in refused)
        assert call(base, "/api/games", source="127.0.0.3")[0] == 200  # another address
        made: list[tuple[int, Any]] = []

        def flood() -> None:
            with ThreadPoolExecutor(8) as pool:
                made.extend(pool.map(lambda _: call(base, "/api/tables", {"game": "gin"},
                                                    source="127.0.0.4"), range(12)))  # fmt: skip

        thread = threading.Thread(target=flood)
        start = time.monotonic()
        thread.start()
        time.sleep(0.3)
        asked = time.monotonic()
        status, out = call(base, "/api/tables", {"game": "gin"}, source="127.0.0.6")
        waited = time.monotonic() - asked
        thread.join(timeout=30)
        assert status == 200 and waited < 1.5, (out, waited)  # a newcomer's turn came
        ok = [o for s, o in made if s == 200]
        others = {o["error"] for s, o in made if s != 200}
        assert others == {"this server is starting many tables now (at most 2 a second from "
                          "everyone); try again in a few seconds"}, others  # fmt: skip
        assert 4 <= len(ok) + 1 <= 4 + 2 * (time.monotonic() - start + 1), len(ok)


def test_the_last_connections_are_kept_for_addresses_with_few() -> None:
    from gin_web.guards import FEW_CONNECTIONS, ConnectionGuard

    guard = ConnectionGuard(client_connections=20, max_connections=40, header_seconds=1.0)
    for i in range(30):  # three busy addresses take three quarters
        assert guard.admit(f"10.0.0.{i % 3}") is None
    refused = guard.admit("10.0.0.1")
    assert (
        refused is not None and b" 503 " in refused and b"kept for addresses with fewer" in refused
    )
    for i in range(10):  # a person's few connections still come in
        assert guard.admit(f"10.0.1.{i}") is None
    assert b"the most it holds (40)" in (guard.admit("10.0.2.1") or b"")
    guard.release("10.0.1.0")
    assert guard.admit("10.0.2.1") is None and guard.open["10.0.0.0"] == 10
    assert FEW_CONNECTIONS == 8


def test_the_memory_estimate_caps_tables_and_sockets() -> None:
    """Limits.memory_mib: tables (table_kib each) and sockets (socket_kib each) together."""
    from gin_web.limits import Caps

    caps = Caps(Limits(memory_mib=1.0, table_kib=256, socket_kib=64))
    assert caps.room_for_table(2) and not caps.room_for_table(4)  # 4 tables: 1 MiB
    for i in range(4):
        caps.add_socket(f"k{i}", "10.0.0.1")
    assert not caps.room_for_table(3)  # 3 tables and 4 sockets: more than 1 MiB
    assert "and 1 MiB of tables and sockets" in caps.full_message(3)
