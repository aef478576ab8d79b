// The one reader and the one writer, end to end (docs/commands.md, "Inputs and outputs"): no
// command reads a run's record through a link, and no option writes over a lock, a run's or a
// history's file, or the command's own input.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runner/execution/watchdog.hpp"
#include "runner/machine/machine_record.hpp"
#include "runner/sweep/output_dir.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // crossover::testing: the binary, scratch directories, results

std::string profile_copy(const ScratchDir& dir) {
  return dir.write("p.json", slurp(std::string(CROSSOVER_SOURCE_DIR) + "/profiles/h100-80gb.json"));
}

TEST(GuardedOutputs, NoOptionWritesOverALockARunsFileOrAnInput) {
  ScratchDir dir;
  const std::string run = results_dir(dir, "r", 0.5);
  const std::string other = results_dir(dir, "r2", 0.5);
  const std::string lock = dir.write("r/.crossover.lock", "4242\n");
  const std::string profile = profile_copy(dir);
  const std::string profile_text = slurp(profile);
  const std::string results_text = slurp(run + "/results.jsonl");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"profile --quick --out " + lock, "is the lock of"},
      {"predict --check " + run + " --profile " + profile + " --json " + lock, "is the lock of"},
      {"predict --check " + run + " --profile " + profile + " --json " + profile,
       "that is the profile read"},
      {"predict --check " + run + " --profile " + profile + " --fit-band " + run + "/anatomy.jsonl",
       "is a file of the run"},
      {"compare " + run + " " + other + " --json " + lock, "is the lock of"},
      {"compare " + run + " " + other + " --markdown " + other + "/env.json",
       "is a file of the run"},
      {"compare " + run + " " + other + " --json " + dir.path(), "is a folder"},
  };
  for (const auto& [args, message] : cases) {
    const Outcome o = crossover(dir, args);
    EXPECT_EQ(o.code, 2) << args << "\n" << o.err;
    EXPECT_NE(o.err.find(message), std::string::npos) << args << "\n" << o.err;
  }
  EXPECT_EQ(slurp(lock), "4242\n");
  EXPECT_EQ(slurp(profile), profile_text);
  EXPECT_EQ(slurp(run + "/results.jsonl"), results_text);
  EXPECT_FALSE(fs::exists(run + "/anatomy.jsonl"));
}

TEST(GuardedOutputs, OutputFileProblemNamesEachOwner) {
  ScratchDir dir;
  results_dir(dir, "run", 1.0);
  fs::create_directories(dir.file("h"));
  fs::create_directories(dir.file("started"));
  dir.write("h/history.json", "{}");
  dir.write("started/.crossover.lock", "");
  dir.write("input.json", "{}");
  fs::create_symlink(dir.file("input.json"), dir.file("link.json"));
  EXPECT_FALSE(output_file_problem(dir.file("new.json"), {dir.file("input.json")}));
  EXPECT_NE(output_file_problem(dir.file("started/results.jsonl"), {})
                .value()
                .text.find("a file of the run"),
            std::string::npos);  // a run that has only just begun
  EXPECT_NE(
      output_file_problem(dir.file("h/history.md"), {}).value().text.find("a file of the history"),
      std::string::npos);
  EXPECT_NE(output_file_problem(dir.file("link.json"), {}).value().text.find("symbolic link"),
            std::string::npos);
  // The same file by another name is still the input.
  EXPECT_NE(output_file_problem(dir.path() + "/./input.json", {dir.file("input.json")})
                .value()
                .text.find("a file this command reads"),
            std::string::npos);
  EXPECT_FALSE(output_file_problem(dir.file("h/notes.md"), {}));
}

TEST(GuardedOutputs, HistoryOutHoldingAHistoryNeedsOverwriteAndKeepsTheOldOne) {
  ScratchDir dir;
  const std::string a = results_dir(dir, "a", 1.0), b = results_dir(dir, "b", 1.1);
  const std::string out = dir.file("h");
  ASSERT_EQ(crossover(dir, "history " + a + " " + b + " --out " + out).code, 0);
  const std::string two_runs = slurp(out + "/history.json");
  const Outcome refused = crossover(dir, "history " + a + " --out " + out);
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("holds a history already"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--overwrite"), std::string::npos) << refused.err;
  EXPECT_EQ(slurp(out + "/history.json"), two_runs);
  const Outcome overwritten = crossover(dir, "history " + a + " --out " + out + " --overwrite");
  ASSERT_EQ(overwritten.code, 0) << overwritten.err;
  EXPECT_NE(slurp(out + "/history.json"), two_runs);
  std::string kept;
  for (const auto& entry : fs::directory_iterator(out))
    if (entry.path().filename().string().rfind("previous-", 0) == 0)
      kept = slurp((entry.path() / "history.json").string());
  EXPECT_EQ(kept, two_runs);
}

// Two histories written into one new folder at once: whichever comes second, by the folder's lock
// or by the history the first left there, is refused with exit 2, in every race.
TEST(GuardedOutputs, OfTwoHistoriesWrittenIntoOneFolderAtOnceTheSecondIsRefused) {
  ScratchDir dir;
  const std::string a = results_dir(dir, "a", 1.0), b = results_dir(dir, "b", 1.1);
  for (int race = 0; race < 5; ++race) {
    const std::string out = dir.file("h" + std::to_string(race));
    const std::string one = std::string(CROSSOVER_BINARY) + " history " + a + " " + b + " --out " +
                            out + " >/dev/null 2>&1";
    const std::string both = "(" + one + "; echo $? >" + dir.file("first") + ") & (" + one +
                             "; echo $? >" + dir.file("second") + ") & wait";
    ASSERT_EQ(std::system(("bash -c '" + both + "'").c_str()), 0);
    const std::string codes = slurp(dir.file("first")) + slurp(dir.file("second"));
    EXPECT_TRUE(codes == "0\n2\n" || codes == "2\n0\n") << "race " << race << ": " << codes;
  }
}

TEST(GuardedReaders, NoCommandReadsARunsRecordThroughALink) {
  ScratchDir dir;
  const std::string real = results_dir(dir, "real", 1.0);
  fs::create_directories(dir.file("linked"));
  fs::create_symlink(real + "/results.jsonl", dir.file("linked/results.jsonl"));
  fs::create_symlink(real + "/env.json", dir.file("linked/env.json"));
  const std::string linked = dir.file("linked");
  const std::string profile = profile_copy(dir);
  for (const std::string& args : {"report " + linked + " --out " + dir.file("rep"),
                                  "predict --check " + linked + " --profile " + profile,
                                  "history " + linked + " --out " + dir.file("hist"),
                                  "compare " + linked + " " + real, "profile --derive " + linked}) {
    const Outcome o = crossover(dir, args);
    EXPECT_EQ(o.code, 2) << args << "\n" << o.err;
    EXPECT_NE(o.err.find("a symbolic link"), std::string::npos) << args << "\n" << o.err;
  }
  EXPECT_FALSE(fs::exists(dir.file("rep/report.md")));
  EXPECT_FALSE(fs::exists(dir.file("hist/history.json")));
}

TEST(GuardedReaders, AnAppendToAHistoryReadThroughALinkRewritesNothing) {
  ScratchDir dir;
  const std::string a = results_dir(dir, "a", 1.0), b = results_dir(dir, "b", 1.1);
  ASSERT_EQ(crossover(dir, "history " + a + " --out " + dir.file("h")).code, 0);
  fs::create_directories(dir.file("into"));
  fs::create_symlink(dir.file("h/history.json"), dir.file("into/history.json"));
  const Outcome o = crossover(dir, "history --append " + b + " --into " + dir.file("into"));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("a symbolic link"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir.file("into/history.md")));
}

// A profile derived from a real H100 host's run (its three smaller CPU Iris cells; its GPU's peak
// left out, so no GPU is derived) claims no CPU rate beyond what that host measured: every core at
// most its peak, one thread at most twice one core's share; each anatomy is shown as it goes.
TEST(GuardedReaders, ADerivedProfileClaimsNoRateBeyondTheRunsOwnMachine) {
  ScratchDir dir;
  const std::string golden = std::string(CROSSOVER_SOURCE_DIR) + "/tests/golden/a-seed001";
  fs::create_directories(dir.file("run"));
  std::istringstream lines(slurp(golden + "/results.jsonl"));
  std::string kept;
  int index = 0;
  for (std::string line; std::getline(lines, line); ++index)
    if (index < 3) kept += line + "\n";  // Iris on the CPU, up to 100,000 rows
  dir.write("run/results.jsonl", kept);
  nlohmann::json env = nlohmann::json::parse(slurp(golden + "/env.json"));
  env["peak_gflops"].erase("cuda:0");
  dir.write("run/env.json", env.dump());
  const Outcome o = crossover(dir, "profile --derive " + dir.file("run") + " --data-dir " +
                                       data_dir() + " --out " + dir.file("p.json"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("anatomy 3/3: "), std::string::npos) << o.err;
  const double peak = env["peak_gflops"]["cpu"].get<double>() * 1e9;
  const double cores = env["cpu"]["logical_cores"].get<double>();
  const nlohmann::json p = nlohmann::json::parse(slurp(dir.file("p.json")));
  for (const auto& rung : p["cpu"]["all_threads"]["gemm"])
    EXPECT_LE(rung["flops_per_second"].get<double>(), peak * (1 + 1e-9)) << rung;
  for (const auto& rung : p["cpu"]["one_thread"]["gemm"])
    EXPECT_LE(rung["flops_per_second"].get<double>(), 2.0 * peak / cores * (1 + 1e-9)) << rung;
}

// A cell in the run's own process that outlives its deadline ends the run, saying which cell and
// what to do; one that ends in time leaves nothing behind.
TEST(CellWatchdogDeathTest, ACellPastItsDeadlineEndsTheRunWithItsNameAndTheWayOut) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(
      {
        dup2(2, 1);  // the test's logger writes to standard output; the death test reads stderr
        const CellWatchdog watchdog("iris_mlp cpu hung", 0.2);
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(1), "cell iris_mlp cpu hung still runs after 200 ms.*isolate");
  const auto start = std::chrono::steady_clock::now();
  { const CellWatchdog watchdog("quick", 30.0); }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

// Whatever the run refuses before its first cell, --dry-run refuses alike and in the same words
// (a dry run once passed --compare device=cpu,cuda, which the run then refused).
TEST(GuardedOutputs, TheDryRunRefusesWhatTheRunRefuses) {
  ScratchDir dir;
  const std::string grid = dir.write("tiny.json", kTinyGrid);
  const std::string held = results_dir(dir, "held", 0.5);
  const std::string mnist = dir.write(
      "mnist.json",
      R"({"name": "m", "experiments": [{"workload": "mnist_linear", "grid": {"device": ["cpu"]}}]})");
  struct Case {
    std::string args, env, says;
  };
  const std::vector<Case> cases = {
      {"run " + grid + " --compare device=cpu,cuda", "", "expected AXIS=BASELINE:CONTENDER"},
      {"run " + grid + " --out " + held, "", "already holds the results of a run"},
      {"run " + grid + " --resume " + held + " --out " + dir.file("other"), "",
       "writes into that directory"},
      {"run " + mnist + " --real-data --data-dir " + dir.file("none"), "", "--real-data: mnist"},
      {"run " + grid + " --out " + dir.file("x"), "CROSSOVER_PLANT_LOAD=lots",
       "CROSSOVER_PLANT_LOAD"},
  };
  const auto first_error = [](const std::string& err) {
    const auto at = err.find("error: ");
    return at == std::string::npos ? std::string() : err.substr(at, err.find('\n', at) - at);
  };
  for (const Case& c : cases) {
    const Outcome dry = crossover(dir, c.args + " --dry-run", c.env);
    const Outcome real = crossover(dir, c.args, c.env);
    EXPECT_EQ(dry.code, 2) << c.args << "\n" << dry.out << dry.err;
    EXPECT_EQ(real.code, 2) << c.args << "\n" << real.err;
    EXPECT_NE(dry.err.find(c.says), std::string::npos) << c.args << "\n" << dry.err;
    EXPECT_EQ(first_error(dry.err), first_error(real.err)) << c.args;
  }
  EXPECT_FALSE(fs::exists(dir.file("x")));  // nothing was made for a refused run
}

// CROSSOVER_MACHINE_RECORD (runner/machine/machine_record.hpp): a run reuses an earlier run's
// measurement of the machine only when the record is a whole env.json, says so in env.json and
// its reports, and a record that is a link, a FIFO, not JSON or missing a part refuses the run.
TEST(GuardedReaders, AMachineRecordIsReusedOnlyWholeAndEveryReportSaysSo) {
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g", "defaults": {"epochs": 1,
    "warmup_epochs": 0, "repeats": 1}, "experiments": [{"workload": "iris_mlp",
    "grid": {"seed": [1, 2]}}]})");
  const std::string data = " --data-dir " + dir.file("no-data");
  ASSERT_EQ(crossover(dir, "run " + grid + " --out " + dir.file("m") + data, kMeasureMachine).code,
            0);
  const auto measured = nlohmann::json::parse(slurp(dir.file("m/env.json")));
  EXPECT_FALSE(measured.contains("machine_record"));
  EXPECT_EQ(measured["reference"]["cells"].size(), 2u);
  EXPECT_EQ(slurp(dir.file("m/report.md")).find("did not measure its machine"), std::string::npos);

  const std::string record = dir.file("m/env.json");
  const auto reuse = [&](const std::string& file, const std::string& out) {
    return crossover(dir, "run " + grid + " --out " + dir.file(out) + data,
                     std::string(kMachineRecordVariable) + "=" + file);
  };
  const Outcome reused = reuse(record, "r");
  ASSERT_EQ(reused.code, 0) << reused.err;
  const auto env = nlohmann::json::parse(slurp(dir.file("r/env.json")));
  EXPECT_EQ(env["machine_record"], record);
  for (const char* part : {"peak_gflops", "profile"}) EXPECT_EQ(env[part], measured[part]) << part;
  EXPECT_EQ(env["blas"]["matmul_1024_gflops"], measured["blas"]["matmul_1024_gflops"]);
  EXPECT_EQ(env["reference"]["before"], measured["reference"]["before"]);
  EXPECT_FALSE(env["reference"].contains("cells"));  // nothing timed around the cells
  for (const char* report : {"r/report.md", "r/report.html"})
    EXPECT_NE(slurp(dir.file(report)).find("did not measure its machine"), std::string::npos)
        << report;
  EXPECT_NE(reused.err.find("did not measure its machine"), std::string::npos) << reused.err;

  // A record that cannot be used refuses the run before anything runs, naming what to fix.
  auto other = measured;  // another machine's record: its figures are not this machine's
  other["cpu"]["model"] = "Intel Xeon Platinum 96";
  other["cpu"]["logical_cores"] = 96;
  other["libtorch"]["version"] = "2.11.0";
  auto partial = measured;
  partial.erase("profile");
  partial["reference"].erase("before");
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink(record, dir.file("link.json"));
  const std::vector<std::pair<std::string, std::string>> refused = {
      {dir.file("missing.json"), "No such file"},
      {dir.write("text.json", "not json"), "not JSON"},
      {fifo, "not a regular file"},
      {dir.file("link.json"), "link"},
      {dir.write("partial.json", partial.dump()), "it records no profile, reference.before"},
      {dir.write("other.json", other.dump()),
       "was measured on another machine (CPU Intel Xeon Platinum 96 there"},
      {dir.file("other.json"), "logical cores 96 there"},
      {dir.file("other.json"), "LibTorch 2.11.0 there"}};
  int n = 0;
  for (const auto& [file, why] : refused) {
    const std::string out = "bad" + std::to_string(n++);
    const Outcome o = reuse(file, out);
    EXPECT_EQ(o.code, 2) << file << o.err;
    EXPECT_NE(o.err.find(std::string(kMachineRecordVariable) + "=" + file), std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find(why), std::string::npos) << why << ": " << o.err;
    EXPECT_NE(o.err.find("unset the variable to measure the machine"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(dir.file(out))) << out;  // refused before its folder is made
  }
  // The record of the very folder the run replaces (--overwrite moves it first) is refused
  // before anything is moved.
  const Outcome own =
      crossover(dir, "run " + grid + " --out " + dir.file("m") + " --overwrite" + data,
                std::string(kMachineRecordVariable) + "=" + record);
  EXPECT_EQ(own.code, 2) << own.err;
  EXPECT_NE(own.err.find("is the env.json of this run's own folder"), std::string::npos) << own.err;
  EXPECT_TRUE(fs::exists(record));
  for (const auto& entry : fs::directory_iterator(dir.file("m")))
    EXPECT_NE(entry.path().filename().string().rfind("previous-", 0), 0u) << entry.path();
}

// An env.json of the wrong types everywhere (hand-edited, or not crossover's): the reports, the
// comparison and the history are written, each field of the wrong type counting as not recorded.
// (`report` once stopped at exit 1 on a governor that was a number.)
TEST(Cli, AnEnvJsonOfWrongTypesIsReadAsNotRecorded) {
  ScratchDir dir;
  const std::string golden = std::string(CROSSOVER_SOURCE_DIR) + "/tests/golden/iris-search";
  for (const char* run : {"a", "b"}) {
    fs::create_directories(dir.file(run));
    fs::copy_file(golden + "/results.jsonl", dir.file(std::string(run) + "/results.jsonl"));
  }
  dir.write("a/env.json", slurp(golden + "/env.json"));
  dir.write("b/env.json", R"({"cpu": {"model": 5, "logical_cores": "two", "governor": 7,
    "load_average": "high"}, "threads": [1], "blas": {"kind": null, "reference": "yes",
    "matmul_1024_gflops": "fast"}, "gpus": [3, {"name": ["x"]}], "peak_gflops": {"cpu": "x"},
    "prices": [1], "shards": [7, {"env": 5}], "reference": {"before": 3, "after": "x",
    "cells": [1]}, "label": {"a": 1}, "recorded_at": 12, "host": "h"})");
  Outcome o = crossover(dir, "report " + dir.file("b"));
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string report = slurp(dir.file("b/report.md"));
  EXPECT_NE(report.find("- CPU: , unknown logical cores;"), std::string::npos) << report;
  EXPECT_NE(report.find("load average unknown"), std::string::npos);
  const auto gbench = nlohmann::json::parse(slurp(dir.file("b/gbench.json")));
  EXPECT_EQ(gbench["context"]["num_cpus"], 0);
  EXPECT_EQ(gbench["context"]["date"], "");
  o = crossover(dir, "compare " + dir.file("a") + " " + dir.file("b"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("environment differs: logical cores: 2 -> (not recorded)"),
            std::string::npos)
      << o.out;
  o = crossover(dir,
                "history " + dir.file("a") + " " + dir.file("b") + " --out " + dir.file("history"));
  EXPECT_EQ(o.code, 0) << o.err;
}

}  // namespace
}  // namespace crossover
