"""Deep Monte-Carlo with every candidate rolled out: a Q(s, a) that improves on L2 (gin).

Plain DMC (:mod:`training.train_dmc`) learns from one return per decision, the return of
the move the actor happened to play; a hand's points vary by about 22 a hand, and the
difference between two good moves is a point or two, so telling them apart takes far more
decisions than this machine plays in hours. Here every decision sampled for learning is
played out once **for each legal move**, from the true deal (the real opponent hand and
stock order, which the player never sees), every continuation played by the base player
(L2 in both seats). The returns of a decision's moves share the deal, so their
differences carry little of the card luck (common random numbers), and their mean over
deals is the base player's Q: ``Q_L2(s, a)``, exactly what one step of policy improvement
over L2 needs. The network (:class:`agents.dmc.QNet`, ``features="l2"``) learns it from
the observation alone, so it plays without seeing any hidden card.

- **gen**: worker processes play L2 against L2 (``--epsilon`` random moves for variety)
  on ``gin_v0`` and, at a ``--sample`` share of the decisions with a choice, roll out every
  legal move on a clone of the hand (:meth:`gin_env.hand.GinHand.clone`, the rules
  engine) with :func:`agents.simulate.play_out`. Chunks of decisions are written to
  ``<run-dir>/data/`` as they finish, so generation stops and continues at any time.
- **fit**: Q is fitted to the returns (/ 100) with a loss on each decision's mean return
  plus a loss on each move's return minus that mean (the paired part, where the signal
  is). One held-out share of the decisions measures the fit.
- **select** / **card**: the player is :class:`agents.dmc.DMCAgent` with L2's move given a
  ``margin`` bonus (leave L2 only where Q says another move is better by more); the margin
  is chosen by duplicate play against L2 on the selection seed 10007, and the chosen player
  is reported on 2026 (``python -m training.train_dmc card``).

    python -m studies.dmc_rollouts gen --run-dir runs/dmc_rollouts --workers 2 --minutes 60
    python -m studies.dmc_rollouts fit --run-dir runs/dmc_rollouts
    python -m studies.dmc_rollouts select --run-dir runs/dmc_rollouts --margins 0,0.01,0.03
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents import dmc
from agents.base import ViewAgent
from agents.dmc import DMCAgent, QNet, encode_pairs, qnets, torch_model
from agents.heuristic import HeuristicAgent
from agents.simulate import play_out, seat_points
from agents.trained import CHECKPOINT_DIR
from gin_env import actions as A
from gin_env import games
from gin_env.encoding import OBS_SLICES
from gin_env.hand import GinHand
from gin_eval.pool import pool_until
from training.checkpoints import load_torch
from training.model_cards import card_evaluation, write_rollout_card
from training.periodic_eval import evaluate_agent

__all__ = ["generate_chunk", "load_data", "fit", "main"]

MODULE = "studies.dmc_rollouts"
SCALE = 0.01  # returns are hand points; Q is in hundreds of points, as in train_dmc
ILLEGAL = np.iinfo(np.int16).min  # the return entry of an illegal move


# ==========================================================================================
# Data: decisions of L2 play, each legal move rolled out from the true deal
# ==========================================================================================
def rollout_returns(
    hand: GinHand,
    base: ViewAgent,
    keep: int | None = None,
    others: int | None = None,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """The points of the seat to act in ``hand`` after each legal move, every move played out
    on its own clone of the hand (the true deal) by ``base`` in both seats; int16
    ``[NUM_ACTIONS]``, :data:`ILLEGAL` for the moves not rolled out. ``hand`` is not changed.

    With ``others``, only move ``keep`` (the base player's), the knocks (their hand ends at
    once, so they cost nothing) and ``others`` more legal moves drawn at random are rolled
    out: every move is still covered over many decisions, at a fraction of the cost."""

    seat = hand.current
    row = np.full(A.NUM_ACTIONS, ILLEGAL, np.int16)
    moves = hand.legal_actions()
    if others is not None:
        rng = rng or np.random.default_rng()
        rest = [a for a in moves if a != keep and not A.KNOCK <= a]
        picked = set(rng.permutation(rest)[:others].tolist()) if rest else set()
        moves = [a for a in moves if a == keep or A.KNOCK <= a or a in picked]
    for a in moves:
        world = hand.clone()
        world.step(int(a))
        row[a] = seat_points(play_out(world, [base, base]), seat)
    return row


def generate_chunk(
    seed: int,
    decisions: int,
    sample: float,
    epsilon: float,
    game: str = "gin",
    others: int | None = None,
    behaviour: str | None = None,
) -> dict[str, Any]:
    """Play L2 in every seat of ``game`` (``gin`` or ``three_handed``) from ``seed`` until
    ``decisions`` decisions are rolled out; with ``behaviour`` (``"PATH@MARGIN"``: a fitted
    ``q.pt`` and its margin) that player chooses the moves played instead of L2, so the data
    covers the positions it reaches (the rollouts still continue with L2: the targets stay
    ``Q_L2``). In the three-handed game the box's and the
    captain's moves are rolled out (the captain's points are the team's); the adviser's
    suggestions are not (an L2 captain plays its own move, so they change no return).

    Returns arrays ``obs [n, OBS]`` (float16), ``mask [n, NUM_ACTIONS]`` (bool), ``l2 [n]``
    (L2's move), ``returns [n, NUM_ACTIONS]`` (int16 hand points of the seat to act after
    each move rolled out, :data:`ILLEGAL` elsewhere; every legal move, or with ``others``
    L2's, the knocks and ``others`` more, see :func:`rollout_returns`) and the counts.
    """

    advising = OBS_SLICES["advising"].start
    rng = np.random.default_rng(seed)
    base = HeuristicAgent()
    actor = None
    if behaviour:
        path, _, margin = behaviour.partition("@")
        actor = load_player(Path(path), float(margin or 0))
    env = games.get(game).make_env()
    env.reset(seed=seed)
    obs_rows: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    l2s: list[int] = []
    rets: list[np.ndarray] = []
    rollouts = moves = 0
    t0 = time.time()
    while len(obs_rows) < decisions:
        if all(env.terminations.values()) or all(env.truncations.values()):
            env.reset(seed=int(rng.integers(2**31)))
        agent = env.agent_selection
        ob = env.observe(agent)
        mask = ob["action_mask"].astype(bool)
        legal = np.flatnonzero(mask)
        l2 = int(base.act(ob))
        moves += 1
        if len(legal) > 1 and ob["observation"][advising] < 0.5 and rng.random() < sample:
            hand = env.table_state.open_hand()  # the true deal: a perfect-information study
            assert hand is not None
            row = rollout_returns(hand, base, l2, others, rng)
            rollouts += int((row != ILLEGAL).sum())
            obs_rows.append(ob["observation"].astype(np.float16))
            masks.append(mask)
            l2s.append(l2)
            rets.append(row)
        if rng.random() < epsilon:
            move = int(rng.choice(legal))
        else:
            move = l2 if actor is None else int(actor.act(ob))
        env.step(move)
    return {
        "obs": np.stack(obs_rows),
        "mask": np.stack(masks),
        "l2": np.array(l2s, np.int16),
        "returns": np.stack(rets),
        "seed": seed,
        "moves": moves,
        "rollouts": rollouts,
        "seconds": time.time() - t0,
    }


def _chunk_job(job: tuple[Path, int, int, float, float, str, int | None, str | None]) -> str:
    path, seed, decisions, sample, epsilon, game, others, behaviour = job
    data = generate_chunk(seed, decisions, sample, epsilon, game, others, behaviour)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **data)
    tmp.replace(path)
    return json.dumps(
        {
            "chunk": path.name,
            "decisions": len(data["obs"]),
            "rollouts": data["rollouts"],
            "seconds": round(data["seconds"], 1),
        }
    )


def generate(
    run_dir: Path,
    workers: int,
    minutes: float,
    chunk: int,
    sample: float,
    epsilon: float,
    seed: int,
    game: str = "gin",
    others: int | None = None,
    behaviour: str | None = None,
) -> int:
    """Write chunks to ``<run_dir>/data`` until ``minutes`` pass (the chunk in progress is
    finished); chunk ``i`` is played from seed ``seed * 1_000_003 + i``, so a restarted
    generation continues with new deals. Returns the number of chunks written."""
    data = run_dir / "data"
    data.mkdir(parents=True, exist_ok=True)

    def job(i: int) -> tuple[tuple[Path, int, int, float, float, str, int | None, str | None]]:
        path = data / f"chunk_{i:05d}.npz"
        return ((path, seed * 1_000_003 + i, chunk, sample, epsilon, game, others, behaviour),)

    def log(line: str) -> None:
        print(line, flush=True)
        with open(run_dir / "gen.jsonl", "a") as fh:
            fh.write(line + "\n")

    deadline = time.time() + minutes * 60
    return pool_until(_chunk_job, job, workers, deadline, log, start=len(chunks(run_dir)))


def chunks(run_dir: Path) -> list[Path]:
    """The finished chunk files of ``<run_dir>/data``, in order (not a ``.tmp`` being written)."""
    return sorted(p for p in (run_dir / "data").glob("chunk_*.npz") if p.name.count(".") == 1)


def load_data(run_dir: Path) -> dict[str, np.ndarray]:
    """Every chunk of ``<run_dir>/data`` concatenated (in chunk order)."""
    files = chunks(run_dir)
    if not files:
        raise ValueError(f"{run_dir}/data holds no chunk_*.npz: run gen first")
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "mask", "l2", "returns")}
    for f in files:
        with np.load(f, allow_pickle=False) as z:
            for k in parts:
                parts[k].append(z[k])
    return {k: np.concatenate(v) for k, v in parts.items()}


# ==========================================================================================
# Fit: Q to the returns, with the paired (per-decision centred) loss
# ==========================================================================================
def held_out(n: int, valid: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(train, held)`` decision indices of :func:`fit`'s split (``held`` sorted): the same
    for the fit and for :func:`one_step_gain`, which measures on the held-out part."""
    order = np.random.default_rng(seed).permutation(n)
    n_valid = max(1, int(n * valid))
    return order[n_valid:], np.sort(order[:n_valid])


def fit(
    run_dir: Path,
    hidden: Sequence[int] = (256, 256),
    epochs: int = 8,
    batch: int = 512,
    lr: float = 3e-4,
    valid: float = 0.05,
    seed: int = 0,
    threads: int = 1,
    features: str = "l2score",
    ensemble: int = 1,
) -> dict[str, Any]:
    """Fit ``ensemble`` Q networks (seeds ``seed``, ``seed + 1`` ...) to the rolled-out
    returns of ``run_dir``; each keeps the weights of its epoch with the lowest held-out
    paired loss. Writes ``<run_dir>/q.pt`` and ``fit.json`` (losses by epoch on the
    held-out decisions). The player averages the members' Q (:func:`load_player`)."""
    import torch  # train extra: torch

    torch.set_num_threads(threads)
    d = load_data(run_dir)
    n = len(d["obs"])
    obs = d["obs"].astype(np.float32)
    # Every legal pair (L2's scores need the whole decision), then the moves rolled out.
    rows, acts, feats = encode_pairs(obs, d["mask"], features, d["l2"].astype(np.int64))
    rolled = d["returns"][rows, acts] != ILLEGAL
    rows, acts, feats = rows[rolled], acts[rolled], feats[rolled]
    target = d["returns"][rows, acts].astype(np.float32) * SCALE
    train_idx, valid_idx = held_out(n, valid, seed)
    starts = np.searchsorted(rows, np.arange(n + 1))
    t_obs, t_feats, t_target = map(torch.from_numpy, (obs, feats, target))
    # The paired loss of a Q that ranks no move above another: what the network must beat.
    v_rows = np.repeat(np.arange(n), np.diff(starts))
    centred = target - (np.bincount(v_rows, target, n) / np.diff(starts))[v_rows]
    flat_loss = float(np.mean(centred[np.isin(v_rows, valid_idx)] ** 2))

    def batch_loss(model: Any, states: np.ndarray) -> tuple[Any, Any, Any]:
        # Pairs of these decisions, and each pair's decision index within the batch.
        lo, hi = starts[states], starts[states + 1]
        counts = hi - lo
        idx = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)])
        seg = torch.from_numpy(np.repeat(np.arange(len(states)), counts))
        q = model.pairs(t_obs[states], seg, t_feats[idx])
        y = t_target[idx]
        cnt = torch.from_numpy(counts.astype(np.float32))
        q_mean = torch.zeros(len(states)).index_add_(0, seg, q) / cnt
        y_mean = torch.zeros(len(states)).index_add_(0, seg, y) / cnt
        mean_loss = ((q_mean - y_mean) ** 2).mean()
        paired_loss = (((q - q_mean[seg]) - (y - y_mean[seg])) ** 2).mean()
        return mean_loss + paired_loss, mean_loss, paired_loss

    members, history = [], []
    t0 = time.time()
    for k in range(ensemble):
        torch.manual_seed(seed + k)
        rng = np.random.default_rng(seed + k)
        model = torch_model(list(hidden), features)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        best: tuple[float, int, dict[str, Any]] = (float("inf"), 0, {})
        for epoch in range(epochs):
            model.train()
            perm = rng.permutation(train_idx)
            total = 0.0
            for b in range(0, len(perm), batch):
                loss, _, _ = batch_loss(model, np.sort(perm[b : b + batch]))
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * min(batch, len(perm) - b)
            with torch.no_grad():
                model.eval()
                _, vm, vp = batch_loss(model, valid_idx)
            rec = {
                "member": k,
                "epoch": epoch + 1,
                "train_loss": total / len(perm),
                "valid_mean_loss": float(vm),
                "valid_paired_loss": float(vp),
                "valid_paired_loss_flat_q": flat_loss,
                "seconds": round(time.time() - t0, 1),
            }
            history.append(rec)
            print(json.dumps(rec), flush=True)
            if float(vp) < best[0]:  # early stopping on the held-out paired loss
                state = {key: v.clone() for key, v in model.state_dict().items()}
                best = (float(vp), epoch + 1, state)
        members.append(best)
    blob = {
        "models": [m[2] for m in members],
        "hidden": list(hidden),
        "epochs": [m[1] for m in members],
        "features": features,
    }
    torch.save(blob, run_dir / "q.pt")
    summary = {
        "decisions": n,
        "pairs": len(rows),
        "hidden": list(hidden),
        "features": features,
        "ensemble": ensemble,
        "epochs": epochs,
        "best_epochs": blob["epochs"],
        "valid": valid,
        "valid_decisions": len(valid_idx),
        "seed": seed,
        "history": history,
    }
    (run_dir / "fit.json").write_text(json.dumps(summary, indent=1))
    return summary


def merge(nets: Sequence[Any]) -> Any:
    """One :class:`agents.dmc.QNet` whose Q is the mean of ``nets``' (same shapes): the
    members side by side (block-diagonal hidden layers), the last layer averaging them."""

    if len(nets) == 1:
        return nets[0]
    layers = []
    for i in range(len(nets[0].layers)):
        ws = [net.layers[i][0] for net in nets]
        bs = [net.layers[i][1] for net in nets]
        if i < len(nets[0].layers) - 1:
            w = np.zeros((sum(x.shape[0] for x in ws), sum(x.shape[1] for x in ws)), np.float32)
            r = c = 0
            for x in ws:
                w[r : r + x.shape[0], c : c + x.shape[1]] = x
                r, c = r + x.shape[0], c + x.shape[1]
            layers.append((w, np.concatenate(bs)))
        else:
            w = np.concatenate(ws, axis=1) / len(nets)
            layers.append((w, np.mean(bs, axis=0)))
    return QNet(
        np.concatenate([net.w_obs for net in nets]),
        np.concatenate([net.w_act for net in nets]),
        np.concatenate([net.b0 for net in nets]),
        layers,
    )


def one_step_gain(run_dir: Path, margins: Sequence[float]) -> list[dict[str, Any]]:
    """The one-step gain of each margin's player over L2 on the held-out decisions of the
    last :func:`fit` (those whose every legal move was rolled out): the rolled-out return
    of the player's move less L2's, per decision, with a 95% CI. It is what playing the
    player once and L2 afterwards gains; it does not count positions only the player
    reaches, so it ranks margins cheaply but does not replace play against L2."""
    summary = json.loads((run_dir / "fit.json").read_text())
    n = summary["decisions"]  # the data the fit saw (chunks written since come after it)
    d = {k: v[:n] for k, v in load_data(run_dir).items()}
    held = held_out(n, summary["valid"], summary["seed"])[1]
    full = (d["returns"][held] != ILLEGAL).sum(1) == d["mask"][held].sum(1)
    held = held[full]
    ret = d["returns"][held].astype(np.float64)
    l2 = d["l2"][held].astype(np.int64)
    out = []
    for m in margins:
        acts = player(run_dir, m).act_batch(d["obs"][held].astype(np.float32), d["mask"][held])
        gain = ret[np.arange(len(held)), acts] - ret[np.arange(len(held)), l2]
        half = 1.96 * gain.std() / np.sqrt(len(gain))
        rec = {
            "margin": m,
            "decisions": len(held),
            "deviates": float(np.mean(acts != l2)),
            "gain_per_decision": float(gain.mean()),
            "ci95": [float(gain.mean() - half), float(gain.mean() + half)],
        }
        print(json.dumps(rec), flush=True)
        out.append(rec)
    return out


# ==========================================================================================
# The player: Q with a margin for L2's move; chosen on the selection seed, then shipped
# ==========================================================================================
def player(run_dir: Path, margin: float, name: str = "dmc") -> Any:
    """The :class:`agents.dmc.DMCAgent` of ``<run_dir>/q.pt`` with L2's move bonus ``margin``."""
    return load_player(run_dir / "q.pt", margin, name)


def load_player(path: Path, margin: float, name: str = "dmc") -> Any:
    """The :class:`agents.dmc.DMCAgent` of a fitted ``q.pt`` with L2's move bonus ``margin``."""

    blob = load_torch(path, "fitted Q file")  # weights only: nothing in it runs
    features = blob["features"]
    models = []
    for state in blob["models"]:
        models.append(torch_model(blob["hidden"], features))
        models[-1].load_state_dict(state)
    net = merge(qnets(models))
    return DMCAgent([net], False, features, name=name, margin=margin)


def select(
    run_dir: Path, margins: Sequence[float], pairs: int, seed: int, workers: int
) -> list[dict[str, Any]]:
    """Each margin's player against L2 in duplicate pairs on ``seed`` (the selection seed);
    appended to ``<run_dir>/select.jsonl``."""

    out = []
    for m in margins:
        t = time.time()
        res = evaluate_agent(player(run_dir, m), "gin", ["heuristic"], pairs, seed, 0, workers)
        rec = {"margin": m, "pairs": pairs, "seed": seed, **res, "seconds": round(time.time() - t)}
        print(json.dumps(rec), flush=True)
        with open(run_dir / "select.jsonl", "a") as fh:
            fh.write(json.dumps(rec) + "\n")
        out.append(rec)
    return out


def export(
    run_dir: Path,
    name: str,
    margin: float,
    commands: Sequence[str],
    directory: Path | None = None,
) -> Path:
    """Ship the player of ``run_dir`` as ``<directory>/<name>.npz`` (by default
    ``agents/checkpoints``, where ``agents.make(name)`` finds it)."""

    agent = player(run_dir, margin, name)
    summary = json.loads((run_dir / "fit.json").read_text())
    log = run_dir / "gen.jsonl"
    gen = [json.loads(x) for x in log.read_text().splitlines()] if log.is_file() else []
    picks = run_dir / "select.jsonl"
    chosen = [json.loads(x) for x in picks.read_text().splitlines()] if picks.is_file() else []
    return dmc.save(
        (directory or CHECKPOINT_DIR) / f"{name}.npz",
        agent.nets,
        False,
        agent.features,
        name=name,
        env="gin",
        algo="dmc-rollouts",
        margin=margin,
        steps=int(summary["decisions"]),
        rollouts=int(sum(g["rollouts"] for g in gen)),
        gen_s=round(sum(g["seconds"] for g in gen), 1),
        wall_s=round(sum(g["seconds"] for g in gen) + summary["history"][-1]["seconds"], 1),
        fit=summary,
        selection=chosen,
        commands=list(commands),
    )


def card(name: str, opponents: Sequence[tuple[str, int]], seed: int, workers: int) -> Path:
    """Evaluate the shipped ``name`` on held-out ``seed`` (duplicate pairs against each
    ``(opponent, pairs)``) and write its model card."""

    results: dict[str, Any] = {"env": "gin", "seed": seed}
    for opp, pairs in opponents:
        part = card_evaluation(name, pairs, 0, workers, seed, [opp])
        results.update({k: v for k, v in part.items() if k not in ("env", "seed")})
    print(json.dumps(results, indent=1, default=str))
    spec = ",".join(f"{o}:{p}" for o, p in opponents)
    command = f"python -m {MODULE} card --name {name} --opponents {spec} --seed {seed}"
    return write_rollout_card(name, results, command)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(prog=f"python -m {MODULE}")
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen", help="roll out decisions of L2 play into <run-dir>/data")
    g.add_argument("--run-dir", default="runs/dmc_rollouts")
    g.add_argument("--workers", type=int, default=2)
    g.add_argument("--minutes", type=float, default=60.0)
    g.add_argument("--chunk", type=int, default=500, help="decisions per chunk file")
    g.add_argument("--sample", type=float, default=0.25, help="share of decisions rolled out")
    g.add_argument("--epsilon", type=float, default=0.05, help="random moves of the actors")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--game", default="gin", choices=("gin", "three_handed"))
    g.add_argument(
        "--others",
        type=int,
        default=None,
        help="roll out L2's move, the knocks and this many other moves (default: every move)",
    )
    g.add_argument(
        "--behaviour",
        default=None,
        help="PATH@MARGIN: a fitted q.pt plays the moves (rollouts stay L2's; default: L2)",
    )
    f = sub.add_parser("fit", help="fit Q to the data of <run-dir>")
    f.add_argument("--run-dir", default="runs/dmc_rollouts")
    f.add_argument("--hidden", default="256,256")
    f.add_argument("--epochs", type=int, default=8)
    f.add_argument("--ensemble", type=int, default=1, help="networks averaged (default: 1)")
    f.add_argument("--batch", type=int, default=512)
    f.add_argument("--lr", type=float, default=3e-4)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--features", default="l2score", choices=("l2", "l2score"))
    o = sub.add_parser("gain", help="one-step gain over L2 of each margin, held-out decisions")
    o.add_argument("--run-dir", default="runs/dmc_rollouts")
    o.add_argument("--margins", default="0,0.005,0.01,0.02,0.04")
    s = sub.add_parser("select", help="each margin's player vs L2 on the selection seed")
    s.add_argument("--run-dir", default="runs/dmc_rollouts")
    s.add_argument("--margins", default="0,0.01,0.03,0.1")
    s.add_argument("--pairs", type=int, default=1000)
    s.add_argument("--seed", type=int, default=10_007)
    s.add_argument("--workers", type=int, default=2)
    e = sub.add_parser("export", help="ship the player as agents/checkpoints/<name>.npz")
    e.add_argument("--run-dir", default="runs/dmc_rollouts")
    e.add_argument("--name", default="gin-dmc")
    e.add_argument("--margin", type=float, required=True)
    c = sub.add_parser("card", help="evaluate a shipped player on a held-out seed, write its card")
    c.add_argument("--name", default="gin-dmc")
    c.add_argument("--opponents", default="heuristic:5000,simple:2000", help="NAME:PAIRS,...")
    c.add_argument("--seed", type=int, default=2026)
    c.add_argument("--workers", type=int, default=2)
    ns = parser.parse_args(argv)
    if ns.cmd == "card":
        opponents = [(o, int(p)) for o, _, p in (x.partition(":") for x in ns.opponents.split(","))]
        print(card(ns.name, opponents, ns.seed, ns.workers))
        return 0
    run_dir = Path(ns.run_dir)
    if ns.cmd == "gen":
        generate(
            run_dir,
            ns.workers,
            ns.minutes,
            ns.chunk,
            ns.sample,
            ns.epsilon,
            ns.seed,
            ns.game,
            ns.others,
            ns.behaviour,
        )
    elif ns.cmd == "fit":
        hidden = [int(x) for x in ns.hidden.split(",")]
        fit(
            run_dir,
            hidden,
            ns.epochs,
            ns.batch,
            ns.lr,
            seed=ns.seed,
            features=ns.features,
            ensemble=ns.ensemble,
        )
    elif ns.cmd == "gain":
        one_step_gain(run_dir, [float(x) for x in ns.margins.split(",")])
    elif ns.cmd == "select":
        margins = [float(x) for x in ns.margins.split(",")]
        select(run_dir, margins, ns.pairs, ns.seed, ns.workers)
    elif ns.cmd == "export":
        print(export(run_dir, ns.name, ns.margin, [f"python -m {MODULE} " + " ".join(argv)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
