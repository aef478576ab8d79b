#pragma once
// A grid's own models (workload "torchscript"), checked before anything runs, each in a child
// process: a file that crashes LibTorch's loader is a problem reported, not a crash.

#include <functional>
#include <string>
#include <vector>

#include "core/cell.hpp"
#include "runner/grid.hpp"

namespace crossover {

/// What check_user_models asks of each model, in the child: "" or the problem.
using ModelCheck = std::function<std::string(const Cell&)>;

/// One issue per distinct model setting (file, input_shape, classes, outputs) that is wrong,
/// at "experiments[N]" of the first cell that uses it; none when every model loads, trains and
/// takes its input_shape (`check`, by default user_model_problem of workloads/user_model.hpp).
/// A check that kills its process (a signal) is an issue that says so.
std::vector<GridIssue> check_user_models(const std::vector<Cell>& cells,
                                         const ModelCheck& check = {});

}  // namespace crossover
