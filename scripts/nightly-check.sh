#!/usr/bin/env bash
# The nightly recipe of docs/ci.md, ten nights in a row on this machine: each night a run of GRID
# appended to a history with `--fail-on-change --fail-on-suspect`, the nights from PLANT_FROM on
# (1-based; default 11, never) run with CROSSOVER_PLANT_SLOWDOWN=PLANT (default 0.25). Prints each
# night's exit code: a planted slowdown should fail the job by its second night, and ten quiet
# nights should pass (docs/results.md, "Regression verdicts cell by cell on the VM").
#   PLANT_FROM=7 scripts/nightly-check.sh configs/gate.json OUT
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
grid=${1:?usage: scripts/nightly-check.sh GRID OUT}
out=${2:?usage: scripts/nightly-check.sh GRID OUT}
bin=${CROSSOVER_BIN:-$top/build/crossover}
data=${CROSSOVER_DATA_DIR:-$top/data}
from=${PLANT_FROM:-11}
if [[ -e $out ]]; then
  echo "nightly-check.sh: $out exists; give a new folder" >&2
  exit 2
fi
mkdir -p "$out"
for night in $(seq 1 10); do
  plant=()
  ((night >= from)) && plant=(env "CROSSOVER_PLANT_SLOWDOWN=${PLANT:-0.25}")
  "${plant[@]}" "$bin" run "$grid" --out "$out/night-$night" --data-dir "$data" \
    >"$out/night-$night.log" 2>&1
  if ((night == 1)); then
    "$bin" history "$out/night-1" --out "$out/history" >"$out/history-1.txt" 2>&1
  else
    "$bin" history --append "$out/night-$night" --into "$out/history" --fail-on-change \
      --fail-on-suspect >"$out/history-$night.txt" 2>&1
  fi
  echo "night $night exit $?"
done
