// The CUDA seam for a LibTorch with CUDA. Compiled only when CROSSOVER_WITH_CUDA is on.
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "runner/cuda_seam.hpp"

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

void reset_peak_memory(int index) {
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(index));
}

DeviceMemory peak_memory(int index) {
  const auto stats =
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  constexpr auto kAggregate = 0;  // StatType::AGGREGATE: all pools together
  DeviceMemory memory;
  memory.peak_allocated_bytes = stats.allocated_bytes[kAggregate].peak;
  memory.peak_reserved_bytes = stats.reserved_bytes[kAggregate].peak;
  return memory;
}

std::string cudnn_version() {
  const auto& hooks = at::detail::getCUDAHooks();
  return hooks.hasCuDNN() ? std::to_string(hooks.versionCuDNN()) : std::string();
}

}  // namespace crossover::cuda_seam
