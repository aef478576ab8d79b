#pragma once
// Runs cells one at a time and measures them. A cell that cannot run here becomes a `skipped`
// result, one that throws becomes `failed`; neither stops the sweep.

#include <functional>
#include <string>
#include <vector>

#include "runner/results.hpp"
#include "runner/skip.hpp"

namespace crossover {

/// Where a run reads its data.
struct RunOptions {
  std::string data_dir = "data";
};

/// Trains one runnable cell and measures it. Never throws: errors become status "failed".
///
/// Timing: per repeat, a fresh model (same seed), `warmup_epochs` untimed epochs, then
/// `epochs` epochs each timed on a steady clock with the device synchronised before every
/// clock read. Inside an epoch nothing syncs: the loss stays on the device and is read once,
/// after the last timed epoch.
Result run_cell(const Cell& cell, const RunOptions& options);

/// Called after each cell with its result, how many cells are done and how many there are.
using ResultCallback = std::function<void(const Result&, std::size_t done, std::size_t total)>;

/// Runs or skips every cell in order, calling `on_result` after each.
std::vector<Result> run_cells(const std::vector<Cell>& cells, const DeviceInventory& inventory,
                              const RunOptions& options, const ResultCallback& on_result);

}  // namespace crossover
