#include "runner/devices.hpp"

#include <torch/cuda.h>

#include "runner/cuda_seam.hpp"

namespace crossover {

DeviceInventory probe_devices() {
  DeviceInventory inventory;
  inventory.cuda_compiled = cuda_seam::compiled();
  inventory.cuda_devices =
      inventory.cuda_compiled ? static_cast<int>(torch::cuda::device_count()) : 0;
  return inventory;
}

void synchronize_device(const std::string& device) {
  if (!is_cuda_device(device)) return;
  const auto colon = device.find(':');
  cuda_seam::synchronize(colon == std::string::npos ? 0 : std::stoi(device.substr(colon + 1)));
}

}  // namespace crossover
