#pragma once
// The device comparison every report leads with: per workload, one row per setting (every
// identity key but the device), one column per device, the speedup and the winner.

#include <optional>
#include <string>
#include <vector>

#include "core/records/results.hpp"
#include "reports/analysis/measure.hpp"
#include "reports/analysis/text_table.hpp"

namespace crossover {

/// One workload's comparison table.
struct Comparison {
  std::string workload;
  TextTable table;
};

/// Groups results by workload (first-seen order); a row holds the cells of one pairing_key(cell,
/// "device"), the pairs of pair_results for device comparisons. The CPU is the baseline; each other
/// device gets a speedup column (CPU time / its time, with the bootstrap interval of compare_pair).
/// With `machines_apart` (`report` of several runs), results of several machines (`host`) get a
/// column per machine and device, "cuda on gpu-node", the first machine's CPU the baseline;
/// otherwise (one run, a merged sharded run included) the machines read as one.
/// The winner follows compare_pair's rule: the fastest device when its interval lies above 1, the
/// CPU when every other device's lies below 1, else a tie. In another `measure` than time
/// (results made by in_measure) the epochs are joules or money, the speedups their ratios ("ratio
/// cuda"), and the break even, a matter of start-up time, is left out.
std::vector<Comparison> compare_devices(const std::vector<Result>& results,
                                        Measure measure = Measure::kTime,
                                        bool machines_apart = false);

/// A speedup as the device tables print it: three significant digits, two below 1 ("45.9",
/// "0.21").
std::string ratio_text(double x);

/// The number of epochs from which `contender`'s total training time — start-up and first
/// epoch included — stays below `baseline`'s: with start-up S, first epoch F and steady epoch E,
/// the total of n epochs is S + F + (n - 1) E. Nothing when the contender never stays ahead.
std::optional<long> break_even_epochs(const Result& baseline, const Result& contender);

/// The name of a result's device column: "cpu", "cuda", "cuda:1", "cuda x2", then " @host" for a
/// CUDA cell whose tensor loader keeps the data on the host and " graph" for graph execution.
std::string device_column(const Cell& cell);

}  // namespace crossover
