#pragma once
// Pairs of cells that differ in one axis only, the speedup of one value over the other with a
// bootstrap confidence interval and the one winner rule, and where along a numeric axis the
// contender starts winning and keeps winning (the crossover), in plain words. What the analysis
// (analysis.hpp), the measures, the modes' findings and the device tables build on.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/records/results.hpp"
#include "core/stats/bootstrap.hpp"
#include "core/stats/crossing.hpp"
#include "reports/analysis/measure.hpp"

namespace crossover {

/// What to compare: an axis and its two values, as in "device=cpu:cuda" or "threads=1:0".
/// `measure` is what the epochs are compared in: their time, or their energy or cost in the
/// analysis of `report --measure` (the results then made by in_measure,
/// reports/analysis/energy_and_cost.hpp).
struct CompareSpec {
  std::string axis = "device";
  std::string baseline = "cpu";
  std::string contender = "cuda";
  Measure measure = Measure::kTime;
  /// Whether the machines' labels (`host`) keep cells apart: true for `report` of several runs,
  /// whose machines are compared; false for one run (a merged sharded run included), which reads
  /// as one machine — its cells pair within a machine first and its series run across machines.
  /// A comparison along `host` itself always pairs across machines.
  bool machines_apart = false;
};

/// Parses "AXIS=BASELINE:CONTENDER"; throws std::invalid_argument naming what is wrong.
CompareSpec parse_compare(const std::string& text);

/// Two cells equal in every key but the compared axis, and what the comparison says.
/// The equivalence margin, 5 % either side of 1: a side wins only where its speedup's whole
/// interval lies beyond it; a pair whose interval lies within it is "no practical difference"
/// (a 1 % "win" was printed), one that crosses its edge a tie.
inline constexpr double kEquivalenceMargin = 0.05;

/// Whether a pair's interval lies within `margin` of 1 (no practical difference).
bool within_margin(const Interval& speedup, double margin = kEquivalenceMargin);

struct Pair {
  const Result* baseline = nullptr;
  const Result* contender = nullptr;
  double speedup = 0.0;  ///< baseline median epoch time / contender's
  Interval ci;           ///< bootstrap 95 % interval of the speedup
  Winner winner = Winner::kTie;
  /// A side is predicted (status `predicted`), not measured: the interval is the measured
  /// side's median interval against the predicted side's validated error band.
  bool predicted = false;
};

/// " (1.1 ms-2.3 ms, predicted, 80 %)" for a predicted result (its band; " (1.6 ms, predicted
/// (no validated band))" without one), "" for a measured one: what every number of a predicted
/// cell carries beside it.
std::string predicted_mark(const Result& r);

/// What report.md and report.html say of a run with `predicted` predicted cells, as plain text
/// ("12 cell(s) were not measured: ..."); each output escapes it for where it lands.
std::string predicted_cells_note(std::size_t predicted);

/// pairing_key(r.cell, spec.axis), less `also_drop` (a knob whose effect is measured across
/// pairs) and, unless the machines are kept apart, less the machine's label.
nlohmann::ordered_json pair_key(const Result& r, const CompareSpec& spec,
                                const std::string& also_drop = "");

/// Whether a result has an epoch to compare: measured (ok, with its samples) or predicted.
bool comparable(const Result& result);

/// The one winner rule of every report: the bootstrap interval of baseline/contender. The contender
/// wins when the whole interval is above 1, the baseline when it is below 1, otherwise a tie; an
/// interval all within `margin` of 1 is a tie too (no practical difference; the search, which
/// brackets where the speedup crosses 1, gives 0). The resampling seed comes from `seed` and the
/// two cells' indices, so a pair gets the same interval wherever it is shown. Both results need
/// epoch samples, or one is predicted: then the interval is the measured side's median interval
/// widened by the predicted side's error band (prediction_error; none when not validated).
Pair compare_pair(const Result& baseline, const Result& contender, std::uint64_t seed = 0,
                  double margin = kEquivalenceMargin);

/// Who wins a pair, in a table's words: "device=cuda", "tie", and for a pair with a predicted side
/// "device=cuda (predicted)" or "undecided (predicted: the band allows a tie)".
std::string winner_text(const Pair& p, const CompareSpec& spec);

/// Where one predicted figure (an epoch, a cost) stands against another, each with its band (a
/// factor of 1 or more each way): -1 lower for certain (their bands exclude each other), +1
/// higher, 0 a tie. GPU against GPU is decided by it alone.
int banded_order(double a, double a_band, double b, double b_band);

/// The indices of the lowest of `values` (those above 0) and of every one that ties with it by
/// banded_order: the best, or all that the bands cannot tell from it. Empty when none is above 0.
std::vector<std::size_t> tied_with_lowest(const std::vector<double>& values,
                                          const std::vector<double>& bands);

/// A pair's speedup and interval: "1.59x [1.58, 1.6]".
std::string speedup_text(const Pair& p);

/// Every pair of `ok` cells whose identity keys (cell_identity_json) differ only in `spec.axis`
/// (for `device`, also in the keys that only mean something on one device: gpus and
/// data_placement); protection and policy keys never split a pair, nor does the machine's label
/// unless `spec.machines_apart` — but where a cell has several partners, it pairs with those
/// measured as it was and, among them, with those of its own machine. The pairs point into
/// `results`, which must outlive them. Deterministic for a given seed.
std::vector<Pair> pair_results(const std::vector<Result>& results, const CompareSpec& spec,
                               std::uint64_t seed = 0);

/// Where along one numeric axis the contender starts winning, with everything else fixed.
struct Crossover {
  std::string workload;
  std::string axis;                ///< "batch_size", "dataset_size", ...
  std::string fixed;               ///< the other keys that vary in this workload, as text
  std::vector<double> values;      ///< the axis values measured, ascending
  std::optional<double> from;      ///< the smallest measured value from which it keeps winning
  std::optional<double> crossing;  ///< interpolated on a log scale between measured values
  std::optional<double> crossing_low, crossing_high;  ///< the same from the interval's bounds;
                                                      ///< after a tie: its highest tie and `from`
  std::optional<double> tie_low, tie_high;  ///< the ties directly below `from`, where there are
  std::string statement;                    ///< in plain words
  std::vector<std::size_t> cells;           ///< the cells behind it
  /// Some of its cells are predicted, not measured: the statement says so, with the profile and
  /// its validated error.
  bool predicted = false;
  std::string why;  ///< the bound of each side at the ends of the series, from the cost model
};

/// Crossovers along every numeric axis that takes three values or more among a series of pairs
/// (two are two rows of the pair table; `threads` with 0, the libraries' default, is no line).
std::vector<Crossover> find_crossovers(const std::vector<Pair>& pairs, const CompareSpec& spec);

/// The numeric value of an axis in a result ("full" sizes read as the rows used).
std::optional<double> axis_value(const Result& result, const std::string& axis);

/// A plain-language finding about one workload, with the cells behind it.
struct Recommendation {
  std::string workload;
  std::string statement;
  std::vector<std::size_t> cells;
};

/// One comparison's findings, as the analysis makes them.
struct ComparisonFindings {
  CompareSpec spec;
  std::vector<Pair> pairs;
  std::vector<Crossover> crossovers;
  std::vector<Recommendation> recommendations;
  /// The crossovers in the other measures ("energy", its crossovers): time, energy and cost but
  /// the analysis's own, where the pairs' cells measured them
  /// (reports/analysis/energy_and_cost.hpp).
  std::vector<std::pair<Measure, std::vector<Crossover>>> by_measure;
};

}  // namespace crossover
