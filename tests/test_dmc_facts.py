"""The DMC action encoding ``features="facts"``: the compiled facts (gin_env.fast_facts)
against the readable reference, their meaning on a constructed hand, their reading only the
observation, and tiny training runs whose players load and play with numpy alone."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import dmc
from agents.batched import BatchedSimple
from gin_env import actions as A
from gin_env import gin_v0, three_handed_gin_v0
from gin_env.cards import NUM_CARDS, parse_card, parse_cards, to_mask
from gin_env.encoding import OBS_SIZE, OBS_SLICES, encode_observation
from gin_env.fast_facts import FACTS, NUM_FACTS
from gin_env.match import GinMatch
from gin_env.melds import deadwood_mask
from gin_env.vector import VectorGinEnv

ROOT = Path(__file__).resolve().parent.parent
COL = {name: dmc.ACTION_FEATURES + i for i, name in enumerate(FACTS)}


def test_the_facts_mode_is_wired_into_the_layout() -> None:
    assert "facts" in dmc.FEATURE_MODES and NUM_FACTS == 10
    assert dmc.action_size("facts") == dmc.ACTION_FEATURES + NUM_FACTS == 71
    layout = dmc.input_layout("facts")
    assert layout["action_size"] == 71 and layout["features"] == "facts"
    assert layout["action_encoding"].startswith("dmc-action-v1+facts-")
    assert layout["observation"] == dmc.input_layout("basic")["observation"]


def test_the_torch_build_and_its_numpy_twin_agree_on_facts() -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(2)
    model = dmc.torch_model([12, 7], "facts")
    (net,) = dmc.qnets([model])
    env = VectorGinEnv(6, "gin", seed=5, backend="python")
    out = env.reset()
    for _ in range(6):
        obs, mask = out["observation"], out["action_mask"]
        rows, _, feats = dmc.encode_pairs(obs, mask, "facts")
        with torch.no_grad():
            expect = model.pairs(torch.from_numpy(obs), torch.from_numpy(rows),
                                 torch.from_numpy(feats)).numpy()  # fmt: skip
        assert np.allclose(net.q(obs, rows, feats), expect, atol=1e-5)
        agent = dmc.DMCAgent([net], features="facts")
        out = env.step(agent.act_batch(obs, mask))


# -- the compiled kernel against the reference ---------------------------------------------------
@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_the_compiled_facts_equal_the_reference_in_play(game: str) -> None:
    """pair_facts over the batch against pair_facts_reference pair by pair, on random and
    L1 play in every role (the adviser's unseen hand included); the first 61 entries of
    the encoding are basic's."""
    env = VectorGinEnv(32, game, seed=21, backend="python")
    out = env.reset()
    rng = np.random.default_rng(4)
    l1 = BatchedSimple()
    states = pairs = 0
    nonzero = np.zeros(NUM_FACTS, np.int64)
    for step in range(60):
        obs, mask = out["observation"], out["action_mask"]
        rows, acts, feats = dmc.encode_pairs(obs, mask, "facts")
        _, _, basic = dmc.encode_pairs(obs, mask, "basic")
        assert np.array_equal(feats[:, : dmc.ACTION_FEATURES], basic)
        expect = dmc.pair_facts_reference(obs, rows, acts)
        assert np.array_equal(feats[:, dmc.ACTION_FEATURES :], expect)
        states, pairs = states + len(obs), pairs + len(rows)
        nonzero += (expect != 0).sum(axis=0)
        if step % 2:
            acts = l1.act(obs, mask)
        else:
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        out = env.step(acts)
    assert states >= 1900 and pairs > 10_000
    assert (nonzero > 50).all(), dict(zip(FACTS, nonzero.tolist(), strict=True))


def _random_obs(rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """A made-up observation: a hand of 10 or 11 cards, often rich in sets and runs, and
    random pile, pick-ups and discards; its mask the moves of that hand size."""
    deck = list(range(NUM_CARDS))
    rng.shuffle(deck)
    n = rng.choice((10, 11))
    hand: set[int] = set()
    while len(hand) < n:  # pieces of sets and runs, topped up with random cards
        r, s = rng.randrange(13), rng.randrange(4)
        piece = (
            [13 * t + r for t in rng.sample(range(4), rng.choice((2, 3, 4)))]
            if rng.random() < 0.4
            else [13 * s + q for q in range(r, min(r + rng.choice((2, 3, 4)), 13))]
            if rng.random() < 0.6
            else [rng.randrange(NUM_CARDS)]
        )
        for c in piece:
            if len(hand) < n:
                hand.add(c)
    rest = [c for c in deck if c not in hand]
    k = rng.randrange(0, 16)
    pile, rest = rest[:k], rest[k:]
    m = rng.randrange(0, 4)
    took, rest = rest[:m], rest[m:]
    obs = np.zeros(OBS_SIZE, np.float32)

    def put(part: str, cards: list[int] | set[int]) -> None:
        obs[OBS_SLICES[part].start + np.array(sorted(cards), np.int64)] = 1.0

    put("hand", hand)
    if pile:
        put("discard_pile", pile)
        put("top_discard", [pile[-1]])
        put("opponent_discarded", rng.sample(pile, len(pile) // 2))
        put("partner_discarded", rng.sample(pile, len(pile) // 3))
    if took:
        put("opponent_took", took)
    mask = np.zeros(A.NUM_ACTIONS, np.int8)
    if n == 11:
        for c in hand:
            mask[A.DISCARD + c] = 1
            mask[A.KNOCK + c] = rng.random() < 0.3
        mask[A.BIG_GIN] = rng.random() < 0.2
    else:
        mask[[A.DRAW_STOCK, A.PASS]] = 1
        mask[A.TAKE_DISCARD] = bool(pile)
    return obs, mask


def test_the_compiled_facts_equal_the_reference_on_made_up_states() -> None:
    """Thousands of made-up states (hands rich in sets and runs: the deadwood kernels'
    hard cases)."""
    rng = random.Random(7)
    made = [_random_obs(rng) for _ in range(3000)]
    obs = np.stack([o for o, _ in made])
    mask = np.stack([m for _, m in made])
    rows, acts = np.nonzero(mask)
    got = dmc.pair_facts(obs, rows, acts)
    assert np.array_equal(got, dmc.pair_facts_reference(obs, rows, acts))
    assert (got != 0).sum(axis=0).min() > 50


# -- what the facts mean ---------------------------------------------------------------------------
def _obs(hand: str, pile: str = "", took: str = "") -> np.ndarray:
    obs = np.zeros(OBS_SIZE, np.float32)
    for part, text in (("hand", hand), ("discard_pile", pile), ("opponent_took", took)):
        for c in parse_cards(text) if text else []:
            obs[OBS_SLICES[part].start + c] = 1.0
    if pile:
        obs[OBS_SLICES["top_discard"].start + parse_cards(pile)[-1]] = 1.0
    return obs


def test_the_facts_of_a_constructed_discard() -> None:
    """AS 2S 3S is a meld; 7C is in the pile, the opponent took TC. Discarding KH leaves
    three melded cards, four live outs (4S, 7S, 3D, 6D; not 7C: dead, not TC: taken) and
    three starts (7H 7D: 7S unseen; 4D 5D: 3D or 6D; 5D 7D: 6D; not 9C JC: TC is taken)."""
    obs = _obs("AS 2S 3S 7H 7D 9C JC KH 4D 5D QS", pile="7C", took="TC")
    mask = np.zeros((1, A.NUM_ACTIONS), np.int8)
    for c in ("KH", "JC", "7H"):
        mask[0, A.DISCARD + parse_card(c)] = 1
    rows, acts, feats = dmc.encode_pairs(obs[None], mask, "facts")
    by = {(int(a) - A.DISCARD): f for a, f in zip(acts, feats, strict=True)}
    kh, jc, h7 = by[parse_card("KH")], by[parse_card("JC")], by[parse_card("7H")]
    assert kh[COL["melded"]] * 10 == pytest.approx(3)
    assert kh[COL["outs"]] * 20 == pytest.approx(4)
    assert kh[COL["starts"]] * 10 == pytest.approx(3)
    assert kh[COL["danger"]] == 0 and kh[COL["points"]] == pytest.approx(1.0)
    assert kh[COL["mates_gone"]] == 0 and kh[COL["neighbours_gone"]] == 0
    # JC: the opponent holds TC, beside it; JC's neighbours in reach of us: 9C (held).
    assert jc[COL["danger"]] == 1 and jc[COL["danger_count"]] * 4 == pytest.approx(1)
    assert jc[COL["neighbours_gone"]] * 4 == pytest.approx(1)  # 9C in the hand; TC not gone
    # 7H: its mates 7D (held) and 7C (dead) are out of the opponent's reach.
    assert h7[COL["mates_gone"]] * 3 == pytest.approx(2) and h7[COL["danger"]] == 0
    assert np.all(feats[:, COL["take_melds"]] == 0)


def test_the_facts_of_a_constructed_take() -> None:
    """Taking 7C onto 7H 7D makes a set: take_melds is 1 and take_gain the deadwood saved
    (the best discard after it, KH); drawing keeps the hand as it is."""
    hand = "AS 2S 3S 7H 7D 9C JC KH 4D 5D"
    obs = _obs(hand, pile="2H 7C")
    mask = np.zeros((1, A.NUM_ACTIONS), np.int8)
    mask[0, [A.DRAW_STOCK, A.TAKE_DISCARD]] = 1
    _, acts, feats = dmc.encode_pairs(obs[None], mask, "facts")
    draw, take = feats[acts == A.DRAW_STOCK][0], feats[acts == A.TAKE_DISCARD][0]
    cards = to_mask(parse_cards(hand))
    after = (cards | 1 << parse_card("7C")) & ~(1 << parse_card("KH"))
    assert take[COL["take_melds"]] == 1
    assert take[COL["take_gain"]] * 50 == pytest.approx(deadwood_mask(cards) - deadwood_mask(after))
    assert take[COL["melded"]] * 10 == pytest.approx(6) and draw[COL["melded"]] * 10 == 3
    assert draw[COL["take_melds"]] == 0 and draw[COL["danger"]] == 0


# -- only the observation --------------------------------------------------------------------------
def test_the_facts_read_only_what_the_seat_has_seen() -> None:
    """Two worlds the seat cannot tell apart (the opponent's hidden cards and the stock
    dealt again, GinHand.resample) give the same observation and the same facts."""
    rng = random.Random(3)
    checked = 0
    for _ in range(30):
        deck = list(range(NUM_CARDS))
        rng.shuffle(deck)
        match = GinMatch(deal=lambda i, d=deck: d)
        for _ in range(rng.randrange(0, 30)):
            if match.hand.is_over:
                break
            match.step(rng.choice(match.legal_actions()), next_hand=False)
        if match.hand.is_over:
            continue
        seat = match.hand.current
        player = match.record.players[seat]
        legal = np.zeros((1, A.NUM_ACTIONS), np.int8)
        legal[0, match.legal_actions()] = 1
        obs = encode_observation(match, player)[None]
        real = match.hand
        other = real.resample(seat, rng)
        match.hand = other
        obs2 = encode_observation(match, player)[None]
        match.hand = real
        if other.hands[1 - seat] == real.hands[1 - seat]:
            continue
        assert np.array_equal(obs, obs2)
        assert np.array_equal(
            dmc.encode_pairs(obs, legal, "facts")[2], dmc.encode_pairs(obs2, legal, "facts")[2]
        )
        checked += 1
    assert checked >= 20


# -- tiny runs: train, load, play ------------------------------------------------------------------
def _play_hand(agent: dmc.DMCAgent, module: object) -> int:
    env = module.raw_env(episode="hand")  # type: ignore[attr-defined]
    env.reset(seed=5)
    moves = 0
    for _ in env.agent_iter():
        ob, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = agent.act(ob)
        assert ob["action_mask"][a]
        env.step(a)
        moves += 1
    return moves


@pytest.mark.slow
@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_a_tiny_facts_run_trains_and_its_player_loads_and_plays(tmp_path: Path, game: str) -> None:
    run = tmp_path / "run"
    cmd = [
        sys.executable, "-m", "training.train_dmc", "--env", game, "--features", "facts",
        "--total-steps", "3000", "--num-envs", "16", "--eval-every", "100000",
        "--run-dir", str(run), "--progress", "false",
    ]  # fmt: skip
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    agent = dmc.load(run / "latest.npz")
    assert agent.features == "facts" and agent.meta["input_layout"] == dmc.input_layout("facts")
    assert agent.nets[0].w_act.shape[1] == dmc.action_size("facts")
    module = gin_v0 if game == "gin" else three_handed_gin_v0
    assert _play_hand(agent, module) > 0
