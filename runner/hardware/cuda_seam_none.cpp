// The CUDA seam for a LibTorch without CUDA: every CUDA cell is skipped before it gets here.
#include <stdexcept>

#include "runner/hardware/cuda_seam.hpp"
#include "runner/hardware/cuda_seam_parallel.hpp"

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

void release_cached_memory(int) {}

std::function<void()> capture_graph(int index, const std::function<void()>&, int) {
  throw std::runtime_error("cuda:" + std::to_string(index) +
                           ": CUDA graphs need a crossover built against a CUDA LibTorch");
}

torch::Tensor data_parallel(torch::nn::Sequential&, const torch::Tensor&, const std::vector<int>&,
                            int) {
  throw std::runtime_error("dp: this crossover was built without CUDA");
}

bool nccl_available() { return false; }

std::unique_ptr<Replicas> nccl_replicas(const c10::intrusive_ptr<c10d::Store>&, int, int, int,
                                        std::chrono::milliseconds) {
  throw std::runtime_error("NCCL: this crossover was built without CUDA");
}

}  // namespace crossover::cuda_seam
