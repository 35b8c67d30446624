"""Variants of the gin-only style and today's set, seed 9, pairs 300-699 (PYTHONPATH=. python
results/games/scripts/styles2.py)."""

import dataclasses
import time

from agents.heuristic import HeuristicParams
from agents.heuristic_batched import BatchedHeuristic
from agents.tuned import TABLES
from gin_eval.matches import play_match_table
from training.tune import todays_tuned

config = TABLES["eaai"]
t = todays_tuned("eaai")
L2 = BatchedHeuristic(HeuristicParams(), config)
T = BatchedHeuristic(t, config)
G = HeuristicParams(knock_early=0, knock_late=0)
zero = dict(
    knock_early=0,
    knock_late=0,
    knock_bend=0.0,
    knock_undercut=0.0,
    knock_shown_meld=0,
    knock_last_pips=0.0,
)
cands = {
    "tuned-gin-only": dataclasses.replace(t, **zero),
    "gin-only+mk4": dataclasses.replace(G, match_knock=4.0),
    "gin-only+mk8": dataclasses.replace(G, match_knock=8.0),
    "gin-only+danger7": dataclasses.replace(G, danger_weight=7.0),
    "gin-only+pot2": dataclasses.replace(G, potential_weight=2.0),
}
names = list(cands)
t0 = time.time()
res = play_match_table(
    [(BatchedHeuristic(cands[n], config), o) for n in names for o in (L2, T)],
    config,
    9,
    400,
    first=300,
)
for i, n in enumerate(names):
    a, b = res[2 * i], res[2 * i + 1]
    print(
        n,
        "vs L2 {:.3f} [{:.3f}, {:.3f}]".format(a["win_share"], *a["ci95"]),
        "vs tuned {:.3f} [{:.3f}, {:.3f}]".format(b["win_share"], *b["ci95"]),
        flush=True,
    )
print(time.time() - t0)
