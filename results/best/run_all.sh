#!/bin/sh
# The figures of results/best/README.md, in the order they were run (one process, one core).
set -e
cd "$(dirname "$0")/../.."
export OMP_NUM_THREADS=1 PYTHONPATH=.
run="nice -n 10 .venv/bin/python -m studies.match_search"
out=results/best/runs
# A. the seated agent plays the study's decisions: seed 1's first 50 pairs of the committed
#    mixture row (results/match_search/report), the budget off (a fixed 32 worlds)
[ -n "$SKIP_CHECK" ] || $run seated --harness table --table eaai --agent "best:budget=None" --opponent L2 --pairs 50 --block 50 --seed 1 --out $out
# B-C. best at eaai (its default budget, 0.5 s), held-out seed 2
$run seated --harness table --table eaai --agent best --opponent L2 --pairs 300 --block 50 --seed 2 --out $out
$run seated --harness table --table eaai --agent best --opponent tuned --pairs 300 --block 50 --seed 2 --out $out
# E. the default table
$run seated --harness table --table default --agent best --opponent L2 --pairs 300 --block 50 --seed 2 --out $out
# D. three-handed at the eaai hand rules, against two L2
$run three --table eaai --agent best --opponent heuristic --triples 40 --seed 2 --out $out
# F. styles held out of its model (L2+tuned)
$run seated --harness table --table eaai --agent best --opponent gin-only --pairs 150 --block 50 --seed 2 --out $out
$run seated --harness table --table eaai --agent best --opponent knock-early --pairs 150 --block 50 --seed 2 --out $out
$run seated --harness table --table eaai --agent best --opponent tuned-openspiel --pairs 150 --block 50 --seed 2 --out $out
# G. the posterior model instead of the fixed mixture (through the env: one agent a pair)
$run seated --harness env --table eaai --agent "best:model=posterior" --opponent tuned --pairs 40 --block 20 --seed 2 --out $out
$run seated --harness env --table eaai --agent "best:model=posterior" --opponent L2 --pairs 40 --block 20 --seed 2 --out $out
# H. three-handed against two tuned
$run three --table eaai --agent best --opponent tuned --triples 20 --seed 2 --out $out
