// The cost model's accuracy as CI protects it: `crossover predict --check` over the real GPU runs
// of profiles/validation/ (each run's anatomy kept beside it, so nothing is measured here and
// the answer is the same on every machine), held to the figures committed in its scores.json.
// A change that makes the model worse fails here; one that makes it better raises the figures.
#include <nlohmann/json.hpp>

#include <algorithm>

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
                     const std::vector<std::string>& runs) {
  std::string args = "predict --profile " + corpus.profile + " --json " + dir.file("check.json") +
                     " --check";
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

class PredictionCorpusOf : public ::testing::TestWithParam<std::string> {};

TEST_P(PredictionCorpusOf, TheModelIsNoWorseThanItsCommittedScoresOnRealGpuRuns) {
  const Corpus corpus(GetParam());
  const auto committed = nlohmann::json::parse(testing::slurp(corpus.folder + "/scores.json"));
  ScratchDir dir;
  // Held out: no constant of the model was set from these runs (its band was: split conformal).
  const nlohmann::json held =
      check(dir, corpus, committed["held_out"].get<std::vector<std::string>>());
  for (const std::string kind : {"cpu", "cuda"}) {
    const auto& score = held["scores"][kind];
    const auto& floor = committed["held_out_scores"][kind];
    EXPECT_LE(score["median_abs_error"].get<double>(),
              floor["median_abs_error"].get<double>() + 1e-9)
        << kind;
    if (committed["band_from"].empty()) {  // a profile without a band claims no coverage
      EXPECT_FALSE(score.contains("band_coverage")) << kind;
      continue;
    }
    EXPECT_GE(score["band_coverage"].get<double>(), floor["band_coverage"].get<double>() - 1e-9)
        << kind;
    EXPECT_GE(score["band_coverage"].get<double>(), 0.8) << kind << ": the band's promise";
  }
  // Every run: the winner of each cpu/cuda pair, and the measured crossings (the same check when
  // every run is held out).
  const nlohmann::json all =
      committed["runs"] == committed["held_out"]
          ? held
          : check(dir, corpus, committed["runs"].get<std::vector<std::string>>());
  const auto& winners = all["winners"];
  EXPECT_EQ(winners["pairs"].size(), committed["pairs"].get<std::size_t>());
  EXPECT_GE(winners["right"].get<int>() + winners["undecided"].get<int>(),
            committed["right_or_undecided"].get<int>());
  EXPECT_LE(winners["wrong"].get<int>(), committed["wrong"].get<int>());
  EXPECT_LE(winners["undecided"].get<int>(), committed["undecided_at_most"].get<int>());
  EXPECT_GE(all["crossings"]["within_factor_2"].get<int>(),
            committed["crossings_within_factor_2"].get<int>());
}

// The H100's runs (2026-11-22 to 26) and the H200's (2026-11-27 and 28), each with its card's profile.
INSTANTIATE_TEST_SUITE_P(PredictionCorpus, PredictionCorpusOf,
                         ::testing::Values("h100-80gb", "h200-141gb"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The band comes from the runs that set no constant of the model (split conformal), and a profile
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
    // Rank ceil((n + 1) 0.8) of the n cells' |log(predicted / measured)|.
    std::vector<double> logs;
    for (const auto& cell : report["cells"]) {
      if ((cell["device"] == "cpu") != (kind == "cpu")) continue;
      logs.push_back(std::abs(std::log(cell["predicted_epoch_seconds"].get<double>() /
                                       cell["measured_epoch_seconds"].get<double>())));
    }
    std::sort(logs.begin(), logs.end());
    const auto rank = static_cast<std::size_t>(std::ceil((logs.size() + 1) * 0.8));
    ASSERT_LE(rank, logs.size()) << kind;
    const auto& band = fitted["validation"][kind]["band"];
    EXPECT_NEAR(band["factor"].get<double>(), std::exp(logs[rank - 1]), 1e-9) << kind;
    EXPECT_EQ(band["cells"].get<std::size_t>(), logs.size()) << kind;
  }
  // The shipped profile's band is the one these runs give.
  const auto shipped = nlohmann::json::parse(testing::slurp(kProfile));
  EXPECT_EQ(shipped["validation"], fitted["validation"]);
  // It is a profile predict reads; it may not replace the profile it was fitted from.
  o = testing::crossover(dir, "predict --check " + kCorpus + "/a-seed001 --profile " +
                                  dir.file("fitted.json"));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("inside their band"), std::string::npos) << o.out;
  o = testing::crossover(dir, "predict --check " + kCorpus + "/a-seed001 --profile " +
                                  dir.file("fitted.json") + " --fit-band " +
                                  dir.file("fitted.json"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("that is the profile read"), std::string::npos) << o.err;
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
    return nlohmann::json::parse(testing::slurp(dir.file("c.json")))["cells"][0]
        ["predicted_epoch_seconds"].get<double>();
  };
  const std::string args = "predict --check " + run + " --profile " + kProfile + " --data-dir " +
                           testing::data_dir();
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
  o = testing::crossover(dir, "predict --check " + run + " --profile " + kProfile + " --json " +
                                  kProfile);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("that is the profile read"), std::string::npos) << o.err;
  o = testing::crossover(dir, "predict --check " + run + " --profile " + kProfile +
                                  " --fit-band " + run + "/results.jsonl");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--fit-band"), std::string::npos) << o.err;
  EXPECT_EQ(testing::slurp(run + "/results.jsonl"), testing::slurp(kCorpus + "/a-seed001/results.jsonl"));
}

}  // namespace
}  // namespace crossover
