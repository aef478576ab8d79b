// What it measures: one family per performance tip of seed 004, on the CPU (argument 0) and on
// the first CUDA device (argument 1, reported as skipped without one); names say on_gpu:0 or 1:
//   HostToDevice      copies of 4 KiB to 256 MiB from pageable and from pinned memory (bytes/s)
//   CreateOnDevice    a tensor made on the device vs made on the host and copied
//   ItemEveryStep     a loop that reads .item() every step vs one that keeps the sum on the device
//   Inference         forward passes under NoGradGuard vs in eval() mode with autograd on
//   LinearStep        Linear(512, 512) forward + backward across batch sizes 1 to 65,536
//   SmallestOp        adding two one-element tensors: dispatch (and, on a GPU, launch) latency
// Why it matters: each tip is a claim about where time goes; these turn the claims into numbers
// on the user's own hardware, and LinearStep shows the per-op crossover behind the workloads'.
#include <benchmark/benchmark.h>
#include <torch/cuda.h>

#include "runner/hardware/devices.hpp"

namespace {

// The device an argument names, or nothing (and the benchmark skipped) when it is absent.
std::optional<std::string> device_of(benchmark::State& state) {
  if (state.range(0) == 0) return std::string("cpu");
  if (crossover::probe_devices().cuda_devices > 0) return std::string("cuda:0");
  state.SkipWithError("skipped: no CUDA device");
  return std::nullopt;
}

void BM_HostToDevice(benchmark::State& state) {
  if (crossover::probe_devices().cuda_devices == 0) {
    state.SkipWithError("skipped: no CUDA device");
    return;
  }
  const bool pinned = state.range(0) == 1;
  const std::int64_t bytes = state.range(1);
  torch::Tensor host = torch::empty({bytes}, torch::kByte);
  if (pinned) host = host.pin_memory();
  for (auto _ : state) {
    torch::Tensor device = host.to(torch::Device("cuda:0"), /*non_blocking=*/pinned);
    crossover::synchronize_device(crossover::Device::cuda(0));
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetLabel(pinned ? "pinned" : "pageable");
}
BENCHMARK(BM_HostToDevice)
    ->ArgNames({"pinned", "bytes"})
    ->ArgsProduct({{0, 1}, {4 << 10, 256 << 10, 16 << 20, 256 << 20}})
    ->UseRealTime();

void BM_CreateOnDevice(benchmark::State& state) {
  const auto device = device_of(state);
  if (!device) return;
  const bool on_device = state.range(1) == 1;
  for (auto _ : state) {
    torch::Tensor t = on_device ? torch::rand({1024, 1024}, torch::TensorOptions().device(*device))
                                : torch::rand({1024, 1024}).to(*device);
    crossover::synchronize_device(crossover::parse_device(*device).value());
    benchmark::DoNotOptimize(t.data_ptr());
  }
  state.SetLabel(*device + (on_device ? " created on the device" : " created on the host, copied"));
}
BENCHMARK(BM_CreateOnDevice)
    ->ArgNames({"on_gpu", "on_device"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->UseRealTime();

void BM_ItemEveryStep(benchmark::State& state) {
  const auto device = device_of(state);
  if (!device) return;
  const bool every_step = state.range(1) == 1;
  const torch::Tensor x = torch::rand({256}, torch::TensorOptions().device(*device));
  constexpr int kSteps = 100;
  for (auto _ : state) {
    double host_sum = 0.0;
    torch::Tensor device_sum = torch::zeros({}, x.options());
    for (int i = 0; i < kSteps; ++i) {
      const torch::Tensor loss = (x * static_cast<double>(i)).sum();
      if (every_step) {
        host_sum += loss.item<double>();  // a host sync per step
      } else {
        device_sum += loss;  // stays on the device
      }
    }
    if (!every_step) host_sum = device_sum.item<double>();
    benchmark::DoNotOptimize(host_sum);
  }
  state.SetItemsProcessed(state.iterations() * kSteps);
  state.SetLabel(*device + (every_step ? " .item() every step" : " read once"));
}
BENCHMARK(BM_ItemEveryStep)
    ->ArgNames({"on_gpu", "every_step"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->UseRealTime();

void BM_Inference(benchmark::State& state) {
  const auto device = device_of(state);
  if (!device) return;
  const bool no_grad = state.range(1) == 1;
  torch::nn::Sequential model(torch::nn::Linear(784, 400), torch::nn::ReLU(),
                              torch::nn::Linear(400, 10));
  model->to(*device);
  model->eval();
  const torch::Tensor x = torch::rand({256, 784}, torch::TensorOptions().device(*device));
  for (auto _ : state) {
    torch::Tensor y;
    if (no_grad) {
      torch::NoGradGuard guard;
      y = model->forward(x);
    } else {
      y = model->forward(x);  // eval() alone still records the autograd graph
    }
    crossover::synchronize_device(crossover::parse_device(*device).value());
    benchmark::DoNotOptimize(y.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * 256);
  state.SetLabel(*device + (no_grad ? " NoGradGuard" : " eval() only"));
}
BENCHMARK(BM_Inference)
    ->ArgNames({"on_gpu", "no_grad"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->UseRealTime();

void BM_LinearStep(benchmark::State& state) {
  const auto device = device_of(state);
  if (!device) return;
  const std::int64_t batch = state.range(1);
  torch::nn::Linear layer(512, 512);
  layer->to(*device);
  const torch::Tensor x = torch::rand({batch, 512}, torch::TensorOptions().device(*device));
  for (auto _ : state) {
    layer->zero_grad();
    layer->forward(x).sum().backward();
    crossover::synchronize_device(crossover::parse_device(*device).value());
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.counters["GFLOP/s"] = benchmark::Counter(3.0 * 2.0 * 512 * 512 * static_cast<double>(batch),
                                                 benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
  state.SetLabel(*device);
}
BENCHMARK(BM_LinearStep)
    ->ArgNames({"on_gpu", "batch"})
    ->ArgsProduct({{0, 1}, {1, 16, 256, 4096, 65536}})
    ->UseRealTime();

void BM_SmallestOp(benchmark::State& state) {
  const auto device = device_of(state);
  if (!device) return;
  const torch::Tensor a = torch::ones({1}, torch::TensorOptions().device(*device));
  const torch::Tensor b = torch::ones({1}, torch::TensorOptions().device(*device));
  for (auto _ : state) {
    torch::Tensor c = a + b;
    crossover::synchronize_device(crossover::parse_device(*device).value());
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.SetLabel(*device);
}
BENCHMARK(BM_SmallestOp)->ArgName("on_gpu")->Arg(0)->Arg(1)->UseRealTime();

}  // namespace
