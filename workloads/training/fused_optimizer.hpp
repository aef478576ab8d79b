#pragma once
// ATen's multi-tensor fused optimiser kernels (aten::_fused_adam_, aten::_fused_sgd_): one launch
// updates every parameter, where LibTorch's torch::optim launches about ten kernels per
// parameter. The step counts live on the device, so a step can be captured in a CUDA graph.
// Called through the dispatcher by argument name, so this compiles against every LibTorch,
// whether or not it declares the kernels in C++; fused_kernel_available() says which it has.

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "core/cells/modes.hpp"
#include "workloads/training/step_optimizer.hpp"

namespace crossover {

/// Calls ATen operator `name` (overload "") through the dispatcher with `arguments` by name; an
/// argument left out takes the schema's default. Boxed, so that a LibTorch whose C++ API lacks the
/// operator still compiles the call. Throws std::runtime_error for an operator this LibTorch does
/// not have or a required argument not given.
void call_aten_by_name(const std::string& name,
                       const std::map<std::string, c10::IValue>& arguments);

/// Whether this LibTorch has the fused kernel of `optimizer` for `device`.
bool fused_kernel_available(Optimizer optimizer, torch::DeviceType device);

/// Adam (LibTorch's defaults: betas 0.9 and 0.999, eps 1e-8, no weight decay) or SGD (with
/// `momentum`, no dampening) over `parameters`, one fused kernel per step. The same updates as
/// torch::optim::Adam and torch::optim::SGD, within float rounding.
class FusedOptimizer : public StepOptimizer {
 public:
  /// Throws std::runtime_error naming the kernel where this LibTorch lacks it for the
  /// parameters' device.
  FusedOptimizer(Optimizer optimizer, std::vector<torch::Tensor> parameters, double lr,
                 double momentum);
  /// Sets every gradient to none: the next backward writes fresh ones (as a captured step must).
  void zero_grad() override;
  /// One update of every parameter that has a gradient.
  void step() override;
  /// Sets the state (moments, step counts, momentum buffers) back to that of a fresh optimiser,
  /// in place: a captured step keeps pointing at it.
  void reset_state() override;

 private:
  Optimizer optimizer_;
  std::string kernel_;  ///< "aten::_fused_adam_" or "aten::_fused_sgd_"
  std::vector<torch::Tensor> parameters_;
  double lr_;
  double momentum_;
  std::vector<torch::Tensor> exp_avgs_, exp_avg_sqs_, steps_;  ///< adam
  std::vector<torch::Tensor> momentum_buffers_;                ///< sgd with momentum
  std::map<std::string, c10::IValue> arguments_;  ///< the kernel's, by name; lists set per step
};

}  // namespace crossover
