"""Three-handed play for evaluation: whole matches of a deal sequence with the agents in a
given seating, single hands with the agents in given roles, and single hands of a captain,
an adviser and a box (the value of advice; trainers of the captain's team use it too).

Every function seeds the env from ``(seed, index)`` alone (:func:`env_seed`), so the decks
and the role draw are the same whoever sits where: the duplicate designs replay the same
deals in every seating, and cells of a study are paired by deal.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from agents.ablations import make_adviser
from agents.llm import decision_context
from gin_env import actions as A
from gin_env import games
from gin_env.config import ThreeHandedConfig, table_changes
from gin_env.encoding import OBS_SLICES
from gin_env.match import ADVISER, BOX, CAPTAIN, ROLE_NAMES, side_points
from gin_env.record import match_record
from gin_eval.checks import AgentSpec, agent_of, label_of
from gin_eval.outcomes import hand_outcome
from gin_eval.rollout import play

__all__ = [
    "PERMUTATIONS",
    "adviser_mode",
    "box_side",
    "env_seed",
    "hand_actions",
    "seat_specs",
    "play_seated_match",
    "play_role_hand",
    "role_hand_job",
    "play_advice_hands",
]

#: The game every function here plays.
THREE = games.get("three_handed_gin_v0")
#: The design a player in words writes in its transcript for the games played here.
DESIGN = "three-duplicate"
#: The six orders of three agents over the player seats: ``perm[seat]`` is the agent index.
PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(3)))


def adviser_mode(table: ThreeHandedConfig) -> str:
    """The name of the table's adviser mode in results, transcripts and replay folders:
    ``adviser_on`` (the adviser suggests) or ``adviser_off``."""
    return "adviser_off" if table.adviser == "none" else "adviser_on"


def env_seed(seed: int, index: int, salt: int) -> int:
    """The env seed of deal (sequence) ``index`` of ``seed``: a function of the two alone
    (``salt`` tells the kinds of game apart), so whoever plays sees the same cards."""
    return int(np.random.default_rng([seed, index, salt]).integers(2**31))


def hand_actions(rec: Any) -> tuple[tuple[int, int], ...]:
    """The record's actions as its ``GinHand`` took them: ``(seat, action)``, advice left out."""
    seat = {p: s for s, p in enumerate(rec.players)}
    return tuple((seat[p], a) for p, a in rec.actions if p in seat)


def box_side(rec: Any) -> dict[str, Any]:
    """A finished hand record from the box's side: each player's role, the box's points (+
    when the box scored), whether the box or the team won."""
    res = rec.result
    scorer = None if res.winner is None else rec.players[res.winner]
    box = rec.roles.index(BOX)
    return {
        "roles": list(rec.roles),
        "box_points": side_points(rec.roles, scorer, res.points)[box],
        "box_won": scorer == box,
        "team_won": scorer is not None and scorer != box,
    }


def play_seated_match(
    seat_specs: Sequence[AgentSpec],
    seed: int,
    index: int,
    table: ThreeHandedConfig | None = None,
    replays: bool = False,
    replay: str | None = None,
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One match of deal sequence ``index`` at ``table`` (default: the standard rules, the
    adviser suggesting); ``seat_specs[k]`` plays ``player_k``, named ``labels[k]``
    (default: :func:`~gin_eval.checks.label_of`); ``replay``: the name of its replay, for
    the transcripts of players in words.

    The env seed depends on ``(seed, index)`` alone, so the decks and the initial role draw
    are the same whoever sits where. Per hand: the deck (as a tuple), each player's role,
    the box's points (+ when the box scores), who won. Also the match winner's seat and the
    role the winner held in the last hand; with ``replays``, the match's replay record
    (``"replays"``, :mod:`gin_env.record`).
    """
    table = table or ThreeHandedConfig()
    options = {**table_changes(table), "episode": "match", "max_hands": 2000}
    env = THREE.make_env(**options)
    seed_of_env = env_seed(seed, index, 3)
    env.reset(seed=seed_of_env)
    players = {f"player_{k}": agent_of(s, table) for k, s in enumerate(seat_specs)}
    # Players in words write which game (its replay and seed) and seats each decision
    # belongs to.
    names = list(labels) if labels is not None else [label_of(s) for s in seat_specs]
    where = {f"player_{k}": names[k] for k in range(len(seat_specs))}
    game = {"design": DESIGN, "mode": adviser_mode(table), "game_index": index,
            "replay": replay, "seed": seed_of_env, "eval_seed": seed}  # fmt: skip
    with decision_context(**game, seats=where):
        play(env, players, np.random.default_rng([seed, index, 11]))
    state = env.table_state
    assert state is not None  # reset above
    hands = []
    for rec in state.history:
        if rec.result is None:
            continue
        hands.append({"deck": tuple(rec.deck), **box_side(rec), "actions": hand_actions(rec),
                      "outcome": hand_outcome(rec, 3)})  # fmt: skip
    last = state.history[-1]
    winner = state.winner
    winner_role = None if winner is None else ROLE_NAMES[last.roles[winner]]
    out = {
        "index": index,
        "winner": winner,
        "winner_role": winner_role,
        "first_roles": list(state.history[0].roles),
        "hands": hands,
    }
    if replays:
        out["replays"] = [match_record(seed_of_env, options, env, where)]
    return out


def play_role_hand(
    role_specs: Sequence[AgentSpec],
    seed: int,
    index: int,
    table: ThreeHandedConfig | None = None,
    replays: bool = False,
    replay: str | None = None,
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Deal ``index`` as a single hand at ``table``, ``role_specs[r]`` playing role ``r``
    (named ``labels[r]``; ``replay``: the name of its replay, for transcripts)
    (box, captain, adviser). The env seed depends on ``(seed, index)`` alone: the same cards whoever
    plays which role. Returns the hand as :func:`play_seated_match` lists it, with player
    ``r`` in role ``r`` (with ``replays``, also the hand's replay record, its players as
    the env seated them)."""
    table = table or ThreeHandedConfig()
    options = {**table_changes(table), "episode": "hand"}
    env = THREE.make_env(**options)
    seed_of_env = env_seed(seed, index, 31)
    env.reset(seed=seed_of_env)
    state = env.table_state
    assert state is not None  # reset above
    # One hand: each player keeps the role it was dealt.
    roles = state.roles
    players = {a: agent_of(role_specs[roles[k]], table) for k, a in enumerate(env.possible_agents)}
    names = list(labels) if labels is not None else [label_of(s) for s in role_specs]
    where = {a: names[roles[k]] for k, a in enumerate(env.possible_agents)}
    game = {"design": DESIGN, "mode": adviser_mode(table), "game_index": index,
            "replay": replay, "seed": seed_of_env, "eval_seed": seed}  # fmt: skip
    with decision_context(**game, seats=where):
        play(env, players, np.random.default_rng([seed, index, 13]))
    rec = state.history[0]
    res = rec.result
    assert res is not None
    scorer = None if res.winner is None else rec.roles[rec.players[res.winner]]
    if replays:
        record = match_record(seed_of_env, options, env, where)
    return {
        **({"replays": [record]} if replays else {}),
        "deck": tuple(rec.deck),
        "roles": [BOX, CAPTAIN, ADVISER],
        "box_points": side_points((BOX, CAPTAIN, ADVISER), scorer, res.points)[BOX],
        "box_won": scorer == BOX,
        "team_won": scorer is not None and scorer != BOX,
        "actions": hand_actions(rec),
        "outcome": _by_role(hand_outcome(rec, 3), rec.roles),
    }


def _by_role(outcome: dict[str, Any], roles: Sequence[int]) -> dict[str, Any]:
    """A :func:`hand_outcome` with players renumbered by role (player ``r`` plays role
    ``r``, as :func:`play_role_hand` lists its hands)."""
    deadwood: list[int | None] = [None] * len(roles)
    for p, dw in enumerate(outcome["deadwood"]):
        deadwood[roles[p]] = dw
    winner = outcome["winner"]
    return {**outcome, "winner": None if winner is None else roles[winner], "deadwood": deadwood}


def role_hand_job(
    role_specs: Sequence[AgentSpec],
    seed: int,
    index: int,
    table: ThreeHandedConfig,
    replays: bool = False,
    replay: str | None = None,
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """:func:`play_role_hand` as a one-hand match (no winner), for the pool (its replay,
    with ``replays``, in the match's ``"replays"``)."""
    hand = play_role_hand(role_specs, seed, index, table, replays, replay, labels)
    kept = {"replays": hand.pop("replays")} if replays else {}
    return {"winner": None, "hands": [hand], **kept}


def seat_specs(specs: Sequence[AgentSpec], perm: Sequence[int]) -> list[AgentSpec]:
    """The three specs by seat (or by role) for the order ``perm``: ``specs[perm[k]]``."""
    return [specs[perm[seat]] for seat in range(3)]


def play_advice_hands(
    captain_spec: AgentSpec,
    adviser_spec: AgentSpec,
    box_spec: AgentSpec,
    seed: int,
    start: int,
    stop: int,
    sees_hand: bool = True,
    table: ThreeHandedConfig | None = None,
    trace: bool = False,
) -> dict[str, Any]:
    """Deals ``start..stop-1`` as single hands, the roles played by the three policies, at
    ``table`` (default: the standard rules) with the adviser's options set here: advice on
    unless ``adviser_spec`` is ``"none"``, the adviser seeing the hand when ``sees_hand``.

    Deal ``i`` resets the env with a seed of ``(seed, i)`` only, so every captain/adviser
    pair plays the same decks and role draws. Returns per deal: the team's points (+ when
    the captain scores), whether the team / the box won, the captain's decisions that had a
    suggestion and how many of them played it. With ``trace``, also every captain decision
    as ``(suggestion or None, the suggestion part of the captain's observation as action
    ids, the captain's legal ids, the action)``.
    """
    table = replace(
        table or ThreeHandedConfig(),
        adviser="none" if adviser_spec == "none" else "suggest",
        adviser_sees_hand=sees_hand,
    )
    captain = agent_of(captain_spec, table)
    adviser = make_adviser(adviser_spec, captain, lambda spec: agent_of(spec, table))
    box = agent_of(box_spec, table)
    env = THREE.make_env(table, episode="hand")
    by_role = {BOX: box, CAPTAIN: captain, ADVISER: adviser}
    team, team_won, box_won, advised, followed = [], [], [], [], []
    traces: list[list[tuple[Any, ...]]] = []
    sugg_slice = OBS_SLICES["suggestion"]
    for i in range(start, stop):
        env.reset(seed=env_seed(seed, i, 21))
        rng = np.random.default_rng([seed, i, 11])
        state = env.table_state
        assert state is not None  # reset above
        n_adv = n_fol = 0
        hand_trace: list[tuple[Any, ...]] = []
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            player = env.possible_agents.index(agent)
            role = state.roles[player]
            obs = env.observe(agent)
            action = int(by_role[role].act(obs, rng))
            if role == CAPTAIN:
                s = state.suggestion
                if s is not None and s != A.NO_ADVICE:
                    n_adv += 1
                    n_fol += action == s
                if trace:
                    hand_trace.append((
                        s,
                        np.flatnonzero(obs["observation"][sugg_slice]).tolist(),
                        np.flatnonzero(obs["action_mask"]).tolist(),
                        action,
                    ))  # fmt: skip
            env.step(action)
        rec = state.history[0]
        res = rec.result
        assert res is not None
        scorer = None if res.winner is None else rec.players[res.winner]
        box_player = rec.roles.index(BOX)
        captain = rec.roles.index(CAPTAIN)
        pts = side_points(rec.roles, scorer, res.points)[captain]  # the team's side
        team.append(pts)
        team_won.append(scorer is not None and scorer != box_player)
        box_won.append(scorer == box_player)
        advised.append(n_adv)
        followed.append(n_fol)
        traces.append(hand_trace)
    out: dict[str, Any] = {
        "start": start,
        "team_points": team,
        "team_won": team_won,
        "box_won": box_won,
        "advised": advised,
        "followed": followed,
    }
    if trace:
        out["trace"] = traces
    return out
