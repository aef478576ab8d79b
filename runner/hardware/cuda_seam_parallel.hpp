#pragma once
// The part of the CUDA seam that takes tensors: DataParallel and NCCL. Implemented in
// cuda_seam_cuda.cpp with LibTorch's torch::nn::parallel::data_parallel and c10d's
// ProcessGroupNCCL (whose headers need CUDA and NCCL); cuda_seam_none.cpp throws. Kept apart from
// cuda_seam.hpp so that the rest of the seam stays free of LibTorch.

#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "workloads/training/workload.hpp"

namespace crossover::cuda_seam {

/// One DataParallel forward: scatters `input` along dim 0 over the CUDA `devices`, runs a replica
/// of `model` (cloned from it, so its modules must be Cloneable) on each, and gathers the outputs
/// on CUDA device `output_device`. Gradients flow back to `model`'s own parameters.
torch::Tensor data_parallel(torch::nn::Sequential& model, const torch::Tensor& input,
                            const std::vector<int>& devices, int output_device);

/// True when this build has c10d's NCCL backend (a CUDA LibTorch built with NCCL, and its headers).
bool nccl_available();

/// A replica group over NCCL for ranks that each own one CUDA device (this rank's is
/// `device_index`, made current); rendezvous through `store`. NCCL moves device tensors only: host
/// tensors given to it travel through the rank's device and are written back. Throws without NCCL.
std::unique_ptr<Replicas> nccl_replicas(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                        int world, int device_index,
                                        std::chrono::milliseconds timeout);

}  // namespace crossover::cuda_seam
