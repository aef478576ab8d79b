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
  Evidence e{v.net_change,
             {std::expm1(x - q * sigma), std::expm1(x + q * sigma)},
             within && v.run_level_p < o.alpha};
  e.net = beta > 0.0;
  return e;
}

// One run per side without a calibration: the within-run test, against an assumed run-to-run
// spread unless that is 0.
Evidence uncalibrated_evidence(CellVerdict& v, bool within, const std::string& within_text,
                               const RegressionOptions& o) {
  if (o.assumed_spread <= 0.0) {
    v.decided_by = DecidedBy::kWithinRun;
    v.evidence = "within-run test only (" + within_text +
                 "): without a calibration the drift between runs is unknown";
    return {v.change, v.change_ci, within};
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
  v.evidence =
      "assumed spread: p = " + p_text(v.run_level_p) + " for " + format_percent(v.change) +
      " against an assumed run-to-run variation of " + format_percent(o.assumed_spread, false) +
      " per run (no calibration: crossover calibrate measures this runner's); " + within_text;
  Evidence e{v.change,
             {std::expm1(x - q * sigma), std::expm1(x + q * sigma)},
             within && v.run_level_p < o.alpha};
  e.assumed = true;
  return e;
}

// The machine's drift in the metric's direction: a slower machine raises times and lowers
// throughput.
double machine_log_of(const ReferenceDrift& drift, const RegressionOptions& o) {
  return (is_time_metric(o.metric) ? 1.0 : -1.0) * std::log(drift.machine);
}

}  // namespace

void net_of_machine(CellVerdict& v, Evidence& e, const std::optional<ReferenceDrift>& drift,
                    const RegressionOptions& o) {
  v.net_change = e.effective;
  if (!drift) {
    v.evidence += "; machine drift unknown (no reference)";
    return;
  }
  v.machine = drift->machine;
  v.machine_noise = drift->noise;
  v.evidence += "; " + drift_text(*drift);
  if (!drift->moved()) return;
  const double change = std::log1p(e.effective);
  const double machine = machine_log_of(*drift, o);
  if (change == 0.0 || (change > 0.0) != (machine > 0.0)) return;  // never makes it larger
  // Only the share of the change the drift explains: never more than the change itself.
  const double used = change > 0.0 ? std::min(machine, change) : std::max(machine, change);
  const double low = std::log1p(e.interval.low) - used;
  const double high = std::log1p(e.interval.high) - used;
  const double centre = (low + high) / 2.0;
  const double half = std::hypot((high - low) / 2.0, 1.96 * drift->noise);
  const bool beyond_as_measured = e.significant && std::abs(e.effective) >= o.threshold;
  e.effective = std::expm1(change - used);
  e.interval = {std::expm1(centre - half), std::expm1(centre + half)};
  e.net = true;
  e.significant = e.significant && (e.interval.low > 0.0 || e.interval.high < 0.0);
  v.net_change = e.effective;
  v.machine_used = true;
  e.explained = beyond_as_measured && !(e.significant && std::abs(e.effective) >= o.threshold);
  if (e.explained) v.decided_by = DecidedBy::kReferenceDrift;
}

// One run per side: the within-run test (Mann-Whitney U and a block bootstrap), then the
// calibrated run-level test where the runner was calibrated.
Evidence one_run_evidence(CellVerdict& v, const Result& base, const Result& cand,
                          const std::vector<double>& bs, const std::vector<double>& cs,
                          const RegressionOptions& o, const RunLevelContext& context) {
  v.test = TestUsed::kMannWhitney;
  const auto drift = context.drift(base.cell.index, cand.cell.index, uses_all_cores(base.cell));
  v.change = v.candidate_median / v.baseline_median - 1.0;
  // Consecutive epochs drift together, so the interval resamples blocks of them.
  const Interval ratio =
      bootstrap_speedup(cs, bs, o.seed, 2000, bootstrap_block(std::min(bs.size(), cs.size())));
  v.change_ci = {ratio.low - 1.0, ratio.high - 1.0};
  v.p_value = mann_whitney_p(bs, cs);
  const bool within = v.p_value < o.alpha && (v.change_ci.low > 0.0 || v.change_ci.high < 0.0);
  const std::string within_text = "within run p = " + p_text(v.p_value);
  const CellCalibration* calibrated =
      context.calibration != nullptr ? context.calibration->find(v.config) : nullptr;
  if (calibrated != nullptr) {
    // The calibration's beta says how much of the machine's drift this cell feels; a drift
    // within the reference's own noise, and within kDriftShare, is none.
    const bool moved = drift && drift->moved();
    if (drift) {
      v.machine = drift->machine;
      v.machine_noise = drift->noise;
      v.machine_used = moved;
    }
    const std::string machine_text =
        drift ? drift_text(*drift) : "machine drift unknown (no reference)";
    return calibrated_evidence(
        v, calibrated->spread(o.metric), moved ? drift : std::optional<ReferenceDrift>(),
        moved ? machine_log_of(*drift, o) : 0.0, within, within_text, machine_text, o);
  }
  Evidence e = uncalibrated_evidence(v, within, within_text, o);
  net_of_machine(v, e, drift, o);
  return e;
}

}  // namespace crossover
