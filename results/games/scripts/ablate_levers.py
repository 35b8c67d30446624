"""The shipped eaai set against itself without its match levers (match_knock and match_gin
set to 0), and each against L2 and OpenSpiel's set, in games at the eaai table. Run from
the repository root: PYTHONPATH=. python results/games/scripts/ablate_levers.py 11 600"""

import dataclasses
import sys

from agents.heuristic import HeuristicParams
from agents.heuristic_batched import BatchedHeuristic
from agents.tuned import TABLES, load_sets
from gin_eval.matches import play_match_table

seed, pairs = int(sys.argv[1]), int(sys.argv[2])
config = TABLES["eaai"]
sets = load_sets()
new = HeuristicParams(**sets["eaai"]["params"])
flat = dataclasses.replace(new, match_knock=0.0, match_gin=0.0)
players = {
    "eaai set": BatchedHeuristic(new, config),
    "eaai set without the levers": BatchedHeuristic(flat, config),
}
l2 = BatchedHeuristic(HeuristicParams(), config)
openspiel = BatchedHeuristic(HeuristicParams(**sets["openspiel"]["params"]), config)
a, b = players.values()
matchups = [(a, b), (a, l2), (b, l2), (a, openspiel), (b, openspiel)]
labels = ["eaai set vs without the levers", "eaai set vs L2", "without the levers vs L2",
          "eaai set vs OpenSpiel's", "without the levers vs OpenSpiel's"]  # fmt: skip
for label, r in zip(labels, play_match_table(matchups, config, seed, pairs), strict=True):
    print(f"{label}: {r['win_share']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]")
