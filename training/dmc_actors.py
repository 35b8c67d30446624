"""The acting side of Deep Monte-Carlo training: games played by the learner's networks,
each decision's Monte-Carlo target at the end of its hand, and actor processes that feed one
learner (as DouZero's actors feed its learner).

- :class:`Actor`: ``num_envs`` games of the batched engine (:class:`gin_env.vector.VectorGinEnv`);
  every seat is the learner (epsilon-greedy on the scores of ``score``) or, in
  ``opponent_share`` of the hands, a fixed opponent in every seat but one; fixed roles are
  played by their agents in every hand. Opponents answer for all their rows at once through
  :func:`agents.batched.seat_batched` (the compiled form where there is one). :meth:`Actor.step`
  plays one engine step and returns the decisions whose hands ended, with their targets.
  The trainer's single-process loop and the actor processes run this same class.
- :class:`HandReturns`: a hand's decisions kept until the hand ends, then given their
  target (the deciding side's points of the hand, times a scale).
- :class:`SharedWeights`: the networks' numpy weights in one shared-memory array with a
  version number; the learner publishes, the actors copy the newest when they can.
- :class:`ActorPool`: ``n`` processes (``spawn``), each an :class:`Actor` on its own deals
  with numpy copies of the networks (:class:`agents.dmc.QNet`, no torch), sending the
  decisions of finished hands to the learner through one queue in chunks. Their play is not
  reproducible step for step (the weights an actor holds depend on timing); the deals are
  (each actor's seed comes from the run's seed, its number and the step count at start).
- :func:`history_codes` / :func:`history_from_codes`: a decision's move history
  (``args.history != "none"``: the engine's ``observation="history"``) kept compactly, one
  ``uint16`` code per move (128 bytes a decision instead of 64 x 63 floats), expanded to
  the ``[64, 63]`` one-hots when a batch is drawn.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue as queue_mod
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents import batched
from agents.dmc import L2_MODES, QNet, encode_pairs, greedy, net_groups
from gin_env.cards import NUM_CARDS
from gin_env.encoding import HISTORY_FEATURES, HISTORY_LENGTH, HISTORY_SLICES
from gin_env.match import ROLE_NAMES
from gin_env.vector import VectorGinEnv
from gin_eval.pool import one_blas_thread
from training.flags import names

__all__ = [
    "HandReturns",
    "Actor",
    "SharedWeights",
    "ActorPool",
    "numpy_scorer",
    "stack",
    "Chunk",
    "history_codes",
    "history_from_codes",
]

#: Finished decisions: observations (float16), action encodings (float16), the network of
#: each (its role with one network per role, else 0), the move histories as codes
#: (:func:`history_codes`, ``[n, 64]`` uint16; ``[n, 0]`` for networks without one) and
#: targets.
Chunk = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
#: A finished decision: observation, action encoding, network, history codes (or None),
#: target.
Decision = tuple[np.ndarray, np.ndarray, int, np.ndarray | None, float]
#: ``score(obs [B, OBS], rows [P], feats [P, F], nets [P], history, history_mask) -> q [P]``
#: (the history ``[B, 64, 63]`` and its mask ``[B, 64]``, or None for networks without one).
Scorer = Callable[..., np.ndarray]


# -- the move history, compactly ---------------------------------------------------------------
# One move of encoding.encode_history is a row with at most one bit set in each of its parts
# (who, advice, kind, card). Its code: bit 0 "a real move", bits 1-2 who, bit 3 advice,
# bits 4-6 kind + 1 (0: none shown), bits 7-12 card + 1 (0: none shown).
_WHO, _KIND, _CARD = HISTORY_SLICES["who"], HISTORY_SLICES["kind"], HISTORY_SLICES["card"]
_ADVICE = HISTORY_SLICES["advice"].start


def _code_table() -> np.ndarray:
    """Row ``code``: the history row (float32) that ``code`` stands for."""
    table = np.zeros((1 << 13, HISTORY_FEATURES), np.float32)
    for code in range(1 << 13):
        if not code & 1:
            continue  # padding: all zeros
        who, advice, kind, card = (code >> 1) & 3, (code >> 3) & 1, (code >> 4) & 7, code >> 7
        if who >= _WHO.stop - _WHO.start or kind > _KIND.stop - _KIND.start or card > NUM_CARDS:
            continue  # never made by history_codes
        table[code, _WHO.start + who] = 1.0
        table[code, _ADVICE] = float(advice)
        if kind:
            table[code, _KIND.start + kind - 1] = 1.0
        if card:
            table[code, _CARD.start + card - 1] = 1.0
    return table


_CODE_TABLE = _code_table()


def history_codes(history: np.ndarray, history_mask: np.ndarray) -> np.ndarray:
    """``history [n, 64, 63]`` and ``history_mask [n, 64]`` as ``[n, 64]`` uint16 codes
    (2 bytes a move, 128 a decision); :func:`history_from_codes` gives them back exactly. A
    history row that is not one of :func:`gin_env.encoding.encode_history`'s is a
    ValueError (so no move is ever stored wrong)."""
    history = np.asarray(history)
    real = np.asarray(history_mask).astype(bool)
    if history.shape[1:] != (HISTORY_LENGTH, HISTORY_FEATURES) or real.shape != history.shape[:2]:
        raise ValueError(
            f"history_codes needs history [n, {HISTORY_LENGTH}, {HISTORY_FEATURES}] and its mask"
            f" [n, {HISTORY_LENGTH}]; got {history.shape} and {real.shape}"
        )
    hot = history > 0.5

    def part(sl: slice) -> np.ndarray:  # index + 1 of the part's set bit, 0 if none
        bits = hot[..., sl]
        return np.where(bits.any(-1), bits.argmax(-1) + 1, 0)

    code = (
        real.astype(np.int64)
        | (part(_WHO) - 1).clip(0) << 1
        | hot[..., _ADVICE].astype(np.int64) << 3
        | part(_KIND) << 4
        | part(_CARD) << 7
    )
    code = np.where(real, code, 0).astype(np.uint16)
    if not np.array_equal(_CODE_TABLE[code], np.where(real[..., None], history, 0)):
        raise ValueError("a history row is not a move of encoding.encode_history (cannot code it)")
    return code


def history_from_codes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``[n, 64]`` codes -> ``history [n, 64, 63]`` float32 and ``history_mask [n, 64]``
    bool (:func:`history_codes` undone)."""
    codes = np.asarray(codes)
    return _CODE_TABLE[codes], (codes & 1).astype(bool)


class HandReturns:
    """The decisions of each slot's hand in progress, until the hand ends.

    ``add(slot, obs, feats, net, seat, history)`` stages a decision of player ``seat``
    (``history``: its move history's codes, or None); ``finish(slot, rewards)`` (at
    ``hand_over``, with the engine's ``rewards[slot]`` of that step in ``reward="team"``
    mode) returns ``(obs, feats, net, history, target)`` for each,
    the target being ``rewards[seat] * scale``: the points the deciding seat's side made in
    that hand (+ won, - lost; the captain's and the adviser's are the team's).
    """

    def __init__(self, n_slots: int, scale: float) -> None:
        self.scale = scale
        self.staged: list[list[tuple[np.ndarray, np.ndarray, int, int, np.ndarray | None]]] = [
            [] for _ in range(n_slots)
        ]

    def add(
        self,
        slot: int,
        obs: np.ndarray,
        feats: np.ndarray,
        net: int,
        seat: int,
        history: np.ndarray | None = None,
    ) -> None:
        self.staged[slot].append((obs, feats, net, seat, history))

    def finish(self, slot: int, rewards: np.ndarray) -> list[Decision]:
        out = [
            (o, f, n, h, float(rewards[seat]) * self.scale)
            for o, f, n, seat, h in self.staged[slot]
        ]
        self.staged[slot] = []
        return out

    def drop(self, slot: int) -> None:
        self.staged[slot] = []


class Actor:
    """Games of the batched engine played by the learner and fixed opponents.

    ``args`` holds the run's settings (the fields of ``training.train_dmc.Args`` read here:
    ``env``, ``num_envs``, ``backend``, ``features``, ``epsilon``, ``warm_epsilon``,
    ``warm_steps``, ``l2_margin``, ``opponents``, ``opponent_share``, ``reward_scale``,
    ``role_nets``, ``seed``, ``history``); ``role_specs`` the fixed roles (role name -> agent name);
    ``score`` the learner's Q of candidate pairs; ``seed`` the deals; ``rng`` exploration
    and seat draws; ``start_rng`` the seats of the first games.
    """

    def __init__(
        self,
        args: Any,
        role_specs: dict[str, str],
        score: Scorer,
        seed: int,
        rng: np.random.Generator,
        start_rng: np.random.Generator,
        warm: bool = False,
    ) -> None:
        self.args = args
        self.score = score
        self.rng = rng
        self.reads_history = getattr(args, "history", "none") != "none"
        self.env = VectorGinEnv(
            args.num_envs,
            args.env,
            seed=seed,
            backend=args.backend,
            episode="hand" if args.env == "gin" else "match",
            reward="team",
            observation="history" if self.reads_history else "flat",
        )
        self.n_slots, self.n_players = self.env.num_envs, self.env.num_players
        # Every agent is seated at the engine's table (its rules, checked at seating).
        table = self.env.table
        self.fixed = [batched.seat_batched(n, table) for n in names(args.opponents)]
        self.n_opponents = len(self.fixed)
        # by_role[r]: index into ``fixed`` (+1) of the agent playing role r, 0 if r learns.
        self.by_role = np.zeros(max(len(ROLE_NAMES), self.n_players), np.int64)
        for role_name, agent_name in role_specs.items():
            self.fixed.append(batched.seat_batched(agent_name, table))
            self.by_role[ROLE_NAMES.index(role_name)] = len(self.fixed)
        self.has_fixed_roles = bool(role_specs)
        self.n_nets = self.n_players if args.role_nets else 1
        self.l2 = batched.seat_batched("heuristic", table)
        self.ctrl = np.zeros((self.n_slots, self.n_players), np.int64)  # 0: learner; k: agent k-1
        self.staged = HandReturns(self.n_slots, args.reward_scale)
        self.out = self.env.reset()
        self.slots = np.arange(self.n_slots)
        for s in range(self.n_slots):
            self.draw_seats(s, warm, start_rng)

    def draw_seats(self, slot: int, warm: bool, rng: np.random.Generator | None = None) -> None:
        """Who plays each seat of the slot's next hand: the learner everywhere, or (in
        ``opponent_share`` of the hands, never in the warm start) one fixed opponent in
        every seat but one."""
        rng = self.rng if rng is None else rng
        self.ctrl[slot] = 0
        if not warm and self.n_opponents and rng.random() < self.args.opponent_share:
            self.ctrl[slot] = 1 + int(rng.integers(self.n_opponents))
            self.ctrl[slot, int(rng.integers(self.n_players))] = 0

    def step(self, steps: int) -> tuple[int, int, list[Decision]]:
        """One engine step at run step ``steps``: returns the learner decisions played, the
        hands ended and the ``(obs, feats, net, history, target)`` of the decisions whose
        hands ended (a cut episode's unfinished hand is dropped: it has no return)."""
        args, out = self.args, self.out
        warm = steps < args.warm_steps
        obs, mask, seat, role = out["observation"], out["action_mask"], out["seat"], out["role"]
        who = self.ctrl[self.slots, seat]
        if self.has_fixed_roles:  # a fixed role's agent plays it, whoever holds the seat
            who = np.where(self.by_role[role] > 0, self.by_role[role], who)
        acts = np.empty(self.n_slots, np.int64)
        for k in np.unique(who[who > 0]).tolist():
            rows = np.flatnonzero(who == k)
            acts[rows] = self.fixed[k - 1].act(obs[rows], mask[rows], self.rng)
        learner = np.flatnonzero(who == 0)
        played = len(learner)
        if played:
            lob, lmask = obs[learner], mask[learner]
            need_l2 = warm or args.features in L2_MODES
            l2a = self.l2.act(lob, lmask) if need_l2 else None
            rows, pacts, feats = encode_pairs(lob, lmask, args.features, l2a)
            net_of = role[learner] if self.n_nets > 1 else np.zeros(played, np.int64)
            hist = hmask = codes = None
            if self.reads_history:
                hist, hmask = out["history"][learner], out["history_mask"][learner]
                codes = history_codes(hist, hmask)
            if warm:
                assert l2a is not None
                chosen = l2a.copy()
            else:
                q = self.score(lob, rows, feats, net_of[rows], hist, hmask)
                if args.l2_margin and l2a is not None:
                    q = q + args.l2_margin * (pacts == l2a[rows])
                chosen = greedy(rows, pacts, q, played)
            eps = args.warm_epsilon if warm else args.epsilon
            for i in np.flatnonzero(self.rng.random(played) < eps).tolist():
                legal = np.flatnonzero(lmask[i])
                chosen[i] = int(legal[self.rng.integers(len(legal))])
            acts[learner] = chosen
            pick = np.flatnonzero(pacts == chosen[rows])  # one pair per row, in row order
            for i, slot in enumerate(learner.tolist()):
                self.staged.add(
                    slot,
                    lob[i],
                    feats[pick[i]],
                    int(net_of[i]),
                    int(seat[slot]),
                    None if codes is None else codes[i],
                )
        out = self.out = self.env.step(acts)
        ended = np.flatnonzero(out["hand_over"] | out["done"])
        done_rows: list[Decision] = []
        hands = 0
        for slot in ended.tolist():
            if out["hand_over"][slot]:
                hands += 1
                done_rows += self.staged.finish(slot, out["rewards"][slot])
            else:
                self.staged.drop(slot)
            self.draw_seats(slot, steps + played < args.warm_steps)
        return played, hands, done_rows


def stack(rows: Sequence[Decision]) -> Chunk:
    """Finished decisions as arrays (observations and encodings in float16, as replayed;
    the history codes ``[n, 64]``, or ``[n, 0]`` when the decisions carry none)."""
    o, f, n, h, t = zip(*rows, strict=True)
    codes = (
        np.zeros((len(rows), 0), np.uint16)
        if h[0] is None
        else np.asarray(h, np.uint16).reshape(len(rows), HISTORY_LENGTH)
    )
    return (
        np.asarray(o, np.float16),
        np.asarray(f, np.float16),
        np.asarray(n, np.int8),
        codes,
        np.asarray(t, np.float32),
    )


def numpy_scorer(nets: Sequence[QNet]) -> Scorer:
    """``score`` of numpy networks: one network, or one per role (``nets`` of each pair)."""

    def score(
        obs: np.ndarray,
        rows: np.ndarray,
        feats: np.ndarray,
        net: np.ndarray,
        history: np.ndarray | None = None,
        history_mask: np.ndarray | None = None,
    ) -> np.ndarray:
        q = np.empty(len(rows), np.float32)
        for k, sel in net_groups(net, len(nets)):
            q[sel] = nets[k].q(obs, rows[sel], feats[sel], history, history_mask)
        return q

    return score


# ==========================================================================================
# Weights shared between the learner and its actors
# ==========================================================================================
def _net_arrays(nets: Sequence[QNet]) -> dict[str, np.ndarray]:
    """Every network's named arrays (:meth:`agents.dmc.QNet.arrays`, prefix ``net<k>_``)."""
    out: dict[str, np.ndarray] = {}
    for k, net in enumerate(nets):
        out.update(net.arrays(f"net{k}_"))
    return out


class SharedWeights:
    """Numpy networks in one shared-memory float32 array, with a version number bumped at
    every :meth:`publish`. ``template`` fixes the networks' arrays and shapes."""

    def __init__(self, template: Sequence[QNet], ctx: Any) -> None:
        arrays = _net_arrays(template)
        self.names = list(arrays)
        self.shapes = [a.shape for a in arrays.values()]
        self.n_nets = len(template)
        size = int(sum(int(np.prod(s)) for s in self.shapes))
        self.array = ctx.RawArray("f", size)
        self.version = ctx.RawValue("q", 0)
        self.lock = ctx.Lock()
        self.publish(template)

    def publish(self, nets: Sequence[QNet]) -> None:
        arrays = _net_arrays(nets)
        flat = np.concatenate([arrays[k].ravel() for k in self.names]).astype(np.float32)
        with self.lock:
            np.frombuffer(self.array, np.float32)[:] = flat
            self.version.value += 1

    def read(self) -> tuple[int, list[QNet]]:
        """The newest version number and a copy of its networks."""
        with self.lock:
            flat = np.frombuffer(self.array, np.float32).copy()
            version = int(self.version.value)
        arrays, at = {}, 0
        for name, s in zip(self.names, self.shapes, strict=True):
            n = int(np.prod(s))
            arrays[name] = flat[at : at + n].reshape(s)
            at += n
        return version, [QNet.from_arrays(arrays, f"net{k}_") for k in range(self.n_nets)]


def _actor_main(
    index: int,
    args: Any,
    role_specs: dict[str, str],
    weights: SharedWeights,
    out_queue: Any,
    stop: Any,
    start_steps: int,
    chunk: int,
    sync_every: int,
    parent: int,
) -> None:
    """One actor process: play, send finished decisions in chunks of about ``chunk``
    (with the decisions played and hands ended since the last send), take the newest
    weights every ``sync_every`` engine steps. It stops with its learner (``parent``):
    when asked, and when the learner is gone (killed, even by SIGKILL: no orphan)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the learner decides when to stop

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        # Re-parented: the learner died (even by SIGKILL). Exit now, whatever blocks (a full
        # queue's feeder thread, a lock the learner held): no orphan outlives its run.
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="learner-watch").start()

    version, nets = weights.read()
    holder = {"score": numpy_scorer(nets)}
    base = [args.seed, 4, index, start_steps]
    actor = Actor(
        args,
        role_specs,
        lambda *a: holder["score"](*a),
        seed=(args.seed * 1_000_003 + start_steps) * 64 + 1 + index,
        rng=np.random.default_rng([*base, 1]),
        start_rng=np.random.default_rng([*base, 2]),
    )
    pending: list[Decision] = []
    played = hands = 0
    n = 0
    while not stop.is_set():
        # A step count past the warm start: actors never play it (the trainer refuses it).
        p, h, rows = actor.step(start_steps + args.warm_steps)
        played, hands = played + p, hands + h
        pending += rows
        n += 1
        if len(pending) >= chunk:
            item = (played, hands, stack(pending))
            pending, played, hands = [], 0, 0
            while not stop.is_set():
                try:
                    out_queue.put(item, timeout=0.5)
                    break
                except queue_mod.Full:
                    continue
        if n % sync_every == 0 and weights.version.value != version:
            version, nets = weights.read()
            holder["score"] = numpy_scorer(nets)


class ActorPool:
    """``n`` actor processes feeding one learner: :meth:`get` returns the next chunk (the
    decisions played and hands ended since that actor's last chunk, and the finished
    decisions), :meth:`publish` hands them the learner's newest weights, :meth:`close`
    stops them."""

    def __init__(
        self,
        n: int,
        args: Any,
        role_specs: dict[str, str],
        nets: Sequence[QNet],
        start_steps: int,
        chunk: int = 1024,
        sync_every: int = 4,
    ) -> None:
        if n < 1:
            raise ValueError(f"an actor pool needs at least one actor; got {n}")
        ctx = mp.get_context("spawn")  # the learner holds torch threads: never fork them
        self.weights = SharedWeights(nets, ctx)
        self.queue = ctx.Queue(maxsize=4 * n)
        self.stop = ctx.Event()
        self.procs = [
            ctx.Process(
                target=_actor_main,
                args=(
                    i,
                    args,
                    role_specs,
                    self.weights,
                    self.queue,
                    self.stop,
                    start_steps,
                    chunk,
                    sync_every,
                    os.getpid(),
                ),  # fmt: skip
                daemon=True,
                name=f"dmc-actor-{i}",
            )
            for i in range(n)
        ]
        with one_blas_thread():
            for p in self.procs:
                p.start()

    def publish(self, nets: Sequence[QNet]) -> None:
        self.weights.publish(nets)

    def get(self, timeout: float = 1.0) -> tuple[int, int, Chunk] | None:
        """The next chunk, or ``None`` after ``timeout`` seconds without one (an actor that
        died is a RuntimeError naming it)."""
        try:
            return self.queue.get(timeout=timeout)  # type: ignore[no-any-return]
        except queue_mod.Empty:
            dead = [p.name for p in self.procs if not p.is_alive()]
            if dead:
                raise RuntimeError(f"DMC actor process(es) stopped: {', '.join(dead)}") from None
            return None

    def close(self) -> None:
        self.stop.set()
        deadline = time.time() + 30
        for p in self.procs:
            while p.is_alive() and time.time() < deadline:
                try:  # drain, so that no actor waits on a full queue
                    self.queue.get(timeout=0.1)
                except queue_mod.Empty:
                    pass
                p.join(timeout=0.1)
            if p.is_alive():
                p.terminate()
                p.join()
        self.queue.close()
