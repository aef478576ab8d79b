#!/usr/bin/env bash
# Downloads (never installs) the Debian packages crossover builds with into .gpu-deps/, for a GPU
# machine that has a CUDA LibTorch, CMake, ninja and g++ but no package registry. Carry .gpu-deps/
# (and data/) there; scripts/gpu-check.sh unpacks them into .gpu-deps/root with dpkg -x.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$top/.gpu-deps"
cd "$top/.gpu-deps"
packages=(
  libcli11-dev nlohmann-json3-dev libspdlog-dev libspdlog1.10 libfmt-dev libfmt9
  libboost1.74-dev libgtest-dev libgmock-dev libbenchmark-dev libbenchmark1debian libgloo-dev
  zlib1g-dev
)
apt-get download "${packages[@]}" >/dev/null
ls -1 ./*.deb
