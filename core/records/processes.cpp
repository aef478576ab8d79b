#include "core/records/processes.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/stats/stats.hpp"

namespace crossover {
namespace {

int share(int total, int processes) { return std::max(1, (total + processes - 1) / processes); }

template <typename Field>
double median_of(const std::vector<Result>& parts, Field field) {
  std::vector<double> values;
  for (const Result& r : parts) values.push_back(static_cast<double>(r.*field));
  return quantile(values, 0.5);
}

template <typename Field>
auto largest(const std::vector<Result>& parts, Field field) {
  auto best = parts.front().*field;
  for (const Result& r : parts) best = std::max(best, r.*field);
  return best;
}

// The statistics of the epoch and step samples, recomputed over every process's samples.
void recompute_statistics(Result& out) {
  const std::size_t epochs = out.epoch_samples;  // every process's count, not the stored ones
  set_epoch_statistics(out, out.epoch_seconds_samples);
  out.epoch_samples = epochs;
  out.train_seconds = quantile(out.train_seconds_samples, 0.5);
  if (!out.step_seconds_samples.empty()) {
    const Summary steps = summarize(out.step_seconds_samples);
    out.step_seconds = steps.median;
    out.step_seconds_p25 = steps.p25;
    out.step_seconds_p75 = steps.p75;
  }
}

// Energy and clocks: the processes' mean power weighted by their timed epochs' time (of those
// that read it), the lowest clock, any throttle, the CPU's frequency before the first and after
// the last.
void merge_energy(const std::vector<Result>& parts, Result& out) {
  Energy& merged = out.energy;
  double joules = 0.0, seconds = 0.0;
  for (const Result& r : parts) {
    const Energy& e = r.energy;
    if (e.mean_watts > 0.0) {
      double timed = 0.0;
      for (double s : r.epoch_seconds_samples) timed += s;
      joules += e.mean_watts * timed;
      seconds += timed;
    }
    merged.throttled = merged.throttled || e.throttled;
    if (merged.throttle_reasons.empty()) merged.throttle_reasons = e.throttle_reasons;
    if (e.sm_clock_min_mhz > 0.0 &&
        (merged.sm_clock_min_mhz == 0.0 || e.sm_clock_min_mhz < merged.sm_clock_min_mhz))
      merged.sm_clock_min_mhz = e.sm_clock_min_mhz;
  }
  merged.mean_watts = seconds > 0.0 ? joules / seconds : 0.0;
  merged.cpu_mhz_start = parts.front().energy.cpu_mhz_start;
}

}  // namespace

Cell process_share(const Cell& cell) {
  Cell part = cell;
  const int n = std::max(1, cell.processes);
  part.processes = 1;
  part.min_repeats = share(cell.min_repeats, n);
  part.max_repeats = std::max(part.min_repeats, share(cell.max_repeats, n));
  part.time_budget_seconds = cell.time_budget_seconds / n;
  return part;
}

Result merge_processes(const Cell& cell, const std::vector<Result>& parts) {
  if (parts.empty()) throw std::invalid_argument("merge_processes: no process results");
  const std::string of = " of " + std::to_string(parts.size()) + ": ";
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (parts[k].status == CellStatus::kOk) continue;
    Result failed = parts[k];
    failed.cell = cell;
    failed.reason = "process " + std::to_string(k + 1) + of + failed.reason;
    return failed;
  }
  Result out = parts.back();  // the last model's loss and metric, as one process reports its last
  out.cell = cell;
  out.repeats = 0;
  out.epoch_samples = out.step_samples = 0;
  out.epoch_seconds_samples.clear();
  out.train_seconds_samples.clear();
  out.step_seconds_samples.clear();
  out.wall_seconds = 0.0;
  for (const Result& r : parts) {
    out.repeats += r.repeats;
    out.epoch_samples += r.epoch_samples;
    out.step_samples += r.step_samples;
    const auto append = [](std::vector<double>& to, const std::vector<double>& from) {
      to.insert(to.end(), from.begin(), from.end());
    };
    append(out.epoch_seconds_samples, r.epoch_seconds_samples);
    append(out.train_seconds_samples, r.train_seconds_samples);
    append(out.step_seconds_samples, r.step_seconds_samples);
    out.process_epoch_seconds.push_back(r.epoch_seconds);
    out.process_step_seconds.push_back(r.step_seconds);
    out.wall_seconds += r.wall_seconds;
  }
  recompute_statistics(out);
  out.device_init_seconds = median_of(parts, &Result::device_init_seconds);
  out.setup_seconds = median_of(parts, &Result::setup_seconds);
  out.first_step_seconds = median_of(parts, &Result::first_step_seconds);
  out.startup_seconds = median_of(parts, &Result::startup_seconds);
  out.first_epoch_seconds = median_of(parts, &Result::first_epoch_seconds);
  for (auto phase :
       {&Result::phase_data_seconds, &Result::phase_copy_seconds, &Result::phase_forward_seconds,
        &Result::phase_backward_seconds, &Result::phase_optimizer_seconds}) {
    out.*phase = median_of(parts, phase);
  }
  merge_energy(parts, out);
  // Counts: every process's epochs, as the times.
  std::vector<double> instructions, cycles;
  for (const Result& r : parts) {
    const Counts& c = r.counts;
    instructions.insert(instructions.end(), c.instructions_samples.begin(),
                        c.instructions_samples.end());
    cycles.insert(cycles.end(), c.estimated_cycles_samples.begin(),
                  c.estimated_cycles_samples.end());
  }
  out.counts.set_samples(std::move(instructions), std::move(cycles),
                         static_cast<double>(out.steps_per_epoch));
  set_rates(out);
  out.peak_rss_bytes = largest(parts, &Result::peak_rss_bytes);
  out.cuda_peak_allocated_bytes = largest(parts, &Result::cuda_peak_allocated_bytes);
  out.cuda_peak_reserved_bytes = largest(parts, &Result::cuda_peak_reserved_bytes);
  return out;
}

}  // namespace crossover
