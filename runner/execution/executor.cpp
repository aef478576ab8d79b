#include "runner/execution/executor.hpp"

#include <ATen/Context.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/costmodel/cost_model.hpp"
#include "core/records/prediction.hpp"
#include "core/records/prices.hpp"
#include "core/records/processes.hpp"
#include "core/stats/stats.hpp"
#include "core/text/clock.hpp"
#include "core/text/text.hpp"
#include "runner/execution/anatomy.hpp"
#include "runner/execution/busy_load.hpp"
#include "runner/execution/launch.hpp"
#include "runner/execution/watchdog.hpp"
#include "runner/hardware/counter.hpp"
#include "runner/hardware/cuda_seam.hpp"
#include "runner/hardware/cuda_seam_parallel.hpp"
#include "runner/hardware/devices.hpp"
#include "runner/hardware/energy.hpp"
#include "runner/hardware/memory.hpp"
#include "runner/hardware/threads.hpp"
#include "workloads/models/user_model.hpp"
#include "workloads/training/workload.hpp"

namespace crossover {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Times steps one by one, synchronising the device at step boundaries only, up to `limit` steps.
class StepClock : public StepObserver {
 public:
  StepClock(Device device, std::size_t limit, Clock::time_point start)
      : device_(device), limit_(limit), last_(start) {}
  void phase_end(Phase phase) override {
    if (phase != Phase::kOptimizer || samples_.size() >= limit_) return;
    synchronize_device(device_);
    const Clock::time_point now = Clock::now();
    samples_.push_back(seconds_between(last_, now));
    last_ = now;
  }
  const std::vector<double>& samples() const { return samples_; }

 private:
  Device device_;
  std::size_t limit_;
  Clock::time_point last_;
  std::vector<double> samples_;
};

// Times every phase of every step, synchronising the device at every phase boundary.
class PhaseClock : public StepObserver {
 public:
  explicit PhaseClock(Device device) : device_(device) {}
  void start() {
    synchronize_device(device_);
    last_ = Clock::now();
  }
  void phase_end(Phase phase) override {
    synchronize_device(device_);
    const Clock::time_point now = Clock::now();
    totals_[static_cast<std::size_t>(phase)] += seconds_between(last_, now);
    last_ = now;
    if (phase == Phase::kOptimizer) ++steps_;
  }
  double mean(Phase phase) const {
    return steps_ == 0 ? 0.0
                       : totals_[static_cast<std::size_t>(phase)] / static_cast<double>(steps_);
  }

 private:
  Device device_;
  Clock::time_point last_;
  std::array<double, kPhaseCount> totals_{};
  std::size_t steps_ = 0;
};

// Seed 004's reproducibility switch, restored when the cell ends.
class DeterminismScope {
 public:
  explicit DeterminismScope(bool on)
      : algorithms_(at::globalContext().deterministicAlgorithms()),
        warn_only_(at::globalContext().deterministicAlgorithmsWarnOnly()),
        cudnn_deterministic_(at::globalContext().deterministicCuDNN()),
        cudnn_benchmark_(at::globalContext().benchmarkCuDNN()) {
    if (!on) return;
    at::globalContext().setDeterministicAlgorithms(true, false);
    at::globalContext().setDeterministicCuDNN(true);
    at::globalContext().setBenchmarkCuDNN(false);
  }
  ~DeterminismScope() {
    at::globalContext().setDeterministicAlgorithms(algorithms_, warn_only_);
    at::globalContext().setDeterministicCuDNN(cudnn_deterministic_);
    at::globalContext().setBenchmarkCuDNN(cudnn_benchmark_);
  }

 private:
  bool algorithms_, warn_only_, cudnn_deterministic_, cudnn_benchmark_;
};

// Keeps at most `limit` samples, evenly spread, so a 30,000-epoch cell stays a readable line.
std::vector<double> thinned(const std::vector<double>& samples, std::size_t limit) {
  if (samples.size() <= limit) return samples;
  std::vector<double> out;
  for (std::size_t i = 0; i < limit; ++i) out.push_back(samples[i * samples.size() / limit]);
  return out;
}

// Steps a graph cell runs on a side stream before capturing one (torch.cuda.graph's advice).
constexpr int kGraphWarmupSteps = 3;

// Replicas run in lockstep (every step all-reduces), so they must stop after the same repeat:
// rank 0's stopping decision is broadcast to all.
StopReason rank_zero_says(Replicas& replicas, StopReason own) {
  std::vector<torch::Tensor> code = {
      torch::full({1}, static_cast<std::int64_t>(own), torch::kLong)};
  replicas.broadcast(code);
  const std::int64_t said = code[0].item<std::int64_t>();
  for (const auto& [reason, word] : words(StopReason{})) {
    if (static_cast<std::int64_t>(reason) == said) return reason;
  }
  return own;
}

// Setting up: the device's first touch, the model, the data and the data path, timed into
// `result` with the workload's facts.
std::unique_ptr<Workload> set_up(const Cell& cell, const RunOptions& options, Result& result) {
  // The device's first touch comes before its memory statistics: LibTorch's caching allocator
  // knows a device only after its first allocation (before, it answers "Invalid device argument").
  result.device_init_seconds = device_init_seconds(cell.device);
  const int cuda = cell.device.cuda_index();
  if (cuda >= 0) cuda_seam::reset_peak_memory(cuda);
  const torch::Device device(cell.device.text());
  const Clock::time_point setup_start = Clock::now();
  DataParallelForward data_parallel;
  if (cell.parallel == Parallel::kDp) {
    std::vector<int> devices;
    for (int i = 0; i < cell.gpus; ++i) devices.push_back(cuda + i);
    const int output = cuda + cell.output_device;
    data_parallel.forward = [devices, output](torch::nn::Sequential& model,
                                              const torch::Tensor& input) {
      return cuda_seam::data_parallel(model, input, devices, output);
    };
    data_parallel.output = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(output));
  }
  GraphCapture graph;
  if (cell.execution == Execution::kGraph) {
    graph.capture = [cuda](const std::function<void()>& step) {
      return cuda_seam::capture_graph(cuda, step, kGraphWarmupSteps);
    };
  }
  auto workload = make_workload(cell, device, options.data_dir, options.replicas,
                                std::move(data_parallel), std::move(graph));
  synchronize_device(cell.device);
  result.setup_seconds = seconds_since(setup_start);
  record_facts(workload->facts(), result);
  return workload;
}

// What the repeats measured.
struct Repeats {
  std::vector<double> epoch_samples;  // every timed epoch of every repeat
  std::vector<double> first_epochs;   // each fresh model's first epoch
  std::vector<CountReading> counts;   // a counted cell's timed epochs, in order
  torch::Tensor last_loss;
};

// One repeat: a freshly initialised model, its first epoch timed on its own (and its first step,
// from the model's creation: first-call costs), the warm-up, then the timed epochs into `stop`.
// Returns the repeat's timed seconds.
double one_repeat(const Cell& cell, Workload& workload, PhaseClock& phases, AdaptiveRepeats& stop,
                  Repeats& out, Result& result, EnergyMeter& energy, EpochExtras& extras) {
  synchronize_device(cell.device);
  const Clock::time_point reset_start = Clock::now();
  workload.reset(cell.seed);
  StepClock first_step(cell.device, 1, reset_start);
  const Clock::time_point first_start = Clock::now();
  out.last_loss = workload.train_epoch(&first_step);
  synchronize_device(cell.device);
  out.first_epochs.push_back(seconds_since(first_start));
  if (out.first_epochs.size() == 1) result.first_step_seconds = first_step.samples().front();

  // The first epoch is the first warm-up epoch; with no warm-up it is the first timed one.
  for (int e = 1; e < cell.warmup_epochs; ++e) workload.train_epoch();
  double repeat_seconds = 0.0;
  int timed = cell.epochs;
  if (cell.warmup_epochs == 0) {
    stop.add(out.first_epochs.back());
    repeat_seconds += out.first_epochs.back();
    --timed;
  }
  StepObserver* observer = cell.timing == Timing::kPhases ? &phases : nullptr;
  // Planted regressions (checked when the run began): CROSSOVER_PLANT_SLOWDOWN spins for that
  // share of each epoch's time; CROSSOVER_PLANT_WORK does that share of its work again.
  const double slowdown = extras.slowdown;
  synchronize_device(cell.device);
  energy.start();  // the energy's span holds the timed epochs' and little more
  Clock::time_point epoch_start = Clock::now();
  for (int e = 0; e < timed; ++e) {
    if (observer != nullptr) phases.start();
    if (extras.counter != nullptr) extras.counter->start();
    out.last_loss = workload.train_epoch(observer);
    synchronize_device(cell.device);
    CountReading count = extras.counter != nullptr ? extras.counter->stop() : CountReading{};
    extras.work.after_epoch(seconds_since(epoch_start), extras.counter, count);
    if (extras.counter != nullptr) out.counts.push_back(count);
    Clock::time_point now = Clock::now();
    if (slowdown > 0.0) {
      const Clock::time_point until =
          now + std::chrono::duration_cast<Clock::duration>((now - epoch_start) * slowdown);
      while (now < until) now = Clock::now();
    }
    stop.add(seconds_between(epoch_start, now));
    repeat_seconds += seconds_between(epoch_start, now);
    epoch_start = now;
  }
  if (extras.counter != nullptr) extras.counter->pause();
  energy.stop();
  return repeat_seconds;
}

// Repeats under the cell's stopping rule until it says stop (replicas follow rank 0).
Repeats repeat_until_stopped(const Cell& cell, const RunOptions& options, Workload& workload,
                             PhaseClock& phases, Result& result, EnergyMeter& energy,
                             EpochExtras& extras) {
  // A counted cell runs exactly min_repeats repeats: a budget would cut it short unevenly.
  const bool counted = cell.count != Count::kNone;
  AdaptiveRepeats stop(
      StoppingRule{cell.min_repeats, counted ? cell.min_repeats : cell.max_repeats,
                   counted ? std::numeric_limits<double>::infinity() : cell.time_budget_seconds,
                   counted ? 0.0 : cell.ci_target},
      std::min<std::size_t>(
          static_cast<std::size_t>(cell.max_repeats) * static_cast<std::size_t>(cell.epochs),
          std::size_t{1} << 24));
  Repeats out;
  const Clock::time_point repeats_start = Clock::now();
  while (!stop.finished()) {
    result.train_seconds_samples.push_back(
        one_repeat(cell, workload, phases, stop, out, result, energy, extras));
    stop.end_repeat(seconds_since(repeats_start));
    if (options.replicas != nullptr) stop.decide(rank_zero_says(*options.replicas, stop.reason()));
  }
  result.stop_reason = stop.reason();
  result.repeats = stop.repeats();
  out.epoch_samples = stop.samples();
  return out;
}

// The statistics of the samples, into the result's fields.
void record_statistics(const Repeats& repeats, const std::vector<double>& step_samples,
                       const PhaseClock& phases, Result& result) {
  const std::vector<double>& epoch_samples = repeats.epoch_samples;
  set_epoch_statistics(result, epoch_samples);
  result.epoch_seconds_samples = thinned(epoch_samples, kStoredSamplesPerProcess);
  result.train_seconds = summarize(result.train_seconds_samples).median;
  const Summary steps = summarize(step_samples);
  result.step_samples = steps.count;
  result.step_seconds = steps.median;
  result.step_seconds_p25 = steps.p25;
  result.step_seconds_p75 = steps.p75;
  result.step_seconds_samples = thinned(step_samples, kStoredSamplesPerProcess);
  result.first_epoch_seconds = summarize(repeats.first_epochs).median;
  result.startup_seconds =
      result.device_init_seconds + result.setup_seconds + result.first_step_seconds;
  result.phase_data_seconds = phases.mean(Phase::kData);
  result.phase_copy_seconds = phases.mean(Phase::kCopy);
  result.phase_forward_seconds = phases.mean(Phase::kForward);
  result.phase_backward_seconds = phases.mean(Phase::kBackward);
  result.phase_optimizer_seconds = phases.mean(Phase::kOptimizer);
}

// What the energy meter saw over the timed epochs, into the result's fields.
void record_energy(const EnergyTotals& energy, Result& result) {
  result.energy.energy_source = energy.source;
  result.energy.energy_note = energy.note;
  if (energy.source != EnergySource::kUnavailable && energy.seconds > 0.0)
    result.energy.mean_watts = energy.joules / energy.seconds;
  result.energy.sm_clock_min_mhz = energy.sm_clock_min_mhz;
  result.energy.sm_clock_max_mhz = energy.sm_clock_max_mhz;
  result.energy.throttle_reasons = throttle_reason_names(energy.throttle_reasons);
  result.energy.throttled = throttled(energy);
}

// Measures one cell in phases: set-up, repeats under the stopping rule, the steady-state step
// distribution, evaluation, then the statistics and the machine's peaks.
void measure(const Cell& cell, const RunOptions& options, Result& result) {
  apply_threads(cell.threads);
  const DeterminismScope determinism(cell.deterministic);
  const ThreadCounts threads = current_threads();
  result.intra_op_threads = threads.intra_op;
  result.blas_threads = threads.blas;
  reset_peak_rss();
  const std::unique_ptr<Workload> workload = set_up(cell, options, result);
  const WorkloadFacts& facts = workload->facts();
  PhaseClock phases(cell.device);
  const int cuda = cell.device.cuda_index();
  const auto energy = energy_meter(cell.device.kind, std::max(cuda, 0), cell.gpus);
  result.energy.cpu_mhz_start = cpu_mhz();
  const std::unique_ptr<InstructionCounter> counter =
      cell.count != Count::kNone ? open_counter(cell.count) : nullptr;
  EpochExtras extras{counter.get(), planted_slowdown_from_environment(),
                     PlantedWork(planted_work_from_environment())};
  Repeats repeats = repeat_until_stopped(cell, options, *workload, phases, result, *energy, extras);
  if (counter != nullptr && !repeats.counts.empty())
    record_counts(repeats.counts, *counter, cell.count, static_cast<double>(facts.steps_per_epoch),
                  result.counts);
  result.energy.cpu_mhz_end = cpu_mhz();

  // The steady-state step distribution: one more epoch, timed step by step. With one step per
  // epoch the epoch samples already are the step samples.
  std::vector<double> step_samples = repeats.epoch_samples;
  if (facts.steps_per_epoch > 1) {
    synchronize_device(cell.device);
    StepClock steps(cell.device, std::numeric_limits<std::size_t>::max(), Clock::now());
    repeats.last_loss = workload->train_epoch(&steps);
    step_samples = steps.samples();
  }
  result.train_loss = repeats.last_loss.item<double>();
  // A user's model whose loss is not a number has not trained: a failure with why, not a result.
  if (cell.workload == kUserModelWorkload && !std::isfinite(result.train_loss))
    throw std::runtime_error(std::string("the model's training loss is ") +
                             (std::isnan(result.train_loss) ? "NaN" : "infinite") +
                             " after its last epoch: its outputs or gradients "
                             "overflow; lower lr, or check the model's forward");
  // A counted cell is neither evaluated nor taken apart: under Callgrind both are minutes.
  const bool counted = cell.count != Count::kNone;
  if (!options.timing_only && !counted) result.metric_value = workload->evaluate();
  if (counted) result.metric.clear();
  record_statistics(repeats, step_samples, phases, result);
  record_energy(energy->totals(), result);

  const auto peak = options.peak_gflops.find(cuda >= 0 ? Device::cuda(cuda) : Device::cpu());
  if (peak != options.peak_gflops.end() && peak->second > 0.0) result.peak_gflops = peak->second;
  set_rates(result);
  result.peak_rss_bytes = peak_rss_bytes();
  // A ddp rank's, gathered by rank 0; a deterministic cell's, which two runs must share.
  if (options.replicas != nullptr || cell.deterministic)
    result.parameter_digests = {workload->parameters_digest()};
  if (cuda >= 0) {
    const cuda_seam::DeviceMemory memory = cuda_seam::peak_memory(cuda);
    result.cuda_peak_allocated_bytes = memory.peak_allocated_bytes;
    result.cuda_peak_reserved_bytes = memory.peak_reserved_bytes;
  }
  // Last: the probe trains a few steps more, outside everything measured above.
  if (!options.timing_only && !counted) record_anatomy(cell, *workload, options.data_dir, result);
}

}  // namespace

Result run_cell(const Cell& cell, const RunOptions& options) {
  Result result;
  result.cell = cell;
  const Clock::time_point start = Clock::now();
  try {
    measure(cell, options, result);
  } catch (const std::exception& e) {
    result.status = CellStatus::kFailed;
    result.reason = failure_reason(e);
  }
  result.wall_seconds = seconds_since(start);
  return result;
}

std::string failure_reason(const std::exception& error) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&error);
  const std::string message =
      c10_error != nullptr ? c10_error->what_without_backtrace() : std::string(error.what());
  // A user's model that raised: its own message, not the interpreter's first line.
  if (message.find("TorchScript interpreter") != std::string::npos)
    return script_error_summary(message);
  return message.substr(0, message.find('\n'));
}

Result predict_cell(const Cell& cell, const RunOptions& options) {
  Result r;
  r.cell = cell;
  const Clock::time_point start = Clock::now();
  const MachineProfile& profile = *options.predict_cuda;
  Found refusal = prediction_refusal(cell);
  if (!refusal && !profile.cuda) refusal = Problem("the profile " + profile.name + " has no GPU");
  if (!refusal) {
    try {
      record_twin_anatomy(cell, options.data_dir, r);
    } catch (const std::exception& e) {
      refusal = Problem("its step could not be taken apart on the CPU: " + failure_reason(e));
    }
  }
  std::optional<Result> predicted;
  if (!refusal) {
    predicted = predicted_result(r, profile);
    refusal = predicted ? predicted_past_ceiling(*predicted)
                        : Problem("the cost model has nothing to say of its step");
  }
  if (refusal) {
    r.status = CellStatus::kSkipped;
    r.reason = "no CUDA here, and not predicted: " + refusal->text;
    return r;
  }
  r = std::move(*predicted);
  r.status = CellStatus::kPredicted;
  const auto validation = profile.validation.find(r.cell.device.kind);
  r.reason = "by the cost model with the profile " + profile.name + " (no CUDA here; " +
             (r.prediction.prediction_error > 0.0 && validation != profile.validation.end()
                  ? band_validation_text(validation->second)
                  : std::string("no band validated against real runs")) +
             ")";
  r.wall_seconds = seconds_since(start);
  return r;
}

namespace {

LaunchOptions launch_options(const RunOptions& options) {
  return LaunchOptions{options.binary, options.data_dir, 0.0, false, options.interrupted};
}

// A cell with `processes` > 1: its share of the repeats in each of that many child processes,
// one after another, merged; the first process that does not end ok ends the cell.
// Each a fresh process, whose own start is the point: the variation between processes.
Result run_in_processes(const Cell& cell, WorkerPool& pool) {
  const Clock::time_point start = Clock::now();
  const Cell share = process_share(cell);
  std::vector<Result> parts;
  for (int k = 0; k < cell.processes; ++k) {
    // The merge keeps the last process's metric and anatomy: the others only time.
    parts.push_back(pool.run_fresh(share, k + 1 < cell.processes));
    if (parts.back().status != CellStatus::kOk) break;
  }
  Result result = merge_processes(cell, parts);
  result.worker = parts.back().worker;
  result.wall_seconds = seconds_since(start);
  return result;
}

}  // namespace

std::shared_ptr<WorkerPool> make_worker_pool(const RunOptions& options) {
  return std::make_shared<WorkerPool>(launch_options(options), !options.fresh_processes);
}

std::vector<Result> run_cells(const std::vector<PlannedCell>& cells, const RunOptions& options,
                              const ResultCallback& on_result) {
  std::vector<Result> results;
  const std::shared_ptr<WorkerPool> pool =
      options.workers != nullptr ? options.workers : make_worker_pool(options);
  for (const auto& [cell, plan] : cells) {
    Result result;
    const int signal = options.interrupted != nullptr ? options.interrupted->load() : 0;
    if (signal != 0) {
      result.cell = cell;
      result.status = CellStatus::kNotRun;
      result.reason = signal == kStopWriteFailed
                          ? "the sweep stopped before this cell: its results could not be written"
                          : std::string("the run was interrupted (") + strsignal(signal) +
                                ") before this cell started";
    } else if (plan.action == CellPlan::Action::kPredict) {
      result = predict_cell(cell, options);
    } else if (plan.action == CellPlan::Action::kSkip) {
      result.cell = cell;
      result.status = CellStatus::kSkipped;
      result.reason = plan.reason;
    } else if (cell.processes > 1) {
      result = run_in_processes(cell, *pool);
    } else if (cell.parallel == Parallel::kDdp || cell.isolate || options.isolate) {
      result = pool->run(cell);
    } else {
      const CellWatchdog watchdog(
          cell_label(cell),
          cell.timeout_seconds > 0.0 ? cell.timeout_seconds : default_timeout_seconds(cell),
          CellWatchdog::kRunStops, options.interrupted);
      result = run_cell(cell, options);
    }
    if (options.profile && result.status == CellStatus::kOk)
      apply_prediction(result, *options.profile);
    apply_price(result, options.prices);
    results.push_back(result);
    if (on_result) on_result(results.back());
  }
  apply_threads(0);
  return results;
}

}  // namespace crossover
