// A newcomer's wrong turns and hostile bytes on the command line and in a run's files (issue 85):
// each answered before anything runs with what to fix, and nothing a file holds reaches a CI
// runner's log as a command.
#include <nlohmann/json.hpp>
#include <regex>

#include "core/text/text.hpp"
#include "runner/sweep/output_dir.hpp"
#include "tests/cli_support.hpp"

namespace crossover {
namespace {

using testing::Outcome;
using testing::ScratchDir;
namespace fs = std::filesystem;

// Bytes that are not UTF-8 in --set's value or --label: refused, named, nothing run (a grid is
// JSON, which aborted the run on them).
TEST(WrongTurns, TextThatIsNotUtf8OnTheCommandLineIsRefusedBeforeAnythingRuns) {
  ScratchDir dir;
  const std::string grid = dir.write("g.json", testing::kTinyGrid);
  for (const std::string& option : {std::string("--set \"$(printf 'dataset=\\377\\376')\""),
                                    std::string("--set \"$(printf 'epochs=\\377')\""),
                                    std::string("--label \"$(printf 'x\\377y')\"")}) {
    const Outcome o =
        testing::shell(dir, "CROSSOVER_DATA_DIR= " + std::string(CROSSOVER_BINARY) + " run " +
                                grid + " --out " + dir.file("out") + " " + option);
    EXPECT_EQ(o.code, 2) << option << o.err;
    EXPECT_NE(o.err.find("not UTF-8 text"), std::string::npos) << option << o.err;
    EXPECT_EQ(o.err.find("json.exception"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(dir.file("out/results.jsonl"))) << option;
  }
  // A list's values as people write them: the spaces after its commas are not the values'.
  const Outcome spaced =
      testing::crossover(dir, "run " + grid + " --set 'device=cpu, cuda' --dry-run");
  EXPECT_EQ(spaced.code, 0) << spaced.err;
}

// A --compare whose two sides are one value, or a value no cell has, can pair nothing: refused
// before the run (and in a dry run), with the values the grid has.
TEST(WrongTurns, ACompareThatCanPairNothingIsRefusedBeforeTheRun) {
  ScratchDir dir;
  const std::string grid = dir.write("g.json", testing::kTinyGrid);
  const auto refused = [&](const std::string& compare) {
    const Outcome o = testing::crossover(dir, "run " + grid + " --dry-run --compare " + compare);
    EXPECT_EQ(o.code, 2) << compare << o.err;
    return o.err;
  };
  EXPECT_NE(refused("dataset_size=50:50").find("both sides are 50"), std::string::npos);
  EXPECT_NE(refused("dataset_size=50:abc").find("no cell of this grid has dataset_size=abc"),
            std::string::npos);
  EXPECT_NE(refused("threads=0:3").find("its values: 0"), std::string::npos);
  EXPECT_EQ(testing::crossover(dir, "run " + grid + " --dry-run --compare device=cpu:cuda").code,
            0);
}

// A model check may take up to its limit: validate says so before it starts, never a silent wait.
TEST(WrongTurns, ValidateSaysItChecksTheGridsModelsBeforeItDoes) {
  ScratchDir dir;
  const std::string grid =
      dir.write("ts.json", R"({"name": "ts", "experiments": [{"workload": "torchscript", "settings":
      {"model": "/nonexistent.pt", "input_shape": [4], "classes": 3}, "grid": {"device": ["cpu"]}}]})");
  const Outcome o = testing::crossover(dir, "validate " + grid);
  EXPECT_EQ(o.code, 2) << o.err;
  const auto said = o.err.find("checking the grid's own models (up to 60 s each");
  ASSERT_NE(said, std::string::npos) << o.err;
  EXPECT_LT(said, o.err.find("/nonexistent.pt does not exist")) << o.err;
}

// A bare `crossover` says what it can do.
TEST(WrongTurns, ABareCrossoverListsItsCommands) {
  ScratchDir dir;
  const Outcome o = testing::crossover(dir, "");
  EXPECT_EQ(o.code, 2);
  for (const char* command : {"run", "report", "compare", "predict", "list"})
    EXPECT_NE(o.err.find("\n  " + std::string(command) + " "), std::string::npos) << command << "\n"
                                                                                  << o.err;
}

// A line break in a run's files (env.json's CPU model, a failed cell's reason) never opens a line
// with "::" — a GitHub Actions workflow command — on standard output or standard error.
TEST(WrongTurns, NoTextFromARunsFilesBecomesACiWorkflowCommand) {
  ScratchDir dir;
  const std::string run = dir.file("run");
  fs::create_directories(run);
  std::string lines;
  for (std::size_t i = 0; i < 2; ++i) {
    Result r;
    r.cell.index = i;
    r.cell.workload = "iris_mlp";
    r.cell.dataset = "iris";
    r.cell.device = i == 0 ? Device::cpu() : Device::cuda();
    r.cell.gpus = i == 0 ? 0 : 1;
    r.train_rows = 100;
    if (i == 0) {
      r.epoch_seconds = 0.01;
      r.epoch_seconds_samples = {0.01, 0.011, 0.009};
    } else {
      r.status = CellStatus::kFailed;
      r.reason = "boom\n::add-mask::vm\n::error title=pwned::reason";
    }
    lines += result_to_json(r).dump() + "\n";
  }
  dir.write("run/results.jsonl", lines);
  dir.write("run/env.json",
            R"({"cpu": {"model": "Xeon\n::error title=pwned::cpu", "logical_cores": 2}})");
  const Outcome o = testing::crossover(dir, "report " + run + " --out " + dir.file("out"));
  const std::string both = "\n" + o.out + "\n" + o.err;
  EXPECT_EQ(both.find("\n::"), std::string::npos) << both;
  EXPECT_NE(both.find("pwned"), std::string::npos) << "the text is shown, made harmless";
  // Bytes that are not UTF-8 (a folder's name) reach standard output as "?", as the log's do.
  const std::string odd = testing::results_dir(dir, "b\xff\xfe", 0.1);
  const std::string other = testing::results_dir(dir, "c", 0.1);
  const Outcome named = testing::crossover(dir, "compare '" + odd + "' " + other);
  EXPECT_TRUE(valid_utf8(named.out)) << named.out;
  EXPECT_NE(named.out.find("/b??"), std::string::npos) << named.out;
}

// A run still running (its folder's lock held) is neither reported into nor taken into a
// history: it writes its own reports when it ends, and a history that took it without its cells
// would refuse it once it had them.
TEST(WrongTurns, ARunStillRunningIsNeitherReportedIntoNorAddedToAHistory) {
  ScratchDir dir;
  const std::string grid = dir.write(
      "g.json", R"({"name": "one", "defaults": {"epochs": 2, "warmup_epochs": 0, "repeats": 1},
      "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu"]}}]})");
  const std::string run = dir.file("run");
  ASSERT_EQ(testing::crossover(
                dir, "run " + grid + " --out " + run + " --data-dir " + testing::data_dir())
                .code,
            0);
  fs::remove(run + "/report.md");
  const DirectoryLock running(run);
  Outcome o = testing::crossover(dir, "report " + run);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("still running"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(run + "/report.md"));
  o = testing::crossover(dir, "history " + run + " --out " + dir.file("h"));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("add it to the history when it ends"), std::string::npos) << o.err;
}

// An env.json that cannot be read invents no environment: a report of an H100's run never says
// "CUDA not compiled" or "GPUs: none" for want of it.
TEST(WrongTurns, AnUnreadableEnvJsonInventsNoEnvironment) {
  ScratchDir dir;
  fs::create_directories(dir.file("run"));
  Result r;
  r.cell.workload = "iris_mlp";
  r.cell.dataset = "iris";
  r.cell.device = Device::cuda();
  r.train_rows = 100;
  r.epoch_seconds = 0.001;
  r.epoch_seconds_samples = {0.001, 0.0011};
  dir.write("run/results.jsonl", result_to_json(r).dump() + "\n");
  dir.write("run/env.json", "[1, 2]");
  const Outcome o = testing::crossover(dir, "report " + dir.file("run"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("env.json: unreadable"), std::string::npos) << o.err;
  const std::string md = testing::slurp(dir.file("run/report.md"));
  EXPECT_NE(md.find("Environment: not recorded (no readable env.json"), std::string::npos) << md;
  EXPECT_EQ(md.find("CUDA not compiled"), std::string::npos) << md;
  EXPECT_EQ(md.find("GPUs: none"), std::string::npos) << md;
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// Every line of `text` that is no table row (two spaces after its indent) and more than one word
// (a path longer than the screen stays whole) fits `width`.
void expect_sentences_fit(const std::string& text, std::size_t width) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    if (line.find("  ", indent) != std::string::npos) continue;
    if (line.find(' ', indent) == std::string::npos) continue;
    EXPECT_LE(display_width(line), width) << line;
  }
}

// compare's sentences (its settings reach 300 columns, a reason more) wrap at 100 columns on a
// pipe and at the terminal's COLUMNS; COLUMNS=0 keeps one sentence a line, for grep.
TEST(WrongTurns, SentencesWrapAtTheScreensWidthAndTablesStayWhole) {
  ScratchDir dir;
  const std::string base = testing::results_dir(dir, "base", 0.100);
  const std::string cand = testing::results_dir(dir, "cand", 0.150);
  const std::string compare = "compare " + base + " " + cand;
  const Outcome piped = testing::crossover(dir, compare, "COLUMNS=");
  EXPECT_EQ(piped.code, 1) << piped.err;
  expect_sentences_fit(piped.out, 100);
  EXPECT_NE(piped.out.find("\nregression  mnist_mlp"), std::string::npos) << piped.out;
  const Outcome narrow = testing::crossover(dir, compare, "COLUMNS=72");
  expect_sentences_fit(narrow.out, 72);
  const Outcome whole = testing::crossover(dir, compare, "COLUMNS=0");
  EXPECT_NE(whole.out.find("metric: time per epoch; a regression needs p < 0.05 (two-sided: "
                           "Mann-Whitney U on the samples of one run per side"),
            std::string::npos)
      << whole.out;
  // What the tables and sentences say is the same, only broken differently.
  const auto words = [](const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  };
  EXPECT_EQ(words(piped.out), words(whole.out));
  EXPECT_GT(testing::lines_in(piped.out), testing::lines_in(whole.out) + 2);
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// One rule for a run's env.json wherever it is read for a report or a verdict (report, compare,
// history; predict and --resume read it the same way): a field of another type reads as not
// recorded with a warning naming it, and a document that is not an object is no environment,
// said once, never ten lines of "the runs differ in CPU: X vs (none)". merge, which writes a
// record of its own from it, refuses both (MergeTest).
TEST(WrongTurns, EveryReaderOfEnvJsonKeepsOneRuleForMistypedFields) {
  ScratchDir dir;
  const std::string a = testing::results_dir(dir, "a", 0.1);
  const std::string b = testing::results_dir(dir, "b", 0.1);
  dir.write("b/env.json", R"({"blas": {"kind": "openblas"}, "cpu": {"model": "X"}})");
  dir.write("a/env.json",
            R"({"blas": {"kind": "openblas"}, "cpu": {"model": "X", "logical_cores": "two"}})");
  const std::string named = "cpu.logical_cores is \"two\"";
  for (const std::string& command :
       {"compare " + a + " " + b, "report " + a + " --out " + dir.file("r"),
        "history " + a + " --out " + dir.file("h")}) {
    const Outcome o = testing::crossover(dir, command);
    EXPECT_EQ(o.code, 0) << command << "\n" << o.err;
    EXPECT_NE(o.err.find(named), std::string::npos) << command << "\n" << o.err;
    EXPECT_NE(o.err.find("read as not recorded"), std::string::npos) << command << "\n" << o.err;
  }
  dir.write("a/env.json", "[1, 2]");
  const Outcome o = testing::crossover(dir, "compare " + a + " " + b);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("the document is array, expected an object"), std::string::npos) << o.err;
  EXPECT_EQ(o.out.find("environment differs"), std::string::npos) << o.out;
  EXPECT_EQ(o.err.find("the runs differ"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("has no readable env.json"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace crossover
