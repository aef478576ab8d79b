// `crossover merge` against hostile and mistaken inputs, end to end: every folder, link, lock and
// env.json field that a shard's folder can hold instead of what `run --shard` wrote, and the
// reports of a merged run of several machines, which read as one run.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "runner/sweep/output_dir.hpp"
#include "tests/cli_support.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

using namespace testing;  // crossover::testing: the binary, scratch directories
namespace fs = std::filesystem;

using testing::kStandin;

// Three shards of a small grid (cpu and cuda along dataset_size), each labelled as its own node,
// copied into each test's DIR/part1..3. They are run once per build of the binary and kept for
// the suite's other tests, each of which runs in a process of its own under CTest: the folder is
// named after the binary's time stamp and appears whole (renamed into place) or not at all.
class MergeTest : public ::testing::Test {
 protected:
  static fs::path shards() {
    const auto stamp = fs::last_write_time(CROSSOVER_BINARY).time_since_epoch().count();
    const fs::path cache =
        fs::temp_directory_path() /
        ("crossover-test-merge-shards-" + std::to_string(getuid()) + "-" + std::to_string(stamp));
    if (fs::exists(cache / "part3" / "results.jsonl")) return cache;
    const fs::path making = cache.string() + ".making-" + std::to_string(getpid());
    remove_tree(making);
    fs::create_directories(making);
    std::ofstream(making / "g.json") << kGrid;
    for (int k = 1; k <= 3; ++k) {
      const std::string command = kStandin + " " + kNoGpu + " " + std::string(CROSSOVER_BINARY) +
                                  " run " + (making / "g.json").string() + " --shard " +
                                  std::to_string(k) + "/3 --label node" + std::to_string(k) +
                                  " --out " + (making / ("part" + std::to_string(k))).string() +
                                  " >/dev/null 2>&1";
      EXPECT_EQ(std::system(command.c_str()), 0) << command;
    }
    std::error_code error;
    fs::rename(making, cache, error);  // another test's process may have been first: fine
    remove_tree(making);
    return cache;
  }
  static constexpr const char* kGrid = R"({"name": "g",
      "defaults": {"repeats": 2, "epochs": 2, "warmup_epochs": 1},
      "experiments": [{"workload": "standin_mlp",
        "grid": {"device": ["cpu", "cuda"], "dataset_size": [16, 32, 64]}}]})";
  void SetUp() override {
    const fs::path cache = shards();
    grid_ = dir_.write("g.json", kGrid);
    for (int k = 1; k <= 3; ++k)
      fs::copy(cache / ("part" + std::to_string(k)), part(k), fs::copy_options::recursive);
  }
  std::string part(int k) const { return dir_.file("part" + std::to_string(k)); }
  std::string parts() const { return part(1) + " " + part(2) + " " + part(3); }
  Outcome merge(const std::string& args) const {
    return crossover(dir_, "merge " + args, kStandin);
  }
  // A merge that must be refused: exit 2, `said` in the log, --out not created.
  void refused(const std::string& inputs, const std::string& said, const std::string& out = "") {
    const std::string target = out.empty() ? dir_.file("refused") : out;
    const bool existed = fs::exists(fs::symlink_status(target));
    const Outcome o = merge(inputs + " --out " + target);
    EXPECT_EQ(o.code, 2) << inputs << "\n" << o.err;
    EXPECT_NE(o.err.find(said), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("terminate"), std::string::npos) << o.err;
    if (!existed) {
      EXPECT_FALSE(fs::exists(fs::symlink_status(target))) << inputs;
    }
  }

  ScratchDir dir_;
  std::string grid_;
};

TEST_F(MergeTest, AWholeMergeWarnsOfNothingAndAMissingPartCountsItsCells) {
  const Outcome whole = merge(parts() + " --out " + dir_.file("merged"));
  ASSERT_EQ(whole.code, 0) << whole.err;
  // The shards' labels are no part of a cell's identity: nothing is "in none of the folders".
  // (The one warning said is the reports' own: these shards reused the tests' machine record.)
  std::istringstream said(whole.err);
  for (std::string line; std::getline(said, line);)
    if (line.find("did not measure its machine") == std::string::npos) {
      EXPECT_EQ(line.find("warn"), std::string::npos) << line;
    }
  EXPECT_EQ(read_results(dir_.file("merged") + "/results.jsonl").size(), 6u);
  // Its last line names every file it wrote, as run's does.
  for (const std::string name : {"results.csv", "gbench.json", "report.html", "summary.json"}) {
    EXPECT_TRUE(fs::exists(dir_.file("merged") + "/" + name)) << name;
    EXPECT_NE(whole.out.find(name), std::string::npos) << whole.out;
  }
  // Each part holds one cpu/cuda unit; the one missing leaves exactly its 2 cells not run.
  std::size_t in_part3 = read_results(part(3) + "/results.jsonl").size();
  ASSERT_EQ(in_part3, 2u);
  const Outcome two = merge(part(1) + " " + part(2) + " --out " + dir_.file("two"));
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_NE(two.err.find("part 3 of 3 is not among the folders; 2 cell(s) of the grid are in "
                         "none of the folders"),
            std::string::npos)
      << two.err;
  std::size_t not_run = 0;
  for (const Result& r : read_results(dir_.file("two") + "/results.jsonl"))
    not_run += r.status == CellStatus::kNotRun;
  EXPECT_EQ(not_run, 2u);
}

TEST_F(MergeTest, AMergedRunOfSeveralNodesReadsAsOneRun) {
  ASSERT_EQ(merge(parts() + " --out " + dir_.file("merged")).code, 0);
  const std::string report = slurp(dir_.file("merged") + "/report.md");
  // One device table: plain cpu and cuda columns, a row per size (not a column per node).
  EXPECT_EQ(report.find("cpu on node"), std::string::npos) << report;
  EXPECT_TRUE(std::regex_search(report, std::regex(R"(\| cpu (s|ms|us) \| cuda (s|ms|us) \|)")))
      << report;
  // The machines are listed with their parts.
  EXPECT_NE(report.find("Machines (merged shards): node1 (part 1 of 3), node2 (part 2 of 3), "
                        "node3 (part 3 of 3)"),
            std::string::npos)
      << report;
  // report of the merged run alone reads the same way; several runs keep the machines apart.
  const Outcome again = crossover(dir_, "report " + dir_.file("merged"), kStandin);
  EXPECT_EQ(again.out.find("cpu on node"), std::string::npos) << again.out;
}

TEST_F(MergeTest, OutIsRefusedWhenItHoldsAnyFileMergeWritesOrIsALinkOrInsideAnInput) {
  const std::string out = dir_.file("out");
  fs::create_directories(out);
  std::ofstream(out + "/report.md") << "mine\n";
  refused(parts(), "already holds report.md", out);
  EXPECT_EQ(slurp(out + "/report.md"), "mine\n");
  EXPECT_FALSE(fs::exists(out + "/.crossover.lock"));  // untouched: not even a lock
  // A link as --out: to a folder, dangling, or a loop.
  fs::create_directories(dir_.file("real"));
  fs::create_directory_symlink(dir_.file("real"), dir_.file("to-folder"));
  fs::create_directory_symlink(dir_.file("nowhere"), dir_.file("dangling"));
  fs::create_directory_symlink(dir_.file("loop"), dir_.file("loop"));
  for (const char* link : {"to-folder", "dangling", "loop"}) {
    refused(parts(), "is a symbolic link", dir_.file(link));
    const Outcome run = crossover(dir_, "run " + grid_ + " --out " + dir_.file(link), kStandin);
    EXPECT_EQ(run.code, 2) << link << run.err;
    EXPECT_NE(run.err.find("is a symbolic link"), std::string::npos) << run.err;
  }
  EXPECT_TRUE(fs::is_empty(dir_.file("real")));
  refused(parts(), "lies inside " + part(1), part(1) + "/merged");
  refused(parts(), "is one of the folders merged", part(2));
}

TEST_F(MergeTest, OutIsLockedBeforeItIsCheckedAndALockConflictIsBadInput) {
  const std::string out = dir_.file("out");
  fs::create_directories(out);
  {
    const DirectoryLock other(out);  // another merge or run writing there
    const Outcome o = merge(parts() + " --out " + out);
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_NE(o.err.find("in use by another crossover run"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(out + "/results.jsonl"));
  }
  ASSERT_EQ(merge(parts() + " --out " + out).code, 0);
  const std::string first = slurp(out + "/results.jsonl");
  refused(parts(), "already holds", out);  // the second merge into it loses nothing
  EXPECT_EQ(slurp(out + "/results.jsonl"), first);
}

TEST_F(MergeTest, InputsAreReadWithoutFollowingALinkAndNeverWritten) {
  // A link at results.jsonl to a file outside, at env.json to /etc/passwd, a loop, the folder.
  fs::copy(part(3), dir_.file("linked"), fs::copy_options::recursive);
  const std::string linked = dir_.file("linked");
  fs::remove(linked + "/results.jsonl");
  fs::create_symlink(part(3) + "/results.jsonl", linked + "/results.jsonl");
  refused(part(1) + " " + part(2) + " " + linked, "is read only where it is");
  fs::remove(linked + "/results.jsonl");
  fs::copy_file(part(3) + "/results.jsonl", linked + "/results.jsonl");
  fs::remove(linked + "/env.json");
  fs::create_symlink("/etc/passwd", linked + "/env.json");
  refused(part(1) + " " + part(2) + " " + linked, "symbolic link");
  const Outcome passwd = merge(part(1) + " " + linked + " --out " + dir_.file("x"));
  EXPECT_EQ(passwd.err.find("root:"), std::string::npos) << passwd.err;
  fs::remove(linked + "/env.json");
  fs::create_symlink(linked + "/env.json", linked + "/env.json");  // a loop
  refused(part(1) + " " + part(2) + " " + linked, "symbolic link");
  fs::create_directory_symlink(part(3), dir_.file("folder-link"));
  refused(part(1) + " " + part(2) + " " + dir_.file("folder-link"), "a symbolic link; give");
  fs::create_directory_symlink(dir_.file("folder-loop"), dir_.file("folder-loop"));
  refused(part(1) + " " + dir_.file("folder-loop"), "folder-loop");
  // No input's lock is created or rewritten, through a link or otherwise.
  fs::remove(part(2) + "/.crossover.lock");
  const std::string lock1 = slurp(part(1) + "/.crossover.lock");
  fs::remove(part(3) + "/.crossover.lock");
  fs::create_symlink(dir_.file("victim"), part(3) + "/.crossover.lock");
  std::ofstream(dir_.file("victim")) << "keep\n";
  ASSERT_EQ(merge(parts() + " --out " + dir_.file("merged")).code, 0);
  EXPECT_FALSE(fs::exists(fs::symlink_status(part(2) + "/.crossover.lock")));
  EXPECT_EQ(slurp(part(1) + "/.crossover.lock"), lock1);
  EXPECT_EQ(slurp(dir_.file("victim")), "keep\n");
}

TEST_F(MergeTest, AReadOnlyOrFifoLockIsNotARunningShard) {
  const std::string lock = part(2) + "/.crossover.lock";
  chmod(lock.c_str(), 0444);
  fs::remove(part(3) + "/.crossover.lock");
  ASSERT_EQ(mkfifo((part(3) + "/.crossover.lock").c_str(), 0644), 0);
  const Outcome o = merge(parts() + " --out " + dir_.file("merged"));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err.find("still running"), std::string::npos) << o.err;
}

TEST_F(MergeTest, EveryEnvJsonFieldIsCheckedBeforeUse) {
  const auto with_env = [&](const std::string& name,
                            const std::function<void(nlohmann::json&)>& edit) {
    const std::string copy = dir_.file(name);
    fs::copy(part(3), copy, fs::copy_options::recursive);
    auto env = nlohmann::json::parse(slurp(copy + "/env.json"));
    edit(env);
    std::ofstream(copy + "/env.json") << env.dump();
    return part(1) + " " + part(2) + " " + copy;
  };
  refused(with_env("text-index", [](auto& e) { e["shard"]["index"] = "3"; }),
          "shard.index is \"3\", expected a whole number;");
  refused(with_env("huge-count",
                   [](auto& e) {
                     e["shard"]["count"] = 2000000000;
                     e["shard"]["index"] = 3;
                   }),
          "shard.count is 2000000000, expected a whole number from 1 to 1000000");
  refused(with_env("many-parts", [](auto& e) { e["shard"]["count"] = 20000; }),
          "shards of different --shard counts");
  refused(with_env("reference", [](auto& e) { e["reference"] = "fast"; }),
          "reference is \"fast\", expected an object");
  refused(with_env("reference-cell", [](auto& e) { e["reference"]["cells"]["x"] = {}; }),
          "reference.cells.x is null, expected a cell's timings (an object) under its index");
  refused(with_env("host", [](auto& e) { e["host"]["hostname"] = 3; }),
          "host.hostname is 3, expected text");
  refused(with_env("label", [](auto& e) { e["label"] = 7; }), "label is 7, expected text");
  // A count above the grid's units in every folder alike: no such run of this grid exists.
  std::vector<std::string> all;
  for (int k = 1; k <= 3; ++k) {
    const std::string copy = dir_.file("twenty-" + std::to_string(k));
    fs::copy(part(k), copy, fs::copy_options::recursive);
    auto env = nlohmann::json::parse(slurp(copy + "/env.json"));
    env["shard"]["count"] = 20;
    std::ofstream(copy + "/env.json") << env.dump();
    all.push_back(copy);
  }
  refused(all[0] + " " + all[1] + " " + all[2], "the grid has 3 unit(s) to share out");
}

// The merged env.json holds every shard's data sets (so that --resume of the merged run finds
// them as the shards read them), and a shard whose task was stopped while it ran warns of its
// cells not run as loudly as a part that never ran.
TEST_F(MergeTest, EveryShardsDataSetsAreKeptAndAStoppedTasksCellsAreWarnedOf) {
  const std::string third = dir_.file("third");
  fs::copy(part(3), third, fs::copy_options::recursive);
  auto env = nlohmann::json::parse(slurp(third + "/env.json"));
  env["datasets"]["fashion_mnist"] = "real 1 bytes crc32 00000001";
  std::ofstream(third + "/env.json") << env.dump();
  // Its task cancelled before its second cell: that cell reads `not run`, as run writes it.
  std::istringstream lines(slurp(third + "/results.jsonl"));
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  auto stopped = nlohmann::json::parse(second);
  stopped["status"] = "not run";
  stopped["reason"] = "the run was interrupted (Terminated) before this cell started";
  std::ofstream(third + "/results.jsonl") << first << "\n" << stopped.dump() << "\n";

  const Outcome o = merge(part(1) + " " + part(2) + " " + third + " --out " + dir_.file("m"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("warning: 1 cell(s) of " + third + " did not run: its task was stopped"),
            std::string::npos)
      << o.err;
  const auto merged = nlohmann::json::parse(slurp(dir_.file("m/env.json")));
  EXPECT_EQ(merged["datasets"]["fashion_mnist"], "real 1 bytes crc32 00000001")
      << merged["datasets"];
  EXPECT_TRUE(merged["datasets"].contains("standin")) << merged["datasets"];
}

TEST_F(MergeTest, CellsMergedTwiceOrNotOfTheGridAreRefusedWithTheCellNamed) {
  // part 3's results under another part's number: cell indices shared with part 1.
  const std::string copy = dir_.file("same-cells");
  fs::copy(part(1), copy, fs::copy_options::recursive);
  auto env = nlohmann::json::parse(slurp(copy + "/env.json"));
  env["shard"]["index"] = 3;
  std::ofstream(copy + "/env.json") << env.dump();
  const Result first = read_results(part(1) + "/results.jsonl").front();
  refused(part(1) + " " + part(2) + " " + copy, "cell " + std::to_string(first.cell.index) + " (");
  // A cell that is not in the grid (a dataset_size the grid does not have).
  const std::string alien = dir_.file("alien");
  fs::copy(part(3), alien, fs::copy_options::recursive);
  std::vector<Result> results = read_results(alien + "/results.jsonl");
  results.front().cell.dataset_size = 4096;
  std::ofstream out(alien + "/results.jsonl");
  for (const Result& r : results) out << result_to_json(r).dump() << "\n";
  out.close();
  refused(part(1) + " " + part(2) + " " + alien, "which is not a cell of the grid");
}

TEST_F(MergeTest, AShardIsResumedOnlyAsThePartItHolds) {
  const Outcome whole = crossover(dir_, "run " + grid_ + " --resume " + part(2), kStandin);
  EXPECT_EQ(whole.code, 2);
  EXPECT_NE(whole.err.find("the folder holds part 2 of 3 (--shard 2/3), and this run is the "
                           "whole grid; resume it with --shard 2/3"),
            std::string::npos)
      << whole.err;
  const Outcome other =
      crossover(dir_, "run " + grid_ + " --shard 1/3 --resume " + part(2), kStandin);
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("resume it with --shard 2/3"), std::string::npos) << other.err;
  EXPECT_EQ(crossover(dir_, "run " + grid_ + " --shard 2/3 --resume " + part(2), kStandin).code, 0);
  // --shards beside --shard K/N, and more parts than units, before any work.
  const Outcome both = crossover(dir_, "run " + grid_ + " --shard 1/3 --shards 3", kStandin);
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("drop --shards"), std::string::npos) << both.err;
  const Outcome many = crossover(dir_, "run " + grid_ + " --shard 1/999999999 --dry-run", kStandin);
  EXPECT_EQ(many.code, 2);
  EXPECT_NE(many.err.find("the grid has 3 unit(s)"), std::string::npos) << many.err;
}

}  // namespace
}  // namespace crossover
