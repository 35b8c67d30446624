"""Every ``gin-rummy`` command the documentation site's pages (``docs/**/*.md``) show runs as
written, with the budgets cut as for the README (``test_readme.py``), and every output line
shown under a ``$ gin-rummy`` command is what it prints today.

``train``, ``bench`` and ``serve`` (which runs until stopped) are checked for their flags
through ``--help``; the rest run in a
scratch folder, page by page in order (a replay example reads the file its page's match
example saved).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from scripted_openai import ScriptedServer
from test_readme import SMALLER, transcripts

from gin_cli.main import cli

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: Placeholders some pages write for "any agents", and the agents the test puts there.
PLACEHOLDERS = [(r"--agents A,B,C\b", "--agents heuristic,simple,random")]
#: The model server the language page points at: the scripted local server stands in.
MODEL_SERVER = "http://127.0.0.1:8080/v1"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "gin-rummy " in p.read_text())


def blocks(page: Path) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", page.read_text(), re.S)


def commands(page: Path) -> list[list[str]]:
    """The page's ``gin-rummy`` command lines in code blocks, as argument lists."""
    out = []
    for block in blocks(page):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip().removeprefix("$ ")
            # (a message the command prints, "gin-rummy eval: stopped: ...", is not one)
            if line.startswith("gin-rummy ") and not line.split()[1].endswith(":"):
                out.append(shlex.split(line, comments=True)[1:])
    return out


def page_transcripts(page: Path) -> list[tuple[list[str], list[str]]]:
    """``$ gin-rummy ...`` lines of the page with the output shown under them."""
    return transcripts(blocks(page))


def test_the_pages_show_every_subcommand() -> None:
    verbs = {c[0] for page in PAGES for c in commands(page)}
    assert {"play", "match", "replay", "eval", "train", "bench"} <= verbs


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_every_command_of_a_page_runs(page: Path, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    with ScriptedServer() as server:
        _run_commands(page, runner, server.base_url)


def _run_commands(page: Path, runner: CliRunner, model_server: str) -> None:
    for args in commands(page):
        verb = args[0]
        if verb in ("train", "bench", "serve"):
            target = args[:2] if verb == "bench" else args[:1]
            if verb == "train" and "--algo" in args:
                target += ["--algo", args[args.index("--algo") + 1]]
            result = runner.invoke(cli, [*target, "--help"])
            assert result.exit_code == 0, (args, result.output)
            for flag in (a for a in args[1:] if a.startswith("--") and a not in target):
                assert flag in result.output, (args, flag)
            continue
        line = " ".join(shlex.quote(a) for a in args).replace(MODEL_SERVER, model_server)
        for pattern, small in [*SMALLER, *PLACEHOLDERS]:
            line = re.sub(pattern, small, line)
        args = shlex.split(line)
        if verb == "eval":
            args += ["--workers", "1", "--no-progress"]
            if args[1] == "three" and "--matches" not in args:
                args += ["--matches", "2"]
        result = runner.invoke(cli, args, input="quit\n")
        assert result.exit_code == 0, (args, result.output)
        assert "Traceback" not in result.output


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if page_transcripts(p)], ids=lambda p: p.name)
def test_the_transcripts_of_a_page_reproduce(page: Path, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for args, shown in page_transcripts(page):
        result = CliRunner().invoke(cli, [*args, "--no-color"])
        assert result.exit_code == 0, (args, result.output)
        printed = [line.rstrip() for line in result.output.splitlines()]
        missing = [line for line in shown if line not in printed]
        assert not missing, (args, missing)
