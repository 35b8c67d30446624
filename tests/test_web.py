"""The web app (gin_web, extra ``web``) over Starlette's TestClient: the lobby's checks, every
bad message of the WebSocket protocol (an error for that client, nothing changed),
reconnecting to a seat, a seat handed to an agent, a restart that keeps matches and
decisions, the export read as replays and as a behaviour-cloning data set, the replay
viewer's frames, and the no-leak check: every message every client receives over whole
matches, against what its seat may see."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from click.testing import CliRunner  # noqa: E402
from records import gin_match_from_deck, rummy_match_from_deck  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from gin_cli.main import cli  # noqa: E402
from gin_env import actions as A  # noqa: E402
from gin_env import games  # noqa: E402
from gin_env import record as replay_files  # noqa: E402
from gin_env import rummy_actions as R  # noqa: E402
from gin_env.cards import card_str, from_mask  # noqa: E402
from gin_env.match import CAPTAIN  # noqa: E402
from gin_web import tables  # noqa: E402
from gin_web.app import MAX_MESSAGE, Limits, Server, create_app  # noqa: E402
from gin_web.store import Store, export  # noqa: E402

CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")
#: The name Starlette's TestClient sends as Host: the app is told it answers to it.
HOSTS = ("testserver",)
#: These tests' clients play as fast as the machine goes: more than the 20 messages a second
#: a socket may send a server left at its limits, and more moves, requests, lists and tables
#: than an address may make (tests/test_web_attacks.py holds those).
FAST = Limits(messages_burst=1e6, messages_per_second=1e6, moves_burst=1e6, lists_burst=1e6,
              requests_burst=1e6, all_tables_burst=1e6, all_sockets_burst=1e6)  # fmt: skip
CARD_ID = {card_str(c): c for c in range(52)}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "data", HOSTS, FAST)) as c:
        yield c


def server_of(client: TestClient) -> Any:
    return client.app.state.server  # type: ignore[attr-defined]


def new_table(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def full_frames(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A replay's frames with what each leaves out filled in (as the page does): the sheet
    when unchanged, the log lines before ``log_add``."""
    out: list[dict[str, Any]] = []
    for f in frames:
        f = dict(f)
        if out and "sheet" not in f:
            f["sheet"] = out[-1]["sheet"]
        if "log_add" in f:
            f["log"] = out[-1]["log"] + f.pop("log_add")
        out.append(f)
    return out


def link(path: str) -> str:
    return "/ws/" + path.rsplit("/", 1)[1]


def state(ws: Any) -> dict[str, Any]:
    """The next state message (errors and others are returned too: the caller checks)."""
    return ws.receive_json()  # type: ignore[no-any-return]


def policy(view: dict[str, Any], rng: np.random.Generator) -> int:
    """A quick player from the page's view: knock or meld when it can, else throw the highest
    deadwood card, else a random legal move (hands end by knocks, not only by the stock)."""
    legal = view["legal"]
    for kind in ("big-gin", "knock", "meld", "lay-off"):
        found = [m for m in legal if m["kind"] == kind]
        if found:
            return int(found[0]["id"])
    discards = {m["card"]: m["id"] for m in legal if m["kind"] == "discard"}
    mine = [s for s in view["hand"]["seats"] if s.get("cards")]
    if discards and mine:
        order = "A23456789TJQK"
        dead = [c for c in mine[0]["cards"]["deadwood_cards"] if c in discards]
        if dead:
            return int(discards[max(dead, key=lambda c: order.index(c[0]))])
    return int(rng.choice([m["id"] for m in legal]))


# -- the lobby ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"game": "chess"}, "game must be one of three, gin, rummy"),
        ({"game": "gin", "options": {"reward": "match"}}, "unknown option(s) 'reward'"),
        ({"game": "gin", "options": {"knock_limit": 11}}, "knock_limit must be an int in 0..10"),
        ({"game": "three", "options": {"adviser": "whisper"}}, "adviser must be one of"),
        ({"game": "rummy", "options": {"num_players": 7}}, "num_players"),
        ({"game": "gin", "seats": ["human"]}, "seats must list 2 entries"),
        ({"game": "gin", "seats": ["human", "wizard"]}, "seat 1: unknown agent 'wizard'"),
        # A client never names a file, a remote model or a costly search for the server.
        ({"game": "gin", "seats": ["human", "/etc/passwd"]}, "seat 1: unknown agent '/etc/"),
        (
            {"game": "gin", "seats": ["llm:base_url='http://127.0.0.1:9',model='m'", "human"]},
            "seat 0: unknown agent",
        ),  # fmt: skip
        ({"game": "gin", "seats": ["human", "search:budget=600"]}, "a client may seat: "),
        ({"game": "gin", "seats": ["human", "llm"]}, "'llm' is not seated for clients"),
        ({"game": "gin", "hint_agent": "search"}, "hint_agent: agent 'search' is not seated"),
        ({"game": "rummy", "seats": ["human", "heuristic"]}, "agents for rummy_v0"),
        ({"game": "gin", "delay": -1}, "delay must be a number of seconds"),
        ({"game": "gin", "takeover": 0}, "takeover must be None or a positive number"),
        ({"game": "gin", "colour": "red"}, "unknown field(s) colour"),
        ({"game": "gin", "options": [1]}, "options is an object"),
    ],
)
def test_the_lobby_checks_every_choice(client: TestClient, body: dict, message: str) -> None:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400
    assert message in r.json()["error"]
    assert not server_of(client).tables


def test_the_lobby_refuses_bodies_that_are_not_json_or_too_large(client: TestClient) -> None:
    assert "not JSON" in client.post("/api/tables", content=b"{nope").json()["error"]
    big = json.dumps({"game": "gin", "seats": ["human", "x" * 20_000]})
    assert "too large" in client.post("/api/tables", content=big).json()["error"]


def test_another_sites_page_can_neither_start_tables_nor_play(client: TestClient) -> None:
    evil = {"Origin": "http://evil.example"}
    r = client.post("/api/tables", json={"game": "gin"}, headers=evil)
    assert r.status_code == 403 and not server_of(client).tables
    assert client.post("/api/replay", json={}, headers=evil).status_code == 403
    same = {"Origin": "http://testserver"}  # the page the app serves itself
    out = client.post("/api/tables", json={"game": "gin"}, headers=same).json()
    with client.websocket_connect(link(out["seats"]["player_0"]), headers=evil) as ws:
        assert ws.receive_json()["message"] == "cross-site connection"
    with client.websocket_connect(link(out["seats"]["player_0"]), headers=same) as ws:
        assert ws.receive_json()["type"] == "state"


def test_the_games_page_lists_options_and_agents(client: TestClient) -> None:
    info = client.get("/api/games").json()
    assert info["three"]["options"]["adviser_sees_hand"] is True
    assert info["gin"]["options"]["knock_limit"] == 10
    assert info["rummy"]["default_agent"] == "rummy-simple"
    assert "heuristic" in info["gin"]["agents"] and "heuristic" not in info["rummy"]["agents"]
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200


def test_each_person_gets_an_unguessable_link_of_his_own(client: TestClient) -> None:
    out = new_table(client, game="three", seats=["human", "human", "heuristic"])
    tokens = [p.rsplit("/", 1)[1] for p in (*out["seats"].values(), out["spectator"])]
    assert len(set(tokens)) == 3 and all(len(t) >= 24 for t in tokens)
    with client.websocket_connect("/ws/not-a-link") as ws:
        assert ws.receive_json() == {"type": "error", "message": "unknown link"}


# -- the protocol: every bad message ---------------------------------------------------------
def _snapshot(table: Any) -> tuple[int, bytes, list]:
    return table.step_count, table.env.state().tobytes(), list(table.table_state.scores)


def _bad_messages(view: dict[str, Any], table: Any) -> list[tuple[Any, str]]:
    legal = {m["id"] for m in view["legal"]}
    illegal = next(a for a in range(109) if a not in legal)
    ok = min(legal)
    return [
        (b"\x00\x01", "binary frames are not accepted"),
        ("x" * (MAX_MESSAGE + 1), "message too large"),
        ("{not json", "not JSON"),
        ("[1, 2]", "a message is a JSON object, got list"),
        ('"move"', "a message is a JSON object, got str"),
        ({"type": "fly"}, "unknown message type 'fly'"),
        ({"action": ok}, "unknown message type None"),
        ({"type": "move"}, "a move needs an action id"),
        ({"type": "move", "action": str(ok)}, "action must be an integer action id"),
        ({"type": "move", "action": float(ok)}, "action must be an integer action id"),
        ({"type": "move", "action": True}, "action must be an integer action id"),
        ({"type": "move", "action": None}, "action must be an integer action id"),
        ({"type": "move", "action": 10**30}, "illegal move"),
        ({"type": "move", "action": -1}, "illegal move"),
        ({"type": "move", "action": illegal}, "illegal move"),
        ({"type": "move", "action": ok, "player": 1 - view["you"]}, "unknown field(s) 'player'"),
        ({"type": "move", "action": ok, "seq": view["seq"] + 1}, "stale move"),
        ({"type": "move", "action": ok, "seq": "0"}, "seq must be the integer move number"),
        ({"type": "chat", "text": "hi"}, "team messages are for the captain and his adviser"),
        ({"type": "hint", "extra": 1}, "unknown field(s) 'extra'"),
    ]


def test_every_bad_message_gets_an_error_and_changes_nothing(client: TestClient) -> None:
    out = new_table(client, game="gin", seats=["human", "human"])
    table = next(iter(server_of(client).tables.values()))
    first = table.to_act
    other = 1 - first
    names = [f"player_{p}" for p in range(2)]
    with client.websocket_connect(link(out["seats"][names[first]])) as me:
        view = state(me)
        with client.websocket_connect(link(out["seats"][names[other]])) as them:
            state(me)
            idle = state(them)
            with client.websocket_connect(link(out["spectator"])) as spectator:
                state(me), state(them)
                seen = state(spectator)
                before = _snapshot(table)
                for payload, message in _bad_messages(view, table):
                    if isinstance(payload, bytes):
                        me.send_bytes(payload)
                    elif isinstance(payload, str):
                        me.send_text(payload)
                    else:
                        me.send_json(payload)
                    reply = me.receive_json()
                    assert reply["type"] == "error", payload
                    assert message in reply["message"], (payload, reply)
                    assert _snapshot(table) == before, payload
                # Out of turn, and a spectator's move: refused, nothing changes.
                them.send_json({"type": "move", "action": view["legal"][0]["id"]})
                assert "not your turn" in them.receive_json()["message"]
                them.send_json({"type": "hint"})
                assert "not your turn" in them.receive_json()["message"]
                spectator.send_json({"type": "move", "action": view["legal"][0]["id"]})
                assert "spectator cannot send move" in spectator.receive_json()["message"]
                assert _snapshot(table) == before
                assert idle["legal"] == [] and seen["legal"] == []
                # The right move, then, is played and everyone hears of it once.
                me.send_json({"type": "hint"})
                hint = me.receive_json()
                assert hint["type"] == "hint" and hint["action"] in {m["id"] for m in view["legal"]}
                me.send_json({"type": "move", "action": hint["action"], "seq": view["seq"]})
                after = state(me)
                assert after["seq"] == view["seq"] + 1 and state(them)["seq"] == after["seq"]
                assert state(spectator)["seq"] == after["seq"]
                me.send_json({"type": "ping"})
                assert me.receive_json() == {"type": "pong", "seq": after["seq"]}


def test_team_messages_reach_the_captain_and_adviser_only(client: TestClient) -> None:
    out = new_table(client, game="three", seats=["human", "human", "human"])
    table = next(iter(server_of(client).tables.values()))
    seat = {table.role(p): p for p in range(3)}  # the roles of the hand on the table
    captain, adviser, box = seat["captain"], seat["adviser"], seat["box"]
    socks = {}
    with (
        client.websocket_connect(link(out["seats"]["player_0"])) as s0,
        client.websocket_connect(link(out["seats"]["player_1"])) as s1,
        client.websocket_connect(link(out["seats"]["player_2"])) as s2,
    ):
        socks = {0: s0, 1: s1, 2: s2}
        for p, ws in socks.items():
            for _ in range(3 - p):
                assert state(ws)["type"] == "state"
        socks[captain].send_json({"type": "chat", "text": "take it"})
        for p in (captain, adviser):
            assert socks[p].receive_json() == {
                "type": "chat", "from": f"player_{captain}", "text": "take it"}  # fmt: skip
        socks[box].send_json({"type": "chat", "text": "hello"})
        assert "team messages" in socks[box].receive_json()["message"]
        socks[adviser].send_json({"type": "chat", "text": "y" * 501})
        assert "1..500 characters" in socks[adviser].receive_json()["message"]


# -- reconnect, takeover, restart --------------------------------------------------------------
def test_a_person_who_reconnects_gets_the_same_seat(client: TestClient) -> None:
    out = new_table(client, game="gin", seats=["heuristic", "human"])
    path = link(out["seats"]["player_1"])
    rng = np.random.default_rng(0)
    with client.websocket_connect(path) as ws:
        view = state(ws)
        while view["to_act"] != 1:  # (the agent's first move, thought in a worker)
            view = state(ws)
        assert view["you"] == 1
        ws.send_json({"type": "move", "action": policy(view, rng), "seq": view["seq"]})
        view = state(ws)
    table = next(iter(server_of(client).tables.values()))
    assert table.seats[1].connections == 0
    with client.websocket_connect(path) as ws:
        again = state(ws)
        assert again["you"] == 1 and again["seq"] == view["seq"]
        assert again["hand"]["seats"] == view["hand"]["seats"]
        assert table.seats[1].connections == 1
        ws.send_json({"type": "move", "action": policy(again, rng), "seq": again["seq"]})
        assert state(ws)["seq"] > again["seq"]


def test_a_seat_left_empty_past_the_timeout_is_played_by_an_agent(client: TestClient) -> None:
    out = new_table(client, game="gin", seats=["human", "heuristic"], takeover=0.2,
                    options={"target_score": 10})  # fmt: skip
    table = next(iter(server_of(client).tables.values()))
    path = link(out["seats"]["player_0"])
    with client.websocket_connect(path) as ws:
        view = state(ws)
        while view["to_act"] != 0:
            view = state(ws)
    start = table.step_count
    deadline = time.monotonic() + 20
    while not table.over and time.monotonic() < deadline:
        time.sleep(0.05)
    assert table.over and table.step_count > start and table.seats[0].stand_in
    with client.websocket_connect(path) as ws:
        assert state(ws)["over"] is True
        assert not table.seats[0].stand_in  # the person is back


def _play_match(client: TestClient, out: dict[str, Any], seat: str, seed: int = 0) -> int:
    """Play a person's seat to the match's end; return the number of moves he made."""
    rng = np.random.default_rng(seed)
    moves = 0
    with client.websocket_connect(link(out["seats"][seat])) as ws:
        while True:
            view = state(ws)
            assert view["type"] == "state", view
            if view["over"]:
                return moves
            if view["legal"]:
                ws.send_json({"type": "move", "action": policy(view, rng), "seq": view["seq"]})
                moves += 1


def test_a_restart_loses_no_match_and_no_decision(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        out = new_table(c, game="three", seats=["human", "heuristic", "heuristic"],
                        options={"target_score": 25})  # fmt: skip
        moves = _play_match(c, out, "player_0")
        out2 = new_table(c, game="rummy", seats=["human", "rummy-simple"],
                         options={"target_score": 20})  # fmt: skip
        moves2 = _play_match(c, out2, "player_0", seed=1)
    # A new server on the same data directory: the matches and decisions are there.
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        listed = c.get("/api/matches").json()
        assert {m["id"] for m in listed} == {out["table"], out2["table"]}
        record = c.get(f"/api/matches/{out['table']}").json()
        replay_files.check(record)
        env = replay_files.replay_env(record)  # the record reproduces the match
        assert env.match.is_over and record["agents"]["player_0"] == "human"
    store = Store(data)
    rows = store.decisions()
    assert len([r for r in rows if r["game"] == "three_handed_gin_v0"]) == moves > 0
    assert len([r for r in rows if r["game"] == "rummy_v0"]) == moves2 > 0
    assert all(r["seconds"] >= 0 for r in rows)
    # The export: replay files and the decision data set the BC trainer reads.
    runner = CliRunner()
    result = runner.invoke(cli, ["serve", "--data-dir", str(data), "--export",
                                 str(tmp_path / "out")])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "wrote 2 matches" in result.output
    saved = replay_files.load(tmp_path / "out" / "matches" / f"{out['table']}.json")
    assert saved == record
    npz = np.load(tmp_path / "out" / "decisions_three_handed_gin_v0.npz")
    assert npz["obs"].shape == (moves, games.get("three_handed").observation_size())
    assert npz["obs"].dtype == np.float32 and npz["mask"].dtype == bool
    assert npz["action"].dtype == np.int64 and npz["return"].dtype == np.float32
    assert all(npz["mask"][i, a] for i, a in enumerate(npz["action"]))
    assert set(npz["role"]) <= {"box", "captain", "adviser"}
    # Each decision's return is its side's points of that hand, +-, from the record.
    hands = {h["index"]: h for h in record["hands"]}
    for r, h in zip(npz["return"], npz["hand"], strict=True):
        res = hands[int(h)]["result"]
        assert abs(r) == (0 if res is None or res["winner"] is None else res["points"])
    written = export(store, tmp_path / "again")
    assert written["decisions"]["rummy_v0_2p"]["decisions"] == moves2


def test_rummy_decisions_export_one_data_set_per_number_of_players(tmp_path: Path) -> None:
    store = Store(tmp_path / "data")
    for n in (2, 3):
        table = tables.new_table("rummy", {"num_players": n}, ["human"] * n, seed=n)
        table.on_decision = lambda d: store.add_decision("rummy_v0", d)
        for _ in range(5):
            table.move(table.to_act, table.hint(table.to_act))
    written = export(store, tmp_path / "out")["decisions"]
    assert {k: v["decisions"] for k, v in written.items()} == {"rummy_v0_2p": 5, "rummy_v0_3p": 5}
    size = games.get("rummy").observation_size(num_players=3)
    assert np.load(written["rummy_v0_3p"]["path"])["obs"].shape == (5, size)


def test_a_restart_deals_unfinished_tables_again_and_the_links_still_work(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    rng = np.random.default_rng(0)
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        out = new_table(c, game="gin", seats=["human", "heuristic"],
                        options={"target_score": 30})  # fmt: skip
        watch = new_table(c, game="three", seats=["heuristic"] * 3, seed=5, delay=0.03,
                          options={"target_score": 10})  # fmt: skip
        with c.websocket_connect(link(out["seats"]["player_0"])) as ws:
            view = state(ws)
            for _ in range(3):
                while not view["legal"]:
                    view = state(ws)
                ws.send_json({"type": "move", "action": policy(view, rng), "seq": view["seq"]})
                view = state(ws)
        before = view
    # A slow machine may let the agents finish before the first server stops: the store,
    # read once it has stopped, says what the second one will find unfinished.
    watch_done = watch["table"] not in {tid for tid, _, _ in Store(data).open_tables(10)}
    # The store keeps the links' keys, never a link that would open a seat.
    raw = (data / "gin_web.sqlite3").read_bytes()
    for path in (*out["seats"].values(), out["spectator"]):
        assert path.rsplit("/", 1)[1].encode() not in raw
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        server = server_of(c)
        assert server.restored == (1 if watch_done else 2)
        with c.websocket_connect(link(out["seats"]["player_0"])) as ws:
            again = state(ws)
            assert again["you"] == 0 and again["seq"] == before["seq"]
            assert again["hand"] == before["hand"] and again["log"] == before["log"]
        moves = _play_match(c, out, "player_0", seed=3)
        record = c.get(f"/api/matches/{out['table']}").json()
        assert replay_files.replay_env(record).match.is_over  # one match across two servers
        deadline = time.monotonic() + 60  # the agents' table plays on by itself
        while watch["table"] not in {m["id"] for m in c.get("/api/matches").json()}:
            assert time.monotonic() < deadline, "the restored agents' table did not finish"
            time.sleep(0.1)
    decisions = Store(data).decisions()
    assert len(decisions) == 3 + moves


def test_after_a_restart_an_empty_seat_is_still_handed_to_an_agent(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        out = new_table(c, game="gin", seats=["human", "heuristic"], takeover=60,
                        options={"target_score": 10})  # fmt: skip
        with c.websocket_connect(link(out["seats"]["player_0"])) as ws:  # he came, and left
            state(ws)
    table_id = out["table"]
    store = Store(data)
    ((tid, config, _),) = store.open_tables(10)
    config["takeover"] = 0.2  # (as if the server had been down past the timeout)
    store.add_table(tid, config)
    store.close()  # (its writes are committed by then)
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        deadline = time.monotonic() + 30
        while table_id not in {m["id"] for m in c.get("/api/matches").json()}:
            assert time.monotonic() < deadline, "nobody took the empty seat"
            time.sleep(0.1)
        assert server_of(c).tables[table_id].seats[0].stand_in


def test_the_exported_decisions_have_the_teacher_data_layout(tmp_path: Path) -> None:
    """The data set's arrays are those :func:`collect_teacher_data` gives the BC trainer."""
    from training.behaviour_cloning import BCConfig, collect_teacher_data

    teacher = collect_teacher_data(BCConfig("heuristic", "three_handed", 0, 1, "obs", 1, 1e-3))
    data = Path(tmp_path / "data")
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        out = new_table(c, game="three", seats=["human", "heuristic", "heuristic"],
                        options={"target_score": 10})  # fmt: skip
        _play_match(c, out, "player_0")
    export(Store(data), tmp_path / "out")
    mine = np.load(tmp_path / "out" / "decisions_three_handed_gin_v0.npz")
    for key, value in teacher.items():
        assert mine[key].dtype == value.dtype and mine[key].shape[1:] == value.shape[1:], key


@pytest.mark.slow
def test_behaviour_cloning_fits_the_exported_decisions(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    import gin_env  # noqa: F401  (registers the Gymnasium ids)
    from gin_web.store import bc_arrays
    from training.behaviour_cloning import BCConfig, behaviour_cloning

    data = tmp_path / "data"
    moves = 0
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        # A person's table deals from the server's secret, so a match's length is not the
        # test's to fix: matches are played until there are over 20 decisions to clone.
        for match in range(10):
            out = new_table(c, game="three", seats=["human", "heuristic", "heuristic"],
                            options={"target_score": 60})  # fmt: skip
            moves += _play_match(c, out, "player_0", seed=match)
            if moves > 20:
                break
    written = export(Store(data), tmp_path / "out")
    arrays = bc_arrays(written["decisions"]["three_handed_gin_v0"]["path"])
    import gymnasium

    model = MaskablePPO("MlpPolicy", gymnasium.make("gin_env/ThreeHandedGin-v0"), n_steps=64,
                        policy_kwargs={"net_arch": [32]}, device="cpu")  # fmt: skip
    stats = behaviour_cloning(model, arrays, BCConfig("people", "three_handed", 0, 0, "obs", 3,
                                                      1e-3))  # fmt: skip
    assert stats["bc_samples"] == moves > 20 and 0.0 <= stats["bc_accuracy"] <= 1.0


# -- watching and replaying --------------------------------------------------------------------
def test_agent_tables_can_be_watched_face_up_and_only_they(client: TestClient) -> None:
    mixed = new_table(client, game="gin", seats=["human", "heuristic"])
    with client.websocket_connect(link(mixed["spectator"]) + "?open=1") as ws:
        assert "face up only at a table of agents" in ws.receive_json()["message"]
    # Watched at a chosen speed: a state after every agent move, every hand face up.
    out = new_table(client, game="three", seats=["heuristic"] * 3, seed=8, delay=0.01,
                    options={"target_score": 10})  # fmt: skip
    seen = []
    with client.websocket_connect(link(out["spectator"]) + "?open=1") as ws:
        view = state(ws)
        while not view["over"]:
            assert all("cards" in s for s in view["hand"]["seats"])
            seen.append(view["seq"])
            view = state(ws)
    assert len(seen) > 10 and seen == sorted(seen)
    assert out["table"] in {m["id"] for m in client.get("/api/matches").json()}


def test_a_replay_steps_through_every_move_face_up(client: TestClient) -> None:
    from gin_env import gin_v0

    env = gin_v0.raw_env(target_score=20)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while not env.match.is_over:
        env.step(int(rng.choice(env.legal_actions())))
    record = replay_files.match_record(3, {"target_score": 20}, env, {"player_0": "random"})
    r = client.post("/api/replay", json=record)
    assert r.status_code == 200, r.text
    frames = full_frames(r.json()["frames"])
    assert len(frames) == 1 + sum(len(h["actions"]) for h in record["hands"])
    assert all(all("cards" in s for s in f["hand"]["seats"]) for f in frames)
    assert frames[-1]["over"] and frames[-1]["scores"] == record["scores"]
    bad = dict(record, hands=[dict(record["hands"][0], deck=[99] * 52)])
    r = client.post("/api/replay", json=bad)
    assert r.status_code == 400 and "hands[0]" in r.json()["error"]
    r = client.post("/api/replay", content=b"\xff\xfe")
    assert r.status_code == 400 and "not JSON" in r.json()["error"]


def test_replays_of_evaluation_deals_open_with_the_deck_they_were_dealt(client: TestClient) -> None:
    # Duplicate evaluation deals a given deck at reset (the seed alone does not fix hand 1):
    # its gin and rummy records hold first_deck, and the page's replay deals it again.
    from gin_env import gin_v0

    deck = np.random.default_rng(5).permutation(52).tolist()
    _, record = gin_match_from_deck(gin_v0, {"target_score": 20}, 3, deck)
    r = client.post("/api/replay", json=record)
    assert r.status_code == 200, r.text
    frames = full_frames(r.json()["frames"])
    assert frames[-1]["over"] and frames[-1]["scores"] == record["scores"]

    _, data = rummy_match_from_deck({"num_players": 3, "max_turns": 60}, 8, deck)
    r = client.post("/api/replay", json=data)
    assert r.status_code == 200, r.text
    assert full_frames(r.json()["frames"])[-1]["scores"] == data["scores"]
    r = client.post("/api/replay", json={**data, "first_deck": [0] * 52})
    assert r.status_code == 400 and "first_deck" in r.json()["error"], r.text


def test_a_rummy_match_of_the_app_replays_and_a_forged_one_is_refused(client: TestClient) -> None:
    out = new_table(client, game="rummy", seats=["rummy-simple"] * 3, seed=4, delay=0.001,
                    options={"num_players": 3, "target_score": 30})  # fmt: skip
    with client.websocket_connect(link(out["spectator"])) as ws:
        view = state(ws)
        while not view["over"]:
            view = state(ws)
    record = client.get(f"/api/matches/{out['table']}").json()
    assert record["format"] == "gin-web-rummy-1" and len(record["moves"]) > 10
    r = client.post("/api/replay", json=record)
    assert r.status_code == 200, r.text
    frames = full_frames(r.json()["frames"])
    assert len(frames) == 1 + len(record["moves"])
    assert record["deal"] == "chosen seed" and record["seed"] == 4
    assert all(all("cards" in s for s in f["hand"]["seats"]) for f in frames)
    assert frames[-1]["over"] and frames[-1]["scores"] == record["scores"]
    player, action = record["moves"][5]
    forged = [
        (dict(record, scores=[999, 0, 0]), "the record says"),
        (dict(record, moves=[*record["moves"][:5], [player, 999]]), "move 5: action 999"),
        (dict(record, moves=[*record["moves"][:5], [(player + 1) % 3, action]]), "move 5 is by"),
        (dict(record, moves=[[0, 1.5]]), "move 0 must be [player, action]"),
        (dict(record, seed=-1), "seed must be an int"),
        (dict(record, options={"num_players": 9}), "num_players"),
        (dict(record, game="gin_v0"), "plays rummy_v0"),
    ]
    for bad, message in forged:
        r = client.post("/api/replay", json=bad)
        assert r.status_code == 400 and message in r.json()["error"], (message, r.text)


def test_serve_has_host_port_and_data_options() -> None:
    result = CliRunner().invoke(cli, ["serve", "--help"])
    assert result.exit_code == 0
    for word in ("--host", "127.0.0.1", "--port", "--data-dir", "--export"):
        assert word in result.output


# -- the no-leak check ------------------------------------------------------------------------
def _cards_in(obj: Any) -> set[int]:
    """Every card named anywhere in ``obj`` (its JSON text: keys and words are lower case)."""
    return {CARD_ID[c] for c in CARD.findall(json.dumps(obj))}


def _visible_gin(env: Any, player: int | None) -> set[int]:
    """What ``player`` (None: a spectator) may see of the hand on the table now: his cards
    (the adviser: the captain's, where the rules show them) and the discard pile."""
    match = env.match
    hand, rec = match.hand, match.record
    seen = set(hand.discard_pile)
    if player is None:
        return seen
    if player in rec.players:
        seen |= set(from_mask(hand.hands[rec.players.index(player)]))
    elif env.table_state.adviser_sees_hand:  # the captain of the hand on the table (its roles)
        captain = next(s for s, q in enumerate(rec.players) if rec.roles[q] == CAPTAIN)
        seen |= set(from_mask(hand.hands[captain]))
    return seen


def _visible_rummy(env: Any, player: int | None) -> set[int]:
    game = env.game
    seen = set(game.discard_pile) | set(from_mask(game.table_mask()))
    if player is not None:
        seen |= set(from_mask(game.hands[player]))
    return seen


def _allowed(record: dict[str, Any], players: int) -> dict[int, dict[Any, Any]]:
    """Per move number: each seat's (and the spectator's, key None) cards seen so far in the
    hand on the table, and the cards of the hands already shown down."""
    spec = games.get(record["game"])
    env = spec.make_env(**record["options"])
    env.reset(seed=record["seed"])
    if spec.family == "gin":
        moves = [tuple(m) for h in record["hands"] for m in h["actions"]]
    else:
        moves = [tuple(m) for m in record["moves"]]
    seats: list[int | None] = [*range(players), None]
    seen: dict[Any, set[int]] = {p: set() for p in seats}
    previous: dict[Any, set[int]] = {p: set() for p in seats}
    shown: set[int] = set()
    hand = -1
    out: dict[int, dict[Any, Any]] = {}
    for k in range(len(moves) + 1):
        now = env.match.record.index if spec.family == "gin" else env.game.hand_number
        if now != hand:  # a new hand: what was seen of the last one stays in the showdown
            previous = seen  # (and in the log of its moves, until the next hand's first move)
            if k:  # the move that ended the last hand was made face up (a knock, going out)
                ended = _move_cards(spec.family, int(moves[k - 1][1]))
                previous = {p: previous[p] | ended for p in seats}
            hand, seen = now, {p: set() for p in seats}
        for p in seats:
            seen[p] |= (_visible_gin if spec.family == "gin" else _visible_rummy)(env, p)
        if spec.family == "gin":
            for rec in env.match.history:
                if rec.result is not None:
                    shown |= set(from_mask(rec.result.final_hands[0] | rec.result.final_hands[1]))
        else:
            for res in env.game.results:
                for m in res.cards_left:
                    shown |= set(from_mask(m))
        out[k] = {p: set(seen[p]) for p in seats}
        out[k]["shown"] = set(shown)
        out[k]["previous"] = {p: set(previous[p]) for p in seats}
        if k < len(moves):
            env.step(int(moves[k][1]))
    return out


def _move_cards(family: str, action: int) -> set[int]:
    """The cards a move lays face up: a discard or a knock's discard (gin); rummy's discard,
    meld or lay-off."""
    if family == "gin":
        return {(action - A.DISCARD) % 52} if A.DISCARD <= action < A.BIG_GIN else set()
    kind, value = R.decode(action)
    if kind == "meld":
        return set(from_mask(value))
    return {value} if value >= 0 else set()


def _play_all_seats(client: TestClient, body: dict[str, Any], hands: int, seed: int) -> None:
    """Every seat a person (a client), plus a spectator; play ``hands`` hands or the match;
    record every message each client receives; check each one against its seat."""
    out = new_table(client, **body)
    table = server_of(client).tables[out["table"]]
    assert str(table.seed) not in json.dumps(out) and "seed" not in out
    n = len(out["seats"])
    paths = [link(out["seats"][f"player_{p}"]) for p in range(n)] + [link(out["spectator"])]
    who: list[int | None] = [*range(n), None]
    rng = np.random.default_rng(seed)
    got: dict[Any, list[dict[str, Any]]] = {p: [] for p in who}
    socks: list[Any] = []
    try:
        for i, path in enumerate(paths):
            socks.append(client.websocket_connect(path).__enter__())
            for j in range(i + 1):  # a connection is news to everyone connected
                got[who[j]].append(socks[j].receive_json())
        while True:
            last = got[who[0]][-1]
            if last["over"] or len(last["sheet"]) >= hands:
                break
            mover = last["to_act"]
            view = got[mover][-1]
            assert view["to_act"] == view["you"] == mover and view["legal"]
            socks[mover].send_json({"type": "move", "action": policy(view, rng),
                                    "seq": view["seq"]})  # fmt: skip
            for j, ws in enumerate(socks):
                got[who[j]].append(ws.receive_json())
                assert got[who[j]][-1]["type"] == "state", got[who[j]][-1]
    finally:
        for ws in reversed(socks):
            ws.__exit__(None, None, None)
    _check_no_leak(got, table, hands)


class _Socket:
    """A client's socket as :meth:`Server.handle` uses it, in the test's own event loop (the
    200-hand runs: the same server code, without a thread hop per message)."""

    def __init__(self, token: str) -> None:
        self.path_params = {"token": token}
        self.query_params: dict[str, str] = {}
        self.headers: dict[str, str] = {}
        self.client = None
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.got: list[dict[str, Any]] = []

    async def accept(self) -> None:
        return None

    async def send_text(self, text: str) -> None:
        self.got.append(json.loads(text))

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def close(self, code: int = 1000) -> None:
        return None


def _play_all_seats_in_loop(data: Path, body: dict[str, Any], hands: int, seed: int) -> int:
    """As :func:`_play_all_seats`, the clients' sockets in the server's event loop, whole
    matches one after another (to 100 points, a new table each) until ``hands`` hands are
    played; return the hands played."""
    server = Server(data, FAST)
    rng = np.random.default_rng(seed)

    async def one_match(k: int) -> int:
        options = {**body.get("options", {}), "target_score": 100}
        table = tables.new_table(body["game"], options, body["seats"])  # a secret deal
        out = server.add_table(table)
        assert str(table.seed) not in json.dumps(out)
        n = len(out["seats"])
        tokens = [out["seats"][f"player_{p}"] for p in range(n)] + [out["spectator"]]
        socks = [_Socket(t.rsplit("/", 1)[1]) for t in tokens]
        handlers: list[asyncio.Task[None]] = []

        async def until(done: Any) -> None:
            while not done():
                for h in handlers:  # a handler that failed: say why instead of waiting
                    if h.done():
                        h.result()
                        raise AssertionError("a connection closed")
                await asyncio.sleep(0)

        for i, sock in enumerate(socks):
            handlers.append(asyncio.create_task(server.handle(sock)))  # type: ignore[arg-type]
            # A connection is news to everyone connected.
            await until(lambda i=i: len(socks[0].got) >= i + 1)
        while not socks[0].got[-1]["over"]:
            mover = socks[0].got[-1]["to_act"]
            view = socks[mover].got[-1]
            assert view["to_act"] == view["you"] == mover and view["legal"]
            counts = [len(x.got) for x in socks]
            move = {"type": "move", "action": policy(view, rng), "seq": view["seq"]}
            await socks[mover].inbox.put({"type": "websocket.receive", "text": json.dumps(move)})
            await until(lambda c=counts: all(len(x.got) > n for x, n in zip(socks, c, strict=True)))
            assert all(x.got[-1]["type"] == "state" for x in socks)
        for sock in socks:
            await sock.inbox.put({"type": "websocket.disconnect"})
        await asyncio.gather(*handlers)
        got = {p: sock.got for p, sock in zip([*range(n), None], socks, strict=True)}
        _check_no_leak(got, table, 1)
        return len(socks[0].got[-1]["sheet"])

    async def run() -> int:
        played, k = 0, 0
        while played < hands:
            played += await one_match(k)
            k += 1
        return played

    return asyncio.run(run())


@pytest.mark.parametrize("game", ["gin", "three", "rummy"])
def test_one_move_reads_the_table_once_and_builds_one_view_per_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    """A person's move through the server's move path (its message on the socket, checked,
    recorded as a decision, played, then a state to every socket) reads the table's summary
    once, builds one view per seat sent (every player and a spectator), and asks for the
    legal moves twice: the summary's, and the view of the seat to act. Counted by wrapping
    the table in play's methods, not timed."""
    from gin_env.table_state import TableState

    calls = dict.fromkeys(("summary", "view", "legal_actions"), 0)

    def counted(name: str) -> Any:
        method = getattr(TableState, name)

        def wrapper(self: TableState, *args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return method(self, *args, **kwargs)

        return wrapper

    async def run() -> None:
        server = Server(tmp_path / "data", FAST)
        n = 3 if game == "three" else 2
        table = tables.new_table(game, {}, ["human"] * n)
        out = server.add_table(table)
        tokens = [out["seats"][f"player_{p}"] for p in range(n)] + [out["spectator"]]
        socks = [_Socket(t.rsplit("/", 1)[1]) for t in tokens]
        handlers: list[asyncio.Task[None]] = []

        async def until(done: Any) -> None:
            for _ in range(10_000):
                if done():
                    return
                await asyncio.sleep(0)
            raise AssertionError("the sockets did not get their states")

        for sock in socks:  # one after another, each with its first state
            handlers.append(asyncio.create_task(server.handle(sock)))  # type: ignore[arg-type]
            await until(lambda sock=sock: bool(sock.got))
        mover = table.to_act
        assert mover is not None
        view = socks[mover].got[-1]
        for name in calls:
            monkeypatch.setattr(TableState, name, counted(name))
        move = {"type": "move", "action": view["legal"][0]["id"], "seq": view["seq"]}
        await socks[mover].inbox.put({"type": "websocket.receive", "text": json.dumps(move)})
        await until(lambda: all(s.got[-1]["seq"] == 1 for s in socks))
        monkeypatch.undo()
        assert all(s.got[-1]["type"] == "state" for s in socks)
        assert calls == {"summary": 1, "view": len(socks), "legal_actions": 2}, calls
        for sock in socks:
            await sock.inbox.put({"type": "websocket.disconnect"})
        await asyncio.gather(*handlers)
        server.close()

    asyncio.run(run())


#: What the no-leak checks saw, for the slow test's report: messages, cards checked, leaks.
CHECKED = {"messages": 0, "cards": 0, "leaks": 0, "seed_leaks": 0}


def _check_no_leak(got: dict[Any, list[dict[str, Any]]], table: Any, hands: int) -> None:
    """Every message against its seat: the cards of the hand on the table only among those
    the seat saw by then, the showdown's only among the hands shown down; the box and the
    spectators never hear the adviser's suggestion; moves offered only on one's turn."""
    n = len(table.seats)
    record = table.record()
    allowed = _allowed(record, n)
    assert table.seed.bit_length() > 64 and record["deal"] == "secret"
    secrets = (str(table.seed), f"{table.seed:x}")  # the secret that fixes every deal
    three = table.game == "three_handed_gin_v0"
    for p, messages in got.items():
        for msg in messages:
            rules = allowed[msg["seq"]]
            table_part = {k: v for k, v in msg.items() if k not in ("showdown", "sheet", "log")}
            cards = _cards_in(table_part)
            leaked = cards - rules[p]
            CHECKED["messages"] += 1
            CHECKED["cards"] += len(cards)
            CHECKED["leaks"] += len(leaked)
            assert not leaked, (p, msg["seq"], leaked)
            # The log holds this hand's moves, or the last hand's until this one's first move.
            log_leak = _cards_in(msg["log"]) - rules[p] - rules["previous"][p]
            assert not log_leak, (p, msg["seq"], "log", log_leak)
            shown_leak = _cards_in(msg.get("showdown")) - rules["shown"]
            assert not shown_leak, (p, msg["seq"], shown_leak)
            assert msg["you"] == p and (msg["legal"] == [] or msg["to_act"] == p)
            text = json.dumps(msg)
            CHECKED["seed_leaks"] += any(x in text for x in secrets)
            assert not any(x in text for x in secrets), (p, msg["seq"], "the seed")
            if three and (p is None or msg["role"] == "box"):
                assert msg["suggestion"] is None
                if msg["log_hand"] == msg["hand"]["index"]:  # (the last hand's: maybe captain)
                    assert not any("suggests" in line for line in msg["log"])
    last = got[None][-1]
    assert last["over"] or len(last["sheet"]) >= hands


NO_LEAK_TABLES = [
    ("three, adviser sees the hand", {"game": "three", "options": {"target_score": 10_000}}),
    (
        "three, blind adviser",
        {"game": "three", "options": {"target_score": 10_000, "adviser_sees_hand": False}},
    ),
    ("gin", {"game": "gin", "options": {"target_score": 10_000}}),
    ("rummy, 3 players", {"game": "rummy", "options": {"num_players": 3, "target_score": 10_000}}),
]


def _seats(body: dict[str, Any]) -> list[str]:
    n = 3 if body["game"] == "three" else body.get("options", {}).get("num_players", 2)
    return ["human"] * n


@pytest.mark.parametrize(("name", "body"), NO_LEAK_TABLES, ids=[t[0] for t in NO_LEAK_TABLES])
def test_no_client_receives_a_card_its_seat_may_not_see(
    client: TestClient, name: str, body: dict
) -> None:
    _play_all_seats(client, {**body, "seats": _seats(body)}, hands=3, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "body"), NO_LEAK_TABLES, ids=[t[0] for t in NO_LEAK_TABLES])
def test_no_leak_over_200_hands(tmp_path: Path, name: str, body: dict) -> None:
    before = dict(CHECKED)
    played = _play_all_seats_in_loop(tmp_path, {**body, "seats": _seats(body)}, 200, 2)
    assert played >= 200
    seen = {k: CHECKED[k] - before[k] for k in CHECKED}
    print(
        f"no-leak, {name}: {played} hands, {seen['messages']} messages, {seen['cards']} cards "
        f"checked, {seen['leaks']} hidden cards leaked, {seen['seed_leaks']} seeds leaked"
    )


def test_the_moves_offered_are_the_envs_action_mask() -> None:
    for game, seats in (("three", ["human"] * 3), ("rummy", ["human"] * 2)):
        table = tables.new_table(game, {}, seats, seed=3)
        for _ in range(60):
            p = table.to_act
            mask = table.env.observe(table.names[p])["action_mask"]
            assert table.legal(p) == [int(a) for a in np.flatnonzero(mask)]
            for other in set(range(len(seats))) - {p}:
                assert table.legal(other) == []
            table.move(p, table.hint(p))


def test_hollywood_scoring_shows_the_three_games() -> None:
    table = tables.new_table("gin", {"hollywood": True, "target_score": 30}, ["human"] * 2, seed=4)
    while not table.over:
        p = table.to_act
        table.move(p, table.hint(p))
    view = table.view(0)
    assert len(view["games"]) == 3 and all(len(g) == 2 for g in view["games"])
    assert all(w in (0, 1) for w in view["game_winners"])  # all closed when the match ends


def test_a_client_that_reads_nothing_holds_up_nobody_and_piles_up_little() -> None:
    from gin_web.app import MAX_PENDING, Conn

    table = tables.new_table("gin", {}, ["human", "human"], seed=1)
    conn = Conn(ws=None, table=table, player=0)  # type: ignore[arg-type]
    for i in range(500):  # put() never waits: the table goes on whatever the client does
        conn.put({**table.view(0), "seq": i})
        conn.put({"type": "error", "message": f"e{i}"})
    states = [text for is_state, text in conn.outbox if is_state]
    assert len(states) == 1 and json.loads(states[0])["seq"] == 499  # only the latest
    assert len(conn.outbox) == MAX_PENDING + 1


def test_the_hint_is_a_legal_move_for_every_role() -> None:
    for sees in (True, False):
        table = tables.new_table("three", {"adviser_sees_hand": sees}, ["human"] * 3, seed=1)
        roles = set()
        for _ in range(120):
            p = table.to_act
            hint = table.hint(p)
            assert hint in table.legal(p), (table.role(p), hint)
            roles.add(table.role(p))
            table.move(p, hint)
        assert roles == {"box", "captain", "adviser"}


# -- finished tables, rematches, bad rows (issue 56) -------------------------------------------
def _finish(c: TestClient, table_id: str) -> dict[str, Any]:
    """Play a table of people to the match's end on the server's loop (as its people would,
    every move checked), its match saved; the final view."""
    server = server_of(c)
    table = server.tables[table_id]

    def play() -> None:
        while not table.over:
            p = table.to_act
            assert p is not None
            table.move(p, table.hint(p))
            server.after_change(table)

    c.portal.call(play)  # type: ignore[union-attr]
    return table.view(None)


def test_a_finished_tables_links_open_its_result_after_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        out = new_table(c, game="gin", seats=["human", "human"], options={"target_score": 10})
        final = _finish(c, out["table"])
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        assert out["table"] not in server_of(c).tables  # (finished: read back when opened)
        for seat, player in (("player_0", 0), ("player_1", 1)):
            with c.websocket_connect(link(out["seats"][seat])) as ws:
                view = state(ws)
            assert view["over"] and view["you"] == player and view["scores"] == final["scores"]
        with c.websocket_connect(link(out["spectator"])) as ws:
            assert state(ws)["over"]
        record = c.get(f"/api/matches/{out['table']}").json()
        assert replay_files.replay_env(record).match.is_over
        with c.websocket_connect(link("/t/not-a-link")) as ws:
            assert state(ws) == {"type": "error", "message": "unknown link"}


def test_one_rematch_per_table_each_person_his_own_seat_also_after_a_restart(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        out = new_table(c, game="gin", seats=["human", "human"], options={"target_score": 10})
        token = {seat: path.rsplit("/", 1)[1] for seat, path in out["seats"].items()}
        _finish(c, out["table"])
        with c.websocket_connect(link(out["seats"]["player_1"])) as watching:
            state(watching)
            first = c.post("/api/rematch", json={"link": token["player_0"]})
            assert first.status_code == 200, first.text
            a = first.json()
            # The person still at the table is given his own seat at the rematch, at once.
            view = state(watching)
            while view.get("type") != "state" or not view.get("rematch"):
                view = state(watching)
        b = c.post("/api/rematch", json={"link": token["player_1"]}).json()
        again = c.post("/api/rematch", json={"link": token["player_0"]}).json()
        assert a["table"] == b["table"] == again["table"]  # one rematch, whoever asks first
        assert view["rematch"] == b["seat"] and again["seat"] == a["seat"] != b["seat"]
        assert a["seats"] == {"player_0": a["seat"]} and b["seats"] == {"player_1": b["seat"]}
        assert a["spectator"] == b["spectator"] and "seed" not in a
        server = server_of(c)
        assert len(server.tables) == 2
        new = server.tables[a["table"]]
        assert new.seed != server.tables[out["table"]].seed and not new.seeded
        for path, player in ((a["seat"], 0), (b["seat"], 1)):
            with c.websocket_connect(link(path)) as ws:
                assert state(ws)["you"] == player
        bad = c.post("/api/rematch", json={"link": out["spectator"].rsplit("/", 1)[1]})
        assert bad.status_code == 400 and "from a seat's link" in bad.json()["error"]
        # A second finished table, whose rematch is first asked after a restart.
        other = new_table(c, game="gin", seats=["human", "human"], options={"target_score": 10})
        _finish(c, other["table"])
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        late = c.post("/api/rematch", json={"link": token["player_1"]}).json()
        assert late["table"] == a["table"] and late["seat"] == b["seat"]
        other_token = other["seats"]["player_0"].rsplit("/", 1)[1]
        made = c.post("/api/rematch", json={"link": other_token})
        assert made.status_code == 200, made.text
        assert made.json()["table"] not in (out["table"], other["table"], a["table"])


def test_rows_that_are_not_tables_are_skipped_with_their_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    data = tmp_path / "data"
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        ids = []
        for _ in range(5):
            out = new_table(c, game="gin", seats=["human", "human"])
            table = server_of(c).tables[out["table"]]

            def moves(table: Any = table) -> None:
                for _ in range(3):
                    p = table.to_act
                    table.move(p, table.hint(p))

            c.portal.call(moves)  # type: ignore[union-attr]
            ids.append(out["table"])
    db = sqlite3.connect(data / "gin_web.sqlite3")
    db.execute("UPDATE tables SET config = 'not json {' WHERE id = ?", (ids[0],))
    db.execute("UPDATE tables SET config = '[1, 2]' WHERE id = ?", (ids[1],))
    db.execute("UPDATE moves SET action = 'x' WHERE tbl = ? AND n = 1", (ids[2],))
    db.execute("DELETE FROM moves WHERE tbl = ? AND n = 0", (ids[3],))
    db.commit()
    db.close()
    capsys.readouterr()
    with TestClient(create_app(data, HOSTS, FAST)) as c:
        server = server_of(c)
        assert set(server.not_restored) == set(ids[:4]) and ids[4] in server.tables
        assert c.get("/api/games").status_code == 200
    said = capsys.readouterr().out
    for word in ("config is not JSON", "not a JSON object", "not two integers", "have a gap"):
        assert word in said, said
