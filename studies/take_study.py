"""The take study: what reading the opponent is worth against L2 (or L1), and how much a
learned reader recovers of it.

Earlier studies (search, a particle filter, rollout DMC) found nothing to gain over L2
from the seat's view. This study measures where the points are. Every arm is L2 except in
one thing, the **danger** of a discard (the chance the opponent takes it from the pile),
and plays duplicate deal pairs against the opponent (``--opponent``: L2, ``heuristic``, or
L1, ``simple``):

- ``blind``: no danger term on its discards;
- ``reader``: the danger is a learned :class:`TakeModel`'s chance that the opponent takes
  the card, from the seat's own view (its hand, the pile, both sides' discards and pickups);
- ``oracle``: told exactly which of its discards the opponent would take, by asking the
  opponent on the true deal (a cheat, for measurement only: the bound on what a perfect
  reader of this opponent gets);
- ``l2``: L2 itself, the reference (played against L1 only: against L2 it is 0 by symmetry).

The reader and the oracle charge ``weight x chance x (1 + pips / 10)`` pips on a discard,
L2's own form of the danger term. Draws, knocks and the rest of the score are L2's.

The take model is trained on hands of L2 (10% random discards, so it also sees positions
L2 avoids) against the opponent: at every discard of L2's, the label of each card it may
throw is whether the opponent would take it (:func:`would_take`, asked on a clone of the
hand). Against L2 both seats are L2 and both record. Its quality is reported on hands of
a separate seed, against the constant base rate and L2's own
:func:`~agents.heuristic.danger` read as a chance. The weight of the reader and of the
oracle is chosen on ``--select-seed`` and the figures are reported on ``--seed``.

    python -m studies.take_study --hands 16000 --pairs 1000 --workers 2
    python -m studies.take_study --opponent simple --hands 16000 --pairs 1000 --workers 2

Writes ``<out>/take_study.json`` and ``<out>/take_study.md`` (against L1:
``take_study_simple.*``); ``--out`` defaults to ``runs/take_study`` (the committed figures
are in ``results/take_study/``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import agents
from agents.base import PHASE_DISCARD, ObservedSeat, ViewAgent, game_actions
from agents.heuristic import HeuristicAgent, HeuristicParams, banned_card, opponent_last_discard
from agents.simulate import play_out, seat_points, view_of
from agents.trained import mlp_forward
from gin_env import actions as A
from gin_env.cards import NUM_CARDS, POINTS
from gin_env.config import GinConfig
from gin_env.hand import GinHand, Phase
from gin_eval.pool import pool_map
from gin_eval.stats import mean_ci, wilson_ci
from gin_eval.writer import write_json

__all__ = [
    "NUM_FEATURES",
    "view_features",
    "would_take",
    "TakeModel",
    "ReadingL2",
    "l2_danger",
    "generate",
    "fit",
    "take_quality",
    "auc",
    "play_arm",
    "main",
]

#: hand, pile, his pickups, his discards, ours, ours he let go, his last discard; 2 numbers.
NUM_FEATURES = 7 * NUM_CARDS + 2
ARMS = ("blind", "reader", "oracle", "l2")
#: The opponents the study reads (agent name -> level).
OPPONENTS = {"heuristic": "L2", "simple": "L1"}
_L2 = HeuristicAgent()


def _opponent(name: str) -> ViewAgent:
    if name not in OPPONENTS:
        raise ValueError(f"opponent must be one of {', '.join(OPPONENTS)}, got {name!r}")
    agent: ViewAgent = agents.seat(name, GinConfig())  # the study's table: the standard rules
    return agent


def _bits(mask: int) -> np.ndarray:
    return np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), np.uint8), bitorder="little")[
        :NUM_CARDS
    ].astype(np.float32)


def view_features(view: ObservedSeat) -> np.ndarray:
    """The take model's input: what ``view`` shows of the hand, as 0/1 parts and two
    numbers (the stock and the cards he took, scaled). ``view`` is at a discard decision."""
    last = opponent_last_discard(view, _banned(view))
    parts = (
        view.hand,
        view.discard_pile,
        view.opponent_took,
        view.opponent_discarded,
        view.own_discarded,
        view.own_discarded & ~view.opponent_took,  # ours he let go by
        1 << last if last >= 0 else 0,
    )
    x = np.empty(NUM_FEATURES, np.float32)
    for i, m in enumerate(parts):
        x[i * NUM_CARDS : (i + 1) * NUM_CARDS] = _bits(m)
    x[-2] = view.stock_size / 31
    x[-1] = view.opponent_took.bit_count() / 5
    return x


def _banned(view: ObservedSeat) -> int:
    """At a discard decision, the card just taken from the pile (not to be thrown), or -1."""
    return banned_card(view.hand, game_actions(view.legal))


def would_take(hand: GinHand, seat: int, card: int, opponent: ViewAgent) -> bool:
    """Whether ``opponent`` would take ``card`` from the pile if ``seat`` (to discard in
    ``hand``) threw it now: the move is played on a clone and the opponent asked."""
    world = hand.clone()
    world.step(A.DISCARD + card)
    if world.phase is Phase.OVER or A.TAKE_DISCARD not in world.legal_actions():
        return False
    return opponent.choose(view_of(world, world.current)) == A.TAKE_DISCARD


class TakeModel:
    """A numpy MLP: from :func:`view_features`, the chance the opponent takes each card."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]]) -> None:
        if layers[0][0].shape[1] != NUM_FEATURES or layers[-1][0].shape[0] != NUM_CARDS:
            raise ValueError(
                f"a take model maps {NUM_FEATURES} features to {NUM_CARDS} chances, got "
                f"{layers[0][0].shape[1]} -> {layers[-1][0].shape[0]}"
            )
        self.layers = layers

    def chances(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-mlp_forward(x, self.layers, "relu")))


class ReadingL2(HeuristicAgent):
    """L2 whose discard danger is ``chance(view, cards)`` (card -> chance he takes it),
    charged ``weight x chance x (1 + pips / 10)`` pips; everything else is L2's (its draws
    keep L2's own danger: only the scores of the discards it throws are replaced)."""

    name = "reading-l2"

    def __init__(
        self, chance: Callable[[ObservedSeat, list[int]], dict[int, float]], weight: float
    ) -> None:
        super().__init__()
        self.chance = chance
        self.weight = weight
        self._dangerless = HeuristicAgent(HeuristicParams(danger_weight=0.0))

    def discard_options(
        self, view: ObservedSeat, legal: list[int]
    ) -> tuple[list[int], list[int], dict[int, float], dict[int, int]]:
        """L2's discard options with the scores' danger term read from ``chance``."""
        discards, knocks, scores, dws = self._dangerless.discard_options(view, legal)
        best = min(scores[c] for c in discards)
        # A discard 15 pips worse than the best never wins: no need to ask about it.
        asked = [c for c in discards if scores[c] < best + 15 or c in knocks]
        p = self.chance(view, asked)
        cost = {c: scores[c] + self.weight * p.get(c, 0.0) * (1 + POINTS[c] / 10) for c in discards}
        return discards, knocks, cost, dws


def l2_danger(view: ObservedSeat, cards: list[int]) -> dict[int, float]:
    """L2's danger (:meth:`~agents.heuristic.HeuristicAgent.dangers`) of each of ``cards``
    at a discard decision of ``view``, the baseline the take model is measured against."""
    return _L2.dangers(view, view.hand, cards, _banned(view))


def _reader(model: TakeModel, weight: float) -> ReadingL2:
    def chance(view: ObservedSeat, cards: list[int]) -> dict[int, float]:
        p = model.chances(view_features(view))
        return {c: float(p[c]) for c in cards}

    return ReadingL2(chance, weight)


def _no_chance(view: ObservedSeat, cards: list[int]) -> dict[int, float]:
    return {}


def _oracle(hand: GinHand, weight: float, opponent: ViewAgent) -> ReadingL2:
    def chance(view: ObservedSeat, cards: list[int]) -> dict[int, float]:
        return {c: float(would_take(hand, hand.current, c, opponent)) for c in cards}

    return ReadingL2(chance, weight)


# -- data -------------------------------------------------------------------------------------
class _Recorder(ViewAgent):
    """L2 with ``epsilon`` random discards that records, at each discard, the features and
    which of its legal discards ``opponent`` would take."""

    def __init__(
        self, hand: GinHand, epsilon: float, rng: np.random.Generator, opponent: ViewAgent
    ) -> None:
        self.hand, self.epsilon, self.rng, self.opponent = hand, epsilon, rng, opponent
        self.rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def choose(self, view: ObservedSeat, rng: np.random.Generator | None = None) -> int:
        action = _L2.choose(view)
        if view.phase != PHASE_DISCARD:
            return action
        legal = game_actions(view.legal)
        cards = [a - A.DISCARD for a in legal if A.DISCARD <= a < A.KNOCK]
        label = np.zeros(NUM_CARDS, np.uint8)
        asked = np.zeros(NUM_CARDS, np.uint8)
        l2_dangers = np.zeros(NUM_CARDS, np.float32)
        risk = l2_danger(view, cards)
        for c in cards:
            asked[c] = 1
            label[c] = would_take(self.hand, self.hand.current, c, self.opponent)
            l2_dangers[c] = risk[c]
        self.rows.append((view_features(view), label, asked, l2_dangers))
        if action < A.KNOCK and self.rng.random() < self.epsilon:
            action = A.DISCARD + cards[int(self.rng.integers(len(cards)))]
        return action


def _record_deal(
    job: tuple[int, int, float, str],
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    seed, index, epsilon, name = job
    rng = np.random.default_rng([seed, index])
    hand = GinHand(rng.permutation(NUM_CARDS).tolist(), dealer=int(rng.integers(2)))
    opponent = _opponent(name)
    recorder = _Recorder(hand, epsilon, rng, opponent)
    # L2 against L2: both seats are the recorder. Otherwise it sits in each seat in turn.
    if name == "heuristic":
        seats: list[ViewAgent] = [recorder, recorder]
    else:
        seats = [recorder, opponent] if index % 2 == 0 else [opponent, recorder]
    play_out(hand, seats)
    return recorder.rows


def generate(
    hands: int, seed: int, epsilon: float = 0.1, workers: int = 1, opponent: str = "heuristic"
) -> dict[str, Any]:
    """Discard decisions of L2 in ``hands`` hands against ``opponent`` (one of
    :data:`OPPONENTS`): ``x`` features, ``y`` the labels (he takes the card), ``asked``
    which cards were legal discards, ``danger`` L2's danger of each, and ``deal`` the hand
    each row came from (so splits keep a hand's rows together)."""
    _opponent(opponent)
    jobs = [(seed, i, epsilon, opponent) for i in range(hands)]
    rows = _map(_record_deal, jobs, workers)
    flat = [(r, i) for i, deal in enumerate(rows) for r in deal]
    if not flat:
        raise ValueError(f"{hands} hands gave no discard decision")
    return {
        "x": np.stack([r[0] for r, _ in flat]),
        "y": np.stack([r[1] for r, _ in flat]),
        "asked": np.stack([r[2] for r, _ in flat]),
        "danger": np.stack([r[3] for r, _ in flat]),
        "deal": np.array([i for _, i in flat]),
    }


def _map(fn: Callable[[Any], Any], jobs: Sequence[Any], workers: int) -> list[Any]:
    return pool_map(fn, [(j,) for j in jobs], workers)


# -- the model --------------------------------------------------------------------------------
def fit(
    data: dict[str, Any], epochs: int = 8, hidden: Sequence[int] = (512, 256), seed: int = 0
) -> tuple[TakeModel, list[float]]:
    """Fit a :class:`TakeModel` by masked cross-entropy; a tenth of the hands is held out
    and the epoch with the lowest held-out Brier score is kept. Returns the model and the
    held-out Brier score of each epoch."""
    import torch  # train extra: torch
    from torch import nn  # train extra: torch

    from training.mlp import numpy_layers, relu_mlp  # train extra: torch

    torch.manual_seed(seed)
    held = data["deal"] % 10 == 9
    x = torch.from_numpy(data["x"].astype(np.float32))
    y = torch.from_numpy(data["y"].astype(np.float32))
    m = torch.from_numpy(data["asked"].astype(np.float32))
    tr, va = torch.from_numpy(~held), torch.from_numpy(held)
    xt, yt, mt = x[tr], y[tr], m[tr]
    net = relu_mlp([NUM_FEATURES, *hidden, NUM_CARDS])
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = nn.BCEWithLogitsLoss(reduction="none")
    gen = torch.Generator().manual_seed(seed)
    curve: list[float] = []
    best: tuple[float, list[tuple[np.ndarray, np.ndarray]]] | None = None
    for _ in range(epochs):
        order = torch.randperm(len(xt), generator=gen)
        for i in range(0, len(xt), 512):
            idx = order[i : i + 512]
            loss = (loss_fn(net(xt[idx]), yt[idx]) * mt[idx]).sum() / mt[idx].sum().clamp(min=1)
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            p = torch.sigmoid(net(x[va]))
            sel = m[va] > 0
            brier = float(((p - y[va])[sel] ** 2).mean()) if sel.any() else float("nan")
        curve.append(brier)
        if best is None or not brier >= best[0]:
            best = (brier, numpy_layers(net))
    assert best is not None
    return TakeModel(best[1]), curve


def take_quality(model: TakeModel, data: dict[str, Any], base_rate: float) -> dict[str, float]:
    """Brier score and accuracy on ``data`` of the model, of the constant ``base_rate``
    and of L2's danger read as a chance (capped at 1)."""
    sel = data["asked"] > 0
    y = data["y"][sel].astype(np.float64)
    p_model = model.chances(data["x"].astype(np.float32))[sel]
    p_danger = np.clip(data["danger"][sel].astype(np.float64), 0, 1)
    out: dict[str, float] = {"labels": float(sel.sum()), "take_rate": float(y.mean())}
    for name, p in (
        ("model", p_model),
        ("constant", np.full_like(y, base_rate)),
        ("danger", p_danger),
    ):
        out[f"brier_{name}"] = float(((p - y) ** 2).mean())
        out[f"accuracy_{name}"] = float(((p > 0.5) == (y > 0.5)).mean())
    # Low cards are taken for their pips alone; what tells his hidden melds is how well a
    # predictor ranks the cards of one pip value.
    pips = np.broadcast_to(np.asarray(POINTS), data["asked"].shape)[sel]
    for v in range(1, 11):
        same = pips == v
        out[f"take_rate_pips_{v}"] = float(y[same].mean()) if same.any() else float("nan")
        out[f"auc_model_pips_{v}"] = auc(p_model[same], y[same])
        out[f"auc_danger_pips_{v}"] = auc(p_danger[same], y[same])
    return out


def auc(score: np.ndarray, label: np.ndarray) -> float:
    """Area under the ROC curve: the chance a random positive scores above a random
    negative (ties count half); NaN without both."""
    pos = label > 0.5
    n1, n0 = int(pos.sum()), int((~pos).sum())
    if not n1 or not n0:
        return float("nan")
    _, inverse, counts = np.unique(score, return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2.0)[inverse]  # mid-ranks, 1-based
    return float((ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


# -- play -------------------------------------------------------------------------------------
_ARM: dict[str, Any] = {}


def _pair(job: tuple[str, float, int, int, str]) -> tuple[float, float]:
    """One duplicate pair against the opponent: the arm in each seat of the same deck; its
    points and hands won, summed over the two hands."""
    arm, weight, seed, index, name = job
    opponent = _opponent(name)
    deck = np.random.default_rng([seed, index]).permutation(NUM_CARDS).tolist()
    points = won = 0.0
    for seat in (0, 1):
        hand = GinHand(deck, dealer=1)
        if arm == "blind":
            player: ViewAgent = ReadingL2(_no_chance, 0.0)
        elif arm == "oracle":
            player = _oracle(hand, weight, opponent)
        elif arm == "l2":
            player = _L2
        else:
            player = _reader(_ARM["model"], weight)
        seats = [player, opponent] if seat == 0 else [opponent, player]
        result = play_out(hand, seats)
        points += seat_points(result, seat)
        won += result.winner == seat
    return points, won


def _init(model: TakeModel | None) -> None:
    _ARM["model"] = model


def play_arm(
    arm: str,
    pairs: int,
    seed: int,
    weight: float = 0.0,
    model: TakeModel | None = None,
    workers: int = 1,
    opponent: str = "heuristic",
) -> dict[str, Any]:
    """``arm`` (one of :data:`ARMS`) against ``opponent`` (one of :data:`OPPONENTS`) over
    ``pairs`` duplicate deal pairs: points per hand and hands won, with 95% CIs over the
    pairs."""
    if arm not in ARMS:
        raise ValueError(f"arm must be one of {', '.join(ARMS)}, got {arm!r}")
    _opponent(opponent)
    if arm == "reader" and model is None:
        raise ValueError("the reader arm needs a take model")
    jobs = [(arm, weight, seed, i, opponent) for i in range(pairs)]
    res = pool_map(_pair, [(j,) for j in jobs], workers, initializer=_init, initargs=(model,))
    pts = np.array([r[0] / 2 for r in res])
    won = int(sum(r[1] for r in res))
    mean, lo, hi = mean_ci(pts)
    wlo, whi = wilson_ci(won, 2 * pairs)
    return {
        "arm": arm,
        "opponent": opponent,
        "weight": weight,
        "seed": seed,
        "pairs": pairs,
        "points_per_hand": mean,
        "ci95": [lo, hi],
        "hand_win_rate": won / (2 * pairs),
        "hand_win_rate_ci95": [wlo, whi],
    }


# -- the study --------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.time()
    opp = args.opponent
    train = generate(args.hands, args.data_seed, args.epsilon, args.workers, opp)
    test = generate(args.test_hands, args.data_seed + 1, args.epsilon, args.workers, opp)
    t_data = time.time() - t0
    model, curve = fit(train, args.epochs)
    base = float(train["y"][train["asked"] > 0].mean())
    quality = take_quality(model, test, base)
    print(f"take model: {quality}", flush=True)
    selection = []
    chosen: dict[str, float] = {"blind": 0.0, "l2": 0.0}
    for arm in ("reader", "oracle"):
        best = None
        for w in args.weights:
            r = play_arm(arm, args.select_pairs, args.select_seed, w, model, args.workers, opp)
            print(f"select {arm} w={w}: {r['points_per_hand']:+.2f}", flush=True)
            selection.append(r)
            if best is None or r["points_per_hand"] > best[1]:
                best = (w, r["points_per_hand"])
        assert best is not None
        chosen[arm] = best[0]
    report = []
    # L2 against L2 is 0 by symmetry: the reference arm is played against L1 only.
    for arm in [a for a in ARMS if not (a == "l2" and opp == "heuristic")]:
        r = play_arm(arm, args.pairs, args.seed, chosen[arm], model, args.workers, opp)
        print(f"{arm} w={chosen[arm]}: {r['points_per_hand']:+.2f} {r['ci95']}", flush=True)
        report.append(r)
    return {
        "command": args.command,
        "opponent": opp,
        "hands": args.hands,
        "test_hands": args.test_hands,
        "labels": int(train["asked"].sum()),
        "decisions": len(train["x"]),
        "epsilon": args.epsilon,
        "data_seconds": t_data,
        "heldout_brier_by_epoch": curve,
        "quality": quality,
        "selection": selection,
        "report": report,
        "seconds": time.time() - t0,
    }


def _pm(r: dict[str, Any]) -> str:
    lo, hi = r["ci95"]
    wlo, whi = r["hand_win_rate_ci95"]
    return (
        f"{r['points_per_hand']:+.2f} [{lo:+.2f}, {hi:+.2f}] | "
        f"{100 * r['hand_win_rate']:.1f}% [{100 * wlo:.1f}, {100 * whi:.1f}]"
    )


def write_markdown(path: Path, s: dict[str, Any]) -> None:
    q = s["quality"]
    him = OPPONENTS[s.get("opponent", "heuristic")]
    lines = [
        f"# Reading the opponent against {him}",
        "",
        f"`{s['command']}`",
        "",
        f"Take model: {s['decisions']:,} discard decisions of L2 ({s['labels']:,} labels) "
        f"from {s['hands']:,} hands of L2 against {him}; held out: {s['test_hands']:,} hands "
        f"of another seed ({int(q['labels']):,} labels, {him} takes "
        f"{100 * q['take_rate']:.1f}% of them).",
        "",
        f"| predictor of '{him} takes this discard' | Brier | accuracy |",
        "|---|---:|---:|",
    ]
    for name, label in (
        ("model", "learned take model"),
        ("constant", "constant base rate"),
        ("danger", "L2's danger read as a chance"),
    ):
        lines.append(f"| {label} | {q[f'brier_{name}']:.4f} | {q[f'accuracy_{name}']:.3f} |")
    lines += [
        "",
        "Ranking the cards of one pip value (AUC; 0.5 is a coin, 1 the oracle):",
        "",
        f"| pips | {him} takes | AUC learned | AUC L2's danger |",
        "|---:|---:|---:|---:|",
    ]
    for v in range(1, 11):
        lines.append(
            f"| {v} | {100 * q[f'take_rate_pips_{v}']:.1f}% | {q[f'auc_model_pips_{v}']:.3f} | "
            f"{q[f'auc_danger_pips_{v}']:.3f} |"
        )
    lines += [
        "",
        f"Against {him}, {s['report'][0]['pairs']:,} duplicate pairs on held-out seed "
        f"{s['report'][0]['seed']} (weights chosen on the selection seed; 95% CIs):",
        "",
        "| arm | weight | points per hand | hands won |",
        "|---|---:|---:|---:|",
    ]
    for r in s["report"]:
        lines.append(f"| {r['arm']} | {r['weight']:g} | {_pm(r)} |")
    lines += ["", "Selection (seed, pairs, points per hand):", ""]
    for r in s["selection"]:
        lines.append(
            f"- {r['arm']} weight {r['weight']:g}: {r['points_per_hand']:+.2f} "
            f"(seed {r['seed']}, {r['pairs']} pairs)"
        )
    lines += [
        "",
        f"Wall time {s['seconds'] / 60:.1f} min (data {s['data_seconds'] / 60:.1f} min).",
        "",
    ]
    path.write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m studies.take_study", description=__doc__.split("\n")[0]
    )
    p.add_argument(
        "--opponent",
        default="heuristic",
        choices=tuple(OPPONENTS),
        help="the opponent read: heuristic (L2) or simple (L1)",
    )
    p.add_argument("--hands", type=int, default=16000, help="hands of training data")
    p.add_argument("--test-hands", type=int, default=2000, help="hands of held-out data")
    p.add_argument(
        "--epsilon", type=float, default=0.1, help="share of random discards in the data"
    )
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--data-seed", type=int, default=4242)
    p.add_argument("--weights", default="5,10", help="danger weights to choose from")
    p.add_argument("--select-seed", type=int, default=10007)
    p.add_argument("--select-pairs", type=int, default=400)
    p.add_argument("--seed", type=int, default=2026, help="held-out seed of the report")
    p.add_argument("--pairs", type=int, default=1000)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, default=Path("runs/take_study"), help="output folder")
    args = p.parse_args(argv)
    for name in ("hands", "test_hands", "epochs", "select_pairs", "pairs", "workers"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if not 0 <= args.epsilon <= 1:
        p.error(f"--epsilon must be in [0, 1], got {args.epsilon}")
    try:
        args.weights = [float(w) for w in args.weights.split(",")]
    except ValueError:
        p.error(f"--weights must be numbers separated by commas, got {args.weights!r}")
    args.command = "python -m studies.take_study " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    study = run(args)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "take_study" if args.opponent == "heuristic" else f"take_study_{args.opponent}"
    write_json(args.out / f"{stem}.json", study, [args.data_seed, args.select_seed, args.seed],
               args.command)  # fmt: skip
    write_markdown(args.out / f"{stem}.md", study)
    print(f"wrote {args.out / f'{stem}.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
