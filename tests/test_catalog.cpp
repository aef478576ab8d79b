// crossover catalog and the datasheet profiles as users get them: a grid's CPU cells measured here,
// every catalogued GPU predicted from its datasheet and labelled so in every row, "undecided"
// where a band allows a tie, the cheapest GPU only among those that win; and the derivation held to
// the figures the catalog states, scored on the real runs of the two measured cards.
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/records/results.hpp"
#include "reports/catalog/catalog_table.hpp"
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
  const testing::Outcome o =
      testing::crossover(dir,
                         "catalog " + dir.file("grid.json") + " --out " + dir.file("run") +
                             " --example-prices --price cpu=0.05 --json " + dir.file("cat.json") +
                             " --markdown " + dir.file("cat.md"),
                         "COLUMNS=");  // a pipe's 100 columns, whatever COLUMNS the caller has
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
  EXPECT_EQ(report["cost_unit"], "per 1,000 epochs");
  EXPECT_EQ(report["prices_are"], "examples, not quotes");
  EXPECT_EQ(report["prices_per_hour"]["cpu"].get<double>(), 0.05);
  // One GPU order, the catalog's, in every cell; cells numbered from 1.
  std::vector<std::string> order;
  for (const auto& card : catalog["cards"]) order.push_back(card["name"]);
  for (std::size_t i = 0; i < report["rows"].size(); ++i) {
    const auto& row = report["rows"][i];
    EXPECT_EQ(row["gpu"], order[i % order.size()]) << i;
    EXPECT_GE(row["cell"].get<int>(), 1);
  }
  for (const auto& row : report["rows"]) {
    gpus.insert(row["gpu"]);
    EXPECT_EQ(row["status"], "predicted");
    EXPECT_EQ(row["source"], "datasheet");
    EXPECT_NE(row["profile"].get<std::string>().find("(from its datasheet)"), std::string::npos);
    EXPECT_EQ(row["cpu_epoch_seconds"].get<double>(), measured.at(row["cell_label"]));
    EXPECT_LT(row["gpu_epoch_seconds_low"].get<double>(), row["gpu_epoch_seconds"].get<double>());
    EXPECT_GT(row["gpu_epoch_seconds_high"].get<double>(), row["gpu_epoch_seconds"].get<double>());
    // No winner where the band allows a tie.
    const bool tie_allowed =
        row["speedup_low"].get<double>() <= 1.0 && row["speedup_high"].get<double>() >= 1.0;
    EXPECT_EQ(row["winner"].get<std::string>().rfind("undecided", 0) == 0, tie_allowed) << row;
    // A cost per 1,000 epochs at the price used, with the epoch's band.
    const double cost = row["price_per_hour"].get<double>() *
                        row["gpu_epoch_seconds"].get<double>() * 1000.0 / 3600.0;
    EXPECT_NEAR(row["gpu_cost_per_1000_epochs"].get<double>(), cost, 1e-12 * cost);
    EXPECT_NEAR(row["gpu_cost_per_1000_epochs_high"].get<double>(),
                cost * row["band_factor"].get<double>(), 1e-9 * cost);
  }
  EXPECT_EQ(gpus, catalogued);
  // Every GPU figure is said to be predicted, the bands once with the GPUs they cover, the
  // architectures never measured once; the prices used with their unit; nothing past 100 columns.
  // (The run it made printed its own report first: catalog's text starts at "Which GPU".)
  const std::string out = o.out.substr(std::min(o.out.find("Which GPU:"), o.out.size()));
  std::string flat;  // its sentences unwrapped
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] != '\n') {
      flat += out[i];
      continue;
    }
    flat += ' ';
    while (i + 1 < out.size() && out[i + 1] == ' ') ++i;
  }
  EXPECT_NE(flat.find("is predicted from the card's datasheet"), std::string::npos) << o.out;
  EXPECT_NE(out.find("Turing (t4)"), std::string::npos) << out;
  EXPECT_EQ(out.find("its band held"), out.rfind("its band held")) << out;
  EXPECT_NE(flat.find("Prices used (per hour)"), std::string::npos) << out;
  EXPECT_NE(flat.find("Example prices, not quotes"), std::string::npos) << out;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  // Iris is the host's step on every card: the GPUs tie, and the verdict says why.
  EXPECT_NE(flat.find("fastest GPU: a tie between"), std::string::npos) << out;
  EXPECT_NE(flat.find("The step is the host's"), std::string::npos) << out;
  EXPECT_NE(flat.find("this CPU ("), std::string::npos) << out;  // its cost against theirs
  // Each verdict said once: one the cells share follows their tables, with the cells it covers.
  std::set<std::string> verdicts;
  for (std::size_t at = flat.find("fastest GPU: "); at != std::string::npos;
       at = flat.find("fastest GPU: ", at + 1))
    EXPECT_TRUE(verdicts.insert(flat.substr(at, flat.find(". ", at) - at)).second)
        << flat.substr(at, 120);
  // --markdown: the same tables for a pull request.
  const std::string md = testing::slurp(dir.file("cat.md"));
  EXPECT_NE(md.find("| GPU | epoch |"), std::string::npos) << md;
  for (const std::string& gpu : catalogued)
    EXPECT_NE(md.find("| " + gpu + " | "), std::string::npos) << gpu << "\n" << md;
  EXPECT_NE(md.find("### Cell 0: iris_mlp"), std::string::npos) << md;  // the run's numbering
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
  const testing::Outcome typo =
      testing::crossover(dir, "catalog " + dir.file("run") + " --gpus l5");
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find("did you mean"), std::string::npos) << typo.err;
  for (const char* price : {"l4=abc", "l4=-1", "b900=1", "l4"}) {
    const testing::Outcome bad =
        testing::crossover(dir, "catalog " + dir.file("run") + " --price " + price);
    EXPECT_EQ(bad.code, 2) << price;
    EXPECT_NE(bad.err.find("NAME=PRICE_PER_HOUR"), std::string::npos) << bad.err;
  }
}

// A run whose CUDA cells were skipped has no anatomy to predict from, and a grid without CUDA cells
// nothing to predict: each said, nothing invented.
// A verdict several cells share is said once, after their tables, naming the cells; one of its
// own stays under its table.
TEST(Catalog, AVerdictSeveralCellsShareIsSaidOnceWithItsCells) {
  std::vector<CellTable> tables(3);
  for (std::size_t i = 0; i < tables.size(); ++i) {
    tables[i].heading = "Cell " + std::to_string(2 * i) + ": iris_mlp cpu";
    tables[i].table.header = {"GPU"};
    tables[i].verdict = i < 2 ? "fastest GPU: a tie" : "fastest GPU: l4 (predicted)";
  }
  const std::string text = catalog_text(tables, "Which GPU", {}, "", false);
  EXPECT_EQ(text.find("fastest GPU: a tie"), text.rfind("fastest GPU: a tie")) << text;
  EXPECT_NE(text.find("\nCells 0 and 2: fastest GPU: a tie.\n"), std::string::npos) << text;
  EXPECT_LT(text.find("fastest GPU: l4 (predicted)."), text.find("Cells 0 and 2")) << text;
}

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
  const testing::Outcome cpu =
      testing::crossover(dir, "catalog " + dir.file("cpu.json") + " --out " + dir.file("cpu-run"));
  EXPECT_EQ(cpu.code, 2);
  EXPECT_NE(cpu.err.find("no CUDA cell to predict"), std::string::npos) << cpu.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("cpu-run")));
}

// The derivation where it can be checked: each measured card's datasheet profile (derived without
// its own measurement) scored on that card's real runs, as predict --check gives it, is no worse
// than the figures the catalog states for it (its "derivation"), which every datasheet profile's
// band is made of.
class DatasheetDerivationOf : public ::testing::TestWithParam<std::pair<std::string, std::string>> {
};

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
  EXPECT_LE(cuda["median_abs_error"].get<double>(),
            stated["median_abs_error"].get<double>() + 1e-9);
  // Each run scored against a band fitted without it: the coverage the catalog states.
  EXPECT_EQ(cuda["band_cells"], stated["coverage_measured"]["cells"]);
  EXPECT_GE(cuda["band_inside"].get<int>(), stated["coverage_measured"]["inside"].get<int>());
  EXPECT_EQ(stated["runs"], runs);
}

INSTANTIATE_TEST_SUITE_P(
    Cards, DatasheetDerivationOf,
    ::testing::Values(std::pair<std::string, std::string>{"h100-80gb", "h100-sxm"},
                      std::pair<std::string, std::string>{"h200-141gb", "h200-sxm"}));

}  // namespace
}  // namespace crossover
