"""The batched engine (gin_env.vector.VectorGinEnv) against the AEC envs it must equal.

Every slot of a vector env is replayed through its own AEC ``raw_env`` (seeded ``seed + i``,
plain ``reset()`` for each later episode, the same actions): the masks, the observations of
the seat to act and of every other seat, the seat and role to act, the rewards, the hand
ends, the hand results and the scores must be identical, under every option of the envs,
with random, L1 (``simple``) and L2 (``heuristic``) play. The bulk (more than 10,000
hands) is marked slow.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gin_env import actions as A
from gin_env import gin_v0, three_handed_gin_v0
from gin_env.cards import parse_cards
from gin_env.vector import HAND_KINDS, VectorGinEnv

BACKENDS = ["python", "numba"]
GOLDEN = Path(__file__).resolve().parent / "golden" / "showdown.jsonl"

#: Option sets that together touch every option of the two envs.
GIN_OPTIONS: list[dict[str, Any]] = [
    {},
    {"knock_limit": 0, "gin_bonus": 20},
    {"knock_limit": 5, "undercut_bonus": 25, "big_gin_bonus": 31},
    {"allow_discard_of_taken_card": True, "big_gin_bonus": 0, "target_score": 60},
    {"oklahoma": True, "target_score": 50},
    {"hollywood": True, "target_score": 30, "dealer_rule": "winner"},
    {"dealer_rule": "loser", "reward": "individual", "episode": "hand"},
    {"reward": "match", "target_score": 25, "max_turns_per_hand": 12},
    {"dealer_rule": "alternate_scored", "target_score": 40, "max_turns_per_hand": 10},
    {"max_hands": 3, "reward_scale": 0.01, "gin_bonus": 0, "undercut_bonus": 0},
    {"hollywood": True, "oklahoma": True, "target_score": 15, "reward": "match"},
    {"reward": "zero_sum", "max_turns_per_hand": 1, "max_hands": 4},
]
THREE_OPTIONS: list[dict[str, Any]] = [
    {},
    {"adviser": "none"},
    {"adviser_sees_hand": False},
    {"adviser_sees_hand": False, "allow_discard_of_taken_card": True, "knock_limit": 7},
    {"reward": "zero_sum", "oklahoma": True, "big_gin_bonus": 50},
    {"reward": "individual", "episode": "hand", "knock_limit": 3},
    {"reward": "match", "target_score": 40, "max_hands": 5},
    {"max_turns_per_hand": 8, "undercut_bonus": 0, "gin_bonus": 0, "reward_scale": 2.5},
    {"adviser": "none", "reward": "match", "target_score": 20, "knock_limit": 0},
]
CASES = [("gin", o) for o in GIN_OPTIONS] + [("three_handed", o) for o in THREE_OPTIONS]


def _case_id(case: tuple[str, dict[str, Any]]) -> str:
    game, options = case
    return game + ("-" + "-".join(f"{k}={v}" for k, v in options.items()) if options else "")


def _module(game: str) -> Any:
    return gin_v0 if game == "gin" else three_handed_gin_v0


class Chooser:
    """Picks each slot's action: uniform random, or an agent of ``agents`` on the observation."""

    def __init__(self, policy: str, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        if policy == "random":
            self.agent = None
        else:
            import agents

            self.agent = agents.make(policy)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if self.agent is None:
            legal = np.flatnonzero(mask)
            return int(legal[self.rng.integers(len(legal))])
        return int(self.agent.act({"observation": obs, "action_mask": mask.astype(np.int8)}))


def _same(got: np.ndarray, expected: np.ndarray, where: str) -> None:
    """Rows equal (numpy's report, naming the first slot that differs, when not)."""
    if not np.array_equal(got, expected):
        i = int(np.flatnonzero((got != expected).reshape(len(got), -1).any(axis=1))[0])
        np.testing.assert_array_equal(got[i], expected[i], f"slot {i}, {where}")


def replay_against_aec(
    game: str,
    options: dict[str, Any],
    backend: str,
    num_envs: int,
    steps: int,
    seed: int,
    policy: str = "random",
    min_hands: int = 0,
    decks: np.ndarray | None = None,
) -> int:
    """Play a vector env and one AEC env per slot side by side for ``steps`` steps (or
    more, until ``min_hands`` hands have ended), asserting they agree at every step (every
    seat's observation included); return the number of hands finished. ``decks``: the first
    hands' decks (``reset(options=...)`` on both sides)."""
    module = _module(game)
    venv = VectorGinEnv(num_envs, game, seed=seed, backend=backend, **options)
    refs = [module.raw_env(**options) for _ in range(num_envs)]
    for i, ref in enumerate(refs):
        ref.reset(seed=seed + i, options=None if decks is None else {"deck": decks[i].tolist()})
    players = venv.num_players
    choose = Chooser(policy, seed)
    out = venv.reset(options=None if decks is None else {"decks": decks})
    hands = 0
    t = 0
    while t < steps or hands < min_hands:
        assert t < 100 * max(steps, min_hands), "too few hands end"
        views = [ref.observe(ref.agent_selection) for ref in refs]
        players_to_act = [ref.possible_agents.index(ref.agent_selection) for ref in refs]
        roles = [ref.table_state.roles[p] for ref, p in zip(refs, players_to_act, strict=True)]
        where = f"step {t}"
        assert out["seat"].tolist() == players_to_act, where
        assert out["role"].tolist() == roles, where
        _same(out["action_mask"], np.stack([v["action_mask"] != 0 for v in views]), where)
        _same(out["observation"], np.stack([v["observation"] for v in views]), where)
        actions = np.array(
            [choose(out["observation"][i], out["action_mask"][i]) for i in range(num_envs)]
        )
        for k in range(players):
            expected = np.stack(
                [ref.observe(ref.possible_agents[k])["observation"] for ref in refs]
            )
            _same(venv.observe(np.full(num_envs, k)), expected, f"{where}, seat {k}")
        records = [ref.table_state.history[-1] for ref in refs]
        out = venv.step(actions)
        results = venv.hand_results()
        for i, ref in enumerate(refs):
            ref.step(int(actions[i]))
            where = f"slot {i} step {t}"
            expected_rewards = [ref.rewards[a] for a in ref.possible_agents]
            assert out["rewards"][i].tolist() == np.float32(expected_rewards).tolist(), where
            rec = records[i]
            assert out["hand_over"][i] == (rec.result is not None), where
            if rec.result is not None:
                hands += 1
                r = rec.result
                got = {k: v[i].tolist() for k, v in results.items()}
                assert got == {
                    "kind": HAND_KINDS.index(r.kind),
                    "points": r.points,
                    "winner": -1 if r.winner is None else rec.players[r.winner],
                    "knocker": -1 if r.knocker is None else rec.players[r.knocker],
                    "scores": list(rec.scores_after),
                }, where
            ended = any(ref.terminations.values()) or any(ref.truncations.values())
            assert out["done"][i] == ended, where
            if ended:
                ref.reset()
        t += 1
    return hands


# -- the API --------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_shapes_and_types(backend, game):
    env = VectorGinEnv(3, game, seed=5, backend=backend)
    out = env.reset()
    assert out["observation"].shape == (3, 436) and out["observation"].dtype == np.float32
    assert out["action_mask"].shape == (3, 109) and out["action_mask"].dtype == np.bool_
    assert out["seat"].dtype == np.int64 and out["role"].dtype == np.int64
    assert env.num_players == (2 if game == "gin" else 3)
    first = np.array([np.flatnonzero(m)[0] for m in out["action_mask"]])
    step = env.step(first)
    assert step["rewards"].shape == (3, env.num_players) and step["rewards"].dtype == np.float32
    assert step["hand_over"].dtype == np.bool_ and step["done"].dtype == np.bool_


@pytest.mark.parametrize("backend", BACKENDS)
def test_illegal_action_names_slot_and_changes_nothing(backend):
    env = VectorGinEnv(4, "three_handed", seed=3, backend=backend)
    out = env.reset()
    actions = np.array([np.flatnonzero(m)[0] for m in out["action_mask"]])
    bad = actions.copy()
    bad[2] = A.BIG_GIN  # never legal without big_gin_bonus
    with pytest.raises(ValueError, match=r"slot 2: illegal action 108 \(big-gin\); legal: "):
        env.step(bad)
    for wrong in ([0.5] * 4, actions[:3], np.full(4, 200)):
        with pytest.raises(
            ValueError, match="actions must be|illegal action|action must be an int in 0..108"
        ):
            env.step(wrong)
    seen = env.observe(np.zeros(4, np.int64))
    # Nothing changed: the same actions now give what a fresh env gives.
    twin = VectorGinEnv(4, "three_handed", seed=3, backend=backend)
    twin.reset()
    np.testing.assert_array_equal(seen, twin.observe(np.zeros(4, np.int64)))
    a, b = env.step(actions), twin.step(actions)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], key)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_options_are_the_aec_errors(backend):
    with pytest.raises(ValueError, match="knock_limit must be an int in 0..10"):
        VectorGinEnv(2, "gin", backend=backend, knock_limit=11)
    with pytest.raises(ValueError, match="unknown option"):
        VectorGinEnv(2, "gin", backend=backend, adviser="none")
    with pytest.raises(ValueError, match="adviser must be one of"):
        VectorGinEnv(2, "three_handed", backend=backend, adviser="whisper")
    with pytest.raises(ValueError, match="game must be one of"):
        VectorGinEnv(2, "rummy", backend=backend)
    with pytest.raises(ValueError, match="num_envs must be an int"):
        VectorGinEnv(0, "gin", backend=backend)
    with pytest.raises(ValueError, match="render_mode"):
        VectorGinEnv(2, "gin", backend=backend, render_mode="ansi")
    with pytest.raises(ValueError, match="backend must be one of"):
        VectorGinEnv(2, "gin", backend="cuda")
    env = VectorGinEnv(2, "gin", seed=1, backend=backend)
    with pytest.raises(RuntimeError, match="reset"):
        env.step([0, 0])
    env.reset()
    with pytest.raises(ValueError, match="slot 1: seat 2 is not a player"):
        env.observe([0, 2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_seed_fixes_the_deals_and_reset_starts_next_episodes(backend):
    a = VectorGinEnv(3, "gin", seed=11, backend=backend, episode="hand")
    b = VectorGinEnv(3, "gin", seed=11, backend=backend, episode="hand")
    c = VectorGinEnv(3, "gin", seed=12, backend=backend, episode="hand")
    oa, ob, oc = a.reset(), b.reset(), c.reset()
    np.testing.assert_array_equal(oa["observation"], ob["observation"])
    # Slot i of seed 12 is slot i + 1 of seed 11.
    np.testing.assert_array_equal(oa["observation"][1:], oc["observation"][:2])
    # A plain reset() starts each slot's next episode, as the AEC env's plain reset does.
    ref = gin_v0.raw_env(episode="hand")
    ref.reset(seed=11)
    ref.reset()
    again = a.reset()
    np.testing.assert_array_equal(
        again["observation"][0], ref.observe(ref.agent_selection)["observation"]
    )
    np.testing.assert_array_equal(a.reset(seed=11)["observation"], oa["observation"])


# -- differential: the backends against the AEC env ------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_matches_aec_env_quick(backend, case):
    game, options = case
    hands = replay_against_aec(
        game, options, backend, num_envs=3, steps=250 if game == "three_handed" else 150, seed=17
    )
    assert hands > 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("policy", ["simple", "heuristic"])
@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_matches_aec_env_with_agents_quick(backend, policy, game):
    hands = replay_against_aec(game, {}, backend, num_envs=3, steps=250, seed=23, policy=policy)
    assert hands > 0


# -- the golden showdowns through the engine -------------------------------------------------


def _golden_rows() -> list[dict[str, Any]]:
    with GOLDEN.open() as f:
        return [json.loads(line) for line in f if line.strip()]


def _knock_deck(knocker: list[int], defender: list[int]) -> tuple[list[int], int]:
    """A deck dealing ``knocker`` to the non-dealer and ``defender`` to the dealer, and the
    top card of the stock (drawn by the non-dealer, then discarded with the knock)."""
    rest = [c for c in range(52) if c not in set(knocker) | set(defender)]
    deck = [c for pair in zip(knocker, defender, strict=True) for c in pair] + rest
    return deck, rest[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_golden_showdowns_through_the_engine(backend):
    rows = _golden_rows()
    assert len(rows) == 55
    by_options: dict[tuple[int, int, int], list[dict[str, Any]]] = {}
    for row in rows:
        key = (row["knock_limit"], row["gin_bonus"], row["undercut_bonus"])
        by_options.setdefault(key, []).append(row)
    for (limit, gin, undercut), group in by_options.items():
        n = len(group)
        env = VectorGinEnv(
            n, "gin", seed=1, backend=backend, knock_limit=limit, gin_bonus=gin,
            undercut_bonus=undercut,
        )  # fmt: skip
        decks, drawn = zip(
            *(_knock_deck(parse_cards(r["knocker"]), parse_cards(r["defender"])) for r in group),
            strict=True,
        )
        out = env.reset(options={"decks": np.array(decks)})
        knocker = out["seat"].copy()  # the non-dealer acts first
        for action in (A.PASS, A.PASS, A.DRAW_STOCK):
            out = env.step(np.full(n, action))
        assert (out["seat"] == knocker).all()
        out = env.step(np.array([A.KNOCK + c for c in drawn]))
        assert out["hand_over"].all()
        results = env.hand_results()
        for i, row in enumerate(group):
            kind = HAND_KINDS[results["kind"][i]]
            points = row["defender_points"] if kind == "undercut" else row["knocker_points"]
            assert (kind, results["points"][i]) == (row["kind"], points), row
            winner = knocker[i] if kind != "undercut" else 1 - knocker[i]
            assert (results["knocker"][i], results["winner"][i]) == (knocker[i], winner), row


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_given_decks_as_the_aec_env_deals_them(backend, game):
    decks = np.array([np.random.default_rng(k).permutation(52) for k in range(3)])
    hands = replay_against_aec(game, {}, backend, 3, steps=50, seed=4, min_hands=3, decks=decks)
    assert hands > 0
    env = VectorGinEnv(3, game, seed=4, backend=backend)
    with pytest.raises(ValueError, match=r"options\['decks'\]\[1\] must be a permutation"):
        env.reset(options={"decks": np.array([decks[0], decks[0] % 51, decks[2]])})
    with pytest.raises(ValueError, match="must be 3 decks of 52"):
        env.reset(options={"decks": decks[:2]})


# -- the bulk: more than 10,000 hands -------------------------------------------------------

#: Hands per (option set, policy): 20 option sets x 3 policies x 180 > 10,000 hands.
BULK_HANDS = 180


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["random", "simple", "heuristic"])
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_matches_aec_env_bulk(case, policy):
    game, options = case
    seed = 1000 + CASES.index(case) * 7 + ["random", "simple", "heuristic"].index(policy)
    hands = replay_against_aec(
        game, options, "numba", num_envs=16, steps=0, seed=seed, policy=policy,
        min_hands=BULK_HANDS,
    )  # fmt: skip
    assert hands >= BULK_HANDS


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("oklahoma", [False, True])
def test_big_gin_scores_bonus_plus_deadwood(backend, oklahoma):
    """Ten spades to the non-dealer and the jack of spades as upcard: he takes it and lays
    down big gin (Oklahoma: a jack of spades upcard doubles it)."""
    spades = parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S TS")
    defender = parse_cards("AH 3H 5H 7H 9H JH KH 2D 4D 6D")
    deck, _ = _knock_deck(spades, defender)
    jack = parse_cards("JS")[0]
    deck.remove(jack)
    deck.insert(20, jack)
    env = VectorGinEnv(1, "gin", seed=2, backend=backend, big_gin_bonus=31, oklahoma=oklahoma)
    out = env.reset(options={"decks": np.array([deck])})
    player = out["seat"][0]
    out = env.step([A.TAKE_DISCARD])
    assert out["action_mask"][0, A.BIG_GIN]
    out = env.step([A.BIG_GIN])
    assert out["hand_over"][0]
    points = (31 + 1 + 3 + 5 + 7 + 9 + 10 + 10 + 2 + 4 + 6) * (2 if oklahoma else 1)
    results = env.hand_results()
    assert HAND_KINDS[results["kind"][0]] == "big_gin"
    assert (results["points"][0], results["winner"][0]) == (points, player)
    assert out["rewards"][0, player] == points and out["rewards"][0, 1 - player] == -points


def test_parallel_kernel_equals_serial():
    numba = pytest.importorskip("numba")
    from gin_env import fast_game

    n = 64
    runs = []
    for threads in (1, 2):
        previous = numba.get_num_threads()
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        fast_game.PARALLEL_MIN_ENVS = None if threads == 1 else n
        try:
            env = VectorGinEnv(n, "three_handed", seed=8, backend="numba", reward="zero_sum")
            out = env.reset()
            rng = np.random.default_rng(0)
            seen = []
            for _ in range(60):
                legal = [np.flatnonzero(m) for m in out["action_mask"]]
                out = env.step([int(x[rng.integers(len(x))]) for x in legal])
                seen.append(out)
            runs.append(seen)
        finally:
            numba.set_num_threads(previous)
            fast_game.PARALLEL_MIN_ENVS = None
    for a, b in zip(*runs, strict=True):
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], key)


@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_active_slots_move_alone_in_both_backends(game):
    """``step(actions, active)``: inactive slots keep their state (their action is ignored,
    even an illegal one), get no reward and no end; both backends agree step by step."""
    envs = [VectorGinEnv(6, game, seed=31, backend=b, episode="hand") for b in BACKENDS]
    outs = [env.reset() for env in envs]
    rng = np.random.default_rng(5)
    ended = 0
    for t in range(600):
        active = rng.random(6) < 0.5
        legal = [np.flatnonzero(m) for m in outs[0]["action_mask"]]
        actions = np.array([x[rng.integers(len(x))] for x in legal])
        actions[~active] = A.BIG_GIN  # ignored where inactive
        before = outs[0]
        outs = [env.step(actions, active) for env in envs]
        for key in outs[0]:
            np.testing.assert_array_equal(outs[0][key], outs[1][key], f"{key} step {t}")
        idle = ~active
        np.testing.assert_array_equal(outs[0]["observation"][idle], before["observation"][idle])
        assert not outs[0]["rewards"][idle].any() and not outs[0]["hand_over"][idle].any()
        ended += int(outs[0]["done"].sum())
    assert ended > 0
    results = [env.hand_results() for env in envs]
    for key in results[0]:
        np.testing.assert_array_equal(results[0][key], results[1][key], key)
    with pytest.raises(ValueError, match="active must be 6 bools"):
        envs[0].step(actions, active=[1] * 6)
