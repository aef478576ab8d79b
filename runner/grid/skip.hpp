#pragma once
// Which cells this machine cannot run, and why. Pure functions of a cell and an inventory of the
// machine's devices, so every rule is tested without the hardware it talks about.

#include <optional>
#include <string>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/text/words.hpp"

namespace crossover {

/// What the machine offers, as found by runner/hardware/devices.cpp.
struct DeviceInventory {
  bool cuda_compiled = false;  ///< this build of crossover and LibTorch has CUDA
  int cuda_devices = 0;        ///< CUDA devices visible at run time
  /// The fused optimiser kernels this LibTorch has, as "adam/cpu", "sgd/cuda", ...
  std::vector<std::string> fused_kernels;
};

/// True when `cell` is a CUDA cell and this machine has no such device (no CUDA in the build, no
/// device, or too few): what `run --predict` predicts instead.
bool device_missing(const Cell& cell, const DeviceInventory& inventory);

/// Why `cell` cannot run here, or nothing when it can.
std::optional<std::string> skip_reason(const Cell& cell, const DeviceInventory& inventory);

/// What a run does with a cell on this machine, decided once (plan_cell): the dry run prints it,
/// the executor follows it, the progress line costs it.
struct CellPlan {
  enum class Action { kRun, kPredict, kSkip };
  Action action = Action::kRun;
  std::string reason;  ///< why it is predicted or skipped; "" when it runs
};

inline constexpr auto words(CellPlan::Action) {
  return std::array{std::pair{CellPlan::Action::kRun, std::string_view("run")},
                    std::pair{CellPlan::Action::kPredict, std::string_view("predict")},
                    std::pair{CellPlan::Action::kSkip, std::string_view("skip")}};
}

/// The plan of `cell`: skipped with skip_reason's reason, unless `predict` (run --predict) and the
/// cell is a CUDA cell this machine lacks (device_missing), which is then predicted.
CellPlan plan_cell(const Cell& cell, const DeviceInventory& inventory, bool predict);

/// `run --predict`: the CUDA cells this machine lacks that differ only in a host_only key
/// (`threads`) are one prediction, made once: the cell at the keys' defaults is kept (else the
/// first), the others removed, in order, their indices kept. Returns how many were removed.
std::size_t fold_predicted_cells(std::vector<Cell>& cells, const DeviceInventory& inventory);

/// The words for `folded` such cells (`run` and `run --dry-run`).
std::string folded_cells_text(std::size_t folded);

}  // namespace crossover
