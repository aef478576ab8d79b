#pragma once
// What operators cost, as the dispatcher sees them: the FLOPs of matrix products and convolutions
// (forward and backward) and of the optimiser's updates from their inputs' shapes, the bytes of
// the tensors each reads and writes, the bytes copied from the host to a device. Every use of
// at::RecordFunction is here, in a unit compiled as LibTorch's release builds are (NDEBUG, see
// CMakeLists.txt), so that the rest of the code needs none of its inline members.

#include <ATen/core/ivalue.h>
#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/costmodel/step_anatomy.hpp"

namespace crossover {

/// What one call of an operator computes: its FLOPs and what arithmetic they are.
struct OperatorCost {
  double flops = 0.0;
  Math math = Math::kNone;
};

/// The cost of one call of operator `name` in `phase` from its inputs: 2 m n k for a matrix
/// product; 2 x output positions x weight elements for a convolution, and that again for each
/// gradient a convolution_backward computes (input, weight); in the optimiser's phase, an
/// element-wise update's arithmetic per element (add, mul, addcmul, sqrt ..., their _foreach_
/// forms too) times its elements. Nothing for any other operator.
OperatorCost operator_cost(const std::string& name, c10::ArrayRef<const c10::IValue> inputs,
                           Phase phase);

/// The FLOPs of a forward-phase call (operator_cost's).
double operator_flops(const std::string& name, c10::ArrayRef<const c10::IValue> inputs);

/// Records the top-level operators dispatched while it lives, into a StepAnatomy: each with its
/// FLOPs (operator_flops) and its bytes (every tensor among its inputs and outputs), grouped by
/// the phase set last. Only the outermost operator of a nest counts (linear, not the addmm it
/// calls). Operators of the recording thread count in every phase; those of other threads only
/// in the backward phase (where a CUDA device's autograd thread runs them), so that a DataLoader's
/// workers do not. One recorder at a time in a process.
class OperatorRecorder {
 public:
  OperatorRecorder();
  ~OperatorRecorder();
  OperatorRecorder(const OperatorRecorder&) = delete;
  OperatorRecorder& operator=(const OperatorRecorder&) = delete;

  /// Operators from now on belong to `phase`.
  void set_phase(Phase phase);
  /// Starts or stops recording (the callback stays installed).
  void enable(bool on);
  /// What was recorded.
  StepAnatomy anatomy() const;

 private:
  std::uint64_t handle_ = 0;
};

}  // namespace crossover
