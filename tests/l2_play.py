"""Play for the L2 tests: games on the batched engine where seat 0 is an L2 under test and
the other seats are random, L1 or L2 players, over every rule option set and both games.

:func:`play` hands each batch of the L2 seat's rows to a callback (which may compare two
implementations) and records the moves played there, in order: two runs with the same
arguments and the same moves give the same record, and the first differing move makes the
games diverge from there on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.batched import BatchedRandom, BatchedSimple, PerRow
from agents.heuristic import HeuristicAgent, HeuristicParams
from gin_env.vector import VectorGinEnv

#: Rule option sets of the hand (both games): the defaults, the OpenSpiel table (named eaai
#: here, as the recorded moves are),
#: Oklahoma, a low knock limit with big gin, gin only with a turn cap, the taken card free.
RULE_SETS: dict[str, dict[str, Any]] = {
    "default": {},
    "eaai": {"gin_bonus": 25, "undercut_bonus": 25, "allow_discard_of_taken_card": True},
    "oklahoma": {"oklahoma": True},
    "knock5_big_gin": {"knock_limit": 5, "big_gin_bonus": 31},
    "gin_only": {"knock_limit": 0, "max_turns_per_hand": 40},
    "taken_free": {"allow_discard_of_taken_card": True, "undercut_bonus": 0, "gin_bonus": 20},
}
#: The three-handed table's adviser options.
ADVISER_SETS: dict[str, dict[str, Any]] = {
    "suggest": {},
    "blind": {"adviser_sees_hand": False},
    "none": {"adviser": "none"},
}
OPPONENTS = ("random", "simple", "heuristic", "self")

#: Parameter sets in use before the family was widened (defaults and two others).
OLD_PARAMS: dict[str, HeuristicParams] = {
    "defaults": HeuristicParams(),
    "knocks": HeuristicParams(
        knock_early=8,
        knock_late=3,
        knock_shown_meld=1,
        take_margin=1.5,
        danger_weight=3.0,
        gin_outs=2,
        gin_stock=8,
    ),
    "lookahead": HeuristicParams(
        lookahead=True, exact_draw=True, knock_weight=2.0, potential_weight=0.7, took_hazard=0.2
    ),
}

Hook = Callable[[np.ndarray, np.ndarray, dict[str, np.ndarray]], np.ndarray]


def opponent(name: str, l2: Any, seed: int) -> Any:
    if name == "random":
        return BatchedRandom(seed)
    if name == "simple":
        return BatchedSimple()
    if name == "heuristic":
        return PerRow(HeuristicAgent())
    return l2


def play(
    game: str,
    options: dict[str, Any],
    seed: int,
    num_envs: int,
    steps: int,
    l2: Any,
    opp: str,
    hook: Hook | None = None,
) -> np.ndarray:
    """``steps`` steps of ``num_envs`` games; seat 0 plays ``l2`` (a batched policy), the
    others ``opp``. ``hook(obs, mask, out)`` (the L2 rows' observations and masks, the
    engine's outputs) returns the L2 moves in place of ``l2.act``. The L2 moves, in
    order (uint8)."""
    env = VectorGinEnv(num_envs, game, seed=seed, backend="auto", **options)
    other = opponent(opp, l2, seed)
    out = env.reset()
    moves = []
    for _ in range(steps):
        mine = out["seat"] == 0
        if opp == "self":
            mine[:] = True
        acts = np.zeros(num_envs, np.int64)
        rows = np.flatnonzero(mine)
        if len(rows):
            obs, mask = out["observation"][rows], out["action_mask"][rows]
            acts[rows] = hook(obs, mask, out) if hook is not None else l2.act(obs, mask)
            moves.append(acts[rows])
        rest = np.flatnonzero(~mine)
        if len(rest):
            acts[rest] = other.act(out["observation"][rest], out["action_mask"][rest])
        out = env.step(acts)
    return np.concatenate(moves).astype(np.uint8)


def cases(
    games: tuple[str, ...] = ("gin", "three_handed"),
) -> list[tuple[str, str, dict[str, Any]]]:
    """``(game, label, options)`` over every rule set (and, three-handed, adviser set)."""
    out = []
    for game in games:
        for rname, rules in RULE_SETS.items():
            if game == "gin":
                out.append((game, rname, dict(rules)))
            else:
                for aname, adv in ADVISER_SETS.items():
                    out.append((game, f"{rname}/{aname}", {**rules, **adv}))
    return out
