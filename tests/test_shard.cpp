// Sharded sweeps: K/N parsed and read from Slurm or Kubernetes, the parts disjoint, complete and
// balanced by cost; then the built binary: three shards merged equal one unsharded run, and every
// bad merge is refused with nothing written.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include "runner/grid.hpp"
#include "runner/output_dir.hpp"
#include "runner/shard.hpp"
#include "tests/cli_support.hpp"
#include "workloads/catalog.hpp"

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

TEST(Shard, KOfNIsParsedAndEveryMistakeNamed) {
  const Shard s = parse_shard("2/4");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 4);
  EXPECT_NE(message_of([] { parse_shard("5/4"); }).find("K must be from 1 to N (4)"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_shard("0/4"); }).find("K must be from 1 to N"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_shard("2of4"); }).find("expected K/N"), std::string::npos);
  EXPECT_NE(message_of([] { parse_shard("-1/4"); }).find("expected K/N"), std::string::npos);
}

TEST(Shard, AutoReadsASlurmArrayOrAKubernetesIndexedJob) {
  std::map<std::string, std::string> env;
  const Environment read = [&](const char* name) -> const char* {
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
  EXPECT_NE(message_of([&] { shard_from_environment(read, 0); }).find("outside the array"),
            std::string::npos);
  env = {{"JOB_COMPLETION_INDEX", "2"}};
  EXPECT_NE(message_of([&] { shard_from_environment(read, 0); }).find("needs --shards N"),
            std::string::npos);
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
  // The four 10^6-row cells dominate: no part gets more than two of them.
  for (int k = 1; k <= 3; ++k) {
    const Expansion part = shard_of(all, {k, 3, "--shard"});
    int large = 0;
    for (const Cell& c : part.cells) large += c.dataset_size == 1000000;
    EXPECT_LE(large, 2) << "part " << k;
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
  refused(dir.file("part1") + " " + dir.file("nothing"), "is not a folder");
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
  EXPECT_NE(joint.out.find("Crossovers (host=small vs big)"), std::string::npos) << joint.out;
  EXPECT_EQ(joint.out.find("no pair of cells that ran differs only in host"), std::string::npos)
      << joint.out;
  const auto summary = nlohmann::json::parse(slurp(dir.file("joint") + "/summary.json"));
  EXPECT_EQ(summary["pairs"].size(), 2u);  // each size, small against big
  const std::string report = slurp(dir.file("joint") + "/report.md");
  EXPECT_NE(report.find("- small: "), std::string::npos);  // each machine's environment
  EXPECT_NE(report.find("- big: "), std::string::npos);
  // The device table: a column per machine and device, the first machine's CPU the baseline.
  EXPECT_NE(joint.out.find("cpu on small epoch"), std::string::npos) << joint.out;
  EXPECT_NE(joint.out.find("speedup cpu on big"), std::string::npos) << joint.out;
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

// A real Slurm: a 4-task job array of a small grid and the merge job after it
// (scripts/slurm/submit.sh), against one unsharded run. Needs a cluster: scripts/test.sh --full
// brings up a one-node one on this machine (scripts/slurm/local-cluster.sh) and sets SLURM_CONF.
TEST(Slurm, AFourTaskArrayAndItsMergeJobGiveTheCellsOfOneRun) {
  if (std::getenv("SLURM_CONF") == nullptr || std::system("sinfo -h >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no Slurm cluster (scripts/test.sh --full starts a one-node one: "
                    "scripts/slurm/local-cluster.sh up)";
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"repeats": 2, "epochs": 2, "warmup_epochs": 1},
    "experiments": [{"workload": "standin_mlp",
      "grid": {"dataset_size": [16, 32, 64, 128], "threads": [1, 0]}}]})");
  const std::string runs = dir.file("runs");
  const std::string env = std::string(kTestWorkloadsVariable) + "=1 CROSSOVER=" + CROSSOVER_BINARY;
  const std::string submit = env + " " + std::string(CROSSOVER_SOURCE_DIR) +
                             "/scripts/slurm/submit.sh " + grid + " 4 " + runs +
                             " --chdir=" + dir.file("") + " --output=" + dir.file("%x-%A_%a.out") +
                             " >" + dir.file("submitted") + " 2>&1";
  ASSERT_EQ(std::system(submit.c_str()), 0) << slurp(dir.file("submitted"));
  // Both jobs leave the queue within a few minutes on any machine.
  const auto start = std::chrono::steady_clock::now();
  while (std::system(("test -n \"$(squeue -h -n crossover-shard,crossover-merge)\"")) == 0) {
    ASSERT_LT(std::chrono::steady_clock::now() - start, std::chrono::minutes(5))
        << "the jobs are still queued";
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
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
      EXPECT_EQ(r.status, CellStatus::kOk) << r.reason;
      Cell c = r.cell;
      c.host.clear();  // each shard labelled by its node, the whole run by this machine
      out.push_back(std::to_string(c.index) + " " + cell_identity_json(c).dump());
    }
    return out;
  };
  EXPECT_EQ(identities(runs + "/merged"), identities(dir.file("whole")));
  EXPECT_TRUE(std::filesystem::exists(runs + "/merged/report.md"));
}

}  // namespace
}  // namespace crossover
