// Grid parsing, expansion and every validation error, with the JSON path each one names.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/cells/keys.hpp"
#include "runner/grid/grid.hpp"
#include "runner/grid/grid_file.hpp"
#include "runner/grid/grid_overrides.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

std::vector<GridIssue> issues_of(const std::string& text) {
  try {
    parse_grid(text, "g.json");
  } catch (const GridError& e) {
    return e.issues();
  }
  return {};
}

// The one issue at `path`, or a failure naming what was found instead.
std::string message_at(const std::vector<GridIssue>& issues, const std::string& path) {
  for (const auto& issue : issues) {
    if (issue.path == path) return issue.message;
  }
  std::string found;
  for (const auto& issue : issues) found += "\n  " + issue.path + ": " + issue.message;
  ADD_FAILURE() << "no issue at " << path << "; found:" << found;
  return "";
}

const char* kValid = R"({
  "name": "demo",
  "defaults": {"epochs": 5, "repeats": 2, "seed": 7},
  "experiments": [
    {"workload": "iris_mlp", "settings": {"epochs": 50},
     "grid": {"device": ["cpu", "cuda"], "dataset_size": [112, 1000], "threads": [1, 0]}},
    {"workload": "boston_mlp", "grid": {"batch_size": ["full", 64]}}
  ]
})";

TEST(Grid, ExpandsTheCartesianProductWithTheLastAxisFastest) {
  const Expansion e = expand_grid(parse_grid(kValid, "g.json"));
  ASSERT_EQ(e.cells.size(), 2u * 2u * 2u + 2u);
  EXPECT_EQ(e.cells[0].device, Device::cpu());
  EXPECT_EQ(e.cells[0].dataset_size, 112);
  EXPECT_EQ(e.cells[0].threads, 1);
  EXPECT_EQ(e.cells[1].threads, 0);
  EXPECT_EQ(e.cells[2].dataset_size, 1000);
  EXPECT_EQ(e.cells[4].device, Device::cuda());
  for (std::size_t i = 0; i < e.cells.size(); ++i) EXPECT_EQ(e.cells[i].index, i);
}

TEST(Grid, SettingsOverrideDefaultsWhichOverrideTheWorkload) {
  const Expansion e = expand_grid(parse_grid(kValid, "g.json"));
  const Cell& iris = e.cells.front();
  EXPECT_EQ(iris.epochs, 50);      // experiment settings beat defaults
  EXPECT_EQ(iris.min_repeats, 2);  // defaults beat built-in values; repeats fixes both bounds
  EXPECT_EQ(iris.max_repeats, 2);
  EXPECT_EQ(iris.seed, 7);
  EXPECT_EQ(iris.dataset, "iris");  // the workload's default data set
  EXPECT_EQ(iris.optimizer, Optimizer::kAdam);
  EXPECT_DOUBLE_EQ(iris.lr, 0.01);
  EXPECT_EQ(iris.batch_size, kFull);
  const Cell& boston = e.cells.back();
  EXPECT_EQ(boston.workload, "boston_mlp");
  EXPECT_EQ(boston.epochs, 5);
  EXPECT_EQ(boston.batch_size, 64);
  EXPECT_EQ(e.cells[e.cells.size() - 2].batch_size, kFull);
}

TEST(Grid, ExcludeRulesRemoveMatchingCells) {
  const Expansion e = expand_grid(parse_grid(R"({"name": "x", "experiments": [
    {"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"], "pin_memory": [false, true],
                                      "threads": [1, 2]},
     "exclude": [{"device": "cpu", "pin_memory": true}, {"threads": [2], "device": "cuda"}]}]})",
                                             "g.json"));
  EXPECT_EQ(e.excluded, 2u + 2u);
  ASSERT_EQ(e.cells.size(), 4u);
  for (const Cell& c : e.cells) {
    EXPECT_FALSE(c.device == Device::cpu() && c.pin_memory);
    EXPECT_FALSE(c.device == Device::cuda() && c.threads == 2);
  }
}

TEST(Grid, GpusHasNoMeaningOnTheCpuSoItsCellsAreNotDuplicated) {
  const Expansion e = expand_grid(parse_grid(R"({"name": "x", "experiments": [
    {"workload": "iris_mlp", "settings": {"parallel": "dp"},
     "grid": {"device": ["cpu", "cuda"], "gpus": [1, 2]}}]})",
                                             "g.json"));
  EXPECT_EQ(e.duplicates, 1u);
  ASSERT_EQ(e.cells.size(), 3u);
  EXPECT_EQ(e.cells[0].gpus, 0);
  EXPECT_EQ(e.cells[1].gpus, 1);
  EXPECT_EQ(e.cells[2].gpus, 2);
}

TEST(Grid, AcceptsTheSharedExampleShapeForKnownWorkloads) {
  const Grid g = parse_grid(R"({
    "name": "example", "description": "shape",
    "defaults": {"epochs": 5, "warmup_epochs": 1, "repeats": 3, "seed": 0},
    "experiments": [{"workload": "iris_mlp", "settings": {"epochs": 1000},
      "grid": {"device": ["cpu", "cuda"], "batch_size": ["full"],
               "dataset_size": [112, 1000, 10000, 100000], "threads": [1, 0]}}]})",
                            "g.json");
  EXPECT_EQ(g.name, "example");
  EXPECT_EQ(expand_grid(g).cells.size(), 16u);
}

TEST(GridErrors, MalformedJsonNamesLineAndColumn) {
  const auto issues = issues_of("{\n  \"name\": \"x\",\n  \"experiments\": [,]\n}");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("malformed JSON at line 3, column 19"), std::string::npos)
      << issues[0].message;
}

// Found by fuzz_grid: nlohmann reports a number too large for a double as out_of_range, not as
// a parse error, and it escaped as an uncaught exception.
TEST(GridErrors, ANumberTooLargeForADoubleIsMalformedJson) {
  const auto issues =
      issues_of(R"({"name": "x", "defaults": {"epochs": 21e308}, "experiments": []})");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("malformed JSON: number overflow parsing '21e308'"),
            std::string::npos)
      << issues[0].message;
}

TEST(GridErrors, AnExperimentOfMoreCellsThanTheLimitIsAnErrorBeforeExpansion) {
  std::string list = "[1";
  for (int i = 2; i <= 100; ++i) list += "," + std::to_string(i);
  list += "]";
  const Grid g = parse_grid(R"({"name": "x", "experiments": [{"workload": "iris_mlp", "grid": {
      "batch_size": )" + list + R"(, "seed": )" +
                                list + R"(, "epochs": )" + list + "}}]}",
                            "g.json");
  try {
    expand_grid(g);
    FAIL() << "a 1,000,000-cell experiment expanded";
  } catch (const GridError& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].path, "experiments[0].grid");
    EXPECT_NE(e.issues()[0].message.find("more than 100000 cells"), std::string::npos);
  }
}

// Found by fuzz_grid under UBSan: the integer check cast 7.8e70 to long long.
TEST(GridErrors, AHugeNumberWhereAnIntegerBelongsIsOutOfRange) {
  const auto issues = issues_of(R"({"name": "x", "defaults": {"epochs": 7.77778e70},
    "experiments": [{"workload": "iris_mlp"}]})");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("out of range"), std::string::npos) << issues[0].message;
}

TEST(GridErrors, UnknownKeysSuggestTheClosestKnownOne) {
  const auto issues = issues_of(R"({"name": "x", "experiments": [
    {"workload": "iris_mlp", "grid": {"batch_sizes": [1]}, "setings": {}}]})");
  EXPECT_NE(
      message_at(issues, "experiments[0].grid.batch_sizes").find("did you mean \"batch_size\""),
      std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[0].setings").find("did you mean \"settings\""),
            std::string::npos);
}

TEST(GridErrors, WrongTypeAndOutOfRangeValuesNameTheirPathValueAndExpectation) {
  const auto issues = issues_of(R"({"name": "x", "experiments": [
    {"workload": "iris_mlp", "grid": {"device": ["cpu"]}},
    {"workload": "iris_mlp", "settings": {"epochs": "ten", "lr": -1},
     "grid": {"batch_size": [16, 32, "12x"], "threads": [-1], "pin_memory": ["yes"]}}]})");
  const std::string batch = message_at(issues, "experiments[1].grid.batch_size[2]");
  EXPECT_NE(batch.find("\"12x\""), std::string::npos) << batch;
  EXPECT_NE(batch.find("a positive integer or \"full\""), std::string::npos) << batch;
  EXPECT_NE(message_at(issues, "experiments[1].settings.epochs").find("wrong type"),
            std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[1].settings.lr").find("out of range"),
            std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[1].grid.threads[0]").find("out of range"),
            std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[1].grid.pin_memory[0]").find("true or false"),
            std::string::npos);
  EXPECT_EQ(issues.size(), 5u);  // every problem at once, nothing from the valid experiment
}

TEST(GridErrors, UnknownWorkloadDeviceDatasetAndOptimizer) {
  const auto issues = issues_of(R"({"name": "x", "experiments": [
    {"workload": "iris_mpl", "grid": {"device": ["cpu"]}},
    {"workload": "boston_mlp", "settings": {"dataset": "iris", "optimizer": "adamw"},
     "grid": {"device": ["gpu", "cuda:1"]}}]})");
  EXPECT_NE(message_at(issues, "experiments[0].workload").find("did you mean \"iris_mlp\""),
            std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[1].grid.device[0]").find("unknown device \"gpu\""),
            std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[1].settings.dataset").find("boston_mlp accepts boston"),
            std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[1].settings.optimizer").find("did you mean \"adam\""),
            std::string::npos);
  EXPECT_EQ(issues.size(), 4u);  // cuda:1 is a valid device name
}

TEST(GridErrors, StructuralMistakes) {
  auto issues = issues_of(R"({"experiments": []})");
  EXPECT_NE(message_at(issues, "name").find("missing"), std::string::npos);
  EXPECT_NE(message_at(issues, "experiments").find("non-empty list"), std::string::npos);

  issues = issues_of(R"({"name": "a b", "experiments": [
    {"grid": {"device": "cpu"}},
    {"workload": "iris_mlp", "settings": {"device": "cpu", "threads": [1, 2]}, "grid": {"device": ["cpu", "cpu"]},
     "exclude": [{"devcie": "cpu"}]}]})");
  EXPECT_NE(message_at(issues, "name").find("directory"), std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[0].workload").find("missing"), std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[0].grid.device").find("non-empty list"),
            std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[1].settings.threads").find("belongs in \"grid\""),
            std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[1].grid.device").find("both"), std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[1].grid.device[1]").find("duplicate"),
            std::string::npos);
  EXPECT_NE(message_at(issues, "experiments[1].exclude[0].devcie").find("did you mean \"device\""),
            std::string::npos);
}

TEST(GridErrors, TheMessageNamesTheFileAndAMissingFileIsAnError) {
  try {
    load_grid("/nonexistent/grid.json");
    FAIL() << "a missing file must throw";
  } catch (const GridError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/grid.json");
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
  try {
    parse_grid(R"({"name": "x", "experiments": [{"workload": "nope"}]})", "mine.json");
    FAIL() << "an unknown workload must throw";
  } catch (const GridError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("mine.json: experiments[0].workload: unknown workload", 0), 0u)
        << e.what();
  }
}

TEST(Grid, EveryShippedConfigIsValid) {
  std::size_t configs = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(CROSSOVER_SOURCE_DIR) + "/configs")) {
    if (entry.path().extension() != ".json") continue;
    ++configs;
    const std::string path = entry.path().string();
    try {
      const Expansion e = expand_grid(load_grid(path));
      EXPECT_FALSE(e.cells.empty() && e.searches.empty()) << path;
    } catch (const GridError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GE(configs, 7u);
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// The messages expand_grid gives for cells that cannot work as a whole.
std::vector<std::string> cell_problems(const std::string& text) {
  std::vector<std::string> out;
  try {
    expand_grid(parse_grid(text, "g.json"));
  } catch (const GridError& e) {
    for (const auto& issue : e.issues()) out.push_back(issue.path + ": " + issue.message);
  }
  return out;
}

TEST(GridErrors, DataParallelPitfallsAreErrorsBeforeAnythingRuns) {
  auto p = cell_problems(R"({"name": "x", "experiments": [{"workload": "iris_mlp",
      "settings": {"batch_size": 2, "parallel": "ddp", "nproc": 4}}]})");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("experiments[0]: batch_size 2 is smaller than the 4 replicas"),
            std::string::npos)
      << p[0];
  p = cell_problems(R"({"name": "x", "experiments": [{"workload": "cifar_resnet18",
      "settings": {"device": "cuda", "parallel": "dp", "gpus": 2, "output_device": 2}}]})");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("output_device 2 is not among the GPUs used (0 to 1)"), std::string::npos);
  p = cell_problems(R"({"name": "x", "experiments": [{"workload": "cifar_resnet18",
      "settings": {"device": "cuda"}, "grid": {"gpus": [1, 2]}}]})");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("gpus 2 needs parallel \"dp\" or \"ddp\""), std::string::npos);
  p = cell_problems(R"({"name": "x", "experiments": [{"workload": "iris_mlp",
      "settings": {"nproc": 2}}]})");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("nproc 2 needs parallel \"ddp\""), std::string::npos);
  EXPECT_FALSE(issues_of(R"({"name": "x", "experiments": [{"workload": "iris_mlp",
      "settings": {"parallel": "ddpp"}}]})")
                   .empty());
}

// The model keys size the generic mlp alone: defaults there, a problem on a seed's workload.
TEST(GridErrors, ModelKeysBelongToTheGenericMlp) {
  const Expansion e = expand_grid(parse_grid(R"({"name": "x", "experiments": [
      {"workload": "mlp", "grid": {"width": [16, 1024]}}, {"workload": "iris_mlp"}]})",
                                             "g.json"));
  ASSERT_EQ(e.cells.size(), 3u);
  EXPECT_EQ(e.cells[0].width, 16);
  EXPECT_EQ(e.cells[1].width, 1024);
  EXPECT_EQ(e.cells[1].depth, 2);
  EXPECT_EQ(e.cells[1].features, 32);
  EXPECT_EQ(e.cells[1].classes, 10);
  EXPECT_EQ(e.cells[1].dataset, "synthetic");
  EXPECT_EQ(e.cells[2].width, 0);  // iris_mlp's model is its seed's
  const auto p = cell_problems(R"({"name": "x", "experiments": [{"workload": "iris_mlp",
      "settings": {"width": 64}}]})");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("width sizes the workload \"mlp\" alone; iris_mlp's model is its seed's"),
            std::string::npos)
      << p[0];
  EXPECT_FALSE(issues_of(R"({"name": "x", "experiments": [{"workload": "mlp",
      "settings": {"classes": 1}}]})")
                   .empty());
  // A torchscript experiment: its shape is a list in settings, its file relative to the grid.
  const Expansion t = expand_grid(parse_grid(R"({"name": "x", "experiments": [
      {"workload": "torchscript", "settings": {"model": "m/net.pt", "input_shape": [3, 8, 8],
       "outputs": 2}, "grid": {"parallel": ["none", "dp"]}}]})",
                                             "/grids/g.json"));
  ASSERT_EQ(t.cells.size(), 2u);
  EXPECT_EQ(t.cells[0].model, "/grids/m/net.pt");
  EXPECT_EQ(cell_label(t.cells[0]).rfind("torchscript net.pt cpu", 0), 0u)
      << cell_label(t.cells[0]);
  Cell hostile = t.cells[0];
  hostile.model = "/m/<img src=x>|a.pt";  // a label is plain text wherever it lands
  EXPECT_EQ(cell_label(hostile).rfind("torchscript ?img?src?x??a.pt cpu", 0), 0u);
  EXPECT_EQ(t.cells[0].input_shape, (std::vector<std::int64_t>{3, 8, 8}));
  EXPECT_TRUE(t.cells[0].isolate);
  EXPECT_FALSE(key_skip_reason(t.cells[0]));
  EXPECT_NE(key_skip_reason(t.cells[1]).value().text.find("use parallel \"ddp\""),
            std::string::npos);
  EXPECT_FALSE(issues_of(R"({"name": "x", "experiments": [{"workload": "torchscript",
      "settings": {"model": "m.pt", "input_shape": [3, 0], "classes": 2}}]})")
                   .empty());
  const auto both = cell_problems(R"({"name": "x", "experiments": [{"workload": "torchscript",
      "settings": {"model": "m.pt", "input_shape": [4], "classes": 2, "outputs": 1}}]})");
  ASSERT_EQ(both.size(), 1u);
  EXPECT_NE(both[0].find("needs one of \"classes\""), std::string::npos) << both[0];
}

TEST(Grid, DdpOnCudaUsesOneGpuPerProcess) {
  const Expansion e = expand_grid(parse_grid(R"({"name": "x", "experiments": [{
      "workload": "mnist_mlp", "settings": {"parallel": "ddp"},
      "grid": {"device": ["cpu", "cuda"], "nproc": [1, 3]}}]})",
                                             "g.json"));
  ASSERT_EQ(e.cells.size(), 4u);
  EXPECT_EQ(e.cells[1].gpus, 0);  // cpu, nproc 3
  EXPECT_EQ(e.cells[3].gpus, 3);  // cuda, nproc 3
  EXPECT_EQ(replicas(e.cells[3]), 3);
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

TEST(Grid, CudaCellsAreIsolatedByDefaultAndATimeoutIsolatesToo) {
  const Expansion e = expand_grid(parse_grid(R"({"name": "x", "experiments": [
      {"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"]}},
      {"workload": "boston_mlp", "settings": {"isolate": false},
       "grid": {"device": ["cpu", "cuda"], "timeout_seconds": [0, 30]}}]})",
                                             "g.json"));
  ASSERT_EQ(e.cells.size(), 6u);
  EXPECT_FALSE(e.cells[0].isolate);  // cpu, default
  EXPECT_TRUE(e.cells[1].isolate);   // cuda, default
  EXPECT_FALSE(e.cells[2].isolate);  // cpu, isolate false
  EXPECT_TRUE(e.cells[3].isolate);   // cpu, timeout 30
  EXPECT_FALSE(e.cells[4].isolate);  // cuda, isolate false as asked
  EXPECT_TRUE(e.cells[5].isolate);   // cuda, timeout 30
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

TEST(Grid, AGraphCellAlwaysUsesTheFusedOptimiserSoGraphLoopIsNotRunTwice) {
  const Expansion e = expand_grid(parse_grid(R"({"name": "x", "experiments": [
      {"workload": "iris_mlp", "grid": {"device": ["cuda"], "execution": ["eager", "graph"],
                                        "optimizer_impl": ["loop", "fused"]}}]})",
                                             "g.json"));
  ASSERT_EQ(e.cells.size(), 3u);
  EXPECT_EQ(e.duplicates, 1u);
  EXPECT_EQ(text_of(e.cells[0].execution) + "/" + text_of(e.cells[0].optimizer_impl), "eager/loop");
  EXPECT_EQ(text_of(e.cells[1].execution) + "/" + text_of(e.cells[1].optimizer_impl),
            "eager/fused");
  EXPECT_EQ(text_of(e.cells[2].execution) + "/" + text_of(e.cells[2].optimizer_impl),
            "graph/fused");
  EXPECT_EQ(e.cells[0].precision, Precision::kFp32);
  EXPECT_NE(cell_label(e.cells[2]).find(" graph fused"), std::string::npos);
  EXPECT_THROW(parse_grid(R"({"name": "x", "experiments": [{"workload": "iris_mlp",
      "grid": {"precision": ["fp16"]}}]})",
                          "g.json"),
               GridError);
}

// Files crossover writes or reads elsewhere, given where a grid goes, are named for what they are
// instead of checked key by key as a grid ("unknown key crossover_version" and 22 more).
TEST(Grid, FilesThatAreNotGridsAreNamedForWhatTheyAre) {
  const auto refusal = [](const std::string& text) {
    try {
      (void)parse_grid(text, "given.json");
    } catch (const GridError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(
      refusal(std::string("PK\x03\x04rest of a zip", 18)).find("a zip archive (torch.jit.save"),
      std::string::npos);
  EXPECT_NE(refusal("\n <!DOCTYPE html><html>...").find("an HTML file"), std::string::npos);
  EXPECT_NE(refusal("{\"cell\":0,\"workload\":\"iris_mlp\",\"status\":\"ok\"}\n"
                    "{\"cell\":1,\"workload\":\"iris_mlp\",\"status\":\"ok\"}\n")
                .find("a run's results (results.jsonl)"),
            std::string::npos);
  EXPECT_NE(refusal("{\"crossover_revision\": \"abc\", \"recorded_at\": \"now\"}")
                .find("a run's env.json"),
            std::string::npos);
  EXPECT_NE(refusal("{\"name\": \"x\", \"cpu\": {}, \"provenance\": {}}").find("a machine profile"),
            std::string::npos);
  // A grid is still a grid, and an unknown object still gets the grid's own checks.
  EXPECT_FALSE(not_a_grid("{\"name\": \"g\", \"experiments\": []}"));
  EXPECT_NE(refusal("{\"nmae\": \"g\"}").find("unknown key \"nmae\""), std::string::npos);

  testing::ScratchDir dir;
  dir.write("grid.json", "{}");
  try {
    (void)load_grid(dir.path());
    ADD_FAILURE() << "a run's folder was read as a grid";
  } catch (const GridError& e) {
    EXPECT_NE(std::string(e.what()).find("a run's folder, not a grid file: the grid it ran is " +
                                         dir.file("grid.json")),
              std::string::npos)
        << e.what();
  }
}

// run --set: one value sets a key in every experiment over the defaults and its own; several
// make an axis; the grid's checks then answer the values, and unknown keys get the nearest name.
TEST(Grid, SetOverridesADefaultOrMakesAnAxisInEveryExperiment) {
  const std::string text = R"({"name": "g", "defaults": {"epochs": 9},
    "experiments": [
      {"workload": "iris_mlp", "settings": {"epochs": 7}, "grid": {"device": ["cpu"], "dataset_size": ["full", 1000, 5000]}},
      {"workload": "boston_mlp", "grid": {"device": ["cpu"]}}]})";
  const Grid grid = parse_grid(apply_sets(text, {"epochs=2", "dataset_size=full,1000"}), "g.json");
  const Expansion cells = expand_grid(grid);
  ASSERT_EQ(cells.cells.size(), 4u);  // two sizes in each experiment
  for (const Cell& c : cells.cells) EXPECT_EQ(c.epochs, 2) << cell_label(c);
  EXPECT_EQ(apply_sets(text, {}), text);
  const auto refused = [&](const std::string& set) {
    try {
      (void)apply_sets(text, {set});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused("epocs=3").find("(did you mean --set epochs=3?)"), std::string::npos);
  EXPECT_NE(refused("epochs").find("expected KEY=VALUE"), std::string::npos);
  EXPECT_NE(refused("epochs=3,,4").find("an empty value"), std::string::npos);
  EXPECT_THROW((void)parse_grid(apply_sets(text, {"epochs=abc"}), "g.json"), GridError);
}

// A cell key written at an experiment's top says where it belongs, not the experiment's nearest
// keys ("name, exclude, workload" for isolate, in the hostile pass); a misspelt experiment key
// still gets its guess.
TEST(Grid, ACellKeyAtAnExperimentsTopSaysWhereItBelongs) {
  const auto problem = [](const std::string& text) {
    try {
      (void)parse_grid(text, "g.json");
    } catch (const GridError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string said =
      problem(R"({"name": "g", "experiments": [{"workload": "iris_mlp", "isolate": true}]})");
  EXPECT_NE(said.find("experiments[0].isolate: unknown key \"isolate\": isolate is a cell key; "
                      "it belongs under this experiment's \"settings\""),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("name, exclude"), std::string::npos) << said;
  EXPECT_NE(problem(R"({"name": "g", "experiments": [{"workload": "iris_mlp", "setings": {}}]})")
                .find("did you mean \"settings\""),
            std::string::npos);
}

}  // namespace
}  // namespace crossover
