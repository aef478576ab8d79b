#include "core/records/results.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <type_traits>

#include "core/costmodel/step_anatomy.hpp"
#include "core/files/run_files.hpp"
#include "core/files/user_files.hpp"
#include "core/stats/stats.hpp"
#include "core/text/text.hpp"

namespace crossover {

nlohmann::ordered_json result_to_json(const Result& r) {
  nlohmann::ordered_json j;
  j["cell"] = r.cell.index;  // its place in the grid: reports cite cells by it
  j.update(cell_config_json(r.cell));
#define CROSSOVER_WRITE_FIELD_AT(P, type, name, member, unit) j[#name] = r.P member;
#define CROSSOVER_WRITE_FIELD(P, type, name, unit) \
  CROSSOVER_WRITE_FIELD_AT(P, type, name, name, unit)
  CROSSOVER_RESULT_FIELDS(CROSSOVER_WRITE_FIELD)
#undef CROSSOVER_WRITE_FIELD
#undef CROSSOVER_WRITE_FIELD_AT
  // A predicted cell measured nothing: its measured fields are null, its figures only predicted_*
  // (a tool that takes the fastest epoch_seconds never takes a prediction for one).
  if (r.status == CellStatus::kPredicted)
    for (const char* measured : kPredictedAsMeasured) j[measured] = nullptr;
  return j;
}

const std::vector<FieldUnit>& result_field_units() {
  static const std::vector<FieldUnit> units = {
#define CROSSOVER_FIELD_UNIT_AT(P, type, name, member, unit) {#name, Unit::unit},
#define CROSSOVER_FIELD_UNIT(P, type, name, unit) CROSSOVER_FIELD_UNIT_AT(P, type, name, name, unit)
      CROSSOVER_RESULT_FIELDS(CROSSOVER_FIELD_UNIT)
#undef CROSSOVER_FIELD_UNIT
#undef CROSSOVER_FIELD_UNIT_AT
  };
  return units;
}

void set_epoch_statistics(Result& r, const std::vector<double>& samples) {
  const Summary s = summarize(samples);
  const Interval ci = median_ci(samples);
  r.epoch_samples = s.count;
  r.epoch_seconds = s.median;
  r.epoch_seconds_p25 = s.p25;
  r.epoch_seconds_p75 = s.p75;
  r.epoch_seconds_mean = s.mean;
  r.epoch_seconds_stdev = s.stdev;
  r.epoch_seconds_min = s.min;
  r.epoch_seconds_max = s.max;
  r.epoch_seconds_ci_low = ci.low;
  r.epoch_seconds_ci_high = ci.high;
  r.noisy = s.median > 0.0 && s.iqr() / s.median > kNoisyIqrRatio;
}

void set_rates(Result& r) {
  r.steps_per_second = static_cast<double>(r.steps_per_epoch) / r.epoch_seconds;
  r.samples_per_second = static_cast<double>(r.train_rows) / r.epoch_seconds;
  r.achieved_gflops = r.flops_per_sample * r.samples_per_second / 1e9;
  r.peak_fraction = r.peak_gflops > 0.0 ? r.achieved_gflops / r.peak_gflops : 0.0;
  r.energy.joules_per_epoch = r.energy.mean_watts * r.epoch_seconds;
}

Result result_from_json(const nlohmann::json& j) {
  Result r;
  r.cell = cell_from_json(j);
  // Every results file since the first format has these fields, so each is required; a field
  // added since is optional, so older results stay readable (a baseline stored by an earlier
  // version, for `compare`). A new field is optional without being named here.
  static const std::set<std::string> first_format = {"status",
                                                     "reason",
                                                     "data_source",
                                                     "train_rows",
                                                     "test_rows",
                                                     "steps_per_epoch",
                                                     "repeats",
                                                     "stop_reason",
                                                     "epoch_samples",
                                                     "epoch_seconds",
                                                     "epoch_seconds_p25",
                                                     "epoch_seconds_p75",
                                                     "epoch_seconds_mean",
                                                     "epoch_seconds_stdev",
                                                     "epoch_seconds_min",
                                                     "epoch_seconds_max",
                                                     "epoch_seconds_ci_low",
                                                     "epoch_seconds_ci_high",
                                                     "noisy",
                                                     "epoch_seconds_samples",
                                                     "train_seconds",
                                                     "train_seconds_samples",
                                                     "step_samples",
                                                     "step_seconds",
                                                     "step_seconds_p25",
                                                     "step_seconds_p75",
                                                     "device_init_seconds",
                                                     "setup_seconds",
                                                     "first_step_seconds",
                                                     "startup_seconds",
                                                     "first_epoch_seconds",
                                                     "phase_data_seconds",
                                                     "phase_copy_seconds",
                                                     "phase_forward_seconds",
                                                     "phase_backward_seconds",
                                                     "phase_optimizer_seconds",
                                                     "steps_per_second",
                                                     "samples_per_second",
                                                     "train_loss",
                                                     "metric",
                                                     "metric_value",
                                                     "flops_per_sample",
                                                     "achieved_gflops",
                                                     "peak_gflops",
                                                     "peak_fraction",
                                                     "peak_rss_bytes",
                                                     "cuda_peak_allocated_bytes",
                                                     "cuda_peak_reserved_bytes",
                                                     "intra_op_threads",
                                                     "blas_threads",
                                                     "wall_seconds"};
#define CROSSOVER_READ_FIELD_AT(P, type, name, member, unit) \
  if (j.contains(#name) || first_format.count(#name) != 0) r.P member = json_as<type>(j.at(#name));
#define CROSSOVER_READ_FIELD(P, type, name, unit) CROSSOVER_READ_FIELD_AT(P, type, name, name, unit)
  CROSSOVER_RESULT_FIELDS(CROSSOVER_READ_FIELD)
#undef CROSSOVER_READ_FIELD
#undef CROSSOVER_READ_FIELD_AT
  // In memory a predicted cell's figures are its predictions, as the analyses read every cell.
  if (r.status == CellStatus::kPredicted && std::isnan(r.epoch_seconds) &&
      r.prediction.predicted_epoch_seconds > 0.0) {
    r.epoch_seconds = r.prediction.predicted_epoch_seconds;
    r.step_seconds = r.prediction.predicted_step_seconds;
    r.steps_per_second = static_cast<double>(r.steps_per_epoch) / r.epoch_seconds;
    r.samples_per_second = static_cast<double>(r.train_rows) / r.epoch_seconds;
  }
  return r;
}

namespace {

// The checks of one field of an ok result: times, rates and sizes are finite and not negative,
// every sample is positive; the loss and the metric may be anything (a diverged model's loss is
// NaN, and that is a finding).
// A value as the reason quotes it: null (how JSON writes what is not a number) named as such.
std::string quoted(double value) {
  return std::isnan(value) ? "null (not a number)" : format_number(value);
}

// ", above the largest a run can record (1e+07 GFLOP/s)".
std::string above_ceiling(Unit unit) {
  const std::string words = text_of(unit);
  return ", above the largest a run can record (" + format_number(unit_ceiling(unit)) +
         (words.empty() ? "" : " " + words) + ")";
}

void check_field(const char* name, Unit unit, double value, std::string& problem) {
  static const std::set<std::string> free = {"train_loss", "metric_value"};
  if (!problem.empty() || free.count(name) != 0) return;
  if (!std::isfinite(value) || value < 0)
    problem = std::string(name) + " is " + quoted(value) + ", not a time or rate";
  else if (value > unit_ceiling(unit))
    problem = std::string(name) + " is " + quoted(value) + above_ceiling(unit);
}
template <typename Integer, typename = std::enable_if_t<std::is_integral_v<Integer>>>
void check_field(const char* name, Unit unit, Integer value, std::string& problem) {
  if (!problem.empty() || unit == Unit::kNone) return;
  if (std::is_signed_v<Integer> && value < Integer{0})
    problem = std::string(name) + " is " + std::to_string(value) + ", not a size";
  else if (static_cast<double>(value) > unit_ceiling(unit))
    problem = std::string(name) + " is " + std::to_string(value) + above_ceiling(unit);
}
void check_field(const char* name, Unit unit, const std::vector<double>& values,
                 std::string& problem) {
  for (double value : values) {
    if (!problem.empty()) return;
    if (!std::isfinite(value) || value <= 0)
      problem = std::string(name) + " holds " + quoted(value) + ", not a positive time";
    else if (value > unit_ceiling(unit))
      problem = std::string(name) + " holds " + quoted(value) + above_ceiling(unit);
  }
}
void check_field(const char* name, Unit, const std::vector<std::vector<double>>& rows,
                 std::string& problem) {
  if (!problem.empty()) return;
  try {
    groups_from_rows(rows);
  } catch (const std::exception& e) {
    problem = std::string(name) + ": " + e.what();
  }
}
template <typename Other, typename = std::enable_if_t<!std::is_integral_v<Other>>>
void check_field(const char*, Unit, const Other&, std::string&) {}

}  // namespace

double unit_ceiling(Unit unit) {
  constexpr double kDay = 86400.0;
  switch (unit) {
    case Unit::kEpochSeconds:
    case Unit::kEpochSamples:
    case Unit::kStepSamples:
      return kDay;
    case Unit::kSeconds:
      return 30 * kDay;
    case Unit::kCount:
      return 1e15;
    case Unit::kPerSecond:
      return 1e12;
    case Unit::kFlops:
      return 1e21;
    case Unit::kGflopsPerSecond:
      return 1e7;
    case Unit::kBytes:
      return 1e16;
    case Unit::kJoules:
      return 1e10;
    case Unit::kWatts:
      return 1e6;
    case Unit::kMegahertz:
      return 1e5;
    case Unit::kPricePerHour:
      return 1e6;
    case Unit::kPrice:
      return 1e12;
    case Unit::kFraction:
      return 1e6;
    case Unit::kInstructions:
    case Unit::kCountSamples:
      return 1e18;
    case Unit::kNone:
    case Unit::kOpGroups:
      break;
  }
  return std::numeric_limits<double>::infinity();
}

Found implausible_values(const Result& r) {
  if (r.status != CellStatus::kOk) return std::nullopt;
  std::string problem;  // the first field found wrong (check_field keeps it)
  if (!(std::isfinite(r.epoch_seconds) && r.epoch_seconds > 0))
    problem = "epoch_seconds is " + quoted(r.epoch_seconds) + ", not a positive time";
#define CROSSOVER_CHECK_FIELD_AT(P, type, name, member, unit) \
  check_field(#name, Unit::unit, r.P member, problem);
#define CROSSOVER_CHECK_FIELD(P, type, name, unit) \
  CROSSOVER_CHECK_FIELD_AT(P, type, name, name, unit)
  CROSSOVER_RESULT_FIELDS(CROSSOVER_CHECK_FIELD)
#undef CROSSOVER_CHECK_FIELD
#undef CROSSOVER_CHECK_FIELD_AT
  if (problem.empty()) return std::nullopt;
  return Problem(problem);
}

namespace {

// Why a result line cannot be one crossover wrote, beyond its values: more samples than a run
// stores (a 2-million-sample line would take minutes to report).
Found sample_count_problem(const Result& r) {
  const std::size_t most =
      kStoredSamplesPerProcess * static_cast<std::size_t>(std::max(r.cell.processes, 1));
  for (const auto& [name, samples] : {std::pair{"epoch_seconds_samples", &r.epoch_seconds_samples},
                                      std::pair{"step_seconds_samples", &r.step_seconds_samples}}) {
    if (samples->size() > most)
      return Problem(std::string(name) + " holds " + std::to_string(samples->size()) +
                     " samples; a run stores at most " + std::to_string(kStoredSamplesPerProcess) +
                     " per process, and this cell ran in " +
                     std::to_string(std::max(r.cell.processes, 1)));
  }
  return std::nullopt;
}

}  // namespace

std::vector<Result> read_results(const std::string& path, Links links) {
  struct stat info {};
  if ((links == Links::kFollow ? stat(path.c_str(), &info) : lstat(path.c_str(), &info)) != 0)
    throw std::runtime_error(path + ": cannot open the results file");
  std::vector<Result> results;
  std::map<std::size_t, std::size_t> line_of;  // cell index -> line
  std::size_t number = 0;
  // One line at a time as the file streams in: a results file of a gigabyte is never held whole.
  const auto read_line = [&](const std::string& line, bool complete) {
    ++number;
    if (line.empty()) return;
    try {
      Result r = result_from_json(parse_checked_json(line));
      if (const Found problem = sample_count_problem(r)) throw std::runtime_error(problem->text);
      const auto [seen, fresh] = line_of.emplace(r.cell.index, number);
      if (!fresh)
        throw std::runtime_error("cell " + std::to_string(r.cell.index) + " is on line " +
                                 std::to_string(seen->second) +
                                 " already (a duplicated result line); keep one of them");
      // A result that claims ok with values no measurement gives (an edited or corrupted file)
      // is reported as failed, never ranked or charted.
      if (const Found problem = implausible_values(r)) {
        spdlog::warn("{}:{}: cell {} is marked ok, but {}; it is taken as failed", path, number,
                     r.cell.index, problem->text);
        r.status = CellStatus::kFailed;
        r.reason = "not a measurement: " + problem->text + " (" + path + ":" +
                   std::to_string(number) + ")";
      }
      results.push_back(std::move(r));
    } catch (const std::exception& e) {
      // A last line without its newline was cut off mid-write (a crash, a power loss): every
      // result before it is intact, so it is dropped with a warning rather than failing the file.
      if (!complete) {
        spdlog::warn(
            "{}:{}: the last line is incomplete (cut off while it was written) and is "
            "ignored; the {} result(s) before it are intact",
            path, number, results.size());
        return;
      }
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": not a result line: " + e.what());
    }
  };
  std::string pending;
  read_user_file_chunks(
      path, kMaxResultsBytes, "a results file",
      [&](const char* data, std::size_t size) {
        for (const char* end; size > 0;
             size -= static_cast<std::size_t>(end + 1 - data), data = end + 1) {
          end = static_cast<const char*>(std::memchr(data, '\n', size));
          if (end == nullptr) {
            pending.append(data, size);
            return;
          }
          pending.append(data, static_cast<std::size_t>(end - data));
          read_line(pending, true);
          pending.clear();
        }
      },
      links);
  if (!pending.empty()) read_line(pending, false);
  return results;
}

}  // namespace crossover
