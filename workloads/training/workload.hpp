#pragma once
// The one interface the runner drives. A workload owns its data, model, loss and optimiser on
// one device; the runner owns the clock. The runner never knows MNIST from CIFAR.

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/costmodel/step_anatomy.hpp"
#include "core/records/data_source.hpp"

namespace crossover {

/// What a prepared workload tells the results.
struct WorkloadFacts {
  DataSource data_source = DataSource::kNone;  ///< real, a synthetic stand-in, or generated
  std::int64_t train_rows = 0;
  std::int64_t test_rows = 0;
  std::int64_t steps_per_epoch = 0;
  std::string metric;             ///< "accuracy" or "rmse"
  double flops_per_sample = 0.0;  ///< training FLOPs per sample
  std::string flops_source;       ///< "analytical", "estimated" (a user's model) or "" (none)
  /// One sample as a step receives it (features and target), in bytes: what a batch made on the
  /// host copies to a device per row.
  double sample_bytes = 0.0;
  std::int64_t rows_per_step = 0;  ///< the batch: rows each step trains on
};

/// Told when each phase of each step ends; after kOptimizer the step has ended. Workloads call it
/// only when given one, so an unobserved epoch adds no synchronisation.
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void phase_end(Phase phase) = 0;
};

/// Data parallelism as a workload sees it: this process is replica `rank` of `world`; it trains on
/// its slice of every global batch and averages gradients with the others after backward.
/// runner/distributed/ddp implements it over c10d; the workload knows nothing of processes or
/// sockets.
class Replicas {
 public:
  virtual ~Replicas() = default;
  virtual int rank() const = 0;
  virtual int world() const = 0;
  /// Replaces `tensors` on every replica with rank 0's.
  virtual void broadcast(std::vector<torch::Tensor>& tensors) = 0;
  /// Sums `tensors` over the replicas, in place.
  virtual void all_reduce_sum(std::vector<torch::Tensor>& tensors) = 0;
  /// Mean seconds per all_reduce_sum call so far (for the results).
  virtual double seconds_per_all_reduce() const = 0;
};

/// DataParallel as a workload sees it: one forward pass of `model` replicated over several GPUs,
/// the outputs gathered on `output`, where the loss is computed. runner/ makes it with the CUDA
/// seam; the workload knows nothing of GPUs.
struct DataParallelForward {
  std::function<torch::Tensor(torch::nn::Sequential& model, const torch::Tensor& input)> forward;
  torch::Device output = torch::kCPU;
};

/// CUDA graphs as a workload sees them: `capture(step)` runs `step` a few times to warm up,
/// records one more call, and returns what replays that recording. runner/ makes it with the
/// CUDA seam; the workload knows nothing of streams.
struct GraphCapture {
  std::function<std::function<void()>(const std::function<void()>& step)> capture;
};

/// A model and its data on one device, ready to train.
class Workload {
 public:
  virtual ~Workload() = default;
  /// A fresh model and optimiser, initialised from `seed` (the same on every device).
  virtual void reset(std::int64_t seed) = 0;
  /// One pass over the training set. Returns the mean loss as a tensor on the device: reading
  /// it forces a host sync, so the runner reads it only after the timed epochs.
  virtual torch::Tensor train_epoch(StepObserver* observer) = 0;
  torch::Tensor train_epoch() { return train_epoch(nullptr); }
  /// The test metric on the held-out split.
  virtual double evaluate() = 0;
  virtual const WorkloadFacts& facts() const = 0;
  /// A hash of the model's parameters (equal on every replica of a ddp cell); "" if none.
  virtual std::string parameters_digest() const { return ""; }
  /// The model's parameters, where they live (none before reset()).
  virtual std::vector<torch::Tensor> parameters() const { return {}; }
};

/// Builds the workload a cell names, on `device`, with data from `data_dir`, as one of
/// `replicas` when given (not owned; it must outlive the workload). A `dp` cell needs
/// `data_parallel`, a `graph` cell `graph`. Throws std::runtime_error for a malformed data file (a
/// missing one means synthetic data) or a fused kernel this LibTorch lacks, and
/// std::invalid_argument for a dp or graph cell without what it needs.
std::unique_ptr<Workload> make_workload(const Cell& cell, const torch::Device& device,
                                        const std::string& data_dir, Replicas* replicas = nullptr,
                                        DataParallelForward data_parallel = {},
                                        GraphCapture graph = {});

}  // namespace crossover
