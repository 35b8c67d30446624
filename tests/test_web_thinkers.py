"""The agents' workers of the web app (:mod:`gin_web.thinkers`): they answer as the agent
would in the server's own process, a table's agents live in one worker, a dead worker is
started again, and a move thought for a table that has moved on meanwhile is not played."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agents
from gin_web import tables
from gin_web.thinkers import Thinkers


def test_a_worker_answers_as_the_agent_would_here_and_one_that_dies_starts_again() -> None:
    table = tables.new_table("three", {}, ["human"] * 3, seed=11)
    here = agents.seat("heuristic", table.env.config)
    thinkers = Thinkers(2)

    async def run() -> None:
        for _ in range(12):
            p = table.to_act
            assert p is not None
            ob = table.observation(p)
            action = await thinkers.act(table.id, "hint", "heuristic", table.env.config, ob)
            assert action == int(here.act(ob))
            table.move(p, action)
        # Its worker killed, the next call starts another and is answered.
        pid = thinkers.start()[thinkers._index(table.id)].result(timeout=60)
        os.kill(pid, signal.SIGKILL)
        p = table.to_act
        assert p is not None
        ob = table.observation(p)
        action = await thinkers.act(table.id, "hint", "heuristic", table.env.config, ob)
        assert action == int(here.act(ob))
        thinkers.forget([table.id])

    try:
        asyncio.run(run())
    finally:
        thinkers.close()


def test_bad_worker_counts_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="workers must be an int >= 1, got 0"):
        Thinkers(0)
    with pytest.raises(ValueError, match=r"nice must be an int in 0..19, got 40"):
        Thinkers(1, nice=40)


def test_a_move_thought_for_a_table_that_moved_on_is_not_played() -> None:
    table = tables.new_table("gin", {}, ["human", "heuristic"], seed=4)
    seat = table.seats[0]
    seat.stand_in = True  # the person left: the hint agent stands in for him
    while table.to_act != 0:
        table.agent_move()
    slot, spec = table.thinker(0)
    assert (slot, spec) == ("seat 0", table.hint_agent)
    seq = table.step_count
    action = table.hint(0)
    seat.stand_in = False  # he came back and moved before the stand-in's move arrived
    table.move(0, action)
    assert not table.play_thought(0, seq, action)
    assert table.step_count == seq + 1
    # At the table's move, with an agent to act, the thought move is played.
    assert table.to_act == 1
    seq = table.step_count
    assert table.play_thought(1, seq, table.hint(1))
    assert table.step_count == seq + 1


def test_the_workers_end_with_the_server_however_it_ends() -> None:
    """A server killed outright leaves no worker behind (nor their fork server)."""
    code = (
        "import os\n"
        "from gin_web.thinkers import Thinkers\n"
        "t = Thinkers(2, nice=5)\n"
        "print(' '.join(str(f.result()) for f in t.start()), flush=True)\n"
        "os._exit(0)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 20
    while any(Path(f"/proc/{p}").exists() for p in pids):
        assert time.monotonic() < deadline, "a worker outlived its server"
        time.sleep(0.1)


def test_a_thought_past_the_timeout_kills_its_worker_and_the_next_is_answered() -> None:
    table = tables.new_table("gin", {}, ["human", "human"], seed=6)
    here = agents.seat("heuristic", table.env.config)
    thinkers = Thinkers(1, timeout=0.5)

    async def run() -> None:
        await asyncio.wrap_future(thinkers.start()[0])  # started: the timeout is the thought's
        p = table.to_act
        assert p is not None
        ob = table.observation(p)
        start = time.monotonic()
        with pytest.raises(TimeoutError, match=r"'search:budget=5' thought longer than 0.5 s"):
            await thinkers.act(table.id, "0", "search:budget=5", table.env.config, ob)
        assert time.monotonic() - start < 3.0
        # The hung worker was killed: the next call, at any table, starts another.
        action = await thinkers.act("other", "hint", "heuristic", table.env.config, ob)
        assert action == int(here.act(ob))

    try:
        asyncio.run(run())
    finally:
        thinkers.close()


def test_a_bad_timeout_is_refused_by_name() -> None:
    for bad in (0, -1.0, float("nan"), float("inf"), True, "5"):
        with pytest.raises(ValueError, match="timeout must be a number of seconds > 0"):
            Thinkers(1, timeout=bad)  # type: ignore[arg-type]


def test_a_persons_move_goes_before_hints_and_stand_ins_and_clients_take_turns() -> None:
    """One worker, busy with a call that thinks a while: the calls that wait are answered
    by priority (an agent's move where a person plays before a table's agents being made,
    hints and stand-ins), and within one, each client in turn (one client's many tables
    do not hold up another's)."""
    from gin_web.thinkers import BACKGROUND, HINT, PERSON

    table = tables.new_table("gin", {}, ["human", "human"], seed=6)
    rules = table.env.config
    ob = table.observation(table.to_act or 0)
    thinkers = Thinkers(1)
    order: list[str] = []

    async def ask(name: str, spec: str, priority: int, client: str) -> None:
        await thinkers.act(f"t-{name}", "0", spec, rules, ob, priority=priority, client=client)
        order.append(name)

    async def run() -> None:
        await asyncio.wrap_future(thinkers.start()[0])
        busy = asyncio.ensure_future(ask("busy", "search:budget=0.5", PERSON, "x"))
        await asyncio.sleep(0.2)  # (the worker thinks on it)
        calls = [ask(f"hint{i}", "heuristic", HINT, "flood") for i in range(5)]
        calls += [ask(f"stand-in{i}", "heuristic", BACKGROUND, "flood") for i in range(5)]
        calls += [ask(f"many{i}", "heuristic", PERSON, "many") for i in range(4)]
        calls += [ask("person", "heuristic", PERSON, "other")]
        await asyncio.gather(busy, *calls)

    try:
        asyncio.run(run())
    finally:
        thinkers.close()
    assert order[0] == "busy"
    people = [n for n in order if n.startswith(("many", "person"))]
    assert order[1 : 1 + len(people)] == people  # every person's move before any hint
    assert people.index("person") <= 1  # after at most one of the other client's moves
    hints = [i for i, n in enumerate(order) if n.startswith("hint")]
    stand_ins = [i for i, n in enumerate(order) if n.startswith("stand-in")]
    assert max(hints) < min(stand_ins)  # hints before the moves where nobody plays
