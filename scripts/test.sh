#!/usr/bin/env bash
# The tests. Sets up what is missing, builds (release), fetches the real data sets (Iris accuracy
# is asserted on the real one) and runs every test through CTest: a few minutes on 2 cores.
#   scripts/test.sh [CTEST-ARGS...]          the release suite (e.g. -R Cli), without building the
#                                            micro-benchmarks (their end-to-end test skips)
#   scripts/test.sh --full [CTEST-ARGS...]   everything built and run (a one-node Slurm cluster,
#                                            scripts/slurm/local-cluster.sh, for the sharded-sweep
#                                            test), then the layers without LibTorch built with
#                                            clang under AddressSanitizer and UndefinedBehavior-
#                                            Sanitizer (build-fuzz/): their unit tests, and every
#                                            fuzz target for FUZZ_SECONDS (default 60;
#                                            scripts/fuzz.sh), then the function-size
#                                            check (scripts/function-sizes.sh) and the format
#                                            check (scripts/format.sh --check). What CI runs (.ci/run,
#                                            with FUZZ_SECONDS=20); how long each takes:
#                                            docs/results.md, "Build and test times". Every test
#                                            under the sanitizers, the binary's too:
#                                            scripts/sanitize-all.sh (an hour).
#   CROSSOVER_SANITIZERS=0 / FUZZ_SECONDS=0 skip a part of --full.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
full=0
if [[ ${1:-} == --full ]]; then
  full=1
  shift
fi
scripts/setup.sh
if ((full)); then
  scripts/build.sh
else
  # The benchmarks (five more LibTorch units) are built and their end-to-end test run by --full.
  scripts/build.sh crossover_tests
  export CROSSOVER_SKIP_BENCH=1
fi
scripts/fetch-data.sh
export CROSSOVER_DATA_DIR=$top/data
export CROSSOVER_REQUIRE_REAL_DATA=1
if ((full)); then
  # A one-node Slurm cluster for the sharded-sweep test (Slurm.*); without one that test skips
  # with its reason, and the rest still run.
  if slurm=$(scripts/slurm/local-cluster.sh up); then
    export "${slurm?}"
    trap 'scripts/slurm/local-cluster.sh down' EXIT
  else
    echo "== no one-node Slurm cluster on this machine (above: why); Slurm.* will skip" >&2
  fi
fi
# Two tests at once on two cores: an idle OpenMP or OpenBLAS thread of one test that spins (GNU
# OpenMP's default, OpenBLAS's 2^28 cycles of sched_yield after each product) takes its core from
# the other. The tests assert no speed; passive waits cut the suite's system time by a quarter
# (docs/results.md, "Build and test times").
export OMP_WAIT_POLICY=PASSIVE OPENBLAS_THREAD_TIMEOUT=4
# CTest starts the tests it knows to take longest first; a fresh build knows none and would start
# the 40 s ones last. tests/test-costs.txt holds the times of a run on this kind of 2-core machine
# (CTest's own record replaces it after the first run).
costs=${BUILD_DIR:-$top/build}/Testing/Temporary/CTestCostData.txt
[[ -f $costs ]] || { mkdir -p "$(dirname "$costs")" && cp tests/test-costs.txt "$costs"; }
ctest --test-dir "${BUILD_DIR:-$top/build}" --output-on-failure -j 2 "$@"
# On a machine with an NVIDIA GPU and a CUDA LibTorch (scripts/find-cuda-torch.sh): the same tree
# built against that LibTorch into build-cuda/, and its *_CUDA tests, which skip everywhere else
# (scripts/gpu-check.sh is the whole GPU check). A GPU without one gets find-cuda-torch.sh's line.
cuda=0
prefix=$(scripts/find-cuda-torch.sh) || cuda=$?
if ((cuda == 0)); then
  echo "== the *_CUDA tests, built against $prefix"
  scripts/build-cuda.sh "$prefix" crossover crossover_tests
  ctest --test-dir "${CUDA_BUILD_DIR:-$top/build-cuda}" --output-on-failure -j 2 -R '_CUDA$'
fi
((full)) || exit 0

if [[ ${CROSSOVER_SANITIZERS:-1} != 0 ]]; then
  # The layers without LibTorch (core, workloads, reports, runner: every reader of user files,
  # every report writer, the statistics) built with clang, ASan, UBSan and the fuzzer's coverage
  # (build-fuzz/): their unit tests run there in process, two shards, and scripts/fuzz.sh below
  # fuzzes the same build. LibTorch's layer and the end-to-end runs of the binary are tested by the
  # release suite above; scripts/sanitize-all.sh runs those under the sanitizers as well (an hour).
  echo "== the unit tests under ASan and UBSan (clang, build-fuzz/)"
  [[ -f build-fuzz/CMakeCache.txt ]] || cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  pids=()
  for shard in 0 1; do
    GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard build-fuzz/tests/crossover_unit_tests \
      --gtest_brief=1 >"build-fuzz/unit-tests-$shard.log" 2>&1 &
    pids+=($!)
  done
  failed=()
  for shard in 0 1; do
    log=build-fuzz/unit-tests-$shard.log
    if wait "${pids[$shard]}"; then
      grep -E "^\[  (PASSED|SKIPPED) +\]" "$log" | sed "s|^|unit tests, shard $shard: |" || true
    else
      grep -E -B5 -A40 "FAILED|ERROR: (Address|Leak)Sanitizer|runtime error" "$log" | head -200 || true
      failed+=("shard $shard ($log)")
    fi
  done
  if [[ ${#failed[@]} -gt 0 ]]; then
    echo "the unit tests under ASan and UBSan failed: ${failed[*]}" >&2
    exit 1
  fi
  unset ASAN_OPTIONS UBSAN_OPTIONS
fi

if [[ ${FUZZ_SECONDS:-60} != 0 ]]; then
  echo "== fuzzing every reader of user files (build-fuzz/)"
  scripts/fuzz.sh
fi
echo "== no function outside the tests over 80 lines"
scripts/function-sizes.sh
echo "== every source as .clang-format has it"
scripts/format.sh --check
