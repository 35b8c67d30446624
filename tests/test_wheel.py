"""The package as users install it: the wheel built from this tree, installed (not editable)
into a fresh venv, and used from outside the clone.

The wheel holds exactly the four installed packages (no studies, tests or benchmarks), the
web app's page and every checkpoint ``agents.make`` loads by name; in the venv (torch 2.13.0
first, the CPU build, then the wheel with its ``train`` and ``web`` extras) every agent
``agents.make`` lists, trained ones included, plays a hand, each ``gin-rummy`` subcommand
runs in its smallest form, and ``gin-rummy serve`` serves its page.
Building and installing take minutes: ``make test-wheel`` runs this file alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"gin_env", "agents", "gin_eval", "training", "gin_cli", "gin_web"}
#: Not part of a build: virtual envs, caches, run outputs, build leftovers.
IGNORED = shutil.ignore_patterns(
    ".git", ".venv*", "runs", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "*.pyc"
)

pytestmark = pytest.mark.slow


def _clean_env() -> dict[str, str]:
    """This process's environment with nothing of the clone on the import path."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def _run(
    args: list[str], cwd: Path, check: bool = True, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    """A command run with :func:`_clean_env`; ``check``: it must succeed."""
    proc = subprocess.run(args, cwd=cwd, env=_clean_env(), capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if check:
        assert proc.returncode == 0, f"{args}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc  # type: ignore[no-any-return]


def _has_setuptools() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 77  # pyproject's build requirement


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of a copy of this tree (the build writes nothing into the clone)."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    shutil.copytree(ROOT, src, ignore=IGNORED)
    out = base / "dist"
    isolation = ["--no-build-isolation"] if _has_setuptools() else []
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-w", str(out), str(src)],
         cwd=base)  # fmt: skip
    (path,) = out.glob("gin_env-*.whl")
    return path


@pytest.fixture(scope="session")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed (not editable), its ``train`` and ``web`` extras
    included."""
    base = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", str(base / "venv")], cwd=base)
    python = base / "venv" / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q"]
    # torch first, pinned: the CPU build (an unpinned torch may pull a CUDA build).
    _run([*pip, "torch==2.13.0"], cwd=base)
    _run([*pip, f"{wheel}[train,web]"], cwd=base)
    return base / "venv" / "bin"


def test_the_wheel_holds_the_four_packages_and_every_checkpoint(wheel: Path) -> None:
    from agents import trained

    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == PACKAGES, top  # no studies, tests, benchmarks, docs or results
    for name in trained.available():
        files = [n for n in names if n.startswith(f"agents/checkpoints/{name}.")]
        assert any(n.endswith((".zip", ".npz")) for n in files), name
        assert f"agents/checkpoints/{name}.md" in files, name  # its model card
    for package in PACKAGES:
        assert f"{package}/py.typed" in names
    assert "gin_eval/data/hand_value.npz" in names  # the value behind --adjust value
    assert "gin_eval/duplicate.py" in names  # the evaluation package is library
    for page in ("index.html", "app.js", "style.css"):  # gin-rummy serve's page: no build step
        assert f"gin_web/static/{page}" in names


PLAY_EVERY_AGENT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import agents, gin_env
    from agents import trained
    from gin_env import games

    assert "site-packages" in agents.__file__ and "site-packages" in gin_env.__file__
    # Cheap options for the agents that think (their defaults spend a second a move).
    OPTIONS = {"search": "search:worlds=2,candidates=2"}
    GAMES = {"rummy-simple": "rummy_v0"}
    played = {}
    # The language model needs a model server (tests/test_llm.py starts a scripted one).
    for name in [n for n in agents.names() if n != "llm"] + trained.available():
        game = GAMES.get(name, "three_handed_gin_v0" if "three" in name else "gin_v0")
        env = games.get(game).make_env(**({} if game == "rummy_v0" else {"episode": "hand"}))
        env.reset(seed=0)
        agent = agents.seat(OPTIONS.get(name, name), env.config)
        rng = np.random.default_rng(0)
        moves = 0
        for who in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(agent.act(obs, rng)))
            moves += 1
        assert all(env.terminations.values()) or all(env.truncations.values()), name
        played[name] = moves
    print(json.dumps(played))
    """
)


def test_every_agent_plays_a_hand_from_the_installed_package(venv: Path, tmp_path: Path) -> None:
    proc = _run([str(venv / "python"), "-c", PLAY_EVERY_AGENT], cwd=tmp_path)
    played = json.loads(proc.stdout.strip().splitlines()[-1])
    assert {"random", "simple", "heuristic", "search", "rummy-simple"} <= set(played)
    assert {"gin-ppo", "gin-dmc", "three-handed-ppo", "three-handed-dmc"} <= set(played)
    assert all(moves > 0 for moves in played.values()), played


def test_every_subcommand_runs_from_the_installed_package(venv: Path, tmp_path: Path) -> None:
    cli = str(venv / "gin-rummy")
    out = str(tmp_path / "out")
    where = _run([str(venv / "python"), "-c", "import gin_cli.main; print(gin_cli.main.__file__)"],
                 cwd=tmp_path)  # fmt: skip
    assert "site-packages" in where.stdout  # the installed CLI, not the clone's
    commands = [
        ["--help"],
        ["--version"],
        ["match", "--agents", "random,simple,heuristic", "--seed", "0", "-o", "target_score=10",
         "--save", "m.json"],
        ["replay", "m.json", "--no-actions"],
        ["eval", "gin", "--agents", "random,simple", "--pairs", "2", "--workers", "1",
         "--no-progress", "--no-plot", "--out", out, "-o", "undercut_bonus=25"],
        ["eval", "three", "--agents", "random,simple,heuristic", "--matches", "1", "--adviser",
         "none", "--workers", "1", "--no-progress", "--no-plot", "--out", out, "-o",
         "target_score=10"],
        ["train", "--env", "gin", "--total-steps", "128", "--n-envs", "1", "--n-steps", "64",
         "--batch-size", "64", "--n-epochs", "1", "--net-arch", "16", "--eval-every",
         "1000000000", "--gate-every", "1000000000", "--progress", "false", "--run-dir",
         str(tmp_path / "run")],
        ["bench", "env", "--seconds", "0.05", "--rounds", "1", "--no-rummy"],
        ["serve", "--data-dir", str(tmp_path / "web"), "--export", str(tmp_path / "web_out")],
    ]  # fmt: skip
    for args in commands:
        proc = _run([cli, *args], cwd=tmp_path)
        assert "Traceback" not in proc.stdout + proc.stderr, args
    played = _run([cli, "play", "--seed", "0"], cwd=tmp_path, input="quit\n")
    assert "You left the table." in played.stdout
    # The benchmarks that need a clone say so, and name no path inside the venv.
    rules = _run([cli, "bench", "rules"], cwd=tmp_path, check=False)
    assert rules.returncode == 1 and "source checkout" in rules.stderr
    assert "site-packages" not in rules.stdout + rules.stderr


def test_the_web_app_serves_its_page_from_the_installed_package(venv: Path, tmp_path: Path) -> None:
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [str(venv / "gin-rummy"), "serve", "--port", str(port), "--data-dir", str(tmp_path)],
        cwd=tmp_path, env=_clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    page = r.read().decode()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
                time.sleep(0.2)
        assert "/static/app.js" in page
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/app.js", timeout=5) as r:
            assert b"WebSocket" in r.read()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
