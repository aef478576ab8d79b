#include "core/stats/changepoint.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace crossover {
namespace {

struct Split {
  std::size_t at = 0;
  double q = -1.0;  ///< below 0: no split possible
};

// Counts and sums of the values added so far, by their rank: the sum of the distances from a
// value to those below and above it in O(log n) (a Fenwick tree).
class RankSums {
 public:
  explicit RankSums(std::size_t n) : count_(n + 1, 0.0), sum_(n + 1, 0.0) {}
  void add(std::size_t rank, double value) {
    for (std::size_t i = rank + 1; i < count_.size(); i += i & (~i + 1)) {
      count_[i] += 1.0;
      sum_[i] += value;
    }
  }
  // The count and sum of the values of rank below `rank`.
  std::pair<double, double> below(std::size_t rank) const {
    double c = 0.0, s = 0.0;
    for (std::size_t i = rank; i > 0; i -= i & (~i + 1)) {
      c += count_[i];
      s += sum_[i];
    }
    return {c, s};
  }

 private:
  std::vector<double> count_, sum_;
};

// The split of largest divergence, over every split that leaves `least` points on each side: all
// of them in O(n log n), moving one point at a time from the right side to the left and keeping
// the within-left, within-right and across sums of distances (a point's distances to the left
// side from the ranks added so far, to every point from the sorted values' prefix sums).
Split best_split(const std::vector<double>& x, std::size_t least) {
  const std::size_t n = x.size();
  Split best;
  if (least < 2 || n < 2 * least) return best;
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<std::size_t> rank(n);
  std::vector<double> prefix(n + 1, 0.0);  // the sum of the sorted values below each rank
  for (std::size_t r = 0; r < n; ++r) {
    rank[order[r]] = r;
    prefix[r + 1] = prefix[r] + x[order[r]];
  }
  // Each point's distances to every other point, and their total over the pairs.
  std::vector<double> to_all(n);
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t r = rank[i];
    const auto below = static_cast<double>(r), above = static_cast<double>(n - r - 1);
    to_all[i] = (below * x[i] - prefix[r]) + (prefix[n] - prefix[r + 1] - above * x[i]);
    total += to_all[i];
  }
  total /= 2.0;
  RankSums left_side(n);
  double left = 0.0, right = total, across = 0.0, left_sum = 0.0;
  for (std::size_t t = 0; t + least < n; ++t) {
    // The distances of point t to each side: the left side is the points before it.
    const auto [count_below, sum_below] = left_side.below(rank[t]);
    const double count_above = static_cast<double>(t) - count_below;
    const double sum_above = left_sum - sum_below;
    const double to_left = (count_below * x[t] - sum_below) + (sum_above - count_above * x[t]);
    const double to_right = to_all[t] - to_left;
    left_side.add(rank[t], x[t]);
    left_sum += x[t];
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
      const std::vector<double> segment(
          series.begin() + static_cast<std::ptrdiff_t>(bounds[s]),
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
