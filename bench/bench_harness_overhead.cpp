// What it measures: the same mnist_mlp training epoch (10 steps of batch 128, Adam, the data in
// one tensor) through the suite's workload code, which the runner times, and through a minimal
// hand-written LibTorch loop, side by side.
// Why it matters: a harness that adds its own cost to every step reports its own speed. The
// ratio of the two is the suite's overhead; docs/results.md states it.
#include <benchmark/benchmark.h>

#include "workloads/models/mlp.hpp"
#include "workloads/training/workload.hpp"

namespace {

constexpr std::int64_t kRows = 1280;
constexpr std::int64_t kBatch = 128;

void BM_Harness_Suite(benchmark::State& state) {
  crossover::Cell cell;
  cell.workload = "mnist_mlp";
  cell.dataset = "mnist";
  cell.loader = crossover::Loader::kTensor;
  cell.batch_size = kBatch;
  cell.dataset_size = kRows;
  cell.optimizer = crossover::Optimizer::kAdam;
  cell.lr = 0.001;
  auto workload = crossover::make_workload(cell, torch::Device("cpu"), "/nonexistent");
  workload->reset(0);
  for (auto _ : state) benchmark::DoNotOptimize(workload->train_epoch().data_ptr());
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_Harness_Suite)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Harness_HandWritten(benchmark::State& state) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::rand({kRows, 1, 28, 28});
  const torch::Tensor y = torch::randint(0, 10, {kRows}, torch::kLong);
  crossover::Mlp model(std::vector<std::int64_t>{784, 400, 200, 100, 10});
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.001));
  for (auto _ : state) {
    const torch::Tensor order = torch::randperm(kRows, torch::kLong);
    torch::Tensor total = torch::zeros({});
    for (std::int64_t start = 0; start < kRows; start += kBatch) {
      const torch::Tensor index = order.slice(0, start, start + kBatch);
      optimizer.zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(
          model->forward(x.index_select(0, index)), y.index_select(0, index));
      loss.backward();
      optimizer.step();
      total += loss.detach();
    }
    benchmark::DoNotOptimize(total.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_Harness_HandWritten)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
