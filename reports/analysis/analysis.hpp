#pragma once
// The answer users came for: every comparison's pairs, crossovers and findings (the pairs and the
// crossovers themselves are pairing.hpp's), the device tables and the scaling rows, made once
// and read by every output.

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/records/results.hpp"
#include "reports/analysis/comparison.hpp"
#include "reports/analysis/pairing.hpp"
#include "reports/analysis/scaling.hpp"

namespace crossover {

/// Per workload: the fastest configuration measured, the break-even of each pair the contender
/// wins, the modes' findings (which read the crossovers), and which knobs mattered — the effect of
/// changing only `loader`, `num_workers`, `pin_memory`, `data_placement` or `threads`, as the
/// geometric mean of the speedups of cells that differ in that knob alone; a knob matters when a
/// pair's interval excludes 1 by 5 % or more.
std::vector<Recommendation> recommend(const std::vector<Result>& results, const CompareSpec& spec,
                                      const std::vector<Crossover>& crossovers);

/// What a run's results say: every comparison's findings, made once and read by every output
/// (the terminal, report.md, report.html, summary.json), so that they all say the same thing.
struct Analysis {
  Measure measure = Measure::kTime;  ///< what the pairs, tables and crossovers compare
  std::vector<ComparisonFindings> comparisons;
  std::vector<Comparison> devices;  ///< the device table of each workload
  std::vector<ScalingRow> scaling;  ///< every ok dp or ddp cell, against its one-replica cell
  /// In another measure than time: the results in it (in_measure), which the pairs point into.
  std::shared_ptr<const std::vector<Result>> measured;
};

/// The analysis of `results` in `measure` (time, energy or cost): one comparison per spec, in
/// order, the device tables and the scaling rows (always of time), and each comparison's
/// crossovers in the other measures that were measured (by_measure). `machines_apart` as
/// CompareSpec's, for every comparison and the device tables. Its pairs and rows point into
/// `results`, or in another measure into the analysis's own `measured`.
Analysis analyse(const std::vector<Result>& results, const std::vector<CompareSpec>& specs,
                 Measure measure = Measure::kTime, bool machines_apart = false);

/// The results the analysis compared: `results` itself, or in another measure its `measured`.
const std::vector<Result>& compared_results(const Analysis& analysis,
                                            const std::vector<Result>& results);

/// Everything the analysis found, machine-readable (summary.json).
nlohmann::ordered_json analysis_json(const CompareSpec& spec, const std::vector<Pair>& pairs,
                                     const std::vector<Crossover>& crossovers,
                                     const std::vector<Recommendation>& recommendations = {});

}  // namespace crossover
