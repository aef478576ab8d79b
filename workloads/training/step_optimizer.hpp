#pragma once
// What a training step asks of its optimiser, whichever implementation updates the parameters
// (optimizers.hpp: LibTorch's, foreach, flat; fused_optimizer.hpp: ATen's fused kernels).

namespace crossover {

/// What a training step asks of its optimiser.
class StepOptimizer {
 public:
  virtual ~StepOptimizer() = default;
  /// Sets every gradient to none: the next backward writes fresh ones.
  virtual void zero_grad() = 0;
  /// One update of every parameter that has a gradient.
  virtual void step() = 0;
  /// Back to the state of a fresh optimiser (moments, step counts, momentum buffers).
  virtual void reset_state() = 0;
};

}  // namespace crossover
