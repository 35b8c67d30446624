"""The ``gin-rummy`` command line: help, matches, evaluation, a hand played through stdin,
replays."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gin_cli.main import cli, make_agent
from gin_env import actions as A
from gin_env import record as replay
from gin_env import three_handed_gin_v0

SUBCOMMANDS = ["play", "match", "replay", "eval", "train", "bench", "serve"]


def run(args: list[str], input: str | None = None):
    result = CliRunner().invoke(cli, args, input=input, catch_exceptions=False)
    return result


def test_group_help_lists_every_subcommand() -> None:
    result = run(["--help"])
    assert result.exit_code == 0
    for name in SUBCOMMANDS:
        assert name in result.output


@pytest.mark.parametrize("name", ["play", "match", "replay"])
def test_own_subcommand_help(name: str) -> None:
    result = run([name, "--help"])
    assert result.exit_code == 0
    assert f"gin-rummy {name}" in result.output
    assert "--help" in result.output


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.mark.parametrize(
    ("name", "module"),
    [("eval", "gin_cli.evaluate"), ("train", "training.train_ppo")],
)
def test_front_door_help(name: str, module: str) -> None:
    if not _has(module):
        pytest.skip(f"{module} is not written yet")
    result = run([name, "--help"])
    assert result.exit_code == 0
    assert "usage" in result.output.lower()


def test_bench_help() -> None:
    result = run(["bench", "--help"])
    assert result.exit_code == 0 and "rules|env|rummy" in result.output


def test_match_prints_hands_and_saves_a_replay(tmp_path) -> None:
    path = tmp_path / "m.json"
    args = ["match", "--agents", "random", "--seed", "3", "-o", "target_score=25"]
    result = run(args + ["--save", str(path)])
    assert result.exit_code == 0, result.output
    assert "hand 1 [" in result.output and "wins the match" in result.output
    data = replay.load(path)
    assert data["agents"] == dict.fromkeys(["player_0", "player_1", "player_2"], "random")
    assert max(data["scores"]) >= 25
    assert f"scores {data['scores']}" in result.output


def test_match_with_hollywood_scoring_and_its_replay(tmp_path) -> None:
    path = tmp_path / "h.json"
    args = ["match", "-g", "gin", "--agents", "simple,heuristic", "--seed", "2"]
    result = run(args + ["-o", "hollywood=true", "-o", "target_score=30", "--save", str(path)])
    assert result.exit_code == 0, result.output
    assert "wins the match" in result.output and "games [[" in result.output
    replayed = run(["replay", str(path), "--no-actions"])
    assert replayed.exit_code == 0, replayed.output
    assert result.output.strip().splitlines()[-2] in replayed.output  # the same outcome line


def test_match_gin_and_several_matches() -> None:
    result = run(["match", "-g", "gin", "--agents", "random,simple", "--matches", "3",
                  "-o", "target_score=10", "--no-color"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "3 matches" in result.output
    wins = [int(line.split("wins")[1].split()[0]) for line in result.output.splitlines()
            if " wins " in line]  # fmt: skip
    assert sum(wins) == 3


def test_match_rummy() -> None:
    result = run(["match", "-g", "rummy", "--agents", "random", "-o", "num_players=3"])
    assert result.exit_code == 0, result.output
    assert "Hand 1" in result.output


def test_bad_input_is_a_usage_error() -> None:
    assert run(["match", "--game", "poker"]).exit_code == 2
    result = run(["match", "-o", "knock_limit=99"])
    assert result.exit_code == 2 and "knock_limit" in result.output
    result = run(["match", "--agents", "a,b"])
    assert result.exit_code == 2
    result = run(["play", "--seat", "5", "--seed", "0"], input="quit\n")
    assert result.exit_code == 2 and "--seat" in result.output


def test_replay_reproduces_the_saved_scores(tmp_path) -> None:
    path = tmp_path / "m.json"
    run(["match", "--agents", "simple", "--seed", "5", "-o", "target_score=30",
         "--save", str(path)])  # fmt: skip
    data = json.loads(path.read_text())
    result = run(["replay", str(path), "--no-actions"])
    assert result.exit_code == 0, result.output
    assert f"scores {data['scores']}" in result.output
    assert result.output.count("\nhand ") == sum(h["result"] is not None for h in data["hands"])
    data["hands"][0]["actions"][-1][1] = A.PASS  # a tampered file is refused, not replayed
    path.write_text(json.dumps(data))
    result = run(["replay", str(path)])
    assert result.exit_code == 2 and "Error" in result.output


def test_replay_gif(tmp_path) -> None:
    pytest.importorskip("PIL")
    path = tmp_path / "m.json"
    run(["match", "-g", "gin", "--agents", "random", "-o", "target_score=10",
         "--save", str(path)])  # fmt: skip
    gif = tmp_path / "m.gif"
    result = run(["replay", str(path), "--gif", str(gif), "--hands", "1", "--max-frames", "5"])
    assert result.exit_code == 0, result.output
    assert gif.stat().st_size > 0 and "5 frames" in result.output


def _scripted_hand(seed: int, seat: int, opponents: str) -> tuple[list[str], object]:
    """Moves for a person in ``seat`` for the whole first hand: a mirror env with the same
    seed and the same opponents (the CLI seeds their generator with the seed) shows what
    the person will face; the person plays the simple agent's choice."""
    env = three_handed_gin_v0.raw_env(target_score=100)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    me = env.possible_agents[seat]
    policies = {a: make_agent(opponents, env.config) for a in env.possible_agents if a != me}
    person = make_agent("simple", env.config)
    lines: list[str] = []
    while len(env.table_state.history) == 1:
        agent = env.agent_selection
        obs = env.observe(agent)
        if agent == me:
            action = int(person.act(obs))
            lines.append(A.action_str(action).replace("discard ", "").lower())
        else:
            action = int(policies[agent].act(obs, rng))
        env.step(action)
    return lines, env


def test_play_a_whole_hand_through_stdin() -> None:
    seed, seat = 11, 0
    moves, mirror = _scripted_hand(seed, seat, "simple")
    assert moves, "the person must have moves in the first hand"
    # First a malformed move, then an illegal one (a draw when a discard is due, or a
    # knock when a draw or upcard decision is due), each explained and asked again.
    first = A.parse_action(moves[0])
    illegal = "draw" if first >= A.DISCARD else "knock ks"
    script = ["seven of hearts", illegal] + moves + ["quit"]
    result = run(["play", "--seed", str(seed), "--seat", str(seat), "--opponents", "simple",
                  "--no-color"], input="\n".join(script) + "\n")  # fmt: skip
    out = result.output
    assert result.exit_code == 0, out
    assert "bad move 'seven of hearts'" in out
    assert "not legal:" in out and "legal:" in out
    assert "Hand 1 over" in out
    rec = mirror.table_state.history[0]
    scores = "  ".join(f"player_{p} {s}" for p, s in enumerate(rec.scores_after))
    assert f"scores: {scores}" in out
    if rec.result.kind != "draw":
        assert "defends:" in out and "deadwood" in out
    assert "You left the table" in out


def test_play_rummy_through_stdin() -> None:
    # A blank line is skipped; a malformed and an illegal move are explained and asked
    # again; ? lists the legal moves and hint asks the simple agent; quit leaves.
    script = ["", "flip the table", "discard ks", "?", "hint", "draw", "quit"]
    result = run(["play", "-g", "rummy", "--seed", "3", "--seat", "0", "--opponents",
                  "simple", "--no-color"], input="\n".join(script) + "\n")  # fmt: skip
    out = result.output
    assert result.exit_code == 0, out
    assert "bad action text 'flip the table'" in out
    assert "not legal:" in out and "is not legal now" in out
    assert "legal: draw, take discard" in out
    assert "hint: " in out
    assert out.count("Your move") == 7  # six lines read for the first move, one for the next
    assert "You left the table." in out
    result = run(["play", "-g", "rummy", "--seed", "3", "--seat", "0"], input="")
    assert result.exit_code == 0 and "(input ended)" in result.output


def test_forwarded_usage_errors_name_the_front_door() -> None:
    result = run(["eval", "gin", "--agents", "simple"])
    assert result.exit_code == 2 and "gin-rummy eval: error: gin needs exactly 2" in result.output
    result = run(["train", "--total-steps", "0"])
    assert result.exit_code == 2 and "gin-rummy train: error: total_steps" in result.output


def test_the_cli_dispatches_train_by_algo() -> None:
    # The command line owns --algo: dmc's own help, not PPO's; a bad name lists the trainers.
    dmc = run(["train", "--algo", "dmc", "--help"])
    assert dmc.exit_code == 0 and "--fixed-roles" in dmc.output
    ppo = run(["train", "--algo=ppo", "--help"])
    assert ppo.exit_code == 0 and "--bc-hands" in ppo.output and "--fixed-roles" not in ppo.output
    bad = run(["train", "--algo", "a2c"])
    assert bad.exit_code == 2 and "'a2c'; allowed: ppo, dmc, tune" in bad.output


def test_eval_with_a_tiny_budget(tmp_path) -> None:
    if not _has("gin_cli.evaluate"):
        pytest.skip("gin_cli.evaluate is not written yet")
    result = run(["eval", "gin", "--agents", "random,simple", "--pairs", "2", "--no-progress",
                  "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "random" in result.output and "simple" in result.output
    assert list(tmp_path.glob("*.json")), "the evaluation writes its results"


@pytest.mark.parametrize("which", ["rules", "env", "rummy"])
def test_bench_front_door_help(which: str) -> None:
    if not (Path(__file__).resolve().parents[1] / "benchmarks" / f"bench_{which}.py").exists():
        pytest.skip(f"benchmarks/bench_{which}.py is not written yet")
    result = run(["bench", which, "--help"])
    assert result.exit_code == 0 and "usage" in result.output.lower()


def test_bench_rejects_an_unknown_benchmark() -> None:
    result = run(["bench", "poker"])
    assert result.exit_code == 2 and "rules, env, rummy" in result.output


@pytest.mark.parametrize("command", [["match", "--agents", "random"], ["play", "--seed", "0"]])
def test_save_path_is_checked_before_anything_is_played(tmp_path, command) -> None:
    missing = tmp_path / "no" / "dir" / "m.json"
    for target, message in ((missing, "does not exist"), (tmp_path, "directory")):
        result = run([*command, "--save", str(target)], input="quit\n")
        assert result.exit_code == 2, result.output
        assert "'--save'" in result.output and message in result.output
        assert "hand 1" not in result.output.lower() and "Your move" not in result.output
    assert not missing.parent.exists()


def test_replay_gif_path_is_checked_before_drawing(tmp_path) -> None:
    path = tmp_path / "m.json"
    run(["match", "-g", "gin", "--agents", "random", "-o", "target_score=10",
         "--save", str(path)])  # fmt: skip
    result = run(["replay", str(path), "--gif", str(tmp_path / "no" / "m.gif")])
    assert result.exit_code == 2 and "'--gif'" in result.output


@pytest.mark.parametrize(
    ("which", "args"),
    [("rules", ["--seconds", "-1"]), ("rules", ["--seconds", "0"]), ("env", ["--seconds", "-1"]),
     ("rummy", ["-1"]), ("rummy", ["fast"])],
)  # fmt: skip
def test_bench_with_a_bad_budget_is_a_usage_error(which: str, args: list[str]) -> None:
    result = CliRunner().invoke(cli, ["bench", which, *args])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)


def test_rummy_with_the_default_opponents() -> None:
    # The gin agents cannot read a rummy observation: the defaults must be rummy's own.
    result = run(["match", "-g", "rummy", "--seed", "1", "--no-color"])
    assert result.exit_code == 0, result.output
    assert "player_0 rummy-simple, player_1 rummy-simple" in result.output
    assert "went out" in result.output or "stock" in result.output
    # Seat 1: the opponent in seat 0 moves before the person is asked anything.
    result = run(["play", "-g", "rummy", "--seed", "3", "--seat", "1", "--no-color"],
                 input="hint\nquit\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "player_0 is rummy-simple" in result.output
    assert "  player_0 " in result.output and "hint: " in result.output
    assert "You left the table." in result.output


def test_the_default_gin_opponents_are_unchanged() -> None:
    result = run(["match", "-g", "gin", "-o", "target_score=10", "--no-color"])
    assert result.exit_code == 0, result.output
    assert "player_0 heuristic, player_1 heuristic" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "-g", "rummy", "--agents", "heuristic"], "plays the gin games, not rummy"),
        (["play", "-g", "rummy", "--opponents", "search"], "plays the gin games, not rummy"),
        (["match", "-g", "gin", "--agents", "rummy-simple"], "plays rummy only"),
    ],
)
def test_an_agent_of_another_game_is_a_usage_error(args: list[str], message: str) -> None:
    result = run(args, input="quit\n")
    assert result.exit_code == 2 and message in result.output, result.output


def test_a_game_answers_to_each_of_its_names() -> None:
    for name in ("gin", "gin_v0", "two-player"):
        result = run(["match", "-g", name, "--agents", "random", "-o", "target_score=10"])
        assert result.exit_code == 0 and result.output.startswith("gin_v0:"), result.output
    result = run(["match", "-g", "poker"])
    assert result.exit_code == 2 and "allowed: three, gin, rummy" in result.output


# -- eval under the table's rules (-o, as play and match take them) ---------------------------
def test_eval_gin_plays_and_records_the_rules_given(tmp_path) -> None:
    result = run(["eval", "gin", "--agents", "heuristic,simple", "--pairs", "6", "--workers",
                  "1", "--no-progress", "--no-plot", "--out", str(tmp_path), "-o",
                  "knock_limit=0", "-o", "undercut_bonus=25"])  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert data["rules"] == {"knock_limit": 0, "undercut_bonus": 25}
    assert data["knock_rate"] == 0 and data["undercut_rate"] == 0  # gin only: no knocks


def test_eval_three_plays_and_records_the_rules_given(tmp_path) -> None:
    result = run(["eval", "three", "--agents", "random,simple,heuristic", "--matches", "1",
                  "--adviser", "none", "--workers", "1", "--no-progress", "--no-plot",
                  "--out", str(tmp_path), "-o", "target_score=10",
                  "-o", "oklahoma=true"])  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert data["rules"] == {"target_score": 10, "oklahoma": True}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["gin", "-o", "no_such=1"],
            "no_such is not a rule option of eval gin; allowed: knock_limit",
        ),
        (["gin", "-o", "knock_limit=99"], "knock_limit must be an int in 0..10"),
        (["gin", "-o", "target_score=50"], "the match target is --target"),
        (["three", "-o", "oklahoma"], "expected name=value"),
        (["ladder", "-o", "knock_limit=5"], "not by eval ladder"),
    ],
)
def test_eval_refuses_a_bad_rule_before_any_game(tmp_path, args, message) -> None:
    agents = "random,simple,random" if args[0] == "three" else "random,simple"
    result = run(["eval", *args, "--agents", agents, "--out", str(tmp_path), "--no-plot"])
    assert result.exit_code == 2 and message in result.output, result.output
    assert not list(tmp_path.iterdir())  # nothing played, nothing written


def test_eval_seats_search_with_the_tables_rules() -> None:
    from gin_env.config import GinConfig
    from gin_eval.checks import agent_of

    assert agent_of("search:worlds=2", GinConfig(knock_limit=5)).rules.knock_limit == 5
    assert agent_of("search:worlds=2", GinConfig()).rules.knock_limit == 10


def test_a_named_table_is_a_rule_option() -> None:
    from gin_cli.main import _options

    eaai = _options(["table=eaai"], "gin")
    assert eaai["undercut_bonus"] == 25 and eaai["dealer_rule"] == "alternate_scored"
    assert eaai["allow_discard_of_taken_card"] is False
    three = _options(["table=openspiel", "knock_limit=7"], "three")
    assert three["allow_discard_of_taken_card"] is True and three["knock_limit"] == 7
    assert "dealer_rule" not in three  # not an option of the three-handed game
    result = run(["match", "-g", "gin", "--agents", "simple,simple", "-o", "table=vegas"])
    assert result.exit_code != 0 and "allowed: default, eaai, openspiel" in result.output
    result = run(["match", "-g", "gin", "--agents", "random,simple", "-o", "table=eaai",
                  "-o", "target_score=10", "--no-color"])  # fmt: skip
    assert result.exit_code == 0, result.output


def test_eval_help_names_the_rule_options() -> None:
    result = run(["eval", "gin", "--help"])
    usage = result.output.split("\n\n")[0]
    assert result.exit_code == 0 and "[-o NAME=VALUE]" in usage, result.output
    assert "-o undercut_bonus=25" in result.output


# -- bench from an installed package (no benchmarks/ folder beside it) ------------------------
def test_bench_env_runs_without_a_source_checkout(tmp_path, monkeypatch) -> None:
    import gin_cli.main

    monkeypatch.setattr(gin_cli.main, "REPO_ROOT", tmp_path)  # as in site-packages
    result = run(["bench", "env", "--seconds", "0.05", "--rounds", "1", "--no-rummy"])
    assert result.exit_code == 0, result.output
    assert "gin_v0 raw_env" in result.output and "three_handed_gin_v0 env()" in result.output


@pytest.mark.parametrize("which", ["rules", "rummy"])
def test_checkout_only_benches_say_so_without_a_path(tmp_path, monkeypatch, which) -> None:
    import gin_cli.main

    monkeypatch.setattr(gin_cli.main, "REPO_ROOT", tmp_path / "site-packages")
    result = CliRunner().invoke(cli, ["bench", which])
    assert result.exit_code == 1
    assert "source checkout" in result.output and "gin-rummy bench env" in result.output
    assert str(tmp_path) not in result.output and "site-packages" not in result.output


def test_an_agent_spec_keeps_its_options_in_a_list_of_agents(tmp_path) -> None:
    from training.flags import names

    assert names("captain:agent=tuned,params=eaai,any_table=true, heuristic,simple") == [
        "captain:agent=tuned,params=eaai,any_table=true",
        "heuristic",
        "simple",
    ]
    assert names("a, b,c") == ["a", "b", "c"]
    # a spec of two options in a three-handed match's list of three agents
    result = run(["match", "--agents", "tuned:params=default,any_table=true,simple,simple",
                  "--seed", "3", "-o", "target_score=25"])  # fmt: skip
    assert result.exit_code == 0, result.output
    three = "captain:agent=tuned,params=default,heuristic,simple"
    result = run(["eval", "three", "--agents", three,
                  "--matches", "1", "--seed", "3", "--workers", "1", "--no-progress",
                  "-o", "target_score=25", "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 0, result.output
