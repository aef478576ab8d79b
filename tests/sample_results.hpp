#pragma once
// Results made up for the tests of compare, calibrate and the analysis: a CPU cell with given
// timing samples, a cell with samples spread evenly around a median, and seeded log-normal
// samples.

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
  r.data_source = DataSource::kReal;
  r.train_rows = 1000;
  r.epoch_seconds_samples = samples;
  r.step_seconds_samples = samples;
  r.epoch_samples = samples.size();
  return r;
}

/// An ok cell of the MNIST MLP on `device` at `batch` whose 21 epoch samples lie evenly within
/// ±`spread` of `median`, on 60,000 rows: what the analysis and recommendation tests pair.
inline Result spread_cell(std::size_t index, const std::string& device, std::int64_t batch,
                          double median, double spread = 0.01) {
  Result r;
  r.cell.index = index;
  r.cell.workload = "mnist_mlp";
  r.cell.dataset = "mnist";
  r.cell.device = parse_device(device).value();
  r.cell.gpus = device == "cpu" ? 0 : 1;
  r.cell.batch_size = batch;
  r.train_rows = 60000;
  r.epoch_seconds = median;
  r.samples_per_second = static_cast<double>(r.train_rows) / median;
  for (int i = 0; i < 21; ++i)
    r.epoch_seconds_samples.push_back(median * (1.0 + spread * (i - 10) / 10.0));
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
