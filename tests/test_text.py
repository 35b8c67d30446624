"""The game in words (gin_env.text): the reply parser's table, PettingZoo's api_test on the
text env, the invalid-reply policies, advice in words, the differential test (L2 playing
through words plays the same hands with the same points as L2 on action ids) and the
no-leak fuzz (no seat's text names a card it may not see)."""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test

import agents
from gin_env import actions as A
from gin_env import games, text
from gin_env import rummy_actions as R
from gin_env.cards import card_str, from_mask, parse_card, parse_cards, to_mask
from gin_env.text.replies import ReplyError, parse_advice, parse_reply
from gin_env.text.words import card_name
from gin_eval.rollout import play

C = parse_card
DRAW_PHASE = [A.DRAW_STOCK, A.TAKE_DISCARD]
UPCARD = [A.TAKE_DISCARD, A.PASS]
DISCARDS = [A.DISCARD + C(x) for x in ("7H", "KC", "TS", "AS")] + [A.KNOCK + C("KC")]
ADVICE = [A.NO_ADVICE, A.DRAW_STOCK, A.TAKE_DISCARD]
RUMMY = [
    R.DISCARD + C("7H"),
    R.DISCARD + C("2C"),
    R.meld(to_mask(parse_cards("5H 6H 7H"))),
    R.lay_off_run(C("8D")),
    R.lay_off_set(C("8D")),
    R.lay_off_set(C("QS")),
]

# -- the parser's table ------------------------------------------------------------------------
# (reply, legal, game, expected id or the start of the refusal)
PARSES: list[tuple[str, list[int], str, int | str]] = [
    # strict
    ("draw", DRAW_PHASE, "gin", A.DRAW_STOCK),
    ("take", DRAW_PHASE, "gin", A.TAKE_DISCARD),
    ("pass", UPCARD, "gin", A.PASS),
    ("discard 7H", DISCARDS, "gin", A.DISCARD + C("7H")),
    ("knock KC", DISCARDS, "gin", A.KNOCK + C("KC")),
    ("DISCARD ts", DISCARDS, "gin", A.DISCARD + C("TS")),
    ('{"move": "knock kc"}', DISCARDS, "gin", A.KNOCK + C("KC")),
    (
        '```json\n{"reasoning": "high card", "move": "discard 10s"}\n```',
        DISCARDS,
        "gin",
        A.DISCARD + C("TS"),
    ),
    ("no-advice", ADVICE, "three_handed", A.NO_ADVICE),
    ("take discard", [R.DRAW_STOCK, R.TAKE_DISCARD], "rummy", R.TAKE_DISCARD),
    ("meld 7h 5h 6h", RUMMY, "rummy", R.meld(to_mask(parse_cards("5H 6H 7H")))),
    ("lay off 8D on run", RUMMY, "rummy", R.lay_off_run(C("8D"))),
    # forgiving
    ("10s", DISCARDS, "gin", A.DISCARD + C("TS")),
    ("seven of hearts", DISCARDS, "gin", A.DISCARD + C("7H")),
    ("7♥", DISCARDS, "gin", A.DISCARD + C("7H")),
    ("The ace of spades.", DISCARDS, "gin", A.DISCARD + C("AS")),
    ("I'll throw away the seven of hearts, it is loose.", DISCARDS, "gin", A.DISCARD + C("7H")),
    ("I knock, discarding the king of clubs!", DISCARDS, "gin", A.KNOCK + C("KC")),
    ("Time to knock with KC.", DISCARDS, "gin", A.KNOCK + C("KC")),
    ("I'd rather draw from the stock.", DRAW_PHASE, "gin", A.DRAW_STOCK),
    ("Let me pick up the top of the discard pile", DRAW_PHASE, "gin", A.TAKE_DISCARD),
    ("I take the upcard", UPCARD, "gin", A.TAKE_DISCARD),
    ("Thinking... the 7H is useless.\nMove: discard 7h", DISCARDS, "gin", A.DISCARD + C("7H")),
    ("No advice this time, good luck", ADVICE, "three_handed", A.NO_ADVICE),
    (
        "I lay down the five of hearts, six of hearts and seven of hearts.",
        RUMMY,
        "rummy",
        R.meld(to_mask(parse_cards("5H 6H 7H"))),
    ),  # fmt: skip
    ("Lay off the queen of spades", RUMMY, "rummy", R.lay_off_set(C("QS"))),
    ("lay off 8d onto the set of eights", RUMMY, "rummy", R.lay_off_set(C("8D"))),
    # ambiguous
    ("discard 7H or maybe discard KC", DISCARDS, "gin", "the reply names more than one move"),
    ("I won't take it; I'll draw.", DRAW_PHASE, "gin", A.DRAW_STOCK),  # the take is negated
    ("lay off the eight of diamonds", RUMMY, "rummy", "the reply names more than one move"),
    # illegal
    ("discard 2S", DISCARDS, "gin", "discard 2S is not a legal move now"),
    ("knock 7H", DISCARDS, "gin", "knock 7H is not a legal move now"),
    ("pass", DRAW_PHASE, "gin", "pass is not a legal move now"),
    ('{"move": "big-gin"}', DISCARDS, "gin", "big-gin is not a legal move now"),
    ("I will discard the two of clubs", DISCARDS, "gin", "discard 2C is not a legal move now"),
    ("meld 2h 3h 4h", RUMMY, "rummy", "meld 2H 3H 4H is not a legal move now"),
    ("I meld the 5h, 5h, 6h and 7h", RUMMY, "rummy", "an unknown move is not a legal move now"),
    # empty and unusable
    ("", DISCARDS, "gin", "the reply is empty"),
    ("   \n ", DISCARDS, "gin", "the reply is empty"),
    ("hmm, hard to say", DISCARDS, "gin", "no move found in the reply"),
    ("as it happens I like hearts", DISCARDS, "gin", "no move found in the reply"),
    # very long: read whole
    ("blah " * 5000 + "move: discard KC", DISCARDS, "gin", A.DISCARD + C("KC")),
    ("discard 7H " + "x" * 10_000, DISCARDS, "gin", A.DISCARD + C("7H")),
    ("x" * 1_000_001, DISCARDS, "gin", "the reply has 1,000,001 characters; at most 1,000,000"),
    ("draw " * 3000, DRAW_PHASE, "gin", A.DRAW_STOCK),
]


@pytest.mark.parametrize("reply,legal,game,expected", PARSES)
def test_parser_table(reply: str, legal: list[int], game: str, expected: int | str) -> None:
    if isinstance(expected, int):
        assert parse_reply(reply, legal, game) == expected
        return
    with pytest.raises(ReplyError) as err:
        parse_reply(reply, legal, game)
    message = str(err.value)
    assert message.startswith(expected), message
    # Every refusal names every legal move.
    for a in legal:
        assert text.move_words(a, game) in message


def test_refusal_of_non_text() -> None:
    with pytest.raises(ReplyError, match="must be text"):
        parse_reply(None, DRAW_PHASE, "gin")


def test_advice_without_a_move_is_no_advice() -> None:
    assert parse_advice("You are doing great, trust your instincts.", ADVICE) == A.NO_ADVICE
    assert (
        parse_advice("Draw from the stock, the upcard does not help you.", ADVICE) == A.DRAW_STOCK
    )
    with pytest.raises(ReplyError, match="more than one"):
        parse_advice("draw or take, your call", ADVICE)


# -- the env -------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["three_handed", "gin", "rummy"])
@pytest.mark.parametrize("on_invalid", ["forfeit-hand", "random-legal"])
def test_api_test(game: str, on_invalid: str) -> None:
    options: dict[str, Any] = {} if game == "rummy" else {"episode": "hand"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(text.env(game, on_invalid=on_invalid, **options), num_cycles=200)


def test_bad_options_are_named() -> None:
    with pytest.raises(ValueError, match="on_invalid"):
        text.env("gin", on_invalid="shrug")
    with pytest.raises(ValueError, match="retries"):
        text.env("gin", retries=-1)
    with pytest.raises(ValueError, match="unknown game"):
        text.env("poker")
    with pytest.raises(ValueError, match="knock_limit"):
        text.env("gin", knock_limit=99)


def test_retries_then_forfeit() -> None:
    env = text.env("gin", episode="hand", retries=1)
    env.reset(seed=3)
    first = env.agent_selection
    env.step("fold")
    assert env.agent_selection == first and env.infos[first]["invalid_replies"] == 1
    seen = env.observe(first)
    assert "Your last reply was not used: no move found" in seen and "1 try left" in seen
    assert env.rewards[first] == 0.0
    env.step("discard 2S")  # illegal in the upcard offer
    assert all(env.terminations.values())
    assert env.rewards[first] == -1.0 and env.infos[first]["forfeit"] == first
    assert env.infos[first]["invalid_replies"] == 2
    while env.agents:
        env.step(None)


def test_random_legal_and_raise() -> None:
    env = text.env("gin", episode="hand", retries=0, on_invalid="random-legal")
    env.reset(seed=4)
    agent = env.agent_selection
    env.step("???")
    assert env.infos[agent]["policy_moves"] == 1 and env.infos[agent]["invalid_replies"] == 1
    assert env.agent_selection != agent or not env.terminations[agent]
    env = text.env("gin", episode="hand", retries=0, on_invalid="raise")
    env.reset(seed=4)
    before = env.observe(env.agent_selection)
    with pytest.raises(ValueError, match="Legal moves: pass, take"):
        env.step("???")
    assert env.observe(env.agent_selection).startswith(before.split("\nYour last")[0][:200])


def test_numeric_infos_are_the_game_envs() -> None:
    env = text.env("three_handed", episode="hand")
    num = games.get("three_handed").make_env(episode="hand")
    env.reset(seed=9)
    num.reset(seed=9)
    for agent in env.agents:
        got = env.infos[agent]["numeric"]
        want = num.observe(agent)
        assert np.array_equal(got["observation"], want["observation"])
        assert np.array_equal(got["action_mask"], want["action_mask"])


def test_advice_in_words_reaches_the_captain_only() -> None:
    env = text.env("three_handed", episode="hand")
    env.reset(seed=0)
    # Play to the first adviser turn.
    while True:
        agent = env.agent_selection
        numeric = env.infos[agent]["numeric"]
        if env.infos[agent]["role"] == "adviser" and numeric["action_mask"].sum() > 1:
            break
        env.step(text.move_words(agents.make("heuristic").act(numeric), "three_handed"))
    legal = np.flatnonzero(numeric["action_mask"]).tolist()
    move = next(a for a in legal if a != A.NO_ADVICE)
    words = f"Partner, {text.move_words(move, 'three_handed')} \u2665 looks right to me."
    env.step(words)
    captain = env.agent_selection
    assert env.infos[captain]["role"] == "captain"
    seen = env.observe(captain)
    assert f"Your adviser suggests: {text.move_words(move, 'three_handed')}." in seen
    assert 'Your adviser says: "Partner, ' in seen and "H looks right" in seen
    suggestion = np.flatnonzero(env.infos[captain]["numeric"]["observation"][-A.NUM_ACTIONS :])
    assert suggestion.tolist() == [move]  # the numeric env carries it as the suggestion
    box = next(a for a in env.agents if env.infos[a]["role"] == "box")
    assert "adviser says" not in env.observe(box) and "suggests" not in env.observe(box)


# -- the differential test ------------------------------------------------------------------------
def phrase(action: int, game: str, way: int) -> str:
    """``action`` said one of several ways (all must parse back to it)."""
    words = text.move_words(action, game)
    if way == 0:
        return words
    if way == 1:
        return json.dumps({"reasoning": "as planned", "move": words})
    if way == 2:
        return f"Let me think about it.\nMove: {words.lower()}"
    if game == "rummy":
        kind, value = R.decode(action)
        if kind == "discard":
            return f"I will discard the {card_name(value)}."
        if kind == "meld":
            cards = [c for c in range(52) if value >> c & 1]
            return "I lay down the " + ", ".join(card_name(c) for c in cards) + " as a meld."
        if kind in ("lay_off_set", "lay_off_run"):
            where = "set" if kind == "lay_off_set" else "run"
            return f"Lay off the {card_name(value)} onto the {where}, please."
        return "I'll draw from the stock." if kind == "draw_stock" else "I take the top discard."
    kind, card = A.decode(action)
    if kind == "discard":
        assert card is not None
        long = card_str(card).replace("T", "10").lower()
        return f"I'll discard the {card_name(card)}." if way == 3 else long
    if kind == "knock":
        assert card is not None
        return f"Knock, discarding the {card_name(card)}!"
    return {
        "draw": "I'd draw from the stock.",
        "take": "I take the upcard.",
        "pass": "I pass.",
        "no-advice": "No advice from me this time.",
        "big-gin": "Big gin!",
    }[kind]


def _players(game: str, seed: int) -> dict[str, Any]:
    spec = games.get(game)
    name = "rummy-simple" if game == "rummy" else "heuristic"
    n = spec.num_players(num_players=2 + seed % 3)
    return {f"player_{i}": agents.make(name) for i in range(n)}


def _options(game: str, seed: int) -> dict[str, Any]:
    if game == "rummy":
        return {"num_players": 2 + seed % 3}
    out: dict[str, Any] = {"episode": "hand"}
    if game == "three_handed" and seed % 4 == 3:
        out["adviser_sees_hand"] = False
    return out


def _numeric_hand(game: str, seed: int) -> tuple[list[tuple[str, int]], Any]:
    env = games.get(game).make_env(**_options(game, seed))
    env.reset(seed=seed)
    moves: list[tuple[str, int]] = []
    play(env, _players(game, seed), np.random.default_rng(seed),
         after=lambda _env, agent, action: moves.append((agent, action)))  # fmt: skip
    return moves, _result(env, game)


def _text_hand(game: str, seed: int) -> tuple[list[tuple[str, int]], Any, dict[str, float]]:
    env = text.env(game, on_invalid="raise", **_options(game, seed))
    env.reset(seed=seed)
    players, rng = _players(game, seed), np.random.default_rng(seed)
    moves, totals = [], dict.fromkeys(env.possible_agents, 0.0)
    step = 0
    for agent in env.agent_iter():
        seen, reward, term, trunc, info = env.last()
        totals[agent] += reward
        assert isinstance(seen, str)
        if term or trunc:
            env.step(None)
            continue
        a = int(players[agent].act(info["numeric"], rng))
        moves.append((agent, a))
        env.step(phrase(a, game, (seed + step) % 5))
        step += 1
        assert env.infos.get(agent, {}).get("invalid_replies", 0) == 0
    return moves, _result(env.inner, game), totals


def _result(env: Any, game: str) -> Any:
    if game == "rummy":
        r = env.game.results[-1]
        return (r.winner, tuple(r.payments), r.rummy, r.truncated)
    rec = env.match.history[-1]
    r = rec.result
    return (rec.players, r.kind, r.winner, r.points, r.final_hands, tuple(rec.roles))


def _differential(game: str, seeds: range) -> set[int]:
    roles: set[int] = set()
    for seed in seeds:
        moves, result = _numeric_hand(game, seed)
        text_moves, text_result, _ = _text_hand(game, seed)
        assert text_moves == moves, f"{game} seed {seed}: the moves differ"
        assert text_result == result, f"{game} seed {seed}: {text_result} != {result}"
        if game != "rummy":
            roles.update(result[-1])
    return roles


@pytest.mark.parametrize("game", ["three_handed", "gin", "rummy"])
def test_differential_fast(game: str) -> None:
    roles = _differential(game, range(12))
    if game == "three_handed":
        assert roles == {0, 1, 2}


@pytest.mark.slow
@pytest.mark.parametrize("game", ["three_handed", "gin", "rummy"])
def test_differential_1000_hands(game: str) -> None:
    roles = _differential(game, range(1000))
    if game != "rummy":
        assert roles == set(range(games.get(game).players or 2))


# -- no leak ----------------------------------------------------------------------------------
_CODE = re.compile(r"\b([A2-9TJQK][SHDC])\b")
FUZZ_TABLES: list[tuple[str, dict[str, Any]]] = [
    ("three_handed", {"episode": "hand"}),
    ("three_handed", {"episode": "hand", "adviser_sees_hand": False}),
    ("three_handed", {"episode": "hand", "adviser": "none", "oklahoma": True}),
    ("three_handed", {"episode": "hand", "big_gin_bonus": 31, "allow_discard_of_taken_card": True}),
    ("gin", {"episode": "hand"}),
    ("gin", {"episode": "hand", "knock_limit": 0, "hollywood": True}),
    ("rummy", {"num_players": 2}),
    ("rummy", {"num_players": 4, "ace_high_or_low": True}),
    ("rummy", {"num_players": 6}),
]


def _may_see_gin(env: Any, agent: str, public: int) -> int:
    match = env.inner.match
    hand, rec = match.hand, match.record
    # A knock lays both hands open: the showdowns of finished hands are public.
    for done in match.history:
        if done.result is not None and done.result.showdown is not None:
            public |= done.result.final_hands[0] | done.result.final_hands[1]
    player = env.inner.possible_agents.index(agent)
    if player in rec.players:
        return hand.hands[rec.players.index(player)] | public
    sees = getattr(env.inner.config, "adviser_sees_hand", True)
    return (hand.hands[0] if sees else 0) | public  # seat 0 is the captain's


def _fuzz(hands: int) -> int:
    checked = 0
    for k in range(hands):
        game, options = FUZZ_TABLES[k % len(FUZZ_TABLES)]
        env = text.env(game, on_invalid="random-legal", retries=0, **options)
        env.reset(seed=k)
        rng = np.random.default_rng(k)
        heuristic = agents.make("rummy-simple" if game == "rummy" else "heuristic")
        public = 0  # every card that has been face up this hand
        for _agent in env.agent_iter():
            if game == "rummy":
                g = env.inner.game
                public |= to_mask(g.discard_pile)
                for m in g.table:
                    public |= m.cards
            else:
                h = env.inner.match.hand
                public |= to_mask(h.discard_pile)
            for seat in env.agents:
                seen = env.observe(seat)
                if game == "rummy":
                    i = env.inner.possible_agents.index(seat)
                    allowed = env.inner.game.hands[i] | public
                else:
                    allowed = _may_see_gin(env, seat, public)
                # The last line is the fixed template of how to reply ("discard 7H").
                body = seen.rsplit("\nReply with", 1)[0]
                named = to_mask({parse_card(c) for c in _CODE.findall(body)})
                leak = named & ~allowed
                assert not leak, f"{game} {options} hand {k}: {seat} reads {leak:b}\n{seen}"
                checked += 1
            _, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            numeric = info["numeric"]
            if rng.random() < 0.5:
                legal = np.flatnonzero(numeric["action_mask"]).tolist()
                a = int(rng.choice(legal))
            else:
                a = int(heuristic.act(numeric, rng))
            env.step(phrase(a, game, int(rng.integers(5))))
    return checked


def test_no_leak_fast() -> None:
    assert _fuzz(36) > 400


@pytest.mark.slow
def test_no_leak_2000_hands() -> None:
    _fuzz(2000)


# -- the facts are the engine's -----------------------------------------------------------------
def test_facts_read_back_the_engine() -> None:
    """What the words say (hands, pile, stock, sizes, dealer, scores, turn) is the engine's
    state, seen from each seat, at every step of a few games."""
    for game, options in [("gin", {"episode": "hand", "target_score": 50}),
                          ("three_handed", {"episode": "hand"}),
                          ("rummy", {"num_players": 3, "target_score": 60})]:  # fmt: skip
        env = text.env(game, on_invalid="random-legal", retries=0, **options)
        env.reset(seed=5)
        player = agents.make("rummy-simple" if game == "rummy" else "heuristic")
        for agent in env.agent_iter(400):
            _, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            inner = env.inner
            seat = inner.possible_agents.index(agent)
            f = text.facts(info["numeric"], env.table)
            if game == "rummy":
                g = inner.game
                n = g.num_players
                assert f.hands[0].cards == tuple(from_mask(g.hands[seat]))
                assert f.pile == tuple(g.discard_pile)
                assert f.stock == len(g.stock) and f.turn == g.turns
                assert list(f.counts) == [g.hands[(seat + k) % n].bit_count() for k in range(n)]
                assert f.dealer == (g.dealer - seat) % n
                assert list(f.scores) == [g.scores[(seat + k) % n] for k in range(n)]
            else:
                m = inner.match
                h = m.hand
                if seat in m.record.players:
                    mine = f.hands[f.player]
                    assert mine.cards == tuple(from_mask(h.hands[m.record.players.index(seat)]))
                assert f.stock == h.stock_size and set(f.pile) == set(h.discard_pile)
                assert f.upcard == h.top_discard
            env.step(text.move_words(int(player.act(info["numeric"])), game))


@pytest.mark.parametrize(
    ("game", "options"),
    [("gin", {}), ("three_handed", {}), ("three_handed", {"adviser_sees_hand": False}),
     ("gin_v1", {"oklahoma": True, "target_score": 50})],
    ids=["gin", "three_handed", "three_handed-blind", "gin_v1-oklahoma"],
)  # fmt: skip
def test_facts_of_an_observation_say_what_it_holds_and_guess_nothing(
    game: str, options: dict[str, Any]
) -> None:
    """text.facts reads the observation's one decoder: every seat's view is the engine's
    state as its vector holds it (by role: role 0 is the dealer), and what the vector does
    not hold (the card counts, the hand's number) is left empty, not made up."""
    import inspect

    assert "message" not in inspect.signature(text.facts).parameters  # the words' argument
    raw = games.get(game).make_env(episode="hand", **options).unwrapped
    table = text.table_of(game, raw.config)
    rng = np.random.default_rng(3)
    raw.reset(seed=3)
    seen = 0
    while raw.agents and seen < 400:
        m = raw.match
        h, rec = m.hand, m.record
        for i, agent in enumerate(raw.possible_agents):
            obs = raw.observe(agent)
            f = text.facts(obs, table)
            role = rec.roles[i]
            assert f.player == role and f.dealer == 0 == rec.roles[rec.players[1]]
            assert f.hand_index == -1 and f.counts == () and f.taken is None
            assert f.stock == h.stock_size and f.turn == h.turns
            assert set(f.pile) == set(h.discard_pile) and f.upcard == h.top_discard
            mine = 1 if role == 2 else role  # the adviser's words are of the captain's hand
            seat, opp = rec.players.index(i) if i in rec.players else 0, 1 - mine
            sees = (i in rec.players or raw.config.adviser_sees_hand) if role == 2 else True
            assert (mine in f.hands) == sees
            if sees:
                assert f.hands[mine].cards == tuple(from_mask(h.hands[seat]))
                assert f.discarded[mine] == tuple(from_mask(h.discarded[seat]))
            assert f.took[opp] == tuple(from_mask(h.took[1 - seat]))
            by_role = [m.scores[rec.roles.index(r)] for r in range(len(f.scores))]
            if max(by_role) <= m.target_score:
                assert list(f.scores) == by_role
            if raw.obs_version == 1:  # the hand's own limit and double, and its own pickups
                assert (f.knock_limit, f.multiplier) == (h.knock_limit, h.multiplier)
                assert f.game == "gin_v1" and f.took[mine] == tuple(from_mask(h.took[seat]))
            else:
                assert (f.knock_limit, f.multiplier) == (10, 1)
            words = text.seat_text(obs, table, message="take the seven")
            assert "This hand: knock limit" in words and "(hand " not in words
            assert ('Your adviser says: "take the seven"' in words) == (
                role == 1 and len(raw.possible_agents) == 3
            )
            if not sees:
                assert "You cannot see the captain's hand." in words
            seen += 1
        legal = np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"])
        raw.step(int(rng.choice(legal)) if len(legal) else None)  # (None: the hand is over)
    assert seen >= 100


def test_render_and_legal_moves_in_words() -> None:
    env = text.env("gin", episode="hand", render_mode="ansi")
    env.reset(seed=2)
    assert env.legal_moves() == ["take", "pass"]
    env.step("I pass on that one.")
    shown = env.render()
    assert isinstance(shown, str) and "last reply: player_" in shown and "-> pass" in shown


def _module_file(root: Any, name: str) -> Any:
    return root / (name.replace(".", "/") + ".py")


def test_the_words_need_only_the_game() -> None:
    """gin_env.text.words, and every module it reads (the seat view, the rules, the one list
    of games), import nothing outside the standard library and the core install's game
    packages (numpy, gymnasium, pettingzoo): no agent, no trainer, no front end, no extra."""
    import ast
    import sys
    from pathlib import Path

    root = Path(text.__file__).resolve().parents[2]
    seen: set[str] = set()
    todo = ["gin_env.text.words"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        tree = ast.parse(_module_file(root, name).read_text())
        for node in tree.body:  # module level: a function-local import is an extra
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                base = node.module
                # "from gin_env import actions": the module gin_env.actions, if it is one.
                targets = [
                    f"{base}.{a.name}" if _module_file(root, f"{base}.{a.name}").exists() else base
                    for a in node.names
                ]
            else:
                continue
            for t in targets:
                top = t.split(".")[0]
                if top == "gin_env":
                    if _module_file(root, t).exists():
                        todo.append(t)
                else:
                    core = ("numpy", "gymnasium", "pettingzoo")
                    assert top in sys.stdlib_module_names or top in core, f"{name} imports {t}"
    assert {"gin_env.melds", "gin_env.cards", "gin_env.seat_view", "gin_env.games"} <= seen
