// What it measures: one full-batch training epoch (one forward, backward and Adam step) of
// seed 001's Iris and Boston networks on the CPU, as the training set grows from the real
// split (112 / 379 rows) to 10^5 rows.
// Why it matters: seed 001's conclusion is that data size decides the winner. At the real
// sizes an epoch costs a fixed per-step overhead (which a GPU's launch latency only adds to);
// the rows at which the time starts to grow with the data are where a GPU can begin to win.
#include <benchmark/benchmark.h>

#include "workloads/training/workload.hpp"

namespace {

void epoch(benchmark::State& state, const char* workload, const char* dataset) {
  crossover::Cell cell;
  cell.workload = workload;
  cell.dataset = dataset;
  cell.dataset_size = state.range(0);
  auto w = crossover::make_workload(cell, torch::Device("cpu"), "data");
  w->reset(0);
  w->train_epoch();
  for (auto _ : state) benchmark::DoNotOptimize(w->train_epoch().data_ptr());
  state.SetItemsProcessed(state.iterations() * w->facts().train_rows);
  state.SetLabel(crossover::text_of(w->facts().data_source) + " data");
}

void BM_IrisEpoch(benchmark::State& state) { epoch(state, "iris_mlp", "iris"); }
void BM_BostonEpoch(benchmark::State& state) { epoch(state, "boston_mlp", "boston"); }

BENCHMARK(BM_IrisEpoch)
    ->Arg(112)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BostonEpoch)
    ->Arg(379)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
