#!/usr/bin/env bash
# Every test under AddressSanitizer and UndefinedBehaviorSanitizer with GCC (build-asan/, the
# "sanitize" preset): LibTorch's layer and the end-to-end runs of the crossover binary too, which
# the sanitized stage of scripts/test.sh --full (CI) leaves out. About an hour on 2 cores: run it
# after a change to the execution (runner/, workloads/), the worker protocol or the child processes.
#   scripts/sanitize-all.sh        (after scripts/setup.sh and scripts/fetch-data.sh)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export CROSSOVER_DATA_DIR=${CROSSOVER_DATA_DIR:-$top/data}
export CROSSOVER_SKIP_BENCH=1
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
# and run by the release suite (scripts/test.sh): the tests whose minutes are LibTorch's own training work,
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
echo "every test passed under ASan and UBSan (logs: build-asan/*.log)"
