#include "core/stats/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace crossover {
namespace {

// The median of `samples`, with `scratch` as working space (no allocation once it is large enough).
double median_of(const std::vector<double>& samples, std::vector<double>& scratch) {
  scratch = samples;
  const auto middle = scratch.begin() + static_cast<std::ptrdiff_t>(scratch.size() / 2);
  std::nth_element(scratch.begin(), middle, scratch.end());
  if (scratch.size() % 2 == 1) return *middle;
  const double upper = *middle;
  return (upper + *std::max_element(scratch.begin(), middle)) / 2.0;
}

// The median of a resample of n draws with replacement from `values`, drawn without making the
// resample: the k-th smallest of n uniform draws from {0, ..., n-1} is the floor of n times the
// k-th smallest of n continuous uniforms, which is Beta(k, n - k + 1); for an even n the next one
// up is that value plus (1 - it) times a Beta(1, n - k). The same distribution as median_of a
// resample, in constant time. Only the order statistics near the middle are ever drawn (ten
// standard deviations, 5 sqrt(n) places, each side), so only they are put in order.
class ResampledMedian {
 public:
  explicit ResampledMedian(std::vector<double> values) : values_(std::move(values)) {
    const std::size_t n = values_.size();
    const auto half = static_cast<std::size_t>(5.0 * std::sqrt(static_cast<double>(n))) + 16;
    low_ = n / 2 > half ? n / 2 - half : 0;
    high_ = std::min(n, n / 2 + half + 2);
    const auto at = [this](std::size_t i) {
      return values_.begin() + static_cast<std::ptrdiff_t>(i);
    };
    std::nth_element(at(0), at(low_), at(n));
    if (high_ < n) std::nth_element(at(low_), at(high_), at(n));
    std::sort(at(low_), at(high_));
  }
  double draw(std::mt19937_64& rng) {
    const double n = static_cast<double>(values_.size());
    const double k = std::floor((n + 1.0) / 2.0);  // odd: the middle; even: the lower middle
    const double u = beta(k, n - k + 1.0, rng);
    if (values_.size() % 2 == 1) return at(u);
    const double next = u + (1.0 - u) * beta(1.0, n - k, rng);
    return (at(u) + at(next)) / 2.0;
  }

 private:
  static double beta(double a, double b, std::mt19937_64& rng) {
    const double x = std::gamma_distribution<double>(a, 1.0)(rng);
    const double y = std::gamma_distribution<double>(b, 1.0)(rng);
    return x / (x + y);
  }
  // The order statistic at quantile u: from the ordered window, or (a draw ten standard
  // deviations out) found afresh.
  double at(double u) const {
    const auto i = std::min(static_cast<std::size_t>(u * static_cast<double>(values_.size())),
                            values_.size() - 1);
    if (i >= low_ && i < high_) return values_[i];
    std::vector<double> copy = values_;
    std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(i), copy.end());
    return copy[i];
  }
  std::vector<double> values_;
  std::size_t low_ = 0, high_ = 0;  ///< values_[low_, high_) are the order statistics there
};

// Every `step`-th value of `samples`, in order: a long series cut to about `limit` values for a
// block bootstrap, whose blocks need the order kept.
std::vector<double> every_nth(const std::vector<double>& samples, std::size_t limit) {
  const std::size_t step = (samples.size() + limit - 1) / limit;
  std::vector<double> out;
  for (std::size_t i = 0; i < samples.size(); i += step) out.push_back(samples[i]);
  return out;
}

}  // namespace

Interval bootstrap_speedup(const std::vector<double>& baseline,
                           const std::vector<double>& contender, std::uint64_t seed, int resamples,
                           std::size_t block) {
  if (baseline.empty() || contender.empty())
    throw std::invalid_argument("bootstrap of an empty sample");
  std::mt19937_64 rng(seed);
  if (std::max(baseline.size(), contender.size()) > kResampledBootstrapLimit) {
    if (block > 1) {  // blocks need the series: thinned in order, the interval wider for it
      const auto a = every_nth(baseline, kResampledBootstrapLimit);
      const auto b = every_nth(contender, kResampledBootstrapLimit);
      return bootstrap_speedup(a, b, seed, resamples,
                               bootstrap_block(std::min(a.size(), b.size())));
    }
    ResampledMedian a(baseline), b(contender);
    std::vector<double> ratios;
    for (int i = 0; i < resamples; ++i) ratios.push_back(a.draw(rng) / b.draw(rng));
    return {quantile(ratios, 0.025), quantile(ratios, 0.975)};
  }
  std::vector<double> a(baseline.size()), b(contender.size()), scratch, ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  // Fills `out` with blocks of consecutive values of `from`, each starting at a random place.
  const auto resample = [&](const std::vector<double>& from, std::vector<double>& out) {
    const std::size_t length = std::min(std::max<std::size_t>(block, 1), from.size());
    std::uniform_int_distribution<std::size_t> start(0, from.size() - length);
    for (std::size_t i = 0; i < out.size();) {
      const std::size_t s = start(rng);
      for (std::size_t k = 0; k < length && i < out.size(); ++k) out[i++] = from[s + k];
    }
  };
  for (int i = 0; i < resamples; ++i) {
    resample(baseline, a);
    resample(contender, b);
    ratios.push_back(median_of(a, scratch) / median_of(b, scratch));
  }
  return {quantile(ratios, 0.025), quantile(ratios, 0.975)};
}

std::size_t bootstrap_block(std::size_t n) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::lround(std::cbrt(n))));
}

}  // namespace crossover
