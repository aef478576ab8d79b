#include "runner/skip.hpp"

#include <algorithm>

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
  } else if (cell.execution == "graph") {
    return "execution \"graph\" captures the step in a CUDA graph; the CPU has none (use "
           "\"eager\")";
  } else if (cell.precision == "tf32") {
    return "precision \"tf32\" is a CUDA tensor-core format; on the CPU use \"fp32\" or "
           "\"bf16\"";
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
  if (cell.execution == "graph" && cell.parallel != "none") {
    return "execution \"graph\" captures one process's step on one GPU; parallel \"" +
           cell.parallel + "\" cells run \"eager\"";
  }
  if (cell.execution == "graph" && cell.timing == "phases") {
    return "timing \"phases\" synchronises between the phases of a step, and a replayed graph "
           "has none; use \"end_to_end\"";
  }
  if (cell.precision == "bf16" && cell.parallel == "dp") {
    return "precision \"bf16\" autocasts one thread, and LibTorch's C++ DataParallel runs its "
           "replicas on threads of its own; use parallel \"ddp\"";
  }
  if (cell.optimizer_impl == "fused") {
    const std::string where = is_cuda_device(cell.device) ? "cuda" : "cpu";
    const auto& kernels = inventory.fused_kernels;
    if (std::find(kernels.begin(), kernels.end(), cell.optimizer + "/" + where) == kernels.end()) {
      return "optimizer_impl \"fused\" needs aten::_fused_" + cell.optimizer + "_ for " +
             (where == "cuda" ? "CUDA" : "the CPU") +
             ", which this LibTorch lacks (newer LibTorch 2.x releases have it; use \"loop\")";
    }
  }
  return std::nullopt;
}

}  // namespace crossover
