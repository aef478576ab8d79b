#pragma once
// The optimiser step of a training loop, in three implementations (the optimizer_impl key):
// LibTorch's torch::optim, one parameter at a time ("loop"); ATen's multi-tensor _foreach_*
// operators, a few calls for every parameter together ("foreach", PyTorch 2.x's default on CUDA);
// every parameter and gradient as a view of one flat tensor, a few calls in all ("flat"); and
// ATen's fused kernels, one call in all ("fused", workloads/training/fused_optimizer.hpp).

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/cells/modes.hpp"
#include "workloads/training/step_optimizer.hpp"

namespace crossover {

/// LibTorch's optimiser (SGD or Adam) over `parameters`.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(Optimizer optimizer,
                                                        std::vector<torch::Tensor> parameters,
                                                        double lr, double momentum);

/// Adam (LibTorch's defaults: betas 0.9 and 0.999, eps 1e-8, no weight decay) or SGD (with
/// `momentum`, no dampening) over `parameters` with ATen's _foreach_* operators: the same updates
/// as torch::optim::Adam and torch::optim::SGD, within float rounding, in a handful of operator
/// calls per step for all parameters instead of about ten per parameter. The step count lives on
/// the host, as in PyTorch's default (not capturable) foreach path, so a step cannot be captured
/// in a CUDA graph.
class ForeachOptimizer : public StepOptimizer {
 public:
  ForeachOptimizer(Optimizer optimizer, std::vector<torch::Tensor> parameters, double lr,
                   double momentum);
  void zero_grad() override;
  void step() override;
  void reset_state() override;

 private:
  void adam_step(const std::vector<std::size_t>& moving);
  void sgd_step(const std::vector<std::size_t>& moving);

  Optimizer optimizer_;
  std::vector<torch::Tensor> parameters_;
  double lr_;
  double momentum_;
  std::vector<torch::Tensor> exp_avgs_, exp_avg_sqs_;  ///< adam, one per parameter
  std::vector<std::int64_t> steps_;                    ///< adam: updates of each parameter
  std::vector<torch::Tensor> momentum_buffers_;  ///< sgd with momentum; undefined until the first
};

/// Adam or SGD as ForeachOptimizer's, on parameters, gradients and moments laid out in one flat
/// tensor each: the constructor moves every parameter's data into a view of one buffer and gives it
/// a gradient that is a view of another, which backward accumulates into in place. A step is then
/// a handful of operator calls on whole buffers, however many parameters the model has (the layout
/// of apex's and DeepSpeed's flat optimisers). zero_grad() zeroes the gradient buffer rather than
/// dropping the gradients, so every parameter steps on every step (with a zero gradient where
/// backward reached none), as torch::optim 1.x's zero_grad() and PyTorch's set_to_none=False do.
/// Throws std::runtime_error unless every parameter shares one dtype and device.
class FlatOptimizer : public StepOptimizer {
 public:
  /// Throws std::invalid_argument for an unknown optimizer.
  FlatOptimizer(Optimizer optimizer, std::vector<torch::Tensor> parameters, double lr,
                double momentum);
  void zero_grad() override;
  void step() override;
  void reset_state() override;

  /// The buffers the parameters and their gradients are views of (for tests).
  const torch::Tensor& parameter_buffer() const { return params_; }
  const torch::Tensor& gradient_buffer() const { return grads_; }

 private:
  Optimizer optimizer_;
  double lr_;
  double momentum_;
  torch::Tensor params_, grads_;        ///< every parameter's data and gradient, flat
  torch::Tensor exp_avg_, exp_avg_sq_;  ///< adam
  torch::Tensor momentum_buffer_;       ///< sgd with momentum; undefined until the first step
  std::int64_t steps_ = 0;
};

/// The optimiser `impl` names: loop, foreach, flat or fused (which throws std::runtime_error where
/// this LibTorch lacks the kernel for the parameters' device).
std::unique_ptr<StepOptimizer> make_step_optimizer(OptimizerImpl impl, Optimizer optimizer,
                                                   std::vector<torch::Tensor> parameters, double lr,
                                                   double momentum);

}  // namespace crossover
