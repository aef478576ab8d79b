#!/usr/bin/env bash
# The main job: set up what is missing, build, fetch the data, run configs/quick.json, and print
# the CPU-vs-GPU comparison and where the reports are.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/setup.sh
scripts/build.sh crossover >/dev/null
scripts/fetch-data.sh
./build/crossover env
echo
# Two questions: the device (the GPU, where there is one) and the threads (any machine).
./build/crossover run configs/quick.json --compare device=cpu:cuda --compare threads=1:0 "$@"
