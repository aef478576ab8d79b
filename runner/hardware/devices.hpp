#pragma once
// The devices this machine offers, and synchronising one before a clock is read.

#include <string>

#include "runner/grid/skip.hpp"

namespace crossover {

/// CUDA compiled in, and how many CUDA devices are visible.
DeviceInventory probe_devices();

/// The CUDA device index of "cuda" (0) or "cuda:N"; -1 for the CPU.
int cuda_index(const std::string& device);

/// Seconds the first use of `device` in this process took (CUDA context creation, allocator
/// set-up); measured on the first call per device, the same value returned afterwards.
double device_init_seconds(const std::string& device);

/// Waits until all work queued on `device` ("cpu", "cuda", "cuda:N") has finished.
/// A no-op on the CPU, whose operations return when done.
void synchronize_device(const std::string& device);

}  // namespace crossover
