#!/usr/bin/env bash
# What loading LibTorch costs the commands that do not need it: each command run through
# `crossover` (no LibTorch) and through `crossover-torch` (the same command, LibTorch loaded),
# alternating, ROUNDS times each; prints each side's median wall time. The commands read the
# golden H100 run (tests/golden/a-seed001). Figures: docs/results.md, "Build and test times".
#   scripts/startup-cost.sh [ROUNDS]      (default 10; needs a build: scripts/build.sh)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${BUILD_DIR:-$top/build}
rounds=${1:-10}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive whole number" >&2; exit 2; }
for program in crossover crossover-torch; do
  [[ -x $bin/$program ]] || { echo "$bin/$program is not built (scripts/build.sh)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$top/tests/golden/a-seed001" "$work/run"

median() { sort -n | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f", m}'; }
seconds() {  # wall seconds of one run of "$@", its output discarded
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

printf '%-10s %14s %18s\n' command crossover crossover-torch
for command in keys "report $work/run" "compare $work/run $work/run --markdown $work/c.md" \
               "history $work/run --out $work/h"; do
  light=() torch=()
  for ((i = 0; i < rounds; i++)); do
    rm -rf "$work/h"
    # shellcheck disable=SC2086  # the command's words
    light+=("$(seconds "$bin/crossover" $command)")
    rm -rf "$work/h"
    # shellcheck disable=SC2086
    torch+=("$(seconds "$bin/crossover-torch" $command)")
  done
  printf '%-10s %12s s %16s s\n' "${command%% *}" "$(printf '%s\n' "${light[@]}" | median)" \
    "$(printf '%s\n' "${torch[@]}" | median)"
done
