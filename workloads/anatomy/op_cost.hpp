#pragma once
// What operators cost, as the dispatcher sees them: the FLOPs of matrix products and convolutions
// from their inputs' shapes, the bytes of the tensors each reads and writes, the bytes copied
// from the host to a device. Every use of at::RecordFunction is here, in a unit compiled as
// LibTorch's release builds are (NDEBUG, see CMakeLists.txt), so that the rest of the code needs
// none of its inline members.

#include <ATen/core/ivalue.h>
#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/costmodel/step_anatomy.hpp"

namespace crossover {

/// The FLOPs of one call of operator `name` (2 m n k for a matrix product, 2 x output positions x
/// weight elements for a convolution) from its inputs; 0 for any other operator.
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
