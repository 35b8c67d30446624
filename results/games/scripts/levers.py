"""Today's tuned (OpenSpiel's set) with the match levers, against itself and L2, in games
at the eaai table. Run from the repository root:

    PYTHONPATH=. python results/games/scripts/levers.py 7 200 2,0 0,2 2,2 -2,-2 4,4 4,0
    PYTHONPATH=. python results/games/scripts/levers.py 8 250 10,0 0,10 10,10 -10,-10 6,6
"""

import dataclasses
import sys

from agents.heuristic import HeuristicParams
from agents.heuristic_batched import BatchedHeuristic
from agents.tuned import TABLES
from gin_eval.matches import play_match_table
from training.tune import todays_tuned

seed, pairs = int(sys.argv[1]), int(sys.argv[2])
combos = [tuple(float(x) for x in c.split(",")) for c in sys.argv[3:]]
config = TABLES["eaai"]
base = todays_tuned("eaai")
l2, tuned = BatchedHeuristic(HeuristicParams(), config), BatchedHeuristic(base, config)
cands = [
    BatchedHeuristic(dataclasses.replace(base, match_knock=k, match_gin=g), config)
    for k, g in combos
]
res = play_match_table([(c, o) for c in cands for o in (tuned, l2)], config, seed, pairs)
for i, (k, g) in enumerate(combos):
    a, b = res[2 * i], res[2 * i + 1]
    print(k, g, "vs tuned {:.3f} [{:.3f}, {:.3f}]".format(a["win_share"], *a["ci95"]),
          "vs L2 {:.3f} [{:.3f}, {:.3f}]".format(b["win_share"], *b["ci95"]))  # fmt: skip
