// What it measures: a 1024x1024 float32 matrix product on the CPU under three thread settings:
// the libraries' defaults, torch::set_num_threads(1) alone, and crossover's `threads: 1`
// (LibTorch, OpenMP and the BLAS library all limited).
// Why it matters: the `threads` axis must bound every pool that does the work. LibTorch hands
// matrix products to the BLAS library, whose own threads ignore torch::set_num_threads, so
// a "1 thread" CPU figure that limits only LibTorch is really a multi-threaded one.
#include <benchmark/benchmark.h>

#include "runner/hardware/threads.hpp"

namespace {

void matmul(benchmark::State& state) {
  const torch::Tensor a = torch::randn({1024, 1024});
  const torch::Tensor b = torch::randn({1024, 1024});
  torch::Tensor c = torch::mm(a, b);
  for (auto _ : state) {
    c = torch::mm(a, b);
    benchmark::DoNotOptimize(c.data_ptr<float>());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * 1024 * 1024 * 1024, benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::kIs1000);
  state.counters["blas_threads"] = crossover::current_threads().blas;
  state.counters["intra_op"] = crossover::current_threads().intra_op;
}

void BM_Matmul1024_Defaults(benchmark::State& state) {
  crossover::apply_threads(0);
  matmul(state);
}

void BM_Matmul1024_TorchSetNumThreads1Only(benchmark::State& state) {
  crossover::apply_threads(0);
  torch::set_num_threads(1);
  matmul(state);
  crossover::apply_threads(0);
}

void BM_Matmul1024_CrossoverThreads1(benchmark::State& state) {
  crossover::apply_threads(1);
  matmul(state);
  crossover::apply_threads(0);
}

BENCHMARK(BM_Matmul1024_Defaults)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Matmul1024_TorchSetNumThreads1Only)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Matmul1024_CrossoverThreads1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
