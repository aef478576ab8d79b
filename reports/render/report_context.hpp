#pragma once
// What every report of a run is told besides its results: the grid's name and description, the
// machine's lines and warnings, the measure compared, the drifted cells and the searches. Each
// reporter (reporter.hpp) and each format (report.md, report.html, the terminal) reads it.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "reports/analysis/measure.hpp"

namespace crossover {

/// How much the terminal says (`--brief`, the default, `--verbose`); the files always say all.
enum class Detail {
  kBrief,    ///< the verdict and one line per workload
  kDefault,  ///< the verdict, the tables, and what the verdict does not say already
  kVerbose,  ///< everything: each crossover statement with its "why" line, every note
};

/// LibTorch's intra-op threads and the BLAS's at `threads` 0 (0: unknown).
struct DefaultThreads {
  std::int64_t intra_op = 0, blas = 0;
};

/// The threads column's 0 in words: "threads 0: the libraries' own thread counts, here 1
/// intra-op and 2 BLAS threads: threads 1 differs only in the BLAS's".
std::string default_threads_text(const std::optional<DefaultThreads>& threads);

/// What a report says about the run besides the results.
struct ReportContext {
  std::string title;                     ///< the grid's name
  std::string description;               ///< the grid's description, may be empty
  std::vector<std::string> environment;  ///< one line each: "CPU: ...", "BLAS: ..."
  std::vector<std::string> warnings;     ///< shown loudly at the top (reference BLAS, ...)
  /// What the tables, crossovers and recommendations compare: "time", "energy" or "cost"
  /// (`report --measure`).
  Measure measure = Measure::kTime;
  /// `report` of several runs: the machines' labels keep cells apart (CompareSpec's
  /// machines_apart); one run, merged shards included, reads as one machine.
  bool machines_apart = false;
  /// The cells that ran while the machine's speed had moved (drifted_cells of env.json), which
  /// the verdicts name.
  std::set<std::size_t> drifted_cells;
  /// How far the band of the profile that predicted cells can be trusted (env.json's
  /// predicted_with, band_validation_text); "" when none was predicted.
  std::string band_validation;
  /// The run's searches (searches.json): per line its probes, bracket and statement.
  nlohmann::ordered_json searches = nlohmann::ordered_json::array();
  /// How much the terminal says.
  Detail detail = Detail::kDefault;
  /// The machine's CPU in a few words ("AMD EPYC, 2 logical cores"), for the terminal's verdict;
  /// "" for several machines or none known.
  std::string machine;
  /// The threads `threads` 0 leaves on the machine (env.json), said beside the tables' 0.
  std::optional<DefaultThreads> default_threads;
};

}  // namespace crossover
