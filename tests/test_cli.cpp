// The built `crossover` binary, end to end on tiny grids: running a grid, validation, failures,
// full disks, the environment and the micro-benchmarks.
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

#include "core/records/results.hpp"
#include "runner/hardware/blas.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // crossover::testing: the binary, scratch directories, tiny grids

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
  const Outcome o = crossover(
      dir, "run " + grid + " --out " + out + " --data-dir " + testing::data_dir(), kNoGpu);
  ASSERT_EQ(o.code, 0) << o.err;

  for (const char* name :
       {"results.jsonl", "results.csv", "report.md", "env.json", "grid.json", "gbench.json"}) {
    EXPECT_TRUE(fs::exists(out + "/" + name)) << name;
  }
  const auto results = read_results(out + "/results.jsonl");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(lines_in(slurp(out + "/results.csv")), 4u);  // header and three rows

  const Result& cpu = results[0];
  EXPECT_EQ(cpu.status, CellStatus::kOk);
  EXPECT_EQ(cpu.data_source, DataSource::kReal);
  EXPECT_EQ(cpu.train_rows, 50);
  EXPECT_EQ(cpu.test_rows, 38);
  EXPECT_EQ(cpu.epoch_samples, 6u);  // 3 epochs x 2 repeats
  EXPECT_GT(cpu.epoch_seconds, 0.0);
  EXPECT_LE(cpu.epoch_seconds_p25, cpu.epoch_seconds);
  EXPECT_GE(cpu.epoch_seconds_p75, cpu.epoch_seconds);
  EXPECT_EQ(cpu.train_seconds_samples.size(), 2u);
  EXPECT_EQ(cpu.metric, "accuracy");

  const Result& cuda = results[1];
  if (cuda.status == CellStatus::kSkipped) {  // this machine has no usable CUDA
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
  EXPECT_EQ(boston.status, CellStatus::kOk);
  EXPECT_EQ(boston.steps_per_epoch, (379 + 63) / 64);
  EXPECT_EQ(boston.metric, "rmse");
  EXPECT_EQ(boston.step_seconds_samples.size(), boston.step_samples);

  // gbench.json: the two cells that ran, their mean and median each, one name per entry.
  const auto gbench = nlohmann::json::parse(slurp(out + "/gbench.json"));
  EXPECT_EQ(gbench["benchmarks"].size(), 4u);
  EXPECT_EQ(gbench["benchmarks"][1]["name"], "iris_mlp/device:cpu_median");
  EXPECT_DOUBLE_EQ(gbench["benchmarks"][1]["real_time"].get<double>(),
                   cpu.epoch_seconds * 1e9);  // in ns

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
  // validate needs no LibTorch (runner/main/main.cpp): `crossover` alone, without crossover-torch
  // beside it, checks a grid; a grid with a model of its own to load is handed to crossover-torch,
  // which this copy lacks, and says so.
  fs::create_directories(dir.file("alone"));
  fs::copy_file(CROSSOVER_BINARY, dir.file("alone/crossover"));
  o = shell(dir, dir.file("alone/crossover") + " validate " + grid);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("valid grid \"tiny\": 2 experiment(s), 3 cells"), std::string::npos)
      << o.out;
  const std::string own = dir.write("own.json", R"({"name": "own", "experiments": [{"workload":
    "torchscript", "settings": {"model": "m.pt", "input_shape": [4], "classes": 2}}]})");
  o = shell(dir, dir.file("alone/crossover") + " validate " + own);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("cannot start " + dir.file("alone/crossover-torch")), std::string::npos)
      << o.err;
  // run checks without LibTorch too: a run it refuses is answered there, said once, as
  // crossover-torch says it; a run that passes its checks (a dry run too: it lists this machine's
  // devices) is handed to crossover-torch with nothing said.
  const std::string typo = dir.write("typo.json", R"({"name": "typo", "experiments": [
    {"workload": "iris_mlpp"}]})");
  o = shell(dir, dir.file("alone/crossover") + " run " + typo);
  EXPECT_EQ(o.code, 2) << o.err;
  const std::string crossover_torch =
      (fs::path(CROSSOVER_BINARY).parent_path() / "crossover-torch").string();
  const Outcome torch = shell(dir, crossover_torch + " run " + typo, "torch-");
  EXPECT_EQ(o.err, torch.err);
  EXPECT_NE(o.err.find("did you mean \"iris_mlp\""), std::string::npos) << o.err;
  fs::create_directories(dir.file("held"));
  dir.write("held/results.jsonl", "");
  o = shell(dir,
            dir.file("alone/crossover") + " run " + grid + " --dry-run --out " + dir.file("held"));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("already holds the results of a run"), std::string::npos) << o.err;
  o = shell(dir, "CROSSOVER_MACHINE_RECORD=" + dir.file("none.json") + " " +
                     dir.file("alone/crossover") + " run " + grid + " --out " + dir.file("new"));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("CROSSOVER_MACHINE_RECORD=" + dir.file("none.json")), std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("cannot start"), std::string::npos) << o.err;
  // calibrate runs there too (its runs are `crossover run` processes of their own).
  o = shell(dir, dir.file("alone/crossover") + " calibrate " + grid + " --pairs 2");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("--pairs: Value 2 not in range 3 to 100"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("cannot start"), std::string::npos) << o.err;
  for (const char* args : {" --dry-run", ""}) {
    o = shell(dir,
              dir.file("alone/crossover") + " run " + grid + args + " --out " + dir.file("new"));
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_EQ(o.err.rfind("crossover: cannot start " + dir.file("alone/crossover-torch"), 0), 0u)
        << "said before the hand-over: " << o.err;
    EXPECT_EQ(o.out, "");
  }
  EXPECT_FALSE(fs::exists(dir.file("new")));
}

// Your own model: crossover writes one (example-model), a grid names it relative to its folder,
// and run trains it in isolated cells with its FLOPs estimated.
TEST(Cli, ATorchscriptGridTrainsTheModelItNames) {
  ScratchDir dir;
  fs::create_directories(dir.file("grids/models"));
  Outcome o = crossover(dir, "example-model " + dir.file("grids/models/mine.pt"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("input_shape [20], classes 4"), std::string::npos) << o.out;
  const std::string grid = dir.write("grids/mine.json", R"({"name": "mine",
    "defaults": {"epochs": 2, "repeats": 1, "dataset_size": 256},
    "experiments": [{"workload": "torchscript",
      "settings": {"model": "models/mine.pt", "input_shape": [20], "classes": 4},
      "grid": {"batch_size": [32, 256]}}]})");
  o = crossover(dir, "validate " + grid);
  ASSERT_EQ(o.code, 0) << o.err;
  o = crossover(dir, "run " + grid + " --out " + dir.file("out"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("torchscript mine.pt cpu batch=32"), std::string::npos) << o.err;
  // Its samples are made in memory by design: nothing to fetch, so never "(synthetic)".
  EXPECT_EQ(o.err.find("synthetic"), std::string::npos) << o.err;
  const std::string report = slurp(dir.file("out/report.md"));
  EXPECT_EQ(report.find("(synthetic)"), std::string::npos);
  EXPECT_EQ(report.find("Synthetic data"), std::string::npos);
  const auto results = read_results(dir.file("out/results.jsonl"));
  ASSERT_EQ(results.size(), 2u);
  for (const Result& r : results) {
    EXPECT_EQ(r.status, CellStatus::kOk) << r.reason;
    EXPECT_EQ(r.data_source, DataSource::kGenerated);
    EXPECT_EQ(r.cell.model, fs::canonical(dir.file("grids/models/mine.pt")).string());
    EXPECT_TRUE(r.cell.isolate);  // a user's model runs in a child process by default
    EXPECT_EQ(r.flops_source, "estimated");
    EXPECT_GT(r.flops_per_sample, 0.0);
  }
  // The same grid with a wrong shape is refused before anything runs, naming the file.
  const std::string wrong =
      dir.write("grids/wrong.json",
                R"({"name": "wrong", "experiments": [{"workload": "torchscript",
      "settings": {"model": "models/mine.pt", "input_shape": [3, 8, 8], "classes": 4}}]})");
  o = crossover(dir, "run " + wrong + " --out " + dir.file("out2"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("mine.pt: its forward rejects input_shape [3, 8, 8]"), std::string::npos)
      << o.err;
  EXPECT_FALSE(fs::exists(dir.file("out2/results.jsonl")));
  // validate says every problem at once: a typo elsewhere in the grid (a device "gpu", a key
  // "gpu") does not hide the model's wrong shape.
  const std::string both = dir.write(
      "grids/both.json",
      R"({"name": "both", "defaults": {"gpu": 1}, "experiments": [{"workload": "torchscript",
      "settings": {"model": "models/mine.pt", "input_shape": [3, 8, 8], "classes": 4,
                   "device": "gpu"}}]})");
  o = crossover(dir, "validate " + both);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("3 problem(s)"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("unknown device \"gpu\""), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("defaults.gpu: unknown key"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("mine.pt: its forward rejects input_shape [3, 8, 8]"), std::string::npos)
      << o.err;
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
  EXPECT_EQ(results[0].data_source, DataSource::kSynthetic);
  EXPECT_EQ(results[0].train_rows, 112);
  EXPECT_NE(slurp(dir.file("out/report.md")).find("**Synthetic data:** iris_mlp"),
            std::string::npos);
  EXPECT_NE(o.err.find("synthetic data"), std::string::npos);
  // And the terminal's table, beside the number and in its legend.
  EXPECT_NE(o.out.find(" (synthetic)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("(synthetic): trained on a synthetic data set"), std::string::npos);
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
  EXPECT_EQ(results[0].status, CellStatus::kFailed);
  EXPECT_NE(results[0].reason.find("iris.csv:2: expected 5 values"), std::string::npos)
      << results[0].reason;
  EXPECT_EQ(results[1].status, CellStatus::kOk);
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
      // Up to 5 minutes for a whole first line (on a loaded 16-core machine the first cell took
      // over the 30 s once allowed, the filler came first, and no result was kept).
      "for i in $(seq 6000); do [ -s /mnt/out/results.jsonl ] && "
      "[ -z \"$(tail -c1 /mnt/out/results.jsonl)\" ] && break; sleep 0.05; done\n"
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
  for (const auto& r : results) EXPECT_EQ(r.status, CellStatus::kOk);
  // The cells after the failed write were not measured for nothing, and why is said in full
  // once: the cells after the first say "as cell N".
  const std::string why =
      "not run: the sweep stopped before this cell: its results could not be written";
  EXPECT_NE(err.find(why), std::string::npos) << err;
  EXPECT_EQ(err.find(why), err.rfind(why)) << err;
  EXPECT_NE(err.find("not run: as cell ", err.find("[6/6]")), std::string::npos) << err;
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
    EXPECT_EQ(classify_blas_path(library) == BlasKind::kReference, kind == "reference") << library;
  }
  EXPECT_EQ(env.at("blas").at("reference").get<bool>(), kind == "reference");
  EXPECT_GT(env.at("blas").at("matmul_1024_gflops").get<double>(), 0.0);
  EXPECT_TRUE(env.at("cuda").contains("compiled"));
  const Outcome text = crossover(dir, "env");
  EXPECT_NE(text.out.find("BLAS: " + kind), std::string::npos) << text.out;
  // On a pipe its lines are wrapped to 100 columns, as every sentence crossover prints (the
  // tests set COLUMNS=0: one a line; the BLAS line was 170 wide).
  const Outcome piped = crossover(dir, "env", "COLUMNS=");
  std::istringstream lines(piped.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}

TEST(Cli, EnvNamesTheRevisionItWasBuiltFrom) {
  // Taken at build time: a revision from when the build folder was configured would name an older
  // commit in every report and regression comparison.
  ScratchDir dir;
  const std::string describe = "git -C " + std::string(CROSSOVER_SOURCE_DIR) +
                               " describe --always --dirty --abbrev=12 >" + dir.file("revision") +
                               " 2>/dev/null";
  if (std::system(describe.c_str()) != 0) GTEST_SKIP() << "the sources are not a git checkout";
  std::string revision = slurp(dir.file("revision"));
  revision.erase(revision.find_last_not_of('\n') + 1);
  const Outcome o = crossover(dir, "env --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out).at("crossover_revision"), revision)
      << "rebuild if the sources changed since the last build";
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
  // A link planted where bench.json goes is refused, its target untouched.
  const std::string victim = dir.write("victim", "precious\n");
  fs::create_directories(dir.file("linked"));
  fs::create_symlink(victim, dir.file("linked/bench.json"));
  const Outcome linked =
      crossover(dir, "bench --filter SmallestOp --min-time 0.01 --out " + dir.file("linked"));
  EXPECT_EQ(linked.code, 2);
  EXPECT_NE(linked.err.find("is a symbolic link"), std::string::npos) << linked.err;
  EXPECT_EQ(slurp(victim), "precious\n");
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
      dir, "run " + grid + " --out " + dir.file("run") + " --data-dir " + dir.file("data"), kNoGpu);
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
  // Each status its own list: two CUDA cells skipped, boston failed, none left unrun.
  ASSERT_EQ(summary["cells"]["skipped"].size(), 2u) << summary["cells"].dump();
  ASSERT_EQ(summary["cells"]["failed"].size(), 1u) << summary["cells"].dump();
  EXPECT_TRUE(summary["cells"]["not_run"].empty()) << summary["cells"].dump();
  EXPECT_NE(summary["cells"]["failed"][0]["reason"].get<std::string>().find("boston"),
            std::string::npos);
  EXPECT_EQ(crossover(dir, "report " + dir.file("run") + " --compare threads").code, 2);
  EXPECT_EQ(crossover(dir, "report " + dir.file("absent")).code, 2);
}

}  // namespace
}  // namespace crossover
