"""Every ``gin-rummy`` command the README shows runs as written (with small budgets: fewer
pairs and matches, a faster search), so a stale example fails here rather than for a user.

``train`` and ``bench`` commands are checked for their flags through ``--help`` (a real
run takes minutes), and a ``train`` line with a ``--run-dir`` then trains a few hundred
decisions there, so that a later line seats that run dir; everything else runs in a
scratch folder, in README order (the replay example reads the file the match example saved).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from gin_cli.main import cli

README = Path(__file__).resolve().parents[1] / "README.md"
#: Budgets cut for the test: the README's figures need the full ones.
SMALLER = [
    (r"--pairs \d+", "--pairs 2"),
    (r"--matches \d+", "--matches 3"),
    (r"budget=0\.1", "budget=0.002"),
]


def readme_commands() -> list[list[str]]:
    """The ``gin-rummy`` command lines in the README's code blocks, as argument lists."""
    commands = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", README.read_text(), re.S):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.strip().removeprefix("$ ")
            if line.startswith("gin-rummy "):
                words = shlex.split(line, comments=True)
                commands.append(words[1:])
    return commands


def test_the_readme_shows_commands() -> None:
    verbs = {c[0] for c in readme_commands()}
    assert {"play", "match", "replay", "eval", "train", "bench"} <= verbs


def test_every_readme_command_runs(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for args in readme_commands():
        verb = args[0]
        if verb in ("train", "bench"):
            flags = [a for a in args[1:] if a.startswith("--") and a != "--algo"]
            target = args[:2] if verb == "bench" else args[:1]
            if "--algo" in args:  # the help of the trainer the line chose
                target += ["--algo", args[args.index("--algo") + 1]]
            result = runner.invoke(cli, [*target, "--help"])
            assert result.exit_code == 0, (args, result.output)
            for flag in flags:
                assert flag in result.output, (args, flag)
            run_dir = args[args.index("--run-dir") + 1] if "--run-dir" in args else None
            if verb == "train" and run_dir and not Path(run_dir).exists():  # a tiny run there
                tiny = list(args)
                if "--max-minutes" in tiny:
                    at = tiny.index("--max-minutes")
                    del tiny[at : at + 2]
                tiny += ["--total-steps", "600", "--num-envs", "8", "--eval-every", "100000",
                         "--report-deals", "0", "--progress", "false"]  # fmt: skip
                result = runner.invoke(cli, tiny)
                assert result.exit_code == 0, (tiny, result.output)
            continue
        line = " ".join(shlex.quote(a) for a in args)
        for pattern, small in SMALLER:
            line = re.sub(pattern, small, line)
        args = shlex.split(line)
        if verb == "eval":
            args += ["--workers", "1", "--no-progress"]
        result = runner.invoke(cli, args, input="quit\n")
        assert result.exit_code == 0, (args, result.output)
        assert "Traceback" not in result.output


@pytest.mark.parametrize("path", ["../shared", "shared/RULES.md", "shared/golden"])
def test_the_readme_points_only_inside_the_repository(path: str) -> None:
    assert f"`{path}" not in README.read_text() and f"../{path}" not in README.read_text()


def transcripts(blocks: list[str]) -> list[tuple[list[str], list[str]]]:
    """``$ gin-rummy ...`` lines of code ``blocks`` with the output shown under them."""
    out: list[tuple[list[str], list[str]]] = []
    for block in blocks:
        current: tuple[list[str], list[str]] | None = None
        for line in block.splitlines():
            if line.startswith("$ gin-rummy "):
                current = (shlex.split(line[2:])[1:], [])
                out.append(current)
            elif current is not None and line.strip() and line.strip() != "...":
                current[1].append(line.rstrip())
    return out


def readme_transcripts() -> list[tuple[list[str], list[str]]]:
    """``$ gin-rummy ...`` lines of the README with the output shown under them."""
    return transcripts(re.findall(r"```[a-z]*\n(.*?)```", README.read_text(), re.S))


def test_readme_transcripts_reproduce(tmp_path, monkeypatch) -> None:
    """Every output line the README shows under a command is what the command prints
    today (the figures of a match depend on the seed alone)."""
    monkeypatch.chdir(tmp_path)
    runs = readme_transcripts()
    assert len(runs) >= 3
    for args, shown in runs:
        result = CliRunner().invoke(cli, [*args, "--no-color"])
        assert result.exit_code == 0, (args, result.output)
        printed = [line.rstrip() for line in result.output.splitlines()]
        missing = [line for line in shown if line not in printed]
        assert not missing, (args, missing)


@pytest.mark.slow
def test_readme_python_examples_run(tmp_path, monkeypatch) -> None:
    """The quick-start snippets run as shown (the PPO example with a token budget; the
    RLlib one needs a trained run and ray, and is left to tests/test_rllib.py)."""
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    ran = 0
    for code in blocks:
        if "rllib" in code:
            continue
        code = code.replace("learn(10_000)", "learn(64, progress_bar=False)")
        code = code.replace(
            'MaskablePPO("MlpPolicy", env)', 'MaskablePPO("MlpPolicy", env, n_steps=64)'
        )
        exec(compile(code, "README.md", "exec"), {})
        ran += 1
    assert ran >= 2
