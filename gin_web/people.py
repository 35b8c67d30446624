"""People against agents: each agent's results at the app's tables where people played,
from the finished matches the store keeps.

For every agent (by the name it was seated with) and game: the matches it played with a
person at the table (a match counts once, however many of its seats the agent held: two L2
seats at one three-handed table are one match) and the share it won (one of its seats won
the match; Wilson 95% interval); for every role it held in
a hand (gin: dealer or non-dealer; three-handed: box, captain or adviser), the hands and
the points a hand to its side (``reward="team"``: the adviser scores with his captain;
normal-approximation 95% interval). Basic rummy's record keeps no hand results, so its rows
have matches and wins only. The figures are those of :mod:`gin_eval.stats`; the JSON
written carries :func:`gin_eval.writer.provenance`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gin_env import games
from gin_eval.stats import mean_ci, wilson_ci
from gin_eval.writer import provenance, write_json
from gin_web.store import hand_returns
from gin_web.tables import HUMAN

__all__ = ["results", "with_provenance", "write"]


def results(records: Iterable[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    """``records``: ``(match id, game, record)`` of finished matches. Only matches with a
    person at the table count; the agents are their opponents (and, three-handed, at
    times their partners: the role says which)."""
    matches: dict[tuple[str, str], dict[str, int]] = {}  # (agent, game) -> match -> won 0/1
    hands: dict[tuple[str, str, str], list[float]] = {}  # (agent, game, role) -> points
    used = 0
    for mid, game, record in records:
        who = record.get("agents") or {}
        if HUMAN not in who.values():
            continue
        used += 1
        spec = games.get(game)
        names = [f"player_{p}" for p in range(len(who))]
        points = hand_returns(record)
        for p, seat in enumerate(names):
            agent = who.get(seat)
            if agent is None or agent == HUMAN:
                continue
            by_match = matches.setdefault((agent, spec.name), {})
            by_match[mid] = max(by_match.get(mid, 0), int(record.get("winner") == p))
            for h, hand in enumerate(record.get("hands", [])):
                if hand.get("result") is None:
                    continue
                role = spec.roles[hand["roles"][p]] if spec.roles else "player"
                value = points.get((h, p))
                if value is not None:
                    hands.setdefault((agent, spec.name, role), []).append(value)
    rows = []
    for (agent, game), match_won in sorted(matches.items()):
        won = list(match_won.values())
        low, high = wilson_ci(sum(won), len(won))
        row: dict[str, Any] = {
            "agent": agent,
            "game": game,
            "matches": len(won),
            "matches_won": sum(won),
            "win_rate": sum(won) / len(won),
            "win_rate_ci95": [low, high],
            "roles": [],
        }
        for (a, g, role), values in sorted(hands.items()):
            if (a, g) != (agent, game):
                continue
            mean, lo, hi = mean_ci(values)
            row["roles"].append({"role": role, "hands": len(values), "points_per_hand": mean,
                                 "points_per_hand_ci95": [lo, hi]})  # fmt: skip
        rows.append(row)
    return {
        "what": "each agent's results at tables with a person (gin-rummy serve)",
        "matches_with_people": used,
        "agents": rows,
    }


def with_provenance(result: dict[str, Any]) -> dict[str, Any]:
    """The result as the evaluation's JSON: with its provenance (no seeds: people's deals
    come from the tables' secrets, kept in each match's record)."""
    return {**result, "provenance": provenance(seeds=None)}


def write(path: str | Path, result: dict[str, Any]) -> Path:
    """Write the result with :func:`gin_eval.writer.write_json`."""
    return write_json(path, result, seeds=[])
