#include "runner/sweep/progress_line.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "core/costmodel/cost_model.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/cell_names.hpp"
#include "runner/distributed/shard.hpp"

namespace crossover {

ProgressLine::ProgressLine(const std::vector<PlannedCell>& cells)
    : start_(std::chrono::steady_clock::now()) {
  add(cells);
}

void ProgressLine::add(const std::vector<PlannedCell>& cells) {
  for (const auto& [cell, plan] : cells)
    cost_.push_back(plan.action == CellPlan::Action::kRun ? estimated_cost(cell) : 0.0);
}

void ProgressLine::cell(const Result& r) {
  const std::size_t done = ++done_, total = cost_.size();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (done <= total && cost_[done - 1] > 0.0 && r.status != CellStatus::kSkipped)
    ran_.emplace_back(cost_[done - 1], r.wall_seconds);
  const auto next = cost_.begin() + static_cast<std::ptrdiff_t>(std::min(done, total));
  const std::vector<double> left(next, cost_.end());
  std::string outcome = text_of(r.status);
  if (r.status == CellStatus::kOk && r.counts.counted()) {
    // Its times are taken under the counter: the count is the measurement.
    outcome += " " + format_axis_value(std::round(r.counts.instructions_per_epoch)) +
               " instructions/epoch (" + r.counts.counter + ", spread " +
               format_percent(r.counts.instructions_spread, false) + ")";
  } else if (r.status == CellStatus::kOk) {
    outcome += " " + format_seconds(r.epoch_seconds) + "/epoch, " + r.metric + " " +
               format_number(r.metric_value);
    if (r.data_source == DataSource::kSynthetic) outcome += " (synthetic data)";
  } else if (r.status == CellStatus::kPredicted) {
    // The profile and what its band is worth are said once, on the run's first line.
    outcome += " " + format_seconds(r.epoch_seconds) + "/epoch (" +
               predicted_interval_text(r.epoch_seconds, r.prediction.prediction_error) + ")";
  } else if (const auto said = said_.find(r.reason); said != said_.end()) {
    // A reason many cells share is said in full once.
    outcome += ": as cell " + std::to_string(said->second);
  } else {
    said_.emplace(r.reason, r.cell.index);
    outcome += ": " + r.reason;
  }
  // The count in brackets, then the cell by its number, the one every report and file gives it.
  spdlog::info("[{}/{}] cell {} {}: {} | elapsed {} ETA {}", done, total, r.cell.index,
               cell_label(r.cell), outcome, clock_text(elapsed),
               clock_text(seconds_left(ran_, left)));
}

std::string predicted_cells_line(const std::vector<PlannedCell>& cells,
                                 const std::string& profile_name) {
  const auto predicted = std::count_if(cells.begin(), cells.end(), [](const PlannedCell& c) {
    return c.plan.action == CellPlan::Action::kPredict;
  });
  if (predicted == 0) return "";
  return "; " + std::to_string(predicted) +
         " CUDA cells predicted (no CUDA here) by the cost model with the profile " + profile_name;
}

}  // namespace crossover
