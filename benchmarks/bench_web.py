"""The web app under load: concurrent tables with simulated people over WebSockets.

Starts ``gin-rummy serve``'s app (uvicorn, one process) on 127.0.0.1 and, from this
process, keeps ``--tables`` tables going for ``--seconds``: a mix of two-player gin (one
person, one L2), three-handed gin (one person, two L2) and basic rummy (one person, one
rummy-simple), matches to ``--target-score`` (25 by default, so that matches finish within
the minute and "lost matches" counts something). Each simulated person thinks ``--think``
seconds (uniform between the two numbers), then sends a move over its WebSocket; when a
match ends he starts another table.
It reports:

- the machine's load average (1, 5 and 15 minutes) as the people start and as they stop;
- errors: error messages received and sockets that failed;
- lost matches: matches the people saw finish that the server's SQLite does not hold;
- the round trip of a person's move, from sending it to receiving the next state (p50,
  p99, max, in ms);
- memory per table: the server's resident memory with the tables, less its memory before
  any table, divided by the tables.

With ``--attack``, a third process loads the server as issue 40's attacker did, all the
while: one client floods hints at its seat (as fast as the answers come), another opens
``--watchers`` sockets (300) on the spectator links of the tables of agents, and
``--agent-tables`` tables of agents only (10) play at full speed (no delay; a table that
reaches the server's cap of hands is replaced). The attacker reports what the server
answered (hints, refusals, sockets accepted and refused, agent moves).

Both processes share the machine's cores (the server is one asyncio process); run it with
``nice`` on a shared machine and say so next to its figures. The people's tables deal from
the server's secret (no seed is sent: a table with a person takes none).

    python benchmarks/bench_web.py --tables 100 --seconds 60
    python benchmarks/bench_web.py --tables 100 --seconds 60 --attack
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SERVER = """
import sys
from gin_web.app import Limits, serve
# One address (127.0.0.1) starts every table of the run: more tables at once than a client
# of the default limits may start; every other limit is the server's default.
serve("127.0.0.1", int(sys.argv[1]), sys.argv[2],
      limits=Limits(tables_burst=1000, tables_per_second=50))
"""
MIX = [
    ("gin", ["human", "heuristic"]),
    ("three", ["human", "heuristic", "heuristic"]),
    ("gin", ["heuristic", "human"]),
    ("three", ["heuristic", "human", "heuristic"]),
    ("three", ["heuristic", "heuristic", "human"]),
    ("rummy", ["human", "rummy-simple"]),
]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def post(base: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        base + "/api/tables", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


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


class Load:
    def __init__(self, base: str, think: tuple[float, float], seed: int, target: int) -> None:
        self.base = base
        self.target = target
        self.think = think
        self.rng = random.Random(seed)
        self.rtts: list[float] = []
        self.errors: list[str] = []
        self.finished: set[str] = set()
        self.moves = 0
        self.stop = False

    async def person(self, index: int) -> None:
        from websockets.asyncio.client import connect  # web extra: uvicorn[standard]

        game, seats = MIX[index % len(MIX)]
        while not self.stop:
            body = {"game": game, "seats": seats, "options": {"target_score": self.target}}
            try:
                out = await asyncio.to_thread(post, self.base, body)
            except OSError as err:
                self.errors.append(f"create: {err}")
                await asyncio.sleep(1)
                continue
            seat = next(iter(out["seats"].values()))
            url = self.base.replace("http", "ws") + "/ws/" + seat.rsplit("/", 1)[1]
            try:
                async with connect(url, max_size=2**22) as ws:
                    await self.play(ws, out["table"])
            except Exception as err:  # a socket that failed is an error of the run
                if not self.stop:
                    self.errors.append(f"socket: {type(err).__name__}: {err}")

    async def play(self, ws: Any, table: str) -> None:
        sent: tuple[int, float] | None = None
        while not self.stop:
            msg = json.loads(await ws.recv())
            if msg["type"] == "error":
                self.errors.append(msg["message"])
                continue
            if msg["type"] != "state":
                continue
            if sent is not None and msg["seq"] > sent[0]:
                self.rtts.append(time.perf_counter() - sent[1])
                sent = None
            if msg["over"]:
                self.finished.add(table)
                return
            if msg["legal"] and msg["to_act"] == msg["you"] and sent is None:
                await asyncio.sleep(self.rng.uniform(*self.think))
                if self.stop:
                    return
                action = choose(msg, self.rng)
                sent = (msg["seq"], time.perf_counter())
                await ws.send(json.dumps({"type": "move", "action": action, "seq": msg["seq"]}))
                self.moves += 1


class Attack:
    """Issue 40's load: a hint flood, many watchers, tables of agents at full speed."""

    def __init__(self, base: str, watchers: int, agent_tables: int) -> None:
        self.base = base
        self.watchers = watchers
        self.agent_tables = agent_tables
        names = ("hints", "hint_refusals", "watchers_open", "watchers_refused",
                 "agent_tables_started", "agent_moves")  # fmt: skip
        self.counts = dict.fromkeys(names, 0)
        self.stop = False
        self.spectators: list[str] = []

    def url(self, path: str) -> str:
        return self.base.replace("http", "ws") + "/ws/" + path.rsplit("/", 1)[1]

    async def hints(self) -> None:
        from websockets.asyncio.client import connect  # web extra: uvicorn[standard]

        out = await asyncio.to_thread(post, self.base, {"game": "three", "seats": ["human"] * 3})
        for path in out["seats"].values():  # the seat to act floods
            async with connect(self.url(path), max_size=2**22) as ws:
                view = json.loads(await ws.recv())
                if view["to_act"] != view["you"]:
                    continue
                while not self.stop:
                    await ws.send(json.dumps({"type": "hint"}))
                    msg = json.loads(await ws.recv())
                    while msg["type"] == "state":
                        msg = json.loads(await ws.recv())
                    key = "hints" if msg["type"] == "hint" else "hint_refusals"
                    self.counts[key] += 1
                return

    async def agents(self, k: int) -> None:
        from websockets.asyncio.client import connect  # web extra: uvicorn[standard]

        body = {"game": "gin", "seats": ["heuristic"] * 2,
                "options": {"knock_limit": 0, "target_score": 100_000}}  # fmt: skip
        while not self.stop:
            out = await asyncio.to_thread(post, self.base, body)
            self.counts["agent_tables_started"] += 1
            self.spectators.append(out["spectator"])
            async with connect(self.url(out["spectator"]), max_size=2**24) as ws:
                last = 0
                while not self.stop:  # until the table stops at the server's cap
                    msg = json.loads(await ws.recv())
                    if msg["type"] == "state":
                        self.counts["agent_moves"] += max(0, msg["seq"] - last)
                        last = max(last, msg["seq"])
                    elif msg["type"] == "notice" and "stopped" in msg["message"]:
                        break

    async def watch(self) -> None:
        from websockets.asyncio.client import connect  # web extra: uvicorn[standard]

        while len(self.spectators) < self.agent_tables and not self.stop:
            await asyncio.sleep(0.1)
        socks = []
        for i in range(self.watchers):
            ws = await connect(self.url(self.spectators[i % self.agent_tables]), max_size=2**24)
            first = json.loads(await ws.recv())
            if first["type"] == "error":
                self.counts["watchers_refused"] += 1
                await ws.close()
            else:
                self.counts["watchers_open"] += 1
                socks.append(ws)

        async def drain(ws: Any) -> None:
            with contextlib.suppress(Exception):
                async for _ in ws:
                    if self.stop:
                        return

        await asyncio.gather(*(drain(ws) for ws in socks))


async def attack(base: str, seconds: float, watchers: int, agent_tables: int) -> dict[str, Any]:
    load = Attack(base, watchers, agent_tables)
    tasks = [asyncio.create_task(load.hints()), asyncio.create_task(load.watch())]
    tasks += [asyncio.create_task(load.agents(k)) for k in range(agent_tables)]
    await asyncio.sleep(seconds)
    load.stop = True
    for t in tasks:
        t.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    errors = [repr(r) for r in results if isinstance(r, Exception)
              and not isinstance(r, asyncio.CancelledError)]  # fmt: skip
    return {**load.counts, "errors": errors[:5]}


async def run(base: str, tables: int, seconds: float, think: tuple[float, float], seed: int,
              pid: int, target: int) -> dict[str, Any]:  # fmt: skip
    load = Load(base, think, seed, target)
    tasks = [asyncio.create_task(load.person(i)) for i in range(tables)]
    await asyncio.sleep(seconds)
    rss = rss_kib(pid)
    load.stop = True
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    ms = np.asarray(load.rtts) * 1000
    return {
        "moves": load.moves,
        "round_trips": len(ms),
        "rtt_ms_p50": float(np.percentile(ms, 50)) if len(ms) else None,
        "rtt_ms_p99": float(np.percentile(ms, 99)) if len(ms) else None,
        "rtt_ms_max": float(ms.max()) if len(ms) else None,
        "errors": len(load.errors),
        "error_examples": load.errors[:5],
        "finished": sorted(load.finished),
        "rss_kib": rss,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--attack", action="store_true", help="load the server as issue 40's "
                   "attacker did, in another process")  # fmt: skip
    p.add_argument("--watchers", type=int, default=300)
    p.add_argument("--agent-tables", type=int, default=10)
    p.add_argument("--attacker", default=None, help=argparse.SUPPRESS)  # (the child process)
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--think", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--target-score", type=int, default=25)
    p.add_argument("--out", default="runs/bench_web.json")
    args = p.parse_args(argv)
    if args.attacker is not None:  # the attacker's process: report as JSON on stdout
        result = asyncio.run(attack(args.attacker, args.seconds, args.watchers,
                                    args.agent_tables))  # fmt: skip
        print(json.dumps(result))
        return 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = Path(tempfile.mkdtemp(prefix="bench_web_"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port), str(data)], env=env)
    base = f"http://127.0.0.1:{port}"
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
        attacker = None
        if args.attack:
            attacker = subprocess.Popen(
                [sys.executable, __file__, "--attacker", base, "--seconds", str(args.seconds + 5),
                 "--watchers", str(args.watchers), "--agent-tables", str(args.agent_tables)],
                env=env, stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            time.sleep(5)  # the attack is under way before the people start
        load_before = os.getloadavg()
        result = asyncio.run(run(base, args.tables, args.seconds, tuple(args.think), args.seed,
                                 server.pid, args.target_score))  # fmt: skip
        load_after = os.getloadavg()
        attacked = None
        if attacker is not None:
            stdout, _ = attacker.communicate(timeout=120)
            attacked = json.loads(stdout.strip().splitlines()[-1])
        with urllib.request.urlopen(base + "/api/matches", timeout=30) as r:
            stored = {m["id"] for m in json.loads(r.read())}
    finally:
        server.terminate()
        server.wait(timeout=30)
    lost = [t for t in result.pop("finished") if t not in stored]
    report = {
        "command": " ".join(sys.argv),
        "tables": args.tables,
        "seconds": args.seconds,
        "think_s": list(args.think),
        "target_score": args.target_score,
        "cpus": os.cpu_count(),
        "load_average_before": list(load_before),  # 1, 5, 15 minutes
        "load_average_after": list(load_after),
        "matches_finished": len(stored),
        "lost_matches": len(lost),
        **result,
        "server_rss_idle_mib": idle / 1024,
        "server_rss_mib": result["rss_kib"] / 1024,
        "memory_per_table_kib": (result.pop("rss_kib") - idle) / args.tables,
        "attack": attacked,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    print(f"{args.tables} tables, {args.seconds:.0f} s, people think {args.think[0]}-"
          f"{args.think[1]} s, {os.cpu_count()} cores (shared)")  # fmt: skip
    print(f"  load average (1, 5, 15 min) {' '.join(f'{x:.2f}' for x in load_before)} at the "
          f"start, {' '.join(f'{x:.2f}' for x in load_after)} at the end")  # fmt: skip
    print(f"  person moves {report['moves']}, round trips {report['round_trips']}, "
          f"matches finished {report['matches_finished']}")  # fmt: skip
    print(f"  errors {report['errors']}, lost matches {report['lost_matches']}")
    if report["rtt_ms_p99"] is not None:
        print(f"  round trip of a move: p50 {report['rtt_ms_p50']:.1f} ms, p99 "
              f"{report['rtt_ms_p99']:.1f} ms, max {report['rtt_ms_max']:.1f} ms")  # fmt: skip
    print(f"  server memory {report['server_rss_idle_mib']:.0f} MiB idle, "
          f"{report['server_rss_mib']:.0f} MiB with the tables: "
          f"{report['memory_per_table_kib']:.0f} KiB per table")  # fmt: skip
    if attacked is not None:
        print(f"  under attack: {attacked['hints']} hints answered and "
              f"{attacked['hint_refusals']} refused to the flooding seat; watcher sockets "
              f"{attacked['watchers_open']} open, {attacked['watchers_refused']} refused; "
              f"{attacked['agent_tables_started']} tables of agents started, "
              f"{attacked['agent_moves']} agent moves seen")  # fmt: skip
        if attacked["errors"]:
            print("  attacker errors, e.g.:", attacked["errors"])
    if report["error_examples"]:
        print("  errors, e.g.:", report["error_examples"])
    return 0 if report["errors"] == 0 and report["lost_matches"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
