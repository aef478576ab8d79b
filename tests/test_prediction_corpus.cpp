// The cost model's accuracy as CI protects it: `crossover predict --check` over the real GPU runs
// of profiles/validation/ (each run's anatomy kept beside it, so nothing is measured here and
// the answer is the same on every machine), held to the figures committed in its scores.json:
// the band's coverage leave one run out and across cards, the winners and crossings as run
// --predict makes them.
// A change that makes the model worse fails here; one that makes it better raises the figures.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "tests/cli_support.hpp"

namespace crossover {
namespace {

using testing::ScratchDir;
namespace fs = std::filesystem;

const std::string kCorpus = std::string(CROSSOVER_SOURCE_DIR) + "/profiles/validation/h100-80gb";
const std::string kProfile = std::string(CROSSOVER_SOURCE_DIR) + "/profiles/h100-80gb.json";

// One card's folder of real runs and the profile its scores.json names.
struct Corpus {
  std::string folder, profile;
  explicit Corpus(const std::string& card)
      : folder(std::string(CROSSOVER_SOURCE_DIR) + "/profiles/validation/" + card),
        profile(std::string(CROSSOVER_SOURCE_DIR) + "/profiles/" + card + ".json") {}
};

nlohmann::json check(const ScratchDir& dir, const Corpus& corpus,
                     const std::vector<std::string>& runs, const std::string& options = "") {
  std::string args = "predict --profile " + corpus.profile + options + " --json " +
                     dir.file("check.json") + " --check";
  for (const std::string& run : runs) args += " " + corpus.folder + "/" + run;
  const testing::Outcome o = testing::crossover(dir, args);
  EXPECT_EQ(o.code, 0) << o.err;
  // Every cell but the dp ones (several replicas are not in the model) had its anatomy kept.
  const std::string dp = "could not be taken here (a dp";
  std::string err = o.err;
  for (std::size_t at; (at = err.find(dp)) != std::string::npos;) err.erase(at, dp.size());
  EXPECT_EQ(err.find("could not be taken here"), std::string::npos) << o.err;
  return nlohmann::json::parse(testing::slurp(dir.file("check.json")));
}

// |log(predicted / measured)| of every cell of a check, with its run, kind and bound.
struct CheckedCell {
  std::string run, kind, bound;
  double log_ratio;
};

std::vector<CheckedCell> checked_cells(const nlohmann::json& report) {
  std::vector<CheckedCell> out;
  for (const auto& cell : report["cells"]) {
    std::string run = cell["run"].get<std::string>();
    run = fs::path(run).filename().string();
    out.push_back({run, cell["device"] == "cpu" ? "cpu" : "cuda", cell["bound"].get<std::string>(),
                   std::abs(std::log(cell["predicted_epoch_seconds"].get<double>() /
                                     cell["measured_epoch_seconds"].get<double>()))});
  }
  return out;
}

// Rank ceil((n + 1) 0.8) of the n sorted, or -1 where that is past n.
double conformal_quantile(std::vector<double> logs) {
  std::sort(logs.begin(), logs.end());
  const auto rank = static_cast<std::size_t>(std::ceil((logs.size() + 1) * 0.8 - 1e-9));
  return logs.empty() || rank > logs.size() ? -1.0 : logs[rank - 1];
}

// Leave one run out, written again here: each cell against the 80 % quantile of the other runs'
// cells of its kind (of its bound class where that has 8 cells or more). {inside, with a band}.
std::pair<int, int> leave_one_run_out_here(const std::vector<CheckedCell>& cells,
                                           const std::string& kind) {
  std::pair<int, int> out{0, 0};
  for (const CheckedCell& c : cells) {
    if (c.kind != kind) continue;
    std::vector<double> of_kind, of_bound;
    for (const CheckedCell& o : cells) {
      if (o.kind != kind || o.run == c.run) continue;
      of_kind.push_back(o.log_ratio);
      if (o.bound == c.bound) of_bound.push_back(o.log_ratio);
    }
    double q = of_bound.size() >= 8 ? conformal_quantile(of_bound) : -1.0;
    if (q < 0.0) q = conformal_quantile(of_kind);
    if (q < 0.0) continue;
    ++out.second;
    out.first += c.log_ratio <= q + 1e-12 ? 1 : 0;
  }
  return out;
}

class PredictionCorpusOf : public ::testing::TestWithParam<std::string> {};

TEST_P(PredictionCorpusOf, TheModelIsNoWorseThanItsCommittedScoresOnRealGpuRuns) {
  const Corpus corpus(GetParam());
  const auto committed = nlohmann::json::parse(testing::slurp(corpus.folder + "/scores.json"));
  const auto runs = committed["runs"].get<std::vector<std::string>>();
  // The shipped band was fitted on every run: each is scored against one fitted without it.
  ASSERT_EQ(committed["band_from"], committed["runs"]);
  ScratchDir dir;
  const nlohmann::json all = check(dir, corpus, runs);
  for (const std::string& run : runs) {
    const std::string how = all["bands"][corpus.folder + "/" + run].get<std::string>();
    EXPECT_NE(how.find("fitted without this run"), std::string::npos) << run << ": " << how;
    EXPECT_EQ(how.find("never saw"), std::string::npos) << run << ": " << how;
  }
  const auto shipped = nlohmann::json::parse(testing::slurp(corpus.profile));
  const std::vector<CheckedCell> cells = checked_cells(all);
  for (const std::string kind : {"cpu", "cuda"}) {
    const auto& score = all["scores"][kind];
    const auto& floor = committed["leave_one_run_out"][kind];
    EXPECT_LE(score["median_abs_error"].get<double>(),
              floor["median_abs_error"].get<double>() + 1e-9)
        << kind;
    EXPECT_GE(score["band_coverage"].get<double>(), floor["band_coverage"].get<double>() - 1e-9)
        << kind;
    // The coverage is the one leaving each run out gives, computed here on its own, and the one
    // the shipped profile states.
    const auto [inside, banded] = leave_one_run_out_here(cells, kind);
    EXPECT_EQ(score["band_inside"].get<int>(), inside) << kind;
    EXPECT_EQ(score["band_cells"].get<int>(), banded) << kind;
    const auto& measured = shipped["validation"][kind]["coverage_measured"];
    EXPECT_EQ(measured["method"], "leave-one-run-out") << kind;
    EXPECT_EQ(measured["inside"].get<int>(), inside) << kind;
    EXPECT_EQ(measured["cells"].get<int>(), banded) << kind;
  }
  // The winner of each cpu/cuda pair and the measured crossings, as run --predict makes them.
  const auto& winners = all["winners"];
  EXPECT_EQ(winners["pairs"].size(), committed["pairs"].get<std::size_t>());
  EXPECT_GE(winners["right"].get<int>() + winners["undecided"].get<int>(),
            committed["right_or_undecided"].get<int>());
  EXPECT_LE(winners["wrong"].get<int>(), committed["wrong"].get<int>());
  EXPECT_LE(winners["undecided"].get<int>(), committed["undecided_at_most"].get<int>());
  const auto& crossings = all["crossings"];
  EXPECT_EQ(crossings["measured"], committed["crossings"]["measured"]);
  EXPECT_GE(crossings["as_run_predict"]["within_factor_2"].get<int>(),
            committed["crossings"]["within_factor_2"].get<int>());
  EXPECT_GE(crossings["as_run_predict"]["inside_interval"].get<int>(),
            committed["crossings"]["inside_interval"].get<int>());
  EXPECT_GE(crossings["both_predicted"]["within_factor_2"].get<int>(),
            committed["crossings"]["both_predicted_within_factor_2"].get<int>());
  // Across cards: the other card's band, which never saw these runs, on their cells.
  const Corpus other(committed["across_cards"]["band_of"].get<std::string>());
  const nlohmann::json across = check(dir, corpus, runs, " --band-from " + other.profile);
  for (const std::string& run : runs) {
    EXPECT_NE(across["bands"][corpus.folder + "/" + run].get<std::string>().find("never saw"),
              std::string::npos)
        << run;
  }
  for (const std::string kind : {"cpu", "cuda"}) {
    EXPECT_GE(across["scores"][kind]["band_coverage"].get<double>(),
              committed["across_cards"][kind]["band_coverage"].get<double>() - 1e-9)
        << kind;
  }
}

// The H100's runs (2026-11-22 to 26) and the H200's (2026-11-27 and 28), each with its card's
// profile.
INSTANTIATE_TEST_SUITE_P(PredictionCorpus, PredictionCorpusOf,
                         ::testing::Values("h100-80gb", "h200-141gb"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The band is the conformal quantile of every corpus run's cells (split conformal), and a profile
// the check writes is one it reads.
TEST(PredictionCorpus, AFittedBandIsTheConformalQuantileOfItsCellsAndReadsBack) {
  const auto committed = nlohmann::json::parse(testing::slurp(kCorpus + "/scores.json"));
  ScratchDir dir;
  std::string args = "predict --profile " + kProfile + " --fit-band " + dir.file("fitted.json") +
                     " --json " + dir.file("check.json") + " --check";
  for (const std::string run : committed["band_from"]) args += " " + kCorpus + "/" + run;
  testing::Outcome o = testing::crossover(dir, args);
  ASSERT_EQ(o.code, 0) << o.err;
  const auto fitted = nlohmann::json::parse(testing::slurp(dir.file("fitted.json")));
  const auto report = nlohmann::json::parse(testing::slurp(dir.file("check.json")));
  for (const std::string kind : {"cpu", "cuda"}) {
    std::vector<double> logs;
    for (const CheckedCell& cell : checked_cells(report))
      if (cell.kind == kind) logs.push_back(cell.log_ratio);
    ASSERT_GE(conformal_quantile(logs), 0.0) << kind;
    const auto& band = fitted["validation"][kind]["band"];
    EXPECT_NEAR(band["factor"].get<double>(), std::exp(conformal_quantile(logs)), 1e-9) << kind;
    EXPECT_EQ(band["cells"].get<std::size_t>(), logs.size()) << kind;
  }
  // The shipped profile's band is the one these runs give.
  const auto shipped = nlohmann::json::parse(testing::slurp(kProfile));
  EXPECT_EQ(shipped["validation"], fitted["validation"]);
  // It is a profile predict reads. A run its band was fitted with is scored against a band fitted
  // without it: alone, against none.
  o = testing::crossover(
      dir, "predict --check " + kCorpus + "/a-seed001 --profile " + dir.file("fitted.json"));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.find("inside their band"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("cuda: none (a band fitted with this run would score itself"),
            std::string::npos)
      << o.out;
  o = testing::crossover(dir, "predict --check " + kCorpus + "/a-seed001 " + kCorpus +
                                  "/c-resnet --profile " + dir.file("fitted.json"));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("inside their band"), std::string::npos) << o.out;
  // It may not replace the profile it was fitted from.
  o = testing::crossover(dir, "predict --check " + kCorpus + "/a-seed001 --profile " +
                                  dir.file("fitted.json") + " --fit-band " +
                                  dir.file("fitted.json"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("that is the profile read"), std::string::npos) << o.err;
}

// A shipped profile is found by its short name from any folder, a wrong name is answered with the
// names there are, and list names them.
// Each shipped profile's band, every bound class's among it, is the one its card's corpus gives,
// written back under its own class's name (once, keyed by a dangling name, the H200's four classes
// came out as "loader" three times).
TEST(PredictionCorpus, EachShippedBandIsTheOneItsCorpusGivesClassByClass) {
  for (const std::string card : {"h100-80gb", "h200-141gb"}) {
    const Corpus corpus(card);
    const auto committed = nlohmann::json::parse(testing::slurp(corpus.folder + "/scores.json"));
    ScratchDir dir;
    std::string args = "predict --profile " + corpus.profile + " --fit-band " +
                       dir.file("fitted.json") + " --check";
    for (const std::string run : committed["band_from"]) args += " " + corpus.folder + "/" + run;
    const testing::Outcome o = testing::crossover(dir, args);
    ASSERT_EQ(o.code, 0) << o.err;
    const auto fitted = nlohmann::json::parse(testing::slurp(dir.file("fitted.json")));
    const auto shipped = nlohmann::json::parse(testing::slurp(corpus.profile));
    EXPECT_EQ(shipped["validation"], fitted["validation"]) << card;
    for (const auto& [kind, v] : fitted["validation"].items()) {
      const nlohmann::json classes = v.value("band_by_bound", nlohmann::json::object());
      for (const auto& [bound, band] : classes.items())
        EXPECT_TRUE(bound == "dispatch" || bound == "compute" || bound == "memory" ||
                    bound == "transfer" || bound == "loader")
            << card << " " << kind << ": " << bound;
    }
  }
}

TEST(PredictionCorpus, ShippedProfilesAreFoundByNameFromAnyFolder) {
  ScratchDir dir;
  const auto here = [&](const std::string& args) {
    return testing::shell(dir, "cd " + dir.path() + " && CROSSOVER_DATA_DIR= " +
                                   std::string(CROSSOVER_BINARY) + " " + args);
  };
  testing::Outcome o =
      here("predict --check " + kCorpus + "/b-mnist --profile h100 --json " + dir.file("a.json"));
  ASSERT_EQ(o.code, 0) << o.err;
  o = here("predict --check " + kCorpus + "/b-mnist --profile " + kProfile + " --json " +
           dir.file("b.json"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(testing::slurp(dir.file("a.json")))["cells"],
            nlohmann::json::parse(testing::slurp(dir.file("b.json")))["cells"]);
  o = here("predict --check " + kCorpus + "/b-mnist --profile H200-141GB");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("H200"), std::string::npos) << o.out;
  o = here("predict --check " + kCorpus + "/b-mnist --profile h300");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("h300: no such file, nor a shipped profile"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("h100 (h100-80gb.json)"), std::string::npos) << o.err;
  // A path that is not there stays a path: its own error, not a name's.
  o = here("predict --check " + kCorpus + "/b-mnist --profile profiles/h100-80gb.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("profiles/h100-80gb.json: cannot read"), std::string::npos) << o.err;
  o = here("list");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("predict cuda=NAME"), std::string::npos) << o.out;
  for (const char* name : {"h100", "h200"}) {
    const auto row = o.out.find("\n" + std::string(name) + " ");
    EXPECT_NE(row, std::string::npos) << name << "\n" << o.out;
  }
}

// predict --check needs no LibTorch where every cell's anatomy is recorded: `crossover` alone,
// without crossover-torch beside it, scores a run; a run with a cell whose anatomy must be taken on
// this CPU is handed to crossover-torch (which this copy lacks, and says so) before anything is
// printed.
TEST(PredictionCorpus, ACheckRunsWithoutLibTorchUnlessAnAnatomyMustBeTakenHere) {
  ScratchDir dir;
  fs::create_directories(dir.file("alone"));
  fs::copy_file(CROSSOVER_BINARY, dir.file("alone/crossover"));
  const std::string alone = dir.file("alone/crossover") + " predict --profile " + kProfile;
  testing::Outcome o = testing::shell(dir, alone + " --check " + kCorpus + "/a-seed001");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("Predicted with "), std::string::npos) << o.out;
  const std::string run = dir.file("run");
  fs::create_directories(run);
  for (const char* file : {"grid.json", "env.json", "results.jsonl"})
    fs::copy_file(kCorpus + "/a-seed001/" + file, run + "/" + file);
  o = testing::shell(dir, alone + " --check " + run);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("cannot start " + dir.file("alone/crossover-torch")), std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "") << "said before the hand-over";
  EXPECT_EQ(o.err.rfind("crossover: cannot start ", 0), 0u)
      << "said before the hand-over: " << o.err;
}

// What predict reads beside a run and where it writes are a user's files: a planted link is
// refused, a line of another cell is not taken for this one's, and no output replaces an input.
TEST(PredictionCorpus, ItsOwnFilesAreReadAndWrittenSafely) {
  ScratchDir dir;
  const std::string run = dir.file("run");
  fs::create_directories(run);
  for (const char* file : {"grid.json", "env.json", "results.jsonl", "anatomy.jsonl"})
    fs::copy_file(kCorpus + "/a-seed001/" + file, run + "/" + file);
  fs::rename(run + "/anatomy.jsonl", dir.file("kept.jsonl"));
  fs::create_symlink(dir.file("kept.jsonl"), run + "/anatomy.jsonl");
  testing::Outcome o = testing::crossover(dir, "predict --check " + run + " --profile " + kProfile);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("anatomy.jsonl"), std::string::npos) << o.err;
  // A line that names another cell under this index is not this cell's anatomy: it is taken
  // again here, and the prediction is the one the right anatomy gives.
  fs::remove(run + "/anatomy.jsonl");
  const auto predicted = [&](const std::string& args) {
    const testing::Outcome out = testing::crossover(dir, args + " --json " + dir.file("c.json"));
    EXPECT_EQ(out.code, 0) << out.err;
    return nlohmann::json::parse(
               testing::slurp(dir.file("c.json")))["cells"][0]["predicted_epoch_seconds"]
        .get<double>();
  };
  const std::string args =
      "predict --check " + run + " --profile " + kProfile + " --data-dir " + testing::data_dir();
  // The right anatomy is the one taken on this machine (cell 0's line left out): the kept line was
  // counted by another LibTorch (1.13; a CUDA LibTorch 2.11 counts other operators).
  std::string lines = testing::slurp(dir.file("kept.jsonl"));
  const auto first = lines.find("\n");
  dir.write("run/anatomy.jsonl", lines.substr(first + 1));
  const double right = predicted(args);
  const std::string boston = testing::slurp(kCorpus + "/a-seed001/anatomy.jsonl");
  // Cell 8's line (Boston at its full size), numbered as cell 0.
  std::string other = boston.substr(boston.find("{\"cell\":8,"));
  other = "{\"cell\":0," + other.substr(other.find(',') + 1, other.find('\n') - other.find(','));
  dir.write("run/anatomy.jsonl", other + lines.substr(first + 1));
  if (testing::have_real_data("iris.csv")) {
    EXPECT_DOUBLE_EQ(predicted(args), right);
  }
  // Outputs: not the profile read, not a run's file.
  o = testing::crossover(
      dir, "predict --check " + run + " --profile " + kProfile + " --json " + kProfile);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("that is the profile read"), std::string::npos) << o.err;
  o = testing::crossover(dir, "predict --check " + run + " --profile " + kProfile + " --fit-band " +
                                  run + "/results.jsonl");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--fit-band"), std::string::npos) << o.err;
  EXPECT_EQ(testing::slurp(run + "/results.jsonl"),
            testing::slurp(kCorpus + "/a-seed001/results.jsonl"));
}

}  // namespace
}  // namespace crossover
