#pragma once
// One run read back: its results and the environment record beside them. What the gate
// (reports/gate/), the profile derived from runs (runner/machine/) and history read; the files'
// names are core/files/run_files.hpp's. No LibTorch.

#include <optional>
#include <string>
#include <vector>

#include "core/records/environment.hpp"
#include "core/records/results.hpp"

namespace crossover {

/// One run of a grid: its results and the environment record beside them (none when absent).
struct RunRecord {
  std::vector<Result> results;
  std::optional<Environment> environment;
  std::string label;
};

}  // namespace crossover
