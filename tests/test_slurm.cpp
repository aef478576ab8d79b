// A real Slurm cluster (scripts/slurm/submit.sh's job array and merge job): the merged run equals
// one unsharded run, and a task cancelled before it ran leaves its cells `not run` with a warning,
// for `run --resume` of the merged run to measure. Needs a cluster: scripts/test.sh --full brings
// up a one-node one on this machine (scripts/slurm/local-cluster.sh) and sets SLURM_CONF; without
// one both tests skip.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "core/records/results.hpp"
#include "tests/cli_support.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

using namespace testing;  // crossover::testing: the binary, scratch directories

constexpr const char* kNoSlurm =
    "no Slurm cluster (scripts/test.sh --full starts a one-node one: "
    "scripts/slurm/local-cluster.sh up)";

bool have_slurm() {
  return std::getenv("SLURM_CONF") != nullptr && std::system("sinfo -h >/dev/null 2>&1") == 0;
}

// Waits until the shard and merge jobs have left the queue (a few minutes on any machine).
::testing::AssertionResult jobs_ended() {
  const auto start = std::chrono::steady_clock::now();
  while (std::system("test -n \"$(squeue -h -n crossover-shard,crossover-merge)\"") == 0) {
    if (std::chrono::steady_clock::now() - start > std::chrono::minutes(5))
      return ::testing::AssertionFailure() << "the jobs are still queued after 5 minutes";
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  return ::testing::AssertionSuccess();
}

// scripts/slurm/submit.sh GRID 4 RUNS with `options`, from `dir`; its output in dir/submitted.
std::string submit_command(const ScratchDir& dir, const std::string& grid, const std::string& runs,
                           const std::string& options) {
  const std::string env = std::string(kTestWorkloadsVariable) + "=1 CROSSOVER=" + CROSSOVER_BINARY;
  return env + " " + std::string(CROSSOVER_SOURCE_DIR) + "/scripts/slurm/submit.sh " + grid +
         " 4 " + runs + " --chdir=" + dir.file("") + " --output=" + dir.file("%x-%A_%a.out") + " " +
         options + " >" + dir.file("submitted") + " 2>&1";
}

// A real Slurm: a 4-task job array of a small grid and the merge job after it
// (scripts/slurm/submit.sh), against one unsharded run. Needs a cluster: scripts/test.sh --full
// brings up a one-node one on this machine (scripts/slurm/local-cluster.sh) and sets SLURM_CONF.
TEST(Slurm, AFourTaskArrayAndItsMergeJobGiveTheCellsOfOneRun) {
  if (!have_slurm()) GTEST_SKIP() << kNoSlurm;
  ScratchDir dir;
  // Four units: at each size, the cpu cell with threads 1 and 0 and the (skipped) cuda cell.
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"repeats": 2, "epochs": 2, "warmup_epochs": 1},
    "experiments": [
      {"workload": "standin_mlp",
       "grid": {"device": ["cpu"], "dataset_size": [16, 32, 64, 128], "threads": [1, 0]}},
      {"workload": "standin_mlp",
       "grid": {"device": ["cuda"], "dataset_size": [16, 32, 64, 128]}}]})");
  const std::string runs = dir.file("runs");
  ASSERT_EQ(std::system(submit_command(dir, grid, runs, "").c_str()), 0)
      << slurp(dir.file("submitted"));
  ASSERT_TRUE(jobs_ended());
  ASSERT_TRUE(std::filesystem::exists(runs + "/merged/results.jsonl"))
      << slurp(dir.file("submitted")) << "merge job output: missing";
  for (int k = 0; k < 4; ++k) {
    const auto part =
        nlohmann::json::parse(slurp(runs + "/shard-" + std::to_string(k) + "/env.json"));
    EXPECT_EQ(part["shard"]["index"], k + 1);
    EXPECT_EQ(part["shard"]["count"], 4);
    EXPECT_EQ(part["shard"]["source"], "a Slurm job array");
  }
  ASSERT_EQ(crossover(dir, "run " + grid + " --out " + dir.file("whole"),
                      std::string(kTestWorkloadsVariable) + "=1")
                .code,
            0);
  const auto identities = [](const std::string& run) {
    std::vector<std::string> out;
    for (const Result& r : read_results(run + "/results.jsonl")) {
      // The cuda cells are skipped on a machine without a GPU, and run on one that has it.
      if (!r.cell.device.is_cuda()) {
        EXPECT_EQ(r.status, CellStatus::kOk) << r.reason;
      }
      Cell c = r.cell;
      c.host.clear();  // each shard labelled by its node, the whole run by this machine
      out.push_back(std::to_string(c.index) + " " + cell_identity_json(c).dump());
    }
    return out;
  };
  EXPECT_EQ(identities(runs + "/merged"), identities(dir.file("whole")));
  // One report as of one run: a row per size with its cpu and cuda cells, and no warning of the
  // merge (every unit ran whole on one node, and one node is one kind of machine). A busy test
  // machine may move a shard's reference within it: that warning is the machine's, not the
  // merge's, and each shard's cells are read against their own shard's start. Under ctest the
  // shards reuse the suite's machine record, which every report says: the harness's warning,
  // not the merge's either.
  const std::string report = slurp(runs + "/merged/report.md");
  EXPECT_TRUE(std::regex_search(
      report, std::regex(R"(\| dataset_size \| threads \| cpu (s|ms|us) \| cuda (s|ms|us) \|)")))
      << report;
  const std::string merge_warnings = std::regex_replace(
      report,
      std::regex("> \\*\\*Warning:\\*\\* (The machine's speed moved during the run|This run "
                 "did not measure its machine)[^\n]*"),
      "");
  EXPECT_EQ(merge_warnings.find("Warning"), std::string::npos) << report;
  // The merge job's log: merge says what its reports open with, the harness's record warning
  // (and a shard's own drift) among them, and nothing of the merge itself.
  for (const auto& file : std::filesystem::directory_iterator(dir.path())) {
    if (file.path().filename().string().rfind("crossover-merge", 0) != 0) continue;
    const std::string log = std::regex_replace(
        slurp(file.path().string()),
        std::regex("warning: (The machine's speed moved during the run|This run did not measure "
                   "its machine)[^\n]*"),
        "");
    EXPECT_EQ(log.find("warning"), std::string::npos) << log;
  }
}

TEST(Slurm, ACancelledTaskLeavesItsCellsForTheResumeOfTheMergedRun) {
  if (!have_slurm()) GTEST_SKIP() << kNoSlurm;
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"repeats": 2, "epochs": 2, "warmup_epochs": 1},
    "experiments": [{"workload": "standin_mlp",
                     "grid": {"dataset_size": [16, 32, 64, 128], "threads": [1, 0]}}]})");
  const std::string runs = dir.file("runs");
  // Both jobs held, so that the last task is cancelled before it runs, as a user's scancel of a
  // pending task would; then the rest are let go.
  ASSERT_EQ(std::system(submit_command(dir, grid, runs, "--hold").c_str()), 0)
      << slurp(dir.file("submitted"));
  std::smatch ids;
  const std::string submitted = slurp(dir.file("submitted"));
  ASSERT_TRUE(std::regex_search(submitted, ids,
                                std::regex("job ([0-9]+) \\(4 tasks\\); merge: job ([0-9]+)")))
      << submitted;
  const std::string array = ids[1], merge = ids[2];
  ASSERT_EQ(std::system(("scancel " + array + "_3").c_str()), 0);
  ASSERT_EQ(std::system(("scontrol release " + array + " " + merge + " >/dev/null").c_str()), 0);
  ASSERT_TRUE(jobs_ended());
  const std::string merged = runs + "/merged";
  ASSERT_TRUE(std::filesystem::exists(merged + "/results.jsonl")) << submitted;
  EXPECT_FALSE(std::filesystem::exists(runs + "/shard-3"));
  std::size_t cells = 0, not_run = 0;
  for (const Result& r : read_results(merged + "/results.jsonl")) {
    ++cells;
    not_run += r.status == CellStatus::kNotRun;
  }
  ASSERT_GT(not_run, 0u);
  ASSERT_LT(not_run, cells);
  // The merge job said which part is missing and how to measure its cells.
  std::string merge_log;
  for (const auto& file : std::filesystem::directory_iterator(dir.path()))
    if (file.path().filename().string().rfind("crossover-merge", 0) == 0)
      merge_log += slurp(file.path().string());
  EXPECT_NE(merge_log.find("part 4 of 4 is not among the folders; " + std::to_string(not_run) +
                           " cell(s) of the grid are in none of the folders"),
            std::string::npos)
      << merge_log;
  // The merged run holds every shard's data set fingerprints, so its resume runs only those cells.
  const Outcome resumed = crossover(dir, "run " + grid + " --resume " + merged,
                                    std::string(kTestWorkloadsVariable) + "=1");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(std::to_string(cells - not_run) + " cell(s) already ok, " +
                             std::to_string(not_run) + " to run"),
            std::string::npos)
      << resumed.err;
  EXPECT_EQ(resumed.err.find("the environment changed"), std::string::npos) << resumed.err;
  for (const Result& r : read_results(merged + "/results.jsonl"))
    EXPECT_EQ(r.status, CellStatus::kOk) << cell_label(r.cell);
}

}  // namespace
}  // namespace crossover
