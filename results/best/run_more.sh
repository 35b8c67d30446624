#!/bin/sh
# After results/best/run_rest.sh: more pairs of the default table (seed 2, pairs 200-799).
cd "$(dirname "$0")/../.."
export OMP_NUM_THREADS=1 PYTHONPATH=.
run="nice -n 10 .venv/bin/python -m studies.match_search"
while kill -0 "$1" 2>/dev/null; do sleep 5; done
$run seated --harness table --table default --agent best --opponent L2 --first 200 --pairs 600 --block 50 --seed 2 --out results/best/runs
