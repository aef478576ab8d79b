#pragma once
// Where a series shifted: E-divisive means (Matteson and James, "A Nonparametric Approach for
// Multiple Change Point Analysis of Multivariate Data", JASA 2014; the method of MongoDB's and
// Apache Otava's performance CI), with a permutation test for each change point. A series of
// run medians, one per run in commit order; a change point is where a segment of runs differs in
// distribution from the one before. No LibTorch.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace crossover {

struct ChangePointOptions {
  double alpha = 0.01;          ///< a split is kept when its permutation p-value is below this
  int permutations = 999;       ///< shuffles of the segment per test
  std::size_t min_segment = 3;  ///< runs on each side of a change: one odd run is not a segment
  std::uint64_t seed = 0;       ///< of the permutations: the same series gives the same points
};

struct ChangePoint {
  std::size_t index = 0;  ///< the first point of the new segment
  double p_value = 1.0;   ///< of its permutation test
};

/// E-divisive's divergence of the split of `values` at `at` (the points before and from it), with
/// exponent 1: q = m n / (m + n) x (2 mean|a - b| - mean|a - a'| - mean|b - b'|), larger for
/// samples whose distributions differ more. Needs two points on each side.
double e_divisive_statistic(const std::vector<double>& values, std::size_t at);

/// Change points of `series`, ascending: repeatedly, the split of largest divergence over the
/// current segments, kept while its permutation test's p-value is below alpha. Series shorter than
/// two segments have none.
std::vector<ChangePoint> e_divisive(const std::vector<double>& series,
                                    const ChangePointOptions& options = {});

}  // namespace crossover
