// What it measures: samples per second of the data path alone — making a batch of 128
// MNIST-shaped samples and handing it to the training loop, no model — for the tensor loader
// (the data set normalised once in one tensor, batches cut by a shuffled index) and for
// LibTorch's DataLoader over a per-sample data set with 0, 1 and 2 worker threads.
// Why it matters: seed 000 found the CPU and the GPU equally slow on MNIST and blamed the
// model; the time went into the per-sample loader. When the data path is slower than the step,
// no device can help, and this is how much slower it is.
#include <benchmark/benchmark.h>

#include "workloads/data/batches.hpp"
#include "workloads/data/images.hpp"

namespace {

const crossover::TensorData& mnist_shaped() {
  static const crossover::TensorData data = [] {
    crossover::TensorData d = crossover::synthetic_images("mnist", 60000, 10, 0);
    d.mean = {0.1307};
    d.stdev = {0.3081};
    return d;
  }();
  return data;
}

void data_path(benchmark::State& state, crossover::Loader loader, int workers) {
  crossover::DataPath path;
  path.loader = loader;
  path.num_workers = workers;
  path.batch_size = 128;
  auto source = crossover::make_batches(mnist_shaped(), path, torch::Device("cpu"));
  torch::Tensor x, y;
  std::int64_t samples = 0;
  source->start_epoch();
  for (auto _ : state) {
    if (!source->next(x, y)) {  // a new epoch when this one runs out
      source->start_epoch();
      source->next(x, y);
    }
    benchmark::DoNotOptimize(x.data_ptr<float>());
    samples += x.size(0);
  }
  state.SetItemsProcessed(samples);
}

void BM_DataPath_Tensor(benchmark::State& state) {
  data_path(state, crossover::Loader::kTensor, 0);
}
void BM_DataPath_DataLoader(benchmark::State& state) {
  data_path(state, crossover::Loader::kDataLoader, static_cast<int>(state.range(0)));
}

BENCHMARK(BM_DataPath_Tensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_DataPath_DataLoader)
    ->ArgName("workers")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
