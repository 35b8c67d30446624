"""Speed of the game in words: rendering a seat's view and parsing a reply, per decision.

Run ``python benchmarks/bench_text.py [--seconds S] [--decisions N]``. Decisions are
recorded first from seeded games (L2 in the gin games, the simple player in rummy); each
timed decision then renders the deciding seat's text from its observation dict
(``gin_env.text.seat_text``) and parses a reply back to the action id, in two forms: the
move's strict words and a sentence (``I'll discard the seven of hearts.``). The peer in
the same run is the engine itself: one ``step`` of the numeric env per decision (measured
on the same games), so the ratio says how the words compare with the game they describe.
A third form is a reasoning model's reply: a ``<think>`` block that names other moves, then
``Final answer: <move>`` (the reasoning set aside, the last answer marker read).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import agents  # noqa: E402
from gin_env import actions as A  # noqa: E402
from gin_env import (
    games,  # noqa: E402
    text,  # noqa: E402
)
from gin_env.text.words import card_name  # noqa: E402

GAMES = ("three_handed", "gin", "rummy")


def sentence(action: int, game: str) -> str:
    words = text.move_words(action, game)
    if game != "rummy":
        kind, card = A.decode(action)
        if kind == "discard" and card is not None:
            return f"I'll discard the {card_name(card)}."
    return f"I think the best is: {words}."


def reasoned(action: int, game: str) -> str:
    words = text.move_words(action, game)
    return (
        "<think>\nLet me weigh the options: drawing keeps my melds, and the discard that "
        "leaves the least deadwood is usually best, but I should not break a run.\n</think>\n"
        f"I will play it safe. Final answer: {words}"
    )


def record(game: str, decisions: int, seed: int) -> tuple[list[tuple[Any, int]], float]:
    """``decisions`` (observation dict, chosen id) pairs and the engine's steps a second."""
    spec = games.get(game)
    player = agents.make("rummy-simple" if game == "rummy" else "heuristic")
    out: list[tuple[Any, int]] = []
    steps, step_seconds = 0, 0.0
    rng = np.random.default_rng(seed)
    while len(out) < decisions:
        env = spec.make_env() if game == "rummy" else spec.make_env(episode="hand")
        env.reset(seed=seed + len(out))
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = int(player.act(obs, rng))
            out.append(({k: np.array(v) for k, v in obs.items()}, a))
            t = time.perf_counter()
            env.step(a)
            step_seconds += time.perf_counter() - t
            steps += 1
    return out[:decisions], steps / step_seconds


def rate(game: str, samples: list[tuple[Any, int]], seconds: float, form: str) -> float:
    table = text.table_of(game)
    say = {"strict": text.move_words, "sentence": sentence, "reasoning": reasoned}[form]
    replies = [say(a, game) for _, a in samples]
    done = 0
    start = time.perf_counter()
    deadline = start + seconds
    n = len(samples)
    while time.perf_counter() < deadline:
        for i in range(min(n, 200)):
            obs, a = samples[(done + i) % n]
            text.seat_text(obs, table)
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            if text.parse_reply(replies[(done + i) % n], legal, game) != a:
                raise AssertionError(f"{game}: {replies[(done + i) % n]!r} did not parse back")
        done += min(n, 200)
    return done / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=2.0, help="timing per figure")
    p.add_argument("--decisions", type=int, default=2000, help="recorded decisions per game")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    print(f"{'game':14} {'render+parse strict/s':>22} {'sentence/s':>11} {'reasoning/s':>12} "
          f"{'engine steps/s':>15} {'ratio (strict)':>15}")  # fmt: skip
    for game in GAMES:
        samples, steps = record(game, args.decisions, args.seed)
        strict = rate(game, samples, args.seconds, "strict")
        loose = rate(game, samples, args.seconds, "sentence")
        thought = rate(game, samples, args.seconds, "reasoning")
        print(f"{game:14} {strict:22,.0f} {loose:11,.0f} {thought:12,.0f} {steps:15,.0f} "
              f"{strict / steps:15.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
