#include "runner/skip.hpp"

namespace crossover {

std::optional<std::string> skip_reason(const Cell& cell, const DeviceInventory& inventory) {
  if (is_cuda_device(cell.device)) {
    if (!inventory.cuda_compiled) {
      return "no CUDA: this crossover was built against a LibTorch without CUDA (rebuild against "
             "a CUDA LibTorch, see README)";
    }
    if (inventory.cuda_devices == 0) return "no CUDA device found on this machine";
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
  } else if (cell.parallel == "dp") {
    return "dp replicates the model over CUDA devices; on the CPU use parallel \"ddp\" (Gloo)";
  } else if (cell.pin_memory) {
    return "pin_memory needs CUDA: pinned host memory only speeds up copies to a CUDA device";
  }
  if (cell.num_workers > 0 && cell.loader != "dataloader") {
    return "num_workers > 0 needs loader \"dataloader\"; the tensor loader cuts batches from one "
           "tensor and has no workers";
  }
  if (cell.pin_memory && cell.loader == "tensor" && cell.data_placement == "device") {
    return "pin_memory stages host batches, but with loader \"tensor\" on the device there are "
           "none "
           "(use data_placement \"host\" or loader \"dataloader\")";
  }
  return std::nullopt;
}

}  // namespace crossover
