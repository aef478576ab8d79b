// The one crossing rule (core/stats/crossing.hpp) on series known exactly: where the contender wins
// from, where the crossing is placed — never inside measured ties — and the words every output
// prints; the search's statement and the crossover section's, from the same points, agree.
#include <gtest/gtest.h>

#include "core/stats/crossing.hpp"

namespace crossover {
namespace {

Probe point(double value, double speedup, double spread = 0.02) {
  Probe p;
  p.value = value;
  p.speedup = speedup;
  p.low = speedup * (1 - spread);
  p.high = speedup * (1 + spread);
  p.winner = p.low > 1 ? Winner::kContender : p.high < 1 ? Winner::kBaseline : Winner::kTie;
  return p;
}

TEST(Crossing, ABaselineWinBelowPlacesTheCrossingBetweenTheTwoValues) {
  const std::vector<Probe> p = {point(1000, 0.5), point(10000, 2.0)};
  const CrossingFinding f = find_crossing(p);
  EXPECT_EQ(f.from, 1U);
  EXPECT_FALSE(f.tie_region());
  ASSERT_TRUE(f.at.has_value());
  EXPECT_NEAR(*f.at, 3162.3, 0.1);  // halfway on log scales, where log(speedup) crosses 0
  EXPECT_LT(*f.low, *f.at);
  EXPECT_GT(*f.high, *f.at);
  EXPECT_GE(*f.low, 1000.0);
  EXPECT_LE(*f.high, 10000.0);
  EXPECT_EQ(crossing_statement(p, f, "rows", "cpu", "cuda"),
            "cuda wins from rows 10,000 on (speedup 2x [1.96, 2.04]); the crossing lies near rows "
            "3,162 (3,060-3,270)");  // t = 0.486 and 0.515 on log scales
}

// The demo's case (issue 54): at 112 rows the two tie, at 10,000 the contender wins. The crossing
// is not put near 136, inside the tie: it lies between the tie and the first win.
TEST(Crossing, ACrossingIsNeverPlacedWhereTheMeasuredCellsTie) {
  const std::vector<Probe> p = {point(112, 1.0), point(10000, 1.1)};
  const CrossingFinding f = find_crossing(p);
  EXPECT_EQ(f.from, 1U);
  EXPECT_TRUE(f.tie_region());
  EXPECT_FALSE(f.at.has_value());
  EXPECT_EQ(*f.low, 112.0);
  EXPECT_EQ(*f.high, 10000.0);
  EXPECT_EQ(crossing_statement(p, f, "dataset_size", "threads=1", "threads=0"),
            "threads=0 wins from dataset_size 10,000 on (speedup 1.1x [1.078, 1.122]); the two "
            "tie at 112 (neither wins within the intervals), so the crossing lies between 112 and "
            "10,000");
}

// The H100's searched Iris run: a tie at 1,741 rows below two points the CPU wins is noise, not
// the tie region; the crossing lies between the CPU's last win and CUDA's first.
TEST(Crossing, ATieBelowPointsTheBaselineWinsIsNotTheTieRegion) {
  const std::vector<Probe> p = {point(112, 0.37),   point(662, 0.53),  point(1741, 0.98),
                                point(1897, 0.75),  point(3213, 0.88), point(11579, 1.157),
                                point(41725, 3.61), point(1e6, 54.8)};
  const CrossingFinding f = find_crossing(p);
  EXPECT_EQ(f.from, 5U);
  EXPECT_FALSE(f.tie_region());
  EXPECT_FALSE(f.earlier_win);
  ASSERT_TRUE(f.at.has_value());
  EXPECT_GT(*f.low, 3213.0);
  EXPECT_LT(*f.high, 11579.0);
  const std::string text = crossing_statement(p, f, "dataset_size", "cpu", "cuda");
  EXPECT_EQ(text.rfind("cuda wins from dataset_size 11,579 on", 0), 0U) << text;
  EXPECT_EQ(text.find("tie"), std::string::npos) << text;
}

TEST(Crossing, ATieRegionNamesItsEdgesAndTheBaselinesSide) {
  const std::vector<Probe> p = {point(100, 0.5), point(200, 0.99), point(400, 1.01),
                                point(800, 1.5), point(1600, 0.5, 0.0)};
  // The contender loses at the largest value: no crossing, whatever it did below.
  EXPECT_EQ(find_crossing(p).from, p.size());
  EXPECT_FALSE(find_crossing(p).crossing());
  const std::vector<Probe> q(p.begin(), p.end() - 1);
  const CrossingFinding f = find_crossing(q);
  EXPECT_EQ(f.tie_first, 1U);
  EXPECT_EQ(f.from, 3U);
  EXPECT_EQ(crossing_statement(q, f, "n", "cpu", "cuda"),
            "cuda wins from n 800 on (speedup 1.5x [1.47, 1.53]); the two tie from 200 to 400 "
            "(neither wins within the intervals; cpu wins at 100, 0.5x [0.49, 0.51]), so the "
            "crossing lies between 400 and 800");
}

TEST(Crossing, EveryWordOfDirectionAgreesWithItsNumbers) {
  // Wins everywhere, loses everywhere, ties at the largest: the side named is the one the
  // speedups favour.
  const std::vector<Probe> wins = {point(1, 2.0), point(2, 3.0)};
  EXPECT_EQ(crossing_statement(wins, find_crossing(wins), "n", "cpu", "cuda"),
            "cuda wins at every measured n (1 to 2), from 2x [1.96, 2.04] to 3x [2.94, 3.06]");
  const std::vector<Probe> loses = {point(1, 0.5), point(2, 0.4)};
  EXPECT_EQ(crossing_statement(loses, find_crossing(loses), "n", "cpu", "cuda"),
            "cpu wins everywhere up to n 2: no crossover in the measured range (1 to 2)");
  const std::vector<Probe> ties = {point(1, 0.5), point(2, 1.0)};
  EXPECT_NE(crossing_statement(ties, find_crossing(ties), "n", "cpu", "cuda")
                .find("cpu and cuda tie at the largest, 2 (cuda's speedup 1x"),
            std::string::npos);
}

}  // namespace
}  // namespace crossover
