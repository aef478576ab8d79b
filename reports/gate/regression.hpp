#pragma once
// Did a change make training slower? Two runs of the same grid, cell by cell: the change in the
// median with a bootstrap interval, a Mann-Whitney U test on the raw samples, and a verdict that
// needs both significance and a change beyond a threshold — so that noise alone rarely fails a
// CI job and a real slowdown rarely passes. The writers return text and do no I/O. The verdicts'
// types are cell_verdict.hpp's.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/records/results.hpp"
#include "reports/gate/cell_verdict.hpp"
#include "reports/gate/run_drift.hpp"

namespace crossover {

/// Matches the cells of two runs by their identity keys (cell_identity_json) and judges each.
/// Cells that occur several times in one run (rounds of `compare --rerun`, concatenated files)
/// have their samples pooled, and are judged by run (Welch t on the run medians). A cell with
/// one run per side is judged on its samples (Mann-Whitney U, moving-block bootstrap interval);
/// then a regression also needs the change to stand out from the calibrated run-to-run spread
/// (with a calibration), and is `inconclusive` when the machine's own drift explains it.
RegressionReport compare_runs(const std::vector<Result>& baseline,
                              const std::vector<Result>& candidate,
                              const RegressionOptions& options,
                              const RunLevelContext& context = {});

/// compare_runs on two runs with their environment records: the reference drift between them,
/// the environment differences, and notes on what is missing.
RegressionReport compare_records(const RunRecord& baseline, const RunRecord& candidate,
                                 const RegressionOptions& options,
                                 const Calibration* calibration = nullptr);

/// The differences between two env.json records. `measured` adds the matmul peaks measured at
/// each run's start when they differ by more than 30 %.
std::vector<EnvironmentDifference> environment_differences(const Environment& baseline,
                                                           const Environment& candidate,
                                                           bool measured = true);

/// What in an env.json record can skew timings by itself (CPU, cores, threads, BLAS, LibTorch,
/// CUDA, driver, GPUs, a planted load or slowdown), as compare names it: {what: value}.
nlohmann::ordered_json timing_setup(const Environment& environment);

/// An aligned table for the terminal, regressions first, and the summary line.
std::string render_regression_text(const RegressionReport& report);

/// A Markdown summary for a pull-request comment: the verdict, environment warnings, regressions,
/// failures, improvements and inconclusive cells, the unchanged ones folded away.
std::string render_regression_markdown(const RegressionReport& report);

/// The verdict file: settings, counts, environment, every cell.
nlohmann::ordered_json regression_json(const RegressionReport& report);

}  // namespace crossover
