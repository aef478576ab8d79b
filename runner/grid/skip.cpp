#include "runner/grid/skip.hpp"

#include <algorithm>

namespace crossover {

bool device_missing(const Cell& cell, const DeviceInventory& inventory) {
  if (!is_cuda_device(cell.device)) return false;
  const auto colon = cell.device.find(':');
  const int index = colon == std::string::npos ? 0 : std::stoi(cell.device.substr(colon + 1));
  return !inventory.cuda_compiled || index + cell.gpus > inventory.cuda_devices;
}

std::optional<std::string> skip_reason(const Cell& cell, const DeviceInventory& inventory) {
  if (is_cuda_device(cell.device)) {
    if (!inventory.cuda_compiled) {
      return "no CUDA: this crossover was built against a LibTorch without CUDA (rebuild against "
             "a CUDA LibTorch: docs/gpu.md#building-against-cuda-libtorch; or predict them: "
             "--predict cuda=profiles/h100-80gb.json)";
    }
    if (inventory.cuda_devices == 0)
      return "no CUDA device found on this machine (or predict them: --predict "
             "cuda=profiles/h100-80gb.json)";
    const auto colon = cell.device.find(':');
    const int index = colon == std::string::npos ? 0 : std::stoi(cell.device.substr(colon + 1));
    if (index >= inventory.cuda_devices) {
      return cell.device + " not present: this machine has " +
             std::to_string(inventory.cuda_devices) + " CUDA device(s)";
    }
    if (index + cell.gpus > inventory.cuda_devices) {
      return "gpus=" + std::to_string(cell.gpus) + " from " + cell.device +
             " needs more devices than the " + std::to_string(inventory.cuda_devices) + " present";
    }
  }
  // What no machine can run: each key's own rule (core/cells/keys.cpp).
  if (std::string reason = key_skip_reason(cell); !reason.empty()) return reason;
  if (cell.optimizer_impl == OptimizerImpl::kFused) {
    const std::string where = is_cuda_device(cell.device) ? "cuda" : "cpu";
    const auto& kernels = inventory.fused_kernels;
    if (std::find(kernels.begin(), kernels.end(), cell.optimizer + "/" + where) == kernels.end()) {
      return "optimizer_impl \"fused\" needs aten::_fused_" + cell.optimizer + "_ for " +
             (where == "cuda" ? "CUDA" : "the CPU") +
             ", which this LibTorch lacks (newer LibTorch 2.x releases have it; use \"foreach\" or "
             "\"loop\"; "
             "docs/grids.md#execution-modes)";
    }
  }
  return std::nullopt;
}

}  // namespace crossover
