// env.json's typed record (core/records/environment.hpp): read back as it was written, tolerant of
// older, hand-written and hostile files, and keeping what it does not know.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/records/environment.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

Json golden_env(const std::string& run) {
  std::ifstream in(std::string(CROSSOVER_SOURCE_DIR) + "/tests/golden/" + run + "/env.json");
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

TEST(Environment, ARecordOfThisVersionReadsBackAndWritesAsItWas) {
  // Written by `crossover run` on this machine: every field, in the writer's order.
  const Json written = golden_env("iris-search");
  const Environment e = environment_from_json(written);
  EXPECT_EQ(e.libtorch.package, "libtorch1.13");
  EXPECT_TRUE(e.cpu.logical_cores.has_value());
  EXPECT_TRUE(e.energy.has_value());
  EXPECT_FALSE(e.reference.empty());
  EXPECT_EQ(e.label, written["label"]);
  EXPECT_TRUE(e.others.empty()) << e.others.dump();
  EXPECT_EQ(environment_json(e).dump(2), written.dump(2));
}

TEST(Environment, AnOlderRecordReadsWithWhatItHas) {
  // Written by an older crossover on the H100 host: no library, package, allocator or energy.
  const Environment e = environment_from_json(golden_env("a-seed001"));
  EXPECT_EQ(e.libtorch.version, "2.11.0");
  EXPECT_EQ(e.libtorch.library, "");
  EXPECT_FALSE(e.energy.has_value());
  ASSERT_EQ(e.gpus.size(), 1u);
  EXPECT_EQ(e.gpus[0].name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(e.peak_gflops.size(), 2u);
  EXPECT_EQ(e.peak_gflops[1].first, "cuda:0");
  EXPECT_GT(e.peak_gflops[1].second, 1000.0);
  EXPECT_EQ(e.cpu.logical_cores, 16);
  EXPECT_FALSE(e.datasets.empty());
  // Written again, what it had is kept as it was.
  const Json again = environment_json(e);
  EXPECT_EQ(again["gpus"], golden_env("a-seed001")["gpus"]);
  EXPECT_EQ(again["datasets"], golden_env("a-seed001")["datasets"]);
}

TEST(Environment, AFieldOfTheWrongTypeReadsAsNotRecordedAndUnknownKeysAreKept) {
  const Json hostile = {
      {"cpu", {{"model", 5}, {"logical_cores", "two"}, {"load_average", {1.0, "x", 2.0}}}},
      {"host", "not an object"},
      {"threads", {{"intra_op", 2.5}, {"blas", 4}}},
      {"gpus", {3, {{"name", 7}}, {{"name", "A100"}}}},
      {"shard", "1/2"},
      {"peak_gflops", {{"cpu", "fast"}, {"cuda:0", 10.0}}},
      {"prices", {{"cpu", 1.5}, {"cuda", "dear"}}},
      {"shards", {"x", {{"folder", 4}, {"env", {{"label", "node1"}}}}}},
      {"profile", {{"name", "vm"}, {"cpu", "fast"}}},
      {"reference", {{"before", {{"matmul_seconds", "quick"}}}, {"cells", {{"x", 1}}}}},
      {"from_a_newer_crossover", {{"a", 1}}}};
  std::vector<std::string> mistyped;
  const Environment e = environment_from_json(hostile, "", &mistyped);
  // Each one named for a reader that refuses them (merge), in the record's order.
  ASSERT_GE(mistyped.size(), 6u);
  EXPECT_EQ(mistyped[0], "host is \"not an object\", expected an object");
  EXPECT_EQ(mistyped[1], "cpu.model is 5, expected text");
  const auto named = [&](const std::string& start) {
    return std::any_of(mistyped.begin(), mistyped.end(),
                       [&](const std::string& m) { return m.rfind(start, 0) == 0; });
  };
  EXPECT_TRUE(named("profile: not a machine profile: "));
  EXPECT_TRUE(named("reference.before.matmul_seconds is \"quick\", expected a number"));
  EXPECT_TRUE(named("reference.cells.x is 1, expected a cell's timings"));
  EXPECT_TRUE(named("shard is \"1/2\", expected an object"));
  EXPECT_FALSE(e.profile.has_value());
  // A name that would write to the terminal, a value that is not UTF-8 or is huge: each quoted
  // safely and short.
  std::vector<std::string> hostile_named;
  (void)environment_from_json({{"host", std::string("\xff\xfe") + std::string(500, 'x')},
                               {"reference", {{"cells", {{"\x1b[2J", 1}}}}}},
                              "", &hostile_named);
  ASSERT_EQ(hostile_named.size(), 2u);
  EXPECT_LT(hostile_named[0].size(), 100u) << hostile_named[0];
  EXPECT_EQ(hostile_named[0].rfind("host is \"", 0), 0u) << hostile_named[0];
  EXPECT_EQ(hostile_named[1].find('\x1b'), std::string::npos);
  ASSERT_TRUE(e.reference.before.has_value());
  EXPECT_EQ(e.reference.before->matmul_seconds, 0.0);
  EXPECT_TRUE(e.reference.cells.empty());
  EXPECT_EQ(e.cpu.model, "");
  EXPECT_FALSE(e.cpu.logical_cores.has_value());
  EXPECT_EQ(e.cpu.load_average, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(e.host.hostname, "");
  EXPECT_FALSE(e.threads.intra_op.has_value());
  EXPECT_EQ(e.threads.blas, 4);
  ASSERT_EQ(e.gpus.size(), 2u);  // 3 is no GPU; one whose name is not text is a GPU unnamed
  EXPECT_EQ(e.gpus[0].name, "");
  EXPECT_EQ(e.gpus[1].name, "A100");
  EXPECT_FALSE(e.shard.has_value());
  ASSERT_EQ(e.peak_gflops.size(), 1u);
  EXPECT_EQ(e.peak_gflops[0].first, "cuda:0");
  EXPECT_EQ(e.prices, (Prices{{"cpu", 1.5}}));
  ASSERT_EQ(e.shards.size(), 1u);
  EXPECT_EQ(e.shards[0].folder, "");
  EXPECT_EQ(e.shards[0].env.label, "node1");
  ASSERT_TRUE(e.others.contains("from_a_newer_crossover"));
  EXPECT_EQ(environment_json(e)["from_a_newer_crossover"], hostile["from_a_newer_crossover"]);
  // Not an object at all: an empty record, nothing thrown.
  for (const Json& document : {Json::array({1, 2}), Json("text"), Json()}) {
    const Environment empty = environment_from_json(document);
    EXPECT_EQ(empty.cpu.model, "");
    EXPECT_TRUE(empty.others.empty());
  }
}

TEST(Environment, AMergedRunKeepsEachShardsOwnRecord) {
  Environment merged;
  merged.host.hostname = "node0";
  merged.reference.before = ReferenceTimes{1e-3};
  for (int part : {1, 2}) {
    Environment shard;
    shard.label = "node" + std::to_string(part - 1);
    shard.shard = ShardRecord{part, 2, "--shard"};
    shard.datasets = {{"iris", "iris.csv 4551 bytes"}};
    merged.shards.push_back({"runs/part" + std::to_string(part), shard});
  }
  const Environment back = environment_from_json(environment_json(merged));
  EXPECT_EQ(environment_json(back), environment_json(merged));
  ASSERT_EQ(back.shards.size(), 2u);
  EXPECT_EQ(back.shards[1].folder, "runs/part2");
  ASSERT_TRUE(back.shards[1].env.shard.has_value());
  EXPECT_EQ(back.shards[1].env.shard->index, 2);
  EXPECT_EQ(back.shards[1].env.dataset_fingerprint("iris"), "iris.csv 4551 bytes");
  EXPECT_EQ(back.shards[1].env.dataset_fingerprint("mnist"), "");
}

}  // namespace
}  // namespace crossover
