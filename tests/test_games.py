"""The games registry (gin_env.games): one list, checked against the envs it builds; the
command line's names for them (gin_cli.main) and the agents that play them
(agents.families)."""

from __future__ import annotations

import pytest

from agents import families
from gin_cli.main import GAME_ENVS, GAME_NAMES, game_spec
from gin_env import games


@pytest.mark.parametrize("name", list(games.GAMES))
def test_each_spec_matches_the_env_it_builds(name: str) -> None:
    spec = games.GAMES[name]
    env = spec.make_env()
    assert env.metadata["name"] == name == spec.module.__name__.split(".")[-1]
    assert len(env.possible_agents) == spec.num_players()
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert obs["observation"].shape == (spec.observation_size(),)
    assert env.action_space(agent).n == spec.num_actions == len(obs["action_mask"])
    assert spec.roles == tuple(getattr(env, "role_names", ()))
    for key in (spec.name, spec.short):
        assert games.get(key) is spec
    cli_names = [k for k, v in GAME_NAMES.items() if v == name]
    assert len([k for k in cli_names if k in GAME_ENVS]) == 1  # one --game name a game
    for key in cli_names:
        assert game_spec(key) is spec


def test_rummy_sizes_follow_the_player_count() -> None:
    spec = games.get("rummy")
    for n in (2, 4, 6):
        env = spec.make_env(num_players=n)
        env.reset(seed=1)
        obs = env.observe(env.agent_selection)
        assert obs["observation"].shape == (spec.observation_size(num_players=n),)
        assert spec.num_players(num_players=n) == n == len(env.possible_agents)


def test_sides_put_the_box_and_the_dealer_alone() -> None:
    assert games.get("three_handed").sides == {"box": 0, "captain": 1, "adviser": 1}
    assert games.get("gin").sides == {"dealer": 0, "non-dealer": 1}
    assert games.get("rummy").sides == {}


def test_an_unknown_game_lists_the_games() -> None:
    with pytest.raises(ValueError, match=r"unknown game 'poker'; allowed: three \(three_handed"):
        games.get("poker")
    with pytest.raises(ValueError, match="unknown game"):
        games.get(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"unknown game 'poker'; allowed: three, gin, rummy"):
        game_spec("poker")
    # The command line's names are in the one list too.
    assert games.get("three").name == games.get("3").name == "three_handed_gin_v0"


@pytest.mark.parametrize(
    ("game", "spec", "expected"),
    [
        ("rummy", "simple", "rummy-simple"),
        ("rummy_v0", "random", "random"),
        ("gin", "search:budget=0.05", "search:budget=0.05"),
        ("three", "gin-ppo", "gin-ppo"),
    ],
)
def test_agent_specs_that_fit(game: str, spec: str, expected: str) -> None:
    assert families.agent_spec(game_spec(game), spec) == expected


@pytest.mark.parametrize(
    ("game", "spec", "message"),
    [
        ("rummy", "heuristic", "plays the gin games, not rummy_v0; agents for rummy_v0: random"),
        ("gin", "rummy-simple", "plays rummy only, not gin_v0"),
        ("three", "rummy-simple:x=1", "plays rummy only"),
        ("gin", 3, "must be a string"),
    ],
)
def test_agent_specs_of_the_other_family_are_refused(game, spec, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        families.agent_spec(game_spec(game), spec)


def test_each_family_has_its_default_agent() -> None:
    assert [families.default_agent(g) for g in ("gin", "three_handed_gin_v1", "rummy")] == [
        "heuristic", "heuristic", "rummy-simple"
    ]  # fmt: skip
