"""Draw ``docs/table.png``, the README's picture of a three-handed table.

    python docs/make_table_png.py

Heuristic players play seed 7 until the captain, advised, is about to discard; the hidden
hands are shown face up so the picture has something to look at.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.single_agent import RandomPolicy
from gin_env import three_handed_gin_v0
from gin_env.render_image import save_png, table_image


def main(path: Path | None = None, seed: int = 7) -> Path:
    path = path if path is not None else Path(__file__).resolve().parent / "table.png"
    try:
        from agents.heuristic import HeuristicAgent

        player = HeuristicAgent()
    except ImportError:  # the agents package is optional for the picture
        player = RandomPolicy()
    env = three_handed_gin_v0.raw_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(400):
        match = env.match
        # Stop when the captain holds advice and has 11 cards to discard from.
        if (
            match.suggestion is not None
            and match.hand.phase.name == "DISCARD"
            and (len(match.hand.discard_pile) >= 4)
        ):
            break
        env.step(int(player.act(env.observe(env.agent_selection), rng)))
    save_png(table_image(env, show_all=True), str(path))
    return path


if __name__ == "__main__":
    print(main())
