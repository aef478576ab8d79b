// The reports of a real run (seed 001's Iris and Boston along dataset_size on an H100 and its
// 16-core host, tests/golden/a-seed001/) must come out byte for byte as the golden copies: a
// change of the report code that changes what a report says shows here, and is either a fix
// (regenerate the copies with CROSSOVER_UPDATE_GOLDEN=1 and say so in the commit) or a bug.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

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

}  // namespace
}  // namespace crossover
