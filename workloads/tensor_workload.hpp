#pragma once
// A supervised workload whose whole data set lives in one tensor on the device: each step
// slices a batch out of it, so there is no loader and no host-to-device copy in the loop.

#include <functional>

#include "workloads/workload.hpp"

namespace crossover {

/// Training and test tensors. Classification targets are int64 class indices of shape [N];
/// regression targets are float of shape [N, 1], the model's output shape.
struct TensorData {
  torch::Tensor x_train, y_train, x_test, y_test;
  std::string data_source;  ///< "real" or "synthetic"
};

/// How to train: the loss ("cross_entropy" or "mse"), the optimiser and the batch size.
struct TrainingSpec {
  std::string loss = "cross_entropy";
  std::string optimizer = "adam";
  double lr = 0.01;
  double momentum = 0.0;
  std::int64_t batch_size = -1;  ///< kFull: the whole training set in each step
};

/// Data in one tensor on the device, a model built by `make_model`, and the spec.
class TensorWorkload : public Workload {
 public:
  using ModelFactory = std::function<torch::nn::AnyModule()>;
  TensorWorkload(TensorData data, ModelFactory make_model, TrainingSpec spec, torch::Device device);

  void reset(std::int64_t seed) override;
  torch::Tensor train_epoch() override;
  double evaluate() override;
  const WorkloadFacts& facts() const override { return facts_; }

 private:
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& target) const;

  TensorData data_;
  ModelFactory make_model_;
  TrainingSpec spec_;
  torch::Device device_;
  std::int64_t batch_size_ = 0;
  WorkloadFacts facts_;
  torch::nn::AnyModule model_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

/// An optimiser by name ("sgd" or "adam") over `parameters`.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::string& name,
                                                        std::vector<torch::Tensor> parameters,
                                                        double lr, double momentum);

}  // namespace crossover
