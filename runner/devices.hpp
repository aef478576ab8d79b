#pragma once
// The devices this machine offers, and synchronising one before a clock is read.

#include <string>

#include "runner/skip.hpp"

namespace crossover {

/// CUDA compiled in, and how many CUDA devices are visible.
DeviceInventory probe_devices();

/// Waits until all work queued on `device` ("cpu", "cuda", "cuda:N") has finished.
/// A no-op on the CPU, whose operations return when done.
void synchronize_device(const std::string& device);

}  // namespace crossover
