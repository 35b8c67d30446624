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

The column ``text env/s`` is the text env's own path: the same games played again move by
move on fresh envs, each decision timed from the env-built seat view
(:func:`gin_env.seat_view.seat_view`, the table's view with the score sheet and the hand's
moves) through its words (:func:`gin_env.text.words.describe`) to the strict reply parsed
back; the steps between are not timed. Every pass over the recorded decisions starts with
the words' caches empty (a hand's arrangement, its discards' deadwood), so no figure is one
of a cache that a first pass filled. The load average is printed with the figures: the
development machine is shared.
"""

from __future__ import annotations

import argparse
import os
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
from gin_env import seat_view as sv  # noqa: E402
from gin_env.text import views  # noqa: E402
from gin_env.text.words import card_name, describe  # noqa: E402

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


Game = tuple[int, list[int]]  # a recorded game: its seed and every action id in order


def make_env(game: str) -> Any:
    spec = games.get(game)
    return spec.make_env() if game == "rummy" else spec.make_env(episode="hand")


def clear_caches() -> None:
    """Empty every kept result of the view and the words (a pass starts cold)."""
    for module in (sv, views):
        for obj in vars(module).values():
            if callable(getattr(obj, "cache_clear", None)):
                obj.cache_clear()


def record(game: str, decisions: int, seed: int) -> tuple[list[tuple[Any, int]], float, list[Game]]:
    """``decisions`` (observation dict, chosen id) pairs, the engine's steps a second and
    the games they came from (seed, actions)."""
    player = agents.make("rummy-simple" if game == "rummy" else "heuristic")
    out: list[tuple[Any, int]] = []
    steps, step_seconds = 0, 0.0
    rng = np.random.default_rng(seed)
    played: list[Game] = []
    while len(out) < decisions:
        env = make_env(game)
        played.append((seed + len(out), []))
        env.reset(seed=played[-1][0])
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = int(player.act(obs, rng))
            out.append(({k: np.array(v) for k, v in obs.items()}, a))
            played[-1][1].append(a)
            t = time.perf_counter()
            env.step(a)
            step_seconds += time.perf_counter() - t
            steps += 1
    return out[:decisions], steps / step_seconds, played


def env_rate(game: str, played: list[Game], seconds: float) -> float:
    """Decisions a second of the text env's path: the env-built seat view, its words and
    the strict reply parsed, the recorded games played again on fresh envs."""
    done, spent = 0, 0.0
    clock = time.perf_counter
    deadline = clock() + seconds
    while clock() < deadline:
        clear_caches()
        for seed, actions in played:
            env = make_env(game)
            env.reset(seed=seed)
            raw = env.unwrapped
            table = views.table_of(game, raw.table_state.table)
            names = raw.possible_agents
            for a in actions:
                reply = text.move_words(a, game)
                start = clock()
                view = sv.seat_view(raw.table_state, names.index(env.agent_selection))
                describe(view, table)
                move = text.parse_reply(reply, view.legal, game)
                spent += clock() - start
                if move != a:
                    raise AssertionError(f"{game}: {reply!r} did not parse back")
                env.step(a)
                done += 1
    return done / spent


def rate(game: str, samples: list[tuple[Any, int]], seconds: float, form: str) -> float:
    table = text.table_of(game)
    say = {"strict": text.move_words, "sentence": sentence, "reasoning": reasoned}[form]
    replies = [say(a, game) for _, a in samples]
    done = 0
    start = time.perf_counter()
    deadline = start + seconds
    n = len(samples)
    while time.perf_counter() < deadline:
        if done % n < 200:  # a new pass over the samples: cold caches (outside the timing)
            pause = time.perf_counter()
            clear_caches()
            start += time.perf_counter() - pause
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
    load = "load average {:.2f} {:.2f} {:.2f} (1, 5, 15 min)"
    print(load.format(*os.getloadavg()))
    print(f"{'game':14} {'render+parse strict/s':>22} {'sentence/s':>11} {'reasoning/s':>12} "
          f"{'text env/s':>11} {'engine steps/s':>15} {'ratio (strict)':>15}")  # fmt: skip
    for game in GAMES:
        samples, steps, played = record(game, args.decisions, args.seed)
        strict = rate(game, samples, args.seconds, "strict")
        loose = rate(game, samples, args.seconds, "sentence")
        thought = rate(game, samples, args.seconds, "reasoning")
        in_env = env_rate(game, played, args.seconds)
        print(f"{game:14} {strict:22,.0f} {loose:11,.0f} {thought:12,.0f} {in_env:11,.0f} "
              f"{steps:15,.0f} {strict / steps:15.2f}")  # fmt: skip
    print(load.format(*os.getloadavg()))


if __name__ == "__main__":
    main()
