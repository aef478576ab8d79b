// The built `crossover` binary, end to end: isolated cells on warm workers and in fresh
// processes, what a crash, a hang or running out of memory costs, and --require.
#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "core/records/results.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // crossover::testing: the binary, scratch directories, tiny grids

TEST(Cli, AnIsolatedCellThatAbortsSegfaultsHangsOrRunsOutOfMemoryFailsAloneWithItsReason) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("iso.json", R"({
    "name": "iso",
    "defaults": {"epochs": 3, "warmup_epochs": 0, "repeats": 1, "timeout_seconds": 10},
    "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2, 3]}}]})");
  const std::pair<const char*, const char*> faults[] = {
      {"abort",
       "the cell's process was killed by signal 6 (Aborted); last output: injecting "
       "abort into cell 1"},
      {"segfault", "the cell's process was killed by signal 11 (Segmentation fault)"},
      {"kill", "killed by signal 9 (Killed), as the out-of-memory killer does (see dmesg)"},
      {"hang", "timed out after 10 s; its process was stopped"},
      // LibTorch's own out-of-memory error (a pebibyte asked of the CPU allocator) fails the
      // cell through the same path as any error it throws, with its first line as the reason.
      {"oom", "you tried to allocate 1125899906842624 bytes"}};
  // The test hook makes the cell with seed 2 fail as a crash or a deadlock in a library would.
  const auto run = [&](const std::string& fault) {
    return crossover(
        dir,
        "run " + grid + " --out " + dir.file("out-" + fault) + " --data-dir " + testing::data_dir(),
        "CROSSOVER_INJECT_FAULT=" + fault + "@2", fault + "-");
  };
  // The hang waits out its 10 s beside the other four, run one after another: two runs at a time
  // at most, so that no healthy cell nears the timeout on a busy machine.
  std::future<Outcome> hang = std::async(std::launch::async, run, "hang");
  std::map<std::string, Outcome> outcomes;
  for (const auto& fault : faults)
    if (std::string(fault.first) != "hang") outcomes[fault.first] = run(fault.first);
  outcomes["hang"] = hang.get();
  for (const auto& [fault, reason] : faults) {
    const std::string out = dir.file(std::string("out-") + fault);
    const Outcome& o = outcomes[fault];
    EXPECT_EQ(o.code, 1) << fault << o.err;
    const auto results = read_results(out + "/results.jsonl");
    ASSERT_EQ(results.size(), 3u) << fault;
    EXPECT_EQ(results[0].status, CellStatus::kOk) << fault;
    EXPECT_EQ(results[1].status, CellStatus::kFailed) << fault;
    EXPECT_NE(results[1].reason.find(reason), std::string::npos) << results[1].reason;
    EXPECT_EQ(results[2].status, CellStatus::kOk) << fault;
    EXPECT_TRUE(results[0].cell.isolate);  // timeout_seconds isolates
    // The failed cell ran on the first cell's warm worker and took it with it: the next cell
    // starts a fresh one.
    EXPECT_EQ(results[1].worker, results[0].worker) << fault;
    EXPECT_EQ(results[1].worker_cells_before, 1) << fault;
    EXPECT_NE(results[2].worker, results[1].worker) << fault;
    EXPECT_EQ(results[2].worker_cells_before, 0) << fault;
  }
}

TEST(Cli, WarmWorkersRunIsolatedCellsAsFreshProcessesWould) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("warm.json", R"({
    "name": "warm",
    "defaults": {"epochs": 2, "warmup_epochs": 0, "repeats": 1, "isolate": true,
                 "deterministic": true},
    "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2, 3], "threads": [1, 2]}},
                    {"workload": "iris_mlp", "settings": {"isolate": false, "seed": 4}}]})");
  const std::string run = "run " + grid + " --data-dir " + testing::data_dir() + " --out ";
  Outcome o = crossover(dir, run + dir.file("warm"));
  ASSERT_EQ(o.code, 0) << o.err;
  o = crossover(dir, run + dir.file("fresh") + " --fresh-process-per-cell");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto warm = read_results(dir.file("warm/results.jsonl"));
  const auto fresh = read_results(dir.file("fresh/results.jsonl"));
  ASSERT_EQ(warm.size(), 7u);
  ASSERT_EQ(fresh.size(), 7u);
  std::map<int, std::set<int>> workers;  // by threads
  std::map<int, std::vector<int>> before;
  std::set<int> fresh_workers;
  std::set<std::string> digests;
  for (std::size_t i = 0; i + 1 < warm.size(); ++i) {
    const Result &w = warm[i], &f = fresh[i];
    ASSERT_EQ(w.status, CellStatus::kOk) << w.reason;
    ASSERT_EQ(f.status, CellStatus::kOk) << f.reason;
    ASSERT_EQ(w.cell.index, f.cell.index);
    workers[w.cell.threads].insert(w.worker);
    before[w.cell.threads].push_back(w.worker_cells_before);
    fresh_workers.insert(f.worker);
    EXPECT_EQ(f.worker_cells_before, 0);
    // What a warm worker measured is what a fresh process measured: the same parameters, bit for
    // bit, and the same loss and accuracy.
    ASSERT_EQ(w.parameter_digests.size(), 1u);
    EXPECT_FALSE(w.parameter_digests[0].empty());
    EXPECT_EQ(w.parameter_digests, f.parameter_digests) << cell_label(w.cell);
    EXPECT_EQ(w.train_loss, f.train_loss) << cell_label(w.cell);
    EXPECT_EQ(w.metric_value, f.metric_value) << cell_label(w.cell);
    digests.insert(w.parameter_digests[0]);
  }
  EXPECT_GE(digests.size(), 3u);  // another seed trains other parameters
  // One warm worker per thread count, its three cells in turn; a fresh process for each cell.
  ASSERT_EQ(workers[1].size(), 1u);
  ASSERT_EQ(workers[2].size(), 1u);
  EXPECT_NE(*workers[1].begin(), *workers[2].begin());
  EXPECT_GE(*workers[1].begin(), 1);
  EXPECT_EQ(before[1], (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(before[2], (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(fresh_workers.size(), 6u);
  // The cell that is not isolated ran in the run's own process.
  EXPECT_EQ(warm.back().worker, 0);
  EXPECT_EQ(fresh.back().worker, 0);
  EXPECT_EQ(nlohmann::json::parse(slurp(dir.file("warm/env.json")))["isolation"], "warm workers");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir.file("fresh/env.json")))["isolation"],
            "a fresh process per isolated cell");
}

TEST(Cli, RequireFailsARunOrACompareThatMeasuredNoCellOfTheDevice) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"epochs": 2, "warmup_epochs": 0, "repeats": 1},
    "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"]}}]})");
  const std::string run = "run " + grid + " --data-dir " + testing::data_dir() + " --out ";
  // Without CUDA here the cuda cell is skipped: the run measured no cuda cell, and says so.
  if (crossover(dir, "list").out.find("cuda:0") != std::string::npos)
    GTEST_SKIP() << "this machine has CUDA";
  Outcome o = crossover(dir, run + dir.file("a") + " --require cpu --require cuda");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("--require cuda: this run measured no cuda cell (1 cell(s), none ok; the "
                       "first was skipped: "),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("--require cpu"), std::string::npos) << o.err;
  EXPECT_EQ(read_results(dir.file("a/results.jsonl")).size(), 2u);  // measured, and kept
  // A predicted cell is not a measured one.
  const std::string profile = std::string(CROSSOVER_SOURCE_DIR) + "/profiles/h100-80gb.json";
  o = crossover(dir, run + dir.file("b") + " --require cuda --predict cuda=" + profile);
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("the first was predicted: "), std::string::npos) << o.err;
  EXPECT_EQ(crossover(dir, run + dir.file("c") + " --require cpu").code, 0);
  // compare names the side that lacks the device; without --require it passes.
  o = crossover(dir, "compare " + dir.file("a") + " " + dir.file("c") + " --require cuda");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("--require cuda: the baseline measured no cuda cell"), std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("--require cuda: the candidate measured no cuda cell"), std::string::npos)
      << o.err;
  EXPECT_EQ(crossover(dir, "compare " + dir.file("a") + " " + dir.file("c")).code, 0);
  // Only a device's kind: a typo is refused before anything runs.
  o = crossover(dir, run + dir.file("d") + " --require gpu");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--require"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir.file("d")));
}

// docs/ci.md's two recipes, as written there: a planted regression (CROSSOVER_PLANT_LOAD, busy
// processes held still while the reference is timed) is never "no change", and a planted load
// (scripts/loaded-crossover.sh, busy processes beside the whole run) is never called a regression:
// one run per side either cannot tell the machine from the code, or finds the runs too noisy.
// (The planted regression may be "regression" or "inconclusive": Iris at batch 16, one thread,
// was "inconclusive" in each of five runs alone on the 2-core VM; results.md has what each said.)
// One busy process beside the busy run, not the script's default two: on two cores, two beside the
// run also took the core of the test running beside this one, for the 20 s the run then took.
TEST(Cli, ThePlantedRegressionIsNoticedAndThePlantedLoadIsNotBlamedOnTheCode) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "recipes",
    "defaults": {"epochs": 4, "warmup_epochs": 1, "repeats": 2, "processes": 2, "threads": 1},
    "experiments": [{"workload": "iris_mlp", "settings": {"batch_size": 16}}]})");
  const std::string run = "run " + grid + " --data-dir " + testing::data_dir() + " --out ";
  // The load is seen in the reference timed around the cells: each run measures its machine.
  const std::string measure = testing::kMeasureMachine;
  const auto measure_pair = [&](const std::string& suffix) {
    ASSERT_EQ(crossover(dir, run + dir.file("base" + suffix), measure).code, 0);
    ASSERT_EQ(
        crossover(dir, run + dir.file("cand" + suffix), measure + " CROSSOVER_PLANT_LOAD=2").code,
        0);
  };
  measure_pair("");
  const std::string loaded = std::string(CROSSOVER_SOURCE_DIR) + "/scripts/loaded-crossover.sh";
  const Outcome busy = shell(dir, measure + " CROSSOVER_DATA_DIR= LOAD_PROCESSES=1 CROSSOVER_BIN=" +
                                      std::string(CROSSOVER_BINARY) + " bash " + loaded + " " +
                                      run + dir.file("busy"));
  ASSERT_EQ(busy.code, 0) << busy.err;
  const auto verdict = [&](const std::string& base, const std::string& candidate) {
    const std::string json = dir.file(candidate + ".json");
    const Outcome o =
        crossover(dir, "compare " + dir.file(base) + " " + dir.file(candidate) + " --json " + json);
    const auto j = nlohmann::json::parse(slurp(json));
    EXPECT_EQ(o.code, j["cells"][0]["verdict"] == "regression" ? 1 : 0) << o.out;
    return std::make_pair(j["cells"][0]["verdict"].get<std::string>(), o.out);
  };
  auto [planted, planted_text] = verdict("base", "cand");
  // The test beside this one under ctest -j 2 shares the two cores: once, in CI, it slowed the
  // baseline's one run more than the planted load slowed the candidate's ("1 improved"). One
  // pair measured again decides then; twice in a row would be this recipe failing.
  if (planted != "regression" && planted != "inconclusive") {
    measure_pair("-again");
    std::tie(planted, planted_text) = verdict("base-again", "cand-again");
  }
  EXPECT_TRUE(planted == "regression" || planted == "inconclusive") << planted_text;
  EXPECT_NE(planted_text.find("planted load (busy processes, CROSSOVER_PLANT_LOAD): (none) -> 2"),
            std::string::npos)
      << planted_text;
  const auto [load, load_text] = verdict("base", "busy");
  EXPECT_NE(load, "regression") << load_text;
}

// CROSSOVER_PLANT_SLOWDOWN: a regression of known size in the code itself. The run says so when it
// starts, env.json records it, and compare names it among what differs between the two runs.
TEST(Cli, APlantedSlowdownIsAnnouncedRecordedAndNamedByCompare) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"epochs": 3, "warmup_epochs": 1, "repeats": 1, "threads": 1},
    "experiments": [{"workload": "iris_mlp"}]})");
  const std::string run = "run " + grid + " --data-dir " + testing::data_dir() + " --out ";
  ASSERT_EQ(crossover(dir, run + dir.file("base")).code, 0);
  const Outcome planted = crossover(dir, run + dir.file("cand"), "CROSSOVER_PLANT_SLOWDOWN=0.5");
  ASSERT_EQ(planted.code, 0) << planted.err;
  EXPECT_NE(planted.err.find("CROSSOVER_PLANT_SLOWDOWN=0.5: every timed epoch spins for 50 % more"),
            std::string::npos)
      << planted.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir.file("cand/env.json")))["planted_slowdown"], 0.5);
  EXPECT_FALSE(
      nlohmann::json::parse(slurp(dir.file("base/env.json"))).contains("planted_slowdown"));
  const Outcome o = crossover(dir, "compare " + dir.file("base") + " " + dir.file("cand"));
  EXPECT_NE(o.out.find("planted slowdown (each timed epoch, CROSSOVER_PLANT_SLOWDOWN): (none) -> "
                       "+50 %"),
            std::string::npos)
      << o.out;
}

// The summary stays whole when standard error and output share one pipe (2>&1 | cat, as a CI
// log reads them): the warning about the planted slowdown comes before it, never inside a line.
TEST(Cli, CompareWarningsNeverLandInsideTheSummary) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"epochs": 3, "warmup_epochs": 1, "repeats": 1, "threads": 1},
    "experiments": [{"workload": "iris_mlp", "grid": {"batch_size": [16, 32, 64]}}]})");
  const std::string run = "run " + grid + " --data-dir " + testing::data_dir() + " --out ";
  ASSERT_EQ(crossover(dir, run + dir.file("base")).code, 0);
  ASSERT_EQ(crossover(dir, run + dir.file("cand"), "CROSSOVER_PLANT_SLOWDOWN=0.5").code, 0);
  const Outcome o =
      shell(dir, "({ CROSSOVER_DATA_DIR= " + std::string(CROSSOVER_BINARY) + " compare " +
                     dir.file("base") + " " + dir.file("cand") + " 2>&1; } | cat)");
  const std::size_t warning = o.out.find("warning: the runs differ in planted slowdown");
  const std::size_t summary = o.out.find("measured cell(s):");
  ASSERT_NE(warning, std::string::npos) << o.out;
  ASSERT_NE(summary, std::string::npos) << o.out;
  EXPECT_LT(warning, o.out.find("crossover compare:")) << o.out;
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("warning:") != std::string::npos) {
      EXPECT_EQ(line.rfind("warning:", 0), 0u) << "a warning inside a line: " << line;
    }
  }
}

}  // namespace
}  // namespace crossover
