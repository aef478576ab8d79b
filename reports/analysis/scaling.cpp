#include "reports/analysis/scaling.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "reports/render/table.hpp"

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

std::string render_scaling_markdown(const std::vector<Result>& results) {
  return render_scaling_markdown(scaling_rows(results));
}

std::string render_scaling_markdown(const std::vector<ScalingRow>& rows) {
  if (rows.empty()) return "";
  std::string out =
      "## Scaling\n\nEfficiency = throughput(N) / (N x throughput(1)), against the same cell with "
      "one replica; all-reduce: the gradient all-reduce per step on rank 0.\n\n";
  std::vector<std::string> workloads;
  for (const auto& row : rows) {
    if (std::find(workloads.begin(), workloads.end(), row.result->cell.workload) == workloads.end())
      workloads.push_back(row.result->cell.workload);
  }
  for (const auto& workload : workloads) {
    TextTable table;
    table.header = {"cell", "parallel",   "replicas",   "batch",      "samples/s",
                    "step", "all-reduce", "efficiency", "rank epochs"};
    table.right_aligned = {true, false, true, true, true, true, true, true, false};
    for (const auto& row : rows) {
      const Result& r = *row.result;
      if (r.cell.workload != workload) continue;
      std::vector<std::string> ranks;
      for (double s : r.rank_epoch_seconds) ranks.push_back(format_seconds(s));
      table.rows.push_back({"#" + std::to_string(r.cell.index), text_of(r.cell.parallel),
                            std::to_string(row.replicas), size_text(r.cell.batch_size),
                            format_number(r.samples_per_second), format_seconds(r.step_seconds),
                            r.allreduce_seconds > 0.0 ? format_seconds(r.allreduce_seconds) : "-",
                            row.efficiency ? format_number(100.0 * *row.efficiency) + " %" : "-",
                            join(ranks)});
    }
    out += "### " + markdown_text(workload) + "\n\n" + render_markdown_table(table) + "\n";
  }
  return out;
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
