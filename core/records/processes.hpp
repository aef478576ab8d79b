#pragma once
// A cell measured in several processes (the `processes` key): each child process measures its
// share of the repeats, and their results become one, which keeps each process's median — the
// samples of the variation between processes that `compare` needs and one process cannot show.

#include <vector>

#include "core/cells/cell.hpp"
#include "core/records/results.hpp"

namespace crossover {

/// The cell each of `cell.processes` processes measures: its share of min_repeats, max_repeats
/// and the time budget (at least one repeat), `processes` 1.
Cell process_share(const Cell& cell);

/// One result from the results of the cell's processes, in the order they ran: the samples
/// concatenated and their statistics recomputed, start-up times the median of the processes',
/// peaks the largest, and each process's median epoch and step kept (`process_epoch_seconds`,
/// `process_step_seconds`). A process that did not end ok decides the result: its status, with
/// "process K of N: " before its reason. `parts` must not be empty.
Result merge_processes(const Cell& cell, const std::vector<Result>& parts);

}  // namespace crossover
