#pragma once
// Results made up for the tests of compare and calibrate: a CPU cell with given timing samples,
// and seeded log-normal samples.

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/records/results.hpp"

namespace crossover::testing {

/// A cell of `workload` on the CPU whose epoch (and step) samples are `samples`.
inline Result sample_result(std::size_t index, const std::string& workload,
                            const std::vector<double>& samples) {
  Result r;
  r.cell.index = index;
  r.cell.workload = workload;
  r.cell.dataset = workload == "iris_mlp" ? "iris" : "mnist";
  r.cell.gpus = 0;
  r.data_source = "real";
  r.train_rows = 1000;
  r.epoch_seconds_samples = samples;
  r.step_seconds_samples = samples;
  r.epoch_samples = samples.size();
  return r;
}

/// `n` samples around `median` with relative normal noise `noise`.
inline std::vector<double> noisy(std::mt19937_64& rng, std::size_t n, double median, double noise) {
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(median * std::exp(noise * z(rng)));
  return out;
}

}  // namespace crossover::testing
