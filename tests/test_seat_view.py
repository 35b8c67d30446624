"""One view of a table under every front end (gin_env.seat_view): the games listed in one
module, and the terminal, the web page's JSON and the words of the same seat at the same
moment carrying the same facts (cards, knock limit, scores, the points of the last hand in
their parts) over random states of every game."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gin_cli import main as cli
from gin_cli.terminal import render_view
from gin_env import games
from gin_env.cards import card_str
from gin_env.seat_view import seat_view
from gin_env.text import words

ROOT = Path(__file__).resolve().parents[1]
#: The packages a game list could hide in (the library and the front ends).
PACKAGES = ("gin_env", "agents", "gin_eval", "training", "gin_cli", "gin_web")
MARKUP = re.compile(r"\[/?[a-z ]*\]")


def _names_of_every_game(node: ast.AST) -> bool:
    """Is ``node`` a literal tuple, list, set or dict (keys) naming every game of layout
    v0 (by any of its names)?"""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        elts = node.elts
    elif isinstance(node, ast.Dict):
        elts = [k for k in node.keys if k is not None]
    else:
        return False
    named = set()
    for e in elts:
        if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value in games.names():
            named.add(games.get(e.value).text_game)
    return named >= {s.text_game for s in games.GAMES.values() if s.version == 0}


def test_the_games_are_listed_in_one_module() -> None:
    listed = sorted(
        {
            p.relative_to(ROOT).as_posix()
            for pkg in PACKAGES
            for p in (ROOT / pkg).rglob("*.py")
            if p != ROOT / "gin_env" / "games.py"
            and any(_names_of_every_game(n) for n in ast.walk(ast.parse(p.read_text())))
        }
    )
    assert listed == [], listed  # gin_env/games.py holds the one list, as GameSpec entries
    # The front ends' names are read from it.
    assert cli.GAME_ENVS == games.cli_names()
    assert set(cli.GAME_NAMES) == set(games.names())
    assert words.GAMES == ("three_handed", "gin", "rummy")
    pytest.importorskip("starlette")
    from gin_web import tables

    assert tables.GAMES == games.cli_names(version=0)


def test_the_walk_would_see_a_list() -> None:
    tree = ast.parse('GAMES = {"three": 1, "gin_v0": 2, "rummy": 3}\nTWO = ("gin", "rummy")')
    assert [_names_of_every_game(n) for n in ast.walk(tree)].count(True) == 1


TABLES = [
    ("three", {"target_score": 40}),
    ("three", {"target_score": 40, "oklahoma": True, "adviser_sees_hand": False}),
    ("gin", {"target_score": 40, "undercut_bonus": 20, "gin_bonus": 15}),
    ("gin", {"target_score": 30, "hollywood": True, "big_gin_bonus": 31}),
    ("rummy", {"num_players": 3, "target_score": 40}),
    ("rummy", {"num_players": 2}),
]


def _plain(text: str) -> str:
    return MARKUP.sub("", text)


def _check_seat(table: Any, player: int | None) -> None:
    sv = seat_view(table.table_state, player)
    page = table.view(player)
    term = _plain(render_view(sv, table.names))
    said = words.describe(sv)
    # The cards: every card of every hand the seat sees, in all three.
    page_cards = {
        c
        for seat in page["hand"]["seats"]
        if "cards" in seat
        for c in [*seat["cards"]["deadwood_cards"], *(x for m in seat["cards"]["melds"] for x in m)]
    }
    for hand in sv.hands.values():
        for card in hand.cards:
            name = card_str(card)
            assert name in page_cards and name in term and name in said, (name, player)
    assert set(page_cards) == {card_str(c) for h in sv.hands.values() for c in h.cards}
    # The scores and the knock limit.
    assert page["scores"] == list(sv.scores)
    for score in sv.scores:
        assert str(score) in term and str(score) in said
    if sv.family == "gin":
        assert page["hand"]["knock_limit"] == sv.knock_limit
        assert page["hand"]["multiplier"] == sv.multiplier
        limit = "gin only" if sv.knock_limit == 0 else str(sv.knock_limit)
        assert limit in term and limit in said, (limit, term, said)
        if sv.multiplier != 1:
            assert "x2" in term and "2 times" in said
    # The showdown's hands (rummy: the cards left, counted out loud) as card lists.
    if sv.showdown is not None:
        shown = [[card_str(c) for c in cards] for _, cards in sv.showdown.hands]
        assert [h["cards"] for h in page["showdown"]["hands"]] == shown
        assert page["showdown"]["left"] == shown
    # The last hand's points in their parts.
    if sv.sheet:
        explained = sv.sheet[-1].explained()
        assert page["sheet"][-1]["explained"] == explained
        assert page["sheet"][-1]["parts"] == [list(p) for p in sv.sheet[-1].parts]
        assert explained in term and explained in said, (explained, term, said)
        # The sheet adds up to the scores.
        totals = [sum(row["scored"][p] for row in page["sheet"]) for p in range(sv.num_players)]
        assert totals == page["scores"]


@pytest.mark.parametrize(("game", "options"), TABLES, ids=lambda x: str(x))
def test_terminal_page_and_words_carry_the_same_facts(game: str, options: dict) -> None:
    pytest.importorskip("starlette")
    from gin_web.tables import new_table

    rng = np.random.default_rng(7)
    states = 0
    for seed in range(3):
        n = games.get(game).num_players(**options)
        table = new_table(game, options, seats=["random"] * n, seed=seed)
        moves = 0
        while not table.over and moves < 400:
            if moves % 4 == 0:  # a few hundred states per game, every seat and a spectator
                for player in [None, *range(n)]:
                    _check_seat(table, player)
                states += 1
            p = table.to_act
            assert p is not None
            table.play_move(p, int(rng.choice(table.legal(p))))
            moves += 1
        for player in [None, *range(n)]:
            _check_seat(table, player)
    assert states >= 100


def test_views_kept_as_the_hands_go_equal_views_built_afresh() -> None:
    # The table in play keeps each hand's moves and finished hands from one view to the
    # next (and the arrangements are kept by their cards). Views so built, over matches of
    # gin and rummy played side by side (their phases are IntEnums of equal values: kept
    # apart), equal the views of the same states built afresh: a table dealt again from the
    # same seed with the same moves re-applied and no view built on the way (the caches
    # keyed by cards cleared), for every seat, a spectator and open hands. A clone of the
    # live table shows the same views.
    from gin_env.seat_view import clear_caches
    from gin_env.table_state import TableState

    def tables() -> list[Any]:
        made = [
            games.get("three").make_env(target_score=40, oklahoma=True),
            games.get("gin").make_env(target_score=30, hollywood=True),
            games.get("rummy").make_env(num_players=3, target_score=40),
        ]
        for seed, env in enumerate(made):
            env.reset(seed=seed)
        return [env.unwrapped for env in made]

    def views(state: TableState, afresh: bool = False) -> list[Any]:
        out = []
        for p in (None, *range(state.num_players)):
            for o in (False, True):
                if afresh:  # nothing kept by cards from one view to the next either
                    clear_caches()
                out.append(seat_view(state, p, o))
        return out

    rng = np.random.default_rng(5)
    kept, moves = [], []
    envs = tables()
    for _ in range(300):
        for env in envs:
            kept.append(views(env.table_state))
            agent = env.agent_selection
            move = None
            if not (env.terminations[agent] or env.truncations[agent]):
                move = int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
                env.step(move)
            moves.append(move)
    live = [env.table_state for env in envs]
    assert [views(state.clone()) for state in live] == [views(state) for state in live]
    played: list[list[int]] = [[] for _ in envs]  # each table's moves so far
    for i, move in enumerate(moves):
        seed = i % len(envs)
        table = live[seed]
        replayed = TableState(table.table, seed, name=table.name)  # as the env's reset deals
        for earlier in played[seed]:
            replayed.apply(earlier)
        assert kept[i] == views(replayed, afresh=True), i
        if move is not None:
            played[seed].append(move)


def test_a_move_says_gin_and_no_advice_in_its_own_words() -> None:
    """The words every front end shows (terminal, web log, text env): a knock that ended
    the hand in gin is a gin, and an adviser who gives none gives no advice."""
    from gin_env import actions as A
    from gin_env.cards import parse_card
    from gin_env.seat_view import Move

    knock = A.KNOCK + parse_card("5C")
    assert Move(0, knock, parse_card("5C")).words() == "knocks, discarding 5C"
    assert Move(0, knock, parse_card("5C"), gin=True).words() == "goes gin, discarding 5C"
    assert Move(2, A.NO_ADVICE, None, True).words() == "gives no advice"
    assert Move(2, A.DRAW_STOCK, None, True).words() == "suggests draw"


def test_the_knock_that_ends_a_hand_in_gin_is_recorded_as_gin() -> None:
    from gin_env import actions as A
    from gin_env.config import GinConfig
    from gin_env.table_state import TableState

    # Deals played greedily (the discard leaving least deadwood; a knock only for gin, or
    # for any knock on odd seeds) until a hand ends: the ended hand's moves, shown to a seat.
    gins = 0
    for seed in range(200):
        state = TableState(GinConfig(), seed)
        while state.history[-1].result is None:
            p = state.to_act
            leaves = state.view(p).leaves
            legal = state.legal_actions()
            knocks = [a for a in legal if A.KNOCK <= a < A.BIG_GIN]
            gin = [a for a in knocks if leaves.get(a) == 0]
            if gin or (knocks and seed % 2):
                move = (gin or knocks)[0]
            elif leaves:
                move = min((a for a in leaves if a < A.KNOCK), key=lambda a: leaves[a])
            else:
                move = legal[0]
            state.apply(move, next_hand=False)
        rec = state.history[-1]
        if rec.result is not None and rec.result.kind == "gin":
            last = state.view(0).moves[-1]
            assert last.gin and last.words().startswith("goes gin, discarding")
            gins += 1
        if rec.result is not None and rec.result.kind == "knock":
            last = state.view(0).moves[-1]
            assert not last.gin and last.words().startswith("knocks, discarding")
    assert gins, "no gin in 200 deals"


def test_hollywood_sheet_rows_carry_the_games_after_each_hand() -> None:
    # The page and the terminal show these; they are the engine's, checked here against the
    # rules (docs/RULES.md section 4): a player's n-th winning hand counts in the first n
    # games still open, and a game closes when one of its scores reaches the target.
    env = games.get("gin").make_env(target_score=30, hollywood=True, reward="match")
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    view = seat_view(env.unwrapped.table_state, 0)
    assert view.sheet and view.games is not None
    played, winners, wins = [[0, 0] for _ in range(3)], [None, None, None], [0, 0]
    for row in view.sheet:
        if row.winner is not None:
            wins[row.winner] += 1
            for g in [g for g, w in enumerate(winners) if w is None][: wins[row.winner]]:
                played[g][row.winner] += row.points
                if played[g][row.winner] >= 30:
                    winners[g] = row.winner
        assert row.games_after == tuple(tuple(g) for g in played)
        assert row.to_dict()["games"] == played
    assert [list(g) for g in view.sheet[-1].games_after] == [list(g) for g in view.games]
    assert sum(w is not None for w in winners) >= 2  # the match was played to its end
