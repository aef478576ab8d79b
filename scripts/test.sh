#!/usr/bin/env bash
# The tests. Sets up what is missing, builds (release), fetches the real data sets (Iris accuracy
# is asserted on the real one) and runs every test through CTest: a few minutes on 2 cores.
#   scripts/test.sh [CTEST-ARGS...]          the release suite (e.g. -R Cli), without building the
#                                            micro-benchmarks (their end-to-end test skips)
#   scripts/test.sh --full [CTEST-ARGS...]   everything built and run, then the same tests under
#                                            AddressSanitizer and UndefinedBehaviorSanitizer
#                                            (build-asan/; two processes per test binary, the
#                                            LibTorch training tests left to the release suite),
#                                            the function-size check (scripts/function-sizes.sh),
#                                            then every fuzz target for FUZZ_SECONDS (default 60;
#                                            scripts/fuzz.sh, build-fuzz/); a one-node Slurm
#                                            cluster (scripts/slurm/local-cluster.sh) runs the
#                                            sharded-sweep test first. What CI runs (.ci/run, with
#                                            FUZZ_SECONDS=20); how long each takes:
#                                            docs/results.md, "Build and test times".
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
ctest --test-dir "${BUILD_DIR:-$top/build}" --output-on-failure -j 2 "$@"
((full)) || exit 0

if [[ ${CROSSOVER_SANITIZERS:-1} != 0 ]]; then
  echo "== the tests under ASan and UBSan (build-asan/)"
  [[ -f build-asan/CMakeCache.txt ]] || cmake --preset sanitize >/dev/null
  cmake --build --preset sanitize
  # handle_segv=0: a planted segfault must kill the isolated cell's process by its signal, as it
  # does without ASan. LibTorch is not instrumented; any report from our code fails the test.
  # allocator_may_return_null=1: the planted out-of-memory cell asks for a pebibyte, which must
  # fail as LibTorch's own error, as it does without ASan.
  export ASAN_OPTIONS=handle_segv=0:detect_leaks=1:abort_on_error=0:allocator_may_return_null=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # Each test binary runs in two processes (GoogleTest's shards), not one process per test as
  # CTest runs them: an instrumented process that loads LibTorch takes about 2 s to start and to
  # check for leaks at exit, which over 340 tests was most of this stage. The tests are
  # independent of their order (the release suite runs each alone; both ways pass). Left out here,
  # and run by the release suite above: the tests whose minutes are LibTorch's own training work,
  # which ASan does not instrument (every workload's epoch, Fashion-MNIST, the data loader's
  # epochs, calibration's repeated runs), and the link checks, the same in both builds.
  heavy='Executor.EveryWorkloadRunsOneEpochOnSmallData:Executor.MnistWorkloadsRunAnEpochOnTheRealFashionMnist'
  heavy+=':Executor.TheDataLoaderPathTrainsLikeTheTensorPath:Cli.CalibrateMeasuresTheGateOnThisRunnerAndCompareReadsItsFile'
  failed=()
  for binary in crossover_core_tests crossover_torch_tests; do
    pids=()
    for shard in 0 1; do
      GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard build-asan/tests/$binary --gtest_brief=1 \
        --gtest_filter="-$heavy" >"build-asan/$binary-$shard.log" 2>&1 &
      pids+=($!)
    done
    for shard in 0 1; do
      log=build-asan/$binary-$shard.log
      if wait "${pids[$shard]}"; then
        grep -E "^\[  (PASSED|SKIPPED) +\]" "$log" | sed "s|^|$binary $shard: |" || true
        continue
      fi
      grep -E -B5 -A40 "FAILED|ERROR: AddressSanitizer|runtime error" "$log" | head -200 || true
      # A test that failed in the shard runs again alone, as CTest would run it: the stage is as
      # strict as one process per test. A shard that died (a sanitizer report, a crash) fails.
      mapfile -t names < <(sed -n 's/^\[  FAILED  \] \([A-Za-z0-9_]*\.[A-Za-z0-9_]*\) (.*/\1/p' "$log" | sort -u)
      if [[ ${#names[@]} -eq 0 ]] || grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error" "$log"; then
        failed+=("$binary shard $shard")
        continue
      fi
      for name in "${names[@]}"; do
        if build-asan/tests/$binary --gtest_filter="$name" >"build-asan/$name.log" 2>&1; then
          echo "== $name failed beside the other tests of its shard and passed alone: an order dependency to fix ($log)" >&2
        else
          failed+=("$name")
          tail -40 "build-asan/$name.log"
        fi
      done
    done
  done
  if [[ ${#failed[@]} -gt 0 ]]; then
    echo "under ASan and UBSan, failed: ${failed[*]} (logs: build-asan/*.log)" >&2
    exit 1
  fi
  unset ASAN_OPTIONS UBSAN_OPTIONS
fi

echo "== no function outside the tests over 80 lines (clang-tidy)"
scripts/function-sizes.sh

if [[ ${FUZZ_SECONDS:-60} != 0 ]]; then
  echo "== fuzzing every reader of user files (build-fuzz/)"
  scripts/fuzz.sh
fi
