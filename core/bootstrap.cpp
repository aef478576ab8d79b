#include "core/bootstrap.hpp"

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

}  // namespace

Interval bootstrap_speedup(const std::vector<double>& baseline,
                           const std::vector<double>& contender, std::uint64_t seed, int resamples,
                           std::size_t block) {
  if (baseline.empty() || contender.empty())
    throw std::invalid_argument("bootstrap of an empty sample");
  std::mt19937_64 rng(seed);
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
