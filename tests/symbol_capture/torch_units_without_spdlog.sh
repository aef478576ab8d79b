#!/usr/bin/env bash
# LibTorch 2.x ships fmt 12 in its include folder, and Debian's spdlog only compiles against its own
# fmt 9: a translation unit that has LibTorch's include folders on its path and includes spdlog (or
# fmt) fails to build against an official LibTorch. Checks, from the compile commands and ninja's
# record of each object's headers, that no such unit exists. Usage: SCRIPT BUILD_DIR NINJA
set -euo pipefail
build=$1
ninja=$2
[[ -f $build/build.ninja ]] || { echo "not a ninja build: $build"; exit 77; }
# The objects whose command names LibTorch's C++ API folder (present in every LibTorch).
mapfile -t objects < <(grep '"command":' "$build/compile_commands.json" |
  grep 'torch/csrc/api/include' | sed 's/.* -o \([^ ]*\) .*/\1/')
((${#objects[@]} > 0)) || { echo "no unit is compiled with LibTorch's include folders" >&2; exit 1; }
status=0
for object in "${objects[@]}"; do
  headers=$("$ninja" -C "$build" -t deps "$object" | grep -E '/(spdlog|fmt)/' || true)
  if [[ -n $headers ]]; then
    echo "$object sees LibTorch's include folders and includes:" >&2
    echo "$headers" | head -3 >&2
    status=1
  fi
done
echo "${#objects[@]} units compiled with LibTorch's include folders; spdlog/fmt in none: $((status == 0))"
exit $status
