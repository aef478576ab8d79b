#pragma once
// A grid's own models (workload "torchscript"), checked before anything runs, each in a child
// process: a file that crashes LibTorch's loader is a problem reported, not a crash.

#include <vector>

#include "core/cell.hpp"
#include "runner/grid.hpp"

namespace crossover {

/// One issue per distinct model setting (file, input_shape, classes, outputs) that is wrong,
/// at "experiments[N]" of the first cell that uses it; none when every model loads, trains and
/// takes its input_shape (workloads/user_model.hpp says what is checked).
std::vector<GridIssue> check_user_models(const std::vector<Cell>& cells);

}  // namespace crossover
