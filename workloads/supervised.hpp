#pragma once
// The supervised workload every seed experiment is: a model, a loss, an optimiser and a batch
// source on one device. Workloads differ only in their model, data and settings.

#include <functional>

#include "workloads/batches.hpp"
#include "workloads/workload.hpp"

namespace crossover {

/// How to train: the loss ("cross_entropy" or "mse") and the optimiser.
struct TrainingSpec {
  std::string loss = "cross_entropy";
  std::string optimizer = "adam";
  double lr = 0.01;
  double momentum = 0.0;
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

 private:
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& target) const;
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
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

/// An optimiser by name ("sgd" or "adam") over `parameters`.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::string& name,
                                                        std::vector<torch::Tensor> parameters,
                                                        double lr, double momentum);

}  // namespace crossover
