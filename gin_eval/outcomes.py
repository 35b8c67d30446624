"""How hands were won, for every agent, and the cost of playing in words.

- :func:`hand_outcome`: a finished gin hand's kind, winning player and each playing
  player's deadwood at the showdown (after lay-offs for the defender);
- :func:`win_kinds`: per agent, the share of its wins by gin, knock, undercut (and big
  gin) and its mean deadwood at showdown, from hands whose players are labelled;
- :func:`text_stats`: per agent that plays through words (:mod:`agents.llm`), its own
  figures, each over its own denominator (unusable replies per reply, transport faults,
  failed requests and timeouts per request, fallback moves per decision, each rate with
  its 95% CI; tokens, seconds and cost per decision and per game), read from the agent
  objects of this process (the designs play here when one is seated:
  :func:`~gin_eval.checks.play_here`), counted from a :func:`text_counts` taken before;
- :func:`leaderboard_markdown`: a ladder's ratings as a Markdown table to paste.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from agents.llm import add_counts, word_figures
from gin_env.config import Table
from gin_eval.checks import AgentSpec, unique_labels, words_players

__all__ = [
    "WIN_KINDS",
    "hand_outcome",
    "win_kinds",
    "text_counts",
    "text_stats",
    "money",
    "leaderboard_markdown",
]

WIN_KINDS = ("gin", "knock", "undercut", "big_gin")


def hand_outcome(rec: Any, num_players: int) -> dict[str, Any]:
    """``{"kind", "winner" (player or None), "deadwood" (by player; None for a player
    with no showdown)}`` of a finished gin :class:`~gin_env.match.HandRecord`."""
    res = rec.result
    deadwood: list[int | None] = [None] * num_players
    show = res.showdown
    if show is not None and res.knocker is not None:
        knocker = rec.players[res.knocker]
        defender = rec.players[1 - res.knocker]
        deadwood[knocker] = int(show.knocker_deadwood)
        deadwood[defender] = int(show.defender_deadwood)
    winner = None if res.winner is None else int(rec.players[res.winner])
    return {"kind": res.kind, "winner": winner, "deadwood": deadwood}


def win_kinds(hands: Iterable[tuple[Sequence[str], Mapping[str, Any]]]) -> dict[str, Any]:
    """Per agent label: ``wins``, the share of them by each of :data:`WIN_KINDS`,
    ``showdowns`` and ``mean_showdown_deadwood``. ``hands`` gives each hand's labels by
    player and its :func:`hand_outcome`."""
    wins: dict[str, dict[str, int]] = {}
    dead: dict[str, list[int]] = {}
    for labels, out in hands:
        for player, label in enumerate(labels):
            wins.setdefault(label, dict.fromkeys(WIN_KINDS, 0))
            dead.setdefault(label, [])
            dw = out["deadwood"][player]
            if dw is not None:
                dead[label].append(dw)
        if out["winner"] is not None and out["kind"] in WIN_KINDS:
            wins[labels[out["winner"]]][out["kind"]] += 1
    table = {}
    for label, counts in wins.items():
        n = sum(counts.values())
        table[label] = {
            "wins": n,
            **{f"{k}_share": (counts[k] / n if n else None) for k in WIN_KINDS},
            "showdowns": len(dead[label]),
            "mean_showdown_deadwood": float(np.mean(dead[label])) if dead[label] else None,
        }
    return table


def _tables(tables: Table | Sequence[Table]) -> list[Table]:
    return list(tables) if isinstance(tables, list | tuple) else [tables]  # type: ignore[list-item]


def text_counts(
    specs: Sequence[AgentSpec], tables: Table | Sequence[Table]
) -> dict[int, dict[int, Any]]:
    """The totals now of every agent in words that ``specs`` seat at ``tables`` (by the
    spec's position, then the agent object's id): :func:`text_stats`' ``since``."""
    out: dict[int, dict[int, Any]] = {}
    for k, players in words_players(specs, _tables(tables)).items():
        out[k] = {}
        for agent in players:
            snap = getattr(agent, "snapshot", None)
            out[k][id(agent)] = snap() if callable(snap) else None
    return out


def text_stats(
    specs: Sequence[AgentSpec],
    tables: Table | Sequence[Table],
    since: Mapping[int, Mapping[int, Any]] | None = None,
    labels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Per agent that plays in words (``stats()``), by its label (``labels``, default
    :func:`~gin_eval.checks.unique_labels`): its figures as this process holds them, over
    its agents seated at ``tables`` (a spec seated at two tables: both added), counting
    only what was played after ``since`` (a :func:`text_counts`)."""
    labels = list(labels) if labels is not None else unique_labels(specs)
    out: dict[str, Any] = {}
    for k, players in words_players(specs, _tables(tables)).items():
        before = (since or {}).get(k, {})
        counts: list[dict[str, Any]] = []
        for agent in players:
            snap = getattr(agent, "snapshot", None)
            if not callable(snap):  # an agent of its own with stats() alone
                counts = []
                out[labels[k]] = agent.stats()
                break
            now, then = snap(), before.get(id(agent))
            if then is not None:
                now = {**{x: now[x] - then.get(x, 0) for x in now if x != "games"},
                       "games": now["games"] - then.get("games", frozenset())}  # fmt: skip
            counts.append(now)
        if counts:
            out[labels[k]] = word_figures(add_counts(*counts))
    return out


def money(x: float | None) -> str:
    """Dollars to four significant digits, never in powers of ten, so that small prices
    show; ``-`` for none.

    >>> money(0.000123449), money(12.5), money(0.0), money(None)
    ('0.0001234', '12.50', '0', '-')
    """
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return f"{x:.{max(0, 3 - math.floor(math.log10(abs(x))))}f}"


def _rate(t: Mapping[str, Any], key: str) -> str:
    low, high = t[f"{key}_ci95"]
    return f"{t[key]:.1%} [{low:.1%}, {high:.1%}]"


def leaderboard_markdown(r: Mapping[str, Any], text: Mapping[str, Any] | None = None) -> str:
    """A ladder's result (:func:`~gin_eval.ladder.ladder`) as a Markdown table:
    rank, agent, OpenSkill mu +/- sigma and ordinal, Elo with its bootstrap 95% interval,
    and for agents that play in words their own figures: unusable replies per reply and
    fallback moves per decision (each with its Wilson 95% interval), timeouts, tokens and
    seconds per decision, dollars per 1,000 decisions and per game (:func:`money`)."""
    text = text or {}
    lines = [
        f"Duplicate gin ladder: {r['pairs']} deal pairs per match-up, seed {r.get('seed', 0)}.",
        "",
        "| rank | agent | OpenSkill mu ± sigma | ordinal | Elo [95% CI] | invalid replies "
        "[95% CI] | fallback moves [95% CI] | timeouts | tokens / decision | s / decision "
        "| $ / 1000 decisions | $ / game |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k, name in enumerate(r["ranking"], 1):
        os_ = r["openskill"][name]
        elo = r["elo"][name]
        t = text.get(name)
        words = (
            f"{_rate(t, 'invalid_rate')} | {_rate(t, 'fallback_rate')} | "
            f"{t['timeouts']:.0f} | {t['tokens_per_decision']:.0f} | "
            f"{t['latency_s_per_decision']:.2f} | {money(t['cost_per_1k_decisions'])} | "
            f"{money(t['cost_per_game'])}"
            if t
            else "- | - | - | - | - | - | -"
        )
        lines.append(
            f"| {k} | `{name}` | {os_['mu']:.2f} ± {os_['sigma']:.2f} | {os_['ordinal']:.2f} "
            f"| {elo['elo']:.0f} [{elo['low']:.0f}, {elo['high']:.0f}] | {words} |"
        )
    return "\n".join(lines) + "\n"
