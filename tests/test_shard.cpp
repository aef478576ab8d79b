// Sharded sweeps: K/N parsed and read from Slurm or Kubernetes, the parts disjoint, complete and
// balanced by cost; then the built binary: three shards merged equal one unsharded run, and every
// bad merge is refused with nothing written.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "runner/distributed/shard.hpp"
#include "runner/grid/grid.hpp"
#include "runner/sweep/output_dir.hpp"
#include "tests/cli_support.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

using namespace testing;  // crossover::testing: the binary, scratch directories

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The ETA: ci.json's ResNet cell came after many small ones, and an ETA that counted cells said
// 0:00:06 at 0:37 of a 1:40 run. Each cell pays the quickest cell's time and its cost at the rate
// the cells that ran paid above it.
TEST(Shard, TheTimeLeftWeighsEachCellByItsEstimatedCost) {
  EXPECT_EQ(seconds_left({}, {1e9}), 0.0);
  const std::vector<std::pair<double, double>> ran = {{1e6, 1.0}, {2e6, 1.1}};
  // floor 1 s; 0.1 s above it for 3e6 of cost: a cell of 1e9 takes 1 + 1e9 * 0.1 / 3e6 s.
  EXPECT_NEAR(seconds_left(ran, {1e9}), 1.0 + 1e9 * 0.1 / 3e6, 1e-9);
  EXPECT_GT(seconds_left(ran, {1e9}), 10 * 1.05);  // counting cells would say 1.05 s
  EXPECT_NEAR(seconds_left(ran, {1e6, 0.0, 1e6}), 2 * (1.0 + 1e6 * 0.1 / 3e6),
              1e-12);  // 0: skipped
}

TEST(Shard, KOfNIsParsedAndEveryMistakeNamed) {
  const Shard s = parse_shard("2/4");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 4);
  EXPECT_NE(message_of([] { parse_shard("5/4"); }).find("K must be from 1 to N (4)"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_shard("0/4"); }).find("K must be from 1 to N"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_shard("2of4"); }).find("expected K/N"), std::string::npos);
  EXPECT_NE(message_of([] { parse_shard("-1/4"); }).find("K is negative"), std::string::npos);
  EXPECT_NE(message_of([] { parse_shard("1/x"); }).find("N is not a whole number"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_shard("1/"); }).find("N is empty"), std::string::npos);
  // More digits than an int holds: said, not wrapped around.
  EXPECT_NE(message_of([] { parse_shard("1/99999999999"); }).find("more digits than"),
            std::string::npos);
}

// The README's grid: cpu against cuda along dataset_size, for two workloads.
constexpr const char* kGpuSeed001 = R"({"name": "gpu-seed001",
  "defaults": {"epochs": 10, "warmup_epochs": 2, "min_repeats": 3, "max_repeats": 5,
               "time_budget_seconds": 6, "seed": 0, "isolate": false},
  "experiments": [
    {"workload": "iris_mlp",
     "grid": {"device": ["cpu", "cuda"], "dataset_size": ["full", 10000, 100000, 1000000]}},
    {"workload": "boston_mlp",
     "grid": {"device": ["cpu", "cuda"], "dataset_size": ["full", 10000, 100000, 1000000]}}]})";

TEST(Shard, CellsThatAreComparedStayInOnePart) {
  const Expansion all = expand_grid(parse_grid(kGpuSeed001, "gpu-seed001.json"));
  ASSERT_EQ(all.cells.size(), 16u);
  EXPECT_EQ(shard_units(all), 8u);  // each cpu/cuda pair is one unit
  for (int n : {2, 3, 8}) {
    std::map<std::string, int> part_of;  // a pair's unit -> its part
    std::size_t cells = 0;
    for (int k = 1; k <= n; ++k) {
      const Expansion part = shard_of(all, {k, n, "--shard"});
      EXPECT_FALSE(part.cells.empty()) << k << "/" << n;
      cells += part.cells.size();
      for (const Cell& c : part.cells) {
        const auto [it, fresh] = part_of.emplace(comparison_unit(c).dump(), k);
        EXPECT_EQ(it->second, k) << cell_label(c) << " is apart from its pair in " << n << " parts";
      }
    }
    EXPECT_EQ(cells, all.cells.size());
  }
  // Threads and precision pair too: a cell with threads 1 and its default-threads twin together.
  const Expansion knobs = expand_grid(parse_grid(R"({"name": "k", "experiments": [
    {"workload": "iris_mlp", "grid": {"dataset_size": [100, 200, 400],
      "threads": [1, 0], "precision": ["fp32", "bf16"]}}]})",
                                                 "k.json"));
  EXPECT_EQ(shard_units(knobs), 3u);
  for (int k = 1; k <= 3; ++k) EXPECT_EQ(shard_of(knobs, {k, 3, "--shard"}).cells.size(), 4u);
}

TEST(Shard, MorePartsThanUnitsAreRefusedBeforeAnyWork) {
  const Expansion all = expand_grid(parse_grid(kGpuSeed001, "gpu-seed001.json"));
  // Refused at once, naming the units: dealing 999,999,999 parts once took 8 GB.
  EXPECT_NE(message_of([&] {
              shard_of(all, {1, 999999999, "--shard"});
            }).find("the grid has 8 unit(s) to share out"),
            std::string::npos);
  EXPECT_NO_THROW(shard_of(all, {8, 8, "--shard"}));
  EXPECT_NE(message_of([&] {
              shard_of(all, {1, 9, "--shard"});
            }).find("at most 8 part(s)"),
            std::string::npos);
}

TEST(Shard, AutoReadsASlurmArrayOrAKubernetesIndexedJob) {
  std::map<std::string, std::string> env;
  const VariableReader read = [&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  EXPECT_NE(message_of([&] { shard_from_environment(read, 0); }).find("neither a Slurm job array"),
            std::string::npos);
  env = {
      {"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_MIN", "5"}, {"SLURM_ARRAY_TASK_MAX", "8"}};
  Shard s = shard_from_environment(read, 0);
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.source, "a Slurm job array");
  env = {{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "3"}};
  s = shard_from_environment(read, 0);
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 3);
  env = {
      {"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "3"}};
  EXPECT_NE(message_of([&] {
              shard_from_environment(read, 0);
            }).find("is not one of the array's tasks (0 to 3 in steps of 1)"),
            std::string::npos);
  env = {{"JOB_COMPLETION_INDEX", "2"}};
  EXPECT_NE(message_of([&] { shard_from_environment(read, 0); }).find("needs --shards N"),
            std::string::npos);
  // An array with a step: K is the task's position (tasks 1, 3, 5, 7, 9), N their count.
  env = {{"SLURM_ARRAY_TASK_ID", "5"},
         {"SLURM_ARRAY_TASK_MIN", "1"},
         {"SLURM_ARRAY_TASK_MAX", "9"},
         {"SLURM_ARRAY_TASK_STEP", "2"},
         {"SLURM_ARRAY_TASK_COUNT", "5"}};
  s = shard_from_environment(read, 0);
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 5);
  env["SLURM_ARRAY_TASK_ID"] = "9";
  EXPECT_EQ(shard_from_environment(read, 0).index, 5);
  env["SLURM_ARRAY_TASK_ID"] = "4";  // not one of the tasks
  EXPECT_NE(message_of([&] {
              shard_from_environment(read, 0);
            }).find("not one of the array's tasks (1 to 9 in steps of 2)"),
            std::string::npos);
  // An index list (--array=1,3,7-9): COUNT disagrees with MIN, MAX and STEP, both named.
  env = {{"SLURM_ARRAY_TASK_ID", "3"},
         {"SLURM_ARRAY_TASK_MIN", "1"},
         {"SLURM_ARRAY_TASK_MAX", "9"},
         {"SLURM_ARRAY_TASK_STEP", "1"},
         {"SLURM_ARRAY_TASK_COUNT", "5"}};
  const std::string list = message_of([&] { shard_from_environment(read, 0); });
  EXPECT_NE(list.find("SLURM_ARRAY_TASK_COUNT is 5"), std::string::npos) << list;
  EXPECT_NE(list.find("make 9 tasks"), std::string::npos) << list;
  // Each variable that is not a whole number in range is named with its value.
  for (const auto& [name, value, said] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"SLURM_ARRAY_TASK_ID", "abc", "SLURM_ARRAY_TASK_ID \"abc\" is not a whole number"},
           {"SLURM_ARRAY_TASK_ID", "-2", "SLURM_ARRAY_TASK_ID \"-2\" is negative"},
           {"SLURM_ARRAY_TASK_ID", "", "SLURM_ARRAY_TASK_ID \"\" is empty"},
           {"SLURM_ARRAY_TASK_MAX", "99999999999999999999",
            "SLURM_ARRAY_TASK_MAX \"99999999999999999999\" has more digits"},
           {"SLURM_ARRAY_TASK_STEP", "0", "SLURM_ARRAY_TASK_STEP is 0"}}) {
    env = {
        {"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "3"}};
    env[name] = value;
    EXPECT_NE(message_of([&] { shard_from_environment(read, 0); }).find(said), std::string::npos)
        << name << "=" << value << ": " << message_of([&] { shard_from_environment(read, 0); });
  }
  env = {{"JOB_COMPLETION_INDEX", "x1"}};
  EXPECT_NE(message_of([&] {
              shard_from_environment(read, 4);
            }).find("JOB_COMPLETION_INDEX \"x1\" is not a whole number"),
            std::string::npos);
  env = {{"JOB_COMPLETION_INDEX", "2"}};
  s = shard_from_environment(read, 5);
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.source, "a Kubernetes Indexed Job");
}

TEST(Shard, PartsAreDisjointCompleteAndBalancedByCost) {
  const Expansion all = expand_grid(parse_grid(R"({"name": "s", "experiments": [
    {"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"],
      "dataset_size": [100, 200, 400, 800, 1000000], "threads": [1, 0]}},
    {"workload": "iris_mlp",
     "grid": {"dataset_size": {"search": {"from": 112, "to": 100000}}}}]})",
                                               "g.json"));
  ASSERT_EQ(all.cells.size(), 20u);
  std::multiset<std::size_t> seen;
  std::size_t lines = 0;
  std::vector<double> costs;
  for (int k = 1; k <= 3; ++k) {
    const Expansion part = shard_of(all, {k, 3, "--shard"});
    EXPECT_EQ(shard_of(all, {k, 3, "--shard"}).cells.size(), part.cells.size());  // the same
    double cost = 0;
    for (const Cell& c : part.cells) {
      seen.insert(c.index);
      cost += estimated_cost(c);
    }
    lines += part.searches.size();
    costs.push_back(cost);
  }
  EXPECT_EQ(seen.size(), all.cells.size());  // every cell once
  EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), all.cells.size());
  EXPECT_EQ(lines, 1u);  // the search line goes whole to one part
  // The four 10^6-row cells are one unit (they differ in device and threads alone) and dominate:
  // their part gets nothing else, the search another part.
  for (int k = 1; k <= 3; ++k) {
    const Expansion part = shard_of(all, {k, 3, "--shard"});
    int large = 0;
    for (const Cell& c : part.cells) large += c.dataset_size == 1000000;
    EXPECT_TRUE(large == 0 || large == 4) << "part " << k;
    if (large == 4) {
      EXPECT_EQ(part.cells.size(), 4u) << "part " << k;
      EXPECT_TRUE(part.searches.empty()) << "part " << k;
    }
  }
}

TEST(Cli, ThreeShardsMergedAreTheCellsOfOneRunAndBadMergesAreRefused) {
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"repeats": 2, "epochs": 2, "warmup_epochs": 1},
    "experiments": [{"workload": "standin_mlp",
      "grid": {"dataset_size": [16, 32, 64], "threads": [1, 0]}}]})");
  const std::string env = std::string(kTestWorkloadsVariable) + "=1";
  for (int k = 1; k <= 3; ++k) {
    const Outcome o = crossover(dir,
                                "run " + grid + " --shard " + std::to_string(k) + "/3 --out " +
                                    dir.file("part" + std::to_string(k)),
                                env);
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.err.find("shard " + std::to_string(k) + " of 3"), std::string::npos) << o.err;
  }
  ASSERT_EQ(crossover(dir, "run " + grid + " --out " + dir.file("whole"), env).code, 0);
  const std::string parts = dir.file("part1") + " " + dir.file("part2") + " " + dir.file("part3");
  const Outcome merged = crossover(dir, "merge " + parts + " --out " + dir.file("merged"), env);
  ASSERT_EQ(merged.code, 0) << merged.err;
  const auto identities = [](const std::string& run) {
    std::vector<std::string> out;
    for (const Result& r : read_results(run + "/results.jsonl")) {
      EXPECT_EQ(r.status, CellStatus::kOk) << r.reason;
      out.push_back(std::to_string(r.cell.index) + " " + cell_identity_json(r.cell).dump());
    }
    return out;
  };
  EXPECT_EQ(identities(dir.file("merged")), identities(dir.file("whole")));
  const auto merged_env = nlohmann::json::parse(slurp(dir.file("merged") + "/env.json"));
  EXPECT_EQ(merged_env["shards"].size(), 3u);
  EXPECT_EQ(merged_env["shards"][1]["env"]["shard"]["index"], 2);
  // The same tables: the merged report's cells are the whole run's.
  const auto rows = [](const std::string& report) {
    std::set<std::string> labels;
    for (const Result& r : read_results(report + "/results.jsonl"))
      labels.insert(cell_label(r.cell));
    return labels;
  };
  EXPECT_EQ(rows(dir.file("merged")), rows(dir.file("whole")));
  EXPECT_NE(slurp(dir.file("merged") + "/report.md").find("## "), std::string::npos);

  // Two parts of three: the third's cells are `not run`, said.
  const Outcome partial = crossover(
      dir, "merge " + dir.file("part1") + " " + dir.file("part2") + " --out " + dir.file("two"),
      env);
  ASSERT_EQ(partial.code, 0) << partial.err;
  EXPECT_NE(partial.err.find("part 3 of 3 is not among the folders"), std::string::npos);
  std::size_t not_run = 0;
  for (const Result& r : read_results(dir.file("two") + "/results.jsonl"))
    not_run += r.status == CellStatus::kNotRun;
  EXPECT_EQ(not_run, read_results(dir.file("part3") + "/results.jsonl").size());

  // Refused, each with exit 2 and nothing written.
  const auto refused = [&](const std::string& args, const std::string& said) {
    const std::string out = dir.file("refused");
    const Outcome o = crossover(dir, "merge " + args + " --out " + out, env);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_NE(o.err.find(said), std::string::npos) << o.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << args;
  };
  refused(dir.file("part1") + " " + dir.file("part1"), "is given twice");
  refused(dir.file("part1") + " " + dir.file("nothing"), "does not exist");
  std::filesystem::create_directories(dir.file("empty"));
  refused(dir.file("part1") + " " + dir.file("empty"), "is not a run: it has no results.jsonl");
  refused(dir.file("part1") + " " + dir.file("whole"), "shards of different --shard counts");
  ASSERT_EQ(crossover(dir, "run " + grid + " --shard 1/3 --out " + dir.file("again"), env).code, 0);
  refused(dir.file("part1") + " " + dir.file("again"), "are both part 1 of 3");
  const std::string other = dir.write("other.json", R"({"name": "g",
    "defaults": {"repeats": 2, "epochs": 3, "warmup_epochs": 1},
    "experiments": [{"workload": "standin_mlp",
      "grid": {"dataset_size": [16, 32, 64], "threads": [1, 0]}}]})");
  ASSERT_EQ(crossover(dir, "run " + other + " --shard 2/3 --out " + dir.file("other"), env).code,
            0);
  refused(dir.file("part1") + " " + dir.file("other"), "differ at defaults.epochs");
  {
    const DirectoryLock running(dir.file("part2"));  // a shard still running
    refused(parts, "is still running");
  }
  EXPECT_EQ(crossover(dir, "merge " + parts + " --out " + dir.file("whole"), env).code, 2);
  // --shard mistakes.
  EXPECT_EQ(crossover(dir, "run " + grid + " --shard 4/3", env).code, 2);
  const Outcome outside = crossover(dir, "run " + grid + " --shard auto", env);
  EXPECT_EQ(outside.code, 2);
  EXPECT_NE(outside.err.find("neither a Slurm job array"), std::string::npos) << outside.err;
}

// A merged run resumes as one run: --resume runs only the cells no shard finished (the merged
// env.json holds every shard's data sets, so Iris's file reads as unchanged), not the CUDA cells
// skipped for want of a GPU, keeps results.jsonl in grid order, and runs none when all are done.
TEST(Cli, AMergedRunResumesOnlyTheCellsNoShardFinished) {
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"repeats": 2, "epochs": 2, "warmup_epochs": 1},
    "experiments": [{"workload": "iris_mlp",
      "grid": {"dataset_size": [16, 32, 64], "threads": [1, 0]}},
      {"workload": "iris_mlp", "settings": {"device": "cuda"}}]})");
  // Each part times the reference around its cells, which the resume must not judge against
  // its own start: measured, not reused.
  const std::string env = std::string(kTestWorkloadsVariable) + "=1 " + testing::kMeasureMachine;
  const std::string data = " --data-dir " + testing::data_dir();
  for (int k = 1; k <= 2; ++k) {
    const std::string part = dir.file("part" + std::to_string(k));
    ASSERT_EQ(
        crossover(dir, "run " + grid + " --shard " + std::to_string(k) + "/3 --out " + part + data,
                  env)
            .code,
        0);
  }
  // Part 1 ran on a machine twice as slow as part 2's, and steady: every reference it timed is
  // twice its start's (so a drift named for one of its cells can only come from judging it
  // against another start; once, in CI, its own noise of 34 % was named). Each part's cells are
  // judged against its own start, before the resume and after it.
  auto part1_env = nlohmann::json::parse(slurp(dir.file("part1/env.json")));
  nlohmann::json steady = part1_env["reference"]["before"];
  for (auto& [key, value] : steady.items()) value = value.get<double>() * 2.0;
  const std::function<void(nlohmann::json&)> slower = [&](nlohmann::json& j) {
    for (auto& [key, value] : j.items()) {
      if (value.is_object() && value.contains("matmul_seconds"))
        value = steady;
      else if (value.is_object())
        slower(value);
    }
  };
  part1_env["reference"]["before"] = steady;
  slower(part1_env["reference"]);
  dir.write("part1/env.json", part1_env.dump());
  const std::string two = dir.file("two");
  ASSERT_EQ(
      crossover(dir, "merge " + dir.file("part1") + " " + dir.file("part2") + " --out " + two, env)
          .code,
      0);
  const std::size_t cells = read_results(two + "/results.jsonl").size();
  std::size_t missing = 0, skipped = 0;
  for (const Result& r : read_results(two + "/results.jsonl")) {
    skipped += r.status == CellStatus::kSkipped;
    missing += r.status != CellStatus::kOk && r.status != CellStatus::kSkipped;
  }
  ASSERT_GT(missing, 0u);
  ASSERT_LT(missing, cells);
  const Outcome resumed =
      crossover(dir, "run " + grid + " --resume " + two + data, env + " CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const std::string kept = skipped == 0 ? ""
                                        : ", " + std::to_string(skipped) +
                                              " skipped as before (their device is not here)";
  EXPECT_NE(resumed.err.find(std::to_string(cells - missing - skipped) + " cell(s) already ok" +
                             kept + ", " + std::to_string(missing) + " to run"),
            std::string::npos)
      << resumed.err;
  std::size_t previous = 0, read = 0;
  for (const Result& r : read_results(two + "/results.jsonl")) {  // in grid order
    if (read++ > 0) {
      EXPECT_GT(r.cell.index, previous);
    }
    previous = r.cell.index;
  }
  EXPECT_EQ(read, cells);
  EXPECT_EQ(resumed.err.find("the environment changed"), std::string::npos) << resumed.err;
  // The run is still the merge of its parts, with its parts' machines, and no part's cell is
  // judged against the resuming process's start (the slow part read +100 % against it once).
  const auto after = nlohmann::json::parse(slurp(two + "/env.json"));
  EXPECT_EQ(after["shards"].size(), 2u) << after.dump();
  // (The resume's own cells may still have drifted on a busy machine: only they may be named.)
  std::set<std::size_t> part1_cells;
  for (const Result& r : read_results(dir.file("part1/results.jsonl")))
    part1_cells.insert(r.cell.index);
  ASSERT_FALSE(part1_cells.empty());
  const std::regex named("around cells? ([0-9, and]+) the reference");
  if (std::smatch m; std::regex_search(resumed.err, m, named)) {
    std::istringstream cells(std::regex_replace(m[1].str(), std::regex("[^0-9]+"), " "));
    for (std::size_t cell; cells >> cell;)
      EXPECT_EQ(part1_cells.count(cell), 0u) << "cell " << cell << " of part 1: " << resumed.err;
  }
  EXPECT_NE(slurp(two + "/report.md").find("Machines (merged shards)"), std::string::npos);
  for (const Result& r : read_results(two + "/results.jsonl"))
    EXPECT_TRUE(r.status == CellStatus::kOk || (skipped > 0 && r.status == CellStatus::kSkipped))
        << cell_label(r.cell);
  // Every cell done: a second resume runs none.
  const Outcome again =
      crossover(dir, "run " + grid + " --resume " + two + data, env + " CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(
      again.err.find(std::to_string(cells - skipped) + " cell(s) already ok" + kept + ", 0 to run"),
      std::string::npos)
      << again.err;
}

TEST(Cli, LabelledRunsOfTwoMachinesMakeOneReportPairedAcrossThem) {
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"repeats": 3, "epochs": 2, "warmup_epochs": 1},
    "experiments": [{"workload": "standin_mlp", "grid": {"dataset_size": [16, 64]}}]})");
  const std::string env = std::string(kTestWorkloadsVariable) + "=1";
  // Two "machines": one limited to one core, one not.
  ASSERT_EQ(crossover(dir, "run " + grid + " --label small --out " + dir.file("a"),
                      env + " OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1")
                .code,
            0);
  ASSERT_EQ(crossover(dir, "run " + grid + " --label big --out " + dir.file("b"), env).code, 0);
  for (const Result& r : read_results(dir.file("a") + "/results.jsonl"))
    EXPECT_EQ(r.cell.host, "small");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir.file("b") + "/env.json"))["label"], "big");
  const std::string runs = dir.file("a") + " " + dir.file("b");
  const Outcome no_out = crossover(dir, "report " + runs);
  EXPECT_EQ(no_out.code, 2);
  EXPECT_NE(no_out.err.find("give --out"), std::string::npos) << no_out.err;
  const Outcome joint = crossover(
      dir, "report " + runs + " --out " + dir.file("joint") + " --compare host=small:big");
  ASSERT_EQ(joint.code, 0) << joint.err;
  // The verdict is the host comparison's: its crossover statements are said there once.
  EXPECT_NE(joint.out.find("Verdict (host=small vs big)"), std::string::npos) << joint.out;
  EXPECT_EQ(joint.out.find("no pair of cells that ran differs only in host"), std::string::npos)
      << joint.out;
  const auto summary = nlohmann::json::parse(slurp(dir.file("joint") + "/summary.json"));
  EXPECT_EQ(summary["pairs"].size(), 2u);  // each size, small against big
  const std::string report = slurp(dir.file("joint") + "/report.md");
  EXPECT_NE(report.find("- small: "), std::string::npos);  // each machine's environment
  EXPECT_NE(report.find("- big: "), std::string::npos);
  // The device table: a column per machine and device, the first machine's CPU the baseline.
  EXPECT_TRUE(std::regex_search(joint.out, std::regex("cpu on small (s|ms|us)\\b"))) << joint.out;
  EXPECT_NE(joint.out.find("speedup"), std::string::npos) << joint.out;
  EXPECT_TRUE(std::regex_search(joint.out, std::regex(" cpu on big( |\\n)"))) << joint.out;
  // compare still pairs the two machines' cells, naming how the machines differ first.
  const Outcome compared = crossover(dir, "compare " + runs);
  EXPECT_NE(compared.out.find("environment differs"), std::string::npos) << compared.out;
  EXPECT_EQ(compared.out.find("no cell"), std::string::npos) << compared.out;
  // One label, two machines: refused.
  auto env_b = nlohmann::json::parse(slurp(dir.file("b") + "/env.json"));
  env_b["host"]["hostname"] = "elsewhere";
  std::filesystem::copy(dir.file("a"), dir.file("c"), std::filesystem::copy_options::recursive);
  std::ofstream(dir.file("c") + "/env.json") << env_b.dump();
  const Outcome clash = crossover(
      dir, "report " + dir.file("a") + " " + dir.file("c") + " --out " + dir.file("clash"));
  EXPECT_EQ(clash.code, 2);
  EXPECT_NE(clash.err.find("are both labelled \"small\" but ran on different machines"),
            std::string::npos)
      << clash.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("clash")));
}

}  // namespace
}  // namespace crossover
