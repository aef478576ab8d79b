#include "runner/machine/profile_measure.hpp"

#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>

#include "core/stats/stats.hpp"
#include "core/text/clock.hpp"
#include "core/text/log.hpp"
#include "runner/hardware/cuda_seam.hpp"
#include "runner/hardware/devices.hpp"
#include "runner/hardware/threads.hpp"
#include "runner/machine/env.hpp"
#include "runner/machine/revision.hpp"
#include "workloads/anatomy/op_cost.hpp"
#include "workloads/data/batches.hpp"

namespace crossover {
namespace {

using Clock = std::chrono::steady_clock;

// How long a measurement runs: per rung, per device.
struct Effort {
  int dispatch_chains;
  double rung_seconds;
  std::vector<double> cpu_rungs, cuda_rungs;
  std::int64_t memory_floats;
  std::int64_t copy_floats;
};

Effort effort(bool quick) {
  // Quick (every run measures it): about a tenth of a second on 2 cores; the largest CPU rung is
  // 256, so larger products are credited with its throughput.
  if (quick) return {15, 0.003, {16, 64, 256}, {16, 64, 256, 1024, 4096}, 1 << 21, 1 << 22};
  return {200,
          0.05,
          {8, 16, 32, 64, 128, 256, 512, 1024, 2048},
          {8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192},
          1 << 25,
          1 << 24};
}

// A step of tiny operators: a chain of 32 multiply-adds on one element with autograd, then its
// backward. What each operator of a small training step costs, however few FLOPs it does.
void tiny_step(const torch::Device& device) {
  torch::Tensor x = torch::ones({1}, torch::TensorOptions().device(device).requires_grad(true));
  torch::Tensor y = x;
  for (int i = 0; i < 32; ++i) y = y * 1.0001 + 0.0001;
  y.sum().backward();
}

// The operators the tiny step dispatches, forward and backward, as a training step's are counted.
double tiny_step_ops(const torch::Device& device, const Device& name) {
  OperatorRecorder recorder;
  recorder.set_phase(Phase::kBackward);
  recorder.enable(true);
  tiny_step(device);
  synchronize_device(name);
  recorder.enable(false);
  return std::max(recorder.anatomy().ops(), 1.0);
}

double dispatch_seconds(const torch::Device& device, const Device& name, int chains) {
  const double ops = tiny_step_ops(device, name);
  for (int i = 0; i < 3; ++i) tiny_step(device);
  std::vector<double> per_op;
  for (int i = 0; i < chains; ++i) {
    synchronize_device(name);
    const Clock::time_point start = Clock::now();
    tiny_step(device);
    synchronize_device(name);
    per_op.push_back(seconds_since(start) / ops);
  }
  return summarize(per_op).median;
}

// The tiny step captured once as a CUDA graph and replayed 20 times between synchronisations:
// what each of its operators costs when the GPU runs them back to back with no dispatch.
double graph_op_seconds(int chains) {
  const Device name = Device::cuda(0);
  const torch::Device device(name.text());
  const double ops = tiny_step_ops(device, name);
  const std::function<void()> replay = cuda_seam::capture_graph(
      0, [&device] { tiny_step(device); }, 3);
  constexpr int kReplays = 20;
  std::vector<double> per_op;
  for (int i = 0; i < std::max(chains / 10, 3); ++i) {
    synchronize_device(name);
    const Clock::time_point start = Clock::now();
    for (int r = 0; r < kReplays; ++r) replay();
    synchronize_device(name);
    per_op.push_back(seconds_since(start) / (kReplays * ops));
  }
  return summarize(per_op).median;
}

// What one operator of making a batch on the host costs: LibTorch's DataLoader (no workers) over
// 4,096 MNIST-shaped samples, normalised as each is fetched and collated 128 to a batch (the
// workloads' own data path), its time per batch over the operators the recorder counts in one.
double batch_op_seconds(int batches) {
  TensorData data;
  data.x_train = torch::rand({4096, 1, 28, 28});
  data.y_train = torch::randint(0, 10, {4096}, torch::kLong);
  data.mean = {0.5};
  data.stdev = {0.25};
  DataPath path;
  path.loader = Loader::kDataLoader;
  path.placement = Placement::kHost;
  path.batch_size = 128;
  const std::unique_ptr<BatchSource> source = make_batches(data, path, torch::kCPU);
  torch::Tensor x, y;
  double ops = 0.0;
  {
    OperatorRecorder recorder;
    source->start_epoch();
    recorder.set_phase(Phase::kData);
    recorder.enable(true);
    source->next(x, y);
    recorder.enable(false);
    ops = std::max(recorder.anatomy().ops(), 1.0);
  }
  std::vector<double> per_op;
  for (int i = 0; i < batches; ++i) {
    if (i % 30 == 0) source->start_epoch();  // 32 batches an epoch
    const Clock::time_point start = Clock::now();
    source->next(x, y);
    per_op.push_back(seconds_since(start) / ops);
  }
  return summarize(per_op).median;
}

// Repeats `op` until `seconds` have passed (at least twice); its seconds per call.
template <typename Op>
double seconds_per_call(const Device& name, double seconds, Op op) {
  op();
  synchronize_device(name);
  int calls = 0;
  const Clock::time_point start = Clock::now();
  while (calls < 2 || seconds_since(start) < seconds) {
    op();
    ++calls;
    if (calls % 4 == 0) synchronize_device(name);
  }
  synchronize_device(name);
  return seconds_since(start) / calls;
}

DeviceProfile device_profile(const torch::Device& device, const Device& name, const Effort& e) {
  torch::NoGradGuard no_grad;
  DeviceProfile d;
  const auto options = torch::TensorOptions().device(device);
  for (const double n : device.is_cuda() ? e.cuda_rungs : e.cpu_rungs) {
    const auto size = static_cast<std::int64_t>(n);
    const torch::Tensor a = torch::randn({size, size}, options),
                        b = torch::randn({size, size}, options);
    torch::Tensor c = torch::empty({size, size}, options);
    const double t = seconds_per_call(name, e.rung_seconds, [&] { torch::mm_out(c, a, b); });
    d.gemm.emplace_back(n, 2.0 * n * n * n / t);
  }
  const torch::Tensor a = torch::rand({e.memory_floats}, options),
                      b = torch::rand({e.memory_floats}, options);
  torch::Tensor c = torch::empty({e.memory_floats}, options);
  const double t = seconds_per_call(name, 4 * e.rung_seconds, [&] { torch::add_out(c, a, b); });
  d.memory_bytes_per_second = 3.0 * static_cast<double>(e.memory_floats) * 4.0 / t;
  if (!device.is_cuda()) {
    // A training step allocates its activations afresh: the same sum into a new tensor each
    // time, its pages first touched by the sum (the CUDA caching allocator reuses its blocks).
    const double fresh = seconds_per_call(name, 4 * e.rung_seconds, [&] { c = torch::add(a, b); });
    d.fresh_memory_bytes_per_second = 3.0 * static_cast<double>(e.memory_floats) * 4.0 / fresh;
  }
  return d;
}

void add_cuda(const Effort& e, int chains, DeviceProfile& d) {
  const Device name = Device::cuda(0);
  const torch::Device device(name.text());
  torch::NoGradGuard no_grad;
  const torch::Tensor host = torch::rand({e.copy_floats});
  const torch::Tensor pinned = host.pin_memory();
  const double bytes = static_cast<double>(e.copy_floats) * 4.0;
  d.h2d_pageable_bytes_per_second =
      bytes / seconds_per_call(name, 4 * e.rung_seconds, [&] { (void)host.to(device); });
  d.h2d_pinned_bytes_per_second = bytes / seconds_per_call(name, 4 * e.rung_seconds, [&] {
                                    (void)pinned.to(device, /*non_blocking=*/true);
                                  });
  std::vector<double> syncs;
  for (int i = 0; i < chains; ++i) {
    const Clock::time_point start = Clock::now();
    synchronize_device(name);
    syncs.push_back(seconds_since(start));
  }
  d.sync_seconds = summarize(syncs).median;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

}  // namespace

MachineProfile measure_profile(const ProfileOptions& options) {
  const Effort e = effort(options.quick);
  const auto record = environment_record(false);
  MachineProfile p;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  p.name =
      options.name.empty() ? std::string(host[0] != '\0' ? host : "this machine") : options.name;
  p.cpu_model = record.cpu.model;
  p.logical_cores = static_cast<int>(record.cpu.logical_cores.value_or(0));
  p.libtorch_version = record.libtorch.version;
  const torch::Device cpu(torch::kCPU);
  apply_threads(1);
  p.cpu_one_thread = device_profile(cpu, Device::cpu(), e);
  p.cpu_one_thread.dispatch_seconds = dispatch_seconds(cpu, Device::cpu(), e.dispatch_chains);
  apply_threads(0);
  p.cpu_all_threads = device_profile(cpu, Device::cpu(), e);
  p.cpu_all_threads.dispatch_seconds = dispatch_seconds(cpu, Device::cpu(), e.dispatch_chains);
  // The training thread makes a batch one sample at a time, whatever the intra-op threads.
  p.cpu_all_threads.batch_op_seconds = batch_op_seconds(std::max(e.dispatch_chains / 5, 3));
  p.cpu_one_thread.batch_op_seconds = p.cpu_all_threads.batch_op_seconds;
  if (torch::cuda::is_available()) {
    const torch::Device gpu("cuda:0");
    DeviceProfile d = device_profile(gpu, Device::cuda(0), e);
    d.dispatch_seconds = dispatch_seconds(gpu, Device::cuda(0), e.dispatch_chains);
    add_cuda(e, e.dispatch_chains, d);
    try {
      d.graph_op_seconds = graph_op_seconds(e.dispatch_chains);
    } catch (const std::exception& error) {
      log_warning(std::string("the profile has no cost per replayed graph operator (the capture "
                              "failed: ") +
                  error.what() + "); graph cells are predicted with their operators free");
    }
    p.cuda = d;
    p.gpu_name = record.gpus.empty() ? "cuda:0" : record.gpus.front().name;
  }
  p.provenance = {
      {"machine", std::string(host)},
      {"date", today()},
      {"revision", build_revision()},
      {"method",
       std::string(options.quick ? "measured by crossover run (quick)"
                                 : "measured by crossover "
                                   "profile") +
           ": dispatch_seconds = a chain of 32 multiply-adds on one element with autograd and "
           "its backward, synchronised, divided by the operators it dispatches (median of " +
           std::to_string(e.dispatch_chains) +
           " chains); gemm = n x n x n float32 products (torch::mm_out) repeated for at least " +
           std::to_string(static_cast<int>(e.rung_seconds * 1000)) +
           " ms each, 2 n^3 FLOP per product; memory_bytes_per_second = c = a + b over " +
           std::to_string(e.memory_floats) +
           " floats, 12 bytes per element; h2d = " + std::to_string(e.copy_floats * 4 >> 20) +
           " MiB copies from pageable and from pinned memory; sync_seconds = one synchronisation "
           "of the idle device; graph_op_seconds = the dispatch chain captured as a CUDA graph, "
           "20 replays between synchronisations, divided by 20 x its operators; "
           "fresh_memory_bytes_per_second (CPU) = the same sum into a newly allocated tensor; "
           "batch_op_seconds = LibTorch's DataLoader (no workers) making batches of 128 "
           "MNIST-shaped samples, normalised as fetched, the median time per batch over the "
           "operators the recorder counts in one"}};
  return p;
}

}  // namespace crossover
