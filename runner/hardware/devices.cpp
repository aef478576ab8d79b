#include "runner/hardware/devices.hpp"

#include <torch/cuda.h>

#include <chrono>
#include <map>
#include <mutex>

#include "runner/hardware/cuda_seam.hpp"
#include "workloads/training/fused_optimizer.hpp"

namespace crossover {

DeviceInventory probe_devices() {
  DeviceInventory inventory;
  inventory.cuda_compiled = cuda_seam::compiled();
  inventory.cuda_devices =
      inventory.cuda_compiled ? static_cast<int>(torch::cuda::device_count()) : 0;
  for (const Optimizer optimizer : {Optimizer::kAdam, Optimizer::kSgd}) {
    if (fused_kernel_available(optimizer, torch::kCPU))
      inventory.fused_kernels.push_back(text_of(optimizer) + "/cpu");
    if (inventory.cuda_compiled && fused_kernel_available(optimizer, torch::kCUDA))
      inventory.fused_kernels.push_back(text_of(optimizer) + "/cuda");
  }
  return inventory;
}

double device_init_seconds(const Device& device) {
  static std::map<Device, double> measured;
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  const Device key = device.is_cuda() ? Device::cuda(device.cuda_index()) : Device::cpu();
  auto it = measured.find(key);
  if (it == measured.end()) {
    const auto start = std::chrono::steady_clock::now();
    const torch::Tensor touch = torch::ones({1}, torch::TensorOptions().device(key.text()));
    synchronize_device(key);
    it = measured
             .emplace(
                 key,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count())
             .first;
  }
  return it->second;
}

void synchronize_device(const Device& device) {
  if (!device.is_cuda()) return;
  cuda_seam::synchronize(device.cuda_index());
}

}  // namespace crossover
