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
# Two questions: the device and the threads. Without a GPU the CUDA cells are predicted for an
# H100 from its profile (marked "predicted" everywhere, with the band the model held on real H100
# runs, and "undecided" where that band allows a tie); with one they are measured.
./build/crossover run configs/quick.json --compare device=cpu:cuda --compare threads=1:0 --predict cuda=profiles/h100-80gb.json "$@"
