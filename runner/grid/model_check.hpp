#pragma once
// A grid's own models (workload "torchscript"), checked before anything runs, each in a child
// process: a file that crashes LibTorch's loader is a problem reported, not a crash.

#include <functional>
#include <string>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/text/problem.hpp"
#include "runner/grid/grid.hpp"

namespace crossover {

/// What check_user_models asks of each model, in the child: nothing, or the problem.
using ModelCheck = std::function<Found(const Cell&)>;

/// How long one model's check may take by default (`--model-check-seconds`): loading a model and
/// running one small batch takes seconds; a forward that loops must not make validate wait.
inline constexpr double kModelCheckSeconds = 60.0;

/// One issue per distinct model setting (file, input_shape, classes, outputs) that is wrong,
/// at "experiments[N]" of the first cell that uses it; none when every model loads, trains and
/// takes its input_shape (`check`, by default user_model_problem of
/// workloads/models/user_model.hpp). A check that kills its process (a signal) is an issue that
/// says so, and one that takes longer than `limit_seconds` is killed and is an issue naming the
/// model and the limit.
std::vector<GridIssue> check_user_models(const std::vector<Cell>& cells,
                                         const ModelCheck& check = {},
                                         double limit_seconds = kModelCheckSeconds);

}  // namespace crossover
