"""Vector APIs over the batched engine: batched L0/L1 (and per-row agents), the Gymnasium
``LearnerVectorEnv`` (one learner against batched opponents) and the SB3 adapter that
``MaskablePPO`` trains on unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.passive_env_checker import check_obs
from gymnasium.vector import AutoresetMode

from agents import make, seat
from agents.batched import BatchedRandom, BatchedSimple, PerRow, card_masks, seat_batched
from agents.heuristic_batched import BatchedHeuristic
from agents.simple import SimpleAgent
from agents.vector import LearnerVectorEnv
from gin_env import actions as A
from gin_env.config import GinConfig
from gin_env.encoding import OBS_SLICES
from gin_env.vector import VectorGinEnv

OPTION_SETS = [
    ("gin", {}),
    ("gin", {"big_gin_bonus": 30, "allow_discard_of_taken_card": True, "oklahoma": True}),
    ("three_handed", {}),
    ("three_handed", {"adviser_sees_hand": False}),
    ("three_handed", {"adviser": "none", "knock_limit": 5}),
]


def _positions(game: str, options: dict, steps: int = 60, n: int = 24):
    """(observations, masks) of the seat to act along mixed L1 / random play."""
    env = VectorGinEnv(n, game, seed=11, backend="python", **options)
    out = env.reset()
    rng = np.random.default_rng(0)
    simple, rand = BatchedSimple(), BatchedRandom()
    for _ in range(steps):
        yield out["observation"], out["action_mask"]
        o, m = out["observation"], out["action_mask"]
        acts = np.where(rng.random(n) < 0.7, simple.act(o, m), rand.act(o, m, rng))
        out = env.step(acts)


# -- batched agents ------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "options"), OPTION_SETS)
def test_batched_simple_decides_exactly_as_simple_agent(game: str, options: dict) -> None:
    per_game = SimpleAgent()
    batched = BatchedSimple()
    kinds = set()
    for obs, masks in _positions(game, options):
        got = batched.act(obs, masks)
        want = [
            per_game.act({"observation": obs[i], "action_mask": masks[i].astype(np.int8)})
            for i in range(len(obs))
        ]
        assert got.tolist() == want
        kinds |= {A.action_str(a).split()[0] for a in want}
    assert {"draw", "take", "discard", "knock"} <= kinds


def test_card_masks_reads_the_hand_part() -> None:
    obs = np.zeros((2, 436), np.float32)
    obs[0, OBS_SLICES["hand"].start + 51] = 1
    obs[1, OBS_SLICES["hand"].start + 0] = 1
    obs[1, OBS_SLICES["hand"].start + 13] = 1
    assert card_masks(obs[:, OBS_SLICES["hand"]]).tolist() == [1 << 51, 1 | 1 << 13]


def test_batched_random_is_legal_uniform_and_seeded() -> None:
    obs, masks = next(iter(_positions("three_handed", {}, steps=1, n=8)))
    masks = masks.copy()
    masks[0] = False
    masks[0, [A.DISCARD + 5, A.DISCARD + 9, A.KNOCK + 9]] = True
    a = BatchedRandom()
    picks = np.stack([a.act(obs, masks, np.random.default_rng(s)) for s in range(300)])
    assert masks[np.arange(8)[None, :], picks].all()
    assert set(picks[:, 0].tolist()) == {A.DISCARD + 5, A.DISCARD + 9, A.KNOCK + 9}
    counts = np.bincount(picks[:, 0], minlength=A.NUM_ACTIONS)[[9, 13, A.KNOCK + 9]]
    assert counts.min() > 60  # about 100 each
    again = BatchedRandom(seed=4).act(obs, masks)
    assert again.tolist() == BatchedRandom(seed=4).act(obs, masks).tolist()


def test_per_row_heuristic_is_the_agent_row_by_row() -> None:
    obs, masks = next(iter(_positions("gin", {}, steps=1)))
    h = make("heuristic")
    got = PerRow(make("heuristic")).act(obs, masks)
    assert got.tolist() == [
        h.act({"observation": obs[i], "action_mask": masks[i].astype(np.int8)})
        for i in range(len(obs))
    ]


@pytest.mark.parametrize("table", ["default", "openspiel"])
def test_batched_tuned_plays_the_tuned_set_of_the_table_as_the_agent_does(table: str) -> None:
    from agents.tuned import TABLES, rules_dict

    rules = rules_dict(TABLES[table])
    agent = seat("tuned", GinConfig(**rules))
    batched = seat_batched("tuned", GinConfig(**rules))
    assert isinstance(batched, BatchedHeuristic) and batched.params == agent.params
    for obs, masks in _positions("gin", rules, steps=20):
        assert batched.act(obs, masks).tolist() == [
            agent.act({"observation": obs[i], "action_mask": masks[i].astype(np.int8)})
            for i in range(len(obs))
        ]


def test_batched_policies_refuse_bad_input_and_bad_names() -> None:
    obs, masks = next(iter(_positions("gin", {}, steps=1, n=3)))
    with pytest.raises(ValueError, match="observations must have shape"):
        BatchedSimple().act(obs[:, :10], masks)
    with pytest.raises(ValueError, match="masks must have shape"):
        BatchedRandom().act(obs, masks[:2])
    empty = masks.copy()
    empty[1] = False
    with pytest.raises(ValueError, match="row 1 has no legal action"):
        BatchedSimple().act(obs, empty)
    gin = GinConfig()
    with pytest.raises(ValueError, match="unknown agent 'nobody': registered .*heuristic"):
        seat_batched("nobody", gin)
    assert isinstance(seat_batched("simple", gin), BatchedSimple)
    assert isinstance(seat_batched("heuristic", gin), BatchedHeuristic)  # compiled
    assert isinstance(seat_batched("search:budget=0.01", gin), PerRow)


# -- the Gymnasium VectorEnv -------------------------------------------------------------------
def _play(env: LearnerVectorEnv, steps: int, seed: int) -> list[tuple]:
    obs, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = [(obs.copy(), infos["learner_seat"].copy())]
    for _ in range(steps):
        masks = env.action_masks()
        acts = BatchedRandom().act(obs, masks, rng)
        obs, rew, term, trunc, infos = env.step(acts)
        trace.append((obs.copy(), rew.copy(), term.copy(), trunc.copy(), infos["learner_seat"]))
    return trace


def _same(a: list[tuple], b: list[tuple]) -> bool:
    return all(
        all(np.array_equal(x, y) for x, y in zip(s, t, strict=True))
        for s, t in zip(a, b, strict=True)
    )


def test_learner_vector_env_passes_gymnasium_checks() -> None:
    env = LearnerVectorEnv(6, "three_handed", opponents="simple", seed=1, episode="hand")
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert env.observation_space.shape == (6, 436) and env.action_space.shape == (6,)
    obs, infos = env.reset(seed=5)
    check_obs(obs, env.observation_space, "reset")
    assert env.observation_space.contains(obs)
    assert isinstance(infos, dict) and infos["_learner_seat"].all()
    first = obs.copy()
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(150):
        masks = env.action_masks()
        assert masks.dtype == bool and masks.any(axis=1).all()
        obs, rew, term, trunc, infos = env.step(BatchedRandom().act(obs, masks, rng))
        check_obs(obs, env.observation_space, "step")
        assert rew.shape == (6,) and rew.dtype == np.float32
        assert term.dtype == bool and trunc.dtype == bool and not trunc.any()
        # Every game waits for its learner: the observation is that seat's own view.
        assert np.array_equal(obs, env.engine.observe(infos["learner_seat"]))
        ends += term.sum()
    assert ends > 5
    obs[:] = 0  # the caller may write into what it got: the env's state is its own
    assert env.action_masks().any(axis=1).all()
    # Seeding: the same seed gives the same episode (reset and step determinism).
    again = LearnerVectorEnv(6, "three_handed", opponents="simple", seed=1, episode="hand")
    assert np.array_equal(again.reset(seed=5)[0], first)
    env.close()
    assert env.closed


def test_learner_vector_env_backends_agree_and_rewards_are_the_learners() -> None:
    kw = {"opponents": ["simple", "random"], "learner": 0, "episode": "hand"}
    py = _play(LearnerVectorEnv(5, "gin", backend="python", **kw), 120, seed=3)
    nb = _play(LearnerVectorEnv(5, "gin", backend="numba", **kw), 120, seed=3)
    assert _same(py, nb)
    # The learner's reward at each hand's end is its side of the hand's points.
    env = LearnerVectorEnv(5, "gin", backend="numba", reward="zero_sum", **kw)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(200):
        obs, rew, term, _, infos = env.step(BatchedRandom().act(obs, env.action_masks(), rng))
        assert (infos["learner_seat"] == 0).all()
        results = env.engine.hand_results()
        for i in np.flatnonzero(term).tolist():
            winner, points = int(results["winner"][i]), float(results["points"][i])
            want = 0.0 if winner < 0 else (points if winner == 0 else -points)
            assert rew[i] == pytest.approx(want)
            checked += 1
        assert not rew[~term].any()  # points come with the hand's end only
    assert checked > 10


def test_learner_vector_env_opponents_by_name_and_bad_ones() -> None:
    env = LearnerVectorEnv(2, "three_handed", opponents={0: "heuristic", 1: "simple"}, learner=2)
    env.reset(seed=0)
    assert env.step(BatchedRandom().act(*_obs_masks(env)))[0].shape == (2, 436)
    with pytest.raises(ValueError, match="unknown agent 'nobody': registered"):
        LearnerVectorEnv(2, opponents="nobody")
    with pytest.raises(ValueError, match=r"every seat the learner does not hold \(\[0, 2\]\)"):
        LearnerVectorEnv(2, "three_handed", opponents={0: "simple"}, learner=1)
    with pytest.raises(ValueError, match="learner must be 'random', a seat"):
        LearnerVectorEnv(2, learner=5)
    with pytest.raises(ValueError, match="knock_limit must be an int in 0..10"):
        LearnerVectorEnv(2, knock_limit=11)


def _obs_masks(env: LearnerVectorEnv) -> tuple[np.ndarray, np.ndarray]:
    assert env._out is not None
    return env._out["observation"], env.action_masks()


# -- SB3 -------------------------------------------------------------------------------------
def test_maskable_ppo_learns_on_the_sb3_adapter() -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from training.vec_env import make_sb3_vec_env

    vec = make_sb3_vec_env(4, "gin", opponents="simple", seed=0, episode="hand")
    assert is_masking_supported(vec)
    obs = vec.reset()
    masks = get_action_masks(vec)
    assert obs.shape == (4, 436) and masks.shape == (4, A.NUM_ACTIONS) and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0)
    model.learn(300)
    assert model.num_timesteps >= 300
    # It only ever chose legal actions (the env would have raised), and so it does now.
    obs = vec.reset()
    masks = get_action_masks(vec)
    action, _ = model.predict(obs, action_masks=masks)
    assert masks[np.arange(4), action].all()


def test_learner_vector_env_state_is_the_games_state_at_the_learners_turn() -> None:
    from agents.vector import LearnerVectorEnv
    from gin_env.encoding import OBS_SLICES, state_views

    env = LearnerVectorEnv(3, opponents="simple", seed=4, backend="python")
    with pytest.raises(RuntimeError, match="reset"):
        env.state()
    obs, infos = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(12):
        state = env.state()
        assert state.shape == (3, env.engine.state_size)
        for i in range(3):
            views = state_views(state[i], env.num_players)
            seat = int(infos["learner_seat"][i])
            # The learner is to act and its hand in the state is the one it observes.
            assert views["to_act"][seat] == 1.0
            hand = obs[i, OBS_SLICES["hand"]]
            np.testing.assert_array_equal(views["hands"].reshape(env.num_players, -1)[seat], hand)
        masks = env.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, _, _, _, infos = env.step(acts)


@pytest.mark.parametrize("game", ["gin_v1", "three_handed_v1"])
def test_learner_vector_env_history_is_the_learners(game: str) -> None:
    from agents.vector import LearnerVectorEnv

    env = LearnerVectorEnv(
        3, game, opponents="simple", seed=2, backend="python", observation="history"
    )
    # The v1 games observe 499 entries, and the space says so.
    assert env.single_observation_space.shape == (env.engine.observation_size,) == (499,)
    with pytest.raises(RuntimeError, match="reset"):
        env.history()
    obs, infos = env.reset()
    assert obs.shape == (3, 499)
    rng = np.random.default_rng(1)
    moves = 0
    for _ in range(15):
        history, mask = env.history()
        want_h, want_m = env.engine.history(infos["learner_seat"])
        np.testing.assert_array_equal(history, want_h)
        np.testing.assert_array_equal(mask, want_m)
        assert history.shape[:2] == mask.shape == (3, 64)
        moves = max(moves, int(mask.sum(axis=1).max()))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        obs, _, _, _, infos = env.step(acts)
    assert moves > 5  # the history fills as the hands go on
    flat = LearnerVectorEnv(2, "gin", opponents="simple", seed=0, backend="python")
    flat.reset()
    with pytest.raises(ValueError, match='observation="history"'):
        flat.history()


def test_batched_players_read_the_v1_layout_as_v0() -> None:
    from gin_env.encoding import OBS_SIZE
    from gin_env.vector import VectorGinEnv

    env = VectorGinEnv(16, "gin_v1", seed=3, backend="python")
    out = env.reset()
    simple = seat_batched("simple", GinConfig())
    rows = seat_batched("heuristic", GinConfig())
    rng = np.random.default_rng(0)
    for _ in range(20):
        obs, mask = out["observation"], out["action_mask"]
        assert obs.shape[1] == 499
        want = simple.act(obs[:, :OBS_SIZE], mask)
        np.testing.assert_array_equal(simple.act(obs, mask), want)
        np.testing.assert_array_equal(rows.act(obs, mask), rows.act(obs[:, :OBS_SIZE], mask))
        with pytest.raises(ValueError, match=r"\(N, 436\) \(or \(N, 499\)"):
            simple.act(obs[:, :100], mask)
        out = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
