#include "runner/executor.hpp"

#include <chrono>

#include "runner/devices.hpp"
#include "runner/stats.hpp"
#include "runner/threads.hpp"
#include "workloads/workload.hpp"

namespace crossover {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void measure(const Cell& cell, const RunOptions& options, Result& result) {
  apply_threads(cell.threads);
  const ThreadCounts threads = current_threads();
  result.intra_op_threads = threads.intra_op;
  result.blas_threads = threads.blas;

  const torch::Device device(cell.device);
  auto workload = make_workload(cell, device, options.data_dir);
  const WorkloadFacts& facts = workload->facts();
  result.data_source = facts.data_source;
  result.train_rows = facts.train_rows;
  result.test_rows = facts.test_rows;
  result.steps_per_epoch = facts.steps_per_epoch;
  result.metric = facts.metric;
  result.flops_per_sample = facts.flops_per_sample;

  std::vector<double> epoch_seconds;
  epoch_seconds.reserve(static_cast<std::size_t>(cell.epochs) *
                        static_cast<std::size_t>(cell.repeats));
  torch::Tensor last_loss;
  for (int repeat = 0; repeat < cell.repeats; ++repeat) {
    workload->reset(cell.seed);
    for (int e = 0; e < cell.warmup_epochs; ++e) workload->train_epoch();
    synchronize_device(cell.device);
    const Clock::time_point repeat_start = Clock::now();
    Clock::time_point epoch_start = repeat_start;
    for (int e = 0; e < cell.epochs; ++e) {
      last_loss = workload->train_epoch();
      synchronize_device(cell.device);
      const Clock::time_point now = Clock::now();
      epoch_seconds.push_back(std::chrono::duration<double>(now - epoch_start).count());
      epoch_start = now;
    }
    result.train_seconds_samples.push_back(seconds_since(repeat_start));
  }
  result.train_loss = last_loss.item<double>();
  result.metric_value = workload->evaluate();

  const Summary s = summarize(epoch_seconds);
  result.epoch_samples = s.count;
  result.epoch_seconds = s.median;
  result.epoch_seconds_p25 = s.p25;
  result.epoch_seconds_p75 = s.p75;
  result.epoch_seconds_mean = s.mean;
  result.epoch_seconds_min = s.min;
  result.epoch_seconds_max = s.max;
  result.train_seconds = summarize(result.train_seconds_samples).median;
  result.steps_per_second = static_cast<double>(facts.steps_per_epoch) / s.median;
  result.samples_per_second = static_cast<double>(facts.train_rows) / s.median;
}

}  // namespace

Result run_cell(const Cell& cell, const RunOptions& options) {
  Result result;
  result.cell = cell;
  const Clock::time_point start = Clock::now();
  try {
    measure(cell, options, result);
  } catch (const std::exception& e) {
    result.status = "failed";
    // LibTorch errors carry a C++ backtrace after the first line; the first line is the message.
    std::string message = e.what();
    const auto newline = message.find('\n');
    result.reason = newline == std::string::npos ? message : message.substr(0, newline);
  }
  result.wall_seconds = seconds_since(start);
  return result;
}

std::vector<Result> run_cells(const std::vector<Cell>& cells, const DeviceInventory& inventory,
                              const RunOptions& options, const ResultCallback& on_result) {
  std::vector<Result> results;
  for (const Cell& cell : cells) {
    Result result;
    if (auto reason = skip_reason(cell, inventory)) {
      result.cell = cell;
      result.status = "skipped";
      result.reason = *reason;
    } else {
      result = run_cell(cell, options);
    }
    results.push_back(result);
    if (on_result) on_result(results.back(), results.size(), cells.size());
  }
  apply_threads(0);
  return results;
}

}  // namespace crossover
