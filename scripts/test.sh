#!/usr/bin/env bash
# Sets up, builds and runs every test through CTest. The tests need the real data sets (Iris
# accuracy is asserted on the real one), so they are fetched first.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/setup.sh
scripts/build.sh
scripts/fetch-data.sh
export CROSSOVER_DATA_DIR=$top/data
export CROSSOVER_REQUIRE_REAL_DATA=1
ctest --test-dir "${BUILD_DIR:-$top/build}" --output-on-failure -j 2 "$@"
