#include "workloads/training/precision.hpp"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

// LibTorch 2.4 made autocast's switches take the device type; 1.13 named one per device.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define CROSSOVER_AUTOCAST_BY_DEVICE 1
#endif

namespace crossover {
namespace {

bool autocast_enabled(torch::DeviceType device) {
#ifdef CROSSOVER_AUTOCAST_BY_DEVICE
  return at::autocast::is_autocast_enabled(device);
#else
  return device == torch::kCUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

void set_autocast_enabled(torch::DeviceType device, bool enabled) {
#ifdef CROSSOVER_AUTOCAST_BY_DEVICE
  at::autocast::set_autocast_enabled(device, enabled);
#else
  if (device == torch::kCUDA) {
    at::autocast::set_enabled(enabled);
  } else {
    at::autocast::set_cpu_enabled(enabled);
  }
#endif
}

torch::ScalarType autocast_dtype(torch::DeviceType device) {
#ifdef CROSSOVER_AUTOCAST_BY_DEVICE
  return at::autocast::get_autocast_dtype(device);
#else
  return device == torch::kCUDA ? at::autocast::get_autocast_gpu_dtype()
                                : at::autocast::get_autocast_cpu_dtype();
#endif
}

void set_autocast_dtype(torch::DeviceType device, torch::ScalarType dtype) {
#ifdef CROSSOVER_AUTOCAST_BY_DEVICE
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == torch::kCUDA) {
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
#endif
}

}  // namespace

Tf32Scope::Tf32Scope(bool enabled)
    : active_(enabled),
      cublas_(at::globalContext().allowTF32CuBLAS()),
      cudnn_(at::globalContext().allowTF32CuDNN()) {
  if (!active_) return;
  at::globalContext().setAllowTF32CuBLAS(true);
  at::globalContext().setAllowTF32CuDNN(true);
}

Tf32Scope::~Tf32Scope() {
  if (!active_) return;
  at::globalContext().setAllowTF32CuBLAS(cublas_);
  at::globalContext().setAllowTF32CuDNN(cudnn_);
}

AutocastScope::AutocastScope(bool enabled, torch::DeviceType device)
    : active_(enabled), device_(device == torch::kCUDA ? torch::kCUDA : torch::kCPU) {
  if (!active_) return;
  was_enabled_ = autocast_enabled(device_);
  old_dtype_ = autocast_dtype(device_);
  cache_was_enabled_ = at::autocast::is_autocast_cache_enabled();
  at::autocast::set_autocast_cache_enabled(false);
  set_autocast_dtype(device_, torch::kBFloat16);
  set_autocast_enabled(device_, true);
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  set_autocast_enabled(device_, was_enabled_);
  set_autocast_dtype(device_, old_dtype_);
  at::autocast::set_autocast_cache_enabled(cache_was_enabled_);
  at::autocast::clear_cache();
}

}  // namespace crossover
