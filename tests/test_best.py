"""The search as an agent (``agents.search_agent``) and ``best``: it plays the decisions of
``studies.match_search`` on the same deals and seeds while it builds its worlds from the
seat's own view, no world holds a card the seat cannot know, and ``best`` is seated
everywhere an agent is (the env, Gymnasium, the vector env, the CLI, the web app), in every
role of the three-handed game, within its time budget; refused at a table it was not built
for."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import agents
from agents.batched import PerRow, batched_form
from agents.heuristic import HeuristicAgent, HeuristicParams
from agents.search_agent import FULL, SeatSearch
from agents.tuned import TABLES
from gin_env import actions as A
from gin_env.config import GinConfig, ThreeHandedConfig
from gin_env.games import get
from gin_eval.gin import play_gin_match_pair
from gin_eval.matches import play_match_table

SEARCH: dict[str, Any] = {"worlds": 8, "margin": 2.0, "opp_samples": 16, "decisions": "knock"}


def test_the_seated_search_plays_the_match_studys_decisions_on_the_same_deals() -> None:
    from studies import match_search as M

    table = TABLES["eaai"]
    l2 = batched_form(HeuristicAgent(HeuristicParams(), rules=table))
    study = M.MatchSearch(M.table_params("eaai", "tuned"), HeuristicParams(), table, seed=11,
                          **SEARCH)  # fmt: skip
    seated = SeatSearch(table, model="L2", seed=11, **SEARCH)
    a = play_match_table([(study, l2)], table, 3, 3)[0]
    b = play_match_table([(PerRow(seated), l2)], table, 3, 3)[0]
    # the same worlds drawn in the same order: the same decisions, hands and scores
    assert study.searched > 0 and study.overruled > 0
    assert (study.searched, study.overruled) == (seated.search.searched, seated.search.overruled)
    assert (a["scores"] == b["scores"]).all() and (a["hands"] == b["hands"]).all()


def test_its_worlds_hold_no_card_the_seat_cannot_know() -> None:
    table = TABLES["eaai"]
    env = get("gin_v0").make_env(table, episode="match")
    seated = SeatSearch(table, model="posterior", hands="posterior", seed=2,
                        decisions="knock+discard+draw", worlds=6)  # fmt: skip
    rival = HeuristicAgent(rules=table)
    checked = 0
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(400):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        obs = env.observe(agent)
        if agent == "player_0":
            seated.last_worlds = None
            move = seated.act(obs, rng)
            if seated.last_worlds is not None:
                view = agents.decode(obs)
                hands, stocks = seated.last_worlds
                hidden = FULL & ~view.known  # where the seat does not know a card is
                for h, stock in zip(hands.tolist(), stocks.tolist(), strict=True):
                    assert h & view.opponent_took == view.opponent_took
                    assert h & ~(hidden | view.opponent_took) == 0  # nothing it saw elsewhere
                    dealt = h & ~view.opponent_took
                    s = sum(1 << c for c in stock)
                    assert dealt & s == 0 and dealt | s == hidden  # exactly the unseen cards
                    assert len(stock) == view.stock_size
                checked += 1
        else:
            move = rival.act(obs, rng)
        env.step(move)
    assert checked >= 5


def test_best_is_seated_at_the_tables_it_knows_and_refused_elsewhere() -> None:
    b = agents.seat("best", TABLES["eaai"])
    assert isinstance(b, SeatSearch) and b.budget == 0.5 and b.model == "L2+tuned"
    assert agents.seat("best:model='posterior'", TABLES["eaai"]).posterior is not None
    assert agents.seat("best:budget=0.05", TABLES["default"]).budget == 0.05
    assert agents.seat("best", get("gin").table(target_score=50)).target == 50
    with pytest.raises(ValueError, match="not built for this table.*eaai.*default"):
        agents.seat("best", GinConfig(knock_limit=5))
    with pytest.raises(ValueError, match="oklahoma"):
        agents.seat("match-search", GinConfig(oklahoma=True))
    with pytest.raises(ValueError, match="budget"):
        agents.seat("best:budget=0", TABLES["eaai"])
    with pytest.raises(ValueError, match="unknown style 'bluff'"):
        agents.seat("best:model=L2+bluff", TABLES["eaai"])
    with pytest.raises(ValueError, match="value='equity' needs a named"):
        agents.seat("match-search:value='equity'", GinConfig(gin_bonus=20))
    with pytest.raises(ValueError, match="hands='posterior' needs"):
        agents.seat("match-search:hands='posterior'", TABLES["eaai"])
    with pytest.raises(ValueError, match="rummy"):
        agents.seat("best", get("rummy").table())


def test_a_small_budget_plays_fewer_worlds_and_keeps_to_it() -> None:
    table = TABLES["eaai"]
    player = agents.seat("best:budget=0.02", table)
    play_gin_match_pair(player, HeuristicAgent(rules=table), 1, 0, table)
    assert player.search.searched > 0 and player.search.worlds < 32
    # the first searches (compiling) aside, decisions keep near the budget
    late = np.asarray(player.seconds[len(player.seconds) // 2 :])
    assert np.percentile(late, 90) < 0.2


def test_best_through_gymnasium_make_and_make_vec() -> None:
    env = gymnasium.make("gin_env/Gin-v0", opponents="best:budget=0.02")
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    inner: Any = env.unwrapped
    for _ in range(30):
        mask = inner.action_masks()
        obs, _, done, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if done or trunc:
            obs, _ = env.reset()
    venv = gymnasium.make_vec(
        "gin_env/Gin-v0", num_envs=3, vectorization_mode="vector_entry_point",
        opponents="best:budget=0.02",
    )  # fmt: skip
    venv.reset(seed=0)
    vec: Any = venv
    for _ in range(10):
        masks = vec.action_masks()
        acts = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        venv.step(acts)


def test_best_through_the_cli_match_and_the_web_seating() -> None:
    from click.testing import CliRunner

    from gin_cli.main import cli

    args = ["match", "-g", "gin", "--agents", "best:budget=0.02,heuristic", "--seed", "3",
            "-o", "target_score=25"]  # fmt: skip
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "wins the match" in result.output

    from gin_web import tables

    env = get("gin_v0").make_env(TABLES["eaai"], episode="match")
    assert isinstance(tables.make_agent("best:budget=0.02", env), SeatSearch)
    table = tables.new_table("gin", {"undercut_bonus": 25}, seats=["best", "human"], seed=1)
    assert table is not None


def test_best_plays_every_role_of_the_three_handed_game() -> None:
    from gin_eval.play import play_seated_match

    table = ThreeHandedConfig(undercut_bonus=25, target_score=25)
    best = agents.seat("best:budget=0.02", table)
    assert best.model == "L2+tuned" and best.value == "points"
    roles: set[int] = set()
    suggested: list[int] = []
    act = best.act

    def watch(observation, rng=None):  # type: ignore[no-untyped-def]
        view = agents.decode(observation)
        roles.add(view.role)
        move = act(observation, rng)
        if view.advising:
            suggested.append(move)
            assert move in view.legal and move != A.NO_ADVICE
        return move

    best.act = watch  # type: ignore[method-assign]
    for index in range(3):
        seats: list[object] = ["heuristic", "heuristic"]
        seats.insert(index, best)
        out = play_seated_match(seats, 5, index, table)
        assert out["winner"] in (0, 1, 2)
    assert roles == {0, 1, 2} and suggested  # box, captain, adviser; it advised
