#pragma once
// A cell's result, its flat JSON form (one line of results.jsonl), and the one place that writes
// result files: appended and flushed after every cell, so a crash keeps what finished.

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/cell.hpp"

namespace crossover {

/// What happened to one cell. Times are seconds; stats over every timed epoch of every repeat.
struct Result {
  Cell cell;
  std::string status = "ok";  ///< "ok", "skipped" or "failed"
  std::string reason;         ///< why skipped or failed; empty when ok
  std::string data_source;    ///< "real" or "synthetic"; empty when the cell did not run
  std::int64_t train_rows = 0;
  std::int64_t test_rows = 0;
  std::int64_t steps_per_epoch = 0;
  std::size_t epoch_samples = 0;  ///< timed epochs behind the statistics
  double epoch_seconds = 0.0;     ///< median
  double epoch_seconds_p25 = 0.0;
  double epoch_seconds_p75 = 0.0;
  double epoch_seconds_mean = 0.0;
  double epoch_seconds_min = 0.0;
  double epoch_seconds_max = 0.0;
  double train_seconds = 0.0;  ///< median over repeats of the time for `epochs` epochs
  std::vector<double> train_seconds_samples;  ///< one per repeat
  double steps_per_second = 0.0;
  double samples_per_second = 0.0;
  double train_loss = 0.0;        ///< mean training loss of the last epoch
  std::string metric;             ///< "accuracy" or "rmse"
  double flops_per_sample = 0.0;  ///< the workload's analytical training FLOPs per sample
  double metric_value = 0.0;      ///< on the held-out test split
  int intra_op_threads = 0;       ///< LibTorch's intra-op threads while the cell ran
  int blas_threads = 0;           ///< the BLAS library's threads while the cell ran (0 = unknown)
  double wall_seconds = 0.0;      ///< the whole cell: data, model, warm-up, repeats, evaluation
};

/// The flat JSON object of results.jsonl: the cell's configuration, then its measurements.
nlohmann::ordered_json result_to_json(const Result& result);

/// Reads one results.jsonl object back; throws std::runtime_error naming a missing key.
Result result_from_json(const nlohmann::json& json);

/// Reads every line of a results.jsonl file; throws std::runtime_error naming file and line.
std::vector<Result> read_results(const std::string& path);

/// results.jsonl and results.csv in one directory, appended and flushed per result.
class ResultFiles {
 public:
  /// Creates (truncates) both files in `directory`; throws std::runtime_error when it cannot.
  explicit ResultFiles(const std::string& directory);
  void append(const Result& result);

 private:
  std::ofstream jsonl_;
  std::ofstream csv_;
};

/// Writes `text` to `path` (whole file); throws std::runtime_error naming the path on failure.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace crossover
