#pragma once
// The `precision` of a cell, applied for a scope and undone after it: TF32 is a switch of
// LibTorch's global context, autocast a thread-local dispatch setting. Both are restored, so one
// cell's precision never leaks into the next cell of the same process.

#include <torch/torch.h>

#include <string>

namespace crossover {

/// TF32 matrix products (cuBLAS) and convolutions (cuDNN) on or off for the scope's lifetime.
class Tf32Scope {
 public:
  explicit Tf32Scope(bool enabled);
  ~Tf32Scope();
  Tf32Scope(const Tf32Scope&) = delete;
  Tf32Scope& operator=(const Tf32Scope&) = delete;

 private:
  bool active_, cublas_, cudnn_;
};

/// Autocast to bfloat16 for ops on `device` while the scope lives, as torch.autocast does: for a
/// step's forward pass and loss, never its backward. The cast cache is off, so a step captured
/// in a CUDA graph holds no cast of weights the optimiser has since changed.
class AutocastScope {
 public:
  AutocastScope(bool enabled, torch::DeviceType device);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_;
  torch::DeviceType device_;
  bool was_enabled_ = false, cache_was_enabled_ = false;
  torch::ScalarType old_dtype_ = torch::kBFloat16;
};

}  // namespace crossover
