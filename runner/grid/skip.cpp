#include "runner/grid/skip.hpp"

#include <algorithm>
#include <map>

#include "core/cells/keys.hpp"

namespace crossover {

bool device_missing(const Cell& cell, const DeviceInventory& inventory) {
  if (!cell.device.is_cuda()) return false;
  const int index = cell.device.cuda_index();
  return !inventory.cuda_compiled || index + cell.gpus > inventory.cuda_devices;
}

Found skip_reason(const Cell& cell, const DeviceInventory& inventory) {
  if (cell.device.is_cuda()) {
    if (!inventory.cuda_compiled) {
      return Problem(
          "no CUDA: this crossover was built against a LibTorch without CUDA (rebuild against "
          "a CUDA LibTorch: docs/gpu.md#building-against-cuda-libtorch; or predict them: "
          "--predict cuda=h100)");
    }
    if (inventory.cuda_devices == 0)
      return Problem(
          "no CUDA device found on this machine (or predict them: --predict "
          "cuda=h100)");
    const int index = cell.device.cuda_index();
    if (index >= inventory.cuda_devices) {
      return Problem(cell.device.text() + " not present: this machine has " +
                     std::to_string(inventory.cuda_devices) + " CUDA device(s)");
    }
    if (index + cell.gpus > inventory.cuda_devices) {
      return Problem("gpus=" + std::to_string(cell.gpus) + " from " + cell.device.text() +
                     " needs more devices than the " + std::to_string(inventory.cuda_devices) +
                     " present");
    }
  }
  // What no machine can run: each key's own rule (core/cells/keys.cpp).
  if (Found reason = key_skip_reason(cell)) return reason;
  if (cell.optimizer_impl == OptimizerImpl::kFused) {
    const std::string where = text_of(cell.device.kind);
    const auto& kernels = inventory.fused_kernels;
    if (std::find(kernels.begin(), kernels.end(), text_of(cell.optimizer) + "/" + where) ==
        kernels.end()) {
      return Problem(
          "optimizer_impl \"fused\" needs aten::_fused_" + text_of(cell.optimizer) + "_ for " +
          (cell.device.is_cuda() ? "CUDA" : "the CPU") +
          ", which this LibTorch lacks (newer LibTorch 2.x releases have it; use \"foreach\" or "
          "\"loop\"; "
          "docs/grids.md#execution-modes)");
    }
  }
  return std::nullopt;
}

CellPlan plan_cell(const Cell& cell, const DeviceInventory& inventory, bool predict) {
  Found reason = skip_reason(cell, inventory);
  if (!reason) return {};
  if (predict && device_missing(cell, inventory))
    return {CellPlan::Action::kPredict, "no CUDA here"};
  return {CellPlan::Action::kSkip, std::move(reason->text)};
}

std::vector<PlannedCell> plan_cells(const std::vector<Cell>& cells,
                                    const DeviceInventory& inventory, bool predict) {
  std::vector<PlannedCell> planned;
  for (const Cell& cell : cells) planned.push_back({cell, plan_cell(cell, inventory, predict)});
  return planned;
}

void plan_expansion(Expansion& expansion, const DeviceInventory& inventory, bool predict) {
  expansion.plans.clear();
  for (const Cell& cell : expansion.cells)
    expansion.plans.push_back(plan_cell(cell, inventory, predict));
  for (SearchLine& line : expansion.searches) {
    line.baseline_plan = plan_cell(line.baseline, inventory, predict);
    line.contender_plan = plan_cell(line.contender, inventory, predict);
  }
}

std::size_t fold_predicted_cells(std::vector<Cell>& cells, const DeviceInventory& inventory) {
  // Of each prediction, the cell kept: the first at the host keys' defaults, else the first.
  std::map<std::string, std::size_t> kept;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (!device_missing(cells[i], inventory)) continue;
    const auto [it, fresh] = kept.emplace(predicted_identity(cells[i]).dump(), i);
    if (!fresh && !host_keys_at_defaults(cells[it->second]) && host_keys_at_defaults(cells[i]))
      it->second = i;
  }
  std::vector<Cell> out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto it = device_missing(cells[i], inventory)
                        ? kept.find(predicted_identity(cells[i]).dump())
                        : kept.end();
    if (it == kept.end() || it->second == i) out.push_back(std::move(cells[i]));
  }
  const std::size_t folded = cells.size() - out.size();
  cells = std::move(out);
  return folded;
}

std::string folded_cells_text(std::size_t folded) {
  static const Cell defaults;
  std::string names, values;
  for (const auto& key : grid_keys()) {
    if (!key.host_only || !key.get) continue;
    names += (names.empty() ? "" : " or ") + key.name;
    values += (values.empty() ? "" : ", ") + key.name + " " + key.get(defaults).dump();
  }
  return std::to_string(folded) + " CUDA cell(s) not predicted twice: " + names +
         " changes only the CPU's work, so a predicted GPU takes the same time at every value; "
         "each CUDA cell is predicted once (at " +
         values + " where the grid has it) and compared with the CPU cell of every value";
}

}  // namespace crossover
