#!/usr/bin/env bash
# Configures and builds crossover against the CUDA LibTorch at PREFIX (what
# scripts/find-cuda-torch.sh prints) into build-cuda/ (or $CUDA_BUILD_DIR), with the `cuda`
# preset's settings: Release, CROSSOVER_CUDA=ON. Arguments after PREFIX are build targets
# (default: everything). A prefix that does not configure (no LibTorch there, or one without CUDA)
# stops it with exit 2 and an error naming the prefix; its configure.log keeps CMake's words.
#   JOBS=N compile jobs (default: every core); CMAKE_ARGS=... more configure arguments.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:?usage: scripts/build-cuda.sh LIBTORCH-PREFIX [TARGET...]}
shift
build=${CUDA_BUILD_DIR:-$top/build-cuda}
mkdir -p "$build"
log=$build/configure.log
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
if ! cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCROSSOVER_CUDA=ON ${CMAKE_ARGS:-} >"$log" 2>&1; then
  # A failed configure may have cached a LibTorch found elsewhere (Torch_DIR): the next try with
  # another prefix starts clean.
  rm -f "$build/CMakeCache.txt"
  echo "error: could not configure crossover against the CUDA LibTorch at $prefix:" >&2
  grep -A6 "CMake Error" "$log" | grep -v -e '^--$' -e '^ *$' | head -14 | sed 's/^/  /' >&2
  echo "  (all of CMake's output: $log; docs/gpu.md says which LibTorch to give)" >&2
  exit 2
fi
grep 'crossover: LibTorch' "$log" >&2 || true
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j "${JOBS:-$(nproc)}" "${targets[@]}"
