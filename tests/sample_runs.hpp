#pragma once
// Runs made up for the tests of compare's one-run evidence (tests/test_calibration.cpp,
// tests/test_gate_rules.cpp): an env.json with a reference, a cell of the MNIST MLP, a run of
// one cell, and samples around a median.

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/records/environment.hpp"
#include "core/records/run_record.hpp"
#include "tests/sample_results.hpp"

namespace crossover::testing {

/// An env.json record whose references took these times before and after the cells.
inline Environment env_with_reference(double matmul, double step, double after_factor = 1.0) {
  return environment_from_json(nlohmann::ordered_json{
      {"host", {{"hostname", "runner-1"}}},
      {"cpu", {{"model", "Test CPU"}, {"logical_cores", 2}}},
      {"reference",
       {{"before", {{"matmul_seconds", matmul}, {"step_seconds", step}}},
        {"after",
         {{"matmul_seconds", matmul * after_factor}, {"step_seconds", step * after_factor}}}}}});
}

/// An ok CPU cell of the MNIST MLP at `batch` whose epoch and step samples are `samples`.
inline Result cell(std::size_t index, int batch, const std::vector<double>& samples) {
  Result r = sample_result(index, "mnist_mlp", samples);
  r.cell.batch_size = batch;
  r.train_rows = 4096;
  return r;
}

/// A run of the batch-512 cell alone.
inline RunRecord one_cell_run(const std::vector<double>& samples, const Environment& env) {
  RunRecord r;
  r.results = {cell(0, 512, samples)};
  r.environment = env;
  r.label = "run";
  return r;
}

/// Ten samples around `median`, 0.5 % apart (the same ten for every call).
inline std::vector<double> around(double median) {
  std::mt19937_64 rng(7);
  return noisy(rng, 10, median, 0.005);
}

}  // namespace crossover::testing
