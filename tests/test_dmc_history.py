"""DMC networks that read the move history (``--history lstm``): the numpy twin of the torch
build, the replay's move codes, the player's need for the history observation, a tiny run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents import dmc  # noqa: E402
from gin_env import gin_v0  # noqa: E402
from gin_env.encoding import HISTORY_FEATURES, HISTORY_LENGTH  # noqa: E402
from gin_env.vector import VectorGinEnv  # noqa: E402
from training.checkpoints import latest_checkpoint  # noqa: E402
from training.dmc_actors import SharedWeights, history_codes, history_from_codes  # noqa: E402
from training.periodic_eval import evaluate_agent  # noqa: E402
from training.train_dmc import Args, export, parse_args, train  # noqa: E402


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    """Small products on one thread: two threads on a busy machine are many times slower."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def history_batches(game: str, steps: int, seed: int = 3, n: int = 6) -> list[dict]:
    """Engine outputs with the history, random legal play: the first ones have short
    histories (none at all at a hand's first decision), later ones long."""
    env = VectorGinEnv(n, game, seed=seed, backend="python", observation="history")
    rng = np.random.default_rng(seed)
    out = env.reset()
    batches = []
    for _ in range(steps):
        batches.append(out)
        out = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in out["action_mask"]]))
    return batches


def test_the_history_network_and_its_numpy_twin_score_every_pair_alike() -> None:
    import torch

    torch.manual_seed(2)
    model = dmc.torch_model([12, 7], "basic", "lstm")
    (net,) = dmc.qnets([model])
    assert net.history is not None and net.w_obs.shape[1] == 436 + dmc.HISTORY_DIM
    lengths = set()
    for out in history_batches("gin", 36)[::7]:
        obs, mask = out["observation"], out["action_mask"]
        hist, hmask = out["history"], out["history_mask"]
        lengths |= set(hmask.sum(1).tolist())
        rows, _, feats = dmc.encode_pairs(obs, mask)
        t = [torch.from_numpy(x) for x in (obs, rows, feats, hist, hmask)]
        with torch.no_grad():
            expect = model.pairs(*t).numpy()
            single = model(t[0][rows], t[2], t[3][rows], t[4][rows]).numpy()
        got = net.q(obs, rows, feats, hist, hmask)
        assert np.allclose(got, expect, atol=1e-5) and np.allclose(got, single, atol=1e-5)
    assert 0 in lengths and max(lengths) > 20  # empty and long histories both checked
    # The history matters: the same observation with another history scores otherwise.
    out = history_batches("gin", 30)[-1]
    rows, _, feats = dmc.encode_pairs(out["observation"], out["action_mask"])
    a = net.q(out["observation"], rows, feats, out["history"], out["history_mask"])
    b = net.q(out["observation"], rows, feats, out["history"][::-1], out["history_mask"][::-1])
    assert not np.allclose(a, b)


@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_move_codes_give_back_the_engines_history_exactly(game: str) -> None:
    batches = history_batches(game, 60, seed=4)
    hist = np.concatenate([b["history"] for b in batches])
    hmask = np.concatenate([b["history_mask"] for b in batches])
    codes = history_codes(hist, hmask)
    assert codes.dtype == np.uint16 and codes.shape == (len(hist), HISTORY_LENGTH)
    back, back_mask = history_from_codes(codes)
    assert np.array_equal(back, hist) and np.array_equal(back_mask, hmask)
    assert hist.sum() > 0 and (codes == 0).any()  # real moves and padding
    bad = hist[:1].copy()
    bad[0, 0, -3:] = 1.0  # two cards in one move: not a history row
    with pytest.raises(ValueError, match="not a move"):
        history_codes(bad, np.ones((1, HISTORY_LENGTH), bool))


def test_shared_weights_carry_the_history_encoder() -> None:
    import multiprocessing as mp

    import torch

    torch.manual_seed(0)
    nets = dmc.qnets([dmc.torch_model([8, 4], history="lstm")])
    _, (copy,) = SharedWeights(nets, mp.get_context("spawn")).read()
    out = history_batches("gin", 12)[-1]
    rows, _, feats = dmc.encode_pairs(out["observation"], out["action_mask"])
    args = (out["observation"], rows, feats, out["history"], out["history_mask"])
    assert copy.history is not None and np.array_equal(nets[0].q(*args), copy.q(*args))


def test_a_history_player_needs_the_history_observation(tmp_path: Path) -> None:
    import torch

    torch.manual_seed(0)
    path = dmc.save(tmp_path / "h.npz", dmc.qnets([dmc.torch_model([8], history="lstm")]),
                    False, "basic", name="h")  # fmt: skip
    agent = dmc.load(path)
    assert agent.history == "lstm" and agent.env_options() == {"observation": "history"}
    flat = gin_v0.raw_env()
    flat.reset(seed=1)
    with pytest.raises(ValueError, match="observation='history'"):
        agent.act(flat.observe(flat.agent_selection))
    env = gin_v0.raw_env(**agent.env_options())
    env.reset(seed=1)
    ob = env.observe(env.agent_selection)
    assert ob["action_mask"][agent.act(ob)]
    with pytest.raises(ValueError, match="history"):
        agent.act_batch(ob["observation"][None], ob["action_mask"][None])
    # A checkpoint whose history layout differs from this version's is refused.
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["input_layout"]["history"]["shape"] = [32, HISTORY_FEATURES]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "other.npz", **arrays)
    with pytest.raises(ValueError, match="input layout history"):
        dmc.load(tmp_path / "other.npz")
    # A flat network's layout is as before (no history key), and a flat player is unchanged.
    assert "history" not in dmc.input_layout("basic")
    assert dmc.load(dmc.save(tmp_path / "f.npz", dmc.qnets([dmc.torch_model([8])]), False,
                             "basic")).env_options() == {}  # fmt: skip


def test_bad_history_options_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--history", "gru"])
    assert "history must be one of none, lstm; got 'gru'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_args(["--env", "three_handed", "--history", "lstm", "--fixed-roles",
                    "box=heuristic"])  # fmt: skip
    assert "fixed_roles needs --history none" in capsys.readouterr().err
    with pytest.raises(ValueError, match="history must be one of"):
        dmc.torch_model([8], history="attention")


@pytest.mark.slow
def test_a_tiny_history_run_trains_evaluates_exports_and_plays(tmp_path: Path) -> None:
    """--history lstm end to end: the replay holds the move codes, the periodic evaluation
    and the margins command play on envs with the history, the export plays the AEC env."""
    args = Args(
        env="gin", run_dir=str(tmp_path / "run"), total_steps=600, num_envs=8, backend="python",
        hidden="16,16", batch_size=32, buffer_size=2000, eval_every=400, eval_pairs=2,
        eval_opponents="simple", checkpoint_every=250, progress=False, seed=5,
        opponents="heuristic", opponent_share=0.5, history="lstm", checkpoint_replay=True,
    )  # fmt: skip
    summary = train(args)
    assert summary["finished"] and summary["updates"] > 0 and summary["evals"]
    assert "simple/points_per_hand" in summary["evals"][-1]
    ckpt = Path(args.run_dir) / "checkpoints" / "best"
    with np.load(latest_checkpoint(args.run_dir) / "replay.npz") as z:  # type: ignore[operator]
        assert z["history"].dtype == np.uint16 and z["history"].shape[1] == HISTORY_LENGTH
        assert (z["history"] & 1).any()  # real moves were stored
    agent = dmc.load(export(args.run_dir, "tiny-history", directory=tmp_path))
    assert agent.history == "lstm" and agent.meta["input_layout"] == dmc.input_layout(
        "basic", "lstm"
    )
    res = evaluate_agent(agent, "gin", ["heuristic"], 2, 7, env_options=agent.env_options())
    assert np.isfinite(res["heuristic/points_per_hand"])
    from training.train_dmc import main

    assert main(["margins", str(ckpt), "--pairs", "2", "--margins", "0"]) == 0
    # The paired study: a checkpoint against itself differs by exactly zero, deal by deal.
    from studies.dmc_paired import per_deal

    one, two = per_deal(str(ckpt), "simple", 3, 7), per_deal(str(ckpt), "simple", 3, 7)
    assert len(one) == 3 and one == two
    assert per_deal(str(ckpt), "simple", 3, 7, workers=2) == one  # the same deals, in order


def test_an_evaluation_on_envs_with_the_history_seats_rule_based_agents() -> None:
    """``observation`` is an env option, no rule: it travels apart from the table, and the
    agents are seated at the table (the env shows them the history; L2 reads the flat part)."""
    from gin_env.config import GinConfig
    from gin_eval.gin import gin_duplicate

    res = gin_duplicate("simple", "heuristic", 1, seed=3, progress=False,
                        table=GinConfig(knock_limit=7),
                        env_options={"observation": "history"})  # fmt: skip
    assert res["pairs"] == 1 and np.isfinite(res["points_per_hand"])
    assert res["rules"] == {"knock_limit": 7}
    assert res["env_options"] == {"observation": "history"}
    with pytest.raises(TypeError):  # a rule is no env option: the table holds the rules
        GinConfig(observation="history")  # type: ignore[call-arg]


@pytest.mark.slow
def test_a_history_run_may_start_from_a_plain_runs_networks(tmp_path: Path) -> None:
    """--init-from a --history none checkpoint into --history lstm: the history's inputs
    start at zero weight, so the new player scores every pair exactly as the old one, on
    any history; the other way round is refused."""
    base: dict[str, object] = dict(
        env="gin", total_steps=60, num_envs=4, backend="python", hidden="16,8",
        batch_size=512, buffer_size=1000, eval_every=10**6, checkpoint_every=10**6,
        progress=False, seed=2, opponent_share=0.0, eval_opponents="random",
    )  # fmt: skip
    plain = Args(run_dir=str(tmp_path / "plain"), **base)  # type: ignore[arg-type]
    train(plain)
    src = latest_checkpoint(plain.run_dir)
    assert src is not None
    widened = Args(run_dir=str(tmp_path / "hist"), history="lstm", init_from=str(src), **base)  # type: ignore[arg-type]
    assert train(widened)["updates"] == 0  # no learning yet: the networks are the start
    old = dmc.load(export(plain.run_dir, "old", directory=tmp_path, best=False))
    new = dmc.load(export(widened.run_dir, "new", directory=tmp_path, best=False))
    assert new.history == "lstm" and old.history == "none"
    for out in history_batches("gin", 20)[::6]:
        obs, mask = out["observation"], out["action_mask"]
        _, _, q_old = old.q_values(obs, mask)
        _, _, q_new = new.q_values(obs, mask, out["history"], out["history_mask"])
        assert np.allclose(q_old, q_new, atol=1e-5)
    back = Args(run_dir=str(tmp_path / "back"), init_from=str(latest_checkpoint(widened.run_dir)),
                **base)  # type: ignore[arg-type]  # fmt: skip
    with pytest.raises(ValueError, match="init_from: the checkpoint has --history 'lstm'"):
        train(back)


def test_the_model_cards_evaluation_plays_a_history_player(tmp_path: Path) -> None:
    import torch

    from training.model_cards import card_evaluation

    torch.manual_seed(0)
    path = dmc.save(tmp_path / "h.npz", dmc.qnets([dmc.torch_model([8], history="lstm")]),
                    False, "basic", name="h", env="gin")  # fmt: skip
    res = card_evaluation(str(path), 1, 0, 1, 3, opponents=("heuristic",))
    assert res["vs L2 (heuristic)"]["pairs"] == 1
    assert res["vs L2 (heuristic)"]["env_options"] == {"observation": "history"}
