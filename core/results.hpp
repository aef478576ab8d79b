#pragma once
// A cell's result, its flat JSON form (one line of results.jsonl), and the one place that writes
// result files: appended and flushed after every cell, so a crash keeps what finished.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/cell.hpp"
#include "core/file_writer.hpp"
#include "core/status.hpp"
#include "core/user_files.hpp"

namespace crossover {

/// The fields of a result after its cell's configuration, in results.jsonl order:
/// X(type, name). One list drives the struct, the JSON writer and the JSON reader.
#define CROSSOVER_RESULT_FIELDS(X)                                                                 \
  X(CellStatus, status)       /* ok, skipped, failed or not run */                                 \
  X(std::string, reason)      /* why skipped or failed; empty when ok */                           \
  X(std::string, data_source) /* "real" or "synthetic"; empty when the cell did not run */         \
  X(std::int64_t, train_rows)                                                                      \
  X(std::int64_t, test_rows)                                                                       \
  X(std::int64_t, steps_per_epoch)                                                                 \
  X(int, repeats)               /* repeats run: fresh model, warm-up, `epochs` timed epochs */     \
  X(std::string, stop_reason)   /* "ci_target", "max_repeats" or "time_budget" */                  \
  X(std::size_t, epoch_samples) /* timed epochs behind the statistics */                           \
  X(double, epoch_seconds)      /* median */                                                       \
  X(double, epoch_seconds_p25)                                                                     \
  X(double, epoch_seconds_p75)                                                                     \
  X(double, epoch_seconds_mean)                                                                    \
  X(double, epoch_seconds_stdev)                                                                   \
  X(double, epoch_seconds_min)                                                                     \
  X(double, epoch_seconds_max)                                                                     \
  X(double, epoch_seconds_ci_low) /* 95 % confidence interval of the median */                     \
  X(double, epoch_seconds_ci_high)                                                                 \
  X(bool, noisy)                                /* IQR / median above 10 % */                      \
  X(std::vector<double>, epoch_seconds_samples) /* every timed epoch, in order */                  \
  X(double, train_seconds) /* median over repeats of the time for `epochs` epochs */               \
  X(std::vector<double>, train_seconds_samples) /* one per repeat */                               \
  X(std::size_t, step_samples)                  /* steps timed one by one, in a separate epoch */  \
  X(double, step_seconds)                       /* median steady-state step */                     \
  X(double, step_seconds_p25)                                                                      \
  X(double, step_seconds_p75)                                                                      \
  X(std::vector<double>, step_seconds_samples) /* the timed steps, in order (thinned to 2,000) */  \
  X(double, device_init_seconds) /* first touch of the device in this process (CUDA context) */    \
  X(double, setup_seconds)       /* data set loaded and moved, workload built */                   \
  X(double, first_step_seconds)  /* fresh model to the end of its first step */                    \
  X(double, startup_seconds)     /* device_init + setup + first_step */                            \
  X(double, first_epoch_seconds) /* the first epoch of a fresh model, median over repeats */       \
  X(double, phase_data_seconds)  /* timing "phases": mean per step; 0 otherwise */                 \
  X(double, phase_copy_seconds)                                                                    \
  X(double, phase_forward_seconds)                                                                 \
  X(double, phase_backward_seconds)                                                                \
  X(double, phase_optimizer_seconds)                                                               \
  X(double, steps_per_second)                                                                      \
  X(double, samples_per_second)                                                                    \
  X(double, train_loss)           /* mean training loss of the last epoch */                       \
  X(std::string, metric)          /* "accuracy" or "rmse" */                                       \
  X(double, metric_value)         /* on the held-out test split */                                 \
  X(double, flops_per_sample)     /* training FLOPs per sample */                                  \
  X(std::string, flops_source)    /* "analytical", "estimated" (a user's model) or "" */           \
  X(double, achieved_gflops)      /* flops_per_sample * samples_per_second */                      \
  X(double, peak_gflops)          /* the device's measured float32 matmul peak */                  \
  X(double, peak_fraction)        /* achieved / peak */                                            \
  X(std::int64_t, peak_rss_bytes) /* the process's peak resident memory during the cell */         \
  X(std::int64_t, cuda_peak_allocated_bytes)                                                       \
  X(std::int64_t, cuda_peak_reserved_bytes)                                                        \
  X(int, intra_op_threads)     /* LibTorch's intra-op threads while the cell ran */                \
  X(int, blas_threads)         /* the BLAS library's threads (0 = unknown) */                      \
  X(double, allreduce_seconds) /* ddp: gradient all-reduce per step (rank 0), 0 otherwise */       \
  X(std::vector<double>, rank_epoch_seconds)     /* ddp: each rank's median epoch, by rank */      \
  X(std::vector<std::string>, parameter_digests) /* ddp: each rank's final parameters, hashed; */ \
  /* a deterministic cell's one */                                                                 \
  X(std::string, energy_source)    /* "rapl", "nvml", "nvml-power" or "unavailable" */             \
  X(std::string, energy_note)      /* why unavailable, or what else the counter covers */          \
  X(double, joules_per_epoch)      /* mean_watts * epoch_seconds; 0 when unavailable */            \
  X(double, mean_watts)            /* energy / time over the timed epochs */                       \
  X(bool, throttled)               /* the SM clock fell below 75 % of its maximum, or throttled */ \
  X(std::string, throttle_reasons) /* NVML's thermal and power reasons seen, "" when none */       \
  X(double, sm_clock_min_mhz)      /* GPU: the lowest SM clock sampled in the timed epochs */      \
  X(double, sm_clock_max_mhz)      /* GPU: its maximum */                                          \
  X(double, cpu_mhz_start) /* the CPU's frequency before and after the cell (0: unknown) */        \
  X(double, cpu_mhz_end)                                                                           \
  X(double, price_per_hour) /* the device's price (run --price, grid "prices"), 0: none */         \
  X(double, cost_per_epoch) /* price_per_hour / 3600 * epoch_seconds (* GPUs) */                   \
  X(double, cost_per_million_samples)           /* cost_per_epoch / train_rows * 1e6 */            \
  X(std::vector<double>, process_epoch_seconds) /* `processes` > 1: each process's median */       \
  X(std::vector<double>, process_step_seconds)  /* epoch and step, by process */                   \
  X(double, wall_seconds)                       /* the whole cell */                               \
  X(int, worker) /* the process that ran it: 0 the run's own, k the k-th child the run started */  \
  X(int, worker_cells_before) /* cells that process had run before this one (0: a fresh one) */    \
  /* The step's anatomy (one probed step after the timed epochs; core/step_anatomy.hpp) */         \
  X(std::int64_t, step_ops_data)      /* operators dispatched in the data and copy phases */       \
  X(std::int64_t, step_ops_forward)   /* in the forward pass and the loss */                       \
  X(std::int64_t, step_ops_backward)  /* in the backward pass */                                   \
  X(std::int64_t, step_ops_optimizer) /* in the optimiser's update */                              \
  X(double, step_flops)               /* matrix products and convolutions, per step */             \
  X(double, step_bytes)               /* tensors read and written by the operators, per step */    \
  X(double, step_h2d_bytes)           /* copied from the host to the device, per step */           \
  X(double, step_loader_seconds)      /* the probed step's wait for its batch (its data phase) */  \
  X(double, step_loader_share)        /* that wait's share of the probed step */                   \
  X(double, step_batch_seconds)       /* the epoch's first batch, made with none ready ahead */     \
  X(double, anatomy_seconds)          /* what probing the step cost (outside the timed epochs) */  \
  X(std::vector<std::vector<double>>, step_op_groups) /* [phase, count, flops, bytes] each */      \
  /* The cost model's account of the step (core/cost_model.hpp), from a machine profile */         \
  X(Bound, bound) /* dispatch, compute, memory, transfer or loader: the largest term; none */      \
  X(double, predicted_step_seconds)                                                                \
  X(double, predicted_epoch_seconds)                                                               \
  X(double, predicted_dispatch_seconds) /* the terms of the predicted step */                      \
  X(double, predicted_compute_seconds)                                                             \
  X(double, predicted_memory_seconds)                                                              \
  X(double, predicted_transfer_seconds)                                                            \
  X(double, predicted_loader_seconds)                                                              \
  X(std::string, prediction_profile) /* the machine profile the prediction used */                 \
  X(double, prediction_error)        /* a predicted cell: the model's validated error (0.3: 30 %) */

/// What happened to one cell. Times are seconds.
struct Result {
  Cell cell;
#define CROSSOVER_DECLARE_FIELD(type, name) type name{};
  CROSSOVER_RESULT_FIELDS(CROSSOVER_DECLARE_FIELD)
#undef CROSSOVER_DECLARE_FIELD
  Result() : status(CellStatus::kOk), bound(Bound::kNone) {}
};

/// The epoch and step samples one process stores for a cell (more are thinned, evenly spread):
/// a line of results.jsonl holds at most this many per process of its cell.
inline constexpr std::size_t kStoredSamplesPerProcess = 2000;

/// IQR / median above this makes a result `noisy`.
inline constexpr double kNoisyIqrRatio = 0.10;

/// The epoch statistics of `samples` (every timed epoch, not empty) into `result`: the median,
/// quartiles, mean, spread, extremes, the median's 95 % interval and `noisy`. The one place the
/// executor and the merge of a cell's processes compute them.
void set_epoch_statistics(Result& result, const std::vector<double>& samples);

/// The flat JSON object of results.jsonl: the cell's configuration, then its measurements.
nlohmann::ordered_json result_to_json(const Result& result);

/// Reads one results.jsonl object back; throws naming a missing key. Keys added after the first
/// format (parallel, nproc, output_device, isolate, timeout_seconds, step_seconds_samples and the
/// ddp fields) take their defaults when absent, so older results stay readable.
Result result_from_json(const nlohmann::json& json);

/// Why an ok result's values cannot be a measurement ("epoch_seconds is 0, not a positive time"):
/// times, rates and sizes negative or not finite, a sample not positive. "" when they can, and for
/// a result that is not ok.
std::string implausible_values(const Result& result);

/// Reads every line of a results.jsonl file; throws std::runtime_error naming file and line: a
/// line that is not a result, a cell given on two lines (a duplicated line), or more epoch or
/// step samples than a run stores (kStoredSamplesPerProcess per process). An ok result with
/// implausible values is read as failed, with the reason (and a warning). A last line without
/// its newline that does not parse (cut off mid-write) is ignored with a warning. With
/// Links::kRefuse a symbolic link at `path` is refused, not followed.
std::vector<Result> read_results(const std::string& path, Links links = Links::kFollow);

/// results.jsonl and results.csv in one directory, appended and synced per result.
class ResultFiles {
 public:
  /// Replaces both files in `directory` atomically with `first` (the cells a resumed run keeps),
  /// so that a run killed at any moment leaves either the earlier files or the new ones whole;
  /// throws std::runtime_error naming the file when it cannot.
  explicit ResultFiles(const std::string& directory, const std::vector<Result>& first = {});
  /// Appends and syncs one result; throws std::runtime_error naming the file and the system's
  /// reason (a full disk) when it cannot.
  void append(const Result& result);

 private:
  AppendFile jsonl_;
  AppendFile csv_;
};

/// Bytes a run of `cells` cells needs for its results and reports, generously.
std::uint64_t bytes_needed(std::size_t cells);

/// Why `directory` (which exists) cannot take a run of `cells` cells: "" when it can, else a
/// message with the free and the needed space.
std::string space_problem(const std::string& directory, std::size_t cells);

}  // namespace crossover
