"""Messages, not tracebacks (issue 31 item 4) and what users meet first (issue 30 item 4):
every error a user can cause at ``gin-rummy`` is one line naming the thing and what is
allowed; ``play --save`` keeps the match so far; ``play`` labels a knock with the role of
the hand it ended; ``replay`` says when a record checked out; ``--help`` reads as text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import agents
from gin_cli.main import cli
from gin_env import record as replay_files


def run(args: list[str], stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, args, input=stdin)


def error_lines(result: Result) -> list[str]:
    """The lines of the output that report an error (click prints ``Error: ...``)."""
    return [line for line in result.output.splitlines() if line.startswith("Error")]


def assert_one_line_error(result: Result, *words: str) -> str:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.output
    assert result.exit_code == 2, result.output
    lines = error_lines(result)
    assert len(lines) == 1, result.output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture()
def bad_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "empty": b"",
        "garbage": b"\x89PNG\r\n\x1a\n\x00\xff",
        "truncated": b'{"format": 1, "game": ',
        "corrupt.zip": b"PK\x03\x04 not really a zip",
    }
    out = {}
    for name, data in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        out[name] = path
    return out


USER_ERRORS = [
    # (arguments, words the one error line must hold)
    (["match", "--seed", "-1"], ["--seed", "-1", "0<=x"]),
    (["play", "--seed", "-1"], ["--seed", "-1"]),
    (["match", "--seed", "1.5"], ["--seed", "1.5"]),
    (["match", "--agents", "heuristic:x-y=1"], ["'x-y'", "it takes: potential_weight"]),
    (["match", "--agents", "search:budget=1e400"], ["budget", "finite", "3600"]),
    (["match", "--agents", "captain:margin=nan"], ["margin"]),
    (["match", "--agents", "nosuch"], ["'nosuch'", "registered"]),
    (["match", "--agents", "llm"], ["'llm'", "needs option(s) model"]),
    (["match", "-g", "gin", "-o", "episode=hand"], ["episode='hand'", "max_hands"]),
    (["play", "-g", "gin", "-o", "episode=hand"], ["episode='hand'"]),
    (["match", "-o", "reward_scale=inf"], ["reward_scale", "finite"]),
    (["match", "-o", "reward_scale=1e400"], ["reward_scale", "finite"]),
    (["match", "-o", "target_score=-5"], ["target_score", "1..100000"]),
    (["match", "-o", "knock_limit"], ["knock_limit", "name=value"]),
    (["match", "-o", "bogus=1"], ["bogus", "allowed"]),
    (["match", "-g", "poker"], ["poker", "three, gin, rummy"]),
    (["match", "-g", "rummy", "-o", "num_players=9"], ["num_players", "2, 3, 4, 5, 6"]),
    (["play", "--seat", "5"], ["--seat", "0..2"]),
    (["play", "-g", "rummy", "--save", "x.json"], ["--save", "gin games"]),
    (["match", "--matches", "0"], ["--matches"]),
]


@pytest.mark.parametrize(("args", "words"), USER_ERRORS, ids=lambda x: " ".join(x)[:40])
def test_user_errors_are_one_line(args: list[str], words: list[str]) -> None:
    assert_one_line_error(run(args, stdin="quit\n"), *words)


@pytest.mark.parametrize(
    ("name", "words"),
    [("empty", ["is empty"]), ("garbage", ["not UTF-8"]), ("truncated", ["not valid JSON"]),
     ("corrupt.zip", ["not valid JSON"])],
)  # fmt: skip
def test_bad_replay_files_are_one_line_naming_the_file(bad_files, name, words) -> None:
    path = bad_files[name]
    assert_one_line_error(run(["replay", str(path)]), str(path), *words)


@pytest.mark.parametrize("name", ["empty", "corrupt.zip", "garbage"])
def test_unreadable_checkpoint_is_one_line_naming_it(bad_files, name) -> None:
    path = bad_files[name]
    line = assert_one_line_error(run(["match", "-g", "gin", "--agents", f"{path},random"]))
    assert str(path) in line


def test_a_file_that_cannot_be_written_is_one_line(tmp_path, monkeypatch) -> None:
    import gin_cli.main

    def refuse(path: Any, *args: Any) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(gin_cli.main, "save_match", refuse)
    path = tmp_path / "m.json"
    result = run(["match", "-g", "gin", "-o", "target_score=10", "--save", str(path)])
    assert_one_line_error(result, "cannot write the replay", str(path), "Permission denied")


def test_top_level_handler_turns_value_and_os_errors_into_one_line(monkeypatch) -> None:
    import gin_cli.main

    for err in (ValueError("deck[3] is 'x': a card is an int 0..51\nsecond line"),
                FileNotFoundError(2, "No such file or directory", "gone.zip")):  # fmt: skip

        def boom(*args: Any, error: Exception = err) -> Any:
            raise error

        monkeypatch.setattr(gin_cli.main, "make_env", boom)
        line = assert_one_line_error(run(["match"]))
        assert line.endswith("second line") or "gone.zip" in line


def test_eval_errors_name_the_flag() -> None:
    result = run(["eval", "gin", "--agents", "random,random", "--seed", "-1", "--no-plot"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if "error:" in line]
    assert len(errors) == 1 and "--seed" in errors[0] and "int >= 0" in errors[0]


# -- play --save keeps the match so far -----------------------------------------------------
@pytest.mark.parametrize("stdin", ["", "draw\nquit\n"], ids=["end of input", "quit"])
def test_play_save_on_quit_and_end_of_input(tmp_path, stdin: str) -> None:
    path = tmp_path / "so_far.json"
    result = run(["play", "-g", "gin", "--seed", "3", "--no-color", "--save", str(path)], stdin)
    assert result.exit_code == 0, result.output
    assert f"replay saved to {path} (the match so far" in result.output
    data = replay_files.load(path)
    assert data["agents"]["player_0"] == "human" and data["winner"] is None
    assert replay_files.replay_env(data).match.scores == data["scores"]


# -- play labels a knock with the role of the hand it ended ---------------------------------
def test_play_labels_a_knock_with_the_role_of_its_hand(tmp_path, monkeypatch) -> None:
    import gin_cli.main

    helper = agents.make("heuristic")

    def agent_plays(env: Any, *args: Any) -> int:  # the person's seat played by L2
        return int(helper.act(env.observe(env.agent_selection)))

    monkeypatch.setattr(gin_cli.main, "_ask_human", agent_plays)
    path = tmp_path / "m.json"
    args = ["play", "--seed", "1", "-o", "target_score=60", "--no-color", "--save", str(path)]
    result = run(args)
    assert result.exit_code == 0, result.output
    said = re.findall(r"(player_\d) \((\w+)\) knocks, discarding", result.output)
    data = json.loads(path.read_text())
    names = ("box", "captain", "adviser")
    truth = [
        (f"player_{h['result']['knocker']}", names[h["roles"][h["result"]["knocker"]]])
        for h in data["hands"]
        if h["result"] and h["result"]["knocker"] not in (None, 0)  # player_0's own knocks
    ]  # are not narrated
    assert len(truth) >= 2 and said == truth


def test_replay_says_the_record_checked_out(tmp_path) -> None:
    path = tmp_path / "m.json"
    run(["match", "-g", "gin", "--agents", "random", "-o", "target_score=10", "--save", str(path)])
    result = run(["replay", str(path)])
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith(f"{path}: the record checked out:") and "hand" in last


# -- --help reads as text -------------------------------------------------------------------
def help_entries(text: str) -> dict[str, str]:
    """argparse's option entries: flag line -> its help text."""
    entries: dict[str, str] = {}
    flag = None
    for line in text.split("options:", 1)[1].splitlines():
        m = re.match(r"  (-\S.*?)(?:\s{2,}(.*))?$", line)
        if m and not line.startswith("      "):
            flag = m[1].strip()
            entries[flag] = (m[2] or "").strip()
        elif flag and line.strip():
            entries[flag] += " " + line.strip()
    return entries


@pytest.mark.parametrize("design", ["gin", "three", "ladder"])
def test_every_eval_option_has_help_and_default(design: str) -> None:
    result = run(["eval", design, "--help"])
    assert result.exit_code == 0
    for flag, text in help_entries(result.output).items():
        assert text, f"eval {design} {flag} has no help"
        takes_value = re.search(r" [A-Z_=]+|\[?\{", flag.split(",")[-1])
        if takes_value and "--agents" not in flag:
            assert "default" in text, f"eval {design} {flag}: no default in {text!r}"


def test_eval_usage_shows_the_rule_option() -> None:
    for design in ("gin", "three"):
        usage = run(["eval", design, "--help"]).output.split("\n\n")[0]
        assert "[-o NAME=VALUE]" in usage


@pytest.mark.parametrize(
    "args", [["eval", "--help"], ["train", "--help"], ["train", "--algo", "dmc", "--help"]]
)
def test_help_descriptions_are_whole_sentences_without_markup(args: list[str]) -> None:
    if args[0] == "train":
        pytest.importorskip("stable_baselines3")
    result = run(args)
    assert result.exit_code == 0, result.output
    description = result.output.split("\n\n")[1]  # after the usage lines
    assert "``" not in result.output and ":mod:" not in result.output
    assert description.rstrip().endswith("."), description
