"""Helpers of the web app's tests: a live server on a free loopback port (uvicorn in a
thread) and a headless Chromium (Selenium, Debian's chromium and chromedriver)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def live_server(
    data_dir: Path, limits: Any = None, publish: bool = False
) -> Iterator[tuple[str, Any]]:
    """``(base url, app)`` of the web app served by uvicorn on 127.0.0.1 in a thread, as
    ``gin-rummy serve`` serves it (:func:`gin_web.app.server_config`: its connections
    guarded; ``limits``: a :class:`gin_web.app.Limits`, default the server's)."""
    import uvicorn

    from gin_web.app import LOOPBACK_HOSTS, create_app, server_config

    app = create_app(data_dir, LOOPBACK_HOSTS, limits, publish)
    port = free_port()
    server = uvicorn.Server(server_config(app, "127.0.0.1", port, limits))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the web app did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def chromium_paths() -> tuple[str, str] | None:
    """(browser, driver) of the system's Chromium, or None when it is not installed."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        return None
    return browser, driver


def chromium() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    paths = chromium_paths()
    assert paths is not None
    options = webdriver.ChromeOptions()
    options.binary_location = paths[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,1400"):  # fmt: skip
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(paths[1]), options=options)
