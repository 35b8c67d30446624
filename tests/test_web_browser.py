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


def test_a_saved_match_is_opened_and_stepped(
    site: Any, browser: Any, shots: Path, tmp_path: Path
) -> None:
    from gin_env import three_handed_gin_v0
    from gin_env.record import save_match

    base, _ = site
    env = three_handed_gin_v0.raw_env(target_score=30)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    while not env.match.is_over:
        env.step(int(rng.choice(env.legal_actions())))
    path = tmp_path / "match.json"
    record = save_match(path, 4, {"target_score": 30}, env, {"player_0": "random"})
    browser.get(base + "/replay")
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    wait(lambda: browser.find_element(By.ID, "frame-no").get_attribute("data-frame") == "0")
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
            gained[p] += int(cell.text.split(" = ")[0].replace("+", "") or 0)
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
