"""The page in a real headless Chromium (Debian's ``chromium`` and ``chromedriver``, driven
by Selenium): a person plays a whole two-player hand, a whole three-handed hand as captain
with an agent adviser and one as the adviser of an agent captain, and a hand of basic
rummy, by clicking (and a few keys); a saved match is opened in the replay viewer and
stepped forward and back. Screenshots go to
``$GIN_WEB_SCREENSHOTS`` (default: the test's temporary directory). ``make test-browser``
runs these; they are skipped where the browser or Selenium is not installed."""

from __future__ import annotations

import json
import os
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from web_helpers import chromium, chromium_paths, live_server  # noqa: E402

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(chromium_paths() is None, reason="needs chromium and chromedriver"),
]


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("GIN_WEB_SCREENSHOTS", tmp_path / "shots"))
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    with live_server(tmp_path / "data") as (base, app):
        yield base, app


@pytest.fixture
def browser() -> Iterator[Any]:
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    headers = {"Content-Type": "application/json"}
    req = urllib.request.Request(url, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def wait(what: Callable[[], Any], timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            found = what()
        except Exception:  # the page is redrawing: try again
            found = None
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("timed out waiting on the page")


def seat_in_role(base: str, app: Any, role: str) -> dict[str, Any]:
    """A three-handed table (a person, two L2) where the person, player_0, holds ``role``
    in the first hand: roles are drawn from the table's secret deal, so tables are started
    until one draws it (each role a third of the time; at most 40 tries)."""
    for _ in range(40):
        body = {"game": "three", "seats": ["human", "heuristic", "heuristic"]}
        out = post(base + "/api/tables", body)
        if app.state.server.tables[out["table"]].role(0) == role:
            return out
    raise AssertionError(f"no table drew the person the {role}'s seat")


def status(driver: Any) -> dict[str, str]:
    s = driver.find_element(By.ID, "status")
    return {k: s.get_attribute(f"data-{k}") or "" for k in ("seq", "hands", "over", "mine")}


def click_a_move(driver: Any) -> None:
    """A person's turn by clicking: knock when offered, else a move button (draw, take,
    pass...), else the highest deadwood card (a card click discards)."""
    buttons = driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
    kinds = {b.get_attribute("data-kind"): b for b in buttons}
    for kind in ("knock", "big-gin", "meld", "lay-off"):
        if kind in kinds:
            kinds[kind].click()
            return
    cards = driver.find_elements(By.CSS_SELECTOR, "#table-area .group.deadwood button.playable")
    cards = cards or driver.find_elements(By.CSS_SELECTOR, "#table-area button.card.playable")
    if "draw" in kinds and "take" in kinds:
        # d: the keyboard's draw (keys work as well as clicks)
        driver.find_element(By.TAG_NAME, "body").send_keys("d")
        return
    if buttons and not cards:
        buttons[0].click()
        return
    cards[-1].click()


def play_one_hand(driver: Any, shots: Path, name: str) -> dict[str, Any]:
    """Click through the person's turns until the first hand is over; return what the page
    showed on the way."""
    seen: dict[str, Any] = {"moves": 0, "suggestions": set()}
    shot_mid = False
    while True:
        wait(lambda: status(driver)["seq"])
        st = status(driver)
        if int(st["hands"] or 0) >= 1 or st["over"] == "true":
            break
        if st["mine"] != "true":
            time.sleep(0.05)
            continue
        text = driver.find_element(By.ID, "suggestion").text
        if text:
            seen["suggestions"].add(text)
        if not shot_mid and seen["moves"] >= 2:
            driver.save_screenshot(str(shots / f"{name}_play.png"))
            shot_mid = True
        click_a_move(driver)
        seen["moves"] += 1
        wait(lambda st=st: status(driver)["seq"] != st["seq"] or
             driver.find_element(By.ID, "error").text)  # fmt: skip
        assert not driver.find_element(By.ID, "error").text
    panel = wait(lambda: driver.find_element(By.ID, "showdown-panel"))
    driver.execute_script("arguments[0].scrollIntoView()", panel)
    driver.save_screenshot(str(shots / f"{name}_showdown.png"))
    seen["showdown"] = panel.text
    seen["sheet"] = driver.find_element(By.ID, "sheet").text
    return seen


def test_a_person_plays_a_whole_two_player_hand(site: Any, browser: Any, shots: Path) -> None:
    base, app = site
    browser.get(base + "/")
    wait(lambda: browser.find_element(By.ID, "opt-knock_limit"))
    browser.find_element(By.CSS_SELECTOR, "#game option[value=gin]").click()
    wait(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#seats select")) == 2)
    browser.save_screenshot(str(shots / "lobby.png"))
    browser.find_element(By.ID, "start").click()
    link = wait(lambda: browser.find_element(By.CSS_SELECTOR, "a.seat-link"))
    browser.get(link.get_attribute("href"))
    seen = play_one_hand(browser, shots, "gin")
    assert seen["moves"] >= 2
    assert "scores" in seen["showdown"].lower() or "draw" in seen["showdown"].lower()
    server = app.state.server
    table = next(iter(server.tables.values()))
    assert len(table.env.match.history[0].actions) >= seen["moves"]
    assert server.store.decisions()  # every click a recorded decision


def test_a_person_captains_a_whole_three_handed_hand_with_an_agent_adviser(
    site: Any, browser: Any, shots: Path
) -> None:
    base, app = site
    out = seat_in_role(base, app, "captain")
    browser.get(base + out["seats"]["player_0"])
    wait(lambda: "captain" in browser.find_element(By.ID, "status").text)
    seen = play_one_hand(browser, shots, "three")
    assert seen["suggestions"], "the captain never saw the adviser's suggestion"
    assert all(s.startswith("Your adviser suggests:") for s in seen["suggestions"])
    table = app.state.server.tables[out["table"]]
    rec = table.env.match.history[0]
    assert rec.roles[0] == 1 and rec.result is not None  # captain, and the hand is over


def test_a_person_advises_an_agent_captain(site: Any, browser: Any, shots: Path) -> None:
    base, app = site
    out = seat_in_role(base, app, "adviser")
    browser.get(base + out["seats"]["player_0"])
    wait(lambda: "adviser" in browser.find_element(By.ID, "status").text)
    # The adviser sees the captain's hand (adviser_sees_hand) and suggests by clicking.
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#moves button.move"))
    assert "suggest:" in browser.find_element(By.ID, "moves").text
    seen = play_one_hand(browser, shots, "adviser")
    table = app.state.server.tables[out["table"]]
    rec = table.env.match.history[0]
    assert rec.roles[0] == 2 and rec.result is not None  # the adviser, and the hand is over
    suggested = [a for p, a in rec.actions if p == 0]
    assert len(suggested) == seen["moves"] > 0  # every click a suggestion to the captain


def test_a_person_plays_a_hand_of_basic_rummy(site: Any, browser: Any, shots: Path) -> None:
    base, app = site
    seats = ["human", "rummy-simple", "rummy-simple"]
    body = {"game": "rummy", "options": {"num_players": 3}, "seats": seats}
    out = post(base + "/api/tables", body)
    browser.get(base + out["seats"]["player_0"])
    seen = play_one_hand(browser, shots, "rummy")
    assert seen["moves"] >= 2 and "Hand 1" in seen["showdown"]
    table = next(iter(app.state.server.tables.values()))
    assert table.env.game.results  # the hand is over in the env too


def open_a_saved_match(driver: Any, base: str, tmp_path: Path) -> Any:
    """A three-handed match to 30 played at random (seed 4), saved, and opened in /replay
    at its first frame; its record."""
    from gin_env import three_handed_gin_v0
    from gin_env.record import save_match

    env = three_handed_gin_v0.raw_env(target_score=30)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    while not env.match.is_over:
        env.step(int(rng.choice(env.legal_actions())))
    path = tmp_path / "match.json"
    record = save_match(path, 4, {"target_score": 30}, env, {"player_0": "random"})
    driver.get(base + "/replay")
    driver.find_element(By.ID, "replay-file").send_keys(str(path))
    wait(lambda: driver.find_element(By.ID, "frame-no").get_attribute("data-frame") == "0")
    return record


def test_a_saved_match_is_opened_and_stepped(
    site: Any, browser: Any, shots: Path, tmp_path: Path
) -> None:
    base, _ = site
    record = open_a_saved_match(browser, base, tmp_path)
    for _ in range(12):
        browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "prev").click()
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert browser.find_element(By.ID, "frame-no").get_attribute("data-frame") == "12"
    # Every hand face up: each playing seat shows its cards.
    seats = browser.find_elements(By.CSS_SELECTOR, "#replay-table .seat[data-player]")
    assert len(seats) == 2 and all(s.find_elements(By.CSS_SELECTOR, "button.card") for s in seats)
    browser.save_screenshot(str(shots / "replay.png"))
    browser.find_element(By.ID, "last").click()
    total = sum(len(h["actions"]) for h in record["hands"])
    assert browser.find_element(By.ID, "frame-no").get_attribute("data-frame") == str(total)
    assert "Match over" in browser.find_element(By.ID, "replay-status").text
    assert not browser.find_element(By.ID, "download").get_attribute("hidden")


def test_a_rummy_match_of_the_app_is_replayed(site: Any, browser: Any, shots: Path) -> None:
    base, _ = site
    body = {"game": "rummy", "seed": 2, "options": {"num_players": 3, "target_score": 20},
            "seats": ["rummy-simple"] * 3}  # fmt: skip
    out = post(base + "/api/tables", body)

    def finished() -> bool:
        with urllib.request.urlopen(base + "/api/matches", timeout=10) as r:
            return out["table"] in {m["id"] for m in json.load(r)}

    wait(finished)
    browser.get(base + "/replay?match=" + out["table"])
    wait(lambda: browser.find_element(By.ID, "frame-no").get_attribute("data-frame") == "0")
    for _ in range(6):
        browser.find_element(By.ID, "next").click()
    assert browser.find_element(By.ID, "frame-no").get_attribute("data-frame") == "6"
    seats = browser.find_elements(By.CSS_SELECTOR, "#replay-table .seat[data-player]")
    assert len(seats) == 3 and all(s.find_elements(By.CSS_SELECTOR, "button.card") for s in seats)
    browser.save_screenshot(str(shots / "rummy_replay.png"))
    browser.find_element(By.ID, "last").click()
    assert "Match over" in browser.find_element(By.ID, "replay-status").text


# -- issue 40: a phone, presence, every point explained ------------------------------------------
def page_width(driver: Any) -> tuple[int, int]:
    return driver.execute_script(  # type: ignore[no-any-return]
        "return [document.documentElement.scrollWidth, window.innerWidth]"
    )


def test_a_hand_of_eleven_cards_fits_a_phone(site: Any, browser: Any, shots: Path) -> None:
    base, app = site
    browser.set_window_size(390, 844)
    browser.get(base + "/")
    wait(lambda: browser.find_element(By.ID, "opt-knock_limit"))
    width, inner = page_width(browser)
    browser.save_screenshot(str(shots / "phone_lobby.png"))
    assert width <= inner, f"the lobby is {width} px wide in a {inner} px window"
    out = post(base + "/api/tables", {"game": "gin", "seats": ["human", "heuristic"]})
    browser.get(base + out["seats"]["player_0"])
    # Play to the first time the person holds 11 cards (his discard).
    for _ in range(40):
        wait(lambda: status(browser)["mine"] == "true")
        cards = browser.find_elements(By.CSS_SELECTOR, "#table-area .seat.shown button.card")
        if len(cards) == 11:
            break
        st = status(browser)
        click_a_move(browser)
        wait(lambda st=st: status(browser)["seq"] != st["seq"])
    assert len(cards) == 11
    width, inner = page_width(browser)
    browser.save_screenshot(str(shots / "phone_play.png"))
    assert width <= inner, f"the table is {width} px wide in a {inner} px window"
    right = max(c.rect["x"] + c.rect["width"] for c in cards)
    assert right <= inner, f"a card ends at {right} px"


def test_a_seat_left_is_taken_over_and_the_stale_message_clears(
    site: Any, browser: Any, shots: Path
) -> None:
    base, app = site
    out = post(base + "/api/tables", {"game": "gin", "seats": ["human", "heuristic"],
                                      "takeover": 1})  # fmt: skip
    table = app.state.server.tables[out["table"]]
    seat = table.seats[0]
    browser.get(base + out["seats"]["player_0"])
    wait(lambda: seat.connections == 1)
    assert not seat.stand_in
    # Off to the lobby: the page is left (pagehide), the seat is away, an agent stands in.
    browser.get(base + "/")
    wait(lambda: seat.connections == 0)
    wait(lambda: seat.stand_in, timeout=10)
    # Back: the seat is the person's again.
    browser.back()
    wait(lambda: seat.connections == 1 and not seat.stand_in)
    wait(lambda: status(browser)["seq"])
    # A dropped socket says so, and says nothing more once it is back.
    browser.execute_script("socket.close()")
    wait(lambda: "reconnecting" in browser.find_element(By.ID, "connection").text)
    wait(lambda: browser.find_element(By.ID, "connection").text == "", timeout=10)
    wait(lambda: seat.connections == 1)
    browser.save_screenshot(str(shots / "back_at_the_table.png"))
    # A hidden page counts as away too (the page says so itself on visibilitychange).
    browser.execute_script("send({type: 'presence', here: false})")
    wait(lambda: seat.connections == 0)
    browser.execute_script("send({type: 'presence', here: true})")
    wait(lambda: seat.connections == 1)


def _spade_upcard_seed() -> int:
    """A seed whose first Oklahoma hand turns up a spade from 5 to 10 (agents knock)."""
    from gin_env import gin_v0

    for seed in range(200):
        env = gin_v0.raw_env(oklahoma=True)
        env.reset(seed=seed)
        up = env.match.hand.top_discard
        if up is not None and up // 13 == 0 and 4 <= up % 13 <= 9:
            return seed
    raise AssertionError("no spade upcard in 200 seeds")


def test_an_oklahoma_spade_hand_names_the_double(site: Any, browser: Any, shots: Path) -> None:
    base, app = site
    seed = _spade_upcard_seed()
    out = post(base + "/api/tables", {"game": "gin", "seats": ["heuristic"] * 2, "seed": seed,
                                      "delay": 0.2, "options": {"oklahoma": True}})  # fmt: skip
    browser.get(base + out["spectator"] + "?open=1")
    wait(lambda: "spade upcard" in browser.find_element(By.ID, "table-area").text)
    # The page redraws with every move: the panel's text is read in one script call.
    text = wait(lambda: browser.execute_script(
        "const p = document.querySelector(\"#showdown-panel[data-hand='0']\");"
        "if (p) p.scrollIntoView(); return p && p.innerText"), timeout=60)  # fmt: skip
    browser.save_screenshot(str(shots / "oklahoma_showdown.png"))
    table = app.state.server.tables[out["table"]]
    result = table.env.match.history[0].result
    if result.kind == "draw":
        pytest.skip("the spade hand was a draw")  # (an agents' hand that ran out of stock)
    assert "x 2 (spade double)" in text, text
    assert str(result.points) in text


def test_the_rummy_sheet_adds_up(site: Any, browser: Any, shots: Path) -> None:
    base, app = site
    out = post(base + "/api/tables", {"game": "rummy", "seats": ["rummy-simple"] * 3,
                                      "seed": 2, "options": {"num_players": 3,
                                                             "target_score": 60}})  # fmt: skip
    table = app.state.server.tables[out["table"]]
    wait(lambda: table.over, timeout=60)
    browser.get(base + out["spectator"])
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#sheet tr.sheet-row"))
    sheet = browser.find_element(By.ID, "sheet")
    browser.execute_script("arguments[0].scrollIntoView()", sheet)
    browser.save_screenshot(str(shots / "rummy_sheet.png"))
    rows = sheet.find_elements(By.CSS_SELECTOR, "tr.sheet-row")
    totals = [int(th.text) for th in sheet.find_elements(By.CSS_SELECTOR, "tr.total th")[1:4]]
    gained = [0, 0, 0]
    for row in rows:
        cells = row.find_elements(By.TAG_NAME, "td")[1:4]
        for p, cell in enumerate(cells):
            g = int(cell.get_attribute("data-gained"))
            gained[p] += g
            # the cell says it too: the gain, then the total after the hand
            assert cell.text.split("\n") == [f"+{g}" if g > 0 else str(g), f"total {gained[p]}"]
    assert gained == totals == [int(s) for s in table.env.game.scores], (gained, totals)


def test_the_rules_page_and_people_against_agents(site: Any, browser: Any, shots: Path) -> None:
    base, app = site
    browser.get(base + "/rules")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#rules-text h1, #rules-text h2"))
    assert "docs/RULES.md" in browser.find_element(By.ID, "rules-source").text
    browser.save_screenshot(str(shots / "rules.png"))
    browser.get(base + "/people")
    wait(lambda: "finished matches with a person" in browser.find_element(By.ID, "people").text)
    browser.save_screenshot(str(shots / "people.png"))


# -- issue 56: a person on a phone reads every point ----------------------------------------------
PHONE = (390, 844)


def phone(driver: Any) -> None:
    driver.set_window_size(*PHONE)
    inner = driver.execute_script("return window.innerWidth")
    assert inner <= PHONE[0], inner


def fits(driver: Any, shots: Path, name: str) -> None:
    """The page is no wider than the window (nothing scrolls sideways), and no element ends
    right of it; its screenshot, the whole page, goes to ``shots``."""
    # The width a page may take: the window's less its scroll bar (a phone's floats over it).
    width, inner = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    sticking_out = driver.execute_script(
        "const w = document.documentElement.clientWidth;"
        "return Array.from(document.querySelectorAll('body *'))"
        ".filter((e) => e.offsetParent !== null && e.getBoundingClientRect().right > w + 0.5"
        " && !e.closest('.scroll')).map((e) => e.tagName + '#' + e.id + '.' + e.className"
        " + ': ' + Math.round(e.getBoundingClientRect().right)).slice(0, 5)"
    )
    full_shot(driver, shots / f"{name}.png")
    assert width <= inner, f"{name}: the page is {width} px wide in a {inner} px window"
    assert not sticking_out, f"{name}: {sticking_out}"


def full_shot(driver: Any, path: Path) -> None:
    """A screenshot of the whole page, not only the window (Chromium's own capture)."""
    import base64

    size = driver.execute_script(  # (the capture lays the page out without a scroll bar)
        "return [Math.max(document.documentElement.scrollWidth, window.innerWidth),"
        " document.documentElement.scrollHeight]"
    )
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}})  # fmt: skip
    path.write_bytes(base64.b64decode(shot["data"]))


def finished_people_match(base: str, target: int = 15, seed: int = 0) -> dict[str, Any]:
    """A three-handed match (a person, two L2) played to its end, the person's seat over a
    WebSocket of its own (knock when offered, else any legal move)."""
    from websockets.sync.client import connect

    body = {"game": "three", "seats": ["human", "heuristic", "heuristic"],
            "options": {"target_score": target}}  # fmt: skip
    out = post(base + "/api/tables", body)
    rng = np.random.default_rng(seed)
    url = base.replace("http://", "ws://") + "/ws/" + out["seats"]["player_0"].rsplit("/", 1)[1]
    sent = -1
    with connect(url, max_size=2**22) as ws:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            view = json.loads(ws.recv(timeout=60))
            if view.get("type") != "state":
                continue
            if view["over"]:
                return out
            if view["to_act"] == view["you"] and view["legal"] and view["seq"] != sent:
                knocks = [m["id"] for m in view["legal"] if m["kind"] in ("knock", "big-gin")]
                action = knocks[0] if knocks else int(rng.choice([m["id"] for m in view["legal"]]))
                ws.send(json.dumps({"type": "move", "action": action, "seq": view["seq"]}))
                sent = view["seq"]
    raise AssertionError("the match did not end in 2 minutes")


def test_no_page_is_wider_than_a_phone(
    site: Any, browser: Any, shots: Path, tmp_path: Path
) -> None:
    base, app = site
    phone(browser)
    # The lobby after Start: the seat and spectator links wrap.
    browser.get(base + "/")
    wait(lambda: browser.find_element(By.ID, "opt-knock_limit"))
    fits(browser, shots, "phone_lobby")
    browser.find_element(By.ID, "start").click()
    wait(lambda: browser.find_element(By.ID, "spectator-link"))
    fits(browser, shots, "phone_lobby_started")
    # Play: a three-handed table, the person's page.
    link = browser.find_element(By.CSS_SELECTOR, "a.seat-link").get_attribute("href")
    browser.get(link)
    wait(lambda: status(browser)["seq"])
    fits(browser, shots, "phone_three_play")
    # Two whole matches with a person; the second's seat opened: its result and a rematch.
    finished_people_match(base, seed=0)
    out = finished_people_match(base, seed=1)
    # People against agents: every figure on a phone, matches counted once each.
    browser.get(base + "/people")
    three = ".people-row[data-game=three_handed_gin_v0]"
    row = wait(lambda: browser.find_element(By.CSS_SELECTOR, three))
    assert "L2 (heuristic)" in row.text and "matches 2," in row.text, row.text  # not 4 seats
    assert "points a hand" in row.text and any(r in row.text for r in ("box", "captain", "adviser"))
    fits(browser, shots, "phone_people")
    browser.get(base + out["seats"]["player_0"])
    wait(lambda: status(browser)["over"] == "true")
    result = browser.find_element(By.ID, "result")
    assert result.is_displayed() and browser.find_element(By.ID, "showdown-panel").is_displayed()
    assert not browser.find_element(By.ID, "next-hand").is_displayed()  # the match is over
    fits(browser, shots, "phone_match_over")
    browser.find_element(By.ID, "rematch").click()
    # Only the presser's own new seat: no other seat's link, no other person's (read in one
    # script call: the page redraws when the server tells the table of its rematch).
    links = wait(lambda: browser.execute_script(
        "const a = Array.from(document.querySelectorAll('#after-match a.seat-link'));"
        "return a.length && a.map((x) => [x.id, x.dataset.name, x.getAttribute('href'),"
        " x.textContent])"))  # fmt: skip
    assert len(links) == 1, links
    ((ident, name, href, text),) = links
    assert ident == "rematch-link" and name == "player_0" and href.startswith("/t/"), links
    assert text.startswith("Your seat at the rematch (player_0)"), text
    fits(browser, shots, "phone_rematch")
    # The replay of a saved match.
    open_a_saved_match(browser, base, tmp_path)
    for _ in range(30):
        browser.find_element(By.ID, "next").click()
    fits(browser, shots, "phone_replay")
    browser.find_element(By.ID, "last").click()
    fits(browser, shots, "phone_replay_end")
    # The rules, the full rules opened too.
    browser.get(base + "/rules")
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#rules-text h1, #rules-text h2"))
    fits(browser, shots, "phone_rules")
    browser.find_element(By.CSS_SELECTOR, "#rules-details summary").click()
    fits(browser, shots, "phone_rules_full")


def own_order(driver: Any) -> list[str]:
    return driver.execute_script(  # type: ignore[no-any-return]
        "return ownCards().map((b) => b.dataset.card)"
    )


def drag(driver: Any, kind: str, src: int, dst: int) -> None:
    """Press the hand's card ``src`` (its place from the left), move in steps onto card
    ``dst`` and let go, with a ``kind`` pointer (touch or mouse): W3C actions, which
    Chromium turns into touch and mouse events."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    (x0, y0), (x1, y1) = driver.execute_script(
        "return [arguments[0], arguments[1]].map((i) => { const r ="
        " ownCards()[i].getBoundingClientRect(); return [Math.round(r.left + r.width / 2),"
        " Math.round(r.top + r.height / 2)]; })", src, dst)  # fmt: skip
    pointer = PointerInput(interaction.POINTER_TOUCH if kind == "touch" else
                           interaction.POINTER_MOUSE, kind)  # fmt: skip
    actions = ActionBuilder(driver, mouse=pointer, duration=50)
    actions.pointer_action.move_to_location(x0, y0).pointer_down()
    for k in range(1, 6):
        actions.pointer_action.move_to_location(x0 + (x1 - x0) * k // 5, y0 + (y1 - y0) * k // 5)
    actions.pointer_action.pointer_up()
    actions.perform()


def test_a_touch_drag_and_a_mouse_drag_reorder_the_hand(
    site: Any, browser: Any, shots: Path
) -> None:
    base, app = site
    phone(browser)
    out = post(base + "/api/tables", {"game": "gin", "seats": ["human", "heuristic"]})
    table = app.state.server.tables[out["table"]]
    browser.get(base + out["seats"]["player_0"])
    # The person's turn: nothing changes on the table until he moves.
    wait(lambda: status(browser)["mine"] == "true" and len(own_order(browser)) >= 10)
    seq = status(browser)["seq"]
    moves = len(table.moves)
    browser.execute_script(  # which pointer each press was, as the page sees it
        "window.pressedWith = []; document.addEventListener('pointerdown',"
        " (e) => pressedWith.push(e.pointerType), true)"
    )
    for kind in ("touch", "mouse"):
        before = own_order(browser)
        drag(browser, kind, 0, 3)
        assert browser.execute_script("return pressedWith.at(-1)") == kind
        after = wait(lambda before=before: own_order(browser) != before and own_order(browser))
        # The first card now sits after the fourth; nothing else moved, nothing was played.
        assert after == before[1:4] + before[:1] + before[4:], (kind, before, after)
        assert len(table.moves) == moves and status(browser)["seq"] == seq
    full_shot(browser, shots / "phone_dragged.png")
    # Dragged back leftwards: before the card it is dropped on.
    before = own_order(browser)
    drag(browser, "touch", 5, 1)
    after = wait(lambda: own_order(browser) != before and own_order(browser))
    assert after == before[:1] + before[5:6] + before[1:5] + before[6:], (before, after)
    # A tap still plays: the hint names its agent as the docs do.
    wait(lambda: status(browser)["mine"] == "true")
    browser.find_element(By.TAG_NAME, "body").send_keys("h")
    hint = wait(lambda: browser.find_element(By.ID, "hint-text").text)
    assert hint.startswith("L2 (heuristic) would "), hint


def test_a_finished_hands_result_is_visible_without_scrolling(
    site: Any, browser: Any, shots: Path
) -> None:
    base, app = site
    phone(browser)
    out = seat_in_role(base, app, "captain")
    table = app.state.server.tables[out["table"]]
    browser.get(base + out["seats"]["player_0"])
    seen = play_one_hand(browser, shots, "phone_three")
    assert seen["moves"] >= 1
    # Where the page was when the hand ended (play_one_hand scrolls to it only for its shot).
    browser.execute_script("window.scrollTo(0, 0)")
    wait(lambda: browser.find_element(By.ID, "showdown-panel"))

    def in_view(ident: str) -> bool:  # (by id, in one call: the page redraws at every move)
        return browser.execute_script(  # type: ignore[no-any-return]
            "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0",
            ident,
        )

    seq = status(browser)["seq"]
    assert in_view("showdown-panel") and in_view("next-hand")
    full_shot(browser, shots / "phone_result.png")
    browser.save_screenshot(str(shots / "phone_result_window.png"))
    # The result is above the new hand and stays there while the next hand goes on.
    above = (
        "return $('result').getBoundingClientRect().bottom"
        " <= $('table-area').getBoundingClientRect().top"
    )
    assert browser.execute_script(above)
    time.sleep(1.0)  # the agents play on in the next hand, where it is theirs to play
    assert in_view("showdown-panel") and browser.execute_script(above), (seq, status(browser))
    rec = table.env.match.history[0]
    # The sheet says what the showdown says: its row's parts, under the row.
    panel, parts = browser.execute_script(
        "return [$('showdown-panel').innerText,"
        " document.querySelector(\"#sheet tr.sheet-parts[data-hand='0']\").innerText]"
    )
    if rec.result.kind != "draw":
        assert str(rec.result.points) in panel and str(rec.result.points) in parts
        row = table.view(0)["sheet"][0]
        assert row["explained"] in parts and row["explained"] in panel
    # Moving on: the button (Enter does too) takes it away; "last hand" brings it back.
    browser.find_element(By.ID, "next-hand").click()
    wait(lambda: not browser.find_element(By.ID, "result").is_displayed())
    browser.find_element(By.ID, "last-result").click()
    wait(lambda: browser.find_element(By.ID, "result").is_displayed())
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)
    wait(lambda: not browser.find_element(By.ID, "result").is_displayed())


def page_words(driver: Any, script: str, *args: Any) -> Any:
    """Run one of the page's own functions on /replay (the page's script, no table)."""
    return driver.execute_script(script, *args)


def test_moves_logs_and_agents_read_as_the_hand_and_the_docs_say(site: Any, browser: Any) -> None:
    base, _ = site
    browser.get(base + "/replay")
    wait(lambda: browser.find_element(By.ID, "replay-file"))
    knock = {"id": 56 + 35, "kind": "knock", "card": "TC", "label": "knock TC", "deadwood": 4}
    gin = {**knock, "deadwood": 0}
    words = "return moveWords(arguments[0])"
    assert page_words(browser, words, knock) == "knock, discarding 10\u2663 (deadwood 4)"
    assert page_words(browser, words, gin) == "gin, discarding 10\u2663"
    log = "return logWords(arguments[0])"
    discard = "player_0 (box) discards TD"
    assert page_words(browser, log, discard) == "player_0 (box) discards 10\u2666"
    assert page_words(browser, "return agentName('heuristic')") == "L2 (heuristic)"
    assert page_words(browser, "return agentName('rummy-simple')") == "rummy-simple"


def played_view(
    game: str, options: dict[str, Any], seats: list[str], seed: int, until: Callable[[Any], bool]
) -> dict[str, Any]:
    """A table of agents played here (no server) until ``until(table)``: its spectator's view."""
    from gin_web import tables

    table = tables.new_table(game, options, seats, seed=seed)
    while not table.over and not until(table):
        p = table.to_act
        table.move(p, table.hint(p))
    return table.view(None)  # type: ignore[no-any-return]


def test_a_gin_is_logged_as_a_gin(site: Any, browser: Any) -> None:
    base, _ = site
    for seed in range(200):
        view = played_view("gin", {}, ["heuristic"] * 2, seed,
                           lambda t: len(t.view(None)["sheet"]) >= 1)  # fmt: skip
        if view["showdown"] and view["showdown"]["kind"] == "gin":
            break
    else:
        pytest.skip("no gin in 200 deals")
    browser.get(base + "/replay")
    wait(lambda: browser.find_element(By.ID, "replay-log"))
    lines = browser.execute_script(
        "drawLog(arguments[0], $('replay-log'));"
        "return Array.from($('replay-log').children).map((li) => li.textContent)",
        view,
    )
    assert "goes gin, discarding" in lines[-1] and not any("knocks" in x for x in lines), lines


def test_hollywood_rows_show_each_games_running_total(site: Any, browser: Any, shots: Path) -> None:
    base, _ = site
    view = played_view("gin", {"hollywood": True}, ["heuristic"] * 2, 5, lambda t: False)
    assert view["over"] and view["games"]
    browser.get(base + "/replay")
    phone(browser)
    wait(lambda: browser.find_element(By.ID, "replay-sheet"))
    cells = browser.execute_script(
        "drawSheet(arguments[0], $('replay-sheet'));"
        "return Array.from(document.querySelectorAll('#replay-sheet tr.sheet-row')).map((tr) =>"
        " Array.from(tr.querySelectorAll('td[data-gained]')).map((td) => td.innerText))",
        view,
    )
    # The last row ends at the view's own three games, for each player.
    for p, cell in enumerate(cells[-1]):
        assert cell.endswith("games " + " / ".join(str(g[p]) for g in view["games"])), cell
    # Every row: a gain, then the games after it (never the latest game's total alone).
    games = [[0, 0] for _ in range(3)]
    wins = [0, 0]
    closed: list[int | None] = [None] * 3
    for row, shown in zip(view["sheet"], cells, strict=True):
        if row["winner"] is not None:
            wins[row["winner"]] += 1
            for g in [g for g in range(3) if closed[g] is None][: wins[row["winner"]]]:
                games[g][row["winner"]] += row["points"]
                if games[g][row["winner"]] >= view["target"]:
                    closed[g] = row["winner"]
        for p in range(2):
            assert shown[p].split("\n")[-1] == "games " + " / ".join(str(g[p]) for g in games)
    assert games == view["games"]
    browser.execute_script("$('replay').hidden = false")
    fits(browser, shots, "phone_hollywood_sheet")


def test_the_rummy_showdown_and_sheet_agree(site: Any, browser: Any, shots: Path) -> None:
    base, _ = site
    view = played_view("rummy", {"num_players": 3}, ["rummy-simple"] * 3, 3,
                       lambda t: len(t.view(None)["sheet"]) >= 1)  # fmt: skip
    sd = view["showdown"]
    assert sd and sd["winner"] is not None
    browser.get(base + "/replay")
    phone(browser)
    wait(lambda: browser.find_element(By.ID, "replay-sheet"))
    got = browser.execute_script(
        "$('replay').hidden = false;"
        "drawShowdown(arguments[0], $('replay-showdown'));"
        "drawSheet(arguments[0], $('replay-sheet'));"
        "return [Array.from(document.querySelectorAll('#replay-showdown .left-line'))"
        ".map((d) => d.textContent),"
        " Array.from(document.querySelectorAll('#replay-sheet tr.sheet-row td[data-gained]')).map("
        "(td) => td.dataset.gained), $('replay-sheet').innerText]",
        view,
    )
    lines, gains, sheet = got
    for p, line in enumerate(lines):
        g = int(gains[p])
        assert g == sd["scored"][p]
        # The same gain on both: the showdown's line starts with it ("player_1 0 (pays 13 ...").
        assert line.startswith(f"player_{p} {'+' if g > 0 else ''}{g}"), (line, g)
        if p != sd["winner"]:
            assert f"pays {-sd['paid'][p]}" in line and f"player_{p} pays {-sd['paid'][p]}" in sheet
    fits(browser, shots, "phone_rummy_result")
