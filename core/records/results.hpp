#pragma once
// A cell's result, its flat JSON form (one line of results.jsonl), and the one place that writes
// result files: appended and flushed after every cell, so a crash keeps what finished.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/files/file_writer.hpp"
#include "core/files/user_files.hpp"
#include "core/records/data_source.hpp"
#include "core/records/result_parts.hpp"
#include "core/records/status.hpp"
#include "core/stats/stats.hpp"
#include "core/text/problem.hpp"

namespace crossover {

/// What a result field's numbers are: docs/outputs.md gives each column's unit in these words.
/// `report --measure energy|cost` (reports/analysis/energy_and_cost.cpp) turns every kEpochSeconds
/// and kEpochSamples value into joules or money per epoch and every kPerSecond one into a rate per
/// joule or per unit of money; the lists of every sample (kEpochSamples, kStepSamples, kOpGroups)
/// are left out of results.csv.
enum class Unit {
  kNone,             ///< a word, a flag, a name, a loss or a metric
  kCount,            ///< rows, steps, repeats, operators, threads
  kSeconds,          ///< a time other than an epoch's: start-up, a step, a phase, a repeat
  kEpochSeconds,     ///< an epoch's time, or a statistic of epoch times
  kEpochSamples,     ///< every timed epoch's time, in order
  kStepSamples,      ///< every timed step's time, in order
  kPerSecond,        ///< samples or steps per second
  kFlops,            ///< floating-point operations
  kGflopsPerSecond,  ///< 10^9 floating-point operations per second
  kBytes,
  kJoules,
  kWatts,
  kMegahertz,
  kPricePerHour,  ///< money per hour
  kPrice,         ///< money
  kFraction,      ///< 0 to 1 (0.3: 30 %)
  kOpGroups,      ///< rows of [phase, count, FLOPs each, bytes each]
  kInstructions,  ///< instructions or estimated cycles counted (core/records/result_parts.hpp)
  kCountSamples,  ///< every counted epoch's instructions or cycles, in order
};
inline constexpr auto words(Unit) {
  return std::array{
      std::pair{Unit::kNone, std::string_view("")},
      std::pair{Unit::kCount, std::string_view("count")},
      std::pair{Unit::kSeconds, std::string_view("s")},
      std::pair{Unit::kEpochSeconds, std::string_view("s per epoch")},
      std::pair{Unit::kEpochSamples, std::string_view("s per epoch, each")},
      std::pair{Unit::kStepSamples, std::string_view("s per step, each")},
      std::pair{Unit::kPerSecond, std::string_view("per s")},
      std::pair{Unit::kFlops, std::string_view("FLOP")},
      std::pair{Unit::kGflopsPerSecond, std::string_view("GFLOP/s")},
      std::pair{Unit::kBytes, std::string_view("bytes")},
      std::pair{Unit::kJoules, std::string_view("J")},
      std::pair{Unit::kWatts, std::string_view("W")},
      std::pair{Unit::kMegahertz, std::string_view("MHz")},
      std::pair{Unit::kPricePerHour, std::string_view("money per hour")},
      std::pair{Unit::kPrice, std::string_view("money")},
      std::pair{Unit::kFraction, std::string_view("fraction")},
      std::pair{Unit::kOpGroups, std::string_view("rows")},
      std::pair{Unit::kInstructions, std::string_view("instructions")},
      std::pair{Unit::kCountSamples, std::string_view("instructions per epoch, each")}};
}

/// The largest value a field of this unit can hold in a real run, read back (docs/outputs.md,
/// "Nothing lost, nothing followed"): an epoch or a step of at most a day, any other time of at
/// most 30 days, 10^12 samples per second, 10^7 GFLOP/s, 10^16 bytes, ... Infinity for kNone. An
/// ok result with a value above it, below 0 or not finite is read as failed, with the field named.
double unit_ceiling(Unit unit);

/// Whether results.csv has a column of a field in this unit: not the lists of every sample.
constexpr bool in_csv(Unit unit) {
  return unit != Unit::kEpochSamples && unit != Unit::kStepSamples && unit != Unit::kOpGroups &&
         unit != Unit::kCountSamples;
}

/// A result field's name and unit.
struct FieldUnit {
  std::string_view name;
  Unit unit;
};
/// Every result field after the cell's configuration, in results.jsonl order, with its unit.
const std::vector<FieldUnit>& result_field_units();

/// The fields of a result after its cell's configuration, in results.jsonl order:
/// X(P, type, name, unit), where `r.P name` is the field of a result `r` (P is empty, or a typed
/// part's name and a dot: core/records/result_parts.hpp), or X_AT(P, type, name, member, unit)
/// where the part holds it at `r.P member` (the prediction's terms). One list drives the struct,
/// the JSON writer and reader, the checks of a read result, the CSV's columns, what `report
/// --measure` converts and docs/outputs.md's units (a test reads them); each column's meaning is in
/// docs/outputs.md.
#define CROSSOVER_RESULT_FIELDS(X)      \
  CROSSOVER_MEASURED_FIELDS(X, )        \
  CROSSOVER_ENERGY_FIELDS(X, energy.)   \
  CROSSOVER_RUN_FIELDS(X, )             \
  CROSSOVER_COUNT_FIELDS(X, counts.)    \
  CROSSOVER_ANATOMY_FIELDS(X, anatomy.) \
  CROSSOVER_PREDICTION_FIELDS(X, prediction.)

/// What was measured of the cell, before its energy.
#define CROSSOVER_MEASURED_FIELDS(X, P)                                                           \
  X(P, CellStatus, status, kNone)      /* ok, skipped, failed or not run */                       \
  X(P, std::string, reason, kNone)     /* why skipped or failed; empty when ok */                 \
  X(P, DataSource, data_source, kNone) /* real, synthetic or generated; "" when not run */        \
  X(P, std::int64_t, train_rows, kCount)                                                          \
  X(P, std::int64_t, test_rows, kCount)                                                           \
  X(P, std::int64_t, steps_per_epoch, kCount)                                                     \
  X(P, int, repeats, kCount) /* repeats run: fresh model, warm-up, `epochs` timed epochs */       \
  X(P, StopReason, stop_reason, kNone)       /* ci_target, max_repeats or time_budget */          \
  X(P, std::size_t, epoch_samples, kCount)   /* timed epochs behind the statistics */             \
  X(P, double, epoch_seconds, kEpochSeconds) /* median */                                         \
  X(P, double, epoch_seconds_p25, kEpochSeconds)                                                  \
  X(P, double, epoch_seconds_p75, kEpochSeconds)                                                  \
  X(P, double, epoch_seconds_mean, kEpochSeconds)                                                 \
  X(P, double, epoch_seconds_stdev, kEpochSeconds)                                                \
  X(P, double, epoch_seconds_min, kEpochSeconds)                                                  \
  X(P, double, epoch_seconds_max, kEpochSeconds)                                                  \
  X(P, double, epoch_seconds_ci_low, kEpochSeconds) /* 95 % confidence interval of the median */  \
  X(P, double, epoch_seconds_ci_high, kEpochSeconds)                                              \
  X(P, bool, noisy, kNone)                                        /* IQR / median above 10 % */   \
  X(P, std::vector<double>, epoch_seconds_samples, kEpochSamples) /* every timed epoch */         \
  X(P, double, train_seconds, kSeconds) /* median over repeats of the time for `epochs` epochs */ \
  X(P, std::vector<double>, train_seconds_samples, kSeconds) /* one per repeat */                 \
  X(P, std::size_t, step_samples, kCount) /* steps timed one by one, in a separate epoch */       \
  X(P, double, step_seconds, kSeconds)    /* median steady-state step */                          \
  X(P, double, step_seconds_p25, kSeconds)                                                        \
  X(P, double, step_seconds_p75, kSeconds)                                                        \
  X(P, std::vector<double>, step_seconds_samples, kStepSamples) /* every timed step */            \
  X(P, double, device_init_seconds, kSeconds) /* the device's first use (CUDA context) */         \
  X(P, double, setup_seconds, kSeconds)       /* data set loaded and moved, workload built */     \
  X(P, double, first_step_seconds, kSeconds)  /* fresh model to the end of its first step */      \
  X(P, double, startup_seconds, kSeconds)     /* device_init + setup + first_step */              \
  X(P, double, first_epoch_seconds, kSeconds) /* a fresh model's first, median */                 \
  X(P, double, phase_data_seconds, kSeconds)  /* timing "phases": mean per step; 0 otherwise */   \
  X(P, double, phase_copy_seconds, kSeconds)                                                      \
  X(P, double, phase_forward_seconds, kSeconds)                                                   \
  X(P, double, phase_backward_seconds, kSeconds)                                                  \
  X(P, double, phase_optimizer_seconds, kSeconds)                                                 \
  X(P, double, steps_per_second, kPerSecond)                                                      \
  X(P, double, samples_per_second, kPerSecond)                                                    \
  X(P, double, train_loss, kNone)        /* mean training loss of the last epoch */               \
  X(P, std::string, metric, kNone)       /* "accuracy" or "rmse" */                               \
  X(P, double, metric_value, kNone)      /* on the held-out test split */                         \
  X(P, double, flops_per_sample, kFlops) /* training FLOPs per sample */                          \
  X(P, std::string, flops_source, kNone) /* "analytical", "estimated" (a user's model) or "" */   \
  X(P, double, achieved_gflops, kGflopsPerSecond) /* flops_per_sample * samples_per_second */     \
  X(P, double, peak_gflops, kGflopsPerSecond)     /* the device's measured float32 matmul peak */ \
  X(P, double, peak_fraction, kFraction)          /* achieved / peak */                           \
  X(P, std::int64_t, peak_rss_bytes, kBytes)      /* the process's peak memory in the cell */     \
  X(P, std::int64_t, cuda_peak_allocated_bytes, kBytes)                                           \
  X(P, std::int64_t, cuda_peak_reserved_bytes, kBytes)                                            \
  X(P, int, intra_op_threads, kCount)       /* LibTorch's intra-op threads while the cell ran */  \
  X(P, int, blas_threads, kCount)           /* the BLAS library's threads (0 = unknown) */        \
  X(P, double, allreduce_seconds, kSeconds) /* ddp: all-reduce per step */                        \
  X(P, std::vector<double>, rank_epoch_seconds, kEpochSeconds) /* ddp: by rank */                 \
  X(P, std::vector<std::string>, parameter_digests,                                               \
    kNone) /* ddp: by rank (one when deterministic) */

/// Its cost, its processes and the worker that ran it.
#define CROSSOVER_RUN_FIELDS(X, P)                                                                 \
  X(P, double, price_per_hour, kPricePerHour) /* the device's price, 0: none */                    \
  X(P, double, cost_per_epoch, kPrice)        /* price_per_hour / 3600 * epoch_seconds (* GPUs) */ \
  X(P, double, cost_per_million_samples, kPrice) /* cost_per_epoch / train_rows * 1e6 */           \
  X(P, std::vector<double>, process_epoch_seconds, kEpochSeconds) /* `processes` > 1: each's */    \
  X(P, std::vector<double>, process_step_seconds, kSeconds)       /* epoch and step, by process */ \
  X(P, double, wall_seconds, kSeconds)                            /* the whole cell */             \
  X(P, int, worker, kNone) /* the process that ran it: 0 the run's own, k its k-th child */        \
  X(P, int, worker_cells_before, kCount) /* cells it ran before (0: fresh) */

/// What happened to one cell. Times are seconds.
struct Result {
  Cell cell;
  CROSSOVER_MEASURED_FIELDS(CROSSOVER_DECLARE_PART_FIELD, )
  Energy energy;
  CROSSOVER_RUN_FIELDS(CROSSOVER_DECLARE_PART_FIELD, )
  Counts counts;
  Anatomy anatomy;
  Prediction prediction;
  Result() : status(CellStatus::kOk) {}
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

/// What follows from the median epoch: steps and samples per second, the achieved GFLOP/s and its
/// fraction of peak_gflops (0 without a peak), and joules_per_epoch from mean_watts (0 where no
/// power was measured). The one place the executor and the merge of a cell's processes compute
/// them.
void set_rates(Result& result);

/// The fields a predicted result holds its predictions in, in memory, which results.jsonl writes
/// as null for it: its figures are only in predicted_* there (result_from_json fills them again).
inline constexpr const char* kPredictedAsMeasured[] = {"epoch_seconds", "step_seconds",
                                                       "steps_per_second", "samples_per_second"};

/// The flat JSON object of results.jsonl: the cell's configuration, then its measurements.
nlohmann::ordered_json result_to_json(const Result& result);

/// Reads one results.jsonl object back; throws naming a missing key. Keys added after the first
/// format (parallel, nproc, output_device, isolate, timeout_seconds, step_seconds_samples and the
/// ddp fields) take their defaults when absent, so older results stay readable.
Result result_from_json(const nlohmann::json& json);

/// Why an ok result's values cannot be a measurement ("epoch_seconds is 0, not a positive time"):
/// times, rates and sizes negative or not finite, a sample not positive. Nothing when they can, and
/// for a result that is not ok.
Found implausible_values(const Result& result);

/// Reads every line of a results.jsonl file; throws std::runtime_error naming file and line: a
/// line that is not a result, a cell given on two lines (a duplicated line), or more epoch or
/// step samples than a run stores (kStoredSamplesPerProcess per process). An ok result with
/// implausible values is read as failed, with the reason (and a warning). A last line without
/// its newline that does not parse (cut off mid-write) is ignored with a warning. With
/// Links::kRefuse a symbolic link at `path` is refused, not followed.
std::vector<Result> read_results(const std::string& path, Links links = Links::kRefuse);

}  // namespace crossover
