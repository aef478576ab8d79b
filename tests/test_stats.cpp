#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>

#include "core/stats/bootstrap.hpp"
#include "core/stats/stats.hpp"

namespace crossover {
namespace {

TEST(Stats, QuantilesInterpolateBetweenOrderStatistics) {
  const std::vector<double> x = {4.0, 1.0, 3.0, 2.0};  // unsorted on purpose
  EXPECT_DOUBLE_EQ(quantile(x, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile(x, 0.25), 1.75);  // numpy's default gives the same
  EXPECT_DOUBLE_EQ(quantile(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(x, 1.0), 4.0);
}

TEST(Stats, SummaryOfASample) {
  const Summary s = summarize({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0});
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_NEAR(s.stdev, 2.138089935, 1e-9);  // sample standard deviation
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_DOUBLE_EQ(s.p25, 4.0);
  EXPECT_DOUBLE_EQ(s.p75, 5.5);
  EXPECT_DOUBLE_EQ(s.iqr(), 1.5);
}

TEST(Stats, OneSampleHasNoSpreadAndNoSampleIsAnError) {
  const Summary s = summarize({3.0});
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.stdev, 0.0);
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(quantile({1.0}, 1.5), std::invalid_argument);
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

TEST(MedianCi, UsesOrderStatisticsAroundTheMedian) {
  std::vector<double> x;
  for (int i = 1; i <= 100; ++i) x.push_back(i);
  const Interval ci = median_ci(x);
  // n = 100: ranks 50 -+ 1.96 * 10 / 2 -> 40 and 61 (the textbook interval is x(40)..x(61)).
  EXPECT_DOUBLE_EQ(ci.low, 40.0);
  EXPECT_DOUBLE_EQ(ci.high, 61.0);
  const Interval small = median_ci({3.0, 1.0, 2.0});
  EXPECT_DOUBLE_EQ(small.low, 1.0);  // three samples cannot pin the median down
  EXPECT_DOUBLE_EQ(small.high, 3.0);
  EXPECT_THROW(median_ci({}), std::invalid_argument);
}

TEST(StoppingRule, IdenticalSamplesStopAtTheMinimum) {
  const StoppingRule rule{3, 10, 60.0, 0.02};
  const std::vector<double> same(30, 0.5);
  EXPECT_EQ(stop_reason(rule, 1, 0.1, same), StopReason::kNone);  // never before min_repeats
  EXPECT_EQ(stop_reason(rule, 2, 0.1, same), StopReason::kNone);
  EXPECT_EQ(stop_reason(rule, 3, 0.1, same), StopReason::kCiTarget);
  // A fixed count (repeats: 1) stops because the count is reached, not because of the interval.
  EXPECT_EQ(stop_reason(StoppingRule{1, 1, 60.0, 0.02}, 1, 0.1, same), StopReason::kMaxRepeats);
}

TEST(StoppingRule, NoisySamplesRunToMaxRepeatsOrTheBudget) {
  std::vector<double> noisy;
  for (int i = 0; i < 40; ++i) noisy.push_back(i % 2 == 0 ? 1.0 : 2.0);
  const StoppingRule rule{3, 10, 60.0, 0.02};
  for (int repeats = 3; repeats < 10; ++repeats)
    EXPECT_EQ(stop_reason(rule, repeats, 1.0, noisy), StopReason::kNone);
  EXPECT_EQ(stop_reason(rule, 10, 1.0, noisy), StopReason::kMaxRepeats);
  EXPECT_EQ(stop_reason(rule, 4, 61.0, noisy), StopReason::kTimeBudget);
  EXPECT_EQ(stop_reason(StoppingRule{3, 10, 60.0, 1.5}, 3, 1.0, noisy),
            StopReason::kCiTarget);  // a loose target
}

TEST(AdaptiveRepeats, StopsWhenTheRuleSaysAndFollowsADecisionFromOutside) {
  AdaptiveRepeats steady(StoppingRule{3, 10, 60.0, 0.02}, 100);
  int repeats = 0;
  while (!steady.finished()) {
    for (int e = 0; e < 4; ++e) steady.add(0.5);
    steady.end_repeat(0.1 * ++repeats);
  }
  EXPECT_EQ(steady.repeats(), 3);
  EXPECT_EQ(steady.reason(), StopReason::kCiTarget);
  EXPECT_EQ(steady.samples().size(), 12u);

  AdaptiveRepeats noisy(StoppingRule{2, 4, 60.0, 0.02});
  while (!noisy.finished()) {
    noisy.add(1.0);
    noisy.add(2.0);
    noisy.end_repeat(1.0);
  }
  EXPECT_EQ(noisy.repeats(), 4);
  EXPECT_EQ(noisy.reason(), StopReason::kMaxRepeats);

  // A replica follows rank 0: going on although its own samples would stop, and stopping when told.
  AdaptiveRepeats replica(StoppingRule{1, 10, 60.0, 0.5});
  replica.add(1.0);
  replica.end_repeat(1.0);
  ASSERT_TRUE(replica.finished());
  replica.decide(StopReason::kNone);
  EXPECT_FALSE(replica.finished());
  replica.decide(StopReason::kTimeBudget);
  EXPECT_EQ(replica.reason(), StopReason::kTimeBudget);
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// Above 10,000 samples a side the bootstrap draws each resample's median from its distribution
// instead of making the resample: the interval still holds the ratio, is as wide as the
// median's spread says, and takes milliseconds (a 200,000-sample pair took a minute).
TEST(Bootstrap, LargeSamplesDrawTheResampledMedianAndKeepItsSpread) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z(0.0, 1.0);
  for (const std::size_t n : {20001u, 30000u}) {  // odd and even
    std::vector<double> a, b;
    for (std::size_t i = 0; i < n; ++i) {
      a.push_back(2.0 * std::exp(0.05 * z(rng)));
      b.push_back(1.0 * std::exp(0.05 * z(rng)));
    }
    const auto start = std::chrono::steady_clock::now();
    const Interval ci = bootstrap_speedup(a, b, 1);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_LT(ci.low, 2.0) << n;
    EXPECT_GT(ci.high, 2.0) << n;
    // The median of n normal draws has a standard error of 1.2533 sd / sqrt(n); the ratio of two
    // independent ones about sqrt(2) times that; a 95 % interval 3.92 of those wide.
    const double expected = 3.92 * std::sqrt(2.0) * 1.2533 * 0.05 / std::sqrt(double(n)) * 2.0;
    EXPECT_GT(ci.high - ci.low, 0.7 * expected) << n;
    EXPECT_LT(ci.high - ci.low, 1.4 * expected) << n;
    // A block bootstrap thins the series in order first: wider, still around the ratio.
    const Interval blocks = bootstrap_speedup(a, b, 1, 2000, bootstrap_block(n));
    EXPECT_LT(blocks.low, 2.0);
    EXPECT_GT(blocks.high, 2.0);
    EXPECT_GE(blocks.high - blocks.low, 0.9 * (ci.high - ci.low));
  }
}

}  // namespace
}  // namespace crossover
