#pragma once
// The runs of one cell on each side of a comparison: the results of one configuration grouped,
// each run's values for the tests, and how two sides' runs pair — the rounds of `compare --rerun`
// by their order. reports/gate/regression.cpp judges the groups.

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/records/results.hpp"
#include "core/stats/stats.hpp"
#include "reports/gate/cell_verdict.hpp"
#include "reports/gate/gate_metric.hpp"

namespace crossover {

/// Runs of one side, each its values (samples, or its processes' median alone).
using Runs = std::vector<std::vector<double>>;

/// What `compare` matches cells on: their identity keys, less the machine's label — comparing
/// two machines is what it is for, and it names their differences first.
nlohmann::ordered_json match_config(const Cell& cell);

/// A result's samples of the metric: epoch or step times, joules per epoch (none where energy
/// was not measured), or samples per second.
std::vector<double> metric_samples(const Result& r, GateMetric metric);

/// Every occurrence of one configuration in one run.
struct Group {
  nlohmann::ordered_json config;
  std::vector<const Result*> results;

  const Result* first_ok() const {
    for (const Result* r : results) {
      if (r->status == CellStatus::kOk) return r;
    }
    return nullptr;
  }
  // The samples of each run in which the cell was ok (empty runs left out). A run measured in
  // several processes (`processes`) gives, where it is the side's only run, one run per process,
  // its median alone; beside other runs, the median of its processes' medians: the run is the
  // unit, since its processes share its machine's state (a same-binary A/A pair of two runs
  // each was called an improvement of 7.8 % at p = 0.017 on its processes pooled).
  std::vector<std::vector<double>> runs(GateMetric metric) const {
    std::vector<std::vector<double>> out;
    const bool alone = ok_runs() == 1;
    for (const Result* r : results) {
      if (r->status != CellStatus::kOk) continue;
      if (r->process_epoch_seconds.size() >= 2) {
        const std::vector<double> medians = process_medians(*r, metric);
        if (alone) {
          for (double m : medians) out.push_back({m});
        } else {
          out.push_back({quantile(medians, 0.5)});
        }
        continue;
      }
      auto s = metric_samples(*r, metric);
      if (!s.empty()) out.push_back(std::move(s));
    }
    return out;
  }
  // Every sample of every run in which the cell was ok.
  std::vector<double> samples(GateMetric metric) const {
    std::vector<double> out;
    for (const Result* r : results) {
      if (r->status != CellStatus::kOk) continue;
      const auto s = metric_samples(*r, metric);
      out.insert(out.end(), s.begin(), s.end());
    }
    return out;
  }
  std::size_t ok_runs() const {
    return static_cast<std::size_t>(
        std::count_if(results.begin(), results.end(),
                      [](const Result* r) { return r->status == CellStatus::kOk; }));
  }
  // Whether its one run was measured in several processes: its processes, not its runs, are
  // what a test compares.
  bool per_process() const {
    const bool processes = std::any_of(results.begin(), results.end(), [](const Result* r) {
      return r->status == CellStatus::kOk && r->process_epoch_seconds.size() >= 2;
    });
    return processes && ok_runs() == 1;
  }
};

/// The results grouped by configuration (match_config), in the order each first occurs.
std::vector<Group> group_results(const std::vector<Result>& results);

/// Runs made in pairs, paired: the i-th run of each side (the rounds of `compare --rerun`, each
/// baseline run beside its candidate run in time), those ok on both sides. Empty with fewer than
/// two pairs, and for one run per side: its processes share no phase of the machine with the
/// other side's k-th process, so pairing them would only halve the degrees of freedom (a paired t
/// on 2 process pairs has one, and missed a +97 % planted slowdown); they are compared unpaired
/// (Welch's t).
std::pair<Runs, Runs> paired_runs(const Group& b, const Group& c, GateMetric metric);

}  // namespace crossover
