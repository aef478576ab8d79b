#pragma once
// The answer first: per workload, at most three lines that say which side wins and where, built
// from the first comparison's pairs and crossovers, so that the terminal, report.md and
// report.html open with the same words. The details (tables, every crossover, why) follow them.

#include <set>
#include <string>
#include <vector>

#include "reports/analysis/analysis.hpp"

namespace crossover {

/// One workload's verdict.
struct WorkloadVerdict {
  std::string workload;
  /// "iris_mlp: cuda (predicted) wins from dataset_size 10,000 on; undecided at 112", then at
  /// most two more: when a measured contender pays back its start-up, and a warning when cells
  /// behind it are too noisy to act on.
  std::vector<std::string> lines;
  bool predicted = false;  ///< a side of some of its pairs is predicted, not measured
};

/// The verdicts of the analysis's first comparison, one per workload with pairs, in the order the
/// pairs come; none without a comparison. `drifted`: the cells that ran while the machine's speed
/// had moved (drifted_cells of the run's env.json), which the noise line names.
std::vector<WorkloadVerdict> verdicts(const Analysis& analysis,
                                      const std::set<std::size_t>& drifted = {});

/// The heading above the verdicts: "Verdict (device=cpu vs cuda)"; "" without a comparison.
std::string verdict_heading(const Analysis& analysis);

/// What the predicted cells among `results` are worth, said once under the heading: "cuda
/// predicted with the profile H100 80GB, not measured: against the CPU measured here, ...; a side
/// wins only where the 80 % band (`band`: how it was validated, band_validation_text) excludes a
/// tie, else undecided"; "" when none is predicted.
std::string verdict_caveat(const std::vector<Result>& results, const std::string& band = "");

/// A cell whose interquartile range exceeds this share of its median is too noisy for a verdict
/// built on it to stand without saying so.
inline constexpr double kShakyIqrRatio = 1.0 / 3.0;

/// Whether an ok cell's interquartile range exceeds kShakyIqrRatio of its median.
inline bool is_shaky(const Result& r) {
  return r.status == CellStatus::kOk && r.epoch_seconds > 0.0 &&
         (r.epoch_seconds_p75 - r.epoch_seconds_p25) / r.epoch_seconds > kShakyIqrRatio;
}

}  // namespace crossover
