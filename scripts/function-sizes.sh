#!/usr/bin/env bash
# Lists the functions outside tests longer than 80 lines (clang-tidy's readability-function-size),
# the house's limit for a function that reads as one thing. Needs a configured build/ (for
# compile_commands.json); reads every unit (about 2 minutes on 2 cores), or the files given.
# Exits 1 when a function is over, 2 when clang-tidy cannot read a unit. scripts/test.sh --full
# (CI) runs it.
#   scripts/function-sizes.sh [FILE...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD_DIR:-$top/build}
[[ -f $build/compile_commands.json ]] || { echo "configure $build first (scripts/build.sh)" >&2; exit 2; }
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
  mapfile -t files < <(find core reports runner workloads -name '*.cpp' | sort | grep -v cuda_seam)
fi
# clang-tidy cannot read GCC's precompiled header: read each unit with the header's text instead.
db=$(mktemp -d)
sed 's| -include [^ ]*/cmake_pch\.hxx| -include '"$top"'/runner/execution/torch_pch.hpp|; s| -Winvalid-pch||' \
  "$build/compile_commands.json" >"$db/compile_commands.json"
out=$(mktemp)
trap 'rm -rf "$db" "$out"' EXIT
# A unit clang-tidy cannot read fails the check: silence would read as "none over". One
# clang-tidy per unit, as many at once as there are cores.
if ! printf '%s\0' "${files[@]}" |
  xargs -0 -n 4 -P "$(nproc)" clang-tidy -p "$db" --quiet -checks='-*,readability-function-size' \
    -config='{CheckOptions: [{key: readability-function-size.LineThreshold, value: 80}]}' \
    >"$out" 2>&1; then
  grep -E "error|Error" "$out" | sed "s|$top/||" >&2
  echo "clang-tidy could not read every unit" >&2
  exit 2
fi
found=$(grep "warning:" "$out" | sed "s|$top/||" || true)
if [[ -n $found ]]; then
  echo "$found"
  echo "$(wc -l <<<"$found") function(s) over 80 lines in ${#files[@]} units"
  exit 1
fi
echo "no function over 80 lines in ${#files[@]} units"
