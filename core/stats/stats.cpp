#include "core/stats/stats.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace crossover {
namespace {

double sorted_quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

}  // namespace

double quantile(std::vector<double> samples, double q) {
  if (samples.empty()) throw std::invalid_argument("quantile of an empty sample");
  if (q < 0.0 || q > 1.0) throw std::invalid_argument("quantile q must be within [0, 1]");
  std::sort(samples.begin(), samples.end());
  return sorted_quantile(samples, q);
}

Summary summarize(const std::vector<double>& samples) {
  if (samples.empty()) throw std::invalid_argument("summary of an empty sample");
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  Summary s;
  s.count = sorted.size();
  s.median = sorted_quantile(sorted, 0.5);
  s.p25 = sorted_quantile(sorted, 0.25);
  s.p75 = sorted_quantile(sorted, 0.75);
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.count);
  if (s.count > 1) {
    double squares = 0.0;
    for (double x : sorted) squares += (x - s.mean) * (x - s.mean);
    s.stdev = std::sqrt(squares / static_cast<double>(s.count - 1));
  }
  return s;
}

}  // namespace crossover

namespace crossover {

Interval median_ci(std::vector<double> samples, double confidence) {
  if (samples.empty()) throw std::invalid_argument("confidence interval of an empty sample");
  if (!(confidence > 0.0 && confidence < 1.0))
    throw std::invalid_argument("a confidence level lies between 0 and 1");
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  // The two-sided normal quantile of the level (1.96 for 95 %).
  const double z = boost::math::quantile(
      boost::math::complement(boost::math::normal(), (1.0 - confidence) / 2.0));
  const double half = z * std::sqrt(n) / 2.0;
  // 1-based ranks of the bounding order statistics, clamped to the sample.
  const double low_rank = std::max(1.0, std::floor(n / 2.0 - half));
  const double high_rank = std::min(n, std::ceil(n / 2.0 + half + 1.0));
  return {samples[static_cast<std::size_t>(low_rank) - 1],
          samples[static_cast<std::size_t>(high_rank) - 1]};
}

StopReason stop_reason(const StoppingRule& rule, int repeats, double elapsed_seconds,
                       const std::vector<double>& samples) {
  if (repeats < rule.min_repeats) return StopReason::kNone;
  // A fixed count (`repeats: N`) stops at its count, whatever the interval says.
  if (rule.min_repeats >= rule.max_repeats) return StopReason::kMaxRepeats;
  if (!samples.empty()) {
    const double median = quantile(samples, 0.5);
    const Interval ci = median_ci(samples);
    if (median > 0.0 && (ci.high - ci.low) / median <= rule.ci_target) return StopReason::kCiTarget;
    if (median == 0.0 && ci.high == ci.low) return StopReason::kCiTarget;
  }
  if (repeats >= rule.max_repeats) return StopReason::kMaxRepeats;
  if (elapsed_seconds >= rule.time_budget_seconds) return StopReason::kTimeBudget;
  return StopReason::kNone;
}

}  // namespace crossover
