#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) into build-fuzz/ and runs each for
# FUZZ_SECONDS (default 60). Every file the tool reads from users has one: grids, IDX, CIFAR-10,
# scikit-learn CSV, results.jsonl, the JSON records, and run's --set and --label text; and report.html has one that fills every text field with
# hostile strings and fails on any element or attribute the renderer did not write. A crash, leak, sanitizer report, out-of-memory or a slow
# input fails the script; the input is left in build-fuzz/artifacts/ with the command that
# replays it. The corpus grows in build-fuzz/corpus/ from run to run. As many targets run at once
# as there are cores.
# Arguments: targets to run (default: all), e.g. scripts/fuzz.sh grid csv
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=$top/build-fuzz  # the "fuzz" preset of CMakePresets.json
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(grid idx cifar csv results html records sets)

[[ -f $build/CMakeCache.txt ]] || cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/artifacts"
# One target per core at once: each runs a fixed time on one core.
fuzz_one() {
  local target=$1 corpus=$build/corpus/$1
  mkdir -p "$corpus"
  local seeds=("$top/tests/fuzz/seeds/$target")
  local options=(-max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10
                 -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-")
  case $target in
    # The grid corpus starts from the real grids and from hostile shapes (20,000 nested arrays,
    # repeated keys); inputs up to 256 KiB, so that nesting deep enough to overflow a stack fits.
    grid) seeds=("$top/configs" "$top/tests/fuzz/seeds/grid")
          options+=(-dict="$top/tests/fuzz/grid.dict" -max_len=262144) ;;
    results) options+=(-max_len=262144) ;;
  esac
  "$build/tests/fuzz/fuzz_$target" "${options[@]}" "$corpus" "${seeds[@]}" \
    >"$build/fuzz-$target.log" 2>&1
}
failed=()
jobs_at_once=$(nproc)
for ((first = 0; first < ${#targets[@]}; first += jobs_at_once)); do
  batch=("${targets[@]:first:jobs_at_once}")
  pids=()
  for target in "${batch[@]}"; do
    echo "fuzz_$target: ${seconds}s (log: $build/fuzz-$target.log)"
    fuzz_one "$target" &
    pids+=($!)
  done
  for i in "${!batch[@]}"; do
    target=${batch[$i]}
    log=$build/fuzz-$target.log
    if wait "${pids[$i]}"; then
      grep -E "^stat::(number_of_executed_units|new_units_added|peak_rss_mb)" "$log" |
        sed "s/^/  $target: /"
    else
      failed+=("$target")
      grep -E "ERROR|SUMMARY|runtime error|what\(\)|Test unit written" "$log" | head -20 |
        sed 's/^/  /' || tail -5 "$log" | sed 's/^/  /'
      echo "  replay: $build/tests/fuzz/fuzz_$target $build/artifacts/$target-<file>"
    fi
  done
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzzing found problems in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: ${#targets[@]} target(s), ${seconds}s each, no crash, leak or sanitizer report"
