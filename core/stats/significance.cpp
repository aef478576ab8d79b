// The significance tests: the Mann-Whitney U test on the samples of one run per side
// (exact for small samples without ties) and Welch's t on the logarithms of run medians.
#include "core/stats/significance.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>

namespace crossover {
namespace {
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
  t.baseline_center = std::exp(b.mean);
  t.candidate_center = std::exp(c.mean);
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

RunLevelTest paired_run_test(const std::vector<std::vector<double>>& baseline_runs,
                             const std::vector<std::vector<double>>& candidate_runs) {
  if (baseline_runs.size() != candidate_runs.size() || baseline_runs.size() < 2)
    throw std::invalid_argument("the paired test needs two or more pairs of runs");
  std::vector<double> ratios, baseline_logs;
  for (std::size_t i = 0; i < baseline_runs.size(); ++i) {
    const double b = baseline_runs[i].empty() ? 0.0 : quantile(baseline_runs[i], 0.5);
    const double c = candidate_runs[i].empty() ? 0.0 : quantile(candidate_runs[i], 0.5);
    if (!(b > 0.0) || !(c > 0.0)) throw std::invalid_argument("a run without positive samples");
    ratios.push_back(std::log(c) - std::log(b));
    baseline_logs.push_back(std::log(b));
  }
  const Summary d = summarize(ratios);
  const double n = static_cast<double>(d.count);
  RunLevelTest t;
  t.change = std::exp(d.mean) - 1.0;
  t.baseline_center = std::exp(summarize(baseline_logs).mean);
  t.candidate_center = t.baseline_center * std::exp(d.mean);
  t.degrees_of_freedom = n - 1.0;
  if (!(d.stdev > 0.0)) {  // every pair gave the same ratio
    t.p_value = d.mean == 0.0 ? 1.0 : 0.0;
    t.change_ci = {t.change, t.change};
    return t;
  }
  const double se = d.stdev / std::sqrt(n);
  const boost::math::students_t distribution(t.degrees_of_freedom);
  t.p_value = std::min(
      1.0, 2.0 * boost::math::cdf(boost::math::complement(distribution, std::abs(d.mean) / se)));
  const double q = boost::math::quantile(boost::math::complement(distribution, 0.025));
  t.change_ci = {std::exp(d.mean - q * se) - 1.0, std::exp(d.mean + q * se) - 1.0};
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

}  // namespace crossover
