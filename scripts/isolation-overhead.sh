#!/usr/bin/env bash
# What isolating a cell costs, measured: ten tiny Iris cells (2 epochs, 1 repeat) run in the run's
# own process, on warm workers (--isolate) and in a fresh process each (--isolate
# --fresh-process-per-cell), the three ways in turn, ROUNDS times. Prints each way's median wall
# time for the whole run and its overhead per cell over the run's own process. The ways differ in
# isolation only, so the differences are its cost. docs/results.md quotes it.
#   scripts/isolation-overhead.sh [ROUNDS]     (default 3; CROSSOVER=path/to/crossover)
#   DEVICE=cuda scripts/isolation-overhead.sh   the same cells on the GPU: each fresh process
#                                               then also creates a CUDA context
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${CROSSOVER:-$top/build/crossover}
rounds=${1:-3}
device=${DEVICE:-cpu}
[[ $device == cpu || $device == cuda ]] || { echo "DEVICE must be cpu or cuda, got '$device'" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive whole number, got '$rounds'" >&2; exit 2; }
[[ -x $bin ]] || { echo "no crossover at $bin: build it (scripts/build.sh crossover)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/grid.json" <<EOF
{"name": "isolation-overhead", "defaults": {"epochs": 2, "warmup_epochs": 0, "repeats": 1,
  "device": "$device", "isolate": false},
 "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}}]}
EOF
ways=(own warm fresh)
declare -A flags=([own]="" [warm]="--isolate" [fresh]="--isolate --fresh-process-per-cell")
for ((round = 1; round <= rounds; ++round)); do
  for way in "${ways[@]}"; do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$bin" --quiet run "$work/grid.json" --out "$work/$way-$round" --data-dir "${CROSSOVER_DATA_DIR:-$top/data}" \
      ${flags[$way]} >/dev/null
    awk -v way="$way" -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print way, b - a}' >>"$work/times"
  done
done
median() { grep "^$1 " "$work/times" | cut -d' ' -f2 | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
own=$(median own)
printf '%-6s %9s %18s %s\n' way "median s" "overhead per cell" "runs (s)"
for way in "${ways[@]}"; do
  m=$(median "$way")
  printf '%-6s %9.2f %16.3f s  %s\n' "$way" "$m" "$(awk -v m="$m" -v o="$own" 'BEGIN {print (m - o) / 10}')" \
    "$(grep "^$way " "$work/times" | cut -d' ' -f2 | xargs printf '%.2f ')"
done
# A warm worker's first cell pays one process start, as a fresh process does; the other nine
# pay what is left.
awk -v o="$own" -v w="$(median warm)" -v f="$(median fresh)" 'BEGIN {
  printf "warm, each cell after the first: %.3f s (one process start: %.3f s)\n", (w - o - (f - o) / 10) / 9, (f - o) / 10 }'
