// crossover catalog and the datasheet profiles as users get them: a grid's CPU cells measured here,
// every catalogued GPU predicted from its datasheet and labelled so in every row, "undecided"
// where a band allows a tie, the cheapest GPU only among those that win; and the derivation held to
// the figures the catalog states, scored on the real runs of the two measured cards.
#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "core/records/results.hpp"
#include "tests/cli_support.hpp"

namespace crossover {
namespace {

using testing::ScratchDir;

const std::string kSource = CROSSOVER_SOURCE_DIR;

nlohmann::json catalog_json() {
  return nlohmann::json::parse(testing::slurp(kSource + "/profiles/datasheets/catalog.json"));
}

void write_grid(const ScratchDir& dir) {
  dir.write("grid.json", R"({"name": "which-gpu", "defaults": {"epochs": 3, "warmup_epochs": 1,
    "repeats": 2, "seed": 0}, "experiments": [{"workload": "iris_mlp",
    "grid": {"device": ["cpu", "cuda"], "dataset_size": ["full", 100000]}}]})");
}

TEST(Catalog, EachGpuIsPredictedFromItsDatasheetAgainstTheCpuMeasuredHere) {
  ScratchDir dir;
  write_grid(dir);
  const testing::Outcome o = testing::crossover(
      dir, "catalog " + dir.file("grid.json") + " --out " + dir.file("run") +
               " --example-prices --price cpu=0.05 --json " + dir.file("cat.json") +
               " --markdown " + dir.file("cat.md"));
  ASSERT_EQ(o.code, 0) << o.err;
  const auto report = nlohmann::json::parse(testing::slurp(dir.file("cat.json")));
  std::set<std::string> gpus, catalogued;
  const nlohmann::json catalog = catalog_json();
  for (const auto& card : catalog["cards"]) catalogued.insert(card["name"]);
  // The CPU's epochs are the run's measured cells.
  std::map<std::string, double> measured;
  for (const Result& r : read_results(dir.file("run/results.jsonl")))
    if (r.status == CellStatus::kOk) measured[cell_label(r.cell)] = r.epoch_seconds;
  ASSERT_EQ(report["rows"].size(), 2 * catalogued.size());
  for (const auto& row : report["rows"]) {
    gpus.insert(row["gpu"]);
    EXPECT_EQ(row["status"], "predicted");
    EXPECT_EQ(row["source"], "datasheet");
    EXPECT_NE(row["profile"].get<std::string>().find("(from its datasheet)"), std::string::npos);
    EXPECT_EQ(row["cpu_epoch_seconds"].get<double>(), measured.at(row["cell"]));
    EXPECT_LT(row["gpu_epoch_seconds_low"].get<double>(), row["gpu_epoch_seconds"].get<double>());
    EXPECT_GT(row["gpu_epoch_seconds_high"].get<double>(), row["gpu_epoch_seconds"].get<double>());
    // No winner where the band allows a tie.
    const bool tie_allowed =
        row["speedup_low"].get<double>() <= 1.0 && row["speedup_high"].get<double>() >= 1.0;
    EXPECT_EQ(row["winner"].get<std::string>().rfind("undecided", 0) == 0, tie_allowed) << row;
    EXPECT_GT(row["gpu_cost_per_epoch"].get<double>(), 0.0);
  }
  EXPECT_EQ(gpus, catalogued);
  // Every GPU epoch printed says it is predicted, with its band; a card of an architecture never
  // measured says its band was never checked on it.
  EXPECT_EQ(o.out.find(" ms |"), std::string::npos);
  EXPECT_NE(o.out.find("predicted, 80 %)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("(Turing) is not one measured"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Prices: examples"), std::string::npos) << o.out;
  // The cheapest winner is weighed against this CPU's measured cost too, or none is named.
  EXPECT_TRUE(o.out.find("so the GPU is") != std::string::npos ||
              o.out.find("no priced GPU wins for certain") != std::string::npos)
      << o.out;
  // --markdown: the same table for a pull request, each GPU's epoch marked predicted.
  const std::string md = testing::slurp(dir.file("cat.md"));
  EXPECT_NE(md.find("| # | CPU cell (measured here) |"), std::string::npos) << md;
  for (const std::string& gpu : catalogued)
    EXPECT_NE(md.find("| " + gpu + " | "), std::string::npos) << gpu << "\n" << md;
  EXPECT_NE(md.find("predicted, 80 %)"), std::string::npos);
  EXPECT_NE(md.find("- l4 (NVIDIA L4): its band held"), std::string::npos) << md;
  // The run that measured the CPU predicted its CUDA cells from a datasheet too, and says so.
  for (const Result& r : read_results(dir.file("run/results.jsonl"))) {
    if (r.status == CellStatus::kPredicted) {
      EXPECT_NE(r.prediction.prediction_profile.find("(from its datasheet)"), std::string::npos);
    }
  }

  // Its folder answers again without running (the GPUs named), and wrong names are refused.
  const testing::Outcome two = testing::crossover(
      dir, "catalog " + dir.file("run") + " --gpus l4,t4 --json " + dir.file("two.json"));
  ASSERT_EQ(two.code, 0) << two.err;
  std::set<std::string> named;
  const auto named_rows = nlohmann::json::parse(testing::slurp(dir.file("two.json")));
  for (const auto& row : named_rows["rows"]) named.insert(row["gpu"]);
  EXPECT_EQ(named, (std::set<std::string>{"l4", "t4"}));
  EXPECT_EQ(two.out.find("cheapest"), std::string::npos);  // no prices, no cost columns
  const testing::Outcome typo = testing::crossover(dir, "catalog " + dir.file("run") + " --gpus l5");
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find("did you mean"), std::string::npos) << typo.err;
  for (const char* price : {"l4=abc", "l4=-1", "b900=1", "l4"}) {
    const testing::Outcome bad = testing::crossover(dir, "catalog " + dir.file("run") + " --price " + price);
    EXPECT_EQ(bad.code, 2) << price;
    EXPECT_NE(bad.err.find("NAME=PRICE_PER_HOUR"), std::string::npos) << bad.err;
  }
}

// A run whose CUDA cells were skipped has no anatomy to predict from, and a grid without CUDA cells
// nothing to predict: each said, nothing invented.
TEST(Catalog, ARunWithoutPredictedCellsIsAskedForTheGrid) {
  ScratchDir dir;
  write_grid(dir);
  ASSERT_EQ(
      testing::crossover(dir, "run " + dir.file("grid.json") + " --out " + dir.file("plain")).code,
      0);
  const testing::Outcome o = testing::crossover(dir, "catalog " + dir.file("plain"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("give the grid itself"), std::string::npos) << o.err;
  // A grid with no CUDA cell is refused before anything runs.
  dir.write("cpu.json", R"({"name": "cpu-only", "experiments": [{"workload": "iris_mlp",
    "grid": {"device": ["cpu"]}}]})");
  const testing::Outcome cpu = testing::crossover(
      dir, "catalog " + dir.file("cpu.json") + " --out " + dir.file("cpu-run"));
  EXPECT_EQ(cpu.code, 2);
  EXPECT_NE(cpu.err.find("no CUDA cell to predict"), std::string::npos) << cpu.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("cpu-run")));
}

// The derivation where it can be checked: each measured card's datasheet profile (derived without
// its own measurement) scored on that card's real runs, as predict --check gives it, is no worse
// than the figures the catalog states for it (its "derivation"), which every datasheet profile's
// band is made of.
class DatasheetDerivationOf : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(DatasheetDerivationOf, IsNoWorseThanTheCatalogStates) {
  const auto& [folder, card] = GetParam();
  const std::string corpus = kSource + "/profiles/validation/" + folder;
  const auto runs = nlohmann::json::parse(testing::slurp(corpus + "/scores.json"))["runs"];
  ScratchDir dir;
  std::string args = "predict --profile " + card + " --json " + dir.file("check.json") + " --check";
  for (const auto& run : runs) args += " " + corpus + "/" + run.get<std::string>();
  const testing::Outcome o = testing::crossover(dir, args);
  ASSERT_EQ(o.code, 0) << o.err;
  const auto check = nlohmann::json::parse(testing::slurp(dir.file("check.json")));
  const nlohmann::json catalog = catalog_json();
  const auto& stated = catalog["derivation"][card];
  EXPECT_EQ(check["profile"], card + " (from its datasheet)");
  const auto& cuda = check["scores"]["cuda"];
  EXPECT_LE(cuda["median_abs_error"].get<double>(), stated["median_abs_error"].get<double>() + 1e-9);
  // Each run scored against a band fitted without it: the coverage the catalog states.
  EXPECT_EQ(cuda["band_cells"], stated["coverage_measured"]["cells"]);
  EXPECT_GE(cuda["band_inside"].get<int>(), stated["coverage_measured"]["inside"].get<int>());
  EXPECT_EQ(stated["runs"], runs);
}

INSTANTIATE_TEST_SUITE_P(Cards, DatasheetDerivationOf,
                         ::testing::Values(std::pair<std::string, std::string>{"h100-80gb", "h100-sxm"},
                                           std::pair<std::string, std::string>{"h200-141gb", "h200-sxm"}));

}  // namespace
}  // namespace crossover
