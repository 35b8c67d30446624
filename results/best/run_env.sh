#!/bin/sh
# After results/best/run_three.sh: best's fixed mixture through the env on the posterior
# rows' deals (seed 2, pairs 0-29), for the paired difference of the two models.
cd "$(dirname "$0")/../.."
export OMP_NUM_THREADS=1 PYTHONPATH=.
run="nice -n 10 .venv/bin/python -m studies.match_search"
while kill -0 "$1" 2>/dev/null; do sleep 5; done
$run seated --harness env --table eaai --agent best --opponent tuned --pairs 30 --block 15 --seed 2 --out results/best/runs
$run seated --harness env --table eaai --agent best --opponent L2 --pairs 30 --block 15 --seed 2 --out results/best/runs
