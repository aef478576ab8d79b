#pragma once
// The devices this machine offers, and synchronising one before a clock is read.

#include "core/cells/device.hpp"
#include "runner/grid/skip.hpp"

namespace crossover {

/// CUDA compiled in, and how many CUDA devices are visible.
DeviceInventory probe_devices();

/// Seconds the first use of `device` in this process took (CUDA context creation, allocator
/// set-up); measured on the first call per device, the same value returned afterwards.
double device_init_seconds(const Device& device);

/// Waits until all work queued on `device` has finished. A no-op on the CPU, whose operations
/// return when done.
void synchronize_device(const Device& device);

}  // namespace crossover
