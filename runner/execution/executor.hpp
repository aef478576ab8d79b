#pragma once
// Runs cells one at a time and measures them. A cell that cannot run here becomes a `skipped`
// result, one that throws becomes `failed`; neither stops the sweep.

#include <atomic>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/cells/device.hpp"
#include "core/costmodel/machine_profile.hpp"
#include "core/records/prices.hpp"
#include "core/records/results.hpp"
#include "runner/grid/skip.hpp"

namespace crossover {

class WorkerPool;

class Replicas;

/// The value of RunOptions::interrupted that stops a sweep whose results can no longer be written.
inline constexpr int kStopWriteFailed = -1;

/// Where a run reads its data, and how ddp cells start their ranks.
struct RunOptions {
  std::string data_dir = "data";
  std::map<Device, double> peak_gflops;  ///< measured peak per device (the CPU, cuda:0, ...)
  /// ddp: the crossover binary whose `worker` command runs a rank ("" = this process's).
  std::string binary;
  /// Set inside a ddp rank (by `crossover worker`): the replica group this process belongs to.
  /// Repeats then stop when rank 0 says so, so that every rank runs the same steps.
  Replicas* replicas = nullptr;
  /// Set (to the signal number, or kStopWriteFailed) when the run should stop: the cell running
  /// finishes, the cells after it become `not run`. Read before each cell; may be set from a
  /// signal handler.
  const std::atomic<int>* interrupted = nullptr;
  /// Run every cell in a child process (`run --isolate`), not only those with `isolate`.
  bool isolate = false;
  /// `run --fresh-process-per-cell`: an isolated cell starts a process of its own rather than
  /// going to a warm worker (runner/execution/launch.hpp).
  bool fresh_processes = false;
  /// The warm workers isolated cells go to, shared by every run_cells call of a sweep; null: each
  /// call keeps its own.
  std::shared_ptr<WorkerPool> workers;
  /// Prices per hour by device kind (the grid's "prices" and `run --price`): each result's cost.
  Prices prices;
  /// This machine's profile (env.json's): each ok cell's step is accounted for with it, its bound
  /// and predicted_* fields (core/costmodel/cost_model.hpp). None: no account.
  std::shared_ptr<const MachineProfile> profile;
  /// `run --predict cuda=FILE`: a CUDA cell this machine cannot run is predicted from its anatomy
  /// on the CPU and that profile's GPU (status `predicted`), not skipped.
  std::shared_ptr<const MachineProfile> predict_cuda;
  /// A share of a multi-process cell that is not its last (`worker --timing-only`): the merge
  /// keeps only its timings (core/records/processes.hpp), so it neither evaluates the model nor
  /// takes the step apart.
  bool timing_only = false;
};

/// Trains one runnable cell and measures it. Never throws: errors become status "failed".
///
/// Timing: per repeat, a fresh model (same seed); its first epoch timed alone (the first warm-up
/// epoch), the other warm-up epochs untimed, then `epochs` epochs each timed on a steady clock
/// with the device synchronised before every clock read. Repeats go on between min_repeats and
/// max_repeats until the median's 95 % CI is within ci_target or the time budget is spent.
/// Inside an epoch nothing syncs (timing "end_to_end"): the loss stays on the device and is read
/// once, at the end. Then one more epoch is timed step by step for the step distribution.
/// Timing "phases" synchronises at every phase boundary of the timed epochs, which costs time.
Result run_cell(const Cell& cell, const RunOptions& options);

/// The reason a cell failed, from what it threw: the first line of the message (LibTorch's
/// errors carry a C++ backtrace after it).
std::string failure_reason(const std::exception& error);

/// The warm workers (or, with options.fresh_processes, the fresh processes) for the isolated cells
/// of run_cells calls given these options.
std::shared_ptr<WorkerPool> make_worker_pool(const RunOptions& options);

/// Called after each cell with its result.
using ResultCallback = std::function<void(const Result&)>;

/// A CUDA cell this machine cannot run, predicted with `options.predict_cuda` from its anatomy on
/// this machine's CPU (runner/execution/anatomy.hpp): status `predicted`, its epoch and step the
/// model's, `prediction_error` the profile's validated error; `skipped` with the reason when it
/// cannot be.
Result predict_cell(const Cell& cell, const RunOptions& options);

/// Runs, predicts or skips every cell in order, as its plan says, calling `on_result` after each.
/// A ddp cell runs as
/// `nproc` worker processes and an isolated cell as one (runner/execution/launch.hpp); every other
/// cell in this process. Once `options.interrupted` is set, the remaining cells become results with
/// status `not run`.
std::vector<Result> run_cells(const std::vector<PlannedCell>& cells, const RunOptions& options,
                              const ResultCallback& on_result);

}  // namespace crossover
