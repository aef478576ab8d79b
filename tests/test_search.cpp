// The crossover search against speedup curves known exactly: where it probes, what bracket it
// ends with, and what it says, for a crossing, a tie region, no crossover and a spent budget.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <regex>

#include "core/stats/search.hpp"
#include "core/text/text.hpp"
#include "reports/charts/svg_charts.hpp"
#include "reports/render/report_markdown.hpp"

namespace crossover {
namespace {

using Curve = std::function<double(double)>;

// Runs a search to its end, each probe's speedup from `curve` with an interval of +-`spread`
// (relative), the winner by the reports' rule.
CrossoverSearch run_search(const Curve& curve, SearchSpec spec, double spread = 0.001) {
  CrossoverSearch search(std::move(spec), "cpu", "cuda");
  for (int guard = 0; guard < 100; ++guard) {
    const auto value = search.next();
    if (!value) break;
    Probe p;
    p.value = *value;
    p.speedup = curve(*value);
    p.low = p.speedup * (1 - spread);
    p.high = p.speedup * (1 + spread);
    p.winner = p.low > 1 ? Winner::kContender : p.high < 1 ? Winner::kBaseline : Winner::kTie;
    search.record(p);
  }
  return search;
}

SearchSpec iris_range(double precision = 0.1) {
  SearchSpec spec;
  spec.key = "dataset_size";
  spec.from = 112;
  spec.to = 1000000;
  spec.precision = precision;
  return spec;
}

// Every probe lies in the range, and none is measured twice.
void expect_distinct_probes_in_range(const CrossoverSearch& search) {
  for (std::size_t i = 0; i < search.probes().size(); ++i) {
    const double v = search.probes()[i].value;
    EXPECT_GE(v, search.spec().from);
    EXPECT_LE(v, search.spec().to);
    EXPECT_EQ(v, std::round(v));  // dataset_size takes integers
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(v, search.probes()[j].value);
  }
}

TEST(Search, BracketsCrossingsOfSeveralShapesWithinTenPercentInEightProbes) {
  struct Shape {
    const char* name;
    Curve curve;
    double crossing;
  };
  const std::vector<Shape> shapes = {
      {"power law", [](double x) { return x / 5785.0; }, 5785.0},
      {"saturating", [](double x) { return 40 * x / (x + 200000); }, 200000.0 / 39},
      {"steep", [](double x) { return std::pow(x / 1000, 2) / 30; }, 1000 * std::sqrt(30.0)},
      {"near the top", [](double x) { return x / 700000.0; }, 700000.0},
      {"near the bottom", [](double x) { return x / 130.0; }, 130.0},
  };
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(shape.name);
    const CrossoverSearch search = run_search(shape.curve, iris_range());
    EXPECT_EQ(search.outcome(), SearchOutcome::kCrossing) << search.statement();
    EXPECT_LE(search.probes().size(), 8U) << search.statement();
    const auto [low, high] = *search.bracket();
    EXPECT_LE(low, shape.crossing);
    EXPECT_GE(high, shape.crossing);
    EXPECT_LE((high - low) / low, 0.1);
    expect_distinct_probes_in_range(search);
    // One rule for every output (core/stats/crossing.hpp): where it starts to win, and the
    // crossing.
    EXPECT_EQ(search.statement().rfind("cuda wins from dataset_size ", 0), 0U)
        << search.statement();
    EXPECT_NE(search.statement().find("; the crossing lies near dataset_size "), std::string::npos)
        << search.statement();
  }
}

// Measured speedups are noisy: Iris fp32 against bf16 on the CPU went roughly as
// (rows / 2,700)^0.22, each pair's ratio off by about 1.5 % between runs, its bootstrap interval
// +-0.4 %. Over 200 simulated searches the bracket is within 10 % in 8 probes most of the time,
// and around the true crossing almost always.
TEST(Search, OnNoisyIrisLikeSpeedupsMostSearchesBracketTheCrossingWithinTenPercent) {
  std::mt19937 random(7);
  std::normal_distribution<double> noise(0.0, 0.015);
  int within = 0, around = 0;
  const int runs = 200;
  for (int run = 0; run < runs; ++run) {
    SearchSpec spec = iris_range();
    spec.to = 100000;
    CrossoverSearch search(spec, "fp32", "bf16");
    while (const auto value = search.next()) {
      Probe p;
      p.value = *value;
      p.speedup = std::pow(*value / 2700.0, 0.22) * std::exp(noise(random));
      p.low = p.speedup * 0.996;
      p.high = p.speedup * 1.004;
      p.winner = p.low > 1 ? Winner::kContender : p.high < 1 ? Winner::kBaseline : Winner::kTie;
      search.record(p);
    }
    const auto b = search.bracket();
    ASSERT_TRUE(b);
    within += search.outcome() != SearchOutcome::kBudgetSpent && search.probes().size() <= 8;
    around += b->first <= 2700 * 1.1 && b->second >= 2700 / 1.1;
  }
  EXPECT_GE(within, runs * 8 / 10);
  EXPECT_GE(around, runs * 9 / 10);
}

TEST(Search, AFallingSpeedupNamesTheBaselineAsTheWinnerAbove) {
  const CrossoverSearch search = run_search([](double x) { return 3000.0 / x; }, iris_range());
  ASSERT_EQ(search.outcome(), SearchOutcome::kCrossing) << search.statement();
  EXPECT_NE(search.statement().find("cpu wins from between"), std::string::npos)
      << search.statement();
  EXPECT_NE(search.statement().find("(cuda below)"), std::string::npos) << search.statement();
}

TEST(Search, NoSignChangeAtTheEndsIsNoCrossoverWithTheSpeedupRange) {
  const CrossoverSearch search = run_search(
      [](double x) { return 0.2 + 0.4 * std::log(x / 112) / std::log(1e6 / 112); }, iris_range());
  EXPECT_EQ(search.outcome(), SearchOutcome::kNoCrossover);
  EXPECT_EQ(search.probes().size(), 2U);  // the two ends
  EXPECT_FALSE(search.bracket());
  EXPECT_EQ(search.statement(),
            "no crossover between 112 and 1,000,000 dataset_size: cpu wins throughout "
            "(0.2x-0.6x, 2 probes)");
}

// Intervals of +-30 % around x / 5785: neither side wins from 4,450 to 8,264 (where the
// interval's top, then its bottom, crosses 1). The search finds both edges.
TEST(Search, WhereNeitherWinsTheSearchFindsTheTieRegionsTwoEdges) {
  SearchSpec spec = iris_range();
  spec.max_probes = 14;
  const CrossoverSearch search = run_search([](double x) { return x / 5785.0; }, spec, 0.3);
  ASSERT_EQ(search.outcome(), SearchOutcome::kTieRegion) << search.statement();
  const double lower_edge = 5785.0 / 1.3, upper_edge = 5785.0 / 0.7;
  // The outer bracket: from the last probe cpu wins to the first cuda wins.
  const auto [low, high] = *search.bracket();
  EXPECT_LT(low, lower_edge);
  EXPECT_GT(high, upper_edge);
  EXPECT_LE((lower_edge - low) / low, 0.1);
  EXPECT_LE((high - upper_edge) / upper_edge, 0.11);
  // Every probe that ties lies inside the region, and the statement says where.
  for (const Probe& p : search.probes()) {
    if (p.winner == Winner::kTie) {
      EXPECT_GE(p.value, lower_edge);
      EXPECT_LE(p.value, upper_edge);
    }
  }
  // The tie region's probes, the side each edge falls to, and the crossing never inside the ties.
  EXPECT_EQ(search.statement().rfind("cuda wins from dataset_size ", 0), 0U) << search.statement();
  EXPECT_NE(search.statement().find("; the two tie from "), std::string::npos)
      << search.statement();
  EXPECT_NE(search.statement().find("; cpu wins at "), std::string::npos) << search.statement();
  EXPECT_NE(search.statement().find("), so the crossing lies between "), std::string::npos)
      << search.statement();
  // With the default budget it stops short of both edges, and says so.
  const CrossoverSearch short_of =
      run_search([](double x) { return x / 5785.0; }, iris_range(), 0.3);
  EXPECT_EQ(short_of.outcome(), SearchOutcome::kBudgetSpent) << short_of.statement();
  EXPECT_NE(short_of.statement().find("; the two tie from "), std::string::npos)
      << short_of.statement();
}

// What searches.json keeps of a search with a tie region: the crossing's span and the tie
// region's, which its chart shades and labels as the statement names them; read back as a user's
// file, a span that is not two numbers is refused before anything is drawn.
TEST(Search, TheRecordKeepsTheSpansItsStatementNamesAndTheyAreCheckedWhenRead) {
  SearchSpec spec = iris_range();
  spec.max_probes = 14;
  const CrossoverSearch search = run_search([](double x) { return x / 5785.0; }, spec, 0.3);
  nlohmann::ordered_json record = search.to_json();
  record["workload"] = "iris_mlp";
  record["baseline"] = "cpu";
  record["contender"] = "cuda";
  ASSERT_TRUE(record.contains("tie_region")) << record.dump();
  const double tie_low = record["tie_region"][0], tie_high = record["tie_region"][1];
  const double low = record["bracket"][0], high = record["bracket"][1];
  EXPECT_LT(tie_low, tie_high);
  EXPECT_EQ(tie_high, low);  // the crossing lies between the highest tie and the first win
  const std::string statement = record["statement"];
  EXPECT_NE(statement.find(format_axis_value(low) + " and " + format_axis_value(high)),
            std::string::npos)
      << statement;
  nlohmann::ordered_json searches = nlohmann::ordered_json::array({record});
  EXPECT_FALSE(searches_problem(searches));
  const std::string chart = search_chart(record);
  EXPECT_NE(chart.find("class='search-tie-region'"), std::string::npos);
  EXPECT_NE(chart.find("crossing " + format_axis_value(low) + "–" + format_axis_value(high)),
            std::string::npos);
  // The tie region ends where the crossing begins: their labels sit on two lines, not on each
  // other.
  const auto label_y = [&](const std::string& what) {
    std::smatch m;
    const std::regex label("y='([0-9.]+)' fill='[^']*'>" + what);
    return std::regex_search(chart, m, label) ? std::stod(m[1]) : -1.0;
  };
  EXPECT_GT(label_y("crossing"), 0.0);
  EXPECT_GE(std::abs(label_y("tie region") - label_y("crossing")), 12.0);
  for (const nlohmann::ordered_json& bad :
       {nlohmann::ordered_json("4,645"), nlohmann::ordered_json({1, 2, 3}),
        nlohmann::ordered_json({"a", 2})}) {
    searches[0]["tie_region"] = bad;
    EXPECT_EQ(searches_problem(searches).value().text,
              "search 0: a tie region that is not two numbers");
  }
}

TEST(Search, ATieAtAnEndIsTheStartOfTheTieRegion) {
  SearchSpec spec = iris_range();
  spec.from = 5700;  // inside the region where +-5 % intervals hold 1: 5,510 to 6,089
  const CrossoverSearch search = run_search([](double x) { return x / 5785.0; }, spec, 0.05);
  ASSERT_EQ(search.outcome(), SearchOutcome::kTieRegion) << search.statement();
  EXPECT_EQ(search.probes().front().winner, Winner::kTie);
  EXPECT_EQ(search.bracket()->first, 5700);
  EXPECT_GE(search.bracket()->second, 5785.0 / 0.95);
  EXPECT_LE(search.bracket()->second, 1.1 * 5785.0 / 0.95);
  // Ties at both ends: no crossover, said as such.
  spec.to = 5800;
  const CrossoverSearch both = run_search([](double x) { return x / 5785.0; }, spec, 0.05);
  EXPECT_EQ(both.outcome(), SearchOutcome::kNoCrossover);
  EXPECT_NE(both.statement().find("the two tie at both ends"), std::string::npos)
      << both.statement();
}

TEST(Search, ABudgetSpentStillGivesTheBracketItReached) {
  SearchSpec spec = iris_range(0.001);
  spec.max_probes = 5;
  const double crossing = 200000.0 / 39;
  const CrossoverSearch search =
      run_search([](double x) { return 40 * x / (x + 200000); }, spec, 1e-6);
  EXPECT_EQ(search.outcome(), SearchOutcome::kBudgetSpent) << search.statement();
  EXPECT_EQ(search.probes().size(), 5U);
  const auto [low, high] = *search.bracket();
  EXPECT_LE(low, crossing);
  EXPECT_GE(high, crossing);
  EXPECT_NE(search.statement().find("budget (max_probes 5) spent"), std::string::npos)
      << search.statement();
}

TEST(Search, IntegersStopAtAdjacentValues) {
  SearchSpec spec;
  spec.key = "batch_size";
  spec.from = 1;
  spec.to = 64;
  spec.precision = 0.001;
  const CrossoverSearch search = run_search([](double x) { return x / 7.5; }, spec);
  EXPECT_EQ(search.outcome(), SearchOutcome::kCrossing) << search.statement();
  EXPECT_EQ(*search.bracket(), std::make_pair(7.0, 8.0));
  expect_distinct_probes_in_range(search);
}

TEST(Search, LinearScaleAndRealValuesWhenAsked) {
  SearchSpec spec;
  spec.key = "lr";
  spec.from = 0.0;
  spec.to = 1.0;
  spec.scale = SearchScale::kLinear;
  spec.integer = false;
  spec.precision = 0.05;
  const CrossoverSearch search = run_search([](double x) { return 0.4 + x; }, spec, 1e-6);
  ASSERT_EQ(search.outcome(), SearchOutcome::kCrossing) << search.statement();
  const auto [low, high] = *search.bracket();
  EXPECT_LE(low, 0.6);
  EXPECT_GE(high, 0.6);
  EXPECT_LE((high - low) / low, 0.05);
}

TEST(Search, ATraceOfEveryProbeAndAStopThatSaysWhy) {
  CrossoverSearch search(iris_range(), "cpu", "cuda");
  Probe first;
  first.value = *search.next();
  first.speedup = first.low = first.high = 0.5;
  first.winner = Winner::kBaseline;
  first.cells = {0, 1};
  search.record(first);
  EXPECT_EQ(*search.next(), 1000000);
  search.stop("cell 3 (cuda) skipped: no CUDA device");
  EXPECT_FALSE(search.next());
  const auto j = search.to_json();
  EXPECT_EQ(j["outcome"], "stopped");
  EXPECT_EQ(j["probes"].size(), 1U);
  EXPECT_EQ(j["probes"][0]["cells"], nlohmann::ordered_json({0, 1}));
  EXPECT_NE(search.statement().find("no CUDA device"), std::string::npos);
  // Probes in order with the bracket after each, once there is one.
  const CrossoverSearch done = run_search([](double x) { return x / 5785.0; }, iris_range());
  const auto trace = done.to_json()["probes"];
  EXPECT_FALSE(trace[0].contains("bracket_after"));
  ASSERT_TRUE(trace[1].contains("bracket_after"));
  EXPECT_EQ(trace[1]["bracket_after"], nlohmann::ordered_json({112.0, 1000000.0}));
  EXPECT_EQ(trace.back()["bracket_after"][0], done.bracket()->first);
}

}  // namespace
}  // namespace crossover
