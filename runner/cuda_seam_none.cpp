// The CUDA seam for a LibTorch without CUDA: every CUDA cell is skipped before it gets here.
#include <stdexcept>

#include "runner/cuda_seam.hpp"

namespace crossover::cuda_seam {

bool compiled() { return false; }

void synchronize(int index) {
  throw std::runtime_error(
      "cuda:" + std::to_string(index) +
      ": this crossover was built without CUDA; rebuild against a CUDA LibTorch");
}

std::string runtime_version() { return ""; }

std::string cudnn_version() { return ""; }

void reset_peak_memory(int) {}

DeviceMemory peak_memory(int) { return {}; }

}  // namespace crossover::cuda_seam
