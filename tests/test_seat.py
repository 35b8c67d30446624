"""One way to seat an agent: every route (Gymnasium make, make_vec, the command line's play,
match and eval, the league, DMC's actors) seats its agents with ``agents.seat`` at the
table's own rules object, and an agent that cannot play a table says so when seated, in
one line, before any game."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import gymnasium
import numpy as np
import pytest
from click.testing import CliRunner

import agents
import gin_env  # noqa: F401 - registers the Gymnasium ids
from agents.batched import seat_batched
from agents.heuristic import HeuristicAgent
from agents.search import SearchAgent
from gin_cli.main import cli
from gin_env import games
from gin_env.config import GinConfig, RummyConfig, ThreeHandedConfig, table_changes
from gin_env.vector import VectorGinEnv

#: A table whose rules change what L2 does (its knock threshold moves with the bonus).
UNDERCUT_25 = {"undercut_bonus": 25}
#: A table where search plays gin only; seated at the standard rules it fails mid-game.
GIN_ONLY = {"knock_limit": 0}


def _play(env: Any, steps: int) -> int:
    """``steps`` learner moves (first legal action) in a single-agent env; the hands seen."""
    env.reset(seed=0)
    hands = 0
    for _ in range(steps):
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, _, term, trunc, _ = env.step(int(legal[0]))
        if term or trunc:
            hands += 1
            env.reset()
    return hands


# -- the table and the seat ---------------------------------------------------------------------
def test_a_table_is_the_games_rules_object_and_nothing_else() -> None:
    gin, three, rummy = (games.get(g) for g in ("gin", "three_handed", "rummy"))
    assert gin.table(**UNDERCUT_25) == GinConfig(undercut_bonus=25)
    assert three.table(adviser="none").adviser == "none"  # the adviser is a rule of the table
    assert rummy.table(num_players=4) == RummyConfig(num_players=4)
    table, rest = gin.split_options({"knock_limit": 0, "observation": "history", "reward": "team"})
    assert table == GinConfig(knock_limit=0) and rest == {
        "observation": "history",
        "reward": "team",
    }
    with pytest.raises(ValueError, match="unknown option.*observation.*allowed: the rules'"):
        gin.table(observation="history")
    env = three.make_env(ThreeHandedConfig(knock_limit=0), episode="hand")
    assert env.config == ThreeHandedConfig(knock_limit=0) and env.options.episode == "hand"
    with pytest.raises(ValueError, match="at a GinConfig table, not a ThreeHandedConfig"):
        gin.make_env(ThreeHandedConfig())
    assert table_changes(ThreeHandedConfig(undercut_bonus=25)) == UNDERCUT_25


def test_the_compiled_engine_is_configured_from_the_table_not_an_env(monkeypatch) -> None:
    from gin_env import gin_aec

    def no_env(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the compiled engine built an AEC env")

    monkeypatch.setattr(gin_aec.GinFamilyEnv, "__init__", no_env)
    env = VectorGinEnv(2, "three_handed_v1", seed=0, backend="numba", undercut_bonus=25)
    assert env.table == ThreeHandedConfig(undercut_bonus=25)
    assert env.reset()["observation"].shape == (2, 499)


def test_factories_declare_whether_they_read_the_table() -> None:
    assert [n for n in agents.names() if agents.reads_table(n)] == [
        "adviser", "best", "captain", "heuristic", "llm", "match-search", "search", "tuned",
        "words",
    ]  # fmt: skip
    table = GinConfig(**UNDERCUT_25)
    assert agents.seat("heuristic", table).rules.undercut_bonus == 25
    assert agents.seat("adviser:agent=search,worlds=2", table).agent.rules.undercut_bonus == 25
    calls: list[Any] = []
    agents.register("spy-table", lambda table, **kw: calls.append(table) or agents.make("simple"),
                    reads_table=True)  # fmt: skip
    try:
        agents.seat("spy-table", table)
    finally:
        agents._REGISTRY.pop("spy-table")  # noqa: SLF001 - the test's own entry
    assert calls == [table]


@pytest.mark.parametrize(
    ("spec", "table", "message"),
    [
        ("tuned", GinConfig(undercut_bonus=17), "agent 'tuned' has no parameter set tuned for"),
        ("gin-ppo", ThreeHandedConfig(), "trained on gin_v0 (2 players), and cannot play a"),
        ("three-handed-ppo", GinConfig(), "trained on three_handed_gin_v0 (3 players)"),
        ("three-handed-dmc", GinConfig(), "trained on three_handed_gin_v0 (3 players)"),
        ("heuristic", RummyConfig(), "agent 'heuristic' plays the gin games, not rummy_v0"),
        ("rummy-simple", GinConfig(), "agent 'rummy-simple' plays rummy only"),
        (
            "heuristic:undercut_bonus=10",
            GinConfig(**UNDERCUT_25),
            "the table plays undercut_bonus=25",
        ),
    ],
)
def test_an_agent_that_cannot_play_a_table_says_so_when_seated(spec, table, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        agents.seat(spec, table)
    assert "\n" not in str(err.value)  # one line
    if not isinstance(table, RummyConfig):  # the batched twin refuses alike
        with pytest.raises(ValueError, match=re.escape(message)):
            seat_batched(spec, table)


def test_tuned_plays_a_named_set_at_another_table_when_asked() -> None:
    agent = agents.seat("tuned:params=default,any_table=true", GinConfig(undercut_bonus=17))
    assert agent.table == "default" and agent.rules.undercut_bonus == 17


# -- the routes ---------------------------------------------------------------------------------
def test_gymnasium_make_seats_opponents_at_the_tables_rules() -> None:
    env = gymnasium.make("gin_env/Gin-v0", opponents="heuristic", **UNDERCUT_25)
    opponent = env.unwrapped.opponents["player_1"]
    assert isinstance(opponent, HeuristicAgent) and opponent.rules.undercut_bonus == 25
    # knock_limit=0 with search: the agent plays the table's gin-only rule (it raised a
    # ValueError mid-game when seated at the standard rules).
    env = gymnasium.make("gin_env/Gin-v0", opponents="search:worlds=2,candidates=1", **GIN_ONLY)
    assert env.unwrapped.opponents["player_1"].rules.knock_limit == 0
    assert _play(env, 120) >= 1
    # The same games with search made off the table (the standard rules): the old route.
    stray = agents.make("search:worlds=2,candidates=1")
    env = gymnasium.make("gin_env/Gin-v0", opponents=stray, **GIN_ONLY)
    with pytest.raises(ValueError, match="do not fit this agent's rules"):
        _play(env, 120)


def test_make_vec_seats_opponents_at_the_tables_rules() -> None:
    vec = gymnasium.make_vec("gin_env/Gin-v0", 2, vectorization_mode="vector_entry_point",
                             opponents="heuristic", **UNDERCUT_25)  # fmt: skip
    assert vec.unwrapped.opponents[1].rules.undercut_bonus == 25
    vec = gymnasium.make_vec("gin_env/Gin-v0", 2, vectorization_mode="vector_entry_point",
                             opponents="search:worlds=2,candidates=1", **GIN_ONLY)  # fmt: skip
    vec.reset(seed=0)
    for _ in range(60):
        masks = vec.unwrapped.action_masks()
        vec.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    # The sync wrapper (one single-agent env per slot) seats them the same.
    sync = gymnasium.make_vec("gin_env/Gin-v0", 2, vectorization_mode="sync",
                              opponents="heuristic", **UNDERCUT_25)  # fmt: skip
    assert sync.envs[0].unwrapped.opponents["player_1"].rules.undercut_bonus == 25


def _seated(monkeypatch) -> list[tuple[str, Any]]:
    """Every ``agents.seat`` call the command line makes, recorded."""
    calls: list[tuple[str, Any]] = []
    seat = agents.seat

    def spy(spec: str, table: Any) -> Any:
        calls.append((spec, table))
        return seat(spec, table)

    monkeypatch.setattr(agents, "seat", spy)
    return calls


def _cli(args: list[str], input: str | None = None) -> Any:
    return CliRunner().invoke(cli, [*args, "--no-color"] if args[0] != "eval" else args,
                              input=input, catch_exceptions=False)  # fmt: skip


def test_cli_match_seats_agents_at_the_tables_rules(monkeypatch) -> None:
    calls = _seated(monkeypatch)
    result = _cli(["match", "-g", "gin", "--agents", "heuristic", "-o", "undercut_bonus=25",
                   "--target-score", "10"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert calls and all(t == GinConfig(undercut_bonus=25, target_score=10) for _, t in calls)
    result = _cli(["match", "-g", "gin", "-o", "knock_limit=0", "--target-score", "1",
                   "--agents", "search:worlds=2,heuristic"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "match over" in result.output or "wins" in result.output


def test_cli_play_seats_opponents_and_the_hint_at_the_tables_rules(monkeypatch) -> None:
    calls = _seated(monkeypatch)
    result = _cli(["play", "-g", "three", "--opponents", "heuristic", "-o", "undercut_bonus=25",
                   "--seed", "1"], input="hint\nquit\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert {spec for spec, _ in calls} == {"heuristic"} and len(calls) >= 2  # opponents, hint
    assert all(t == ThreeHandedConfig(undercut_bonus=25) for _, t in calls)


def test_cli_eval_seats_agents_at_the_tables_rules(monkeypatch, tmp_path) -> None:
    from gin_eval import checks

    monkeypatch.setattr(checks, "_AGENT_CACHE", {})
    calls = _seated(monkeypatch)
    result = _cli(["eval", "gin", "--agents", "search:worlds=2,heuristic",
                   "--pairs", "1", "--workers", "1", "--no-progress", "--no-plot", "--out",
                   str(tmp_path), "-o", "knock_limit=0"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert calls and all(t == GinConfig(knock_limit=0) for _, t in calls)


@pytest.mark.parametrize(
    "args",
    [
        ["match", "-g", "gin", "-o", "undercut_bonus=17", "--agents", "tuned,heuristic"],
        ["play", "-g", "gin", "-o", "undercut_bonus=17", "--opponents", "tuned"],
        ["match", "-g", "three", "--agents", "gin-ppo"],
    ],
)
def test_the_cli_refuses_an_agent_at_a_table_in_one_line(args: list[str]) -> None:
    result = _cli(args, input="quit\n")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: agent "), result.output
    assert "Traceback" not in result.output


def test_cli_eval_refuses_tuned_at_a_table_it_was_not_tuned_for(tmp_path) -> None:
    args = ["eval", "gin", "--agents", "tuned,heuristic", "--out", str(tmp_path), "--no-plot",
            "-o", "undercut_bonus=17"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    errors = [x for x in result.output.splitlines() if "error:" in x]
    assert len(errors) == 1 and "agent 'tuned' has no parameter set tuned for" in errors[0]
    assert not list(tmp_path.iterdir())  # refused before any game


def test_the_league_seats_its_opponents_at_the_tables_rules() -> None:
    from training.league import League

    league = League(["heuristic", "simple"], max_snapshots=1, table=GinConfig(**UNDERCUT_25))
    l2 = league.members[0].policy
    assert isinstance(l2, HeuristicAgent) and l2.rules.undercut_bonus == 25
    with pytest.raises(ValueError, match="opponent must be one of"):
        League(["tuned"], table=GinConfig())


def test_dmc_actors_seat_their_opponents_at_the_engines_table(monkeypatch) -> None:
    pytest.importorskip("torch")
    from training import dmc_actors
    from training.train_dmc import Args

    monkeypatch.setattr(dmc_actors, "VectorGinEnv", partial(VectorGinEnv, **UNDERCUT_25))
    args = Args(env="gin", num_envs=2, backend="python", opponents="heuristic,search:worlds=2")
    rng = np.random.default_rng(0)
    actor = dmc_actors.Actor(args, {}, lambda *a: np.zeros(0), 0, rng, rng)
    assert actor.env.table == GinConfig(**UNDERCUT_25)
    assert actor.l2.rules.undercut_bonus == 25
    assert actor.fixed[0].rules.undercut_bonus == 25
    search = actor.fixed[1].agent
    assert isinstance(search, SearchAgent) and search.rules.undercut_bonus == 25
