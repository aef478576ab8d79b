// The built `crossover` binary, end to end: ddp ranks, interrupts and --resume, never
// overwriting a run, one run per directory, loopback-only ranks (isolation: test_cli_isolation).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "core/records/results.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // crossover::testing: the binary, scratch directories, tiny grids

TEST(Cli, TheStandInWorkloadTrainsWithoutDataFilesAndExistsOnlyForTests) {
  ScratchDir dir;
  const std::string grid = dir.write("standin.json", R"({
    "name": "standin", "defaults": {"repeats": 2},
    "experiments": [{"workload": "standin_mlp", "grid": {"dataset_size": [32, 64]}}]})");
  // Without the variable it is not a workload: a user's grid cannot name it.
  const Outcome hidden = crossover(dir, "validate " + grid);
  EXPECT_EQ(hidden.code, 2);
  EXPECT_NE(hidden.err.find("unknown workload \"standin_mlp\""), std::string::npos) << hidden.err;
  const std::string out = dir.file("out");
  const std::string env = std::string(kTestWorkloadsVariable) + "=1";
  const Outcome o = crossover(
      dir, "run " + grid + " --out " + out + " --data-dir " + dir.file("no-data") + " --quiet",
      env);
  ASSERT_EQ(o.code, 0) << o.err;
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 2u);
  for (const Result& r : results) {
    ASSERT_EQ(r.status, CellStatus::kOk) << r.reason;
    EXPECT_EQ(r.data_source, DataSource::kSynthetic);
    EXPECT_EQ(r.epoch_samples, 6u);          // 3 epochs, 2 repeats
    EXPECT_LT(r.train_loss, std::log(3.0));  // below chance: it learns
  }
  EXPECT_EQ(results[1].train_rows, 64);
  // Its data set has no files: the fingerprint says synthetic, so --resume keeps its cells.
  const auto env_json = nlohmann::json::parse(slurp(out + "/env.json"));
  EXPECT_EQ(env_json["datasets"]["standin"], "synthetic");
}

TEST(Cli, DdpWithGlooTrainsLikeOneProcessOnTheGlobalBatch) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  if (!testing::have_real_data("fashion-mnist/train-images-idx3-ubyte.gz")) GTEST_SKIP();
  ScratchDir dir;
  const std::string grid = dir.write("ddp.json", R"({
    "name": "ddp", "defaults": {"epochs": 3, "warmup_epochs": 1, "repeats": 2, "seed": 3},
    "experiments": [
      {"workload": "iris_mlp", "settings": {"batch_size": 20},
       "grid": {"parallel": ["none", "ddp"], "nproc": [1, 2]},
       "exclude": [{"parallel": "none", "nproc": 2}]},
      {"workload": "mnist_mlp",
       "settings": {"dataset": "fashion_mnist", "dataset_size": 300, "batch_size": 64},
       "grid": {"parallel": ["none", "ddp"], "nproc": [1, 2]},
       "exclude": [{"parallel": "none", "nproc": 2}]}]})");
  const std::string out = dir.file("out");
  const Outcome o = crossover(dir, "run " + grid + " --out " + out + " --data-dir " +
                                       testing::data_dir() + " --compare nproc=1:2");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 6u);
  for (std::size_t w = 0; w < 2; ++w) {
    const Result& single = results[3 * w];
    const Result& two = results[3 * w + 2];
    ASSERT_EQ(single.cell.parallel, Parallel::kNone);
    ASSERT_EQ(two.cell.nproc, 2);
    ASSERT_EQ(two.status, CellStatus::kOk) << two.reason;
    // The parameters are identical on both ranks after training...
    ASSERT_EQ(two.parameter_digests.size(), 2u);
    EXPECT_FALSE(two.parameter_digests[0].empty());
    EXPECT_EQ(two.parameter_digests[0], two.parameter_digests[1]);
    EXPECT_EQ(two.rank_epoch_seconds.size(), 2u);
    EXPECT_GT(two.allreduce_seconds, 0.0);
    // ...and the loss after the same steps is the one-process loss on the same global batches
    // (iris: 113 rows in batches of 20, the last one 13 rows, split 6 + 7).
    EXPECT_NEAR(two.train_loss, single.train_loss, 1e-5 * std::abs(single.train_loss))
        << single.cell.workload;
    // The all-reduce adds the two slices' gradients in another order than one process does, so the
    // parameters differ in their last bits, and a test image on the decision boundary may flip:
    // at most one of the test split's images (seen here: 5994 vs 5993 of 10,000 on one CPU).
    EXPECT_NEAR(two.metric_value, single.metric_value, 1.0 / two.test_rows + 1e-12);
  }
}

TEST(Cli, AKilledRankFailsItsCellAndTheSweepGoesOn) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  // The data directory's name is unique to this test, so the kill below hits only its ranks.
  const std::string data = dir.file("data-for-kill-test");
  fs::create_directory_symlink(testing::data_dir(), data);
  const std::string grid = dir.write("kill.json", R"({
    "name": "kill", "defaults": {"warmup_epochs": 0, "repeats": 1},
    "experiments": [
      {"workload": "iris_mlp", "settings": {"batch_size": 8, "epochs": 100000, "parallel": "ddp",
                                            "nproc": 2, "time_budget_seconds": 60}},
      {"workload": "boston_mlp", "settings": {"epochs": 3}}]})");
  const std::string out = dir.file("out");
  const std::string script =
      "(" + std::string(CROSSOVER_BINARY) + " run " + grid + " --out " + out + " --data-dir " +
      data + " >" + dir.file("stdout") + " 2>" + dir.file("stderr") + "; echo $? >" +
      dir.file("code") +
      ") & "
      "for i in $(seq 300); do pgrep -f 'rank-1[.]json --data-dir .*data-for-kill-test' "
      ">/dev/null && break; sleep 0.1; done; sleep 1; "
      "pkill -KILL -f 'rank-1[.]json --data-dir .*data-for-kill-test'; wait";
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(std::system(("bash " + dir.write("kill.sh", script)).c_str()), 0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(slurp(dir.file("code")), "1\n") << slurp(dir.file("stderr"));
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, CellStatus::kFailed);
  EXPECT_NE(results[0].reason.find("rank 1 was killed by signal 9"), std::string::npos)
      << results[0].reason;
  EXPECT_EQ(results[1].status, CellStatus::kOk);
  EXPECT_LT(seconds, 60.0);  // far below the launcher's timeout (4 x 60 s + 120 s)
}

// Runs `grid` into `out` in the background and sends it `signal` once its first result is on
// disk (`settle` seconds later; `again`: once more 50 ms after, as timeout(1) sends a SIGTERM to
// the run and then to its process group): writes "<exit code> <milliseconds from the signal to
// the exit>" into dir's "code", and its outputs into "stdout" and "stderr".
void signal_after_first_result(const ScratchDir& dir, const std::string& grid,
                               const std::string& out, const std::string& signal,
                               const std::string& settle = "0", bool again = false) {
  const std::string script =
      std::string(CROSSOVER_BINARY) + " run " + grid + " --out " + out + " --data-dir " +
      testing::data_dir() + " >" + dir.file("stdout") + " 2>" + dir.file("stderr") + " & pid=$!\n" +
      "for i in $(seq 600); do [ -s " + out + "/results.jsonl ] && break; sleep 0.05; done\n" +
      "sleep " + settle + "; kill -" + signal + " $pid; start=$(date +%s%N)\n" +
      (again ? "sleep 0.05; kill -" + signal + " $pid 2>/dev/null\n" : "") + "wait $pid\n" +
      "echo $? $(( ($(date +%s%N) - start) / 1000000 )) >" + dir.file("code") + "\n";
  ASSERT_EQ(std::system(("bash " + dir.write("signal.sh", script)).c_str()), 0);
}

// A SIGTERM (a scheduler's stop, `kill`) while a cell runs in the run's own process: the run
// cannot wait for the cell, so it ends within a second, names the cell and the way on, and keeps
// what finished; --resume runs the rest (once, in the fourth hostile pass, it printed nothing and
// ran on until SIGKILL). The SIGTERM comes twice, 50 ms apart, as timeout(1) sends it: the second
// once killed the run before it said why, on the GPU host of 2026-11-28 and here.
TEST(Cli, SigtermDuringAnInProcessCellEndsTheRunAtOnceAndKeepsWhatFinished) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("long.json", R"({
    "name": "long", "defaults": {"epochs": 10000, "warmup_epochs": 0, "repeats": 1, "threads": 1},
    "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2]}}]})");
  const std::string out = dir.file("out");
  signal_after_first_result(dir, grid, out, "TERM", "0.3", /*again=*/true);
  std::istringstream said(slurp(dir.file("code")));
  int code = 0, milliseconds = 0;
  said >> code >> milliseconds;
  const std::string err = slurp(dir.file("stderr"));
  if (err.find("SIGTERM while cell") == std::string::npos &&
      err.find("stopped (SIGTERM): the cells after") != std::string::npos)
    GTEST_SKIP() << "the signal came between the cells: " << err;
  EXPECT_EQ(code, 143) << err;
  EXPECT_LT(milliseconds, 3000) << "a SIGTERM's sender waits seconds at most";
  EXPECT_NE(err.find("SIGTERM while cell iris_mlp"), std::string::npos) << err;
  EXPECT_NE(err.find("continue with run --resume"), std::string::npos) << err;
  const auto kept = read_results(out + "/results.jsonl");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].status, CellStatus::kOk);
  const Outcome resumed =
      crossover(dir, "run " + grid + " --resume " + out + " --data-dir " + testing::data_dir());
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("1 cell(s) already ok, 1 to run"), std::string::npos) << resumed.err;
  EXPECT_EQ(read_results(out + "/results.jsonl").size(), 2u);
}

// A SIGTERM while an isolated cell runs in a child process of its own group: the run passes it on,
// the child stops at once (before, the run waited for the whole cell, or left it to the kernel's
// group signal), the cell is failed with that reason, the rest not run, and the exit is 143.
TEST(Cli, SigtermDuringAnIsolatedCellStopsItsProcessAtOnce) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("long.json", R"({
    "name": "long", "defaults": {"epochs": 8000, "warmup_epochs": 0, "repeats": 1, "threads": 1,
                                 "isolate": true},
    "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2, 3]}}]})");
  const std::string out = dir.file("out");
  signal_after_first_result(dir, grid, out, "TERM", "0.3");
  std::istringstream said(slurp(dir.file("code")));
  int code = 0, milliseconds = 0;
  said >> code >> milliseconds;
  const std::string err = slurp(dir.file("stderr"));
  EXPECT_EQ(code, 143) << err;
  EXPECT_LT(milliseconds, 3000) << "the cell's process did not stop: " << err;
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 3u) << err;
  EXPECT_EQ(results[0].status, CellStatus::kOk);
  EXPECT_EQ(results[1].status, CellStatus::kFailed);
  EXPECT_NE(results[1].reason.find("the run was stopped (SIGTERM) while this cell ran"),
            std::string::npos)
      << results[1].reason;
  EXPECT_EQ(results[2].status, CellStatus::kNotRun);
  EXPECT_NE(err.find("stopped (SIGTERM): the cells after this one are not run"), std::string::npos)
      << err;
  EXPECT_NE(err.find("--resume " + out + " runs the rest"), std::string::npos) << err;
}

TEST(Cli, SigintKeepsWhatFinishedExits130AndResumeRunsOnlyTheRest) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("long.json", R"({
    "name": "long", "defaults": {"epochs": 300, "warmup_epochs": 0, "repeats": 2},
    "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2, 3, 4, 5, 6]}}]})");
  const std::string out = dir.file("out");
  // Interrupt once the first result is on disk; the cell running then finishes.
  signal_after_first_result(dir, grid, out, "INT");
  EXPECT_EQ(slurp(dir.file("code")).substr(0, 4), "130 ") << slurp(dir.file("stderr"));
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 6u);  // every cell is accounted for
  std::size_t ok = 0;
  for (const auto& r : results) ok += r.status == CellStatus::kOk ? 1 : 0;
  EXPECT_GE(ok, 1u);
  EXPECT_LT(ok, 6u);
  for (std::size_t i = ok; i < results.size(); ++i) {
    EXPECT_EQ(results[i].status, CellStatus::kNotRun) << i;
    EXPECT_NE(results[i].reason.find("interrupted (Interrupt)"), std::string::npos);
  }
  EXPECT_TRUE(fs::exists(out + "/report.md"));
  EXPECT_NE(slurp(out + "/report.md").find("not run"), std::string::npos);
  EXPECT_NE(slurp(dir.file("stderr")).find("interrupted: the cells after this one are not run"),
            std::string::npos);

  // --resume refuses to mix environments: a changed BLAS is an error, and nothing is touched.
  const std::string env = slurp(out + "/env.json");
  const std::string before = slurp(out + "/results.jsonl");
  auto changed = nlohmann::json::parse(env);
  changed["blas"]["kind"] = "reference";
  dir.write("out/env.json", changed.dump());
  Outcome o =
      crossover(dir, "run " + grid + " --resume " + out + " --data-dir " + testing::data_dir());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("the environment changed: BLAS: reference then"), std::string::npos)
      << o.err;
  EXPECT_EQ(slurp(out + "/results.jsonl"), before);

  // With the environment it ran in, --resume runs only the missing cells.
  dir.write("out/env.json", env);
  o = crossover(dir, "run " + grid + " --resume " + out + " --data-dir " + testing::data_dir());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("resuming " + out + ": " + std::to_string(ok) + " cell(s) already ok, " +
                       std::to_string(6 - ok) + " to run"),
            std::string::npos)
      << o.err;
  const auto resumed = read_results(out + "/results.jsonl");
  ASSERT_EQ(resumed.size(), 6u);
  std::set<std::size_t> cells;
  for (const auto& r : resumed) {
    EXPECT_EQ(r.status, CellStatus::kOk);
    cells.insert(r.cell.index);
  }
  EXPECT_EQ(cells.size(), 6u);            // the set of an uninterrupted run: every cell once
  for (std::size_t i = 0; i < ok; ++i) {  // the kept cells were not run again
    EXPECT_EQ(resumed[i].epoch_seconds_samples, results[i].epoch_seconds_samples) << i;
  }
}

TEST(Cli, ResumeRunsAgainTheCellsOfADataSetThatChanged) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  fs::create_directories(dir.file("data"));
  fs::copy_file(testing::data_dir() + "/iris.csv", dir.file("data/iris.csv"));
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"epochs": 2, "warmup_epochs": 0, "repeats": 1},
    "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2]}},
                    {"workload": "boston_mlp"}]})");
  const std::string run = "run " + grid + " --data-dir " + dir.file("data");
  ASSERT_EQ(crossover(dir, run + " --out " + dir.file("out")).code, 0);
  const auto env = nlohmann::json::parse(slurp(dir.file("out/env.json")));
  EXPECT_EQ(env["datasets"]["iris"].get<std::string>().rfind("real ", 0), 0u) << env["datasets"];
  EXPECT_EQ(env["datasets"]["boston"], "synthetic");  // not in this data directory

  // Unchanged data: nothing runs again.
  Outcome o = crossover(dir, run + " --resume " + dir.file("out"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("3 cell(s) already ok, 0 to run"), std::string::npos) << o.err;

  // The same file with one more (blank) line is another data set for the record: iris's cells
  // run again, boston's are kept.
  std::ofstream(dir.file("data/iris.csv"), std::ios::app) << "\n";
  o = crossover(dir, run + " --resume " + dir.file("out"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("data set iris changed (real "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("1 cell(s) already ok, 2 to run"), std::string::npos) << o.err;
  EXPECT_EQ(read_results(dir.file("out/results.jsonl")).size(), 3u);
}

TEST(Cli, ResumeMatchesOnIdentityKeysAndNamesThePolicyKeysThatChanged) {
  ScratchDir dir;
  const auto grid = [&](const std::string& settings) {
    return dir.write("g.json", R"({"name": "g", "experiments": [{"workload": "iris_mlp",
        "settings": {"epochs": 2, "warmup_epochs": 0, )" +
                                   settings + "}}]}");
  };
  const std::string out = dir.file("out");
  ASSERT_EQ(crossover(dir, "run " + grid("\"repeats\": 1") + " --out " + out).code, 0);
  // More repeats is a policy change: the cell is kept as measured, and said so.
  Outcome o = crossover(dir, "run " + grid("\"repeats\": 2") + " --resume " + out);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("1 cell(s) already ok, 0 to run"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("min_repeats 1 -> 2; max_repeats 1 -> 2"), std::string::npos) << o.err;
  const auto kept = read_results(out + "/results.jsonl");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].cell.max_repeats, 1);  // the settings it was measured with
  // Another seed changes what is measured: a grid without the cell measured would drop it, so
  // the resume is refused, naming it, and nothing changes.
  const std::string before = slurp(out + "/results.jsonl");
  o = crossover(dir, "run " + grid("\"repeats\": 1, \"seed\": 5") + " --resume " + out);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("does not have 1 of the 1 cell(s) in " + out +
                       "/results.jsonl, and resuming would drop them: cell 0 (iris_mlp"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(slurp(out + "/results.jsonl"), before);
}

TEST(Cli, ListShowsWorkloadsDevicesAndDataSets) {
  ScratchDir dir;
  const Outcome o = crossover(dir, "list --data-dir " + dir.path());
  ASSERT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("iris_mlp"), std::string::npos);
  EXPECT_NE(o.out.find("MLP 13-16-32-16-1"), std::string::npos);
  EXPECT_NE(o.out.find("cpu"), std::string::npos);
  // Every data set from its declaration: shape, rows, source, and what to do when it is missing.
  EXPECT_TRUE(std::regex_search(
      o.out,
      std::regex(R"(\niris +4 features, 3 classes +112 +38 +scikit-learn's copy, in Debian's )"
                 R"(python3-sklearn +missing: synthetic data will be used \(run )"
                 R"(scripts/fetch-data.sh\))")))
      << o.out;
  EXPECT_TRUE(std::regex_search(
      o.out, std::regex(R"(\ncifar10 +3x32x32 images, 10 classes +50,000 +10,000 .* missing: .*)"
                        R"(\(run scripts/fetch-data.sh --download\))")))
      << o.out;
  EXPECT_EQ(o.out.find("standin"), std::string::npos) << "a test-only data set, not listed";
  // The shipped profiles, by the name --predict cuda=NAME takes (found beside the binary's
  // checkout, wherever the command runs), each with its file.
  EXPECT_NE(o.out.find("NVIDIA H100 80GB HBM3"), std::string::npos) << o.out;
  EXPECT_TRUE(std::regex_search(
      o.out, std::regex("\nh100 +H100 80GB .*" + std::string(CROSSOVER_SOURCE_DIR) +
                        "/profiles/h100-80gb.json")))
      << o.out;
}

TEST(Cli, ARunNeverReplacesAnEarlierRunsResultsUnlessToldAndThenKeepsThem) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"epochs": 2, "warmup_epochs": 0, "repeats": 1},
    "experiments": [{"workload": "iris_mlp"}]})");
  const std::string out = dir.file("out");
  const std::string run = "run " + grid + " --out " + out + " --data-dir " + testing::data_dir();
  ASSERT_EQ(crossover(dir, run).code, 0);
  const std::string first = slurp(out + "/results.jsonl");
  ASSERT_FALSE(first.empty());
  dir.write("out/notes.txt", "mine");

  Outcome o = crossover(dir, run);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find(out +
                       " already holds the results of a run; nothing was overwritten. "
                       "Continue it with --resume " +
                       out),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("add --overwrite to move its files into " + out + "/previous-<time>/"),
            std::string::npos);
  EXPECT_EQ(slurp(out + "/results.jsonl"), first);

  o = crossover(dir, run + " --overwrite");
  ASSERT_EQ(o.code, 0) << o.err;
  std::string previous;
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.path().filename().string().rfind("previous-", 0) == 0) previous = entry.path();
  }
  ASSERT_FALSE(previous.empty());
  EXPECT_EQ(slurp(previous + "/results.jsonl"), first);  // the earlier run, whole
  for (const char* name : {"env.json", "grid.json", "report.md", "summary.json"})
    EXPECT_TRUE(fs::exists(previous + "/" + name)) << name;
  EXPECT_EQ(read_results(out + "/results.jsonl").size(), 1u);  // the new run
  EXPECT_EQ(slurp(out + "/notes.txt"), "mine");                // other files stay where they are
  EXPECT_EQ(crossover(dir, run + " --overwrite --resume " + out).code, 2);  // one or the other
}

TEST(Cli, OneRunAtATimeWritesIntoADirectoryAndADeadRunsLockDoesNotBlock) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string slow = dir.write("slow.json", R"({"name": "slow",
    "defaults": {"epochs": 100000, "warmup_epochs": 0, "repeats": 1, "time_budget_seconds": 60},
    "experiments": [{"workload": "iris_mlp", "settings": {"batch_size": 8}}]})");
  const std::string quick = dir.write("quick.json", R"({"name": "quick",
    "defaults": {"epochs": 2, "warmup_epochs": 0, "repeats": 1},
    "experiments": [{"workload": "iris_mlp"}]})");
  const std::string out = dir.file("out");
  const std::string lock = out + "/.crossover.lock";
  // The first run holds the directory; once its lock names it, a second run is refused.
  const std::string script = std::string(CROSSOVER_BINARY) + " run " + slow + " --out " + out +
                             " --data-dir " + testing::data_dir() + " >/dev/null 2>&1 & " +
                             "for i in $(seq 200); do [ -s " + lock +
                             " ] && break; sleep 0.05; done; echo $!";
  const std::string pid_file = dir.file("pid");
  ASSERT_EQ(std::system((script + " >" + pid_file).c_str()), 0);
  const std::string pid = slurp(pid_file).substr(0, slurp(pid_file).find('\n'));
  ASSERT_FALSE(pid.empty());
  const Outcome second =
      crossover(dir, "run " + quick + " --out " + out + " --data-dir " + testing::data_dir());
  EXPECT_EQ(second.code, 2);
  EXPECT_NE(second.err.find(out + " is in use by another crossover run (process " + pid + ")"),
            std::string::npos)
      << second.err;
  // The holder dies without a word (as a crash or the OOM killer ends it): the lock goes with it.
  ASSERT_EQ(std::system(("kill -KILL " + pid + "; sleep 0.2").c_str()), 0);
  const Outcome after = crossover(
      dir, "run " + quick + " --out " + out + " --overwrite --data-dir " + testing::data_dir());
  EXPECT_EQ(after.code, 0) << after.err;
  EXPECT_EQ(read_results(out + "/results.jsonl").size(), 1u);
}

// True for a loopback address as inet_ntop writes it: 127.x.x.x, ::1, ::ffff:127.x.x.x.
bool loopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address == "::1" || address.rfind("::ffff:127.", 0) == 0;
}

TEST(Cli, LocalDdpRanksListenOnLoopbackOnly) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("ddp.json", R"({"name": "ddp",
    "defaults": {"warmup_epochs": 0, "repeats": 1},
    "experiments": [{"workload": "iris_mlp", "settings": {"batch_size": 8, "epochs": 20,
                     "parallel": "ddp", "nproc": 2}}]})");
  const std::string log = dir.file("listening");
  // The shim logs every listen() of the run and of the ranks it starts (they inherit
  // LD_PRELOAD); under ASan the runtime must be told it is not loaded first.
  const Outcome o = crossover(
      dir, "run " + grid + " --out " + dir.file("out") + " --data-dir " + testing::data_dir(),
      std::string("LD_PRELOAD=") + CROSSOVER_LISTEN_LOG_LIB + " CROSSOVER_LISTEN_LOG=" + log +
          " ASAN_OPTIONS=\"$ASAN_OPTIONS:verify_asan_link_order=0\"");
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_EQ(read_results(dir.file("out/results.jsonl")).at(0).status, CellStatus::kOk);
  std::istringstream lines(slurp(log));
  std::size_t seen = 0;
  for (std::string address, port; lines >> address >> port; ++seen)
    EXPECT_TRUE(loopback(address)) << "a rank listened on " << address << " port " << port;
  // Gloo's connections between the two ranks listen while they meet: the shim saw the run.
  EXPECT_GT(seen, 0u) << "no socket listened: the shim saw nothing";
}

// --set from the command line: the run's grid.json is the grid as run (so --resume reads it), and
// a grid key given as an option is answered with the --set that does it.
TEST(Cli, SetChangesTheGridAsRunAndAKeyGivenAsAnOptionIsPointedToIt) {
  ScratchDir dir;
  const std::string grid = dir.write("tiny.json", kTinyGrid);
  const Outcome ran =
      crossover(dir, "run " + grid + " --set epochs=2 --set device=cpu --out " + dir.file("out"));
  ASSERT_EQ(ran.code, 0) << ran.err;
  const auto as_run = nlohmann::json::parse(slurp(dir.file("out/grid.json")));
  for (const auto& experiment : as_run["experiments"]) {
    EXPECT_EQ(experiment["settings"]["epochs"], 2);
    EXPECT_EQ(experiment["settings"]["device"], "cpu");
  }
  for (const auto& r : read_results(dir.file("out/results.jsonl"))) {
    EXPECT_EQ(r.cell.epochs, 2);
    EXPECT_EQ(r.cell.device, Device::cpu());
  }
  const Outcome slip = crossover(dir, "run " + grid + " --epochs 3 --dry-run");
  EXPECT_EQ(slip.code, 2);
  EXPECT_NE(slip.err.find("did you mean --set epochs=3?"), std::string::npos) << slip.err;
  // The hint is the whole answer: CLI11's "not expected: 3 --epochs" would only repeat it.
  EXPECT_EQ(slip.err.find("not expected"), std::string::npos) << slip.err;
  EXPECT_NE(slip.err.find("--help"), std::string::npos) << slip.err;
  // A stray argument the hint does not explain is still named.
  const Outcome stray = crossover(dir, "run " + grid + " --epochs 3 extra --dry-run");
  EXPECT_EQ(stray.code, 2);
  EXPECT_NE(stray.err.find("not expected"), std::string::npos) << stray.err;
  EXPECT_NE(stray.err.find("extra"), std::string::npos) << stray.err;
}

}  // namespace
}  // namespace crossover
