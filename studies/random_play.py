"""How a hand ends under uniform random play: why self-play from scratch hears little.

A policy network at initialisation plays close to uniformly over the legal moves. This
study plays ``--hands`` hands of each env with every seat ``random`` (the package's
uniform legal-move player) through the one rollout loop and counts how each hand ended
(``HAND_KINDS``: a knock, gin, big gin, an undercut, a draw when the stock runs out), with
95% Wilson intervals. A drawn hand scores nothing, so the share of drawn hands is the share
of a self-play learner's first episodes whose reward is zero for every seat.

    python -m studies.random_play --hands 1000 --seed 0
"""

from __future__ import annotations

import argparse
import collections
from collections.abc import Sequence

import numpy as np

from agents import seat
from gin_env import games
from gin_env.hand import HAND_KINDS
from gin_eval.rollout import play
from gin_eval.stats import wilson_ci

GAMES = ("gin_v0", "three_handed_gin_v0")


def hand_kinds(game: str, hands: int, seed: int) -> collections.Counter[str]:
    """How ``hands`` hands of ``game`` (one hand per episode, deals ``seed``, ``seed + 1``,
    ...) ended with every seat playing ``random``."""
    env = games.get(game).make_env(episode="hand", infos="numeric")
    player = seat("random", env.unwrapped.config)
    rng = np.random.default_rng(seed)
    kinds: collections.Counter[str] = collections.Counter()
    for hand in range(hands):
        env.reset(seed=seed + hand)
        play(env, dict.fromkeys(env.possible_agents, player), rng)
        kinds[HAND_KINDS[int(env.infos[env.agent_selection]["hand_kind"])]] += 1
    return kinds


def main(argv: Sequence[str] | None = None) -> dict[str, dict[str, int]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated env names")
    a = parser.parse_args(argv)
    if a.hands < 1:
        parser.error(f"--hands must be a positive number of hands; got {a.hands}")
    out = {}
    for game in a.games.split(","):
        kinds = hand_kinds(game, a.hands, a.seed)
        shares = []
        for kind in HAND_KINDS:
            if kinds[kind]:
                lo, hi = wilson_ci(kinds[kind], a.hands)
                shares.append(f"{kind} {kinds[kind] / a.hands:.1%} [{lo:.1%}, {hi:.1%}]")
        print(f"{game}, {a.hands} hands of random play, seed {a.seed}: " + "; ".join(shares))
        out[game] = dict(kinds)
    return out


if __name__ == "__main__":
    main()
