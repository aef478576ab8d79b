// What a recommendation may say of a knob, each rule on results the test makes.
#include <gtest/gtest.h>

#include <tuple>

#include "reports/analysis/analysis.hpp"
#include "tests/sample_results.hpp"

namespace crossover {
namespace {

// A win clears the margin with its whole interval: 1.05x across 1.05 is a tie (the demo said
// "threads=0 wins ... (speedup 1.062x [1.015, 1.1])"); the search's rule (margin 0) a win; 1.3x
// wins.
TEST(Recommendations, AWinClearsTheMarginWithItsWholeInterval) {
  std::vector<Result> r;
  for (const auto& [batch, speedup] : {std::pair{std::int64_t{100}, 1.05}, {1000, 1.3}}) {
    r.push_back(testing::spread_cell(r.size(), "cpu", batch, 1.0, 0.02));
    r.push_back(testing::spread_cell(r.size(), "cuda", batch, 1.0 / speedup, 0.02));
  }
  const CompareSpec device = parse_compare("device=cpu:cuda");
  const auto pairs = pair_results(r, device);
  ASSERT_TRUE(pairs.size() == 2u && pairs[0].ci.low > 1.0 && pairs[0].ci.low < 1.05 &&
              pairs[0].ci.high > 1.05)
      << pairs.size();
  EXPECT_EQ(pairs[0].winner, Winner::kTie);
  EXPECT_EQ(winner_text(pairs[0], device), "tie");
  EXPECT_EQ(compare_pair(r[0], r[1], 0, 0.0).winner, Winner::kContender);
  EXPECT_EQ(pairs[1].winner, Winner::kContender);
}

// The fastest configuration measured is said with a predicted one faster still, as the verdict
// says a predicted side wins: "faster still" where its whole band is above, never for a cell
// whose band lies below.
TEST(Recommendations, TheFastestMeasuredIsSaidWithAPredictedCellFasterStill) {
  std::vector<Result> r = {testing::spread_cell(0, "cpu", 100, 1.0),
                           testing::spread_cell(1, "cuda", 100, 0.1)};
  r[1].status = CellStatus::kPredicted;
  r[1].prediction.prediction_error = 1.0;  // 0.05-0.2 s: faster than 1 s however it falls
  const auto first = [](const std::vector<Result>& results) {
    return recommend(results, parse_compare("device=cpu:cuda"), {}).front();
  };
  const Recommendation said = first(r);
  EXPECT_EQ(said.statement.rfind("highest throughput measured: ", 0), 0u) << said.statement;
  EXPECT_NE(said.statement.find("; faster still, predicted: "), std::string::npos)
      << said.statement;
  EXPECT_NE(said.statement.find("(not measured)"), std::string::npos) << said.statement;
  EXPECT_EQ(said.cells, (std::vector<std::size_t>{0, 1}));
  r[1].epoch_seconds = 3.0;  // slower than the CPU, band and all: not said
  r[1].samples_per_second = static_cast<double>(r[1].train_rows) / 3.0;
  EXPECT_EQ(first(r).statement.find("predicted"), std::string::npos) << first(r).statement;
}

// A knob's sentence says only what its pairs' intervals carry: "did not matter" where every one
// lies within 5 % of 1, "undecided" where one crosses that margin without clearing it, and no mean
// of pairs that clear it in opposite ways.
TEST(Recommendations, AKnobIsSaidNotToMatterOnlyWhereEveryIntervalIsWithinTheMargin) {
  const auto said = [](const std::vector<Result>& r) {
    for (const Recommendation& a : recommend(r, parse_compare("device=cpu:cuda"), {}))
      if (a.statement.rfind("threads", 0) == 0) return a.statement;
    return std::string("none");
  };
  // Two batch sizes, threads 1 and 0 each, with the epochs given: the samples spread by `spread`.
  const auto grid = [](double t1_a, double t0_a, double t1_b, double t0_b, double spread) {
    std::vector<Result> r;
    for (const auto& [batch, t1, t0] :
         {std::tuple{std::int64_t{100}, t1_a, t0_a}, std::tuple{std::int64_t{1000}, t1_b, t0_b}}) {
      for (const auto& [threads, t] : {std::pair{1, t1}, std::pair{0, t0}}) {
        Result c = testing::spread_cell(r.size(), "cpu", batch, t, spread);
        c.cell.threads = threads;
        r.push_back(c);
      }
    }
    return r;
  };
  // The case: one tight pair near 1 and one that spans far more: undecided.
  const std::string noisy = said(grid(1.0, 0.97, 1.0, 0.95, 0.6));
  EXPECT_EQ(noisy.find("did not matter"), std::string::npos) << noisy;
  EXPECT_NE(noisy.find("threads 1 -> 0: undecided (too noisy to tell): speedup "),
            std::string::npos)
      << noisy;
  EXPECT_NE(noisy.find(", an interval spans "), std::string::npos) << noisy;
  // Every interval tight around 1: did not matter.
  const std::string flat = said(grid(1.0, 1.0, 1.0, 1.0, 0.001));
  EXPECT_NE(flat.find("threads 1 -> 0 did not matter: speedup 1x, every interval within 5 % of 1"),
            std::string::npos)
      << flat;
  // 1.467x one way and 0.541x the other, both clear: no geometric mean, each side named.
  const std::string split = said(grid(1.467, 1.0, 0.541, 1.0, 0.001));
  EXPECT_EQ(split.find("geometric mean"), std::string::npos) << split;
  EXPECT_EQ(split,
            "threads 1 -> 0: depends on the cell: threads=0 faster in 1 pair(s) (#0/#1 1.467x), "
            "slower in 1 pair(s) (#2/#3 0.541x)");
  // One clear and one undecided the same way: the mean, with how many cleared the margin.
  const std::string one = said(grid(1.5, 1.0, 1.0, 0.97, 0.2));
  EXPECT_NE(one.find("(threads=0 faster; geometric mean of 2 pair(s), 1 beyond 5 %)"),
            std::string::npos)
      << one;
}

}  // namespace
}  // namespace crossover
