"""Writes tests/data/l2_moves.npz: the moves of L2 as it played before its parameter family
was widened (run once, on that code; ``test_heuristic_params`` replays the same games)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from l2_play import OLD_PARAMS, OPPONENTS, cases, play  # noqa: E402

from agents.batched import PerRow  # noqa: E402
from agents.heuristic import HeuristicAgent  # noqa: E402

NUM_ENVS, STEPS = 16, 150


def key(game: str, label: str, pname: str, opp: str) -> str:
    return f"{game}|{label}|{pname}|{opp}"


def record() -> dict[str, np.ndarray]:
    out = {}
    for i, (game, label, options) in enumerate(cases()):
        for j, (pname, params) in enumerate(OLD_PARAMS.items()):
            opp = OPPONENTS[(i + j) % len(OPPONENTS)]
            l2 = PerRow(HeuristicAgent(params))
            out[key(game, label, pname, opp)] = play(
                game, options, 100 * i + j, NUM_ENVS, STEPS, l2, opp
            )
    return out


if __name__ == "__main__":
    moves = record()
    np.savez_compressed(Path(__file__).parent / "data" / "l2_moves.npz", **moves)
    print(len(moves), "games sets,", sum(len(m) for m in moves.values()), "L2 decisions")
