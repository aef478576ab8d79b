#pragma once
// Which cells this machine cannot run, and why. Pure functions of a cell and an inventory of the
// machine's devices, so every rule is tested without the hardware it talks about.

#include <optional>
#include <string>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/text/problem.hpp"
#include "runner/grid/cell_plan.hpp"
#include "runner/grid/grid.hpp"

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
Found skip_reason(const Cell& cell, const DeviceInventory& inventory);

/// The plan of `cell` (runner/grid/cell_plan.hpp): skipped with skip_reason's reason, unless
/// `predict` (run --predict) and the cell is a CUDA cell this machine lacks (device_missing),
/// which is then predicted.
CellPlan plan_cell(const Cell& cell, const DeviceInventory& inventory, bool predict);

/// Each of `cells` with its plan (plan_cell), in order: a search's probes as they are made.
std::vector<PlannedCell> plan_cells(const std::vector<Cell>& cells,
                                    const DeviceInventory& inventory, bool predict);

/// Decides once what this run does with each cell of `expansion` and with each search's
/// templates: `plans` and each line's plans filled (plan_cell). The run command calls it after
/// the cells are folded; the dry run and the sweep read what it decided.
void plan_expansion(Expansion& expansion, const DeviceInventory& inventory, bool predict);

/// `run --predict`: the CUDA cells this machine lacks that differ only in a host_only key
/// (`threads`) are one prediction, made once: the cell at the keys' defaults is kept (else the
/// first), the others removed, in order, their indices kept. Returns how many were removed.
std::size_t fold_predicted_cells(std::vector<Cell>& cells, const DeviceInventory& inventory);

/// The words for `folded` such cells (`run` and `run --dry-run`).
std::string folded_cells_text(std::size_t folded);

}  // namespace crossover
