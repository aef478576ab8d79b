// The reports of a real run (seed 001's Iris and Boston along dataset_size on an H100 and its
// 16-core host, tests/golden/a-seed001/) must come out byte for byte as the golden copies: a
// change of the report code that changes what a report says shows here, and is either a fix
// (regenerate the copies with CROSSOVER_UPDATE_GOLDEN=1 and say so in the commit) or a bug.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "core/text/text.hpp"
#include "reports/charts/svg_charts.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // crossover::testing: the binary, scratch directories

TEST(GoldenReports, ARealRunsReportsAreByteForByteTheGoldenCopies) {
  const std::string golden = std::string(CROSSOVER_SOURCE_DIR) + "/tests/golden/a-seed001";
  ScratchDir dir;
  const std::string run = dir.file("a-seed001");  // the folder's name is the report's title
  fs::create_directories(run);
  fs::copy_file(golden + "/results.jsonl", run + "/results.jsonl");
  fs::copy_file(golden + "/env.json", run + "/env.json");
  const Outcome o = crossover(dir, "report " + run);
  ASSERT_EQ(o.code, 0) << o.err;
  const bool update = std::getenv("CROSSOVER_UPDATE_GOLDEN") != nullptr;
  for (const char* file : {"report.md", "results.csv", "summary.json", "gbench.json"}) {
    const std::string made = slurp(run + "/" + file);
    const std::string expected_path = golden + "/expected/" + file;
    if (update) {
      fs::create_directories(golden + "/expected");
      std::ofstream(expected_path, std::ios::binary) << made;
      continue;
    }
    ASSERT_TRUE(fs::exists(expected_path)) << expected_path;
    EXPECT_EQ(made, slurp(expected_path))
        << file << " differs from " << expected_path
        << "; if the change is meant, regenerate with CROSSOVER_UPDATE_GOLDEN=1";
  }
  EXPECT_NE(slurp(run + "/report.md").find("Crossover"), std::string::npos);
}

// One finding, one story (issue 54): on the H100 run and on a searched run of the VM (Iris fp32
// against bf16, tests/golden/iris-search/), every crossing that summary.json holds is stated in
// the same words by the terminal, report.md and report.html; its chart marks the same crossing
// or, after measured ties, shades the same span; and a search says what the crossover section of
// its comparison says, its chart shading the interval its statement names.
TEST(GoldenReports, EveryOutputStatesTheSameCrossings) {
  for (const char* name : {"a-seed001", "iris-search"}) {
    SCOPED_TRACE(name);
    const std::string golden = std::string(CROSSOVER_SOURCE_DIR) + "/tests/golden/" + name;
    ScratchDir dir;
    const std::string run = dir.file(name);
    fs::create_directories(run);
    for (const char* file : {"results.jsonl", "env.json", "searches.json"})
      if (fs::exists(golden + "/" + file)) fs::copy_file(golden + "/" + file, run + "/" + file);
    // --verbose: the terminal says every comparison's statements (by default the verdict's
    // comparison's are said in the verdict).
    const Outcome o = crossover(dir, "--verbose report " + run);
    ASSERT_EQ(o.code, 0) << o.err;
    const std::string md = slurp(run + "/report.md"), html = slurp(run + "/report.html");
    const auto summary = nlohmann::json::parse(slurp(run + "/summary.json"));
    std::size_t crossings = 0, ties = 0;
    std::vector<std::string> statements;
    for (const auto& comparison : summary.at("comparisons")) {
      for (const auto& c : comparison.at("crossovers")) {
        const std::string statement = c.at("statement").get<std::string>();
        statements.push_back(statement);
        EXPECT_NE(o.out.find(statement), std::string::npos) << statement;
        EXPECT_NE(md.find(statement), std::string::npos) << statement;
        EXPECT_NE(html.find(html_escape(statement)), std::string::npos) << statement;
        if (!c.at("crossing").is_null()) {
          ++crossings;
          const double at = c.at("crossing").get<double>();
          EXPECT_NE(statement.find("near " + c.at("axis").get<std::string>() + " " +
                                   format_axis_value(std::round(at))),
                    std::string::npos)
              << statement;
          EXPECT_NE(html.find(html_escape("crossover ≈ " +
                                          format_axis_value(at >= 1000 ? std::round(at) : at))),
                    std::string::npos)
              << statement;
          EXPECT_LE(c.at("crossing_low").get<double>(), at);
          EXPECT_GE(c.at("crossing_high").get<double>(), at);
        } else if (c.contains("tie_region")) {
          ++ties;
          EXPECT_NE(statement.find("the two tie"), std::string::npos) << statement;
          EXPECT_EQ(statement.find("lies near"), std::string::npos) << statement;
        }
      }
    }
    EXPECT_GT(crossings + ties, 0U);
    // Every ratio's direction word agrees with its number: a side that "wins ... (speedup X" has
    // X above 1, "speedup X (... faster" above 1 and "slower" below, "Xx faster than" above 1.
    std::vector<std::string> sentences = statements;
    for (const auto& comparison : summary.at("comparisons"))
      for (const auto& r : comparison.at("recommendations"))
        sentences.push_back(r.at("statement").get<std::string>());
    const std::regex wins(R"(wins (from|at every)[^(]*\((speedup )?([0-9.]+)x)"),
        worded(R"(speedup ([0-9.]+)x \([^ ]+ (faster|slower))"),
        faster(R"(([0-9.]+)x faster than)");
    std::size_t checked = 0;
    for (const std::string& s : sentences) {
      for (std::sregex_iterator m(s.begin(), s.end(), wins), end; m != end; ++m, ++checked)
        EXPECT_GT(std::stod((*m)[3]), 1.0) << s;
      for (std::sregex_iterator m(s.begin(), s.end(), worded), end; m != end; ++m, ++checked)
        EXPECT_EQ(std::stod((*m)[1]) > 1.0, (*m)[2] == "faster") << s;
      for (std::sregex_iterator m(s.begin(), s.end(), faster), end; m != end; ++m, ++checked)
        EXPECT_GT(std::stod((*m)[1]), 1.0) << s;
    }
    EXPECT_GT(checked, 0U);
    for (const auto& search : summary.value("searches", nlohmann::json::array())) {
      const std::string statement = search.at("statement").get<std::string>();
      // The search's statement names the side its comparison's statement names as the winner
      // along the axis. (The search brackets where the speedup crosses 1; the comparison's
      // "wins" clears the 5 % margin, so their numbers may part.)
      const auto winner_of = [](const std::string& text) {
        const auto at = text.find(" wins ");
        return at == std::string::npos ? std::string()
                                       : text.substr(text.rfind(' ', at - 1) + 1, at);
      };
      const bool agrees = std::any_of(statements.begin(), statements.end(), [&](const auto& s) {
        return !winner_of(s).empty() && winner_of(s) == winner_of(statement);
      });
      EXPECT_TRUE(agrees) << statement;
      ASSERT_TRUE(search.contains("bracket")) << statement;
      const std::string span = format_axis_value(std::round(search["bracket"][0].get<double>())) +
                               "-" +
                               format_axis_value(std::round(search["bracket"][1].get<double>()));
      EXPECT_NE(statement.find("(" + span + ")"), std::string::npos) << span << ": " << statement;
      EXPECT_NE(html.find("crossing " +
                          format_axis_value(std::round(search["bracket"][0].get<double>())) + "–" +
                          format_axis_value(std::round(search["bracket"][1].get<double>()))),
                std::string::npos)
          << span;
    }
  }
}

}  // namespace
}  // namespace crossover
