"""Matches played at random from a given deck and recorded, for the replay tests: the deck
given at reset (``first_deck``) is what the seed alone does not fix, as in duplicate
evaluation."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import numpy as np

from agents.single_agent import RandomPolicy
from gin_env import record, rummy_v0
from gin_eval.rollout import play


def _played_from_deck(env: Any, seed: int, deck: list[int]) -> list[tuple[int, int]]:
    """Deal ``deck`` first and play ``env`` to its end at random (seeded by ``seed``), through
    the one rollout loop; the moves as ``(seat, action)``."""
    env.reset(seed=seed, options={"deck": deck})
    names = list(env.possible_agents)
    moves: list[tuple[int, int]] = []
    play(env, {a: RandomPolicy() for a in names}, np.random.default_rng(seed),
         after=lambda _env, agent, action: moves.append((names.index(agent), action)))  # fmt: skip
    return moves


def gin_match_from_deck(
    module: ModuleType, options: dict[str, Any], seed: int, deck: list[int]
) -> tuple[Any, dict[str, Any]]:
    """A gin match (``module``: ``gin_v0``, ``three_handed_gin_v0``) dealt ``deck`` first,
    played to its end at random; the env and its match record."""
    env = module.raw_env(**options)
    _played_from_deck(env, seed, deck)
    assert env.match.is_over
    return env, record.match_record(seed, options, env, first_deck=deck)


def rummy_match_from_deck(
    options: dict[str, Any], seed: int, deck: list[int]
) -> tuple[Any, dict[str, Any]]:
    """A basic rummy match dealt ``deck`` first, played to its end at random; the env and its
    record as a file holds it (through JSON)."""
    env = rummy_v0.raw_env(**options)
    moves = _played_from_deck(env, seed, deck)
    data = record.table_record(seed, options, env, None, moves, deck)
    return env, json.loads(json.dumps(data))
