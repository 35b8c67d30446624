"""Tuning is training: CMA-ES over L2's parameter family (``gin-rummy train --algo tune``).

The search space is :class:`agents.heuristic.HeuristicParams`, field by field: every
numeric field with a range in :data:`BOUNDS` is searched (scaled to [0, 1], integers
rounded), the switches in :data:`FIXED` keep their defaults, and a field in neither is an
error (a new parameter must be given a range before it is tuned). CMA-ES is the ``cma``
library's (the ``train`` extra).

- **Fitness**: a candidate's points per hand on common duplicate deals, both seats of each
  deal, against a pool: L2 (the default parameters), L1 (``simple``), and the bests of the
  last ``--pool-bests`` generations (the latest is the current best); the mean over the
  pool. ``--pool-opponents`` names the fixed part (default ``L2,L1``; also ``tuned``, the
  set shipped for the table or, at ``eaai``, OpenSpiel's, and the styles ``gin-only`` and
  ``knock-early`` of L2's family, :data:`STYLES`). ``--fitness games`` counts instead the
  share of matches to the table's target won (mirrored pairs of real games on common
  decks, the score in the observation, :mod:`gin_eval.matches`), and the final
  choice and the report play the pool's fixed opponents in games. Every
  candidate of a generation meets the same opponents on the same deals
  (``--pairs`` per opponent, new deals each generation), so the differences between them
  are not the deals' luck. The table's rules are ``--table`` (:data:`agents.tuned.TABLES`).
- **Both cores**: one pool of ``--workers`` processes for the whole run. With ``--engine
  batched`` (the default) each worker plays its share of a generation's games at once on
  the batched engine (:class:`~gin_env.vector.VectorGinEnv` dealt the duplicate decks, the
  compiled L2 of :mod:`agents.heuristic_batched` and L1 of :mod:`agents.batched`); ``--engine
  python`` plays game by game through the AEC env and the Python L2, far slower, with the
  same points (``tests/test_tune.py`` plays both).
- **Start**: the CMA-ES mean starts at L2's defaults, or with ``--start tuned`` at the set
  shipped for the table (a second search refining the first); that set then competes in the
  final choice as ``start``, so a search that found nothing better leaves it chosen.
- **Selection and report**: after the generations, the distribution's mean and the bests
  of ``--select-candidates`` generations spread over the run play L2 and L1 on
  ``--select-pairs`` fresh deals of the same ``--seed``; the one with the best mean of the
  two is the tuned set. Its figures (vs L2, vs L1, 95% CIs over pairs) are played on
  ``--report-seed``, which nothing was chosen on, over ``--report-pairs`` pairs.
- **Resumable**: after each generation ``<run-dir>/checkpoint.json`` (data only: the
  generation, the bests, every generation's candidates and fitnesses, the wall time) is
  replaced atomically; ``--resume`` rebuilds CMA-ES from the run's seed and replays what it
  was told (checking that it asks for the same candidates), so a run killed and resumed
  reaches the state of one that was never stopped (the deals depend on the seed and the
  generation alone). Settings that define the search come from the checkpoint; a flag that
  contradicts them is refused by name. A new run in a folder that holds anything is
  refused (``--resume``, or ``--overwrite``); a torn last line of ``generations.jsonl`` (a
  kill mid-write) is dropped.
- **Shown**: a tqdm bar over the candidates, a line per generation, and
  ``generations.jsonl`` / ``generations.csv`` in the run folder; ``params.json`` is the
  tuned parameter set (:func:`agents.tuned.param_set`, with how it was found and its
  figures) and ``report.json`` the figures.

``python -m training.tune card <run-dir>...`` copies each run's ``params.json`` to
``agents/checkpoints/tuned-<table>.json`` and writes the model card ``tuned.md``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.batched import BatchedSimple, batched_form
from agents.heuristic import HeuristicAgent, HeuristicParams
from agents.heuristic_batched import BatchedHeuristic
from agents.opponent_model import STYLES as OPPONENT_STYLES
from agents.simple import SimpleAgent
from agents.tuned import SET_DIR, TABLES, load_sets, param_set
from gin_env.config import GinConfig
from gin_env.optional import require
from gin_eval.gin import deal_deck, play_duplicate_batched, play_gin_pair
from gin_eval.matches import play_match_table
from gin_eval.pool import WorkerPool
from gin_eval.stats import mean_ci
from gin_eval.writer import write_json
from training import flags
from training.checkpoints import (
    check_writable,
    claim_run_dir,
    read_json,
    read_jsonl,
    write_json_atomic,
)
from training.progress import Progress

__all__ = [
    "Args",
    "BOUNDS",
    "FIXED",
    "SEARCH_FLAGS",
    "space",
    "decode",
    "encode",
    "tune",
    "nearest_set",
    "todays_tuned",
    "write_card",
    "main",
]

MODULE = "training.tune"

#: The range searched for each parameter of :class:`HeuristicParams`.
BOUNDS: dict[str, tuple[float, float]] = {
    "potential_weight": (0.0, 3.0),
    "potential_draws": (0.0, 12.0),
    "potential_floor": (0.0, 10.0),
    "potential_div": (2.0, 15.0),
    "danger_weight": (0.0, 15.0),
    "passed_factor": (0.0, 1.0),
    "high_factor": (0.0, 1.5),
    "took_hazard": (0.0, 2.0),
    "knock_weight": (0.0, 6.0),
    "take_margin": (-3.0, 5.0),
    "knock_early": (0, 10),
    "knock_late": (0, 10),
    "knock_shown_meld": (0, 3),
    "gin_outs": (1, 12),  # 12 live gin cards hardly happens: "never wait for gin"
    "gin_stock": (0, 31),
    "gin_deadwood": (1, 10),
    "knock_bend": (-5.0, 5.0),
    "knock_undercut": (-4.0, 2.0),  # no effect at a table whose undercut bonus is 10
    "take_margin_late": (-3.0, 5.0),
    "keep_late": (-0.5, 2.0),
    "danger_took": (-2.0, 5.0),
    "danger_late": (-5.0, 10.0),
    "knock_last_pips": (-4.0, 4.0),
    "keep_took": (-0.3, 0.5),
    "danger_pips": (0.0, 2.5),
    "match_knock": (-4.0, 4.0),  # the match score's shift (agents.match_equity)
    "match_gin": (-4.0, 4.0),
}
#: Switches held at their defaults (measured off; not weights a step can move).
FIXED = frozenset({"lookahead", "exact_draw"})
#: Flags that define the search: a ``--resume`` may not change them.
SEARCH_FLAGS = (
    "table", "popsize", "sigma0", "pairs", "pool_bests", "seed", "start", "pool_opponents",
    "fitness",
)  # fmt: skip
#: Where a search may start: L2's defaults, the shipped set tuned for the table, or a
#: style of the pool (:data:`STYLES`).
STARTS = ("L2", "tuned", "gin-only", "knock-early")
#: The fixed opponents a fitness pool may hold (the generation bests come on top): L2, L1,
#: ``tuned`` (the set shipped for the table; at ``eaai``, which has none, OpenSpiel's),
#: ``gin-only`` (L2 that knocks only with gin) and ``knock-early`` (L2 that knocks with
#: deadwood in its first turns only, then plays for gin).
POOL_OPPONENTS = ("L2", "L1", "tuned", "gin-only", "knock-early")
#: What a candidate's fitness counts: points per hand, or the share of matches to the
#: table's target won (mirrored pairs of real games, :mod:`gin_eval.matches`).
FITNESSES = ("points", "games")
#: Per generation, what a shipped set keeps of its search (the card's table).
SEARCH_COLUMNS = (
    "generation",
    "evaluations",
    "fitness_best",
    "fitness_mean",
    "sigma",
    "pool_points",
)
#: Deal indices of the final choice (the generations use 0, 1, ... per generation).
SELECT_OFFSET = 10_000_000
HELP = flags.HELP
#: How the games are played: both give the same points (tests/test_tune.py).
ENGINES = ("batched", "python")


# ==========================================================================================
# Config
# ==========================================================================================
@dataclass
class Args:
    """Everything a tuning run needs; every field is a ``--flag``."""

    run_dir: str = HELP("", "folder of the run (checkpoint, logs, params.json); runs/tune/<table>")
    table: str = HELP("default", f"rules to tune for: {', '.join(TABLES)} (agents.tuned.TABLES)")
    generations: int = HELP(30, "CMA-ES generations")
    popsize: int = HELP(0, "candidates a generation (0: CMA-ES's default, 4 + 3 ln d)")
    sigma0: float = HELP(0.15, "initial step, as a fraction of each parameter's range")
    pairs: int = HELP(100, "duplicate deals per candidate and pool opponent, a generation")
    pool_bests: int = HELP(2, "bests of the latest generations in the pool, beside L2 and L1")
    pool_opponents: str = HELP(
        "L2,L1", f"the pool's fixed opponents, comma-separated: of {', '.join(POOL_OPPONENTS)}"
    )
    start: str = HELP(
        "L2",
        "the search's start: L2 (its defaults), tuned (the set shipped for --table), or a "
        "style of the pool (gin-only, knock-early)",
    )
    fitness: str = HELP(
        "points", "points (per hand) or games (share of matches to the target won, mirrored)"
    )
    seed: int = HELP(0, "selection seed: CMA-ES's draws, the deals of generations and choice")
    select_candidates: int = HELP(8, "generation bests (spread over the run) tried at the end")
    select_pairs: int = HELP(1000, "pairs vs L2 and vs L1 for each final candidate")
    report_seed: int = HELP(1, "seed of the reported figures (never used to choose)")
    report_pairs: int = HELP(5000, "pairs vs L2 and vs L1 for the reported figures")
    workers: int = HELP(2, "worker processes (one pool for the run); 1: in this process")
    engine: str = HELP("batched", "batched (VectorGinEnv, compiled L2) or python (per game)")
    max_minutes: float = HELP(0.0, "stop the generations after this long (0: no limit)")
    resume: bool = HELP(False, "continue the run in --run-dir from its checkpoint")
    overwrite: bool = HELP(False, "start a new run in a --run-dir that holds one, deleting it")
    progress: bool = HELP(True, "show a progress bar")


def pool_opponents(args: Args) -> list[str]:
    return flags.names(args.pool_opponents)


def _start(args: Args) -> tuple[HeuristicParams, dict[str, Any] | None]:
    """The search's first mean and how it was found: L2's defaults (None), or the set
    shipped for the table (at a table without one, :func:`todays_tuned`'s) with its
    search's story (the card keeps it)."""
    if args.start == "L2":
        return HeuristicParams(), None
    if args.start in STYLES:
        return STYLES[args.start], None
    sets = load_sets()
    name = nearest_set(args.table, sets)
    shipped = sets[name]
    t = shipped.get("tuning", {})
    keep = ("commands", "generations", "evaluations", "wall_s", "start_tuning")
    story = {k: t[k] for k in keep if k in t}
    if name != args.table:
        story["table"] = name
    return HeuristicParams(**shipped["params"]), story


def check_args(args: Args) -> None:
    """A clear error, before anything runs, for a bad setting."""
    if args.table not in TABLES:
        raise ValueError(f"table must be one of {', '.join(TABLES)}; got {args.table!r}")
    for name, low in (
        ("generations", 1),
        ("popsize", 0),
        ("pairs", 1),
        ("pool_bests", 0),
        ("select_candidates", 0),
        ("select_pairs", 0),
        ("report_pairs", 0),
        ("workers", 1),
    ):
        value = getattr(args, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if args.start not in STARTS:
        raise ValueError(f"start must be one of {', '.join(STARTS)}; got {args.start!r}")
    if args.start == "tuned" and not load_sets():
        raise ValueError(f"start tuned: no set shipped in {SET_DIR}")
    names = pool_opponents(args)
    if not names or len(set(names)) != len(names) or not set(names) <= set(POOL_OPPONENTS):
        raise ValueError(
            f"pool_opponents must name each of {', '.join(POOL_OPPONENTS)} at most once, "
            f"comma-separated; got {args.pool_opponents!r}"
        )
    if args.fitness not in FITNESSES:
        raise ValueError(f"fitness must be one of {', '.join(FITNESSES)}; got {args.fitness!r}")
    if args.fitness == "games" and args.engine != "batched":
        raise ValueError("fitness games plays on the batched engine: pass --engine batched")
    if args.engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}; got {args.engine!r}")
    if args.popsize == 1:
        raise ValueError("popsize must be 0 (the default) or at least 2, got 1")
    if not 0 < args.sigma0 <= 1:
        raise ValueError(f"sigma0 must be in (0, 1], got {args.sigma0!r}")
    if args.max_minutes < 0:
        raise ValueError(f"max_minutes must be >= 0, got {args.max_minutes!r}")


# ==========================================================================================
# The search space
# ==========================================================================================
def space() -> list[dataclasses.Field[Any]]:
    """The searched fields of :class:`HeuristicParams`, in declaration order."""
    out = []
    for f in dataclasses.fields(HeuristicParams):
        if f.name in BOUNDS:
            out.append(f)
        elif f.name not in FIXED:
            raise ValueError(
                f"HeuristicParams.{f.name} has no range in training.tune.BOUNDS "
                f"(and is not held fixed in FIXED): give it one to tune it"
            )
    return out


def encode(params: HeuristicParams) -> np.ndarray:
    """``params`` in the search's [0, 1] coordinates (clipped to the ranges)."""
    out = []
    for f in space():
        low, high = BOUNDS[f.name]
        out.append(min(1.0, max(0.0, (float(getattr(params, f.name)) - low) / (high - low))))
    return np.asarray(out)


def decode(x: Sequence[float] | np.ndarray) -> HeuristicParams:
    """The parameters at point ``x`` of [0, 1]^d (clipped; integer fields rounded)."""
    values: dict[str, Any] = {}
    for f, v in zip(space(), x, strict=True):
        low, high = BOUNDS[f.name]
        value = low + min(1.0, max(0.0, float(v))) * (high - low)
        values[f.name] = int(round(value)) if isinstance(f.default, int) else round(value, 4)
    return HeuristicParams(**values)


# ==========================================================================================
# Duplicate play in the workers
# ==========================================================================================
Opponent = Any  # HeuristicParams (an L2 with those parameters) or "simple"


def _agent(who: Opponent, table: GinConfig) -> Any:
    # L2 and the candidates (parameter sets, not named agents) read the table's rules: the
    # undercut bonus moves the knock.
    return SimpleAgent() if who == "simple" else HeuristicAgent(who, rules=table)


def play_block(
    a: HeuristicParams, b: Opponent, seed: int, start: int, count: int, table: GinConfig
) -> list[float]:
    """A's points per hand on deals ``start .. start + count`` of ``seed``, a mean per
    deal over its two hands (A in each seat)."""
    agent_a, agent_b = _agent(a, table), _agent(b, table)
    out = []
    for index in range(start, start + count):
        hands = play_gin_pair(agent_a, agent_b, seed, index, table)["hands"]
        out.append(sum(h["a_points"] for h in hands) / 2)
    return out


def play_batched(
    matches: Sequence[tuple[HeuristicParams, Opponent]],
    seed: int,
    start: int,
    pairs: int,
    table: GinConfig,
) -> list[list[float]]:
    """:func:`play_block` for every (A, B) of ``matches`` at once on the batched engine
    (:class:`~gin_env.vector.VectorGinEnv`, the compiled L2 and L1 of
    :mod:`agents.batched`): the same decks (:func:`gin_eval.gin.deal_deck`), A once
    the non-dealer and once the dealer of each. The same points as :func:`play_block`."""
    policies: dict[Any, Any] = {}

    def policy(who: Opponent) -> int:
        key = "simple" if who == "simple" else who
        if key not in policies:
            policies[key] = BatchedSimple() if who == "simple" else batched_form(_agent(who, table))
        return list(policies).index(key)

    owner_a = np.repeat([policy(a) for a, _ in matches], 2 * pairs)
    owner_b = np.repeat([policy(b) for _, b in matches], 2 * pairs)
    pols = [policies[k] for k in policies]
    decks = np.asarray([deal_deck(seed, start + d) for d in range(pairs)])

    def act(out: dict[str, np.ndarray], active: np.ndarray, a_player: np.ndarray, _: Any) -> Any:
        who = np.where(out["seat"] == a_player, owner_a, owner_b)
        actions = np.zeros(len(who), np.int64)
        for k, pol in enumerate(pols):
            rows = np.flatnonzero(active & (who == k))
            if len(rows):
                actions[rows] = pol.act(out["observation"][rows], out["action_mask"][rows])
        return actions

    # Slot 2 k: A is the non-dealer; slot 2 k + 1: A deals (of each match's deals in turn).
    points = play_duplicate_batched(np.tile(decks, (len(matches), 1)), table, act)
    per_pair = points.reshape(len(matches), pairs, 2).mean(axis=2)
    return [row.tolist() for row in per_pair]


def play_games_batched(
    matches: Sequence[tuple[HeuristicParams, Opponent]],
    seed: int,
    start: int,
    pairs: int,
    table: GinConfig,
) -> list[list[float]]:
    """For every (A, B) of ``matches``, A's share of each mirrored pair of matches won at
    ``table`` (to its target, under its dealer rule), pairs ``start .. start + pairs`` of
    ``seed``, all on the same deals (:func:`gin_eval.matches.play_match_table`)."""
    config = table
    cache: dict[Any, Any] = {}

    def policy(who: Opponent) -> Any:
        if who not in cache:
            # The candidates read the table's match options (target, dealer rule).
            cache[who] = BatchedSimple() if who == "simple" else BatchedHeuristic(who, config)
        return cache[who]

    matchups = [(policy(a), policy(b)) for a, b in matches]
    out = play_match_table(matchups, config, seed, pairs, first=start)
    return [r["per_pair"].tolist() for r in out]


class Runner:
    """Matches of candidates against opponents over one pool of worker processes, on the
    batched engine (``engine="batched"``) or game by game (``"python"``)."""

    def __init__(
        self,
        workers: int,
        table: GinConfig,
        engine: str = "batched",
        fitness: str = "points",
    ) -> None:
        self.workers = workers
        self.table = table
        self.engine = engine
        self.fitness = fitness
        self.pool = WorkerPool(workers)

    def play(
        self,
        matches: Sequence[tuple[HeuristicParams, Opponent]],
        seed: int,
        start: int,
        pairs: int,
        on_done: Callable[[int], None] | None = None,
    ) -> list[list[float]]:
        """For each (A, B) of ``matches``, A's per-pair points on the same deals."""
        if self.engine == "batched":
            return self._play_batched(matches, seed, start, pairs, on_done)
        blocks = max(1, min(pairs, math.ceil(4 * self.workers / max(1, len(matches)))))
        size = math.ceil(pairs / blocks)
        jobs, owner = [], []
        for m, (a, b) in enumerate(matches):
            for lo in range(0, pairs, size):
                jobs.append((a, b, seed, start + lo, min(size, pairs - lo), self.table))
                owner.append(m)
        out: list[list[float]] = [[] for _ in matches]
        left = [sum(1 for o in owner if o == m) for m in range(len(matches))]
        results = self.pool.imap(play_block, jobs)
        for m, r in zip(owner, results, strict=True):
            out[m].extend(r)  # imap keeps the order: blocks arrive in deal order
            left[m] -= 1
            if not left[m] and on_done is not None:
                on_done(m)
        return out

    def _play_batched(
        self,
        matches: Sequence[tuple[HeuristicParams, Opponent]],
        seed: int,
        start: int,
        pairs: int,
        on_done: Callable[[int], None] | None,
    ) -> list[list[float]]:
        # The matches in chunks of a few thousand games, a chunk per worker at a time.
        per = max(1, min(math.ceil(len(matches) / self.workers), 4000 // (2 * pairs) or 1))
        chunks = [list(range(i, min(i + per, len(matches)))) for i in range(0, len(matches), per)]
        if self.fitness == "games":
            games = [([matches[m] for m in c], seed, start, pairs, self.table) for c in chunks]
            it = self.pool.imap(play_games_batched, games)
        else:
            jobs = [([matches[m] for m in c], seed, start, pairs, self.table) for c in chunks]
            it = self.pool.imap(play_batched, jobs)
        out: list[list[float]] = []
        for c, r in zip(chunks, it, strict=True):
            out.extend(r)
            for m in c:
                if on_done is not None:
                    on_done(m)
        return out

    def close(self) -> None:
        self.pool.close()


# ==========================================================================================
# The run
# ==========================================================================================
#: The pool's styles of L2's family (:data:`POOL_OPPONENTS`), designed from the game: the
#: ones of :data:`agents.opponent_model.STYLES` that are not L2 itself nor a tuned set.
STYLES: dict[str, HeuristicParams] = {
    name: params
    for name, params in OPPONENT_STYLES.items()
    if name != "L2" and not name.startswith("tuned-")
}


def todays_tuned(table: str) -> HeuristicParams:
    """The shipped set for ``table``; at a table without one, OpenSpiel's (the nearest:
    the same bonuses) or the default's."""
    sets = load_sets()
    return HeuristicParams(**sets[nearest_set(table, sets)]["params"])


def nearest_set(table: str, sets: dict[str, Any]) -> str:
    """The name of the set of ``sets`` for ``table``: its own, else OpenSpiel's at ``eaai``
    (the same bonuses), else the default's."""
    if table in sets:
        return table
    return "openspiel" if table == "eaai" and "openspiel" in sets else "default"


def fixed_opponents(table: str, names: Sequence[str]) -> dict[str, Any]:
    """The pool's fixed opponents by name, as JSON (params dicts, or "simple")."""
    out: dict[str, Any] = {}
    for name in names:
        if name == "L1":
            out[name] = "simple"
        elif name == "L2":
            out[name] = dataclasses.asdict(HeuristicParams())
        elif name == "tuned":
            out[name] = dataclasses.asdict(todays_tuned(table))
        else:
            out[name] = dataclasses.asdict(STYLES[name])
    return out


def _opponent(spec: Any) -> Opponent:
    return "simple" if spec == "simple" else HeuristicParams(**spec)


def _pool(
    bests: list[dict[str, Any]], keep: int, fixed: dict[str, Any]
) -> list[tuple[str, Opponent]]:
    pool: list[tuple[str, Opponent]] = [(name, _opponent(spec)) for name, spec in fixed.items()]
    for b in bests[len(bests) - keep :] if keep else []:
        pool.append((f"best{b['generation']}", HeuristicParams(**b["params"])))
    return pool


def _fixed(args: Args, state: dict[str, Any]) -> dict[str, Any]:
    # Kept in the state (a list: the checkpoint's JSON sorts a dict's keys): a set shipped
    # during the run does not change its pool.
    if "fixed" not in state:
        state["fixed"] = [
            list(x) for x in fixed_opponents(args.table, pool_opponents(args)).items()
        ]
    return {name: spec for name, spec in state["fixed"]}


#: The checkpoint's file in the run folder (JSON; the old pickled one is refused).
CHECKPOINT = "checkpoint.json"
OLD_CHECKPOINT = "checkpoint.pkl"


class _Told:
    """CMA-ES with a record of what it was told: each generation's candidates and their
    values (what a checkpoint keeps, to rebuild the search by replaying it)."""

    def __init__(self, es: Any, told: list[dict[str, Any]]) -> None:
        self.es = es
        self.told = told

    def tell(self, xs: Sequence[Any], values: Sequence[float]) -> None:
        self.told.append(
            {
                "xs": [np.asarray(x, float).tolist() for x in xs],
                "values": [float(v) for v in values],
            }
        )
        self.es.tell(xs, values)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.es, name)


def _new_es(cma: Any, settings: dict[str, Any], start: dict[str, Any]) -> Any:
    """CMA-ES as a run with ``settings`` began it, from the first mean ``start``."""
    # CMA-ES's own RNG, not numpy's global one: a replay draws exactly the same.
    rng = np.random.RandomState(settings["seed"])
    opts: dict[str, Any] = {"bounds": [0.0, 1.0], "randn": rng.randn, "seed": np.nan}
    opts["verbose"] = -9
    if settings["popsize"]:
        opts["popsize"] = settings["popsize"]
    return cma.CMAEvolutionStrategy(
        encode(HeuristicParams(**start)).tolist(), settings["sigma0"], opts
    )


def _save(path: Path, state: dict[str, Any]) -> None:
    """The checkpoint as JSON (the live CMA-ES object stays out: its record replays it),
    replaced atomically: a kill mid-write leaves the previous checkpoint whole."""
    data = {k: v for k, v in state.items() if k != "es"}
    if isinstance(data.get("choice", {}).get("params"), HeuristicParams):
        data["choice"] = {**data["choice"], "params": dataclasses.asdict(data["choice"]["params"])}
    write_json_atomic(path, data)


def _new_state(args: Args, cma: Any) -> dict[str, Any]:
    d = len(space())
    start, start_tuning = _start(args)
    settings = {k: getattr(args, k) for k in SEARCH_FLAGS}
    told: list[dict[str, Any]] = []
    return {
        "settings": settings,
        "es": _Told(_new_es(cma, settings, dataclasses.asdict(start)), told),
        "told": told,
        "generation": 0,
        "evaluations": 0,
        "bests": [],
        "history": [],
        "wall_s": 0.0,
        "dimension": d,
        # As it was when the run began: the shipped set may be replaced by this run's.
        "start": dataclasses.asdict(start),
        "start_tuning": start_tuning,
    }


def load_state(run_dir: Path) -> dict[str, Any]:
    """A run's checkpoint, with CMA-ES rebuilt by replaying its record; a missing,
    malformed or old (pickled) checkpoint is one line naming the file."""
    path = Path(run_dir) / CHECKPOINT
    if not path.is_file() and (Path(run_dir) / OLD_CHECKPOINT).is_file():
        raise ValueError(
            f"{Path(run_dir) / OLD_CHECKPOINT} is a checkpoint in the old pickled format, which "
            "this version does not load (it could run code); start the search again"
        )
    state = read_json(path, "tune checkpoint")
    need = {"settings", "told", "generation", "evaluations", "bests", "history", "start"}
    if not isinstance(state, dict) or not need <= set(state):
        raise ValueError(f"{path}: not a tune checkpoint (needs {', '.join(sorted(need))})")
    if isinstance(state.get("choice", {}).get("params"), dict):
        state["choice"]["params"] = HeuristicParams(**state["choice"]["params"])
    settings = {**{k: getattr(Args(), k) for k in SEARCH_FLAGS}, **state["settings"]}
    es = _new_es(require("cma", "train"), settings, state["start"])
    for g, rec in enumerate(state["told"]):
        xs = es.ask()
        if not np.array_equal(np.asarray(xs, float), np.asarray(rec["xs"], float)):
            raise ValueError(
                f"{path}: replaying generation {g} asks for other candidates than the run "
                "did (another version of cma?); the search cannot be resumed exactly"
            )
        es.tell(xs, rec["values"])
    state["es"] = _Told(es, state["told"])
    return state


def _log(run_dir: Path, row: dict[str, Any]) -> None:
    with (run_dir / "generations.jsonl").open("a") as fh:
        fh.write(json.dumps(row) + "\n")
    flat = {k: v for k, v in row.items() if k not in ("best_params", "pool_points", "pool")}
    # Fixed columns: the bests in the pool change names every generation.
    points = dict(row["pool_points"])
    flat["vs_L2"], flat["vs_L1"] = points.pop("L2", ""), points.pop("L1", "")
    flat["vs_bests"] = float(np.mean(list(points.values()))) if points else ""
    flat.update({f"p_{k}": v for k, v in row["best_params"].items()})
    path = run_dir / "generations.csv"
    new = not path.exists()
    with path.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(flat))
        if new:
            writer.writeheader()
        writer.writerow(flat)


def rewrite_logs(run_dir: Path, generations: int) -> None:
    """The logs of the first ``generations`` generations, the CSV rewritten from the JSONL:
    lines after the checkpoint (a kill between the log and the checkpoint) are dropped, so
    a resumed run logs each generation once."""
    path = run_dir / "generations.jsonl"
    if not path.exists():
        return
    rows = [r for r in read_jsonl(path) if r["generation"] < generations]
    path.unlink()
    (run_dir / "generations.csv").unlink(missing_ok=True)
    for r in rows:
        _log(run_dir, r)


def tune(
    args: Args,
    command: str = "",
    after_generation: Callable[[dict[str, Any]], None] | None = None,
    explicit: Sequence[str] | set[str] | None = None,
) -> dict[str, Any]:
    """Run (or resume) the search, then choose and report; returns the run's state.
    ``after_generation(state)`` is called after each checkpoint (tests stop a run there).
    ``explicit``: the flags the command line gave (a resume refuses those that contradict
    the run); ``None`` (a call from Python): the values that differ from the defaults."""
    check_args(args)
    cma = require("cma", "train")
    run_dir = Path(args.run_dir or f"runs/tune/{args.table}")
    ckpt = run_dir / CHECKPOINT
    if args.resume:
        if args.overwrite:
            raise ValueError("--resume and --overwrite contradict each other: give one")
        if not ckpt.exists() and not (run_dir / OLD_CHECKPOINT).exists():
            raise ValueError(f"--resume: no checkpoint in {run_dir}")
        check_writable(run_dir, folder=True)
        state = load_state(run_dir)
        # A run from before a setting existed ran at its default.
        saved = {**{k: getattr(Args(), k) for k in SEARCH_FLAGS}, **state["settings"]}
        # The search's settings come from the checkpoint; one given that contradicts them
        # (differs from the saved value and from the default) is refused by name.
        given = set(SEARCH_FLAGS) if explicit is None else set(explicit) & set(SEARCH_FLAGS)
        defaults = Args()
        changed = [
            k
            for k in SEARCH_FLAGS
            if k in given
            and saved[k] != getattr(args, k)
            and (explicit is not None or getattr(args, k) != getattr(defaults, k))
        ]
        if changed:
            was = ", ".join(f"{k}={saved[k]!r}" for k in changed)
            raise ValueError(f"--resume cannot change the search's settings: the run has {was}")
        args = dataclasses.replace(args, **{k: saved[k] for k in SEARCH_FLAGS})
        check_args(args)
        rewrite_logs(run_dir, state["generation"])
    else:
        # Refused before any work: a new run where one is (unless --overwrite).
        claim_run_dir(run_dir, resume=False, overwrite=args.overwrite)
        state = _new_state(args, cma)
    if command:  # every command of the run, the first and each resume
        state["commands"] = [*state.get("commands", []), command]
    table = TABLES[args.table]  # the table tuned for
    es = state["es"]
    started = time.time()
    wall0 = state["wall_s"]
    runner = Runner(args.workers, table, args.engine, args.fitness)
    bar = Progress(
        total=args.generations * es.popsize,
        start=min(state["generation"], args.generations) * es.popsize,
        enabled=args.progress,
        desc=f"tune {args.table}",
        unit="cand",
    )
    try:
        while state["generation"] < args.generations:
            if args.max_minutes and time.time() - started > 60 * args.max_minutes:
                bar.write(f"--max-minutes {args.max_minutes} reached: stopping the generations")
                break
            _generation(args, state, runner, bar, run_dir)
            state["wall_s"] = wall0 + time.time() - started
            _save(ckpt, state)
            if after_generation is not None:
                after_generation(state)
        if state.get("choice", {}).get("key") != _choice_key(args, state):
            state["choice"] = _choose(args, state, runner, bar)
            state["wall_s"] = wall0 + time.time() - started
            _save(ckpt, state)
        if args.report_pairs and state.get("report", {}).get("key") != _report_key(args, state):
            state["report"] = _report(args, state, runner, bar)
            state["wall_s"] = wall0 + time.time() - started
            _save(ckpt, state)
    finally:
        runner.close()
        bar.close()
    _write_outputs(args, state, run_dir)
    return state


def _generation(
    args: Args, state: dict[str, Any], runner: Runner, bar: Progress, run_dir: Path
) -> None:
    es = state["es"]
    g = state["generation"]
    t0 = time.time()
    xs = es.ask()
    cands = [decode(x) for x in xs]
    pool = _pool(state["bests"], args.pool_bests, _fixed(args, state))
    matches = [(c, opp) for c in cands for _, opp in pool]
    done = [0] * len(cands)

    def on_done(m: int) -> None:
        i = m // len(pool)
        done[i] += 1
        if done[i] == len(pool):
            bar.update(1)

    per_pair = runner.play(matches, args.seed, g * args.pairs, args.pairs, on_done)
    points = np.asarray([float(np.mean(p)) for p in per_pair]).reshape(len(cands), len(pool))
    fitness = points.mean(axis=1)
    es.tell(xs, (-fitness).tolist())  # CMA-ES minimises
    best = int(np.argmax(fitness))
    params = dataclasses.asdict(cands[best])
    state["bests"].append({"generation": g, "params": params, "fitness": float(fitness[best])})
    state["evaluations"] += len(cands)
    state["generation"] = g + 1
    row = {
        "generation": g,
        "evaluations": state["evaluations"],
        "pairs": len(cands) * len(pool) * args.pairs,
        "fitness_best": float(fitness[best]),
        "fitness_mean": float(fitness.mean()),
        "fitness_worst": float(fitness.min()),
        "sigma": float(es.sigma),
        "seconds": round(time.time() - t0, 2),
        "pool": [name for name, _ in pool],
        "pool_points": {name: float(points[best, j]) for j, (name, _) in enumerate(pool)},
        "best_params": params,
    }
    state["history"].append(row)
    _log(run_dir, row)
    bar.scalars(g, best=row["fitness_best"], mean=row["fitness_mean"], sigma=row["sigma"])
    shown = ", ".join(f"{k} {v:+.2f}" for k, v in row["pool_points"].items())
    bar.write(
        f"generation {g}: best {row['fitness_best']:+.3f} (vs {shown}), mean "
        f"{row['fitness_mean']:+.3f}, sigma {row['sigma']:.3f}, {row['seconds']:.0f} s"
    )


def _figures(per_pair: list[float], games: bool = False) -> dict[str, Any]:
    mean, lo, hi = mean_ci(per_pair)
    return {
        "win_share" if games else "points_per_hand": mean,
        "ci95": [lo, hi],
        "pairs": len(per_pair),
    }


def _value(f: dict[str, Any]) -> float:
    return float(f["win_share"] if "win_share" in f else f["points_per_hand"])


def _shown(f: dict[str, Any]) -> str:
    if "win_share" in f:
        return f"{100 * f['win_share']:.1f}% [{100 * f['ci95'][0]:.1f}, {100 * f['ci95'][1]:.1f}]"
    return f"{f['points_per_hand']:+.3f} [{f['ci95'][0]:+.3f}, {f['ci95'][1]:+.3f}]"


def _judges(args: Args, state: dict[str, Any]) -> list[tuple[str, Opponent]]:
    """Whom the final candidates and the report play: L2 and L1 (points), or the pool's
    fixed opponents (games)."""
    if args.fitness == "games":
        return [(name, _opponent(spec)) for name, spec in _fixed(args, state).items()]
    return [("L2", HeuristicParams()), ("L1", "simple")]


def _choose(args: Args, state: dict[str, Any], runner: Runner, bar: Progress) -> dict[str, Any]:
    """The tuned set: the best, by the mean of its figures against the judges (points vs L2
    and vs L1, or games vs the pool's fixed opponents) on fresh deals of the selection
    seed, of the distribution's mean and the bests of ``select_candidates`` generations
    spread evenly over the run, the latest included (a noisy search can drift away from
    its best region late)."""
    es = state["es"]
    key = _choice_key(args, state)
    named = [("mean", decode(es.result.xfavorite))]
    if args.start != "L2":  # the set it set out from competes on the same deals
        named.append(("start", HeuristicParams(**state["start"])))
    bests = state["bests"]
    k = min(args.select_candidates, len(bests))
    picks = sorted({round((len(bests) - 1) * (1 - i / max(1, k - 1))) for i in range(k)})
    named += [
        (f"best{bests[i]['generation']}", HeuristicParams(**bests[i]["params"])) for i in picks
    ]
    if not args.select_pairs or len(named) == 1:
        name, params = named[0]
        return {"key": key, "name": name, "params": params, "tried": []}
    judges = _judges(args, state)
    matches = [(p, o) for _, p in named for _, o in judges]
    bar.write(f"choosing among {len(named)} candidates on {args.select_pairs} pairs each ...")
    per_pair = runner.play(matches, args.seed, SELECT_OFFSET, args.select_pairs)
    games = args.fitness == "games"
    tried = []
    for i, (name, _) in enumerate(named):
        row: dict[str, Any] = {"name": name}
        for j, (who, _) in enumerate(judges):
            row[f"vs_{who}"] = _figures(per_pair[len(judges) * i + j], games)
        row["score"] = float(np.mean([_value(row[f"vs_{w}"]) for w, _ in judges]))
        tried.append(row)
        shown = ", ".join(f"vs {w} {_shown(row[f'vs_{w}'])}" for w, _ in judges)
        bar.write(f"  {name}: {shown} (selection seed {args.seed})")
    pick = max(range(len(named)), key=lambda i: tried[i]["score"])
    return {
        "key": key,
        "name": named[pick][0],
        "params": named[pick][1],
        "tried": tried,
    }


def _choice_key(args: Args, state: dict[str, Any]) -> list[Any]:
    return [state["generation"], args.select_candidates, args.select_pairs]


def _report_key(args: Args, state: dict[str, Any]) -> list[Any]:
    return [state["generation"], state["choice"]["name"], args.report_seed, args.report_pairs]


def _report(args: Args, state: dict[str, Any], runner: Runner, bar: Progress) -> dict[str, Any]:
    if args.report_seed == args.seed:
        raise ValueError(f"report_seed must differ from the selection seed {args.seed}")
    params = state["choice"]["params"]
    judges = _judges(args, state)
    names = " and ".join(f"vs {w}" for w, _ in judges)
    bar.write(f"report: {args.report_pairs} pairs {names} on seed {args.report_seed} ...")
    per_pair = runner.play([(params, o) for _, o in judges], args.report_seed, 0, args.report_pairs)
    out: dict[str, Any] = {"key": _report_key(args, state), "seed": args.report_seed}
    for (who, _), pp in zip(judges, per_pair, strict=True):
        f = out[f"vs_{who}"] = _figures(pp, args.fitness == "games")
        bar.write(f"  tuned vs {who}: {_shown(f)} over {f['pairs']} pairs")
    return out


def _write_outputs(args: Args, state: dict[str, Any], run_dir: Path) -> None:
    choice = state["choice"]
    tuning = {
        "commands": state.get("commands", []),
        "generations": state["generation"],
        "evaluations": state["evaluations"],
        "popsize": state["es"].popsize,
        "dimension": state["dimension"],
        "pairs_per_opponent": args.pairs,
        "pool": f"{' and '.join(pool_opponents(args))}, and the bests of the last "
        f"{args.pool_bests} generations",
        "start": args.start,
        "start_tuning": state.get("start_tuning"),
        "wall_s": round(state["wall_s"], 1),
        "selection_seed": args.seed,
        "chosen": choice["name"],
        "tried": choice["tried"],
        # The search's course, so that the card can be written from the shipped set alone.
        "search": [{k: r[k] for k in SEARCH_COLUMNS} for r in state["history"]],
    }
    report = {k: v for k, v in state.get("report", {}).items() if k != "key"}
    data = param_set(choice["params"], TABLES[args.table], args.table, tuning=tuning)
    data["figures"] = report
    seeds = [args.seed, args.report_seed]
    write_json(run_dir / "params.json", data, seeds)
    write_json(run_dir / "report.json", report, seeds)


# ==========================================================================================
# The shipped sets and their card
# ==========================================================================================
def _fmt(f: dict[str, Any]) -> str:
    if "win_share" in f:
        lo, hi = f["ci95"]
        share = f"{100 * f['win_share']:.1f}% of games [{100 * lo:.1f}, {100 * hi:.1f}]"
        return f"{share} ({f['pairs']:,} pairs)"
    return (
        f"{f['points_per_hand']:+.2f} [{f['ci95'][0]:+.2f}, {f['ci95'][1]:+.2f}] "
        f"({f['pairs']:,} pairs)"
    )


def _signed(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


def write_card(sources: Sequence[str | Path], out_dir: str | Path = SET_DIR) -> Path:
    """Copy each source's set to ``<out_dir>/tuned-<table>.json`` and write the model card
    ``<out_dir>/tuned.md`` from them. A source is a run folder (its ``params.json`` and
    ``generations.jsonl``) or a parameter set's ``.json`` (a shipped set: the search's
    course is the one it keeps). The hand-written sections after the tables' stay."""
    out = Path(out_dir)
    sets, curves = [], []
    for src in map(Path, sources):
        data = json.loads((src if src.is_file() else src / "params.json").read_text())
        target = out / f"tuned-{data['table']}.json"
        if not (src.is_file() and src.resolve() == target.resolve()):
            target.write_text(json.dumps(data, indent=1) + "\n")
        sets.append(data)
        log = src / "generations.jsonl"
        if log.exists():
            rows = read_jsonl(log)
        else:
            rows = data["tuning"].get("search", [])
        curves.append(rows)
    defaults = dataclasses.asdict(HeuristicParams())
    lines = [
        "# tuned (L3): L2 with parameters tuned by CMA-ES, one set per table",
        "",
        '`agents.make("tuned")`, or `agents.seat("tuned", env.config)` to take the',
        "set tuned for the table's rules (another table is refused unless `any_table=True`).",
        "Trained by `training/tune.py` (`gin-rummy train --algo tune`): CMA-ES (`cma`) over",
        "`HeuristicParams`' ranges in `training.tune.BOUNDS`; fitness the points per hand on",
        "common duplicate deals against a pool of L2, L1 (unless left out) and the latest",
        "generation bests (or, with `--fitness games`, the share of mirrored games to the",
        "table's target won against a pool of other styles);",
        "the set chosen on the selection seed, the figures played on another seed.",
        "",
    ]
    for data, rows in zip(sets, curves, strict=True):
        t, fig = data["tuning"], data.get("figures", {})
        lines += [
            f"## table `{data['table']}`",
            "",
            f"- rules: `{json.dumps(data['rules'])}`",
            *(f"- command: `{c}`" for c in t["commands"]),
            f"- generations {t['generations']}, evaluations {t['evaluations']} (popsize "
            f"{t['popsize']}, {t['dimension']} parameters, {t['pairs_per_opponent']} pairs per "
            f"pool opponent), wall time {t['wall_s'] / 60:.1f} min on 2 shared cores",
            f"- chosen: `{t['chosen']}` on selection seed {t['selection_seed']}",
        ]
        if t.get("table_note"):  # a set whose table was renamed after its run
            lines.append(f"- table: {t['table_note']}")
        before = t.get("start_tuning")
        while before:  # a search that started from an earlier shipped set
            other = f" for the `{before['table']}` table" if before.get("table") else ""
            lines += [
                f"- started from the set an earlier search found{other}: "
                f"{before.get('generations')} generations, {before.get('evaluations')} "
                f"evaluations, {before.get('wall_s', 0) / 60:.1f} min",
                *(f"  - its command: `{c}`" for c in before.get("commands", [])),
            ]
            before = before.get("start_tuning")
        if fig and "points_per_hand" in fig.get("vs_L2", {}) and "vs_L1" in fig:
            l2, l1 = fig["vs_L2"], fig["vs_L1"]
            met_l2 = l2["points_per_hand"] >= 1.0 and l2["ci95"][0] > 0
            lines += [
                f"- **vs L2: {_fmt(l2)}**, seed {fig['seed']} (target >= +1.0 with the CI "
                f"above zero: {'met' if met_l2 else 'not met'})",
                f"- **vs L1: {_fmt(l1)}**, seed {fig['seed']} (target >= +4.0: "
                f"{'met' if l1['points_per_hand'] >= 4.0 else 'not met'})",
            ]
        elif fig:  # a fitness in games: every judge's figure
            lines += [
                f"- **{k.replace('_', ' ')}: {_fmt(v)}**, seed {fig['seed']}"
                for k, v in fig.items()
                if k.startswith("vs_")
            ]
        lines += ["", "| parameter | tuned | L2 default |", "|---|---|---|"]
        lines += [f"| {k} | {v} | {defaults.get(k)} |" for k, v in data["params"].items()]
        if t["tried"]:
            judges = [k for k in t["tried"][0] if k.startswith("vs_")]
            unit = "games won" if "win_share" in t["tried"][0][judges[0]] else "points per hand"
            lines += ["", f"Final candidates (selection seed, {unit}):", ""]
            lines += ["| candidate | " + " | ".join(j.replace("_", " ") for j in judges) + " |"]
            lines += ["|---|" + "---|" * len(judges)]
            lines += [
                f"| {c['name']} | " + " | ".join(_fmt(c[j]) for j in judges) + " |"
                for c in t["tried"]
            ]
        if rows:
            step = max(1, len(rows) // 10)
            shown = rows[::step] + ([rows[-1]] if (len(rows) - 1) % step else [])
            lines += [
                "",
                "The search (fitness: points per hand against the generation's pool):",
                "",
            ]
            lines += [
                "| generation | evaluations | best | mean | sigma | best vs L2 | best vs L1 |",
                "|---|---|---|---|---|---|---|",
            ]
            lines += [
                f"| {r['generation']} | {r['evaluations']} | {r['fitness_best']:+.2f} | "
                f"{r['fitness_mean']:+.2f} | {r['sigma']:.3f} | "
                f"{_signed(r['pool_points'].get('L2'))} | {_signed(r['pool_points'].get('L1'))} |"
                for r in shown
            ]
        lines.append("")
    path = out / "tuned.md"
    kept = _hand_written(path.read_text()) if path.exists() else ""
    path.write_text("\n".join(lines) + ("\n" + kept if kept else ""))
    return path


def _hand_written(card: str) -> str:
    """The sections of a card that its writer did not make (any ``## `` heading but the
    tables' own ``## table `...```), to keep when the card is written again."""
    found = re.search(r"^## (?!table `)", card, re.MULTILINE)
    return card[found.start() :] if found else ""


# ==========================================================================================
# Command line
# ==========================================================================================
DESCRIPTION = __doc__.split("\n\n")[0] if __doc__ else ""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["card"]:
        parser = argparse.ArgumentParser(prog=f"python -m {MODULE} card")
        parser.add_argument("run_dirs", nargs="+")
        parser.add_argument("--out", default=str(SET_DIR))
        ns = parser.parse_args(argv[1:])
        print(write_card(ns.run_dirs, ns.out))
        return 0
    args, explicit, parser = flags.parse(Args, argv, f"python -m {MODULE}", DESCRIPTION)
    try:
        check_args(args)
    except ValueError as err:
        parser.error(str(err))
    try:
        state = tune(args, command=flags.command_line(args, MODULE), explicit=explicit)
    except (ValueError, FileNotFoundError) as err:  # a refused folder or checkpoint: one line
        parser.error(str(err))
    run_dir = Path(args.run_dir or f"runs/tune/{args.table}")
    for key, figures in state.get("report", {}).items():
        if key.startswith("vs_") and isinstance(figures, dict):
            print(f"tuned {key.replace('_', ' ')}: {_shown(figures)} over {figures['pairs']:,} "
                  f"pairs (95% CI, report seed {args.report_seed})")  # fmt: skip
    print(f"the tuned parameter set: {run_dir / 'params.json'} (play it with --agents {run_dir}); "
          f"figures in {run_dir / 'report.json'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
