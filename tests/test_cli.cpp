// The built `crossover` binary, end to end on tiny grids: exit codes, files, stdout and stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "runner/blas.hpp"
#include "runner/results.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::slurp;

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

Outcome crossover(const ScratchDir& dir, const std::string& args, const std::string& env = "") {
  const std::string command = env + " " + std::string(CROSSOVER_BINARY) + " " + args + " >" +
                              dir.file("stdout") + " 2>" + dir.file("stderr") + " </dev/null";
  const int status = std::system(command.c_str());
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = slurp(dir.file("stdout"));
  o.err = slurp(dir.file("stderr"));
  return o;
}

const char* kTinyGrid = R"({
  "name": "tiny",
  "defaults": {"epochs": 3, "warmup_epochs": 1, "repeats": 2},
  "experiments": [
    {"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"], "dataset_size": [50]}},
    {"workload": "boston_mlp", "settings": {"batch_size": 64}, "grid": {"device": ["cpu"]}}
  ]
})";

std::size_t lines_in(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

TEST(Cli, VersionHelpAndUsageErrors) {
  ScratchDir dir;
  Outcome o = crossover(dir, "--version");
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("crossover " CROSSOVER_VERSION), std::string::npos);
  o = crossover(dir, "run --help");
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("--dry-run"), std::string::npos);
  EXPECT_NE(o.out.find("--data-dir"), std::string::npos);
  EXPECT_EQ(crossover(dir, "").code, 2);
  EXPECT_EQ(crossover(dir, "frobnicate").code, 2);
  EXPECT_EQ(crossover(dir, "run").code, 2);  // the grid is required
}

TEST(Cli, RunWritesEveryFileAndSkipsCudaWithAReason) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("tiny.json", kTinyGrid);
  const std::string out = dir.file("out");
  const Outcome o =
      crossover(dir, "run " + grid + " --out " + out + " --data-dir " + testing::data_dir());
  ASSERT_EQ(o.code, 0) << o.err;

  for (const char* name :
       {"results.jsonl", "results.csv", "report.md", "env.json", "grid.json", "gbench.json"}) {
    EXPECT_TRUE(fs::exists(out + "/" + name)) << name;
  }
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(lines_in(slurp(out + "/results.csv")), 4u);  // header and three rows

  const Result& cpu = results[0];
  EXPECT_EQ(cpu.status, "ok");
  EXPECT_EQ(cpu.data_source, "real");
  EXPECT_EQ(cpu.train_rows, 50);
  EXPECT_EQ(cpu.test_rows, 38);
  EXPECT_EQ(cpu.epoch_samples, 6u);  // 3 epochs x 2 repeats
  EXPECT_GT(cpu.epoch_seconds, 0.0);
  EXPECT_LE(cpu.epoch_seconds_p25, cpu.epoch_seconds);
  EXPECT_GE(cpu.epoch_seconds_p75, cpu.epoch_seconds);
  EXPECT_EQ(cpu.train_seconds_samples.size(), 2u);
  EXPECT_EQ(cpu.metric, "accuracy");

  const Result& cuda = results[1];
  if (cuda.status == "skipped") {  // this machine has no usable CUDA
    EXPECT_FALSE(cuda.reason.empty());
    EXPECT_NE(o.out.find("skipped"), std::string::npos);
    EXPECT_NE(slurp(out + "/report.md").find("## Cells that did not run"), std::string::npos);
    // CUDA cells isolate by default, CPU cells do not; still the skipped CUDA cell shares the CPU
    // cell's row of the device table, and no table grows an isolate column.
    EXPECT_EQ(o.out.find("isolate"), std::string::npos) << o.out;
    const auto skipped_at = o.out.find("skipped");
    ASSERT_NE(skipped_at, std::string::npos) << o.out;
    const auto line_start = o.out.rfind('\n', skipped_at) + 1;
    const std::string row = o.out.substr(line_start, o.out.find('\n', skipped_at) - line_start);
    EXPECT_NE(row.find(" ± "), std::string::npos) << "the CPU's time is on the same row: " << row;
  }
  const Result& boston = results[2];
  EXPECT_EQ(boston.status, "ok");
  EXPECT_EQ(boston.steps_per_epoch, (379 + 63) / 64);
  EXPECT_EQ(boston.metric, "rmse");
  EXPECT_EQ(boston.step_seconds_samples.size(), boston.step_samples);

  // gbench.json: the two cells that ran, one entry per timed epoch plus four aggregates each.
  const auto gbench = nlohmann::json::parse(slurp(out + "/gbench.json"));
  EXPECT_EQ(gbench["benchmarks"].size(), cpu.epoch_samples + boston.epoch_samples + 8);
  EXPECT_EQ(gbench["benchmarks"][0]["name"], "iris_mlp/device:cpu");
  EXPECT_DOUBLE_EQ(gbench["benchmarks"][0]["real_time"].get<double>(),
                   cpu.epoch_seconds_samples[0] * 1e3);

  // The comparison goes to stdout, progress and diagnostics to stderr.
  EXPECT_NE(o.out.find("iris_mlp"), std::string::npos);
  EXPECT_NE(o.out.find("report.md"), std::string::npos);
  EXPECT_NE(o.err.find("[1/3]"), std::string::npos);
  EXPECT_EQ(o.out.find("[1/3]"), std::string::npos);
}

TEST(Cli, AGridWithATypoIsRejectedWithItsJsonPathAndNothingRuns) {
  ScratchDir dir;
  const std::string grid = dir.write("typo.json", R"({"name": "t", "experiments": [
    {"workload": "iris_mlp", "grid": {"device": ["cpu"], "batch_sizes": [16]}},
    {"workload": "iris_mlp", "grid": {"batch_size": [16, 32, "12x"]}}]})");
  for (const std::string& command :
       {"validate " + grid, "run " + grid + " --out " + dir.file("out")}) {
    const Outcome o = crossover(dir, command);
    EXPECT_EQ(o.code, 2) << command;
    EXPECT_NE(o.err.find("experiments[0].grid.batch_sizes: unknown key \"batch_sizes\" (did you "
                         "mean \"batch_size\"?)"),
              std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("experiments[1].grid.batch_size[2]: got \"12x\""), std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("2 problem(s)"), std::string::npos) << o.err;
  }
  EXPECT_FALSE(fs::exists(dir.file("out")));
  const Outcome malformed =
      crossover(dir, "validate " + dir.write("bad.json", "{\"name\": \"t\",\n\"experiments\": [}"));
  EXPECT_EQ(malformed.code, 2);
  EXPECT_NE(malformed.err.find("malformed JSON at line 2"), std::string::npos) << malformed.err;
  EXPECT_EQ(crossover(dir, "validate " + dir.file("absent.json")).code, 2);
}

TEST(Cli, ValidateAndDryRunRunNothing) {
  ScratchDir dir;
  const std::string grid = dir.write("tiny.json", kTinyGrid);
  Outcome o = crossover(dir, "validate " + grid);
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("valid grid \"tiny\": 2 experiment(s), 3 cells"), std::string::npos)
      << o.out;
  o = crossover(dir, "run " + grid + " --dry-run --out " + dir.file("out"));
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("iris_mlp cpu batch=full size=50"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("3 cells:"), std::string::npos) << o.out;
  EXPECT_FALSE(fs::exists(dir.file("out")));
}

TEST(Cli, MissingDataMeansSyntheticDataSaidEverywhere) {
  ScratchDir dir;
  const std::string grid =
      dir.write("tiny.json", R"({"name": "s", "defaults": {"epochs": 2, "repeats": 1},
    "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu"]}}]})");
  fs::create_directories(dir.file("empty"));
  const Outcome o = crossover(
      dir, "run " + grid + " --out " + dir.file("out") + " --data-dir " + dir.file("empty"));
  ASSERT_EQ(o.code, 0) << o.err;
  const auto results = read_results(dir.file("out/results.jsonl"));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].data_source, "synthetic");
  EXPECT_EQ(results[0].train_rows, 112);
  EXPECT_NE(slurp(dir.file("out/report.md")).find("**Synthetic data:** iris_mlp"),
            std::string::npos);
  EXPECT_NE(o.err.find("synthetic data"), std::string::npos);
}

TEST(Cli, AFailingCellIsRecordedAndTheSweepGoesOnWithExitCodeOne) {
  ScratchDir dir;
  fs::create_directories(dir.file("data"));
  dir.write("data/iris.csv", "150,4,setosa,versicolor,virginica\n5.1,3.5,1.4\n");  // broken
  const std::string grid =
      dir.write("g.json", R"({"name": "f", "defaults": {"epochs": 2, "repeats": 1},
    "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu"]}},
                    {"workload": "boston_mlp", "grid": {"device": ["cpu"]}}]})");
  const Outcome o = crossover(
      dir, "run " + grid + " --out " + dir.file("out") + " --data-dir " + dir.file("data"));
  EXPECT_EQ(o.code, 1);
  const auto results = read_results(dir.file("out/results.jsonl"));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, "failed");
  EXPECT_NE(results[0].reason.find("iris.csv:2: expected 5 values"), std::string::npos)
      << results[0].reason;
  EXPECT_EQ(results[1].status, "ok");
  EXPECT_TRUE(fs::exists(dir.file("out/report.md")));
}

TEST(Cli, AnUnwritableOutputDirectoryIsBadInputBeforeAnythingRuns) {
  ScratchDir dir;
  const std::string grid = dir.write("tiny.json", kTinyGrid);
  dir.write("file", "x");
  const Outcome o = crossover(dir, "run " + grid + " --out " + dir.file("file") + "/sub");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("cannot write results"), std::string::npos) << o.err;
}

// A small file system of the test's own: a tmpfs in a private mount namespace (root only).
bool can_mount_tmpfs() {
  return std::system("unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs /mnt' 2>/dev/null") == 0;
}

TEST(Cli, AFileSystemTooSmallForTheRunIsAnErrorBeforeAnythingRuns) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "needs root to mount a tmpfs";
  ScratchDir dir;
  const std::string grid = dir.write("tiny.json", kTinyGrid);
  const std::string script = "mount -t tmpfs -o size=512k tmpfs /mnt && " +
                             std::string(CROSSOVER_BINARY) + " run " + grid + " --out /mnt/out";
  const int status =
      std::system(("unshare -m sh -c '" + script + "' 2>" + dir.file("stderr")).c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string err = slurp(dir.file("stderr"));
  EXPECT_NE(err.find("/mnt/out: only 5"), std::string::npos) << err;  // 512 KiB less a little
  EXPECT_NE(err.find("KiB free on its file system; the results and reports of 3 cells need about"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("running"), std::string::npos) << err;
}

TEST(Cli, ADiskThatFillsUpMidSweepStopsItAndKeepsTheResultsWritten) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "needs root to mount a tmpfs";
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("long.json", R"({
    "name": "long", "defaults": {"epochs": 200, "warmup_epochs": 0, "repeats": 2},
    "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2, 3, 4, 5, 6]}}]})");
  // Once the first result is on disk, a filler takes every free byte of the file system; what
  // was written stays readable and is copied out before the namespace (and its tmpfs) ends.
  const std::string script =
      "mount -t tmpfs -o size=4m tmpfs /mnt\n" + std::string(CROSSOVER_BINARY) + " run " + grid +
      " --out /mnt/out --data-dir " + testing::data_dir() + " 2>" + dir.file("stderr") +
      " & pid=$!\n"
      "for i in $(seq 600); do [ -s /mnt/out/results.jsonl ] && break; sleep 0.05; done\n"
      "dd if=/dev/zero of=/mnt/filler bs=64k 2>/dev/null\n"
      "wait $pid; echo $? >" +
      dir.file("code") + "\ncp /mnt/out/results.jsonl " + dir.file("results.jsonl") + "\n";
  dir.write("fill.sh", script);
  ASSERT_EQ(std::system(("unshare -m bash " + dir.file("fill.sh")).c_str()), 0);
  const std::string err = slurp(dir.file("stderr"));
  EXPECT_EQ(slurp(dir.file("code")), "1\n") << err;
  EXPECT_NE(err.find("cannot write a result (No space left on device); the sweep stops after "
                     "this cell"),
            std::string::npos)
      << err;
  const auto results = read_results(dir.file("results.jsonl"));  // a cut last line is dropped
  ASSERT_GE(results.size(), 1u);
  ASSERT_LT(results.size(), 6u) << err;
  for (const auto& r : results) EXPECT_EQ(r.status, "ok");
  // The cells after the failed write were not measured for nothing, and it is said once.
  EXPECT_NE(err.find("not run: the sweep stopped before this cell: its results could not be "
                     "written",
                     err.find("[6/6]")),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("cannot write a result", err.find("cannot write a result") + 1),
            std::string::npos)
      << err;
}

TEST(Cli, EnvNamesTheBlasLibraryInUse) {
  ScratchDir dir;
  const Outcome o = crossover(dir, "env --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto env = nlohmann::json::parse(o.out);
  const std::string kind = env.at("blas").at("kind");
  const std::string library = env.at("blas").at("library");
  EXPECT_NE(kind, "");
  EXPECT_NE(kind, "unknown");
  if (!library.empty()) {
    EXPECT_EQ(classify_blas_path(library) == "reference", kind == "reference") << library;
  }
  EXPECT_EQ(env.at("blas").at("reference").get<bool>(), kind == "reference");
  EXPECT_GT(env.at("blas").at("matmul_1024_gflops").get<double>(), 0.0);
  EXPECT_TRUE(env.at("cuda").contains("compiled"));
  const Outcome text = crossover(dir, "env");
  EXPECT_NE(text.out.find("BLAS: " + kind), std::string::npos) << text.out;
}

TEST(Cli, TheReferenceBlasIsDetectedByWhatLibTorchCallsAndWarnedAbout) {
  // Debian's reference BLAS, put first on the library path: LibTorch's sgemm_ calls reach it even
  // though liblapack.so.3 still loads OpenBLAS, so "which libraries are loaded" is not the test.
  const std::string reference = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";
  if (!fs::exists(reference)) GTEST_SKIP() << "no reference BLAS at " << reference;
  ScratchDir dir;
  fs::create_symlink(reference, dir.file("libblas.so.3"));
  const Outcome o = crossover(dir, "env --json", "LD_LIBRARY_PATH=" + dir.path());
  ASSERT_EQ(o.code, 0) << o.err;
  const auto env = nlohmann::json::parse(o.out);
  EXPECT_EQ(env.at("blas").at("kind"), "reference") << env.at("blas").dump();
  EXPECT_TRUE(env.at("blas").at("reference").get<bool>());
  EXPECT_NE(o.err.find("reference BLAS"), std::string::npos) << o.err;
}

TEST(Cli, BenchRunsTheCpuFamiliesAndWritesGoogleBenchmarkJson) {
  if (!CROSSOVER_HAVE_BENCH) GTEST_SKIP() << "built without benchmarks (the sanitizer build)";
  if (std::getenv("CROSSOVER_SKIP_BENCH") != nullptr)
    GTEST_SKIP() << "scripts/test.sh without --full builds no benchmarks";
  ScratchDir dir;
  const Outcome o = crossover(
      dir,
      "bench --filter "
      "'SmallestOp|ItemEveryStep|Inference|CreateOnDevice|LinearStep/on_gpu:0/batch:(1|256)/' "
      "--min-time 0.01 --out " +
          dir.file("bench"));
  ASSERT_EQ(o.code, 0) << o.err;
  const auto json = nlohmann::json::parse(slurp(dir.file("bench/bench.json")));
  EXPECT_TRUE(json.contains("context"));
  std::size_t cpu_runs = 0;
  for (const auto& b : json.at("benchmarks")) {
    const std::string name = b.at("name");
    if (name.find("on_gpu:0") != std::string::npos) {
      ++cpu_runs;
      EXPECT_FALSE(b.contains("error_occurred") && b["error_occurred"].get<bool>()) << name;
      EXPECT_GT(b.at("real_time").get<double>(), 0.0) << name;
    }
  }
  EXPECT_GE(cpu_runs, 9u);  // every CPU family ran
}

TEST(Cli, ReportRegeneratesEveryFormatWithSkippedAndFailedCells) {
  ScratchDir dir;
  fs::create_directories(dir.file("data"));
  dir.write("data/boston_house_prices.csv", "506,13\nbroken\n");  // boston cells fail
  const std::string grid =
      dir.write("g.json", R"({"name": "r", "defaults": {"epochs": 3, "repeats": 2},
    "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"], "threads": [1, 2]}},
                    {"workload": "boston_mlp", "grid": {"device": ["cpu"]}}]})");
  const Outcome run = crossover(
      dir, "run " + grid + " --out " + dir.file("run") + " --data-dir " + dir.file("data"));
  EXPECT_EQ(run.code, 1);  // a cell failed, the others ran
  const Outcome o = crossover(
      dir, "report " + dir.file("run") + " --compare threads=1:2 --out " + dir.file("again"));
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* name : {"report.md", "report.html", "results.csv", "summary.json"}) {
    EXPECT_TRUE(fs::exists(dir.file("again/") + name)) << name;
  }
  const std::string md = slurp(dir.file("again/report.md"));
  EXPECT_NE(md.find("## Crossovers: threads=1 vs threads=2"), std::string::npos) << md;
  EXPECT_NE(md.find("## Cells that did not run"), std::string::npos);
  const auto summary = nlohmann::json::parse(slurp(dir.file("again/summary.json")));
  EXPECT_EQ(summary["pairs"].size(), 1u);  // iris on the CPU, one thread vs two
  EXPECT_EQ(summary["cells"]["total"], 5);
  ASSERT_EQ(summary["cells"]["not_run"].size(), 3u);  // two CUDA cells skipped, boston failed
  bool failed_with_reason = false;
  for (const auto& c : summary["cells"]["not_run"]) {
    failed_with_reason |= c["status"] == "failed" &&
                          c["reason"].get<std::string>().find("boston") != std::string::npos;
  }
  EXPECT_TRUE(failed_with_reason) << summary["cells"].dump();
  EXPECT_EQ(crossover(dir, "report " + dir.file("run") + " --compare threads").code, 2);
  EXPECT_EQ(crossover(dir, "report " + dir.file("absent")).code, 2);
}

// A results directory with one mnist_mlp cell whose epochs take `median` seconds (+-1 %), and an
// env.json with the given BLAS.
std::string results_dir(const ScratchDir& dir, const std::string& name, double median,
                        const std::string& blas = "openblas") {
  const std::string path = dir.file(name);
  fs::create_directories(path);
  Result r;
  r.cell.workload = "mnist_mlp";
  r.cell.dataset = "mnist";
  r.data_source = "real";
  r.train_rows = 1000;
  for (int i = 0; i < 30; ++i)
    r.epoch_seconds_samples.push_back(median * (1.0 + 0.001 * (i % 21 - 10)));
  r.epoch_seconds = median;
  std::ofstream(path + "/results.jsonl") << result_to_json(r).dump() << "\n";
  std::ofstream(path + "/env.json") << nlohmann::json{{"blas", {{"kind", blas}}}}.dump();
  return path;
}

TEST(Cli, CompareExitsOneOnARegressionAndWritesMarkdownAndJson) {
  ScratchDir dir;
  const std::string base = results_dir(dir, "base", 0.100);
  const std::string same = results_dir(dir, "same", 0.100);
  const std::string slow = results_dir(dir, "slow", 0.150, "reference");

  Outcome o = crossover(dir, "compare " + base + " " + same);
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("no regression in 1 matched cell(s)"), std::string::npos) << o.out;

  const std::string md = dir.file("compare.md"), json = dir.file("verdict.json");
  o = crossover(
      dir, "compare " + base + " " + slow + "/results.jsonl --markdown " + md + " --json " + json);
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("regression  mnist_mlp device=cpu"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("the runs differ in BLAS: openblas vs reference"), std::string::npos);
  EXPECT_NE(slurp(md).find("### Regressions (1)"), std::string::npos);
  const auto verdict = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(verdict["verdict"], "regression");
  EXPECT_NEAR(verdict["cells"][0]["change"].get<double>(), 0.5, 1e-9);

  // Improvements do not fail a job unless asked to; --fail-on none never fails.
  EXPECT_EQ(crossover(dir, "compare " + slow + " " + base).code, 0);
  EXPECT_EQ(crossover(dir, "compare " + slow + " " + base + " --fail-on any-change").code, 1);
  EXPECT_EQ(crossover(dir, "compare " + base + " " + slow + " --fail-on none").code, 0);
  // A 60 % threshold lets a 50 % slowdown pass.
  EXPECT_EQ(crossover(dir, "compare " + base + " " + slow + " --threshold 60").code, 0);
}

TEST(Cli, CompareRejectsBadInputWithExitTwo) {
  ScratchDir dir;
  const std::string base = results_dir(dir, "base", 0.1);
  Outcome o = crossover(dir, "compare " + base + " " + dir.file("missing"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("missing does not exist"), std::string::npos) << o.err;
  EXPECT_EQ(crossover(dir, "compare " + base + " " + base + " --metric latency").code, 2);
  o = crossover(dir, "compare " + base + " " + base + " --alpha 2");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--alpha must lie between 0 and 1"), std::string::npos) << o.err;
  // No cell in common: not two runs of one grid.
  const std::string other = dir.file("other");
  fs::create_directories(other);
  Result r;
  r.cell.workload = "iris_mlp";
  std::ofstream(other + "/results.jsonl") << result_to_json(r).dump() << "\n";
  o = crossover(dir, "compare " + base + " " + other);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("are they runs of the same grid?"), std::string::npos) << o.err;
  o = crossover(dir, "compare " + base + " " + base + " --rerun " + dir.file("no-grid.json"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("is not an executable crossover binary"), std::string::npos) << o.err;
}

TEST(Cli, CompareRerunAlternatesTheBinariesAndPoolsTheRounds) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("iris.json", R"({
    "name": "iris", "defaults": {"epochs": 5, "warmup_epochs": 1, "repeats": 2},
    "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu"]}}]})");
  const std::string out = dir.file("cmp");
  const Outcome o = crossover(
      dir, std::string("compare ") + CROSSOVER_BINARY + " " + CROSSOVER_BINARY + " --rerun " +
               grid + " --rounds 2 --out " + out + " --data-dir " + testing::data_dir());
  EXPECT_NE(o.code, 2) << o.err;
  for (const char* side : {"baseline", "candidate"}) {
    for (const char* round : {"round-1", "round-2"})
      EXPECT_TRUE(fs::exists(out + "/" + side + "/" + round + "/results.jsonl")) << side << round;
  }
  // Rounds alternate which side goes first: AB, then BA.
  const auto started = [&](const std::string& side, const std::string& round) {
    return fs::last_write_time(out + "/" + side + "/" + round + "/grid.json");
  };
  EXPECT_LT(started("baseline", "round-1"), started("candidate", "round-1"));
  EXPECT_LT(started("candidate", "round-2"), started("baseline", "round-2"));
  const auto verdict = nlohmann::json::parse(slurp(out + "/compare.json"));
  ASSERT_EQ(verdict["cells"].size(), 1u);
  EXPECT_EQ(verdict["cells"][0]["baseline_samples"], 20);  // 2 rounds x 2 repeats x 5 epochs
  EXPECT_EQ(verdict["cells"][0]["candidate_samples"], 20);
  EXPECT_EQ(verdict["cells"][0]["baseline_runs"], 2);
  EXPECT_TRUE(fs::exists(out + "/compare.md"));
  // The same comparison into the same --out again: refused before any round replaces a run.
  const std::string first = slurp(out + "/baseline/round-1/results.jsonl");
  const Outcome again = crossover(
      dir, std::string("compare ") + CROSSOVER_BINARY + " " + CROSSOVER_BINARY + " --rerun " +
               grid + " --rounds 2 --out " + out + " --data-dir " + testing::data_dir());
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find(out + " already holds the runs of a comparison"), std::string::npos)
      << again.err;
  EXPECT_EQ(slurp(out + "/baseline/round-1/results.jsonl"), first);
}

TEST(Cli, DdpWithGlooTrainsLikeOneProcessOnTheGlobalBatch) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  if (!testing::have_real_data("fashion-mnist/train-images-idx3-ubyte.gz")) GTEST_SKIP();
  ScratchDir dir;
  const std::string grid = dir.write("ddp.json", R"({
    "name": "ddp", "defaults": {"epochs": 3, "warmup_epochs": 1, "repeats": 2, "seed": 3},
    "experiments": [
      {"workload": "iris_mlp", "settings": {"batch_size": 20},
       "grid": {"parallel": ["none", "ddp"], "nproc": [1, 2]},
       "exclude": [{"parallel": "none", "nproc": 2}]},
      {"workload": "mnist_mlp",
       "settings": {"dataset": "fashion_mnist", "dataset_size": 300, "batch_size": 64},
       "grid": {"parallel": ["none", "ddp"], "nproc": [1, 2]},
       "exclude": [{"parallel": "none", "nproc": 2}]}]})");
  const std::string out = dir.file("out");
  const Outcome o = crossover(dir, "run " + grid + " --out " + out + " --data-dir " +
                                       testing::data_dir() + " --compare nproc=1:2");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 6u);
  for (std::size_t w = 0; w < 2; ++w) {
    const Result& single = results[3 * w];
    const Result& two = results[3 * w + 2];
    ASSERT_EQ(single.cell.parallel, "none");
    ASSERT_EQ(two.cell.nproc, 2);
    ASSERT_EQ(two.status, "ok") << two.reason;
    // The parameters are identical on both ranks after training...
    ASSERT_EQ(two.parameter_digests.size(), 2u);
    EXPECT_FALSE(two.parameter_digests[0].empty());
    EXPECT_EQ(two.parameter_digests[0], two.parameter_digests[1]);
    EXPECT_EQ(two.rank_epoch_seconds.size(), 2u);
    EXPECT_GT(two.allreduce_seconds, 0.0);
    // ...and the loss after the same steps is the one-process loss on the same global batches
    // (iris: 113 rows in batches of 20, the last one 13 rows, split 6 + 7).
    EXPECT_NEAR(two.train_loss, single.train_loss, 1e-5 * std::abs(single.train_loss))
        << single.cell.workload;
    // The all-reduce adds the two slices' gradients in another order than one process does, so the
    // parameters differ in their last bits, and a test image on the decision boundary may flip:
    // at most one of the test split's images (seen here: 5994 vs 5993 of 10,000 on one CPU).
    EXPECT_NEAR(two.metric_value, single.metric_value, 1.0 / two.test_rows + 1e-12);
  }
}

TEST(Cli, AKilledRankFailsItsCellAndTheSweepGoesOn) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  // The data directory's name is unique to this test, so the kill below hits only its ranks.
  const std::string data = dir.file("data-for-kill-test");
  fs::create_directory_symlink(testing::data_dir(), data);
  const std::string grid = dir.write("kill.json", R"({
    "name": "kill", "defaults": {"warmup_epochs": 0, "repeats": 1},
    "experiments": [
      {"workload": "iris_mlp", "settings": {"batch_size": 8, "epochs": 100000, "parallel": "ddp",
                                            "nproc": 2, "time_budget_seconds": 60}},
      {"workload": "boston_mlp", "settings": {"epochs": 3}}]})");
  const std::string out = dir.file("out");
  const std::string script =
      "(" + std::string(CROSSOVER_BINARY) + " run " + grid + " --out " + out + " --data-dir " +
      data + " >" + dir.file("stdout") + " 2>" + dir.file("stderr") + "; echo $? >" +
      dir.file("code") +
      ") & "
      "for i in $(seq 300); do pgrep -f 'rank-1[.]json --data-dir .*data-for-kill-test' "
      ">/dev/null && break; sleep 0.1; done; sleep 1; "
      "pkill -KILL -f 'rank-1[.]json --data-dir .*data-for-kill-test'; wait";
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(std::system(("bash " + dir.write("kill.sh", script)).c_str()), 0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(slurp(dir.file("code")), "1\n") << slurp(dir.file("stderr"));
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, "failed");
  EXPECT_NE(results[0].reason.find("rank 1 was killed by signal 9"), std::string::npos)
      << results[0].reason;
  EXPECT_EQ(results[1].status, "ok");
  EXPECT_LT(seconds, 60.0);  // far below the launcher's timeout (4 x 60 s + 120 s)
}

TEST(Cli, SigintKeepsWhatFinishedExits130AndResumeRunsOnlyTheRest) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("long.json", R"({
    "name": "long", "defaults": {"epochs": 300, "warmup_epochs": 0, "repeats": 2},
    "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2, 3, 4, 5, 6]}}]})");
  const std::string out = dir.file("out");
  // Interrupt once the first result is on disk; the cell running then finishes.
  const std::string script = std::string(CROSSOVER_BINARY) + " run " + grid + " --out " + out +
                             " --data-dir " + testing::data_dir() + " >" + dir.file("stdout") +
                             " 2>" + dir.file("stderr") + " & pid=$!\n" +
                             "for i in $(seq 600); do [ -s " + out +
                             "/results.jsonl ] && break; sleep 0.05; done\n"
                             "kill -INT $pid\nwait $pid\necho $? >" +
                             dir.file("code") + "\n";
  ASSERT_EQ(std::system(("bash " + dir.write("interrupt.sh", script)).c_str()), 0);
  EXPECT_EQ(slurp(dir.file("code")), "130\n") << slurp(dir.file("stderr"));
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 6u);  // every cell is accounted for
  std::size_t ok = 0;
  for (const auto& r : results) ok += r.status == "ok" ? 1 : 0;
  EXPECT_GE(ok, 1u);
  EXPECT_LT(ok, 6u);
  for (std::size_t i = ok; i < results.size(); ++i) {
    EXPECT_EQ(results[i].status, "not run") << i;
    EXPECT_NE(results[i].reason.find("interrupted (Interrupt)"), std::string::npos);
  }
  EXPECT_TRUE(fs::exists(out + "/report.md"));
  EXPECT_NE(slurp(out + "/report.md").find("not run"), std::string::npos);
  EXPECT_NE(slurp(dir.file("stderr")).find("interrupted: the cells after this one are not run"),
            std::string::npos);

  // --resume refuses to mix environments: a changed BLAS is an error, and nothing is touched.
  const std::string env = slurp(out + "/env.json");
  const std::string before = slurp(out + "/results.jsonl");
  auto changed = nlohmann::json::parse(env);
  changed["blas"]["kind"] = "reference";
  dir.write("out/env.json", changed.dump());
  Outcome o =
      crossover(dir, "run " + grid + " --resume " + out + " --data-dir " + testing::data_dir());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("the environment changed: BLAS: reference then"), std::string::npos)
      << o.err;
  EXPECT_EQ(slurp(out + "/results.jsonl"), before);

  // With the environment it ran in, --resume runs only the missing cells.
  dir.write("out/env.json", env);
  o = crossover(dir, "run " + grid + " --resume " + out + " --data-dir " + testing::data_dir());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("resuming " + out + ": " + std::to_string(ok) + " cell(s) already ok, " +
                       std::to_string(6 - ok) + " to run"),
            std::string::npos)
      << o.err;
  const auto resumed = read_results(out + "/results.jsonl");
  ASSERT_EQ(resumed.size(), 6u);
  std::set<std::size_t> cells;
  for (const auto& r : resumed) {
    EXPECT_EQ(r.status, "ok");
    cells.insert(r.cell.index);
  }
  EXPECT_EQ(cells.size(), 6u);            // the set of an uninterrupted run: every cell once
  for (std::size_t i = 0; i < ok; ++i) {  // the kept cells were not run again
    EXPECT_EQ(resumed[i].epoch_seconds_samples, results[i].epoch_seconds_samples) << i;
  }
}

TEST(Cli, ResumeRunsAgainTheCellsOfADataSetThatChanged) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  fs::create_directories(dir.file("data"));
  fs::copy_file(testing::data_dir() + "/iris.csv", dir.file("data/iris.csv"));
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"epochs": 2, "warmup_epochs": 0, "repeats": 1},
    "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2]}},
                    {"workload": "boston_mlp"}]})");
  const std::string run = "run " + grid + " --data-dir " + dir.file("data");
  ASSERT_EQ(crossover(dir, run + " --out " + dir.file("out")).code, 0);
  const auto env = nlohmann::json::parse(slurp(dir.file("out/env.json")));
  EXPECT_EQ(env["datasets"]["iris"].get<std::string>().rfind("real ", 0), 0u) << env["datasets"];
  EXPECT_EQ(env["datasets"]["boston"], "synthetic");  // not in this data directory

  // Unchanged data: nothing runs again.
  Outcome o = crossover(dir, run + " --resume " + dir.file("out"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("3 cell(s) already ok, 0 to run"), std::string::npos) << o.err;

  // The same file with one more (blank) line is another data set for the record: iris's cells
  // run again, boston's are kept.
  std::ofstream(dir.file("data/iris.csv"), std::ios::app) << "\n";
  o = crossover(dir, run + " --resume " + dir.file("out"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("data set iris changed (real "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("1 cell(s) already ok, 2 to run"), std::string::npos) << o.err;
  EXPECT_EQ(read_results(dir.file("out/results.jsonl")).size(), 3u);
}

TEST(Cli, AnIsolatedCellThatAbortsSegfaultsHangsOrRunsOutOfMemoryFailsAloneWithItsReason) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("iso.json", R"({
    "name": "iso",
    "defaults": {"epochs": 3, "warmup_epochs": 0, "repeats": 1, "timeout_seconds": 10},
    "experiments": [{"workload": "iris_mlp", "grid": {"seed": [1, 2, 3]}}]})");
  const std::pair<const char*, const char*> faults[] = {
      {"abort",
       "the cell's process was killed by signal 6 (Aborted); last output: injecting "
       "abort into cell 1"},
      {"segfault", "the cell's process was killed by signal 11 (Segmentation fault)"},
      {"kill", "killed by signal 9 (Killed), as the out-of-memory killer does (see dmesg)"},
      {"hang", "timed out after 10 s; its process was stopped"},
      // LibTorch's own out-of-memory error (a pebibyte asked of the CPU allocator) fails the
      // cell through the same path as any error it throws, with its first line as the reason.
      {"oom", "you tried to allocate 1125899906842624 bytes"}};
  for (const auto& [fault, reason] : faults) {
    const std::string out = dir.file(std::string("out-") + fault);
    // The test hook makes the cell with seed 2 fail as a crash or a deadlock in a library would.
    const Outcome o =
        crossover(dir, "run " + grid + " --out " + out + " --data-dir " + testing::data_dir(),
                  std::string("CROSSOVER_INJECT_FAULT=") + fault + "@2");
    EXPECT_EQ(o.code, 1) << fault << o.err;
    const auto results = read_results(out + "/results.jsonl");
    ASSERT_EQ(results.size(), 3u) << fault;
    EXPECT_EQ(results[0].status, "ok") << fault;
    EXPECT_EQ(results[1].status, "failed") << fault;
    EXPECT_NE(results[1].reason.find(reason), std::string::npos) << results[1].reason;
    EXPECT_EQ(results[2].status, "ok") << fault;
    EXPECT_TRUE(results[0].cell.isolate);  // timeout_seconds isolates
  }
}

TEST(Cli, ListShowsWorkloadsDevicesAndDataSets) {
  ScratchDir dir;
  const Outcome o = crossover(dir, "list --data-dir " + dir.path());
  ASSERT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("iris_mlp"), std::string::npos);
  EXPECT_NE(o.out.find("MLP 13-16-32-16-1"), std::string::npos);
  EXPECT_NE(o.out.find("cpu"), std::string::npos);
  EXPECT_NE(o.out.find("iris: missing"), std::string::npos);
}

TEST(Cli, ARunNeverReplacesAnEarlierRunsResultsUnlessToldAndThenKeepsThem) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"epochs": 2, "warmup_epochs": 0, "repeats": 1},
    "experiments": [{"workload": "iris_mlp"}]})");
  const std::string out = dir.file("out");
  const std::string run = "run " + grid + " --out " + out + " --data-dir " + testing::data_dir();
  ASSERT_EQ(crossover(dir, run).code, 0);
  const std::string first = slurp(out + "/results.jsonl");
  ASSERT_FALSE(first.empty());
  dir.write("out/notes.txt", "mine");

  Outcome o = crossover(dir, run);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find(out +
                       " already holds the results of a run; nothing was overwritten. "
                       "Continue it with --resume " +
                       out),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("add --overwrite to move its files into " + out + "/previous-<time>/"),
            std::string::npos);
  EXPECT_EQ(slurp(out + "/results.jsonl"), first);

  o = crossover(dir, run + " --overwrite");
  ASSERT_EQ(o.code, 0) << o.err;
  std::string previous;
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.path().filename().string().rfind("previous-", 0) == 0) previous = entry.path();
  }
  ASSERT_FALSE(previous.empty());
  EXPECT_EQ(slurp(previous + "/results.jsonl"), first);  // the earlier run, whole
  for (const char* name : {"env.json", "grid.json", "report.md", "summary.json"})
    EXPECT_TRUE(fs::exists(previous + "/" + name)) << name;
  EXPECT_EQ(read_results(out + "/results.jsonl").size(), 1u);  // the new run
  EXPECT_EQ(slurp(out + "/notes.txt"), "mine");                // other files stay where they are
  EXPECT_EQ(crossover(dir, run + " --overwrite --resume " + out).code, 2);  // one or the other
}

TEST(Cli, OneRunAtATimeWritesIntoADirectoryAndADeadRunsLockDoesNotBlock) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string slow = dir.write("slow.json", R"({"name": "slow",
    "defaults": {"epochs": 100000, "warmup_epochs": 0, "repeats": 1, "time_budget_seconds": 60},
    "experiments": [{"workload": "iris_mlp", "settings": {"batch_size": 8}}]})");
  const std::string quick = dir.write("quick.json", R"({"name": "quick",
    "defaults": {"epochs": 2, "warmup_epochs": 0, "repeats": 1},
    "experiments": [{"workload": "iris_mlp"}]})");
  const std::string out = dir.file("out");
  const std::string lock = out + "/.crossover.lock";
  // The first run holds the directory; once its lock names it, a second run is refused.
  const std::string script = std::string(CROSSOVER_BINARY) + " run " + slow + " --out " + out +
                             " --data-dir " + testing::data_dir() + " >/dev/null 2>&1 & " +
                             "for i in $(seq 200); do [ -s " + lock +
                             " ] && break; sleep 0.05; done; echo $!";
  const std::string pid_file = dir.file("pid");
  ASSERT_EQ(std::system((script + " >" + pid_file).c_str()), 0);
  const std::string pid = slurp(pid_file).substr(0, slurp(pid_file).find('\n'));
  ASSERT_FALSE(pid.empty());
  const Outcome second =
      crossover(dir, "run " + quick + " --out " + out + " --data-dir " + testing::data_dir());
  EXPECT_EQ(second.code, 2);
  EXPECT_NE(second.err.find(out + " is in use by another crossover run (process " + pid + ")"),
            std::string::npos)
      << second.err;
  // The holder dies without a word (as a crash or the OOM killer ends it): the lock goes with it.
  ASSERT_EQ(std::system(("kill -KILL " + pid + "; sleep 0.2").c_str()), 0);
  const Outcome after = crossover(
      dir, "run " + quick + " --out " + out + " --overwrite --data-dir " + testing::data_dir());
  EXPECT_EQ(after.code, 0) << after.err;
  EXPECT_EQ(read_results(out + "/results.jsonl").size(), 1u);
}

// True for a loopback address as inet_ntop writes it: 127.x.x.x, ::1, ::ffff:127.x.x.x.
bool loopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address == "::1" || address.rfind("::ffff:127.", 0) == 0;
}

TEST(Cli, LocalDdpRanksListenOnLoopbackOnly) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("ddp.json", R"({"name": "ddp",
    "defaults": {"warmup_epochs": 0, "repeats": 1},
    "experiments": [{"workload": "iris_mlp", "settings": {"batch_size": 8, "epochs": 20,
                     "parallel": "ddp", "nproc": 2}}]})");
  const std::string log = dir.file("listening");
  // The shim logs every listen() of the run and of the ranks it starts (they inherit
  // LD_PRELOAD); under ASan the runtime must be told it is not loaded first.
  const Outcome o = crossover(
      dir, "run " + grid + " --out " + dir.file("out") + " --data-dir " + testing::data_dir(),
      std::string("LD_PRELOAD=") + CROSSOVER_LISTEN_LOG_LIB + " CROSSOVER_LISTEN_LOG=" + log +
          " ASAN_OPTIONS=\"$ASAN_OPTIONS:verify_asan_link_order=0\"");
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_EQ(read_results(dir.file("out/results.jsonl")).at(0).status, "ok");
  std::istringstream lines(slurp(log));
  std::size_t seen = 0;
  for (std::string address, port; lines >> address >> port; ++seen)
    EXPECT_TRUE(loopback(address)) << "a rank listened on " << address << " port " << port;
  // Gloo's connections between the two ranks listen while they meet: the shim saw the run.
  EXPECT_GT(seen, 0u) << "no socket listened: the shim saw nothing";
}

TEST(Cli, SeveralComparisonsAreAnalysedInOneRun) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"epochs": 3, "warmup_epochs": 0, "repeats": 2},
    "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"],
                                                      "threads": [1, 0]}}]})");
  const std::string out = dir.file("out");
  const Outcome o =
      crossover(dir, "run " + grid + " --out " + out + " --data-dir " + testing::data_dir() +
                         " --compare device=cpu:cuda --compare threads=1:0");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto device = o.out.find("Crossovers (device=cpu vs cuda):");
  const auto threads = o.out.find("Crossovers (threads=1 vs 0):");
  ASSERT_NE(device, std::string::npos) << o.out;
  ASSERT_NE(threads, std::string::npos) << o.out;
  EXPECT_LT(device, threads);  // in the order given
  const auto summary = nlohmann::json::parse(slurp(out + "/summary.json"));
  ASSERT_EQ(summary["comparisons"].size(), 2u);
  EXPECT_EQ(summary["compare"]["axis"], "device");  // the first also at the top level
  EXPECT_EQ(summary["comparisons"][1]["compare"]["axis"], "threads");
  EXPECT_EQ(summary["comparisons"][1]["pairs"].size(), 1u);  // cpu threads=1 with threads=0
  // report regenerates the same comparisons from the results.
  const Outcome r = crossover(dir, "report " + out + " --compare threads=1:0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Crossovers (threads=1 vs 0):"), std::string::npos);
  EXPECT_EQ(r.out.find("Crossovers (device=cpu vs cuda):"), std::string::npos);
}

// Words of a line, whatever the spacing.
std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(Cli, TheReadmesDemoSampleHasTheColumnsAndSectionsTheDemoPrints) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  // The README's sample: the first fenced block after "What the demo prints".
  const std::string readme = slurp(std::string(CROSSOVER_SOURCE_DIR) + "/README.md");
  const auto intro = readme.find("What the demo prints");
  ASSERT_NE(intro, std::string::npos);
  const auto open = readme.find("```\n", intro) + 4;
  const std::string sample = readme.substr(open, readme.find("```", open) - open);
  std::istringstream sample_lines(sample);
  std::string readme_workload, readme_header;
  std::getline(sample_lines, readme_workload);
  std::getline(sample_lines, readme_header);

  // The demo's grid and comparisons (scripts/demo.sh), shortened to one epoch: the columns and
  // sections do not depend on how long each cell runs.
  auto grid =
      nlohmann::json::parse(slurp(std::string(CROSSOVER_SOURCE_DIR) + "/configs/quick.json"));
  grid["defaults"] = {{"epochs", 1}, {"warmup_epochs", 0}, {"repeats", 1}, {"seed", 0}};
  ScratchDir dir;
  const std::string demo = slurp(std::string(CROSSOVER_SOURCE_DIR) + "/scripts/demo.sh");
  const std::string command = "./build/crossover run configs/quick.json";
  const auto run = demo.find(command);
  ASSERT_NE(run, std::string::npos);
  const auto after = run + command.size();
  std::string options = demo.substr(after, demo.find('\n', run) - after);
  options = options.substr(0, options.find("\"$@\""));
  const Outcome o =
      crossover(dir, "run " + dir.write("quick.json", grid.dump()) + " --out " + dir.file("out") +
                         " --data-dir " + testing::data_dir() + options);
  ASSERT_EQ(o.code, 0) << o.err;
  std::istringstream printed(o.out);
  std::string workload, header;
  std::getline(printed, workload);
  std::getline(printed, header);
  EXPECT_EQ(readme_workload, workload);
  EXPECT_EQ(words(readme_header), words(header))
      << "README: " << readme_header << "\nnow:    " << header;
  // Every comparison section the demo prints is in the sample too.
  for (std::size_t at = o.out.find("Crossovers ("); at != std::string::npos;
       at = o.out.find("Crossovers (", at + 1)) {
    const std::string section = o.out.substr(at, o.out.find('\n', at) - at);
    EXPECT_NE(sample.find(section), std::string::npos) << section;
  }
}

TEST(Cli, OnRealH100ResultsEveryPairIsOneRowWhoseWinnerAgreesWithTheAnalysis) {
  // Real results of one H100 (shared/ beside the repository; absent in a bare clone).
  const std::string run = std::string(CROSSOVER_SOURCE_DIR) + "/../shared/gpu-results/a-seed001";
  if (!fs::exists(run + "/results.jsonl")) GTEST_SKIP() << run << " is not here";
  ScratchDir dir;
  const Outcome o = crossover(dir, "report " + run + " --out " + dir.file("out"));
  ASSERT_EQ(o.code, 0) << o.err;
  const auto results = read_results(run + "/results.jsonl");
  const auto summary = nlohmann::json::parse(slurp(dir.file("out/summary.json")));
  ASSERT_GE(summary["pairs"].size(), 8u);
  // The device tables on stdout: per workload, rows of "dataset_size ... winner".
  std::map<std::string, std::map<std::string, std::string>> winner_of;  // workload, size
  std::map<std::string, std::map<std::string, int>> rows_of;
  std::istringstream lines(o.out);
  std::string workload;
  for (std::string line; std::getline(lines, line);) {
    const auto w = words(line);
    if (w.size() == 1 && line.find(' ') == std::string::npos && line[0] != '-') workload = w[0];
    if (w.size() < 6 || w[0] == "dataset_size" ||
        w[0].find_first_not_of("0123456789full") != std::string::npos)
      continue;
    ++rows_of[workload][w[0]];
    winner_of[workload][w[0]] =
        line.find("tie (interval contains 1)") != std::string::npos ? "tie" : w.back();
  }
  for (const auto& pair : summary["pairs"]) {
    const Result* cpu = nullptr;
    for (const auto& r : results) {
      if (r.cell.index == pair["baseline_cell"].get<std::size_t>()) cpu = &r;
    }
    ASSERT_NE(cpu, nullptr);
    const std::string name = pair["workload"];
    const std::string size = size_text(cpu->cell.dataset_size);
    EXPECT_EQ(rows_of[name][size], 1) << name << " " << size << ": one row per pair";
    EXPECT_EQ(winner_of[name][size], pair["winner"].get<std::string>()) << name << " " << size;
  }
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

TEST(Cli, CalibrateMeasuresTheGateOnThisRunnerAndCompareReadsItsFile) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("gate.json", R"({
    "name": "small-gate",
    "defaults": {"epochs": 4, "warmup_epochs": 1, "repeats": 1, "threads": 1},
    "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu"]}}]
  })");
  const std::string out = dir.file("cal");
  const std::string data = " --data-dir " + testing::data_dir();
  Outcome o = crossover(dir, "calibrate " + grid + " --pairs 3 --load 1 --out " + out + data);
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("3 A/A pairs and 3 pairs with 1 busy process(es)"), std::string::npos)
      << o.out;
  const auto cal = nlohmann::json::parse(slurp(out + "/calibrate.json"));
  EXPECT_EQ(cal["pairs"], 3);
  EXPECT_EQ(cal["planted_pairs"], 3);
  for (const char* rate : {"false_alarm_rate", "detection_rate"}) {
    EXPECT_GE(cal[rate].get<double>(), 0.0);
    EXPECT_LE(cal[rate].get<double>(), 1.0);
  }
  ASSERT_EQ(cal["cells"].size(), 1u);
  EXPECT_EQ(cal["cells"][0]["config"]["workload"], "iris_mlp");
  EXPECT_GT(cal["cells"][0]["epoch"]["sigma_raw"].get<double>(), 0.0);
  EXPECT_GE(cal["cells"][0]["smallest_detectable_slowdown"].get<double>(), 0.05);
  EXPECT_EQ(cal["pair_verdicts"].size(), 6u);
  EXPECT_NE(slurp(out + "/calibrate.md").find("| compare --calibration calibrate.json |"),
            std::string::npos);
  // Every run timed the reference before and after its cells; only the loaded runs had the
  // planted load, and their cells were slower.
  const auto quiet = nlohmann::json::parse(slurp(out + "/planted-01/quiet/env.json"));
  const auto loaded = nlohmann::json::parse(slurp(out + "/planted-01/loaded/env.json"));
  for (const auto* env : {&quiet, &loaded}) {
    EXPECT_GT((*env)["reference"]["before"]["matmul_seconds"].get<double>(), 0.0);
    EXPECT_GT((*env)["reference"]["after"]["step_seconds"].get<double>(), 0.0);
  }
  EXPECT_FALSE(quiet.contains("planted_load"));
  EXPECT_EQ(loaded["planted_load"], 1);

  // compare reads the file and says what the verdicts rest on.
  o = crossover(dir, "compare " + out + "/aa-01/first " + out + "/aa-01/second --calibration " +
                         out + "/calibrate.json --json " + dir.file("v.json"));
  EXPECT_TRUE(o.code == 0 || o.code == 1) << o.err;
  EXPECT_NE(o.out.find("evidence: one run per side; a regression must stand out"),
            std::string::npos)
      << o.out;
  const auto verdict = nlohmann::json::parse(slurp(dir.file("v.json")));
  EXPECT_EQ(verdict["calibration"], out + "/calibrate.json");
  EXPECT_FALSE(verdict["cells"][0]["decided_by"].get<std::string>().empty());

  // Bad input: exit 2, naming what to fix; an existing calibration is never replaced.
  o = crossover(dir, "calibrate " + grid + " --out " + out + data);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("already holds a calibration"), std::string::npos) << o.err;
  EXPECT_EQ(crossover(dir, "calibrate " + grid + " --pairs 2").code, 2);
  const std::string not_cal = dir.write("not-cal.json", R"({"grid": "x"})");
  o = crossover(dir, "compare " + out + "/aa-01/first " + out + "/aa-01/second --calibration " +
                         not_cal);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("not-cal.json: not a calibration"), std::string::npos) << o.err;
  o = crossover(dir, "run " + grid + " --out " + dir.file("r") + data,
                "CROSSOVER_PLANT_LOAD=lots");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("CROSSOVER_PLANT_LOAD must be a number"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace crossover
