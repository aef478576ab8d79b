#pragma once
// Scaling over replicas (GPUs under dp, processes under ddp): throughput, time per step, the
// all-reduce time per step, and the efficiency against the same cell with one replica:
// throughput(N) / (N x throughput(1)). Turns results into rows (their Markdown:
// reports/render/analysis_markdown.hpp); writes nothing.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/records/results.hpp"

namespace crossover {

/// One `ok` cell of a parallel mode.
struct ScalingRow {
  const Result* result = nullptr;  ///< points into the results given
  int replicas = 1;
  std::optional<double> efficiency;  ///< none without a one-replica cell to compare with
};

/// The rows of every `ok` dp or ddp cell, in result order.
std::vector<ScalingRow> scaling_rows(const std::vector<Result>& results);

/// The rows as JSON (summary.json).
nlohmann::ordered_json scaling_json(const std::vector<ScalingRow>& rows);
nlohmann::ordered_json scaling_json(const std::vector<Result>& results);

}  // namespace crossover
