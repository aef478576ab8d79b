#!/usr/bin/env bash
# Lists the functions outside tests longer than 80 lines (clang-tidy's readability-function-size),
# the house's limit for a function that reads as one thing. Needs a configured build/ (for
# compile_commands.json); LibTorch's units take about a minute each, so by default only the units
# without LibTorch are read: --all reads every unit, or give files.
#   scripts/function-sizes.sh [--all | FILE...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD_DIR:-$top/build}
[[ -f $build/compile_commands.json ]] || { echo "configure $build first (scripts/build.sh)" >&2; exit 2; }
files=("$@")
if [[ ${1:-} == --all || ${#files[@]} -eq 0 ]]; then
  mapfile -t files < <(ls core/*.cpp reports/*.cpp runner/*.cpp runner/cli/*.cpp workloads/*.cpp |
                       grep -v cuda_seam)
  if [[ ${1:-} != --all ]]; then
    # Without LibTorch: every unit but crossover_torch's.
    torch_units=$(sed -n '/add_library(crossover_torch STATIC/,/)/p' CMakeLists.txt |
                  grep -o '[a-z_/]*\.cpp')
    mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -vxF "$torch_units")
  fi
fi
found=$(clang-tidy -p "$build" --quiet -checks='-*,readability-function-size' \
  -config='{CheckOptions: [{key: readability-function-size.LineThreshold, value: 80}]}' \
  "${files[@]}" 2>/dev/null | grep "warning:" | sed "s|$top/||" || true)
if [[ -n $found ]]; then
  echo "$found"
  echo "$(wc -l <<<"$found") function(s) over 80 lines in ${#files[@]} units"
else
  echo "no function over 80 lines in ${#files[@]} units"
fi
