"""The web app under load: concurrent tables with simulated people over WebSockets, and, with
``--attack``, every way a client has held up the others, one after another.

Starts ``gin-rummy serve``'s app (uvicorn, one process, the server's default limits; it
publishes its matches, so that the list attack reads every one) on 127.0.0.1 and, from this
process, keeps ``--tables`` tables going: a mix of two-player gin (one person, one L2),
three-handed gin (one person, two L2) and basic rummy (one person, one rummy-simple),
matches to ``--target-score`` (25 by default, so that matches finish within the minute and
"lost matches" counts something). Each simulated person connects from a loopback address of
his own (127.0.1.x: as people do, each within an address's limits), thinks ``--think``
seconds (uniform between the two numbers), then sends a move over his WebSocket; when a
match ends he starts another table. It reports:

- the machine's load average (1, 5 and 15 minutes) as the people start and as they stop;
- errors: error messages received and sockets that failed;
- lost matches: matches the people saw finish that the server's SQLite does not hold;
- the round trip of a person's move, from sending it to receiving the next state (p50,
  p99, max, in ms), over the whole run and, with ``--attack``, during each attack;
- memory per table: the server's resident memory with the tables, less its memory before
  any table, divided by the tables.

With ``--attack``, a second process attacks the server from other loopback addresses
(127.0.2.x and up), one attack after another (``--phase-seconds`` each, the people playing
throughout; the first ``--phase-seconds`` with no attack are the baseline):

- ``issue40``: one client floods hints at its seat, another opens ``--watchers`` sockets
  (300) on the spectator links of tables of agents, ``--agent-tables`` tables of agents only
  (10) play at full speed;
- ``best-tables``: gin tables with a ``best`` seat started back to back (refused: the lobby
  does not offer it), then tables with ``tuned`` at a target of 100,000, as fast as the
  limits let them start, from four addresses;
- ``hints-stand-ins``: 40 tables asking for ``best`` hints (refused), then 40 tables whose
  person opens his seat and leaves at once (takeover 0.001 s: stand-ins play for him) and
  six seats asking a hint a second, from eight addresses;
- ``delay-tables``: 77 tables with a person's seat never opened (takeover 0.001 s) and 16
  tables of agents, all with a delay of 1e-300 s, from many addresses;
- ``one-client``: 100 three-handed tables of one address, each socket moving as fast as its
  own rate allows;
- ``slow-headers``: ``--slow-connections`` connections (1,000) from 20 addresses, half
  sending a header line a second, half sending nothing;
- ``lists``: four clients asking ``/api/matches`` and ``/api/people`` in a loop, pages of
  the most and pages too large, over ``--stored-matches`` (6,000) stored matches;
- ``many-addresses``: 40 addresses each starting tables as fast as its limits allow, and
  opening watcher sockets on them.

The attacker reports what the server answered to each (accepted and refused, with the
first refusal's words). Both processes share the machine's cores (the server is one
asyncio process); run it with ``nice`` on a shared machine and say so next to its figures.
The people's tables deal from the server's secret (no seed is sent: a table with a person
takes none).

    python benchmarks/bench_web.py --tables 100 --seconds 60
    python benchmarks/bench_web.py --tables 100 --attack
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np

from gin_web.store import Store
from gin_web.tables import new_table

ROOT = Path(__file__).resolve().parents[1]
SERVER = """
import sys
from gin_web.app import serve
# Every limit is the server's default; its matches are published (the list attack reads them).
serve("127.0.0.1", int(sys.argv[1]), sys.argv[2], publish=True)
"""
MIX = [
    ("gin", ["human", "heuristic"]),
    ("three", ["human", "heuristic", "heuristic"]),
    ("gin", ["heuristic", "human"]),
    ("three", ["heuristic", "human", "heuristic"]),
    ("three", ["heuristic", "heuristic", "human"]),
    ("rummy", ["human", "rummy-simple"]),
]
PHASES = ("issue40", "best-tables", "hints-stand-ins", "delay-tables", "one-client",
          "slow-headers", "lists", "many-addresses")  # fmt: skip


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def address(block: int, i: int) -> str:
    """The ``i``-th loopback address of a block (127.0.<block>.1 and up)."""
    return f"127.0.{block + i // 250}.{1 + i % 250}"


async def http(
    base: str, method: str, path: str, body: Any = None, source: str | None = None
) -> tuple[int, Any]:
    """``(status, JSON)`` of one request from ``source`` (a connection of its own)."""
    host, port = base.split("//", 1)[1].split(":")
    data = b"" if body is None else json.dumps(body).encode()
    reader, writer = await asyncio.open_connection(
        host, int(port), local_addr=None if source is None else (source, 0)
    )
    try:
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        writer.write(head.encode() + data)
        raw = await reader.read()
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    status_line, _, rest = raw.partition(b"\r\n")
    parts = status_line.split()
    status = int(parts[1]) if len(parts) > 1 else 0
    payload = rest.partition(b"\r\n\r\n")[2]
    try:
        return status, json.loads(payload or b"null")
    except ValueError:
        return status, payload.decode("latin-1")[:200]


def choose(view: dict[str, Any], rng: random.Random) -> int:
    """A quick person: knock or meld when he can, else throw his highest deadwood card."""
    legal = view["legal"]
    for kind in ("big-gin", "knock", "meld", "lay-off"):
        found = [m["id"] for m in legal if m["kind"] == kind]
        if found:
            return int(found[0])
    discards = {m["card"]: m["id"] for m in legal if m["kind"] == "discard"}
    mine = [s for s in view["hand"]["seats"] if s.get("cards")]
    if discards and mine:
        dead = [c for c in mine[0]["cards"]["deadwood_cards"] if c in discards]
        if dead:
            return int(discards[max(dead, key=lambda c: "A23456789TJQK".index(c[0]))])
    return int(rng.choice(legal)["id"])


def ws_url(base: str, path: str) -> str:
    return base.replace("http", "ws") + "/ws/" + path.rsplit("/", 1)[1]


# -- the people ---------------------------------------------------------------------------------
class Load:
    def __init__(self, base: str, think: tuple[float, float], seed: int, target: int) -> None:
        self.base = base
        self.target = target
        self.think = think
        self.rng = random.Random(seed)
        self.rtts: list[tuple[float, float]] = []  # (wall-clock time sent, round trip)
        self.errors: list[str] = []
        self.waited = 0  # starts the server asked to wait (its start rate for everyone)
        self.finished: set[str] = set()
        self.moves = 0
        self.stop = False

    async def person(self, index: int) -> None:
        from websockets.asyncio.client import connect  # web extra: uvicorn[standard]

        game, seats = MIX[index % len(MIX)]
        source = address(1, index)
        while not self.stop:
            body = {"game": game, "seats": seats, "options": {"target_score": self.target}}
            try:
                status, out = await http(self.base, "POST", "/api/tables", body, source)
                if status != 200:
                    raise OSError(f"{status} {out}")
            except OSError as err:
                if "starting many tables now" in str(err):
                    self.waited += 1  # the server's start rate: asked to wait, not an error
                else:
                    self.errors.append(f"create: {err}")
                await asyncio.sleep(1)
                continue
            seat = next(iter(out["seats"].values()))
            try:
                async with connect(ws_url(self.base, seat), max_size=2**22,
                                   local_addr=(source, 0)) as ws:  # fmt: skip
                    await self.play(ws, out["table"])
            except Exception as err:  # a socket that failed is an error of the run
                if not self.stop:
                    self.errors.append(f"socket: {type(err).__name__}: {err}")

    async def play(self, ws: Any, table: str) -> None:
        sent: tuple[int, float, float] | None = None
        while not self.stop:
            msg = json.loads(await ws.recv())
            if msg["type"] == "error":
                self.errors.append(msg["message"])
                continue
            if msg["type"] != "state":
                continue
            if sent is not None and msg["seq"] > sent[0]:
                self.rtts.append((sent[2], time.perf_counter() - sent[1]))
                sent = None
            if msg["over"]:
                self.finished.add(table)
                return
            if msg["legal"] and msg["to_act"] == msg["you"] and sent is None:
                await asyncio.sleep(self.rng.uniform(*self.think))
                if self.stop:
                    return
                action = choose(msg, self.rng)
                sent = (msg["seq"], time.perf_counter(), time.time())
                await ws.send(json.dumps({"type": "move", "action": action, "seq": msg["seq"]}))
                self.moves += 1


async def run_people(
    base: str, tables: int, seconds: float | Callable[[], bool], think: tuple[float, float],
    seed: int, pid: int, target: int,
) -> dict[str, Any]:  # fmt: skip
    """The people for ``seconds`` (or until ``seconds()`` says stop)."""
    load = Load(base, think, seed, target)
    tasks = []
    for i in range(tables):  # (started over a second: not all at one instant)
        tasks.append(asyncio.create_task(load.person(i)))
        await asyncio.sleep(1.0 / tables)
    if callable(seconds):
        while not seconds():
            await asyncio.sleep(0.5)
    else:
        await asyncio.sleep(seconds)
    rss = rss_kib(pid)
    load.stop = True
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "moves": load.moves,
        "rtts": load.rtts,
        "errors": len(load.errors),
        "starts_asked_to_wait": load.waited,
        "error_examples": load.errors[:5],
        "finished": sorted(load.finished),
        "rss_kib": rss,
    }


def spread(rtts: list[float]) -> dict[str, Any]:
    ms = np.asarray(rtts) * 1000
    if not len(ms):
        return {"round_trips": 0, "p50_ms": None, "p99_ms": None, "max_ms": None}
    return {"round_trips": len(ms), "p50_ms": float(np.percentile(ms, 50)),
            "p99_ms": float(np.percentile(ms, 99)), "max_ms": float(ms.max())}  # fmt: skip


# -- the attacker -------------------------------------------------------------------------------
class Attack:
    """Every attack of issues 40 and 56, one after another; what the server answered."""

    def __init__(self, base: str, args: argparse.Namespace) -> None:
        self.base = base
        self.args = args
        self.stop = asyncio.Event()
        self.counts: dict[str, Any] = {}
        self.socks: list[Any] = []

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def said(self, key: str, message: Any) -> None:
        """Keep the first refusal's words of each kind."""
        self.counts.setdefault(f"{key} (first refusal)", str(message)[:160])

    async def table(self, body: dict[str, Any], source: str, key: str) -> dict[str, Any] | None:
        status, out = await http(self.base, "POST", "/api/tables", body, source)
        if status == 200:
            self.count(f"{key} accepted")
            return out  # type: ignore[no-any-return]
        self.count(f"{key} refused")
        self.said(key, out.get("error") if isinstance(out, dict) else out)
        return None

    async def open(self, path: str, source: str, key: str) -> Any:
        """A WebSocket held open (until the phase ends); None when refused."""
        from websockets.asyncio.client import connect  # web extra: uvicorn[standard]

        try:
            ws = await connect(ws_url(self.base, path), max_size=2**24, local_addr=(source, 0))
        except Exception as err:
            self.count(f"{key} refused")
            self.said(key, err)
            return None
        first = json.loads(await ws.recv())
        if first["type"] == "error":
            self.count(f"{key} refused")
            self.said(key, first["message"])
            await ws.close()
            return None
        self.count(f"{key} open")
        self.socks.append(ws)
        return ws

    async def drain(self, ws: Any, on: Callable[[dict[str, Any]], None] | None = None) -> None:
        with contextlib.suppress(Exception):
            async for text in ws:
                if on is not None:
                    on(json.loads(text))

    async def until_stopped(self, *jobs: Awaitable[Any]) -> None:
        tasks = [asyncio.ensure_future(j) for j in jobs]
        await self.stop.wait()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- the attacks --------------------------------------------------------------------------
    async def issue40(self) -> None:
        async def hints() -> None:
            from websockets.asyncio.client import connect  # web extra: uvicorn[standard]

            src = address(2, 0)
            out = await self.table({"game": "three", "seats": ["human"] * 3}, src, "hint table")
            if out is None:
                return
            for path in out["seats"].values():
                async with connect(ws_url(self.base, path), local_addr=(src, 0)) as ws:
                    view = json.loads(await ws.recv())
                    if view["to_act"] != view["you"]:
                        continue
                    while True:
                        await ws.send(json.dumps({"type": "hint"}))
                        msg = json.loads(await ws.recv())
                        while msg["type"] == "state":
                            msg = json.loads(await ws.recv())
                        self.count("hints answered" if msg["type"] == "hint" else "hints refused")

        async def agents_and_watchers() -> None:
            body = {"game": "gin", "seats": ["heuristic"] * 2,
                    "options": {"knock_limit": 0, "target_score": 100_000}}  # fmt: skip
            spectators = []
            for _ in range(self.args.agent_tables):
                out = await self.table(body, address(2, 1), "agent tables")
                if out is not None:
                    spectators.append(out["spectator"])
            for i in range(self.args.watchers if spectators else 0):
                ws = await self.open(spectators[i % len(spectators)], address(2, 2), "watchers")
                if ws is not None:
                    asyncio.ensure_future(self.drain(ws))

        await self.until_stopped(hints(), agents_and_watchers())

    async def best_tables(self) -> None:
        async def starts(k: int) -> None:
            src = address(3, k)
            best = {"game": "gin", "seats": ["human", "best"]}
            tuned = {"game": "gin", "seats": ["human", "tuned"],
                     "options": {"target_score": 100_000}}  # fmt: skip
            while True:
                await self.table(best, src, "best tables")
                await self.table(tuned, src, "tuned tables, target 100000")

        await self.until_stopped(*(starts(k) for k in range(4)))

    async def hints_stand_ins(self) -> None:
        async def client(k: int) -> None:
            src = address(4, k)
            for _ in range(5):
                await self.table({"game": "three", "hint_agent": "best"}, src, "best hints")
            for _ in range(5):
                out = await self.table({"game": "gin", "takeover": 0.001, "hint_agent": "heuristic",
                                        "options": {"knock_limit": 0, "target_score": 100_000}},
                                       src, "stand-in tables")  # fmt: skip
                if out is not None:
                    ws = await self.open(out["seats"]["player_0"], src, "stand-in seats")
                    if ws is not None:
                        await ws.close()  # opened, and left: a stand-in plays for him
            if k < 2:
                out = await self.table(
                    {"game": "three", "seats": ["human"] * 3}, src, "hint tables"
                )
                if out is None:
                    return
                socks = [await self.open(p, src, "hint seats") for p in out["seats"].values()]
                while True:  # every seat asks for a hint a second (the allowed rate)
                    for ws in socks:
                        if ws is not None:
                            await ws.send(json.dumps({"type": "hint"}))
                    await asyncio.sleep(1.0)

        async def read_all() -> None:
            while True:
                await asyncio.sleep(0.5)
                for ws in list(self.socks):
                    with contextlib.suppress(Exception):
                        while True:
                            msg = json.loads(await asyncio.wait_for(ws.recv(), 0.001))
                            if msg["type"] == "hint":
                                self.count("hints answered")
                            elif msg["type"] == "error":
                                self.count("hints refused")

        await self.until_stopped(read_all(), *(client(k) for k in range(8)))

    async def delay_tables(self) -> None:
        seen = {"moves": 0}

        async def person_tables(k: int) -> None:
            body = {"game": "gin", "takeover": 0.001, "delay": 1e-300,
                    "options": {"knock_limit": 0, "target_score": 100_000}}  # fmt: skip
            for i in range(7):
                if k * 7 + i < 77:
                    await self.table(body, address(5, k), "never-opened tables")

        async def agent_tables(k: int) -> None:
            body = {"game": "gin", "seats": ["heuristic"] * 2, "delay": 1e-300,
                    "options": {"knock_limit": 0, "target_score": 100_000}}  # fmt: skip
            for _ in range(4):
                out = await self.table(body, address(6, k), "agent tables, delay 1e-300")
                if out is not None:
                    last = {"seq": 0}

                    def on(msg: dict[str, Any], last: dict[str, int] = last) -> None:
                        if msg.get("type") == "state":
                            seen["moves"] += max(0, msg["seq"] - last["seq"])
                            last["seq"] = max(last["seq"], msg["seq"])

                    ws = await self.open(out["spectator"], address(6, k), "their watchers")
                    if ws is not None:
                        asyncio.ensure_future(self.drain(ws, on))

        start = time.monotonic()
        await self.until_stopped(*(person_tables(k) for k in range(11)),
                                 *(agent_tables(k) for k in range(4)))  # fmt: skip
        self.counts["agent moves seen at the tables of agents, a second"] = round(
            seen["moves"] / max(1e-9, time.monotonic() - start), 1
        )

    async def one_client(self) -> None:
        from websockets.asyncio.client import connect  # web extra: uvicorn[standard]

        src = address(7, 0)
        rng = random.Random(1)

        async def table() -> None:
            out = await self.table({"game": "three"}, src, "tables")
            if out is None:
                return
            async with connect(ws_url(self.base, out["seats"]["player_0"]),
                               local_addr=(src, 0)) as ws:  # fmt: skip
                while True:
                    msg = json.loads(await ws.recv())
                    if msg["type"] == "error":
                        self.count("moves refused")
                        self.said("moves", msg["message"])
                    elif msg["type"] == "state" and msg["legal"] and not msg["over"]:
                        await asyncio.sleep(0.05)  # 20 a second: the socket's own rate
                        await ws.send(json.dumps({"type": "move", "action": choose(msg, rng),
                                                  "seq": msg["seq"]}))  # fmt: skip
                        self.count("moves sent")

        await self.until_stopped(*(table() for _ in range(100)))

    async def slow_headers(self) -> None:
        host, port = self.base.split("//", 1)[1].split(":")
        n = self.args.slow_connections

        async def one(i: int) -> None:
            src = address(8, i % 20)
            start = time.monotonic()
            try:
                reader, writer = await asyncio.open_connection(host, int(port), local_addr=(src, 0))
            except OSError as err:
                self.count("connections failed")
                self.said("connections", err)
                return
            self.count("connections made")
            try:
                if i % 2 == 0:
                    writer.write(b"GET /api/games HTTP/1.1\r\n")
                while True:
                    try:
                        data = await asyncio.wait_for(reader.read(4096), 1.0)
                    except TimeoutError:
                        if i % 2 == 0:
                            writer.write(b"X-Slow: 1\r\n")  # a header line a second
                        continue
                    if not data:
                        self.count("closed by the server, no answer")
                        break
                    word = (
                        data.split(b" ", 2)[1].decode("latin-1", "replace") if b" " in data else "?"
                    )
                    self.count(f"answered {word} and closed")
                    self.said(f"answered {word}", data.rpartition(b"\r\n\r\n")[2].decode("latin-1"))
                    break
                self.counts.setdefault("held, s", []).append(time.monotonic() - start)
            except OSError:
                self.count("closed by the server, no answer")
            finally:
                writer.close()

        await self.until_stopped(*(one(i) for i in range(n)))
        held = self.counts.pop("held, s", [])
        if held:
            self.counts["longest held, s"] = round(max(held), 1)

    async def lists(self) -> None:
        async def client(k: int) -> None:
            src = address(9, k)
            while True:
                for path in ("/api/matches?limit=200&offset=" + str(random.randrange(6000)),
                             "/api/people", "/api/matches?limit=100000"):  # fmt: skip
                    t0 = time.perf_counter()
                    status, out = await http(self.base, "GET", path, source=src)
                    self.count(f"lists answered {status}")
                    self.counts.setdefault("list ms", []).append((time.perf_counter() - t0) * 1000)
                    if status != 200:
                        self.said(
                            f"lists {status}", out.get("error") if isinstance(out, dict) else out
                        )

        await self.until_stopped(*(client(k) for k in range(4)))
        ms = self.counts.pop("list ms", [])
        if ms:
            self.counts["list answer p50 ms"] = round(float(np.percentile(ms, 50)), 1)

    async def many_addresses(self) -> None:
        async def client(k: int) -> None:
            src = address(10, k)
            mine = []
            while True:
                out = await self.table({"game": "gin"}, src, "tables")
                if out is None:
                    await asyncio.sleep(0.5)
                else:
                    mine.append(out)
                if mine and len(mine) % 2 == 0:
                    for _ in range(4):
                        ws = await self.open(mine[-1]["spectator"], src, "watchers")
                        if ws is not None:
                            asyncio.ensure_future(self.drain(ws))

        await self.until_stopped(*(client(k) for k in range(40)))

    async def run(self, phases: list[str], seconds: float) -> list[dict[str, Any]]:
        out = []
        for name in phases:
            self.counts, self.socks = {}, []
            self.stop = asyncio.Event()
            start = time.time()
            job = asyncio.ensure_future(getattr(self, name.replace("-", "_"))())
            await asyncio.sleep(seconds)
            self.stop.set()
            try:
                await asyncio.wait_for(job, 30)
            except Exception as err:  # an attack's own failure is reported, not hidden
                self.counts["attacker error"] = repr(err)[:200]
            end = time.time()
            for ws in self.socks:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 2)
            out.append({"phase": name, "start": start, "end": end, "counts": dict(self.counts)})
            await asyncio.sleep(3)  # (the next attack on a settled server)
        return out


# -- the run ------------------------------------------------------------------------------------
def prefill(data: Path, matches: int) -> None:
    """``matches`` finished matches in the store (copies of one real record), for the list
    attack."""
    table = new_table("gin", {"target_score": 100}, ["human", "heuristic"], seed=3)
    while not table.over:
        p = table.to_act
        assert p is not None
        table.move(p, table.hint(p))
    record = table.record()
    store = Store(data)
    for i in range(matches):
        store.add_match(f"stored{i:06d}", "gin_v0", record)
    store.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--attack", action="store_true", help="attack the server every way known, "
                   "one after another, from another process")  # fmt: skip
    p.add_argument("--phases", default=",".join(PHASES),
                   help=f"the attacks, comma-separated (of {', '.join(PHASES)})")  # fmt: skip
    p.add_argument("--phase-seconds", type=float, default=20.0)
    p.add_argument("--watchers", type=int, default=300)
    p.add_argument("--agent-tables", type=int, default=10)
    p.add_argument("--slow-connections", type=int, default=1000)
    p.add_argument("--stored-matches", type=int, default=6000)
    p.add_argument("--attacker", default=None, help=argparse.SUPPRESS)  # (the child process)
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--seconds", type=float, default=60.0, help="without --attack")
    p.add_argument("--think", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--target-score", type=int, default=25)
    p.add_argument("--out", default="runs/bench_web.json")
    args = p.parse_args(argv)
    phases = [x for x in args.phases.split(",") if x]
    unknown = sorted(set(phases) - set(PHASES))
    if unknown:
        p.error(f"--phases: unknown {', '.join(unknown)}; choose among {', '.join(PHASES)}")
    if args.attacker is not None:  # the attacker's process: report as JSON on stdout
        result = asyncio.run(Attack(args.attacker, args).run(phases, args.phase_seconds))
        print(json.dumps(result))
        return 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = Path(tempfile.mkdtemp(prefix="bench_web_"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if args.attack and "lists" in phases and args.stored_matches:
        prefill(data, args.stored_matches)
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port), str(data)], env=env)
    base = f"http://127.0.0.1:{port}"
    attacked: list[dict[str, Any]] | None = None
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/api/games", timeout=5).read()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.2)
        idle = rss_kib(server.pid)
        load_before = os.getloadavg()
        if not args.attack:
            result = asyncio.run(run_people(base, args.tables, args.seconds, tuple(args.think),
                                            args.seed, server.pid, args.target_score))  # fmt: skip
            baseline = None
        else:
            attacker: subprocess.Popen[str] | None = None
            baseline = (time.time() + 10, time.time() + 10 + args.phase_seconds)  # (started)

            def done() -> bool:
                nonlocal attacker
                if attacker is None and time.time() >= baseline[1]:
                    attacker = subprocess.Popen(
                        [sys.executable, __file__, "--attacker", base, "--phases", args.phases,
                         "--phase-seconds", str(args.phase_seconds),
                         "--watchers", str(args.watchers), "--agent-tables",
                         str(args.agent_tables), "--slow-connections",
                         str(args.slow_connections)],
                        env=env, stdout=subprocess.PIPE, text=True,
                    )  # fmt: skip
                return attacker is not None and attacker.poll() is not None

            result = asyncio.run(run_people(base, args.tables, done, tuple(args.think),
                                            args.seed, server.pid, args.target_score))  # fmt: skip
            assert attacker is not None
            stdout, _ = attacker.communicate(timeout=120)
            attacked = json.loads(stdout.strip().splitlines()[-1])
        load_after = os.getloadavg()
    finally:
        server.terminate()
        server.wait(timeout=60)
    db = sqlite3.connect(data / "gin_web.sqlite3")
    stored = {row[0] for row in db.execute("SELECT id FROM matches")}
    db.close()
    rtts = result.pop("rtts")
    lost = [t for t in result.pop("finished") if t not in stored]
    windows = []
    if baseline is not None:
        windows.append({"phase": "none (baseline)", "start": baseline[0], "end": baseline[1],
                        "counts": {}})  # fmt: skip
    for phase in attacked or []:
        windows.append(phase)
    for w in windows:
        w["others"] = spread([r for t, r in rtts if w["start"] <= t <= w["end"]])
    overall = spread([r for _, r in rtts])
    report = {
        "command": " ".join(sys.argv),
        "tables": args.tables,
        "think_s": list(args.think),
        "target_score": args.target_score,
        "cpus": os.cpu_count(),
        "load_average_before": list(load_before),  # 1, 5, 15 minutes
        "load_average_after": list(load_after),
        "matches_finished": len(stored) - (args.stored_matches if args.attack else 0),
        "lost_matches": len(lost),
        **result,
        **{f"rtt_ms_{k[:-3]}" if k.endswith("_ms") else k: v for k, v in overall.items()},
        "server_rss_idle_mib": idle / 1024,
        "server_rss_mib": result["rss_kib"] / 1024,
        "memory_per_table_kib": (result.pop("rss_kib") - idle) / args.tables,
        "phases": windows,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    seconds = sum(w["end"] - w["start"] for w in windows) if windows else args.seconds
    print(f"{args.tables} tables, {seconds:.0f} s, people think {args.think[0]}-"
          f"{args.think[1]} s, {os.cpu_count()} cores (shared)")  # fmt: skip
    print(f"  load average (1, 5, 15 min) {' '.join(f'{x:.2f}' for x in load_before)} at the "
          f"start, {' '.join(f'{x:.2f}' for x in load_after)} at the end")  # fmt: skip
    print(f"  person moves {report['moves']}, round trips {report['round_trips']}, "
          f"matches finished {report['matches_finished']}")  # fmt: skip
    waited = report["starts_asked_to_wait"]
    print(f"  errors {report['errors']}, lost matches {report['lost_matches']}, people's "
          f"starts asked to wait by the server's start rate {waited}")  # fmt: skip
    if report["rtt_ms_p99"] is not None:
        print(f"  round trip of a move: p50 {report['rtt_ms_p50']:.1f} ms, p99 "
              f"{report['rtt_ms_p99']:.1f} ms, max {report['rtt_ms_max']:.1f} ms")  # fmt: skip
    print(f"  server memory {report['server_rss_idle_mib']:.0f} MiB idle, "
          f"{report['server_rss_mib']:.0f} MiB with the tables: "
          f"{report['memory_per_table_kib']:.0f} KiB per table")  # fmt: skip
    if windows:
        print("  others' round trips during each attack (ms):")
        print(f"    {'attack':<18} {'moves':>6} {'p50':>7} {'p99':>7} {'max':>7}")
        for w in windows:
            o = w["others"]
            cells = [f"{o[k]:7.1f}" if o[k] is not None else "      -" for k in
                     ("p50_ms", "p99_ms", "max_ms")]  # fmt: skip
            print(f"    {w['phase']:<18} {o['round_trips']:>6} {' '.join(cells)}")
        for w in windows[1:]:
            said = "; ".join(f"{k}: {v}" for k, v in w["counts"].items())
            print(f"  {w['phase']}: {said}")
    if report["error_examples"]:
        print("  errors, e.g.:", report["error_examples"])
    return 0 if report["errors"] == 0 and report["lost_matches"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
