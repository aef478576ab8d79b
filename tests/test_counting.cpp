// Counted cells end to end (issue 98): one tiny iris cell counted under Callgrind, and the same
// with 2 % of planted work, through `crossover run` and `crossover compare --metric instructions`;
// and the refusals of a counter that cannot count, before anything runs. The run under valgrind
// skips, saying so, where valgrind is not installed.
#include <gtest/gtest.h>

#include "runner/hardware/counter.hpp"
#include "tests/cli_support.hpp"

namespace crossover {
namespace {

const char* kCountedGrid = R"({"name": "counted", "defaults": {"count": "instructions",
    "threads": 1, "repeats": 1, "epochs": 2, "warmup_epochs": 1},
  "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"]}}]})";

TEST(Counting, ATinyCellCountedUnderCallgrindCatchesTwoPercentOfPlantedWork) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  if (valgrind_path().empty())
    GTEST_SKIP() << "valgrind is not installed (scripts/setup.sh installs it): no counted run";
  testing::ScratchDir dir;
  const std::string grid = dir.write("grid.json", kCountedGrid);
  const std::string base = dir.file("base"), planted = dir.file("planted");
  // Callgrind on every machine: a machine with hardware counters would otherwise use them.
  const std::string env = std::string(testing::kNoGpu) + " CROSSOVER_COUNTER=callgrind";
  const std::string data = " --data-dir " + testing::data_dir();
  ASSERT_EQ(testing::crossover(dir, "run " + grid + " --out " + base + data, env).code, 0);
  const testing::Outcome p = testing::crossover(dir, "run " + grid + " --out " + planted + data,
                                                env + " CROSSOVER_PLANT_WORK=0.02", "p");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.err.find("CROSSOVER_PLANT_WORK=0.02"), std::string::npos) << p.err;

  const auto results = read_results(base + "/results.jsonl");
  ASSERT_EQ(results.size(), 2u);
  const Result& r = results.front();
  ASSERT_EQ(r.status, CellStatus::kOk) << r.reason;
  EXPECT_EQ(r.cell.count, Count::kInstructions);
  EXPECT_EQ(r.counts.counter, "callgrind");
  EXPECT_EQ(r.counts.counter_version.rfind("valgrind-", 0), 0u) << r.counts.counter_version;
  EXPECT_FALSE(r.counts.counted_isa.empty());
  ASSERT_EQ(r.counts.instructions_samples.size(), 2u);  // exactly its repeat's 2 timed epochs
  for (double c : r.counts.instructions_samples) EXPECT_GT(c, 1e5);
  EXPECT_LT(r.counts.instructions_spread, 0.05);
  // The CUDA cell is not counted: skipped here, and its count key is none.
  EXPECT_EQ(results.back().cell.count, Count::kNone);
  EXPECT_NE(testing::slurp(base + "/env.json").find("\"counter\": \"callgrind: "),
            std::string::npos);
  const std::string csv = testing::slurp(base + "/results.csv");
  EXPECT_NE(csv.find("instructions_per_epoch"), std::string::npos);
  EXPECT_EQ(csv.find("instructions_samples"), std::string::npos);  // samples stay in the JSON

  const testing::Outcome same =
      testing::crossover(dir, "compare " + base + " " + base + " --metric instructions", "", "s");
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_EQ(same.out.rfind("PASS: no regression in 1 measured cell(s)", 0), 0u) << same.out;
  const std::string json = dir.file("verdict.json");
  const testing::Outcome worse = testing::crossover(
      dir, "compare " + base + " " + planted + " --metric instructions --json " + json, "", "w");
  EXPECT_EQ(worse.code, 1) << worse.out << worse.err;
  EXPECT_EQ(worse.out.rfind("FAIL: 1 regression(s)", 0), 0u) << worse.out;
  EXPECT_NE(worse.out.find("exit 1 under --fail-on regression"), std::string::npos) << worse.out;
  const auto verdict = nlohmann::json::parse(testing::slurp(json));
  EXPECT_EQ(verdict["status"], "FAIL");
  const double change = verdict["cells"][0]["change"].get<double>();
  EXPECT_GT(change, 0.015);  // 2 % of the epoch's work, and the span's own few instructions
  EXPECT_LT(change, 0.04);
  EXPECT_EQ(verdict["cells"][0]["test"], "counts");
}

TEST(Counting, ACounterThatCannotCountRefusesTheRunBeforeAnythingRuns) {
  testing::ScratchDir dir;
  const std::string grid = dir.write("grid.json", kCountedGrid);
  const testing::Outcome o = testing::crossover(dir, "run " + grid + " --out " + dir.file("out"),
                                                "CROSSOVER_COUNTER=papi");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("CROSSOVER_COUNTER must be \"auto\", \"perf\" or \"callgrind\", got 'papi'"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(fs::exists(dir.file("out") + "/results.jsonl"));
  // Callgrind wanted but valgrind not on PATH: the package is named.
  const testing::Outcome none =
      testing::crossover(dir, "run " + grid + " --out " + dir.file("out2"),
                         "PATH=/nonexistent CROSSOVER_COUNTER=callgrind", "n");
  EXPECT_EQ(none.code, 2) << none.err;
  EXPECT_NE(none.err.find("apt-get install valgrind"), std::string::npos) << none.err;
  // A planted work that is not a fraction.
  const testing::Outcome work = testing::crossover(
      dir, "run " + grid + " --out " + dir.file("out3"), "CROSSOVER_PLANT_WORK=0x10", "w");
  EXPECT_EQ(work.code, 2) << work.err;
  EXPECT_NE(work.err.find("CROSSOVER_PLANT_WORK must be a fraction"), std::string::npos)
      << work.err;
}

}  // namespace
}  // namespace crossover
