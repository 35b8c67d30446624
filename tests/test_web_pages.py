"""The web app's pages of issue 40 over Starlette's TestClient: named tables and a line of
help for every option, the rules page, people against agents (with 95% intervals, as the
evaluation's JSON), the rematch, presence (a hidden page is away; the takeover clock runs for
a seat nobody opened), knock moves that say the deadwood they leave, and the secret deal of a
rematch."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from gin_env.melds import deadwood_mask  # noqa: E402
from gin_web import tables  # noqa: E402
from gin_web.app import OPTION_HELP, Limits, create_app  # noqa: E402

HOSTS = ("testserver",)
FAST = Limits(messages_burst=1e6, messages_per_second=1e6)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "data", HOSTS, FAST)) as c:
        yield c


def server_of(client: TestClient) -> Any:
    return client.app.state.server  # type: ignore[attr-defined]


def link(path: str) -> str:
    return "/ws/" + path.rsplit("/", 1)[1]


def new_table(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def quick(view: dict[str, Any], rng: np.random.Generator) -> int:
    legal = view["legal"]
    for kind in ("knock", "big-gin", "meld", "lay-off"):
        found = [m["id"] for m in legal if m["kind"] == kind]
        if found:
            return int(found[0])
    return int(rng.choice([m["id"] for m in legal]))


def play_to_the_end(client: TestClient, path: str, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    with client.websocket_connect(link(path)) as ws:
        while True:
            view = ws.receive_json()
            if view["type"] != "state":
                continue
            if view["over"]:
                return view  # type: ignore[no-any-return]
            if view["legal"]:
                ws.send_json({"type": "move", "action": quick(view, rng), "seq": view["seq"]})


def test_every_option_has_help_and_the_named_tables_are_legal_tables(client: TestClient) -> None:
    info = client.get("/api/games").json()
    for game, spec in info.items():
        for name in spec["options"]:
            assert spec["help"][name] and spec["help"][name] == OPTION_HELP[name], (game, name)
        for table_name, changes in spec["tables"].items():
            assert set(changes) <= set(spec["options"]), (game, table_name)
            new_table(client, game=game, seats=["heuristic" if game != "rummy" else
                      "rummy-simple"] * (spec["players"] or 2), options=changes)  # fmt: skip
    assert set(info["gin"]["tables"]) == {"default", "eaai", "openspiel", "oklahoma", "hollywood"}
    assert info["gin"]["tables"]["eaai"]["undercut_bonus"] == 25
    assert info["three"]["tables"]["oklahoma"] == {"oklahoma": True}


def test_the_rules_page_serves_the_projects_rules(client: TestClient) -> None:
    out = client.get("/api/rules").json()
    rules = Path(__file__).resolve().parents[1] / "docs" / "RULES.md"
    assert out["path"] == "docs/RULES.md" and out["text"] == rules.read_text("utf-8")
    page = client.get("/rules")
    assert page.status_code == 200 and "/static/app.js" in page.text


def test_people_against_agents_counts_matches_with_a_person(client: TestClient) -> None:
    empty = client.get("/api/people").json()
    assert empty["matches_with_people"] == 0 and empty["agents"] == []
    for _ in range(2):
        out = new_table(client, game="gin", seats=["human", "heuristic"],
                        options={"target_score": 20})  # fmt: skip
        play_to_the_end(client, out["seats"]["player_0"])
    agents_only = new_table(client, game="gin", seats=["heuristic"] * 2, seed=1,
                            options={"target_score": 20})  # fmt: skip
    deadline = time.monotonic() + 60
    while not server_of(client).tables[agents_only["table"]].over:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    result = client.get("/api/people").json()
    assert result["matches_with_people"] == 2  # the agents' own match is not counted
    (row,) = result["agents"]
    assert row["agent"] == "heuristic" and row["game"] == "gin_v0" and row["matches"] == 2
    low, high = row["win_rate_ci95"]
    assert 0 <= low <= row["win_rate"] <= high <= 1
    roles = {r["role"]: r for r in row["roles"]}
    assert set(roles) <= {"dealer", "non-dealer"} and roles
    for r in roles.values():
        lo, hi = r["points_per_hand_ci95"]
        assert lo <= r["points_per_hand"] <= hi and r["hands"] >= 1
    download = client.get("/api/people?download=1")
    data = json.loads(download.text)
    assert "attachment" in download.headers["content-disposition"]
    assert data["agents"] == result["agents"] and "commit" in data["provenance"]


def test_people_counts_a_match_once_however_many_seats_an_agent_held(client: TestClient) -> None:
    # Two three-handed matches, a person and two L2 seats each: two matches, not four seats.
    for k in range(2):
        out = new_table(client, game="three", seats=["human", "heuristic", "heuristic"],
                        options={"target_score": 15})  # fmt: skip
        play_to_the_end(client, out["seats"]["player_0"], seed=k)
    result = client.get("/api/people").json()
    assert result["matches_with_people"] == 2
    (row,) = result["agents"]
    assert row["agent"] == "heuristic" and row["game"] == "three_handed_gin_v0"
    assert row["matches"] == 2 and 0 <= row["matches_won"] <= 2
    assert row["win_rate"] == row["matches_won"] / 2
    roles = {r["role"]: r for r in row["roles"]}
    assert set(roles) <= {"box", "captain", "adviser"} and roles


def test_a_rematch_is_a_new_table_with_a_new_secret(client: TestClient) -> None:
    out = new_table(client, game="gin", seats=["human", "heuristic"],
                    options={"target_score": 15, "knock_limit": 7})  # fmt: skip
    token = out["seats"]["player_0"].rsplit("/", 1)[1]
    early = client.post("/api/rematch", json={"link": token})
    assert early.status_code == 400 and "not over yet" in early.json()["error"]
    final = play_to_the_end(client, out["seats"]["player_0"])
    assert final["over"]
    r = client.post("/api/rematch", json={"link": token})
    assert r.status_code == 200, r.text
    again = r.json()
    old, new = (server_of(client).tables[t] for t in (out["table"], again["table"]))
    assert new.options == old.options and [s.kind for s in new.seats] == ["human", "heuristic"]
    assert new.seed != old.seed and not new.seeded and "seed" not in again
    for body, word in (({"link": "nope"}, "unknown link"),
                       ({"link": out["spectator"].rsplit("/", 1)[1]}, "from a seat's link"),
                       ({"link": token, "x": 1}, '{"link": ')):  # fmt: skip
        bad = client.post("/api/rematch", json=body)
        assert bad.status_code == 400 and word in bad.json()["error"], body


def test_a_hidden_page_is_away_and_the_clock_runs_for_a_seat_never_opened(
    client: TestClient,
) -> None:
    out = new_table(client, game="gin", seats=["human", "heuristic"], takeover=0.3,
                    options={"target_score": 10})  # fmt: skip
    table = server_of(client).tables[out["table"]]
    deadline = time.monotonic() + 30  # nobody ever opens the link: an agent stands in
    while not table.seats[0].stand_in:
        assert time.monotonic() < deadline, "the clock never started for an unopened seat"
        time.sleep(0.05)
    with client.websocket_connect(link(out["seats"]["player_0"])) as ws:
        view = ws.receive_json()
        assert not table.seats[0].stand_in and table.seats[0].connections == 1
        ws.send_json({"type": "presence", "here": False})  # the page is hidden
        while view.get("type") != "state" or view["players"][0]["present"]:
            view = ws.receive_json()
        assert table.seats[0].connections == 0
        ws.send_json({"type": "presence", "here": True})
        while view.get("type") != "state" or not view["players"][0]["present"]:
            view = ws.receive_json()
        assert table.seats[0].connections == 1 and not table.seats[0].stand_in


def test_knock_moves_say_the_deadwood_they_leave() -> None:
    checked = 0
    for _ in range(30):
        table = tables.new_table("gin", {}, ["human", "human"])
        while not table.over and table.hand_index == 0:
            p = table.to_act
            view = table.view(p)
            hand = table.env.match.hand
            for m in view["legal"]:
                if m["kind"] == "knock":
                    card = m["id"] - 56
                    assert m["deadwood"] == deadwood_mask(hand.hands[hand.current] & ~(1 << card))
                    checked += 1
            table.move(p, table.hint(p))
        if checked >= 5:
            break
    assert checked >= 5
