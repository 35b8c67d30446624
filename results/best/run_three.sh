#!/bin/sh
# After results/best/run_more.sh: the three-handed rows (row D of run_rest.sh stopped on a
# broken env in the shared tree, since fixed).
cd "$(dirname "$0")/../.."
export OMP_NUM_THREADS=1 PYTHONPATH=.
run="nice -n 10 .venv/bin/python -m studies.match_search"
while kill -0 "$1" 2>/dev/null; do sleep 5; done
$run three --table eaai --agent best --opponent heuristic --triples 30 --seed 2 --out results/best/runs
$run three --table eaai --agent best --opponent tuned --triples 15 --seed 2 --out results/best/runs
