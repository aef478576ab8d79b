#pragma once
// Every output of a run has one shape, in the spirit of Google Benchmark's BenchmarkReporter
// (ReportContext / ReportRuns / Finalize) and hyperfine's exporters: told what the run is, handed
// each result as it comes, then the results and the analysis made once from them. A reporter
// turns them into text and does no I/O: it hands its text to a sink, and the runner's sink writes
// the file (core/files/file_writer) or prints it. Adding an output is adding a reporter.

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/records/environment.hpp"
#include "core/records/results.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/render/report_context.hpp"

namespace crossover {

/// One output of a run.
class Reporter {
 public:
  virtual ~Reporter() = default;
  /// Before the first result: what the run is.
  virtual void begin(const ReportContext& context) { (void)context; }
  /// Each result as it comes (a run's per-cell outputs: results.jsonl, the progress line).
  virtual void cell(const Result& result) { (void)result; }
  /// After the last: every result of the run, in grid order, and their analysis.
  virtual void finish(const std::vector<Result>& results, const Analysis& analysis) {
    (void)results;
    (void)analysis;
  }
};

/// Where a reporter's text goes: a file name in the run's folder ("report.md") and its text.
using TextSink = std::function<void(const std::string& name, const std::string& text)>;

/// The reports written at a run's end, each through `sink`: the run folder's files that have a
/// renderer (run_outputs.hpp), in their order; gbench.json carries `environment`, the run's
/// env.json.
std::vector<std::unique_ptr<Reporter>> report_files(TextSink sink,
                                                    std::optional<Environment> environment);

/// The terminal's summary at a run's end: the device tables, then each comparison's crossover
/// statements, through `print`.
std::unique_ptr<Reporter> terminal_report(std::function<void(const std::string&)> print);

/// Hands `results` to each reporter (begin, each cell, finish) with one analysis of `specs`.
void report(const std::vector<std::unique_ptr<Reporter>>& reporters, const ReportContext& context,
            const std::vector<Result>& results, const std::vector<CompareSpec>& specs);

}  // namespace crossover
