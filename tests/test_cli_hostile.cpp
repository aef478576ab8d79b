// The built `crossover` binary used as a careless or hostile user would: planted links, killed
// rewrites, grids that drop results, outputs that name a run's files, closed descriptors, FIFOs as
// data, impossible results, grids of millions of cells. Nothing measured may be lost, nothing may
// be written where nobody asked, and nothing may hang.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "core/records/results.hpp"
#include "runner/sweep/output_dir.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // crossover::testing: the binary, scratch directories, tiny grids

// A grid of `seeds` Iris cells of one short epoch each (synthetic data unless a data folder is
// given: a second or two in all).
std::string seeds_grid(const ScratchDir& dir, const std::string& name, const std::string& seeds) {
  return dir.write(name, R"({"name": "g", "defaults": {"epochs": 1, "warmup_epochs": 0,
    "repeats": 1}, "experiments": [{"workload": "iris_mlp", "grid": {"seed": [)" +
                             seeds + "]}}]}");
}

std::string run_in(const ScratchDir& dir, const std::string& grid, const std::string& out) {
  return "run " + grid + " --out " + out + " --data-dir " + dir.file("no-data");
}

TEST(Hostile, ALinkPlantedAsTheLockIsRefusedAndItsTargetKept) {
  ScratchDir dir;
  const std::string victim = dir.write("victim", "precious\n");
  fs::create_directories(dir.file("out"));
  fs::create_symlink(victim, dir.file("out/.crossover.lock"));
  const Outcome o = crossover(dir, run_in(dir, seeds_grid(dir, "g.json", "1"), dir.file("out")));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("/out/.crossover.lock is a symbolic link; crossover never writes through "
                       "a link"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(slurp(victim), "precious\n");
}

TEST(Hostile, APredictionProfileIsCheckedBeforeAnythingRunsADryRunIncluded) {
  ScratchDir dir;
  const std::string grid = seeds_grid(dir, "g.json", "1");
  dir.write("cpu-only.json",
            R"({"name": "box", "cpu": {"one_thread": {"dispatch_seconds": 1e-6, "gemm": [{"n": 8,
            "flops_per_second": 1e9}], "memory_bytes_per_second": 1e10}, "all_threads":
            {"dispatch_seconds": 1e-6, "gemm": [{"n": 8, "flops_per_second": 1e9}],
            "memory_bytes_per_second": 1e10}}})");
  mkfifo(dir.file("fifo.json").c_str(), 0600);
  for (const auto& [profile, message] : std::vector<std::pair<std::string, std::string>>{
           {"cpu-only.json", "has no GPU"},
           {"fifo.json", "a FIFO"},
           {"missing.json", "cannot read a machine profile"}}) {
    for (const std::string& how : {std::string(" --dry-run"), " --out " + dir.file("out")}) {
      const Outcome o =
          crossover(dir, "run " + grid + " --predict cuda=" + dir.file(profile) + how);
      EXPECT_EQ(o.code, 2) << profile << how << "\n" << o.err;
      EXPECT_NE(o.err.find(message), std::string::npos) << profile << how << "\n" << o.err;
      EXPECT_FALSE(fs::exists(dir.file("out"))) << profile << how;
    }
  }
  const Outcome bad = crossover(dir, "run " + grid + " --profile " + dir.file("fifo.json"));
  EXPECT_EQ(bad.code, 2) << bad.err;
}

TEST(Hostile, ReportFilesNeverWriteThroughALink) {
  ScratchDir dir;
  const std::string victim = dir.write("victim", "precious\n");
  const std::string out = dir.file("out");
  ASSERT_EQ(crossover(dir, run_in(dir, seeds_grid(dir, "g.json", "1"), out)).code, 0);
  for (const char* file : {"report.md", "report.html", "summary.json", "results.csv"}) {
    fs::remove(out + "/" + file);
    fs::create_symlink(victim, out + "/" + file);
    const Outcome o = crossover(dir, "report " + out);
    EXPECT_EQ(o.code, 1) << file;
    EXPECT_NE(o.err.find(out + "/" + file + " is a symbolic link -> " + victim +
                         "; crossover never writes through a link"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(slurp(victim), "precious\n") << file;
    fs::remove(out + "/" + file);
  }
  // A new run whose --out holds only a planted report link measures, keeps its results, and
  // fails on the link alone.
  const std::string fresh = dir.file("fresh");
  fs::create_directories(fresh);
  fs::create_symlink(victim, fresh + "/report.md");
  const Outcome o = crossover(dir, run_in(dir, seeds_grid(dir, "g.json", "1"), fresh));
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(read_results(fresh + "/results.jsonl").size(), 1u);
  EXPECT_EQ(slurp(victim), "precious\n");
}

TEST(Hostile, AResumeKilledByAFileSizeLimitLeavesTheResultsWhole) {
  ScratchDir dir;
  const std::string grid = seeds_grid(dir, "g.json", "1, 2, 3, 4, 5, 6");
  const std::string out = dir.file("out");
  ASSERT_EQ(crossover(dir, run_in(dir, grid, out)).code, 0);
  const std::string before = slurp(out + "/results.jsonl");
  ASSERT_GT(before.size(), 4096u);
  // ulimit -f counts KiB: resuming must write results.jsonl anew, which the limit stops midway.
  const std::string script = "ulimit -f 4; " + std::string(CROSSOVER_BINARY) + " run " + grid +
                             " --resume " + out + " --data-dir " + dir.file("no-data") + " 2>" +
                             dir.file("stderr") + "; echo $? >" + dir.file("code");
  ASSERT_EQ(std::system(("bash -c '" + script + "'").c_str()), 0);
  EXPECT_EQ(slurp(dir.file("code")), "2\n") << slurp(dir.file("stderr"));
  EXPECT_NE(slurp(dir.file("stderr")).find("results.jsonl: cannot write the file (File too large)"),
            std::string::npos)
      << slurp(dir.file("stderr"));
  EXPECT_EQ(slurp(out + "/results.jsonl"), before);
  // No temporary file is left beside it.
  for (const auto& entry : fs::directory_iterator(out))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
}

TEST(Hostile, ResumeRefusesAGridThatWouldDropResultsAndNamesThem) {
  ScratchDir dir;
  const std::string out = dir.file("out");
  ASSERT_EQ(crossover(dir, run_in(dir, seeds_grid(dir, "six.json", "1, 2, 3, 4, 5, 6"), out)).code,
            0);
  const std::string before = slurp(out + "/results.jsonl");
  const Outcome o = crossover(dir, "run " + seeds_grid(dir, "two.json", "1, 2") + " --resume " +
                                       out + " --data-dir " + dir.file("no-data"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("does not have 4 of the 6 cell(s) in " + out +
                       "/results.jsonl, and resuming would drop them: cell 2 (iris_mlp"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("resume with the grid the run saved (" + out + "/grid.json)"),
            std::string::npos);
  EXPECT_EQ(slurp(out + "/results.jsonl"), before);
  // The grid the run saved resumes it.
  EXPECT_EQ(crossover(dir, "run " + out + "/grid.json --resume " + out + " --data-dir " +
                               dir.file("no-data"))
                .code,
            0);
}

TEST(Hostile, ComparisonsAndReportsNeverWriteOverARunsFiles) {
  ScratchDir dir;
  const std::string a = results_dir(dir, "a", 0.01);
  const std::string b = results_dir(dir, "b", 0.01);
  const std::string results = slurp(a + "/results.jsonl");
  const std::string env = slurp(a + "/env.json");
  for (const std::string& target : {a + "/results.jsonl", a + "/env.json", b + "/report.md"}) {
    for (const char* option : {"--markdown", "--json"}) {
      const Outcome o = crossover(dir, "compare " + a + " " + b + " " + option + " " + target);
      EXPECT_EQ(o.code, 2) << option << " " << target;
      EXPECT_NE(o.err.find(target + " is a file of the run in "), std::string::npos) << o.err;
    }
  }
  // A baseline given as a file under another name is not overwritten either.
  fs::copy_file(a + "/results.jsonl", dir.file("baseline.jsonl"));
  Outcome o = crossover(dir, "compare " + dir.file("baseline.jsonl") + " " + b + " --json " +
                                 dir.file("baseline.jsonl"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("is the results file being compared"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(dir.file("baseline.jsonl")), results);
  EXPECT_EQ(slurp(a + "/results.jsonl"), results);
  EXPECT_EQ(slurp(a + "/env.json"), env);

  // report --out into another run's folder, or onto a file, is refused (exit 2).
  o = crossover(dir, "report " + a + " --out " + b);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--out " + b + ": holds the results of another run"), std::string::npos)
      << o.err;
  EXPECT_FALSE(fs::exists(b + "/report.md"));
  o = crossover(dir, "report " + a + " --out " + a + "/env.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("is a file, not a folder"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(a + "/env.json"), env);
  // Its own folder is fine; its env.json has only the BLAS, and the summary says what is there
  // (a record missing keys was undefined behaviour, an assertion under the sanitizers).
  o = crossover(dir, "report " + a + " --out " + a);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(slurp(a + "/report.md").find("BLAS: openblas"), std::string::npos);
}

TEST(Hostile, WithStandardOutputAndErrorClosedNoLogLineLandsInTheResults) {
  ScratchDir dir;
  const std::string out = dir.file("out");
  const std::string command = std::string(CROSSOVER_BINARY) + " " +
                              run_in(dir, seeds_grid(dir, "g.json", "1, 2"), out) +
                              " >&- 2>&-; echo $? >" + dir.file("code");
  ASSERT_EQ(std::system(("bash -c '" + command + "'").c_str()), 0);
  EXPECT_EQ(slurp(dir.file("code")), "0\n");
  const std::string text = slurp(out + "/results.jsonl");
  EXPECT_EQ(text.find("info"), std::string::npos) << text.substr(0, 300);
  EXPECT_EQ(read_results(out + "/results.jsonl").size(), 2u);
  EXPECT_EQ(slurp(out + "/results.csv").find("info"), std::string::npos);
}

TEST(Hostile, TheGridARunSavedRepeatsItInPlace) {
  ScratchDir dir;
  const std::string out = dir.file("out");
  const std::string grid = seeds_grid(dir, "g.json", "1, 2");
  ASSERT_EQ(crossover(dir, run_in(dir, grid, out)).code, 0);
  const std::string saved = slurp(out + "/grid.json");
  ASSERT_EQ(saved, slurp(grid));
  // --resume with the saved grid: nothing to run, nothing lost.
  Outcome o = crossover(
      dir, "run " + out + "/grid.json --resume " + out + " --data-dir " + dir.file("no-data"));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("2 cell(s) already ok, 0 to run"), std::string::npos) << o.err;
  EXPECT_EQ(read_results(out + "/results.jsonl").size(), 2u);
  // --overwrite with the saved grid: the earlier run moves aside, the grid is read first.
  o = crossover(dir, run_in(dir, out + "/grid.json", out) + " --overwrite");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(slurp(out + "/grid.json"), saved);
  EXPECT_EQ(read_results(out + "/results.jsonl").size(), 2u);
  std::size_t previous = 0;
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.path().filename().string().rfind("previous-", 0) != 0) continue;
    ++previous;
    EXPECT_EQ(slurp(entry.path().string() + "/grid.json"), saved);
    EXPECT_EQ(read_results(entry.path().string() + "/results.jsonl").size(), 2u);
  }
  EXPECT_EQ(previous, 1u);
}

TEST(Hostile, AFifoOrALinkToADeviceAsDataFailsItsCellInsteadOfHanging) {
  ScratchDir dir;
  fs::create_directories(dir.file("data"));
  ASSERT_EQ(mkfifo(dir.file("data/iris.csv").c_str(), 0644), 0);
  fs::create_symlink("/dev/zero", dir.file("data/boston_house_prices.csv"));
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"epochs": 1, "warmup_epochs": 0, "repeats": 1},
    "experiments": [{"workload": "iris_mlp"}, {"workload": "boston_mlp"}]})");
  // A hang here would be this test's failure: timeout ends it with 124.
  const Outcome o = crossover(
      dir, "run " + grid + " --out " + dir.file("out") + " --data-dir " + dir.file("data"),
      "timeout 120");
  EXPECT_EQ(o.code, 1) << o.err;
  const auto results = read_results(dir.file("out/results.jsonl"));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, CellStatus::kFailed);
  EXPECT_NE(results[0].reason.find("a FIFO (named pipe), not a regular file"), std::string::npos)
      << results[0].reason;
  EXPECT_EQ(results[1].status, CellStatus::kFailed);
  EXPECT_NE(results[1].reason.find("a character device, not a regular file"), std::string::npos)
      << results[1].reason;
  EXPECT_NE(o.err.find("data set iris: "), std::string::npos) << o.err;
}

TEST(Hostile, ImpossibleTimesInAResultsFileAreFailedCellsNotAnEndlessChart) {
  ScratchDir dir;
  const std::string out = dir.file("out");
  fs::create_directories(out);
  std::string lines;
  const double medians[] = {0.0, -1.0, 0.02, 0.01};
  for (std::size_t i = 0; i < 4; ++i) {
    Result r;
    r.cell.index = i;
    r.cell.workload = "iris_mlp";
    r.cell.dataset = "iris";
    r.cell.device = Device::cpu();
    r.cell.gpus = 0;
    r.cell.batch_size = i < 2 ? 16 : 32;
    r.cell.seed = static_cast<std::int64_t>(i);
    r.train_rows = 100;
    r.epoch_seconds = medians[i];
    r.epoch_seconds_samples = {std::abs(medians[i]) + 0.01};
    lines += result_to_json(r).dump() + "\n";
  }
  dir.write("out/results.jsonl", lines);
  const Outcome o = crossover(dir, "report " + out, "timeout 120");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("results.jsonl:1: cell 0 is marked ok, but epoch_seconds is 0, not a "
                       "positive time; it is taken as failed"),
            std::string::npos)
      << o.err;
  const auto summary = nlohmann::json::parse(slurp(out + "/summary.json"));
  EXPECT_EQ(summary["cells"]["ok"], 2);
  ASSERT_EQ(summary["cells"]["failed"].size(), 2u);
  EXPECT_EQ(summary["cells"]["failed"][1]["status"], "failed");
  EXPECT_NE(summary["cells"]["failed"][1]["reason"].get<std::string>().find(
                "not a measurement: epoch_seconds is -1"),
            std::string::npos);
}

TEST(Hostile, HugeGridsAreRefusedQuicklyAndWithAMessage) {
  ScratchDir dir;
  // One axis of a million values: the duplicate check must be linear.
  std::string values;
  for (int i = 1; i <= 1000000; ++i) values += (i > 1 ? "," : "") + std::to_string(i);
  dir.write("long.json", R"({"name": "long", "experiments": [{"workload": "iris_mlp",
    "grid": {"dataset_size": [)" +
                             values + "]}}]}");
  Outcome o = crossover(dir, "validate " + dir.file("long.json"), "timeout 100");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("expands to more than 100000 cells"), std::string::npos) << o.err;
  // A hundred experiments of 100,000 cells each: bounded in all, not one by one.
  std::string sizes;
  for (int i = 1; i <= 1000; ++i) sizes += (i > 1 ? "," : "") + std::to_string(i);
  std::string experiments;
  for (int e = 0; e < 100; ++e) {
    experiments += std::string(e > 0 ? "," : "") +
                   R"({"workload": "iris_mlp", "grid": {"seed": [1,2,3,4,5,6,7,8,9,10], )" +
                   R"("batch_size": [1,2,3,4,5,6,7,8,9,10], "dataset_size": [)" + sizes + "]}}";
  }
  dir.write("many.json", R"({"name": "many", "experiments": [)" + experiments + "]}");
  o = crossover(dir, "validate " + dir.file("many.json"), "timeout 100");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("experiments[1].grid: takes the grid past 100000 cells in all (the "
                       "experiments before it have 100000)"),
            std::string::npos)
      << o.err;
}

TEST(Hostile, SmallSlipsGetClearAnswers) {
  ScratchDir dir;
  const std::string grid = seeds_grid(dir, "g.json", "1");
  // An empty --out is a slip, not the default.
  Outcome o = crossover(dir, "run " + grid + " --out ''");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--out: an empty path; give one, or leave the option out for its default"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(crossover(dir, "run " + grid + " --resume ''").code, 2);
  // A name too long for a folder is found by validate, not by run.
  dir.write("long-name.json", R"({"name": ")" + std::string(240, 'n') +
                                  R"(", "experiments": [{"workload": "iris_mlp"}]})");
  o = crossover(dir, "validate " + dir.file("long-name.json"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("got a name of 240 characters, expected at most 200"), std::string::npos)
      << o.err;
  // report --out onto a file is bad input.
  const std::string run = results_dir(dir, "a", 0.01);
  o = crossover(dir, "report " + run + " --out " + grid);
  EXPECT_EQ(o.code, 2) << o.err;
  // A filter that is no regular expression runs nothing.
  o = crossover(dir, "bench --filter '(' --out " + dir.file("bench"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--filter '(': not a regular expression"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir.file("bench/bench.json")));
  // A crossover outside a build folder, without the benchmarks beside it, says how to build them;
  // in a build folder it would build them first.
  fs::create_directories(dir.file("alone"));
  fs::copy_file(CROSSOVER_BINARY, dir.file("alone/crossover"));
  o = testing::shell(dir, dir.file("alone/crossover") + " bench --out " + dir.file("bench"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("crossover_bench not found beside " + dir.file("alone") +
                       "; build it (scripts/build.sh crossover_bench)"),
            std::string::npos)
      << o.err;
  // What a command prints, lost to a full disk, is a failure.
  const std::string full = std::string(CROSSOVER_BINARY) + " validate " + grid + " >/dev/full 2>" +
                           dir.file("err") + "; echo $? >" + dir.file("code");
  ASSERT_EQ(std::system(("bash -c '" + full + "'").c_str()), 0);
  EXPECT_EQ(slurp(dir.file("code")), "1\n");
  EXPECT_NE(
      slurp(dir.file("err")).find("cannot write to standard output (No space left on device)"),
      std::string::npos)
      << slurp(dir.file("err"));
  // An unknown command is named, with a guess.
  o = crossover(dir, "reprot " + run);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("unknown command \"reprot\" (did you mean \"report\"?)"), std::string::npos)
      << o.err;
  // A command or an option with an escape sequence in it is named as plain text: the terminal
  // gets no command from a command line.
  o = crossover(dir, "\"$(printf 're\\033[31mprot')\" " + run);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err.find('\x1b'), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("unknown command \"re[31mprot\""), std::string::npos) << o.err;
  o = crossover(dir, "validate " + grid + " \"$(printf -- '--x\\033[2J')\"");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err.find('\x1b'), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("--x[2J"), std::string::npos) << o.err;
}

TEST(Hostile, TwoRunsStartedTogetherGetTheirOwnDefaultFolders) {
  ScratchDir dir;
  const std::string grid = seeds_grid(dir, "g.json", "1");
  // Both start within the same second, in the same folder, with the default --out.
  const std::string run = std::string(CROSSOVER_BINARY) + " run " + grid + " --data-dir " +
                          dir.file("no-data") + " --quiet >/dev/null";
  const std::string script = "cd " + dir.path() + " || exit 1; (" + run +
                             " 2>a; echo $? >code-a) & (" + run + " 2>b; echo $? >code-b) & wait";
  ASSERT_EQ(std::system(("bash -c '" + script + "'").c_str()), 0);
  EXPECT_EQ(slurp(dir.file("code-a")), "0\n") << slurp(dir.file("a"));
  EXPECT_EQ(slurp(dir.file("code-b")), "0\n") << slurp(dir.file("b"));
  std::size_t runs = 0;
  for (const auto& entry : fs::directory_iterator(dir.file("runs")))
    runs += holds_run(entry.path().string()) ? 1 : 0;
  EXPECT_EQ(runs, 2u);
  // The name: the first free of NAME-TIME, NAME-TIME-2, ...
  const std::string base = dir.file("runs/g-20261123-120000");
  const std::string first = create_unique_directory(base);
  const std::string second = create_unique_directory(base);
  EXPECT_EQ(first, base);
  EXPECT_EQ(second, base + "-2");
  EXPECT_TRUE(fs::is_directory(second));
}

TEST(Hostile, AResumedRunKeepsTheKeptCellsReferenceTimings) {
  ScratchDir dir;
  const std::string out = dir.file("out");
  const std::string grid = seeds_grid(dir, "g.json", "1, 2, 3");
  ASSERT_EQ(crossover(dir, run_in(dir, grid, out), testing::kMeasureMachine).code, 0);
  const auto before = nlohmann::json::parse(slurp(out + "/env.json"));
  ASSERT_EQ(before["reference"]["cells"].size(), 3u);
  ASSERT_EQ(
      crossover(dir, "run " + grid + " --resume " + out + " --data-dir " + dir.file("no-data"),
                testing::kMeasureMachine)
          .code,
      0);
  const auto after = nlohmann::json::parse(slurp(out + "/env.json"));
  EXPECT_EQ(after["reference"]["cells"], before["reference"]["cells"]);
}

TEST(Hostile, ANewcomersWrongTurnsAreNamedWithTheWayOut) {
  ScratchDir dir;
  const std::string grid = seeds_grid(dir, "g.json", "1");
  // An option by another name: the one meant.
  Outcome o = crossover(dir, "run " + grid + " --outdir " + dir.file("x"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--outdir: crossover run has no such option; did you mean --out?"),
            std::string::npos)
      << o.err;
  // A folder of runs is no run: the runs in it are named. A grid is no run either.
  results_dir(dir, "runs/a", 0.01);
  results_dir(dir, "runs/b", 0.02);
  o = crossover(dir, "report " + dir.file("runs"));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find(dir.file("runs") +
                       " holds no results.jsonl: it is not a run's folder; the runs in it: a, b"),
            std::string::npos)
      << o.err;
  o = crossover(dir, "compare " + dir.file("runs") + " " + dir.file("runs/a"));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("the runs in it: a, b"), std::string::npos) << o.err;
  o = crossover(dir, "report " + grid);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find(grid + " is a grid, not a run's results: run it (crossover run " + grid),
            std::string::npos)
      << o.err;
  // The grid's words for a device, in --compare too.
  o = crossover(dir, "report " + dir.file("runs/a") + " --compare device=cpu:gpu");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("unknown device \"gpu\" (did you mean \"cuda\"?)"), std::string::npos)
      << o.err;
  // An unknown key: the nearest three, not all forty.
  const std::string typo = dir.write("typo.json", R"({"name": "t", "experiments": [
    {"workload": "iris_mlp", "settings": {"epoch": 2}}]})");
  o = crossover(dir, "validate " + typo);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("(did you mean \"epochs\"?); the nearest known keys: epochs, "),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("(crossover keys lists all "), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("output_device"), std::string::npos) << o.err;
  // A missing data folder is named with the way out, and only for a grid that reads data files.
  o = crossover(dir, run_in(dir, grid, dir.file("iris")));
  EXPECT_NE(
      o.err.find("synthetic data will stand in for iris (no data folder " + dir.file("no-data") +
                 ": scripts/fetch-data.sh). Give --data-dir (or "
                 "CROSSOVER_DATA_DIR) the folder"),
      std::string::npos)
      << o.err;
  // CROSSOVER_DATA_DIR stands for --data-dir where it is not given: list reads it.
  fs::create_directories(dir.file("env-data"));
  o = crossover(dir, "list", std::string("CROSSOVER_DATA_DIR=") + dir.file("env-data"));
  EXPECT_NE(o.out.find(dir.file("env-data")), std::string::npos) << o.out;
  // A data folder that is a link loop reads as missing data sets, not as an abort.
  fs::create_symlink(dir.file("loop"), dir.file("loop"));
  o = crossover(dir, "list", std::string("CROSSOVER_DATA_DIR=") + dir.file("loop"));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(
      std::regex_search(o.out, std::regex("\niris .* missing: synthetic data will be used")))
      << o.out;
  const std::string standin = dir.write("standin.json", R"({"name": "s",
    "defaults": {"repeats": 1}, "experiments": [{"workload": "standin_mlp"}]})");
  o = crossover(dir, run_in(dir, standin, dir.file("standin")),
                std::string(kTestWorkloadsVariable) + "=1");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err.find("data directory"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace crossover
