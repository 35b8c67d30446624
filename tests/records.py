"""Matches played at random from a given deck and recorded, for the replay tests: the deck
given at reset (``first_deck``) is what the seed alone does not fix, as in duplicate
evaluation."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import numpy as np

from gin_env import record, rummy_v0


def gin_match_from_deck(
    module: ModuleType, options: dict[str, Any], seed: int, deck: list[int]
) -> tuple[Any, dict[str, Any]]:
    """A gin match (``module``: ``gin_v0``, ``three_handed_gin_v0``) dealt ``deck`` first,
    played to its end at random; the env and its match record."""
    env = module.raw_env(**options)
    env.reset(seed=seed, options={"deck": deck})
    rng = np.random.default_rng(seed)
    while not env.match.is_over:
        env.step(int(rng.choice(env.legal_actions())))
    return env, record.match_record(seed, options, env, first_deck=deck)


def rummy_match_from_deck(
    options: dict[str, Any], seed: int, deck: list[int]
) -> tuple[Any, dict[str, Any]]:
    """A basic rummy match dealt ``deck`` first, played to its end at random; the env and its
    record as a file holds it (through JSON)."""
    env = rummy_v0.raw_env(**options)
    env.reset(seed=seed, options={"deck": deck})
    rng = np.random.default_rng(seed)
    moves = []
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
        moves.append((env.possible_agents.index(agent), action))
        env.step(action)
    data = record.table_record(seed, options, env, None, moves, deck)
    return env, json.loads(json.dumps(data))
