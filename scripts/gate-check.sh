#!/usr/bin/env bash
# How often compare's verdicts are right on this runner, cell by cell: PAIRS comparisons of the
# binary against itself (A/A: every regression verdict is a false alarm) and PAIRS against itself
# with a planted slowdown (CROSSOVER_PLANT_SLOWDOWN=PLANT, default 0.25: every cell should be a
# regression), each beside LOAD_PROCESSES busy processes (default 1; 0 for a quiet machine,
# scripts/loaded-crossover.sh). Prints one line per comparison and the totals that docs/results.md
# quotes ("Regression verdicts cell by cell on the VM").
#   scripts/gate-check.sh GRID                     compare --rerun, ROUNDS (default 3) rounds
#   MODE=one-run scripts/gate-check.sh GRID        one run per side, then compare the two folders
#   METRIC=instructions MODE=one-run scripts/gate-check.sh configs/ci-counted.json
#                                                  the counted gate: compare --metric instructions
#                                                  (or cycles), the plant CROSSOVER_PLANT_WORK=PLANT
#                                                  (default 0.02: 2 % more work, which a counter
#                                                  sees) instead of the clock's spin
# PAIRS (default 10), KINDS (default "aa planted"), OUT (default runs/gate-check-<time>),
# CROSSOVER_BIN (default build/crossover). The nightly recipe: scripts/nightly-check.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
grid=${1:?usage: scripts/gate-check.sh GRID (see the comment at the top)}
pairs=${PAIRS:-10}
rounds=${ROUNDS:-3}
mode=${MODE:-rerun}
metric=${METRIC:-epoch}
if [[ $metric == instructions || $metric == cycles ]]; then
  plant=${PLANT:-0.02}
  plant_variable=CROSSOVER_PLANT_WORK
else
  plant=${PLANT:-0.25}
  plant_variable=CROSSOVER_PLANT_SLOWDOWN
fi
bin=$(realpath "${CROSSOVER_BIN:-$top/build/crossover}")
out=${OUT:-runs/gate-check-$(date +%Y%m%d-%H%M%S)}
data=${CROSSOVER_DATA_DIR:-$top/data}
export LOAD_PROCESSES=${LOAD_PROCESSES:-1} CROSSOVER_BIN=$bin
mkdir -p "$out"
# The planted candidate: the same binary, every timed epoch spinning PLANT of its own time more
# (or, counted, doing PLANT of its work again).
planted=$(realpath "$out")/planted.sh
printf '#!/bin/sh\n%s=%s exec %s "$@"\n' "$plant_variable" "$plant" "$bin" >"$planted"
chmod +x "$planted"

# The verdict counts of one compare.json: "regression N, inconclusive N, ..." on one line.
counts() {
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["counts"]; print(" ".join(k.replace(" ", "_") + "=" + str(v) for k, v in c.items()))' "$1"
}

for kind in ${KINDS:-aa planted}; do
  for i in $(seq "$pairs"); do
    dir=$out/$kind-$i
    candidate=$bin
    [[ $kind == planted ]] && candidate=$planted
    status=0
    if [[ $mode == rerun ]]; then
      "$top/scripts/loaded-crossover.sh" compare "$bin" "$candidate" --rerun "$grid" \
        --rounds "$rounds" --out "$dir" --data-dir "$data" --metric "$metric" >"$dir.log" 2>&1 ||
        status=$?
    else
      mkdir -p "$dir"
      "$top/scripts/loaded-crossover.sh" run "$grid" --out "$dir/base" --data-dir "$data" \
        >"$dir.log" 2>&1
      if [[ $kind == planted ]]; then
        env "$plant_variable=$plant" "$top/scripts/loaded-crossover.sh" run "$grid" \
          --out "$dir/cand" --data-dir "$data" >>"$dir.log" 2>&1
      else
        "$top/scripts/loaded-crossover.sh" run "$grid" --out "$dir/cand" --data-dir "$data" \
          >>"$dir.log" 2>&1
      fi
      "$bin" compare "$dir/base" "$dir/cand" --json "$dir/compare.json" --metric "$metric" \
        --markdown "$dir/compare.md" >>"$dir.log" 2>&1 || status=$?
    fi
    echo "$kind $i exit=$status $(counts "$dir/compare.json")"
  done
done | tee "$out/summary.txt"
echo "== $mode, grid $grid, metric $metric, $pairs pairs of each kind, rounds $rounds, LOAD_PROCESSES=$LOAD_PROCESSES, $plant_variable=$plant: $out/summary.txt"
for kind in ${KINDS:-aa planted}; do
  grep "^$kind " "$out/summary.txt" | awk -v kind="$kind" '
    { pairs++; if ($3 == "exit=1") failed++
      for (i = 4; i <= NF; i++) { split($i, kv, "="); n[kv[1]] += kv[2] } }
    END { printf "%s: %d of %d pairs exited 1; cells: regression %d, inconclusive %d, no change %d, improvement %d\n",
          kind, failed, pairs, n["regression"], n["inconclusive"], n["no_change"], n["improvement"] }'
done
