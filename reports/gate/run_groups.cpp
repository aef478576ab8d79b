// The runs of one cell on each side of a comparison, grouped and paired (run_groups.hpp).
#include "reports/gate/run_groups.hpp"

#include <algorithm>
#include <map>

#include "reports/analysis/cell_names.hpp"

namespace crossover {
namespace {

// One run's values for the run-level tests: its samples, or, measured in several processes, the
// median of its processes' medians (the run is the unit; its processes share its machine).
std::vector<double> run_values(const Result& r, GateMetric metric) {
  if (r.process_epoch_seconds.size() >= 2) {
    const std::vector<double> medians = process_medians(r, metric);
    return medians.empty() ? medians : std::vector<double>{quantile(medians, 0.5)};
  }
  return metric_samples(r, metric);
}

}  // namespace

nlohmann::ordered_json match_config(const Cell& cell) { return cell_match_json(cell); }

std::vector<double> metric_samples(const Result& r, GateMetric metric) {
  if (metric == GateMetric::kStep) return r.step_seconds_samples;
  if (metric == GateMetric::kEpoch) return r.epoch_seconds_samples;
  if (metric == GateMetric::kInstructions) return r.counts.instructions_samples;
  if (metric == GateMetric::kCycles) return r.counts.estimated_cycles_samples;
  if (metric ==
      GateMetric::kEnergy) {  // each epoch's joules at the cell's mean power; none unmeasured
    if (!r.energy.measured()) return {};
    std::vector<double> joules = r.epoch_seconds_samples;
    for (double& j : joules) j *= r.energy.mean_watts;
    return joules;
  }
  std::vector<double> throughput;
  for (double seconds : r.epoch_seconds_samples) {
    if (seconds > 0.0) throughput.push_back(static_cast<double>(r.train_rows) / seconds);
  }
  return throughput;
}

std::pair<Runs, Runs> paired_runs(const Group& b, const Group& c, GateMetric metric) {
  Runs base, cand;
  if (b.results.size() >= 2 && c.results.size() >= 2) {
    for (std::size_t i = 0; i < std::min(b.results.size(), c.results.size()); ++i) {
      const Result& x = *b.results[i];
      const Result& y = *c.results[i];
      if (x.status != CellStatus::kOk || y.status != CellStatus::kOk) continue;
      auto bx = run_values(x, metric), cy = run_values(y, metric);
      if (bx.empty() || cy.empty()) continue;
      base.push_back(std::move(bx));
      cand.push_back(std::move(cy));
    }
  }
  if (base.size() < 2) return {};
  return {std::move(base), std::move(cand)};
}

std::vector<Group> group_results(const std::vector<Result>& results) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> where;
  for (const Result& r : results) {
    nlohmann::ordered_json config = match_config(r.cell);
    const auto [it, inserted] = where.emplace(config.dump(), groups.size());
    if (inserted) groups.push_back({std::move(config), {}});
    groups[it->second].results.push_back(&r);
  }
  return groups;
}

std::vector<double> process_medians(const Result& r, GateMetric metric) {
  // Counts are judged on every epoch's count (regression.cpp), not by process.
  if (r.process_epoch_seconds.size() < 2 || is_count_metric(metric)) return {};
  if (metric == GateMetric::kStep &&
      r.process_step_seconds.size() == r.process_epoch_seconds.size())
    return r.process_step_seconds;
  if (metric == GateMetric::kEnergy) {
    if (!r.energy.measured()) return {};
    std::vector<double> joules = r.process_epoch_seconds;
    for (double& j : joules) j *= r.energy.mean_watts;
    return joules;
  }
  if (metric != GateMetric::kThroughput) return r.process_epoch_seconds;
  std::vector<double> throughput;
  for (double seconds : r.process_epoch_seconds) {
    if (seconds > 0.0) throughput.push_back(static_cast<double>(r.train_rows) / seconds);
  }
  return throughput;
}

}  // namespace crossover
