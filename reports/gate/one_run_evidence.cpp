#include "reports/gate/one_run_evidence.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "core/stats/significance.hpp"
#include "core/text/text.hpp"

namespace crossover {
namespace {

// One run per side with a calibration: the change, net of the machine's drift, against this
// runner's run-to-run spread (Student's t); significant only when the within-run test is too.
Evidence calibrated_evidence(CellVerdict& v, const CellSpread& spread,
                             const std::optional<ReferenceDrift>& drift, double machine_log,
                             bool within, const std::string& within_text,
                             const std::string& machine_text, const RegressionOptions& o) {
  const double beta = drift ? spread.beta : 0.0;
  const double sigma = drift ? spread.sigma : spread.sigma_raw;
  const double df = drift ? spread.degrees_of_freedom
                          : static_cast<double>(std::max<std::size_t>(spread.pairs, 1));
  const double x = std::log1p(v.change) - beta * machine_log;
  const boost::math::students_t t(df);
  const double q = boost::math::quantile(boost::math::complement(t, 0.025));
  v.run_level_p =
      sigma > 0.0
          ? std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(t, std::abs(x) / sigma)))
          : (x == 0.0 ? 1.0 : 0.0);
  v.net_change = std::expm1(x);
  // Without within-run significance nothing more is asked; with it, the run level decides.
  v.decided_by = within ? DecidedBy::kRunLevel : DecidedBy::kWithinRun;
  v.evidence = "run-level p = " + p_text(v.run_level_p) + ": " + format_percent(v.change) +
               (beta > 0.0 ? " (" + format_percent(v.net_change) + " net of the machine)" : "") +
               " against this runner's run-to-run spread of " + format_percent(sigma, false) +
               " (calibrated on " + std::to_string(spread.pairs) + " A/A pairs); " + within_text +
               "; " + machine_text;
  return {v.net_change,
          {std::expm1(x - q * sigma), std::expm1(x + q * sigma)},
          within && v.run_level_p<o.alpha, false, beta> 0.0};
}

// One run per side without a calibration: the within-run test alone, and whether the reference's
// drift is as large as the change.
Evidence within_run_evidence(CellVerdict& v, const std::optional<ReferenceDrift>& drift,
                             double machine_log, bool within, const std::string& within_text,
                             const std::string& machine_text, const RegressionOptions& o) {
  v.net_change = drift ? std::expm1(std::log1p(v.change) - machine_log) : v.change;
  const bool drift_explains = drift && within && drift_explains_change(v.change, v.net_change, o);
  // The reference moved as the cell did, by more than the threshold, but not enough to explain
  // all of it: one run per side cannot tell how much of the rest is the machine (a load slows a
  // memory-bound step more than the matmul the reference times), so it decides nothing.
  if (drift && within && !drift_explains && machine_moved_with(v.change, drift->machine, o)) {
    v.decided_by = DecidedBy::kReferenceDrift;
    v.evidence = "the machine's speed moved: " + machine_text + "; " + within_text;
    Evidence e{v.net_change, v.change_ci, within, false, true, false};
    e.machine_moved = true;
    return e;
  }
  if (drift_explains || o.assumed_spread <= 0.0) {
    v.decided_by = drift_explains ? DecidedBy::kReferenceDrift : DecidedBy::kWithinRun;
    v.evidence =
        (drift_explains ? "reference drift: " + machine_text + ", as much as the change (" +
                              format_percent(v.change) + "); " + within_text
                        : "within-run test only (" + within_text +
                              "): without a calibration the drift between runs is "
                              "unknown; " +
                              machine_text);
    return {v.change, v.change_ci, within, drift_explains, false, false};
  }
  // The two runs' medians differ by the processes as well as by the code: against an assumed
  // variation of one run (the spread of their ratio is sqrt(2) times it), as against a
  // calibrated spread, until the runner is calibrated.
  const double sigma = o.assumed_spread * std::sqrt(2.0);
  const double x = std::log1p(v.change);
  const boost::math::normal z;
  const double q = boost::math::quantile(boost::math::complement(z, 0.025));
  v.run_level_p =
      std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(z, std::abs(x) / sigma)));
  v.decided_by = within ? DecidedBy::kAssumedSpread : DecidedBy::kWithinRun;
  v.evidence = "assumed spread: p = " + p_text(v.run_level_p) + " for " + format_percent(v.change) +
               " against an assumed run-to-run variation of " +
               format_percent(o.assumed_spread, false) +
               " per run (no calibration: crossover calibrate measures this runner's); " +
               within_text + "; " + machine_text;
  return {v.change,
          {std::expm1(x - q * sigma), std::expm1(x + q * sigma)},
          within && v.run_level_p < o.alpha,
          false,
          false,
          true};
}

// The machine's drift in the metric's direction: a slower machine raises times and lowers
// throughput.
double machine_log_of(const ReferenceDrift& drift, const RegressionOptions& o) {
  return (is_time_metric(o.metric) ? 1.0 : -1.0) * std::log(drift.machine);
}

}  // namespace

bool machine_moved_with(double change, double machine, const RegressionOptions& o) {
  if (!(machine > 0.0)) return false;
  const bool time_metric = is_time_metric(o.metric);
  const bool worse = time_metric ? change > 0.0 : change < 0.0;
  const double limit = std::log1p(o.threshold);
  return worse ? std::log(machine) > limit : std::log(machine) < -limit;
}

bool drift_explains_change(double change, double net_change, const RegressionOptions& o) {
  const bool time_metric = is_time_metric(o.metric);
  const bool worse_now = time_metric ? change > 0.0 : change < 0.0;
  const bool worse_net = time_metric ? net_change > 0.0 : net_change < 0.0;
  return std::abs(change) >= o.threshold &&
         (worse_now != worse_net || std::abs(net_change) < o.threshold);
}

void check_machine_drift(CellVerdict& v, Evidence& e, const Result& base, const Result& cand,
                         const RegressionOptions& o, const RunLevelContext& context) {
  const auto drift = context.drift(base.cell.index, cand.cell.index, uses_all_cores(base.cell));
  if (!drift) {
    v.evidence += "; machine drift unknown (no reference)";
    return;
  }
  v.machine = drift->machine;
  v.net_change = std::expm1(std::log1p(v.change) - machine_log_of(*drift, o));
  v.evidence += "; " + drift_text(*drift);
  if (e.significant && drift_explains_change(v.change, v.net_change, o)) {
    e.drift_explains = true;
    v.decided_by = DecidedBy::kReferenceDrift;
  } else if (e.significant && machine_moved_with(v.change, drift->machine, o)) {
    e.machine_moved = true;  // its processes shared the machine's state: the same doubt
    v.decided_by = DecidedBy::kReferenceDrift;
  }
}

// One run per side: the within-run test (Mann-Whitney U and a block bootstrap), then the
// calibrated run-level test where the runner was calibrated.
Evidence one_run_evidence(CellVerdict& v, const Result& base, const Result& cand,
                          const std::vector<double>& bs, const std::vector<double>& cs,
                          const RegressionOptions& o, const RunLevelContext& context) {
  v.test = "mann-whitney";
  const auto drift = context.drift(base.cell.index, cand.cell.index, uses_all_cores(base.cell));
  if (drift) v.machine = drift->machine;
  v.change = v.candidate_median / v.baseline_median - 1.0;
  // Consecutive epochs drift together, so the interval resamples blocks of them.
  const Interval ratio =
      bootstrap_speedup(cs, bs, o.seed, 2000, bootstrap_block(std::min(bs.size(), cs.size())));
  v.change_ci = {ratio.low - 1.0, ratio.high - 1.0};
  v.p_value = mann_whitney_p(bs, cs);
  const bool within = v.p_value < o.alpha && (v.change_ci.low > 0.0 || v.change_ci.high < 0.0);
  const std::string within_text = "within run p = " + p_text(v.p_value);
  const std::string machine_text =
      drift ? drift_text(*drift) : "machine drift unknown (no reference)";
  const double machine_log = drift ? machine_log_of(*drift, o) : 0.0;
  const CellCalibration* calibrated =
      context.calibration != nullptr ? context.calibration->find(v.config) : nullptr;
  if (calibrated != nullptr) {
    return calibrated_evidence(v, calibrated->spread(o.metric), drift, machine_log, within,
                               within_text, machine_text, o);
  }
  return within_run_evidence(v, drift, machine_log, within, within_text, machine_text, o);
}

}  // namespace crossover
