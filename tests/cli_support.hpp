#pragma once
// What the end-to-end tests of the built `crossover` binary share: running it, a tiny grid, and a
// made-up results directory.
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
#include "tests/test_support.hpp"

namespace crossover::testing {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

// The environment of a test about what a machine without a GPU sees (CUDA cells skipped with
// their reason): on a GPU machine, the crossover it runs is shown no CUDA device.
inline const char* kNoGpu = "CUDA_VISIBLE_DEVICES=";

// The environment of a test that checks the measurement of the machine itself (the BLAS rate, the
// peaks, the profile, the reference timings and the drift they show): ctest's runs reuse one
// measured record (tests/CMakeLists.txt), and this one measures its machine as a user's run does.
inline const char* kMeasureMachine = "CROSSOVER_MACHINE_RECORD=";

// The tests' crossover sees no CROSSOVER_DATA_DIR (scripts/test.sh exports it for the tests that
// read data themselves) unless `env` sets it: the data folder a test means is in its arguments.
// A shell command run with no input, its exit code and its two outputs (kept in `dir`, as
// <tag>stdout and <tag>stderr: commands run at once from threads each need their own tag).
inline Outcome shell(const ScratchDir& dir, const std::string& command,
                     const std::string& tag = "") {
  const std::string out = dir.file(tag + "stdout"), err = dir.file(tag + "stderr");
  const std::string line = command + " >" + out + " 2>" + err + " </dev/null";
  const int status = std::system(line.c_str());
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

inline Outcome crossover(const ScratchDir& dir, const std::string& args,
                         const std::string& env = "", const std::string& tag = "") {
  return shell(dir, "CROSSOVER_DATA_DIR= " + env + " " + std::string(CROSSOVER_BINARY) + " " + args,
               tag);
}

inline const char* kTinyGrid = R"({
  "name": "tiny",
  "defaults": {"epochs": 3, "warmup_epochs": 1, "repeats": 2},
  "experiments": [
    {"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"], "dataset_size": [50]}},
    {"workload": "boston_mlp", "settings": {"batch_size": 64}, "grid": {"device": ["cpu"]}}
  ]
})";

inline std::size_t lines_in(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// A results directory with one mnist_mlp cell whose epochs take `median` seconds (+-1 %), and an
// env.json with the given BLAS.
inline std::string results_dir(const ScratchDir& dir, const std::string& name, double median,
                               const std::string& blas = "openblas") {
  const std::string path = dir.file(name);
  fs::create_directories(path);
  Result r;
  r.cell.workload = "mnist_mlp";
  r.cell.dataset = "mnist";
  r.data_source = DataSource::kReal;
  r.train_rows = 1000;
  for (int i = 0; i < 30; ++i)
    r.epoch_seconds_samples.push_back(median * (1.0 + 0.001 * (i % 21 - 10)));
  r.epoch_seconds = median;
  std::ofstream(path + "/results.jsonl") << result_to_json(r).dump() << "\n";
  std::ofstream(path + "/env.json") << nlohmann::json{{"blas", {{"kind", blas}}}}.dump();
  return path;
}

}  // namespace crossover::testing
