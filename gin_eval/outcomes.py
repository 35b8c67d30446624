"""How hands were won, for every agent, and the cost of playing in words.

- :func:`hand_outcome`: a finished gin hand's kind, winning player and each playing
  player's deadwood at the showdown (after lay-offs for the defender);
- :func:`win_kinds`: per agent, the share of its wins by gin, knock, undercut (and big
  gin) and its mean deadwood at showdown, from hands whose players are labelled;
- :func:`text_stats`: per agent that plays through words (:mod:`agents.llm`), its own
  figures, each over its own denominator (unusable replies per reply, transport faults
  and timeouts per request, fallback moves per decision, each rate with its 95% CI;
  tokens, seconds and cost per decision and per game), read from the agent objects of
  this process (so only when the games ran here: ``--workers 1`` or ``--concurrency``);
- :func:`leaderboard_markdown`: a ladder's ratings as a Markdown table to paste.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from gin_env.config import Table
from gin_eval.checks import AgentSpec, agent_of, label_of

__all__ = [
    "WIN_KINDS",
    "hand_outcome",
    "win_kinds",
    "text_stats",
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


def text_stats(specs: Sequence[AgentSpec], table: Table) -> dict[str, Any]:
    """Per agent that keeps word-play stats (``stats()``), those stats as this process
    holds them (the agents seated at ``table``, as the games seated them)."""
    out = {}
    for spec in specs:
        agent = agent_of(spec, table)
        stats = getattr(agent, "stats", None)
        if callable(stats):
            out[label_of(spec)] = stats()
    return out


def _rate(t: Mapping[str, Any], key: str) -> str:
    low, high = t[f"{key}_ci95"]
    return f"{t[key]:.1%} [{low:.1%}, {high:.1%}]"


def leaderboard_markdown(r: Mapping[str, Any], text: Mapping[str, Any] | None = None) -> str:
    """A ladder's result (:func:`~gin_eval.ladder.ladder`) as a Markdown table:
    rank, agent, OpenSkill mu +/- sigma and ordinal, Elo with its bootstrap 95% interval,
    and for agents that play in words their own figures: unusable replies per reply and
    fallback moves per decision (each with its Wilson 95% interval), timeouts, tokens,
    seconds and cost per decision."""
    text = text or {}
    lines = [
        f"Duplicate gin ladder: {r['pairs']} deal pairs per match-up, seed {r.get('seed', 0)}.",
        "",
        "| rank | agent | OpenSkill mu ± sigma | ordinal | Elo [95% CI] | invalid replies "
        "[95% CI] | fallback moves [95% CI] | timeouts | tokens / decision | s / decision "
        "| cost / decision |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k, name in enumerate(r["ranking"], 1):
        os_ = r["openskill"][name]
        elo = r["elo"][name]
        t = text.get(name)
        words = (
            f"{_rate(t, 'invalid_rate')} | {_rate(t, 'fallback_rate')} | "
            f"{t['timeouts']:.0f} | {t['tokens_per_decision']:.0f} | "
            f"{t['latency_s_per_decision']:.2f} | {t['cost_per_decision']:.5f}"
            if t
            else "- | - | - | - | - | -"
        )
        lines.append(
            f"| {k} | `{name}` | {os_['mu']:.2f} ± {os_['sigma']:.2f} | {os_['ordinal']:.2f} "
            f"| {elo['elo']:.0f} [{elo['low']:.0f}, {elo['high']:.0f}] | {words} |"
        )
    return "\n".join(lines) + "\n"
