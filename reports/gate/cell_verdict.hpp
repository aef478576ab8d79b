#pragma once
// What `compare` decides of each cell and of a comparison as a whole, as types: the verdict and
// what decided it, the options, one cell's verdict with its evidence, the report, and what a
// comparison of one run per side knows beyond its samples. The comparison itself is
// regression.hpp's; the evidence, the run groups and the report's texts (one_run_evidence,
// run_groups, regression_report, regression_text) read these types alone.

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/records/results.hpp"
#include "core/stats/significance.hpp"
#include "core/stats/stats.hpp"
#include "core/text/words.hpp"
#include "reports/gate/gate_metric.hpp"
#include "reports/gate/run_drift.hpp"

namespace crossover {

/// What compare says of one cell, in the order the reports list verdicts: the worst first.
enum class Verdict {
  kRegression,    ///< slower (or less throughput) beyond the threshold, and significantly
  kFailed,        ///< ran in the baseline, failed in the candidate
  kImprovement,   ///< faster beyond the threshold, and significantly
  kInconclusive,  ///< too few samples, or a change the evidence cannot decide
  kNoChange,      ///< within the threshold, or not significant
  kNotCompared,   ///< measured on one side only (not ok in the baseline), or no energy
  kNotMeasured,   ///< measured on neither side (skipped, predicted or failed in both)
};

/// "regression", "failed", "improvement", "inconclusive", "no change", "not compared", "not
/// measured": the words of the tables and the verdict file.
inline constexpr auto words(Verdict) {
  return std::array{std::pair{Verdict::kRegression, std::string_view("regression")},
                    std::pair{Verdict::kFailed, std::string_view("failed")},
                    std::pair{Verdict::kImprovement, std::string_view("improvement")},
                    std::pair{Verdict::kInconclusive, std::string_view("inconclusive")},
                    std::pair{Verdict::kNoChange, std::string_view("no change")},
                    std::pair{Verdict::kNotCompared, std::string_view("not compared")},
                    std::pair{Verdict::kNotMeasured, std::string_view("not measured")}};
}

inline std::ostream& operator<<(std::ostream& out, Verdict verdict) {
  return out << text_of(verdict);
}

/// JSON: the word.
CROSSOVER_JSON_AS_WORD(Verdict)

/// A p-value as the reports write it: "0.012", "3.1e-05".
std::string p_text(double p);

/// A change's interval: "[-1.2, +3.4] %".
std::string interval_text(const Interval& ci);

/// Whether a metric is one where lower is better (times, energy, counts); throughput is not.
bool is_time_metric(GateMetric metric);

/// Whether a metric is counted (instructions, estimated cycles) rather than timed.
bool is_count_metric(GateMetric metric);

/// The metric in words: "time per epoch", "time per step", "throughput (samples/s)".
std::string metric_text(GateMetric metric);

/// A value of the metric with its unit: "12.3 ms" or "4.56e+03/s".
std::string value_in_unit(double value, GateMetric metric);

/// How `compare` decides.
/// compare's default assumed run-to-run variation of one run (see RegressionOptions).
inline constexpr double kAssumedRunSpread = 0.04;

struct RegressionOptions {
  double threshold = 0.05;  ///< a relative change smaller than this is never a regression
  double alpha = 0.05;      ///< significance level of the two-sided U test
  GateMetric metric = GateMetric::kEpoch;
  FailOn fail_on = FailOn::kRegression;
  std::uint64_t seed = 0;  ///< of the bootstrap
  /// One run per side without a calibration: how much one run's median is assumed to vary from
  /// one process to the next (a stated prior until `crossover calibrate` measures it); a change
  /// must stand out from it as from a calibrated spread. 0: the within-run test alone.
  double assumed_spread = kAssumedRunSpread;
};

/// Each process's median of the metric for a result measured in several processes; empty for one.
std::vector<double> process_medians(const Result& result, GateMetric metric);

/// Throws std::invalid_argument naming the option that is out of range.
void check_options(const RegressionOptions& options);

/// Which evidence decided a verdict.
enum class DecidedBy {
  kNone,            ///< no test ran (not compared, too few samples)
  kRunLevel,        ///< the run-level test: Welch's t on runs, or a calibration's spread
  kWithinRun,       ///< the within-run test alone
  kReferenceDrift,  ///< the machine's drift: as large as the change, or moved with it (one run)
  kAssumedSpread,   ///< one run per side, no calibration: the change against an assumed spread
  kCounts,          ///< counted cells: the change against the counts' own spread
};

/// "", "run-level test", "within-run test", "reference drift", "assumed spread": the words of
/// compare's reports.
inline constexpr auto words(DecidedBy) {
  return std::array{std::pair{DecidedBy::kNone, std::string_view("")},
                    std::pair{DecidedBy::kRunLevel, std::string_view("run-level test")},
                    std::pair{DecidedBy::kWithinRun, std::string_view("within-run test")},
                    std::pair{DecidedBy::kReferenceDrift, std::string_view("reference drift")},
                    std::pair{DecidedBy::kAssumedSpread, std::string_view("assumed spread")},
                    std::pair{DecidedBy::kCounts, std::string_view("counts")}};
}
inline std::ostream& operator<<(std::ostream& out, DecidedBy d) { return out << text_of(d); }

/// The test a verdict's p-value came from.
enum class TestUsed {
  kNone,         ///< nothing was tested
  kMannWhitney,  ///< the samples of one run per side
  kCounts,       ///< counted cells: instructions, not time
  kPairedRuns,   ///< a one-sample t on the log ratios of runs made in pairs (rounds, processes)
  kWelchRuns,    ///< Welch's t on runs that cannot be paired
};

/// "", "mann-whitney", "counts", "paired-runs", "welch-runs": regression.json's `test`.
inline constexpr auto words(TestUsed) {
  return std::array{std::pair{TestUsed::kNone, std::string_view("")},
                    std::pair{TestUsed::kMannWhitney, std::string_view("mann-whitney")},
                    std::pair{TestUsed::kCounts, std::string_view("counts")},
                    std::pair{TestUsed::kPairedRuns, std::string_view("paired-runs")},
                    std::pair{TestUsed::kWelchRuns, std::string_view("welch-runs")}};
}
inline std::ostream& operator<<(std::ostream& out, TestUsed t) { return out << text_of(t); }
/// True for the run-level tests, which compare runs rather than samples.
inline bool run_level(TestUsed t) {
  return t == TestUsed::kPairedRuns || t == TestUsed::kWelchRuns;
}

/// The rule that decided a compared cell's verdict, worded by rule_text (regression_text.cpp).
enum class Rule {
  kNone,                  ///< nothing decided: not compared (its refusal says why)
  kCountedMore,           ///< counts: every epoch more by the threshold or more (regression)
  kCountedLess,           ///< counts: every epoch less by the threshold or more (improvement)
  kIdenticalCounts,       ///< counts: the same in every epoch (no change)
  kCountsWithin,          ///< counts: every epoch's change within the threshold (no change)
  kCountsAcross,          ///< counts: the epochs' changes reach across the threshold
  kExplainedByDrift,      ///< the machine's drift explains the change (inconclusive)
  kBeyond,                ///< significant and beyond the threshold (regression or improvement)
  kSignificantWithin,     ///< significant but within the threshold (no change)
  kNotSignificantWithin,  ///< not significant, its interval within the threshold (no change)
  kAssumedSpread,         ///< one run per side cannot tell it from an assumed spread
  kTooNoisy,              ///< not significant, its interval reaching past the threshold
};

/// One cell of the grid in both runs.
struct CellVerdict {
  std::string name;               ///< workload and the keys that tell the cells apart
  nlohmann::ordered_json config;  ///< the configuration the cells were matched on
  std::size_t baseline_cell = 0;  ///< the cell's index in each run
  std::size_t candidate_cell = 0;
  Verdict verdict = Verdict::kNotCompared;
  Rule rule = Rule::kNone;  ///< what decided the verdict
  std::string reason;       ///< why, in a few words
  std::size_t baseline_samples = 0;
  std::size_t candidate_samples = 0;
  std::size_t baseline_runs = 0;  ///< runs (processes) pooled on each side
  std::size_t candidate_runs = 0;
  /// Of the metric, in its unit: the samples' median with one run per side; with several, the
  /// geometric mean of the runs' medians (what the run-level test compares; change is their ratio)
  double baseline_median = 0.0;
  double candidate_median = 0.0;
  double change = 0.0;  ///< candidate / baseline - 1
  Interval change_ci;   ///< bootstrap 95 % interval of the change
  double p_value = 1.0;
  TestUsed test = TestUsed::kNone;
  bool tested = false;  ///< change, interval and p-value were computed
  /// One run per side with a calibration: the p-value of the change against this runner's
  /// run-to-run spread, and the change net of the machine's drift; 1 and `change` otherwise.
  double run_level_p = 1.0;
  double net_change = 0.0;
  std::optional<double> machine;  ///< the machine's drift around this cell (reference ratio)
  double machine_noise = 0.0;     ///< the reference's own noise there (ReferenceDrift::noise)
  bool machine_used = false;      ///< the drift stood out and the change was judged net of it
  /// The change and interval the verdict was decided on, which the tables print: the measured
  /// change and its interval, or, with a calibration, the change net of the machine and its
  /// interval against this runner's run-to-run spread.
  double decided_change = 0.0;
  Interval decided_ci;
  bool decided_net = false;  ///< decided_change is net of the machine's drift
  /// Which evidence decided the verdict (kNone when nothing was tested), and all of it in one
  /// line for a reviewer.
  DecidedBy decided_by = DecidedBy::kNone;
  std::string evidence;
};

/// A decided cell's rule in words, from its numbers and the gate's settings: "significant and
/// beyond ±5 %", "too noisy: not significant, and the interval reaches past ±5 %; ...". The
/// test's name and sample counts follow it in `reason`; "" for Rule::kNone.
std::string rule_text(const CellVerdict& v, const RegressionOptions& o);

/// One difference between the two runs' environments.
struct EnvironmentDifference {
  std::string what;  ///< "CPU", "BLAS", "LibTorch", "intra-op threads", ...
  std::string baseline;
  std::string candidate;
  bool unfair = false;  ///< it can change the timings by itself
};

/// A comparison's first word: FAIL (a regression or a failed cell, or with --fail-on any-change
/// an improvement), INCONCLUSIVE (otherwise, where a compared cell was undecided or none was
/// compared), PASS (every compared cell decided, none worse). It never reads PASS where anything
/// was left undecided; the exit code follows --fail-on (RegressionReport::fails).
enum class GateStatus { kPass, kFail, kInconclusive };
inline constexpr auto words(GateStatus) {
  return std::array{std::pair{GateStatus::kPass, std::string_view("PASS")},
                    std::pair{GateStatus::kFail, std::string_view("FAIL")},
                    std::pair{GateStatus::kInconclusive, std::string_view("INCONCLUSIVE")}};
}
CROSSOVER_JSON_AS_WORD(GateStatus)

/// What `compare` found.
struct RegressionReport {
  RegressionOptions options;
  std::string baseline_label;  ///< where each run came from, for the reader
  std::string candidate_label;
  std::vector<CellVerdict> cells;             ///< regressions first, then by name
  std::vector<std::string> only_in_baseline;  ///< names of cells one run lacks
  std::vector<std::string> only_in_candidate;
  std::vector<EnvironmentDifference> environment;
  std::vector<std::string> notes;  ///< e.g. a run without env.json
  std::string calibration;         ///< the calibration file used ("" = none)
  std::string evidence;            ///< what the verdicts rest on, in one line
  /// The machine in one line, summed up from the same per-cell drifts the verdicts used: the
  /// header cannot say "steady" where a cell says "moved".
  std::string machine;
  /// Rounds of `compare --rerun` this runner needs (from a calibration, for a slowdown of twice
  /// the threshold caught 9 times in 10; kDefaultRounds without one): the next step that
  /// `next_step` names.
  int rounds_needed = 0;
  int rounds_run = 0;  ///< runs per side that were paired (0: one run per side)

  std::size_t count(Verdict verdict) const;
  /// The cells measured on at least one side: every cell but the not measured ones.
  std::size_t measured() const;
  bool unfair() const;
  /// Whether the job should fail under options.fail_on: a regression or a failed cell
  /// ("regression"), also an improvement ("any-change"), also an inconclusive cell
  /// ("inconclusive"), never ("none").
  bool fails() const;
  /// The comparison's first word (GateStatus).
  GateStatus status() const;
  /// Where fails(): the --fail-on rule and the cells that made the exit code 1; "" otherwise.
  std::string exit_reason() const;
  /// When more than half of the measured cells are inconclusive: what to run next, with the
  /// rounds this runner needs; "" otherwise.
  std::string next_step() const;
};

/// Rounds of `compare --rerun` without a calibration that says how many this runner needs.
inline constexpr int kDefaultRounds = 5;

/// The rounds of `compare --rerun` (paired runs per side) with which a slowdown of twice the
/// threshold is caught 9 times in 10 by the paired test at `alpha`, for a cell whose runs vary
/// by `sigma` (a calibration's sigma_raw, log); from 2 to 30.
int rounds_needed(double sigma, const RegressionOptions& options);

/// What a comparison of one run per side can know beyond the samples: the machine's drift
/// between the runs (their references) and this runner's run-to-run spread (a calibration).
struct RunLevelContext {
  const Environment* baseline_env = nullptr;  ///< the runs' env.json records, when known
  const Environment* candidate_env = nullptr;
  const Calibration* calibration = nullptr;
  /// The machine's drift between the runs, or around one cell of each.
  std::optional<ReferenceDrift> drift(std::optional<std::size_t> baseline_cell = std::nullopt,
                                      std::optional<std::size_t> candidate_cell = std::nullopt,
                                      bool all_cores = false) const;
};

}  // namespace crossover
