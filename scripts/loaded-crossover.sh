#!/usr/bin/env bash
# crossover under load: starts LOAD_PROCESSES (default 2) busy processes, runs crossover with the
# given arguments while they compete for the cores, stops them and returns crossover's exit code.
# A planted load, a busy machine (not a regression: the reference slows with the cells), for
# checking that a CI gate does not blame the machine on the code, e.g.
#   scripts/loaded-crossover.sh run configs/ci.json --out busy && build/crossover compare base busy
# A planted regression is CROSSOVER_PLANT_LOAD=N on the run instead (docs/ci.md).
# CROSSOVER_BIN names the binary (default: build/crossover beside this script's directory).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
binary="${CROSSOVER_BIN:-$here/../build/crossover}"
pids=()
stop() { if ((${#pids[@]})); then kill "${pids[@]}" 2>/dev/null || true; fi; }
trap stop EXIT
for _ in $(seq "${LOAD_PROCESSES:-2}"); do
  yes >/dev/null &
  pids+=($!)
done
status=0
"$binary" "$@" || status=$?
exit "$status"
