// E-divisive means (core/stats/changepoint.hpp): the statistic by its definition, and on simulated
// series of run medians with this VM's run-to-run spread, how often it finds a change where none
// is and how close it finds a planted one (docs/results.md, "History").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "core/stats/changepoint.hpp"

namespace crossover {
namespace {

TEST(ChangePoint, TheStatisticIsItsDefinitionAndTheBestSplitIsWhereTheSeriesStepped) {
  const std::vector<double> x = {1.0, 2.0, 1.5, 7.0, 8.0, 7.5};
  // m = n = 3: mean |a - b| over 9 pairs, mean |a - a'| over 3, mean |b - b'| over 3.
  double across = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 3; j < 6; ++j) across += std::abs(x[i] - x[j]);
  const double within = (1.0 + 0.5 + 0.5) / 3.0;  // the same on both sides
  EXPECT_NEAR(e_divisive_statistic(x, 3), 1.5 * (2.0 * across / 9.0 - 2.0 * within), 1e-12);
  EXPECT_GT(e_divisive_statistic(x, 3), e_divisive_statistic(x, 2));
  EXPECT_THROW(e_divisive_statistic(x, 1), std::invalid_argument);

  // Six runs on each side: a shuffle splits them as cleanly 2 times in C(12, 6) = 924, so the
  // permutation test can reach p < 0.01 (five on each side could not: 2 in 252).
  const std::vector<double> stepped = {0,   0.01, -0.01, 0.02, 0,    0.01,
                                       0.5, 0.51, 0.49,  0.5,  0.52, 0.5};
  const auto found = e_divisive(stepped);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().index, 6u);
  EXPECT_LT(found.front().p_value, 0.01);
  EXPECT_TRUE(e_divisive({0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}).empty()) << "a flat series";
  EXPECT_TRUE(e_divisive({0.0, 1.0, 0.0}).empty()) << "too short for two segments";
}

TEST(ChangePoint, OneOddRunIsNoChangeAndTwoStepsAreTwoChanges) {
  std::vector<double> spike(16, 0.0);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0.0, 0.03);
  for (double& v : spike) v = noise(rng);
  spike[8] += 0.5;  // one run on a busy machine
  EXPECT_TRUE(e_divisive(spike).empty());

  std::vector<double> two(24);
  for (std::size_t i = 0; i < two.size(); ++i)
    two[i] = noise(rng) + (i >= 8 ? 0.15 : 0.0) + (i >= 16 ? 0.15 : 0.0);
  const auto found = e_divisive(two);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NEAR(static_cast<double>(found[0].index), 8.0, 1.0);
  EXPECT_NEAR(static_cast<double>(found[1].index), 16.0, 1.0);
}

// 30 series of 20 runs whose medians vary by 5 % (lognormal; the VM's calibrated run-to-run
// variation is 3.3-5.5 %), without a change and with +15 % from run 12 on.
TEST(ChangePoint, OnSimulatedSeriesFalseChangesAreRareAndAPlantedStepIsFoundWhereItIs) {
  std::mt19937_64 rng(20261126);
  std::normal_distribution<double> noise(0.0, 0.05);
  int false_series = 0, found_near = 0;
  for (int s = 0; s < 30; ++s) {
    std::vector<double> flat(20), stepped(20);
    for (std::size_t i = 0; i < 20; ++i) {
      flat[i] = noise(rng);
      stepped[i] = noise(rng) + (i >= 12 ? std::log(1.15) : 0.0);
    }
    ChangePointOptions options;
    options.seed = static_cast<std::uint64_t>(s);
    false_series += e_divisive(flat, options).empty() ? 0 : 1;
    bool near = false;
    for (const ChangePoint& c : e_divisive(stepped, options))
      near = near || std::abs(static_cast<int>(c.index) - 12) <= 2;
    found_near += near ? 1 : 0;
  }
  EXPECT_LE(false_series, 1);
  EXPECT_GE(found_near, 27);
  std::printf(
      "false change points in %d of 30 flat series; the +15 %% step found within 2 runs "
      "in %d of 30\n",
      false_series, found_near);
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// Six flat runs then three slow ones: a shuffle splits as well as the series itself when it puts
// the three slow runs together at either end, 2 of C(9, 3) = 84 orders. The running sums of
// best_split once rounded those tied orders below the series' own divergence, so that at some
// scales of time the permutation test said p = 0.002 instead of about 2/84 = 0.024.
TEST(ChangePoint, ShufflesThatTieTheSeriesCountAsLargeAtEveryScale) {
  ChangePointOptions options;
  options.alpha = 1.0;  // keep the split, to read its p-value
  for (const double scale : {1.0, 7.23e-4, 3.7e-5, 1234.5, 0.1}) {
    std::vector<double> series(6, scale);
    for (int i = 0; i < 3; ++i) series.push_back(1.5 * scale);
    const auto found = e_divisive(series, options);
    ASSERT_FALSE(found.empty()) << scale;
    EXPECT_EQ(found[0].index, 6u) << scale;
    // 999 shuffles with a chance of 2/84 each: 24 expected, nearly never under 10 or over 44.
    EXPECT_GT(found[0].p_value, 0.010) << scale;
    EXPECT_LT(found[0].p_value, 0.046) << scale;
    EXPECT_TRUE(e_divisive(series, ChangePointOptions{}).empty()) << scale;  // not at p < 0.01
  }
}

// The split the search takes (O(n log n) running sums) is the split of largest statistic counted
// pair by pair (e_divisive_statistic), on series with ties and a step anywhere.
TEST(ChangePoint, TheFastSearchTakesTheSplitOfLargestStatisticCountedPairByPair) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.05);
  for (int s = 0; s < 20; ++s) {
    const std::size_t n = 30 + static_cast<std::size_t>(s), at = 6 + static_cast<std::size_t>(s);
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = std::round((noise(rng) + (i >= at ? 0.5 : 0.0)) * 100.0) / 100.0;  // ties too
    std::size_t best = 0;
    double largest = -1.0;
    for (std::size_t split = 3; split + 3 <= n; ++split) {
      const double q = e_divisive_statistic(x, split);
      if (q > largest) {
        largest = q;
        best = split;
      }
    }
    ChangePointOptions options;
    options.permutations = 99;
    options.alpha = 0.05;
    const auto found = e_divisive(x, options);
    ASSERT_FALSE(found.empty()) << s;
    bool first = false;
    for (const ChangePoint& c : found) first = first || c.index == best;
    EXPECT_TRUE(first) << "series " << s << ": the largest statistic splits at " << best;
  }
}

}  // namespace
}  // namespace crossover
