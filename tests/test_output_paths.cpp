// Issue 100's hostile cases, each planted: an output folder through a link is refused by every
// command that takes --out; an output file named inside the folder a command is about to fill is
// refused once that folder exists, and what was measured is kept; a child crossover dies with its
// parent and the parent says how it stopped; a --rerun binary that is no crossover is refused
// before any round; a price is read one way; a bare profile name is the shipped profile even
// where a file of that name is here.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <sstream>
#include <thread>

#include "runner/sweep/output_dir.hpp"
#include "tests/cli_support.hpp"

namespace crossover {
namespace {

using testing::Outcome;
using testing::ScratchDir;
namespace fs = std::filesystem;

const char* kGrid = R"({"name": "paths", "defaults": {"epochs": 2, "warmup_epochs": 1,
  "repeats": 2}, "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"]}}]})";

// Runs `args` in `dir` (crossover's working folder there, as a user's shell has it).
Outcome in_dir(const ScratchDir& dir, const std::string& args, const std::string& env = "") {
  return testing::shell(dir, "cd " + dir.path() + " && CROSSOVER_DATA_DIR= " + env + " " +
                                 std::string(CROSSOVER_BINARY) + " " + args);
}

// The lines of `text` from the line `header` up to the next blank line.
std::vector<std::string> section(const std::string& text, const std::string& header) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line == header) {
      inside = true;
    } else if (inside && line.empty()) {
      inside = false;
    } else if (inside) {
      lines.push_back(line);
    }
  }
  return lines;
}

// The name an option or positional line of CLI11's help starts with ("--out" of "  --out TEXT
// ..."), "" for a continuation line.
std::string name_of(const std::string& line) {
  if (line.size() < 3 || line[2] == ' ') return "";
  std::string name = line.substr(2, line.find(' ', 2) - 2);
  if (const auto comma = name.find(','); comma != std::string::npos) name = name.substr(comma + 1);
  return name;
}

struct OutputOption {
  std::string command, name;  ///< a positional's name has no dashes
  bool folder = false;
};

// Every output option of every command, read from the declarations as --help prints them: the
// options in the Outputs group, the positionals whose help says they are written. A name that
// reads as an output outside that group fails the test: a command added later is covered.
std::vector<OutputOption> declared_outputs(const ScratchDir& dir) {
  const Outcome top = in_dir(dir, "--help");
  std::vector<OutputOption> outputs;
  for (const std::string& line : section(top.out, "Subcommands:")) {
    const std::string command = name_of(line);
    if (command.empty()) continue;
    const std::string help = in_dir(dir, command + " --help").out;
    std::set<std::string> grouped;
    for (const std::string& option : section(help, "Outputs:")) {
      const std::string name = name_of(option);
      if (name.empty()) continue;
      grouped.insert(name);
      const bool folder = name == "--out" || name == "--into" || name == "--resume";
      outputs.push_back({command, name, folder && !(command == "worker" || command == "profile")});
    }
    for (const std::string& option : section(help, "Positionals:")) {
      if (option.find("never through a link") != std::string::npos)
        outputs.push_back({command, name_of(option), false});
    }
    for (const std::string& option : section(help, "Options:")) {
      const std::string name = name_of(option);
      if (option.find(name + " TEXT") == std::string::npos)
        continue;  // a flag prints, it names none
      for (const char* output : {"--out", "--json", "--markdown", "--into", "--csv", "--html"})
        EXPECT_NE(name, output) << command << " declares " << name
                                << " outside the Outputs group: use add_output_option";
    }
  }
  return outputs;
}

// Every command's --help, and crossover's own, fits a 100-column terminal (run --help had a
// 604-column line): descriptions fold under themselves.
TEST(OutputPaths, EveryHelpLineFitsIn100Columns) {
  ScratchDir dir;
  const std::string top = in_dir(dir, "--help").out;
  std::vector<std::string> commands = {""};
  for (const std::string& line : section(top, "Subcommands:"))
    if (!name_of(line).empty()) commands.push_back(name_of(line));
  EXPECT_GE(commands.size(), 15u);
  for (const std::string& command : commands) {
    std::istringstream lines(in_dir(dir, command + " --help").out);
    std::size_t count = 0;
    for (std::string line; std::getline(lines, line); ++count)
      EXPECT_LE(line.size(), 100u) << command << " --help: " << line;
    EXPECT_GT(count, 3u) << command;
  }
}

// For every output option of every command: a link to a folder, a folder on the way that is a
// link, a FIFO, and (for a file) a file of a run are refused with exit 2 before anything runs,
// and none of them is touched.
TEST(OutputPaths, EveryDeclaredOutputRefusesALinkAFifoAndARunsOwnFile) {
  ScratchDir dir;
  dir.write("grid.json", kGrid);
  ASSERT_EQ(in_dir(dir, "run grid.json --out run --predict cuda=h100").code, 0);
  const std::string results = testing::slurp(dir.file("run/results.jsonl"));
  fs::create_directory(dir.file("target"));
  dir.write("file.json", "{}");
  fs::create_directory_symlink(dir.file("target"), dir.file("link"));
  fs::create_symlink(dir.file("file.json"), dir.file("filelink"));
  ASSERT_EQ(mkfifo(dir.file("fifo").c_str(), 0644), 0);
  const std::vector<OutputOption> outputs = declared_outputs(dir);
  std::set<std::string> commands;
  for (const OutputOption& output : outputs) {
    commands.insert(output.command);
    std::vector<std::pair<std::string, std::string>> cases = {
        {output.folder ? "link" : "filelink", "symbolic link"},
        {output.folder ? "link/new" : "link/new.json", "symbolic link"},
        {"fifo", "FIFO"}};
    if (!output.folder) cases.push_back({"run/results.jsonl", "is a file of the run in run"});
    for (const auto& [path, said] : cases) {
      const std::string args =
          output.command + " " + (output.name.rfind("--", 0) == 0 ? output.name + " " : "") + path;
      const Outcome o = in_dir(dir, args);
      EXPECT_EQ(o.code, 2) << args << "\n" << o.err;
      EXPECT_NE(o.err.find(said), std::string::npos) << args << "\n" << o.err;
      EXPECT_NE(o.err.find("nothing was written"), std::string::npos) << args << "\n" << o.err;
    }
  }
  // The declarations were read: the commands known to write are among them.
  for (const char* command : {"run", "report", "compare", "calibrate", "merge", "predict",
                              "catalog", "history", "profile", "example-model", "bench"})
    EXPECT_EQ(commands.count(command), 1u) << command << " has no declared output";
  EXPECT_TRUE(fs::is_empty(dir.file("target")));
  EXPECT_EQ(testing::slurp(dir.file("file.json")), "{}");
  EXPECT_TRUE(fs::is_fifo(dir.file("fifo")));
  EXPECT_EQ(testing::slurp(dir.file("run/results.jsonl")), results);
}

TEST(OutputPaths, NoCommandWritesThroughALinkedFolder) {
  ScratchDir dir;
  dir.write("grid.json", kGrid);
  ASSERT_EQ(in_dir(dir, "run grid.json --out run --predict cuda=h100").code, 0);
  fs::create_directory(dir.file("target"));
  fs::create_directory_symlink(dir.file("target"), dir.file("link"));
  fs::create_directory_symlink(dir.file("run"), dir.file("runlink"));
  const std::string self = CROSSOVER_BINARY;
  for (const std::string& args :
       {std::string("report run --out link"), std::string("report run --out link/"),
        std::string("calibrate grid.json --out link"),
        "compare " + self + " " + self + " --rerun grid.json --out link",
        std::string("predict --profile h100 --check runlink --save-anatomy"),
        std::string("catalog run --json link/cat.json")}) {
    const Outcome o = in_dir(dir, args);
    EXPECT_EQ(o.code, 2) << args << "\n" << o.err;
    EXPECT_NE(o.err.find("symbolic link"), std::string::npos) << args << "\n" << o.err;
  }
  EXPECT_TRUE(fs::is_empty(dir.file("target")));
  EXPECT_FALSE(fs::exists(dir.file("run/anatomy.jsonl")));
}

TEST(OutputPaths, AFileOfTheFolderACommandFillsIsRefusedOnceItExistsAndTheRunIsKept) {
  ScratchDir dir;
  dir.write("grid.json", kGrid);
  const Outcome o =
      in_dir(dir, "catalog grid.json --out new --json new/results.jsonl --markdown new/report.md");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("is a file of the run in new"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("`crossover catalog new` reads it again"), std::string::npos) << o.err;
  // The measured cell is still the run's: its results file reads as results.
  bool measured = false;
  for (const Result& r : read_results(dir.file("new/results.jsonl")))
    measured = measured || r.status == CellStatus::kOk;
  EXPECT_TRUE(measured);
  EXPECT_EQ(in_dir(dir, "report new").code, 0);
}

TEST(OutputPaths, ARerunBinaryThatIsNoCrossoverIsRefusedBeforeAnyRound) {
  ScratchDir dir;
  dir.write("grid.json", kGrid);
  const Outcome o = in_dir(
      dir, "compare /bin/true " + std::string(CROSSOVER_BINARY) + " --rerun grid.json --out cmp");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("it is not a crossover binary"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir.file("cmp/baseline/round-1/results.jsonl")));
}

// Starts crossover with `args` in `dir` (no data folder), its stdout and stderr into dir's
// "stdout" and "stderr"; its pid. Returns once `started` (a path in dir) exists.
pid_t start_in_dir(const ScratchDir& dir, const std::string& args, const std::string& started) {
  const std::string command = "cd " + dir.path() +
                              " && exec env CROSSOVER_DATA_DIR= " + std::string(CROSSOVER_BINARY) +
                              " " + args;
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string out = dir.file("stdout"), err = dir.file("stderr");
    freopen(out.c_str(), "w", stdout);
    freopen(err.c_str(), "w", stderr);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 300 && !fs::exists(dir.file(started)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return pid;
}

// The exit code of `pid` once it ends (-1 for a signal's end).
int exit_code_of(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(OutputPaths, AChildCrossoverStopsWithItsParentWhichSaysHow) {
  ScratchDir dir;
  dir.write("grid.json", R"({"name": "slow", "defaults": {"epochs": 20, "warmup_epochs": 1,
    "repeats": 5, "timeout_seconds": 120}, "experiments": [{"workload": "mnist_mlp",
    "settings": {"dataset_size": 20000}, "grid": {"device": ["cpu", "cuda"]}}]})");
  // Once its run has begun (its folder holds grid.json), the parent alone is sent SIGTERM.
  const pid_t parent = start_in_dir(dir, "catalog grid.json --out run", "run/grid.json");
  ASSERT_GE(parent, 0);
  ASSERT_TRUE(fs::exists(dir.file("run/grid.json"))) << testing::slurp(dir.file("stderr"));
  kill(parent, SIGTERM);
  EXPECT_EQ(exit_code_of(parent), 128 + SIGTERM) << testing::slurp(dir.file("stderr"));
  const std::string err = testing::slurp(dir.file("stderr"));
  EXPECT_NE(err.find("stopped by SIGTERM"), std::string::npos) << err;
  EXPECT_NE(err.find("--resume"), std::string::npos) << err;
  // No child goes on writing after its parent has returned: the run's folder is unlocked.
  const Outcome again = testing::crossover(dir, "report " + dir.file("run"));
  EXPECT_EQ(again.err.find("still running"), std::string::npos) << again.err;
}

TEST(OutputPaths, APriceIsReadOneWayAndABareNameIsTheShippedProfile) {
  ScratchDir dir;
  dir.write("grid.json", kGrid);
  ASSERT_EQ(in_dir(dir, "run grid.json --out run --predict cuda=h100").code, 0);
  for (const char* price : {"l4=0x10", "l4=1e-300", "l4=1e308", "l4=0"}) {
    const Outcome o = in_dir(dir, std::string("catalog run --price ") + price);
    EXPECT_EQ(o.code, 2) << price;
    EXPECT_NE(o.err.find("a decimal number from 1e-09 to 1e+09"), std::string::npos) << o.err;
  }
  // Every number on a command line is decimal, in every command: CLI11 alone read "0x10" as 16.
  for (const char* args : {"calibrate grid.json --pairs 0x3", "compare run run --threshold 0x5",
                           "history run --threshold 0x10", "run grid.json --shards 1e"}) {
    const Outcome o = in_dir(dir, args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_NE(o.err.find("is not a decimal number; write it in digits"), std::string::npos)
        << args << "\n"
        << o.err;
  }
  ASSERT_EQ(in_dir(dir, "history run --out h --threshold 010").code, 0);
  EXPECT_NE(testing::slurp(dir.file("h/history.md")).find("| 10.0 % |"), std::string::npos);
  // A file named h100 here does not replace the shipped profile; it is said, once.
  dir.write("h100", "{}");
  const Outcome o = in_dir(dir, "run grid.json --out shadowed --predict cuda=h100");
  EXPECT_EQ(o.code, 0) << o.err;
  const std::string warning = "h100 names the shipped profile";
  EXPECT_NE(o.err.find(warning), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find(warning), o.err.rfind(warning)) << o.err;
  bool shipped = false;
  for (const Result& r : read_results(dir.file("shadowed/results.jsonl")))
    shipped = shipped || (r.status == CellStatus::kPredicted &&
                          r.prediction.prediction_profile.find("H100") != std::string::npos);
  EXPECT_TRUE(shipped);
  // env.json records the file the profile came from.
  const auto env = nlohmann::json::parse(testing::slurp(dir.file("shadowed/env.json")));
  const std::string file = env.value("predicted_with_file", "");
  EXPECT_NE(file.find("profiles/h100-80gb.json"), std::string::npos) << file;
  // ./h100 is the file, which is no profile.
  EXPECT_EQ(in_dir(dir, "run grid.json --out file --predict cuda=./h100").code, 2);
}

// The unclear cases of the hostile pass, each with the fix its words name: catalog into a folder
// that holds a run says how catalog reads it (not run's --resume or --overwrite); catalog of a
// run still running is refused; a run of another grid appended to a history is said.
TEST(OutputPaths, EachRefusalNamesTheFixOfTheCommandThatRefused) {
  ScratchDir dir;
  dir.write("grid.json", kGrid);
  ASSERT_EQ(in_dir(dir, "run grid.json --out run --predict cuda=h100").code, 0);
  const Outcome taken = in_dir(dir, "catalog grid.json --out run");
  EXPECT_EQ(taken.code, 2) << taken.err;
  EXPECT_NE(taken.err.find("`crossover catalog run` reads it"), std::string::npos) << taken.err;
  EXPECT_EQ(taken.err.find("--overwrite"), std::string::npos) << taken.err;

  // A run folder with a live lock holder: this test process holds it.
  fs::create_directory(dir.file("live"));
  fs::copy_file(dir.file("run/results.jsonl"), dir.file("live/results.jsonl"));
  {
    DirectoryLock lock(dir.file("live"));
    const Outcome running = in_dir(dir, "catalog live");
    EXPECT_EQ(running.code, 2) << running.err;
    EXPECT_NE(running.err.find("give it to catalog when it ends"), std::string::npos)
        << running.err;
  }

  dir.write("other.json", R"({"name": "other", "defaults": {"epochs": 2, "warmup_epochs": 1,
    "repeats": 2}, "experiments": [{"workload": "boston_mlp"}]})");
  ASSERT_EQ(in_dir(dir, "run other.json --out other").code, 0);
  ASSERT_EQ(in_dir(dir, "history run --out h").code, 0);
  const Outcome appended = in_dir(dir, "history --append other --into h");
  EXPECT_NE(appended.err.find("other shares 0 of its 1 cell(s) with the history"),
            std::string::npos)
      << appended.err;
}

// A prediction is held to a result's own ceiling (an epoch of a day): a CUDA anatomy planted at
// the fields' ceilings is named and not shown, by catalog and by run --predict, never printed as
// an epoch of 54 years (in the hostile pass: "4.3e+13 s", a speedup of "9.19e-18x", exit 0).
TEST(OutputPaths, APredictionPastAResultsCeilingIsNamedNotShown) {
  ScratchDir dir;
  dir.write("grid.json", kGrid);
  ASSERT_EQ(in_dir(dir, "run grid.json --out run --predict cuda=h100").code, 0);
  std::vector<Result> results = read_results(dir.file("run/results.jsonl"));
  std::string planted;
  for (Result& r : results) {
    if (r.cell.device.kind == DeviceKind::kCuda) r.steps_per_epoch = 1000000000000LL;
    planted += result_to_json(r).dump() + "\n";
  }
  dir.write("run/results.jsonl", planted);
  const Outcome o = in_dir(dir, "catalog run");
  EXPECT_NE(o.code, 0) << o.out;
  EXPECT_NE(o.err.find("beyond a result's ceiling (8.64e+04 s)"), std::string::npos) << o.err;
  EXPECT_EQ(o.out.find("e+09"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("e-1"), std::string::npos) << o.out;
}

// A calibration stopped before it was written is replaced with --overwrite, its runs moved aside,
// and the refusal without it says so (before, "give another --out" was the only way on).
TEST(OutputPaths, AStoppedCalibrationIsReplacedWithOverwrite) {
  ScratchDir dir;
  dir.write("grid.json", R"({"name": "c", "defaults": {"epochs": 1, "warmup_epochs": 0,
    "repeats": 1}, "experiments": [{"workload": "iris_mlp"}]})");
  ASSERT_EQ(in_dir(dir, "run grid.json --out cal/aa-01/first").code, 0);  // what a stop left
  const Outcome refused = in_dir(dir, "calibrate grid.json --pairs 3 --out cal");
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("stopped before it was written; give another --out, or add "
                             "--overwrite"),
            std::string::npos)
      << refused.err;
  const Outcome replaced = in_dir(dir, "calibrate grid.json --pairs 3 --out cal --overwrite");
  ASSERT_EQ(replaced.code, 0) << replaced.err;
  EXPECT_NE(replaced.err.find("moved the earlier calibration's files into cal/previous-"),
            std::string::npos)
      << replaced.err;
  EXPECT_TRUE(fs::exists(dir.file("cal/calibrate.json")));
  std::size_t kept = 0;
  for (const auto& entry : fs::directory_iterator(dir.file("cal")))
    if (entry.path().filename().string().rfind("previous-", 0) == 0)
      kept += fs::exists(entry.path() / "aa-01/first/results.jsonl") ? 1 : 0;
  EXPECT_EQ(kept, 1u);
}

// A calibration stopped by a signal while its first run ran: that run is stopped, no other
// starts, and calibrate says how many pairs finished and how to go on; a run that rejects its
// input is named with the way to see why.
TEST(OutputPaths, ACalibrationStoppedDuringARunStartsNoOtherAndSaysSo) {
  ScratchDir dir;
  dir.write("grid.json", R"({"name": "c", "defaults": {"epochs": 8000, "warmup_epochs": 0,
    "repeats": 1, "threads": 1}, "experiments": [{"workload": "iris_mlp"}]})");
  const pid_t calibrate =
      start_in_dir(dir, "calibrate grid.json --pairs 3 --out cal", "cal/aa-01/first/grid.json");
  ASSERT_GE(calibrate, 0);
  ASSERT_TRUE(fs::exists(dir.file("cal/aa-01/first/grid.json")))
      << testing::slurp(dir.file("stderr"));
  const auto signalled = std::chrono::steady_clock::now();
  kill(calibrate, SIGINT);
  EXPECT_EQ(exit_code_of(calibrate), 128 + SIGINT) << testing::slurp(dir.file("stderr"));
  // A SIGINT lets the run finish the cell under way (seconds here), then it and calibrate stop.
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, std::chrono::seconds(20));
  EXPECT_NE(testing::slurp(dir.file("stderr"))
                .find("stopped by SIGINT after 0 finished pair(s); the runs so far are in cal (no "
                      "calibration was written there): run calibrate again with --overwrite"),
            std::string::npos)
      << testing::slurp(dir.file("stderr"));
  EXPECT_FALSE(fs::exists(dir.file("cal/aa-01/second")));
  EXPECT_FALSE(fs::exists(dir.file("cal/calibrate.json")));

  const Outcome rejected =
      in_dir(dir, "calibrate grid.json --pairs 3 --out cal2", "CROSSOVER_PLANT_LOAD=lots");
  EXPECT_EQ(rejected.code, 2) << rejected.err;
  EXPECT_NE(rejected.err.find("crossover run grid.json into cal2/aa-01/first rejected its input "
                              "(exit 2); run it alone to see why"),
            std::string::npos)
      << rejected.err;
}

}  // namespace
}  // namespace crossover
