#include "core/stats/changepoint.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace crossover {
namespace {

struct Split {
  std::size_t at = 0;
  double q = -1.0;  ///< below 0: no split possible
};

// The split of largest divergence, over every split that leaves `least` points on each side: all
// of them in O(n^2), moving one point at a time from the right side to the left and keeping the
// within-left, within-right and across sums of distances.
Split best_split(const std::vector<double>& x, std::size_t least) {
  const std::size_t n = x.size();
  Split best;
  if (least < 2 || n < 2 * least) return best;
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) total += std::abs(x[i] - x[j]);
  double left = 0.0, right = total, across = 0.0;
  for (std::size_t t = 0; t + least < n; ++t) {
    double to_left = 0.0, to_right = 0.0;  // the distances of point t to each side
    for (std::size_t i = 0; i < t; ++i) to_left += std::abs(x[i] - x[t]);
    for (std::size_t j = t + 1; j < n; ++j) to_right += std::abs(x[t] - x[j]);
    left += to_left;
    across += to_right - to_left;
    right -= to_right;
    const auto m = static_cast<double>(t + 1), k = static_cast<double>(n - t - 1);
    if (t + 1 < least) continue;
    const double divergence =
        2.0 * across / (m * k) - left / (m * (m - 1) / 2.0) - right / (k * (k - 1) / 2.0);
    const double q = m * k / (m + k) * divergence;
    if (q > best.q) best = {t + 1, q};
  }
  return best;
}

}  // namespace

double e_divisive_statistic(const std::vector<double>& values, std::size_t at) {
  const std::size_t n = values.size();
  if (at < 2 || n < at + 2) throw std::invalid_argument("a split needs two points on each side");
  double left = 0.0, right = 0.0, across = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const double d = std::abs(values[i] - values[j]);
      (j < at ? left : i >= at ? right : across) += d;
    }
  }
  const auto m = static_cast<double>(at), k = static_cast<double>(n - at);
  return m * k / (m + k) *
         (2.0 * across / (m * k) - left / (m * (m - 1) / 2.0) - right / (k * (k - 1) / 2.0));
}

std::vector<ChangePoint> e_divisive(const std::vector<double>& series,
                                    const ChangePointOptions& options) {
  if (options.min_segment < 2) throw std::invalid_argument("a segment needs at least two points");
  std::vector<ChangePoint> found;
  std::vector<std::size_t> bounds = {0, series.size()};  // the segments' edges, ascending
  std::mt19937_64 rng(options.seed);
  for (;;) {
    // The segment whose best split diverges most.
    Split best;
    std::size_t start = 0;
    for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
      const std::vector<double> segment(series.begin() + static_cast<std::ptrdiff_t>(bounds[s]),
                                        series.begin() + static_cast<std::ptrdiff_t>(bounds[s + 1]));
      const Split split = best_split(segment, options.min_segment);
      if (split.q > best.q) {
        best = split;
        start = bounds[s];
      }
    }
    if (best.q < 0.0) break;
    // How often the segment's points, in a random order, split at least as well.
    const std::size_t end = *std::upper_bound(bounds.begin(), bounds.end(), start);
    std::vector<double> shuffled(series.begin() + static_cast<std::ptrdiff_t>(start),
                                 series.begin() + static_cast<std::ptrdiff_t>(end));
    int as_large = 0;
    for (int p = 0; p < options.permutations; ++p) {
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      // A shuffle that ties the series (the same points on each side, summed in another order)
      // counts as large: rounding in the running sums must not make it smaller.
      const double tied = best.q - 1e-9 * std::abs(best.q);
      as_large += best_split(shuffled, options.min_segment).q >= tied ? 1 : 0;
    }
    const double p_value = (1.0 + as_large) / (1.0 + options.permutations);
    if (p_value >= options.alpha) break;
    found.push_back({start + best.at, p_value});
    bounds.insert(std::upper_bound(bounds.begin(), bounds.end(), start), start + best.at);
  }
  std::sort(found.begin(), found.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  return found;
}

}  // namespace crossover
