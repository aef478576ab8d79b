#!/usr/bin/env bash
# Configures and builds crossover into build/ (or $BUILD_DIR) with the release preset's settings.
# Arguments are build targets (default: everything, tests and benchmarks included).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
jobs=${JOBS:-2}  # LibTorch translation units need ~1 GB each; 2 fits a small machine
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j "$jobs" "${targets[@]}"
