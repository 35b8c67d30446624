#!/bin/sh
# results/best/run_all.sh after its row B, reordered and resized to finish in the session's
# time (the rows as they were run for results/best/README.md).
cd "$(dirname "$0")/../.."
export OMP_NUM_THREADS=1 PYTHONPATH=.
run="nice -n 10 .venv/bin/python -m studies.match_search"
out=results/best/runs
while kill -0 "$1" 2>/dev/null; do sleep 5; done  # row B, still running
$run seated --harness table --table eaai --agent best --opponent tuned --pairs 300 --block 50 --seed 2 --out $out
$run seated --harness table --table default --agent best --opponent L2 --pairs 200 --block 50 --seed 2 --out $out
$run three --table eaai --agent best --opponent heuristic --triples 30 --seed 2 --out $out
$run seated --harness env --table eaai --agent "best:model=posterior" --opponent tuned --pairs 30 --block 15 --seed 2 --out $out
$run seated --harness env --table eaai --agent "best:model=posterior" --opponent L2 --pairs 30 --block 15 --seed 2 --out $out
$run seated --harness table --table eaai --agent best --opponent gin-only --pairs 100 --block 50 --seed 2 --out $out
$run seated --harness table --table eaai --agent best --opponent knock-early --pairs 100 --block 50 --seed 2 --out $out
$run seated --harness table --table eaai --agent best --opponent tuned-openspiel --pairs 100 --block 50 --seed 2 --out $out
$run three --table eaai --agent best --opponent tuned --triples 15 --seed 2 --out $out
