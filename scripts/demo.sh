#!/usr/bin/env bash
# The main job: set up what is missing, build, fetch the data, run configs/quick.json, and print
# the CPU-vs-GPU verdict and where the reports are. On a machine with an NVIDIA GPU and a CUDA
# LibTorch (scripts/find-cuda-torch.sh looks for both) it builds build-cuda/ and measures the
# GPU; elsewhere the CUDA cells are predicted for an H100 from its profile, marked "predicted"
# everywhere, with the band the model held on real H100 runs and "undecided" where that band
# allows a tie. Arguments go to `crossover run` (e.g. --dry-run).
#   CROSSOVER_SKIP_SETUP=1  skip the package and data steps, and Debian's build where its binary
#                           is there already (what the tests of this script set)
#   BUILD_DIR / CUDA_BUILD_DIR  the build folders (default build/ and build-cuda/)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[[ ${CROSSOVER_SKIP_SETUP:-0} == 1 ]] || scripts/setup.sh
status=0
prefix=$(scripts/find-cuda-torch.sh) || status=$?
if ((status == 0)); then
  echo "== an NVIDIA GPU and a CUDA LibTorch ($prefix): building ${CUDA_BUILD_DIR:-build-cuda}/ (minutes, the first time) and measuring the GPU"
  scripts/build-cuda.sh "$prefix" crossover
  bin=${CUDA_BUILD_DIR:-build-cuda}/crossover
  predict=()
else
  # No GPU (status 1), or one without a CUDA LibTorch (3: find-cuda-torch.sh said so in a line).
  echo "== building ${BUILD_DIR:-build}/ against Debian's LibTorch (about 15 minutes the first time on 2 cores)"
  [[ ${CROSSOVER_SKIP_SETUP:-0} == 1 && -x ${BUILD_DIR:-build}/crossover ]] || scripts/build.sh crossover
  bin=${BUILD_DIR:-build}/crossover
  predict=(--predict cuda=h100)
fi
[[ ${CROSSOVER_SKIP_SETUP:-0} == 1 ]] || scripts/fetch-data.sh
# Two questions: the device, and the threads (one against the libraries' default).
"$bin" run configs/quick.json --compare device=cpu:cuda --compare threads=1:0 "${predict[@]}" "$@"
