#!/usr/bin/env bash
# Configures and builds crossover into build/ (or $BUILD_DIR) with the release preset's settings.
# Arguments are build targets (default: everything, tests and benchmarks included).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
jobs=${JOBS:-2}  # LibTorch translation units need ~1 GB each; 2 fits a small machine
# Each target's sources compile in batches of 8 (CMake's unity build): a clean build in about two
# thirds of the time on 2 cores (docs/development.md, "Building"). CMAKE_ARGS=-DCMAKE_UNITY_BUILD=OFF
# compiles one unit per file.
if [[ ! -f $build/CMakeCache.txt ]]; then
  # shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
  cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 ${CMAKE_ARGS:-} >/dev/null
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j "$jobs" "${targets[@]}"
