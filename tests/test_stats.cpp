#include <gtest/gtest.h>

#include <stdexcept>

#include "runner/stats.hpp"

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
