#pragma once
// The CUDA seam: the only calls that need a CUDA build of LibTorch. cuda_seam_cuda.cpp
// implements them and is compiled only when LibTorch has CUDA (CMake: CROSSOVER_WITH_CUDA);
// cuda_seam_none.cpp stands in everywhere else. Nothing outside this seam includes a CUDA header.

#include <cstdint>
#include <functional>
#include <string>

namespace crossover::cuda_seam {

/// True when this build has CUDA (cuda_seam_cuda.cpp was compiled in).
bool compiled();

/// Blocks until all work queued on CUDA device `index` has finished. Throws without CUDA.
void synchronize(int index);

/// The CUDA runtime version ("12.4"), or "" without CUDA.
std::string runtime_version();

/// The cuDNN version LibTorch uses ("90100"), or "" without cuDNN.
std::string cudnn_version();

/// Peak device memory of LibTorch's caching allocator since the last reset, in bytes.
struct DeviceMemory {
  std::int64_t peak_allocated_bytes = 0;
  std::int64_t peak_reserved_bytes = 0;
};

/// Starts a new peak on CUDA device `index`. A no-op without CUDA.
void reset_peak_memory(int index);

/// The peaks on CUDA device `index` since the last reset; zeros without CUDA.
DeviceMemory peak_memory(int index);

/// Returns the blocks LibTorch's caching allocator holds unused to the driver, as a fresh process
/// starts without them (a warm worker, between cells). A no-op without CUDA.
void release_cached_memory(int index);

/// Captures `step` in a CUDA graph on device `index`: runs it `warmup_steps` times on a side
/// stream (where allocations, kernel choices and lazy initialisation happen, outside the graph),
/// then records one more call there. Returns what replays the recording on the current stream.
/// Throws without CUDA, or when `step` cannot be captured (a host synchronisation inside it).
std::function<void()> capture_graph(int index, const std::function<void()>& step, int warmup_steps);

}  // namespace crossover::cuda_seam
