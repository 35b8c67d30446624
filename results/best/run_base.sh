#!/bin/sh
# After results/best/run_env.sh: tuned alone on best's deals (seed 2), the gain's base.
cd "$(dirname "$0")/../.."
export OMP_NUM_THREADS=1 PYTHONPATH=.
run="nice -n 10 .venv/bin/python -m studies.match_search"
while kill -0 "$1" 2>/dev/null; do sleep 5; done
$run seated --harness table --table eaai --agent tuned --opponent L2 --pairs 300 --block 50 --seed 2 --out results/best/runs
