#include "reports/regression.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "reports/analysis.hpp"
#include "reports/cell_names.hpp"
#include "reports/table.hpp"
#include "runner/text.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// The matmul peak measured at the start of a run varies by up to ~28 % between quiet runs on a
// shared 2-core VM; two busy processes lowered it by 40 %.
constexpr double kPeakTolerance = 0.30;

// Exact null distribution up to this many samples per side; the normal approximation beyond.
constexpr std::size_t kExactLimit = 30;

// Ranks from 1, ties sharing their average rank; `tie_term` gets the sum of t^3 - t over groups.
std::vector<double> ranks(const std::vector<double>& values, double& tie_term) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> rank(values.size());
  tie_term = 0.0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double shared = (static_cast<double>(i + j) + 2.0) / 2.0;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = shared;
    const double t = static_cast<double>(j - i + 1);
    tie_term += t * t * t - t;
    i = j + 1;
  }
  return rank;
}

// P(U <= u) under the null hypothesis for samples of n and m without ties, by counting the
// orderings: f(n, m, u) = f(n - 1, m, u - m) + f(n, m - 1, u).
double exact_cdf(std::size_t n, std::size_t m, double u) {
  std::vector<std::vector<std::vector<double>>> f(n + 1, std::vector<std::vector<double>>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) {
    for (std::size_t j = 0; j <= m; ++j) {
      f[i][j].assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        f[i][j][0] = 1.0;
        continue;
      }
      for (std::size_t k = 0; k <= i * j; ++k) {
        double ways = k < f[i][j - 1].size() ? f[i][j - 1][k] : 0.0;
        if (k >= j && k - j < f[i - 1][j].size()) ways += f[i - 1][j][k - j];
        f[i][j][k] = ways;
      }
    }
  }
  double at_most = 0.0, total = 0.0;
  for (std::size_t k = 0; k < f[n][m].size(); ++k) {
    total += f[n][m][k];
    if (static_cast<double>(k) <= u + 1e-9) at_most += f[n][m][k];
  }
  return at_most / total;
}

std::string percent(double fraction, bool sign = true) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, sign ? "%+.1f %%" : "%.1f %%", 100.0 * fraction);
  return buffer;
}

std::string p_text(double p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, p < 0.001 ? "%.1e" : "%.3f", p);
  return buffer;
}

std::string interval_text(const Interval& ci) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "[%+.1f, %+.1f] %%", 100.0 * ci.low, 100.0 * ci.high);
  return buffer;
}

bool is_time_metric(const std::string& metric) { return metric != "throughput"; }

std::string metric_text(const std::string& metric) {
  if (metric == "step") return "time per step";
  if (metric == "throughput") return "throughput (samples/s)";
  return "time per epoch";
}

std::string value_in_unit(double value, const std::string& metric) {
  return is_time_metric(metric) ? format_seconds(value) : format_number(value) + "/s";
}

// The configuration cells are matched on: what is measured, not how long (the stopping rule) nor
// how the cell was guarded (isolation, time-out).
Json match_config(const Cell& cell) { return cell_identity_json(cell); }

std::vector<double> metric_samples(const Result& r, const std::string& metric) {
  if (metric == "step") return r.step_seconds_samples;
  if (metric == "epoch") return r.epoch_seconds_samples;
  std::vector<double> throughput;
  for (double seconds : r.epoch_seconds_samples) {
    if (seconds > 0.0) throughput.push_back(static_cast<double>(r.train_rows) / seconds);
  }
  return throughput;
}

// Every occurrence of one configuration in one run.
struct Group {
  Json config;
  std::vector<const Result*> results;

  const Result* first_ok() const {
    for (const Result* r : results) {
      if (r->status == "ok") return r;
    }
    return nullptr;
  }
  // The samples of each run in which the cell was ok (empty runs left out).
  std::vector<std::vector<double>> runs(const std::string& metric) const {
    std::vector<std::vector<double>> out;
    for (const Result* r : results) {
      if (r->status != "ok") continue;
      auto s = metric_samples(*r, metric);
      if (!s.empty()) out.push_back(std::move(s));
    }
    return out;
  }
};

std::vector<double> pooled(const std::vector<std::vector<double>>& runs) {
  std::vector<double> out;
  for (const auto& run : runs) out.insert(out.end(), run.begin(), run.end());
  return out;
}

// Groups in the order their configurations first occur.
std::vector<Group> group(const std::vector<Result>& results) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> where;
  for (const Result& r : results) {
    Json config = match_config(r.cell);
    const auto [it, inserted] = where.emplace(config.dump(), groups.size());
    if (inserted) groups.push_back({std::move(config), {}});
    groups[it->second].results.push_back(&r);
  }
  return groups;
}

void judge(CellVerdict& v, const Group& b, const Group& c, const RegressionOptions& o,
           const RunLevelContext& context) {
  const Result* base = b.first_ok();
  const Result* cand = c.first_ok();
  if (base == nullptr) {
    const Result& r = *b.results.front();
    v.verdict = "not compared";
    v.reason = "baseline " + r.status + (r.reason.empty() ? "" : ": " + r.reason);
    return;
  }
  v.baseline_cell = base->cell.index;
  if (cand == nullptr) {
    const Result& r = *c.results.front();
    v.verdict = r.status == "failed" ? "failed" : "not compared";
    v.reason = "candidate " + r.status + (r.reason.empty() ? "" : ": " + r.reason);
    return;
  }
  v.candidate_cell = cand->cell.index;
  const auto b_runs = b.runs(o.metric);
  const auto c_runs = c.runs(o.metric);
  const auto bs = pooled(b_runs);
  const auto cs = pooled(c_runs);
  v.baseline_runs = b_runs.size();
  v.candidate_runs = c_runs.size();
  v.baseline_samples = bs.size();
  v.candidate_samples = cs.size();
  if (!bs.empty()) v.baseline_median = quantile(bs, 0.5);
  if (!cs.empty()) v.candidate_median = quantile(cs, 0.5);
  if (base->data_source != cand->data_source || base->train_rows != cand->train_rows) {
    v.verdict = "inconclusive";
    v.reason = "the data differ: baseline " + base->data_source + " " +
               std::to_string(base->train_rows) + " rows, candidate " + cand->data_source + " " +
               std::to_string(cand->train_rows) + " rows";
    return;
  }
  const bool by_runs = b_runs.size() >= 2 && c_runs.size() >= 2;
  if (!by_runs &&
      (bs.size() < 2 || cs.size() < 2 || smallest_p_value(bs.size(), cs.size()) > o.alpha)) {
    v.verdict = "inconclusive";
    v.reason = "too few samples (" + std::to_string(bs.size()) + " and " +
               std::to_string(cs.size()) + "): at least " +
               std::to_string(samples_needed(o.alpha)) + " per side can reach alpha " +
               format_number(o.alpha) + "; raise repeats or epochs";
    return;
  }
  v.tested = true;
  const bool time_metric = is_time_metric(o.metric);
  // The change the threshold applies to, and the interval that says "no change".
  double effective = 0.0;
  Interval interval;
  bool significant = false;
  bool drift_explains = false;
  if (by_runs) {
    // Several runs per side: the run is the unit of replication, not the epoch.
    const RunLevelTest t = run_level_test(b_runs, c_runs);
    v.test = "welch-runs";
    v.change = t.change;
    v.change_ci = t.change_ci;
    v.p_value = t.p_value;
    v.run_level_p = t.p_value;
    v.net_change = v.change;
    effective = v.change;
    interval = v.change_ci;
    significant = v.p_value < o.alpha;
    v.decided_by = "run-level test";
    v.evidence = "run-level test: Welch t on " + std::to_string(b_runs.size()) + " and " +
                 std::to_string(c_runs.size()) + " run medians, p = " + p_text(v.p_value);
  } else {
    v.test = "mann-whitney";
    const auto drift = context.drift(base->cell.index, cand->cell.index);
    if (drift) v.machine = drift->machine;
    v.change = v.candidate_median / v.baseline_median - 1.0;
    // Consecutive epochs drift together, so the interval resamples blocks of them.
    const Interval ratio = bootstrap_speedup(cs, bs, o.seed, 2000,
                                             bootstrap_block(std::min(bs.size(), cs.size())));
    v.change_ci = {ratio.low - 1.0, ratio.high - 1.0};
    v.p_value = mann_whitney_p(bs, cs);
    const bool within = v.p_value < o.alpha && (v.change_ci.low > 0.0 || v.change_ci.high < 0.0);
    const std::string within_text = "within run p = " + p_text(v.p_value);
    const std::string machine_text = drift ? drift_text(*drift)
                                                   : "machine drift unknown (no reference)";
    // The machine's drift in the metric's direction: a slower machine raises times and
    // lowers throughput.
    const double machine_log =
        drift ? (time_metric ? 1.0 : -1.0) * std::log(drift->machine) : 0.0;
    const CellCalibration* calibrated =
        context.calibration != nullptr ? context.calibration->find(v.config) : nullptr;
    if (calibrated != nullptr) {
      const CellSpread& spread = calibrated->spread(o.metric);
      const double beta = drift ? spread.beta : 0.0;
      const double sigma = drift ? spread.sigma : spread.sigma_raw;
      const double df = drift ? spread.degrees_of_freedom
                                      : static_cast<double>(std::max<std::size_t>(spread.pairs, 1));
      const double x = std::log1p(v.change) - beta * machine_log;
      const boost::math::students_t t(df);
      const double q = boost::math::quantile(boost::math::complement(t, 0.025));
      v.run_level_p =
          sigma > 0.0 ? std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(
                                                t, std::abs(x) / sigma)))
                      : (x == 0.0 ? 1.0 : 0.0);
      v.net_change = std::expm1(x);
      effective = v.net_change;
      interval = {std::expm1(x - q * sigma), std::expm1(x + q * sigma)};
      significant = within && v.run_level_p < o.alpha;
      // Without within-run significance nothing more is asked; with it, the run level decides.
      v.decided_by = within ? "run-level test" : "within-run test";
      v.evidence = "run-level p = " + p_text(v.run_level_p) + ": " + percent(v.change) +
                   (beta > 0.0 ? " (" + percent(v.net_change) + " net of the machine)" : "") +
                   " against this runner's run-to-run spread of " + percent(sigma, false) +
                   " (calibrated on " + std::to_string(spread.pairs) + " A/A pairs); " +
                   within_text + "; " + machine_text;
    } else {
      effective = v.change;
      interval = v.change_ci;
      significant = within;
      v.net_change = drift ? std::expm1(std::log1p(v.change) - machine_log) : v.change;
      const bool worse_now = time_metric ? v.change > 0.0 : v.change < 0.0;
      const bool worse_net = time_metric ? v.net_change > 0.0 : v.net_change < 0.0;
      drift_explains = drift && significant && std::abs(v.change) >= o.threshold &&
                       (worse_now != worse_net || std::abs(v.net_change) < o.threshold);
      v.decided_by = drift_explains ? "reference drift" : "within-run test";
      v.evidence = (drift_explains ? "reference drift: " + machine_text +
                                         ", as much as the change (" + percent(v.change) +
                                         "); " + within_text
                                   : "within-run test only (" + within_text +
                                         "): without a calibration the drift between runs is "
                                         "unknown; " + machine_text);
    }
  }
  const bool worse = time_metric ? effective > 0.0 : effective < 0.0;
  // The p-value of the test that decided: with a calibration, the larger of the two.
  const double decisive_p =
      v.decided_by == "run-level test" ? std::max(v.p_value, v.run_level_p) : v.p_value;
  const std::string bounds = "±" + percent(o.threshold, false);
  if (drift_explains) {
    v.verdict = "inconclusive";
    v.reason = "the machine's own change of speed explains it: " + percent(v.change) +
               " measured, " + percent(v.net_change) + " net of the reference drift";
  } else if (significant && std::abs(effective) >= o.threshold) {
    v.verdict = worse ? "regression" : "improvement";
    v.reason = "significant and beyond " + bounds;
  } else if (significant) {
    v.verdict = "no change";
    v.reason = "significant (p = " + p_text(decisive_p) + ") but within " + bounds;
  } else if (interval.low > -o.threshold && interval.high < o.threshold) {
    v.verdict = "no change";
    v.reason = "not significant (p = " + p_text(decisive_p) + "), interval within " + bounds;
  } else {
    v.verdict = "inconclusive";
    v.reason = "too noisy: not significant, and the interval reaches past " + bounds +
               (by_runs ? "; the runs differ: more rounds or a quieter machine"
                        : "; more repeats or a quieter machine");
  }
  v.reason += by_runs ? " (Welch t on " + std::to_string(b_runs.size()) + " and " +
                            std::to_string(c_runs.size()) + " run medians)"
                      : " (Mann-Whitney U on " + std::to_string(bs.size()) + " and " +
                            std::to_string(cs.size()) + " samples)";
  if (base->noisy || cand->noisy) {
    v.reason += std::string("; noisy ") +
                (base->noisy && cand->noisy ? "both runs"
                 : base->noisy              ? "baseline"
                                            : "candidate") +
                " (IQR > 10 % of the median)";
  }
}

int severity(const std::string& verdict) {
  static const std::vector<std::string> order = {"regression",   "failed",    "improvement",
                                                 "inconclusive", "no change", "not compared"};
  return static_cast<int>(std::find(order.begin(), order.end(), verdict) - order.begin());
}

std::string cell_value(double median, std::size_t samples, std::size_t runs,
                       const std::string& metric) {
  if (samples == 0) return "-";
  return value_in_unit(median, metric) + " (n=" + std::to_string(samples) +
         (runs > 1 ? ", " + std::to_string(runs) + " runs" : "") + ")";
}

TextTable verdict_table(const std::vector<const CellVerdict*>& cells, const std::string& metric,
                        bool with_verdict) {
  TextTable table;
  if (with_verdict) table.header.push_back("verdict");
  for (const char* h :
       {"cell", "baseline", "candidate", "change", "95 % CI", "p", "decided by", "why"})
    table.header.push_back(h);
  table.right_aligned.assign(table.header.size(), false);
  for (std::size_t i = table.header.size() - 7; i < table.header.size() - 2; ++i)
    table.right_aligned[i] = true;
  for (const CellVerdict* v : cells) {
    std::vector<std::string> row;
    if (with_verdict) row.push_back(v->verdict);
    const bool measured = v->tested;
    row.push_back(v->name);
    row.push_back(cell_value(v->baseline_median, v->baseline_samples, v->baseline_runs, metric));
    row.push_back(cell_value(v->candidate_median, v->candidate_samples, v->candidate_runs, metric));
    row.push_back(measured ? percent(v->change) : "-");
    row.push_back(measured ? interval_text(v->change_ci) : "-");
    row.push_back(measured ? p_text(v->p_value) : "-");
    row.push_back(v->decided_by.empty() ? "-" : v->decided_by);
    row.push_back(v->reason);
    table.rows.push_back(row);
  }
  return table;
}

std::string headline(const RegressionReport& r) {
  const std::size_t regressions = r.count("regression"), failed = r.count("failed");
  std::string text;
  if (regressions + failed == 0) {
    text = "no regression";
  } else {
    text = std::to_string(regressions) + " regression(s)";
    if (failed > 0) text += ", " + std::to_string(failed) + " cell(s) failed in the candidate";
  }
  text += " in " + std::to_string(r.cells.size()) +
          " matched cell(s): " + std::to_string(r.count("improvement")) + " improved, " +
          std::to_string(r.count("no change")) + " unchanged, " +
          std::to_string(r.count("inconclusive")) + " inconclusive, " +
          std::to_string(r.count("not compared")) + " not compared";
  return text;
}

std::string settings_text(const RegressionOptions& o) {
  return "metric: " + metric_text(o.metric) + "; a regression needs p < " + format_number(o.alpha) +
         " (two-sided: Mann-Whitney U on the samples of one run per side, Welch t on the "
         "logarithms of the run medians when each side has several runs) and a change of " +
         percent(o.threshold, false) +
         " or more in the median; change = candidate / baseline - 1 " +
         "with a bootstrap 95 % interval";
}

}  // namespace

RunLevelTest run_level_test(const std::vector<std::vector<double>>& baseline_runs,
                            const std::vector<std::vector<double>>& candidate_runs) {
  const auto log_medians = [](const std::vector<std::vector<double>>& runs) {
    std::vector<double> out;
    for (const auto& run : runs) {
      const double median = run.empty() ? 0.0 : quantile(run, 0.5);
      if (!(median > 0.0)) throw std::invalid_argument("a run without positive samples");
      out.push_back(std::log(median));
    }
    if (out.size() < 2) throw std::invalid_argument("the run-level test needs two runs per side");
    return out;
  };
  const Summary b = summarize(log_medians(baseline_runs));
  const Summary c = summarize(log_medians(candidate_runs));
  const double nb = static_cast<double>(b.count), nc = static_cast<double>(c.count);
  const double vb = b.stdev * b.stdev / nb, vc = c.stdev * c.stdev / nc;
  const double difference = c.mean - b.mean;
  RunLevelTest t;
  t.change = std::exp(difference) - 1.0;
  if (vb + vc <= 0.0) {  // every run gave the same median on both sides
    t.p_value = difference == 0.0 ? 1.0 : 0.0;
    t.change_ci = {t.change, t.change};
    return t;
  }
  const double se = std::sqrt(vb + vc);
  // Welch-Satterthwaite degrees of freedom.
  t.degrees_of_freedom = (vb + vc) * (vb + vc) / (vb * vb / (nb - 1.0) + vc * vc / (nc - 1.0));
  const boost::math::students_t distribution(t.degrees_of_freedom);
  t.p_value = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(
                                      distribution, std::abs(difference) / se)));
  const double q = boost::math::quantile(boost::math::complement(distribution, 0.025));
  t.change_ci = {std::exp(difference - q * se) - 1.0, std::exp(difference + q * se) - 1.0};
  return t;
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 1.0;
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  double tie_term = 0.0;
  const auto rank = ranks(all, tie_term);
  double rank_sum_a = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) rank_sum_a += rank[i];
  const double n = static_cast<double>(a.size()), m = static_cast<double>(b.size());
  const double u_a = rank_sum_a - n * (n + 1.0) / 2.0;
  const double u = std::min(u_a, n * m - u_a);
  if (tie_term == 0.0 && a.size() <= kExactLimit && b.size() <= kExactLimit)
    return std::min(1.0, 2.0 * exact_cdf(a.size(), b.size(), u));
  const double total = n + m;
  const double variance = n * m / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
  if (variance <= 0.0) return 1.0;  // every value equal
  const double z = std::max(0.0, std::abs(u_a - n * m / 2.0) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

double smallest_p_value(std::size_t n, std::size_t m) {
  if (n == 0 || m == 0) return 1.0;
  // 2 / C(n + m, n), computed in logarithms: C(60, 30) overflows nothing, C(2000, 1000) would.
  const double log_choose = std::lgamma(static_cast<double>(n + m) + 1.0) -
                            std::lgamma(static_cast<double>(n) + 1.0) -
                            std::lgamma(static_cast<double>(m) + 1.0);
  return std::min(1.0, 2.0 * std::exp(-log_choose));
}

std::size_t samples_needed(double alpha) {
  std::size_t n = 1;
  while (smallest_p_value(n, n) > alpha && n < 1000) ++n;
  return n;
}

void check_options(const RegressionOptions& o) {
  if (!(o.threshold >= 0.0 && o.threshold < 10.0))
    throw std::invalid_argument("--threshold must be a percentage from 0 to 1000, got " +
                                format_number(100.0 * o.threshold));
  if (!(o.alpha > 0.0 && o.alpha < 1.0))
    throw std::invalid_argument("--alpha must lie between 0 and 1, got " + format_number(o.alpha));
  if (o.metric != "epoch" && o.metric != "step" && o.metric != "throughput")
    throw std::invalid_argument("--metric must be epoch, step or throughput, got " + o.metric);
  if (o.fail_on != "regression" && o.fail_on != "any-change" && o.fail_on != "none")
    throw std::invalid_argument("--fail-on must be regression, any-change or none, got " +
                                o.fail_on);
}

std::size_t RegressionReport::count(const std::string& verdict) const {
  return static_cast<std::size_t>(std::count_if(
      cells.begin(), cells.end(), [&](const CellVerdict& v) { return v.verdict == verdict; }));
}

bool RegressionReport::unfair() const {
  return std::any_of(environment.begin(), environment.end(),
                     [](const EnvironmentDifference& d) { return d.unfair; });
}

bool RegressionReport::fails() const {
  if (options.fail_on == "none") return false;
  const std::size_t bad = count("regression") + count("failed");
  if (options.fail_on == "any-change") return bad + count("improvement") > 0;
  return bad > 0;
}

RegressionReport compare_runs(const std::vector<Result>& baseline,
                              const std::vector<Result>& candidate,
                              const RegressionOptions& options, const RunLevelContext& context) {
  check_options(options);
  const auto base_groups = group(baseline);
  const auto cand_groups = group(candidate);
  std::map<std::string, std::size_t> cand_where;
  for (std::size_t i = 0; i < cand_groups.size(); ++i) cand_where[cand_groups[i].config.dump()] = i;

  // Names are computed over both runs, so a cell has the same name on both sides.
  std::vector<Json> configs;
  for (const auto& g : base_groups) configs.push_back(g.config);
  for (const auto& g : cand_groups) configs.push_back(g.config);
  const auto names = distinguishing_names(configs);

  RegressionReport report;
  report.options = options;
  std::vector<bool> matched(cand_groups.size(), false);
  for (std::size_t i = 0; i < base_groups.size(); ++i) {
    const auto it = cand_where.find(base_groups[i].config.dump());
    if (it == cand_where.end()) {
      report.only_in_baseline.push_back(names[i]);
      continue;
    }
    matched[it->second] = true;
    CellVerdict v;
    v.name = names[i];
    v.config = base_groups[i].config;
    v.baseline_cell = base_groups[i].results.front()->cell.index;
    v.candidate_cell = cand_groups[it->second].results.front()->cell.index;
    judge(v, base_groups[i], cand_groups[it->second], options, context);
    report.cells.push_back(std::move(v));
  }
  for (std::size_t i = 0; i < cand_groups.size(); ++i) {
    if (!matched[i]) report.only_in_candidate.push_back(names[base_groups.size() + i]);
  }
  std::size_t most_runs = 0;
  for (const auto& v : report.cells)
    most_runs = std::max({most_runs, v.baseline_runs, v.candidate_runs});
  report.drift = context.drift();
  if (context.calibration != nullptr) report.calibration = context.calibration->source;
  const std::string machine =
      report.drift ? drift_text(*report.drift) : "machine drift unknown (no reference)";
  if (most_runs > 1) {
    report.evidence = "several runs per side: each cell's runs are compared by their medians "
                      "(the run-level test)";
  } else if (context.calibration != nullptr) {
    report.evidence = "one run per side; a regression must stand out from this runner's "
                      "run-to-run spread, calibrated in " + context.calibration->source + "; " +
                      machine;
  } else {
    report.evidence = "one run per side and no calibration: the within-run test, and the "
                      "reference for the machine's drift; " + machine;
    report.notes.push_back(
        "one run (process) per side without a calibration: the samples show the noise within a "
        "run, not the larger differences between processes (memory layout, neighbours on a "
        "shared machine); measure this runner once with crossover calibrate and pass "
        "--calibration calibrate.json, or use compare --rerun with 3 or more rounds");
  }
  if (context.calibration != nullptr) {
    std::size_t missing = 0;
    for (const auto& v : report.cells)
      missing += v.tested && v.test == "mann-whitney" && v.decided_by != "run-level test" &&
                         context.calibration->find(v.config) == nullptr
                     ? 1
                     : 0;
    if (missing > 0)
      report.notes.push_back(std::to_string(missing) + " cell(s) are not in " +
                             context.calibration->source +
                             ": they were judged by the within-run test alone");
  }
  std::stable_sort(report.cells.begin(), report.cells.end(),
                   [](const CellVerdict& a, const CellVerdict& b) {
                     return severity(a.verdict) < severity(b.verdict);
                   });
  return report;
}

std::optional<ReferenceDrift> RunLevelContext::drift(std::optional<std::size_t> baseline_cell,
                                                     std::optional<std::size_t> candidate_cell) const {
  if (baseline_env == nullptr || candidate_env == nullptr) return std::nullopt;
  return reference_drift(*baseline_env, *candidate_env, baseline_cell, candidate_cell);
}

RegressionReport compare_records(const RunRecord& baseline, const RunRecord& candidate,
                                 const RegressionOptions& options,
                                 const Calibration* calibration) {
  RunLevelContext context;
  context.baseline_env = &baseline.environment;
  context.candidate_env = &candidate.environment;
  context.calibration = calibration;
  RegressionReport report = compare_runs(baseline.results, candidate.results, options, context);
  report.baseline_label = baseline.label;
  report.candidate_label = candidate.label;
  report.environment = environment_differences(baseline.environment, candidate.environment);
  for (const RunRecord* run : {&baseline, &candidate}) {
    if (run->environment.is_null())
      report.notes.push_back(run->label + " has no env.json: the environments were not compared");
  }
  if (calibration != nullptr && !baseline.environment.is_null()) {
    const auto here = runner_of(baseline.environment);
    for (const char* key : {"host", "cpu", "logical_cores"}) {
      if (calibration->runner.contains(key) && here.contains(key) &&
          calibration->runner[key] != here[key]) {
        report.notes.push_back(calibration->source + " was measured on another runner (" + key +
                               " " + calibration->runner[key].dump() + ", here " +
                               here[key].dump() + "): its run-to-run spread may not hold here");
        break;
      }
    }
  }
  return report;
}

std::vector<EnvironmentDifference> environment_differences(const nlohmann::json& baseline,
                                                           const nlohmann::json& candidate,
                                                           bool measured) {
  std::vector<EnvironmentDifference> out;
  if (baseline.is_null() || candidate.is_null()) return out;
  const auto text = [](const nlohmann::json& record, const std::string& pointer) -> std::string {
    const nlohmann::json::json_pointer p(pointer);
    if (!record.contains(p)) return "(not recorded)";
    const auto& value = record.at(p);
    return value.is_string() ? value.get<std::string>() : value.dump();
  };
  struct Field {
    const char* pointer;
    const char* what;
    bool unfair;
  };
  static const Field fields[] = {
      {"/cpu/model", "CPU", true},
      {"/cpu/logical_cores", "logical cores", true},
      {"/cpu/governor", "CPU frequency governor", true},
      {"/threads/intra_op", "intra-op threads", true},
      {"/threads/inter_op", "inter-op threads", true},
      {"/threads/blas", "BLAS threads", true},
      {"/threads/OMP_NUM_THREADS", "OMP_NUM_THREADS", true},
      {"/blas/kind", "BLAS", true},
      {"/blas/version", "BLAS version", true},
      {"/libtorch/version", "LibTorch", true},
      {"/libtorch/parallel_backend", "LibTorch parallel backend", true},
      {"/libtorch/use_cuda", "LibTorch with CUDA", true},
      {"/cuda/runtime_version", "CUDA runtime", true},
      {"/cuda/cudnn_version", "cuDNN", true},
      {"/nvml/driver_version", "NVIDIA driver", true},
      {"/host/hostname", "host", false},
      {"/host/kernel", "kernel", false},
      {"/host/os", "OS", false},
      {"/compiler", "compiler", false},
      {"/crossover_revision", "crossover revision", false},
      {"/planted_load", "planted load (busy processes, CROSSOVER_PLANT_LOAD)", true},
  };
  for (const Field& f : fields) {
    const std::string b = text(baseline, f.pointer), c = text(candidate, f.pointer);
    if (b != c) out.push_back({f.what, b, c, f.unfair});
  }
  const auto gpu_names = [](const nlohmann::json& record) {
    std::vector<std::string> names;
    if (record.contains("gpus") && record["gpus"].is_array()) {
      for (const auto& gpu : record["gpus"]) names.push_back(gpu.value("name", std::string("?")));
    }
    return names.empty() ? std::string("none") : join(names);
  };
  if (gpu_names(baseline) != gpu_names(candidate))
    out.push_back({"GPUs", gpu_names(baseline), gpu_names(candidate), true});
  // The matmul peak measured at the start of each run: a busy or throttled machine shows here.
  if (measured && baseline.contains("peak_gflops") && candidate.contains("peak_gflops")) {
    for (const auto& [device, b] : baseline["peak_gflops"].items()) {
      if (!candidate["peak_gflops"].contains(device) || !b.is_number()) continue;
      const double bv = b.get<double>(), cv = candidate["peak_gflops"][device].get<double>();
      if (bv > 0.0 && std::abs(cv / bv - 1.0) > kPeakTolerance) {
        out.push_back({device + " matmul peak (GFLOP/s, measured at the start)", format_number(bv),
                       format_number(cv) + " (" + percent(cv / bv - 1.0) +
                           "): busy, throttled or different hardware",
                       true});
      }
    }
  }
  return out;
}

std::string render_regression_text(const RegressionReport& r) {
  std::string out = "crossover compare: " + r.baseline_label + " -> " + r.candidate_label + "\n";
  out += settings_text(r.options) + "\n";
  for (const auto& d : r.environment) {
    out += std::string(d.unfair ? "WARNING environment differs: " : "environment differs: ") +
           d.what + ": " + d.baseline + " -> " + d.candidate + "\n";
  }
  if (!r.evidence.empty()) out += "evidence: " + r.evidence + "\n";
  for (const auto& note : r.notes) out += "note: " + note + "\n";
  std::vector<const CellVerdict*> all;
  for (const auto& v : r.cells) all.push_back(&v);
  out += "\n" + render_text_table(verdict_table(all, r.options.metric, true));
  for (const auto& name : r.only_in_baseline) out += "only in the baseline: " + name + "\n";
  for (const auto& name : r.only_in_candidate) out += "only in the candidate: " + name + "\n";
  out += "\n" + headline(r) + "\n";
  return out;
}

std::string render_regression_markdown(const RegressionReport& r) {
  std::string out = "## crossover compare: " + headline(r) + "\n\n";
  out += "Baseline `" + r.baseline_label + "`, candidate `" + r.candidate_label + "`. " +
         settings_text(r.options) + ".\n\n";
  if (!r.evidence.empty()) out += "**Evidence:** " + r.evidence + ".\n\n";
  if (r.unfair()) {
    out +=
        "> **Warning:** the two runs' environments differ in ways that change timings by "
        "themselves; read the verdicts with care.\n\n";
  }
  if (!r.environment.empty()) {
    TextTable env;
    env.header = {"environment", "baseline", "candidate", "can skew timings"};
    for (const auto& d : r.environment)
      env.rows.push_back({d.what, d.baseline, d.candidate, d.unfair ? "yes" : "no"});
    out += render_markdown_table(env) + "\n";
  }
  for (const auto& note : r.notes) out += "- " + note + "\n";
  if (!r.notes.empty()) out += "\n";
  const auto section = [&](const std::string& verdict, const std::string& title, bool folded) {
    std::vector<const CellVerdict*> cells;
    for (const auto& v : r.cells) {
      if (v.verdict == verdict) cells.push_back(&v);
    }
    if (cells.empty()) return;
    const std::string table = render_markdown_table(verdict_table(cells, r.options.metric, false));
    if (folded) {
      out += "<details><summary>" + title + " (" + std::to_string(cells.size()) +
             ")</summary>\n\n" + table + "\n</details>\n\n";
    } else {
      out += "### " + title + " (" + std::to_string(cells.size()) + ")\n\n" + table + "\n";
    }
  };
  section("regression", "Regressions", false);
  section("failed", "Failed in the candidate", false);
  section("improvement", "Improvements", false);
  section("inconclusive", "Inconclusive", false);
  section("no change", "No change", true);
  section("not compared", "Not compared", true);
  if (!r.only_in_baseline.empty() || !r.only_in_candidate.empty()) {
    out += "### Cells in one run only\n\n";
    for (const auto& name : r.only_in_baseline) out += "- only in the baseline: " + name + "\n";
    for (const auto& name : r.only_in_candidate) out += "- only in the candidate: " + name + "\n";
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json regression_json(const RegressionReport& r) {
  Json j;
  j["verdict"] = r.count("regression") + r.count("failed") > 0 ? "regression" : "no regression";
  j["fails"] = r.fails();
  j["summary"] = headline(r);
  j["baseline"] = r.baseline_label;
  j["candidate"] = r.candidate_label;
  j["options"] = {{"metric", r.options.metric},
                  {"threshold", r.options.threshold},
                  {"alpha", r.options.alpha},
                  {"fail_on", r.options.fail_on}};
  Json counts;
  for (const char* v :
       {"regression", "failed", "improvement", "no change", "inconclusive", "not compared"})
    counts[v] = r.count(v);
  j["counts"] = counts;
  Json env = Json::array();
  for (const auto& d : r.environment) {
    env.push_back({{"what", d.what},
                   {"baseline", d.baseline},
                   {"candidate", d.candidate},
                   {"unfair", d.unfair}});
  }
  j["environment"] = {{"unfair", r.unfair()}, {"differences", env}};
  j["notes"] = r.notes;
  j["evidence"] = r.evidence;
  j["calibration"] = r.calibration;
  if (r.drift) {
    j["reference_drift"] = {{"machine", r.drift->machine},
                            {"matmul", r.drift->matmul},
                            {"step", r.drift->step},
                            {"within_baseline", r.drift->within_baseline},
                            {"within_candidate", r.drift->within_candidate}};
  } else {
    j["reference_drift"] = nullptr;
  }
  Json cells = Json::array();
  for (const auto& v : r.cells) {
    cells.push_back({{"name", v.name},
                     {"verdict", v.verdict},
                     {"reason", v.reason},
                     {"baseline_cell", v.baseline_cell},
                     {"candidate_cell", v.candidate_cell},
                     {"baseline_median", v.baseline_median},
                     {"candidate_median", v.candidate_median},
                     {"baseline_samples", v.baseline_samples},
                     {"candidate_samples", v.candidate_samples},
                     {"baseline_runs", v.baseline_runs},
                     {"candidate_runs", v.candidate_runs},
                     {"change", v.change},
                     {"change_ci", {v.change_ci.low, v.change_ci.high}},
                     {"p_value", v.p_value},
                     {"test", v.test},
                     {"run_level_p", v.run_level_p},
                     {"net_change", v.net_change},
                     {"machine_drift", v.machine ? Json(*v.machine) : Json(nullptr)},
                     {"decided_by", v.decided_by},
                     {"evidence", v.evidence},
                     {"config", v.config}});
  }
  j["cells"] = cells;
  j["only_in_baseline"] = r.only_in_baseline;
  j["only_in_candidate"] = r.only_in_candidate;
  return j;
}

}  // namespace crossover
