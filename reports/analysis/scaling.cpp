#include "reports/analysis/scaling.hpp"

#include <algorithm>

#include "core/text/text.hpp"

namespace crossover {
namespace {

// Everything that identifies a cell but its replica count.
std::string base_key(const Cell& cell) {
  auto key = cell_identity_json(cell);
  key.erase("nproc");
  key.erase("gpus");
  return key.dump();
}

}  // namespace

std::vector<ScalingRow> scaling_rows(const std::vector<Result>& results) {
  std::vector<ScalingRow> rows;
  for (const Result& r : results) {
    if (r.status != CellStatus::kOk || r.cell.parallel == Parallel::kNone) continue;
    ScalingRow row;
    row.result = &r;
    row.replicas = replicas(r.cell);
    for (const Result& one : results) {
      if (one.status == CellStatus::kOk && one.cell.parallel == r.cell.parallel &&
          replicas(one.cell) == 1 && base_key(one.cell) == base_key(r.cell) &&
          one.samples_per_second > 0.0) {
        row.efficiency = r.samples_per_second / (row.replicas * one.samples_per_second);
      }
    }
    rows.push_back(row);
  }
  return rows;
}

nlohmann::ordered_json scaling_json(const std::vector<Result>& results) {
  return scaling_json(scaling_rows(results));
}

nlohmann::ordered_json scaling_json(const std::vector<ScalingRow>& rows) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& row : rows) {
    const Result& r = *row.result;
    out.push_back({{"cell", r.cell.index},
                   {"workload", r.cell.workload},
                   {"parallel", text_of(r.cell.parallel)},
                   {"replicas", row.replicas},
                   {"samples_per_second", r.samples_per_second},
                   {"step_seconds", r.step_seconds},
                   {"allreduce_seconds", r.allreduce_seconds},
                   {"efficiency", row.efficiency ? nlohmann::ordered_json(*row.efficiency)
                                                 : nlohmann::ordered_json(nullptr)}});
  }
  return out;
}

}  // namespace crossover
