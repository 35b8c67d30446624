"""Write the decision states the fresh-eyes reply corpora answer: real prompts of the text
env (gin, three-handed as captain, box and adviser, rummy for 2 and 4 players), each with
its legal moves in words and ids, into ``tests/data/reply_states.json``.

The states come from seeded games whose moves are chosen greedily on the prompt's own
numbers (the discard that leaves least deadwood, a knock when there is one), so that knock
and gin states appear; which states are kept is fixed by the kinds listed in ``WANTED``.

    python studies/reply_corpus/make_states.py
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np

from gin_env import text

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "reply_states.json"

#: (game, env options, kinds to keep: (role, phase word, has a knock or a meld or lay-off
#: among its moves, count)).
WANTED: list[tuple[str, dict, list[tuple[str, str, bool, int]]]] = [
    (
        "gin",
        {"episode": "hand"},
        [
            ("player", "upcard offer", False, 1),
            ("player", "draw", False, 2),
            ("player", "discard", False, 2),
            ("player", "discard", True, 2),
        ],
    ),
    (
        "three_handed",
        {},
        [
            ("captain", "upcard offer", False, 1),
            ("captain", "draw", False, 1),
            ("captain", "discard", False, 1),
            ("captain", "discard", True, 1),
            ("box", "draw", False, 1),
            ("box", "discard", False, 1),
            ("box", "discard", True, 1),
            ("adviser", "upcard offer", False, 1),
            ("adviser", "draw", False, 1),
            ("adviser", "discard", False, 1),
            ("adviser", "discard", True, 1),
        ],
    ),
    (
        "rummy",
        {"num_players": 2},
        [("player", "draw", False, 1), ("player", "play", False, 1), ("player", "play", True, 2)],
    ),
    (
        "rummy",
        {"num_players": 4},
        [("player", "draw", False, 1), ("player", "play", True, 2)],
    ),
]


def _role(prompt: str) -> str:
    m = re.search(r"You are the (captain|box|adviser)", prompt)
    return m.group(1) if m else "player"


def _phase(prompt: str) -> str:
    m = re.search(r"Phase: ([a-z, ]+?)(?: to the [a-z-]+)?;", prompt)
    phase = m.group(1) if m else "?"
    return "play" if phase.startswith("meld") else phase


def _greedy(prompt: str, legal: list[str], rng: random.Random) -> str:
    knocks = [m for m in legal if m.startswith("knock") or m == "big-gin"]
    if knocks:
        return rng.choice(knocks)
    left = dict(re.findall(r"(discard \w\w) \(leaves (\d+) deadwood\)", prompt))
    if left:
        return min(left, key=lambda m: int(left[m]))
    melds = [m for m in legal if m.startswith(("meld", "lay off"))]
    if melds and rng.random() < 0.7:
        return rng.choice(melds)
    plays = [m for m in legal if m != "no-advice"]
    return rng.choice(plays)


def states() -> list[dict]:
    out: list[dict] = []
    for game, options, wanted in WANTED:
        need = {(r, p, k): n for r, p, k, n in wanted}
        seed = 0
        while any(need.values()) and seed < 400:
            env = text.env(game, **options)
            env.reset(seed=seed)
            rng = random.Random(seed)
            for agent in env.agent_iter():
                _, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                prompt = str(env.observe(agent))
                legal = env.legal_moves()
                mask = env.inner.observe(agent)["action_mask"]
                ids = np.flatnonzero(mask).tolist()
                knock = any(m.startswith(("knock", "meld", "lay off")) for m in legal)
                key = (_role(prompt), _phase(prompt), knock)
                # a later turn is a richer prompt: keep states after a few turns
                said = re.search(r"turn (\d+)", prompt)
                turn = int(said.group(1)) if said else 0
                if need.get(key) and (turn >= 4 or key[1] == "upcard offer") and rng.random() < 0.3:
                    need[key] -= 1
                    out.append(
                        {
                            "id": f"s{len(out):02d}",
                            "game": game,
                            "options": options,
                            "role": key[0],
                            "phase": key[1],
                            "kind": "advice" if key[0] == "adviser" else "move",
                            "prompt": prompt,
                            "legal": legal,
                            "legal_ids": ids,
                        }
                    )
                env.step(_greedy(prompt, legal, rng))
            seed += 1
        missing = {k: n for k, n in need.items() if n}
        if missing:
            raise SystemExit(f"{game}: no state found for {missing}")
    return out


if __name__ == "__main__":
    found = states()
    OUT.write_text(json.dumps(found, indent=1) + "\n")
    print(f"{len(found)} states written to {OUT}")
