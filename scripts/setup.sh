#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the demo need. Idempotent; prints
# nothing when all is installed. Needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ca-certificates
  libtorch-dev
  # Without OpenBLAS, Debian's libtorch falls back to the reference BLAS: a 1024x1024 float32
  # product runs at about 4 GFLOP/s instead of about 166 on 2 cores, and every CPU time is ~40x off.
  libopenblas0-pthread
  libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  zlib1g-dev
  # Boost.Math's Student t distribution, for compare's run-level test (headers only).
  libboost-dev
  # Gloo's headers, for c10d's Gloo process group (ddp ranks on the CPU).
  libgloo-dev
  # clang's libFuzzer and sanitizer runtimes, for scripts/fuzz.sh (the GCC build's ASan and UBSan
  # runtimes come with g++).
  clang libclang-rt-14-dev
  # Universal Ctags finds each function's lines, for scripts/function-sizes.sh (test.sh --full).
  universal-ctags
  # The format check of scripts/format.sh (test.sh --full): Debian's clang-format 14.
  clang-format
  # Callgrind counts the instructions of counted cells (the `count` key) on machines without
  # hardware counters (virtual machines, CI runners); its headers switch it on around each epoch.
  valgrind
  # What a user reads results.csv and summary.json with: a test runs docs/outputs.md's lines.
  python3 jq
)

missing=()
for p in "${packages[@]}"; do
  [[ $p == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} > 0)); then
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup.sh: need root to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "setup.sh: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# libblas.so.3 is an alternative: make sure it points at OpenBLAS, not the reference BLAS.
blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || true)
if [[ -n $blas && $blas != *openblas* ]]; then
  echo "setup.sh: warning: libblas.so.3 resolves to $blas (reference BLAS); CPU timings will be ~40x too slow." >&2
  echo "setup.sh: fix: update-alternatives --set libblas.so.3-x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3" >&2
fi
