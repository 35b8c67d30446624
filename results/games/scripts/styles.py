"""Styles of L2's family in games at the eaai table, seed 9, pairs 0-299 (PYTHONPATH=. python
results/games/scripts/styles.py)."""

import dataclasses

from agents.heuristic import HeuristicParams
from agents.heuristic_batched import BatchedHeuristic
from agents.tuned import TABLES
from gin_eval.matches import play_match_table
from training.tune import STYLES, todays_tuned

config = TABLES["eaai"]
t = todays_tuned("eaai")
L2 = BatchedHeuristic(HeuristicParams(), config)
T = BatchedHeuristic(t, config)
# knock-early with tuned's discards: tuned's set, but knock thresholds of the style
ke_t = dataclasses.replace(
    t, knock_early=10, knock_late=0, knock_bend=-5.0, knock_undercut=0.0, gin_deadwood=0
)
cands = {
    "gin-only": STYLES["gin-only"],
    "knock-early": STYLES["knock-early"],
    "tuned+knock-early": ke_t,
}
names = list(cands)
res = play_match_table(
    [(BatchedHeuristic(cands[n], config), o) for n in names for o in (L2, T)], config, 9, 300
)
for i, n in enumerate(names):
    a, b = res[2 * i], res[2 * i + 1]
    print(
        n,
        "vs L2 {:.3f} [{:.3f}, {:.3f}]".format(a["win_share"], *a["ci95"]),
        "vs tuned {:.3f} [{:.3f}, {:.3f}]".format(b["win_share"], *b["ci95"]),
    )
