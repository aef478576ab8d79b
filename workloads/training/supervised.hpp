#pragma once
// The supervised workload every seed experiment is: a model, a loss, an optimiser and a batch
// source on one device. Workloads differ only in their model, data and settings.

#include <functional>

#include "workloads/data/batches.hpp"
#include "workloads/data/catalog.hpp"
#include "workloads/training/optimizers.hpp"
#include "workloads/training/workload.hpp"

namespace crossover {

/// How to train: the task (its loss and test metric), the optimiser, and how the step runs.
struct TrainingSpec {
  Task task = Task::kClassification;
  Optimizer optimizer = Optimizer::kAdam;
  double lr = 0.01;
  double momentum = 0.0;
  OptimizerImpl optimizer_impl = OptimizerImpl::kLoop;
  Precision precision = Precision::kFp32;
  /// The FLOPs per sample are estimated from the operators run (a user's model), not counted
  /// from the architecture.
  bool flops_estimated = false;
  /// Graph execution: every step is a replay of one captured step (empty: eager).
  GraphCapture graph;
  /// dp: the replicated forward pass (empty: no DataParallel). The model itself lives on the
  /// workload's device.
  DataParallelForward data_parallel;
};

/// A model built by `make_model`, trained on `data` through the data path `path`.
class SupervisedWorkload : public Workload {
 public:
  using ModelFactory = std::function<torch::nn::AnyModule()>;
  /// With `replicas` (not owned), each step trains on this replica's slice of the global batch
  /// and averages gradients over the replicas before the optimiser step.
  SupervisedWorkload(TensorData data, ModelFactory make_model, TrainingSpec spec, DataPath path,
                     torch::Device device, double flops_per_sample, Replicas* replicas = nullptr);

  void reset(std::int64_t seed) override;
  using Workload::train_epoch;
  torch::Tensor train_epoch(StepObserver* observer) override;
  double evaluate() override;
  const WorkloadFacts& facts() const override { return facts_; }
  std::string parameters_digest() const override;
  std::vector<torch::Tensor> parameters() const override;

 private:
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& target) const;
  // The loss of a batch through the model (or dp's replicated forward), under the autocast of
  // the cell's precision.
  torch::Tensor forward_loss(const torch::Tensor& x, const torch::Tensor& y);
  void zero_grads();
  void optimizer_step();
  // Graph execution: captures the step for each batch size an epoch has (the full batch and a
  // shorter last one), then puts the fresh model's weights and optimiser state back.
  void capture_steps();
  torch::Tensor train_epoch_graph(StepObserver* observer);
  // Sums every parameter's gradient over the replicas in one bucket and divides by their number.
  void average_gradients();

  ModelFactory make_model_;
  TrainingSpec spec_;
  torch::Device device_;
  std::unique_ptr<BatchSource> batches_;
  torch::Tensor x_test_, y_test_;
  WorkloadFacts facts_;
  Replicas* replicas_ = nullptr;
  std::vector<torch::Tensor> gradient_bucket_;  ///< ddp: every gradient, flat, for one all-reduce
  torch::nn::AnyModule model_;
  torch::nn::Sequential data_parallel_{nullptr};  ///< dp: model_ wrapped for replication
  std::unique_ptr<StepOptimizer> optimizer_;      ///< as optimizer_impl says
  bool channels_last_ = false;  ///< bf16 with images: inputs and 4-D weights channels-last
  std::int64_t batch_rows_ = 0, last_rows_ = 0;  ///< an epoch's full batch and its remainder
  // A captured step reads its batch from static tensors: data on the device is gathered into them,
  // any other batch copied in.
  struct CapturedStep {
    torch::Tensor x, y;
    std::function<void()> replay;
  };
  std::vector<CapturedStep> graphs_;  ///< graph execution: one per batch size
  torch::Tensor graph_total_;         ///< graph execution: the epoch's loss sum, on the device
};

}  // namespace crossover
