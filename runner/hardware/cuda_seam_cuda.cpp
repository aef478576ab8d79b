// The CUDA seam for a LibTorch with CUDA. Compiled only when CROSSOVER_WITH_CUDA is on.
#include <ATen/cuda/CUDAGraph.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <torch/nn/parallel/data_parallel.h>

#include <chrono>
#if __has_include(<nccl.h>)
#ifndef USE_C10D_NCCL
#define USE_C10D_NCCL  // ProcessGroupNCCL.hpp declares nothing without it
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define CROSSOVER_HAVE_NCCL 1
#endif

#include <stdexcept>
#include <string>

#include "runner/hardware/cuda_seam.hpp"
#include "runner/hardware/cuda_seam_parallel.hpp"

// Every raw CUDA call goes through this check: it names the call site and CUDA's own message.
#define CROSSOVER_CUDA_CHECK(expr)                                                             \
  do {                                                                                         \
    const cudaError_t crossover_status = (expr);                                               \
    if (crossover_status != cudaSuccess) {                                                     \
      throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + \
                               #expr + ": " + cudaGetErrorString(crossover_status));           \
    }                                                                                          \
  } while (false)

namespace crossover::cuda_seam {

bool compiled() { return true; }

void synchronize(int index) {
  const c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(index));
  CROSSOVER_CUDA_CHECK(cudaDeviceSynchronize());
}

std::string runtime_version() {
  int version = 0;
  CROSSOVER_CUDA_CHECK(cudaRuntimeGetVersion(&version));
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

namespace {

// LibTorch's caching allocator sizes its per-device tables at its first allocation; before that
// its statistics calls throw "Invalid device argument N: did you call init?". A one-element tensor
// on the device initialises it (and costs nothing once it is).
void initialise_allocator(int index) {
  const torch::Tensor touch = torch::empty(
      {1}, torch::TensorOptions().device(torch::kCUDA, static_cast<c10::DeviceIndex>(index)));
}

}  // namespace

void reset_peak_memory(int index) {
  initialise_allocator(index);
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(index));
}

DeviceMemory peak_memory(int index) {
  initialise_allocator(index);
  const auto stats =
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  constexpr auto kAggregate = 0;  // StatType::AGGREGATE: all pools together
  DeviceMemory memory;
  memory.peak_allocated_bytes = stats.allocated_bytes[kAggregate].peak;
  memory.peak_reserved_bytes = stats.reserved_bytes[kAggregate].peak;
  return memory;
}

void release_cached_memory(int index) {
  synchronize(index);
  c10::cuda::CUDACachingAllocator::emptyCache();
}

std::function<void()> capture_graph(int index, const std::function<void()>& step,
                                    int warmup_steps) {
  const auto device = static_cast<c10::DeviceIndex>(index);
  const c10::cuda::CUDAGuard guard(device);
  CROSSOVER_CUDA_CHECK(cudaDeviceSynchronize());
  auto graph = std::make_shared<at::cuda::CUDAGraph>();
  // As torch.cuda.graph does: warm up and capture on a side stream, never the default one.
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device);
  {
    const c10::cuda::CUDAStreamGuard on_side(side);
    for (int i = 0; i < warmup_steps; ++i) step();
    side.synchronize();
    graph->capture_begin();
    try {
      step();
    } catch (...) {
      try {
        graph->capture_end();  // ends the stream's capture mode; the capture itself is lost
      } catch (...) {
      }
      throw;
    }
    graph->capture_end();
  }
  CROSSOVER_CUDA_CHECK(cudaDeviceSynchronize());
  return [graph] { graph->replay(); };
}

std::string cudnn_version() {
  const auto& hooks = at::detail::getCUDAHooks();
  return hooks.hasCuDNN() ? std::to_string(hooks.versionCuDNN()) : std::string();
}

torch::Tensor data_parallel(torch::nn::Sequential& model, const torch::Tensor& input,
                            const std::vector<int>& devices, int output_device) {
  std::vector<torch::Device> on;
  for (int index : devices) on.emplace_back(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  return torch::nn::parallel::data_parallel(
      model, input, on, torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(output_device)));
}

#ifdef CROSSOVER_HAVE_NCCL
namespace {

// Ranks with one CUDA device each, over NCCL. All-reduce is timed to its end on the device.
class NcclReplicas : public Replicas {
 public:
  NcclReplicas(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world, int device_index,
               std::chrono::milliseconds timeout)
      : rank_(rank),
        world_(world),
        device_(torch::kCUDA, static_cast<c10::DeviceIndex>(device_index)) {
    c10::cuda::set_device(device_.index());
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    group_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world, options);
  }
  int rank() const override { return rank_; }
  int world() const override { return world_; }
  void broadcast(std::vector<torch::Tensor>& tensors) override {
    for (auto& tensor : tensors) {
      std::vector<torch::Tensor> one = {on_device(tensor)};
      group_->broadcast(one)->wait();
      write_back(tensor, one[0]);
    }
    CROSSOVER_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void all_reduce_sum(std::vector<torch::Tensor>& tensors) override {
    const auto start = std::chrono::steady_clock::now();
    for (auto& tensor : tensors) {
      std::vector<torch::Tensor> one = {on_device(tensor)};
      group_->allreduce(one)->wait();
      write_back(tensor, one[0]);
    }
    CROSSOVER_CUDA_CHECK(cudaDeviceSynchronize());
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++calls_;
  }
  double seconds_per_all_reduce() const override {
    return calls_ == 0 ? 0.0 : seconds_ / static_cast<double>(calls_);
  }

 private:
  // Host tensors (rank 0's stopping decision) go through the rank's device: NCCL has no other.
  torch::Tensor on_device(const torch::Tensor& tensor) const {
    return tensor.is_cuda() ? tensor : tensor.to(device_);
  }
  static void write_back(torch::Tensor& tensor, const torch::Tensor& moved) {
    if (!tensor.is_same(moved)) tensor.copy_(moved);
  }

  int rank_, world_;
  torch::Device device_;
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> group_;
  double seconds_ = 0.0;
  std::size_t calls_ = 0;
};

}  // namespace

bool nccl_available() { return true; }

std::unique_ptr<Replicas> nccl_replicas(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                        int world, int device_index,
                                        std::chrono::milliseconds timeout) {
  return std::make_unique<NcclReplicas>(store, rank, world, device_index, timeout);
}
#else
bool nccl_available() { return false; }

std::unique_ptr<Replicas> nccl_replicas(const c10::intrusive_ptr<c10d::Store>&, int, int, int,
                                        std::chrono::milliseconds) {
  throw std::runtime_error("NCCL: this LibTorch or its NCCL headers are missing; ddp uses Gloo");
}
#endif

}  // namespace crossover::cuda_seam
