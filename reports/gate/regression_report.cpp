// What a comparison as a whole says (regression_report.hpp).
#include "reports/gate/regression_report.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "core/text/text.hpp"

namespace crossover {

std::size_t RegressionReport::count(Verdict verdict) const {
  return static_cast<std::size_t>(std::count_if(
      cells.begin(), cells.end(), [&](const CellVerdict& v) { return v.verdict == verdict; }));
}

bool RegressionReport::unfair() const {
  return std::any_of(environment.begin(), environment.end(),
                     [](const EnvironmentDifference& d) { return d.unfair; });
}

std::size_t RegressionReport::measured() const {
  return cells.size() - count(Verdict::kNotMeasured);
}

bool RegressionReport::fails() const {
  if (options.fail_on == FailOn::kNone) return false;
  const std::size_t bad = count(Verdict::kRegression) + count(Verdict::kFailed);
  if (options.fail_on == FailOn::kAnyChange) return bad + count(Verdict::kImprovement) > 0;
  if (options.fail_on == FailOn::kInconclusive) return bad + count(Verdict::kInconclusive) > 0;
  return bad > 0;
}

GateStatus RegressionReport::status() const {
  const std::size_t bad = count(Verdict::kRegression) + count(Verdict::kFailed);
  if (bad > 0 || (options.fail_on == FailOn::kAnyChange && count(Verdict::kImprovement) > 0))
    return GateStatus::kFail;
  const std::size_t compared = measured() - count(Verdict::kNotCompared);
  if (compared == 0 || count(Verdict::kInconclusive) > 0) return GateStatus::kInconclusive;
  return GateStatus::kPass;
}

std::string RegressionReport::exit_reason() const {
  if (!fails()) return "";
  std::vector<Verdict> failing = {Verdict::kRegression, Verdict::kFailed};
  if (options.fail_on == FailOn::kAnyChange) failing.push_back(Verdict::kImprovement);
  if (options.fail_on == FailOn::kInconclusive) failing.push_back(Verdict::kInconclusive);
  std::string names;
  std::size_t listed = 0, total = 0;
  for (const CellVerdict& v : cells) {
    if (std::find(failing.begin(), failing.end(), v.verdict) == failing.end()) continue;
    ++total;
    if (++listed > 5) continue;
    names += std::string(names.empty() ? "" : "; ") + v.name + " (" + text_of(v.verdict) + ")";
  }
  if (total > 5) names += "; and " + std::to_string(total - 5) + " more";
  return "exit 1 under --fail-on " + text_of(options.fail_on) + " (it fails on " +
         (options.fail_on == FailOn::kAnyChange ? "a regression, a failed cell or an improvement"
          : options.fail_on == FailOn::kInconclusive
              ? "a regression, a failed cell or an undecided one"
              : "a regression or a failed cell") +
         "): " + names;
}

std::string RegressionReport::next_step() const {
  const std::size_t inconclusive = count(Verdict::kInconclusive);
  if (measured() == 0 || 2 * inconclusive <= measured()) return "";
  const int rounds = std::max(rounds_needed, rounds_run + 2);
  std::string text = std::to_string(inconclusive) + " of " + std::to_string(measured()) +
                     " measured cells are inconclusive: run both binaries interleaved, "
                     "`crossover compare BASELINE_BIN CANDIDATE_BIN --rerun GRID --rounds " +
                     std::to_string(rounds) + "`";
  if (rounds_run > 0)
    text += " (" + std::to_string(rounds_run) + " rounds were not enough here)";
  else if (calibration.empty())
    text += " (" + std::to_string(kDefaultRounds) +
            " rounds without a calibration; `crossover calibrate GRID` measures how many this "
            "runner needs)";
  else
    text += " (the rounds " + calibration + " says this runner needs)";
  return text;
}

int rounds_needed(double sigma, const RegressionOptions& o) {
  const double target = std::log1p(2.0 * std::max(o.threshold, 0.01));
  for (int n = 2; n < 30; ++n) {
    const boost::math::students_t t(n - 1);
    const double reach = (boost::math::quantile(boost::math::complement(t, o.alpha / 2.0)) +
                          boost::math::quantile(t, 0.9)) *
                         sigma / std::sqrt(static_cast<double>(n));
    if (reach <= target) return n;
  }
  return 30;
}

namespace {

// The machine over the whole comparison, summed up from the drifts each cell's verdict read: one
// account, so that the header cannot contradict a cell.
std::string machine_account(const std::vector<CellVerdict>& cells) {
  std::size_t read = 0, used = 0;
  double low = 1.0, high = 1.0, used_low = 0.0, used_high = 0.0;
  for (const CellVerdict& v : cells) {
    if (!v.machine) continue;
    const double m = *v.machine;
    low = read == 0 ? m : std::min(low, m);
    high = read == 0 ? m : std::max(high, m);
    ++read;
    if (!v.machine_used) continue;
    used_low = used == 0 ? m : std::min(used_low, m);
    used_high = used == 0 ? m : std::max(used_high, m);
    ++used;
  }
  const auto range = [](double a, double b) {
    return a == b ? format_percent(a - 1.0)
                  : format_percent(a - 1.0) + " to " + format_percent(b - 1.0);
  };
  if (read == 0)
    return std::any_of(cells.begin(), cells.end(),
                       [](const CellVerdict& v) { return v.test == TestUsed::kPairedRuns; })
               ? "the machine's drift weighs on both runs of each pair"
               : "machine drift unknown (no reference around the cells compared)";
  // Steady only where the reference stayed within kDriftShare around every cell: a reference
  // that moved 63 % is no steady machine, however noisy it was.
  if (used == 0 && std::max(high - 1.0, 1.0 - low) <= kDriftShare)
    return "the machine steady within its reference's noise around all " + std::to_string(read) +
           " cell(s) compared (reference " + range(low, high) + ")";
  if (used == 0)
    return "the machine's reference moved " + range(low, high) + " around the " +
           std::to_string(read) +
           " cell(s) compared, within its own noise there: the machine was not steady, and "
           "its drift could not be told apart from that noise";
  return "the machine's reference moved (beyond its own noise or by more than " +
         format_percent(kDriftShare, false) + ") around " + std::to_string(used) + " of " +
         std::to_string(read) + " cell(s) compared (" + range(used_low, used_high) +
         "): their changes are judged net of it";
}

}  // namespace

void describe_evidence(RegressionReport& report, const RunLevelContext& context) {
  const bool by_runs = std::any_of(report.cells.begin(), report.cells.end(),
                                   [](const CellVerdict& v) { return run_level(v.test); });
  if (context.calibration != nullptr) report.calibration = context.calibration->source;
  report.machine = machine_account(report.cells);
  const std::string& machine = report.machine;
  if (is_count_metric(report.options.metric)) {
    // Counts are the work the code did: no run-to-run spread, machine or calibration to weigh.
    report.evidence =
        "counted cells, one run per side: each epoch's count against the other side's same "
        "epoch; counts do not move with the machine, so no calibration or reference is weighed";
    return;
  }
  if (by_runs) {
    report.evidence =
        "several runs or processes per side: the rounds of --rerun are paired, each round's "
        "change tested on its log ratio (a paired t), and one run's processes compared by their "
        "medians (Welch's t), so a change must stand out from the variation between runs; " +
        machine;
  } else if (context.calibration != nullptr) {
    report.evidence =
        "one run per side; a regression must stand out from this runner's "
        "run-to-run spread, calibrated in " +
        context.calibration->source + "; " + machine;
  } else {
    report.evidence =
        report.options.assumed_spread > 0.0
            ? "one run per side and no calibration: a change must stand out from the within-run "
              "noise and from an assumed run-to-run variation of " +
                  format_percent(report.options.assumed_spread, false) +
                  " per run (--assumed-spread); " + machine
            : "one run per side and no calibration: the within-run test, and the reference for "
              "the machine's drift; " +
                  machine;
    report.notes.push_back(
        std::string("one run (process) per side without a calibration: the samples show the noise "
                    "within a run, not the larger differences between processes (memory layout, "
                    "neighbours on a shared machine)") +
        (report.options.assumed_spread > 0.0
             ? ", so a change must also stand out from an assumed " +
                   format_percent(report.options.assumed_spread, false) + " per run"
             : "") +
        "; measure each cell in several processes (`\"processes\": 5` in the grid), "
        "measure this runner once with crossover calibrate and pass --calibration "
        "calibrate.json, or use compare --rerun with 3 or more rounds");
  }
  if (context.calibration != nullptr) {
    std::size_t missing = 0;
    for (const auto& v : report.cells)
      missing += v.tested && v.test == TestUsed::kMannWhitney &&
                         v.decided_by != DecidedBy::kRunLevel &&
                         context.calibration->find(v.config) == nullptr
                     ? 1
                     : 0;
    if (missing > 0)
      report.notes.push_back(std::to_string(missing) + " cell(s) are not in " +
                             context.calibration->source +
                             ": they were judged by the within-run test alone");
  }
}

}  // namespace crossover
