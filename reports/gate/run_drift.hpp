#pragma once
// What one run per side cannot show by itself: how far two runs of the same code drift apart on
// this machine. Two sources: the reference every run times before and after its cells (did the
// machine change speed?), and a calibration measured by `crossover calibrate` from pairs of runs
// of identical code on this runner (how much does each cell move from one run to the next?).

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/records/environment.hpp"
#include "core/records/results.hpp"
#include "core/records/run_record.hpp"
#include "core/stats/spread.hpp"
#include "reports/gate/gate_metric.hpp"

namespace crossover {

/// How much slower the candidate's machine was than the baseline's, from the reference each run
/// records in env.json (a matrix product and a small training step on one thread, timed before
/// the first cell and after each). Ratios are candidate / baseline of the geometric mean of the
/// before and after times; above 1 the candidate's machine was slower.
struct ReferenceDrift {
  double matmul = 1.0;
  double step = 1.0;
  double machine = 1.0;  ///< the geometric mean of the two
  /// The largest move between before and after within each run or cell (after / before,
  /// furthest from 1)
  double within_baseline = 1.0;
  double within_candidate = 1.0;
  /// The yardstick's own spread: the standard deviation of log(machine) that the references'
  /// noise alone would give, from how far each side's reference moved between its timings
  /// before and after this cell and, typically, around every cell of its run (at least
  /// kReferenceNoiseFloor). A drift within 1.96 of it is the reference's noise, not the machine.
  double noise = 0.0;
  /// Whether the machine's drift stands out from the reference's own noise (|log machine| >
  /// 1.96 noise).
  bool stands_out() const;
  /// Whether a cell's change is judged net of the drift: it stands out from the reference's
  /// noise, or it is beyond kDriftShare however noisy the reference was. A machine 68 % slower
  /// is never called steady because its yardstick was noisy too (a planted load once read
  /// "machine steady within its noise (reference +68.4 %)" and was blamed on the code).
  bool moved() const;
};

/// The least noise a drift is read with: the reference's median of seven trials moves by about
/// this much between two timings on a quiet machine, however still its before and after looked.
inline constexpr double kReferenceNoiseFloor = 0.015;

/// For the whole runs, or around one cell of each (the references timed just before and just
/// after it: `reference.cells.<index>`, falling back to the run's). Nothing when either record
/// lacks a reference (runs of an older crossover).
/// With `all_cores`, the references timed on every core (`matmul_all_seconds`,
/// `step_all_seconds`), which see a machine whose other cores are taken — a neighbour, steal time
/// on a virtual machine — that the one-thread references cannot; the one-thread ones where a run
/// lacks them.
std::optional<ReferenceDrift> reference_drift(
    const Environment& baseline_env, const Environment& candidate_env,
    std::optional<std::size_t> baseline_cell = std::nullopt,
    std::optional<std::size_t> candidate_cell = std::nullopt, bool all_cores = false);

/// Whether a cell's time depends on every core (a CPU cell with threads other than 1), so that
/// its machine drift is read from the references timed on every core.
inline bool uses_all_cores(const Cell& cell) {
  return cell.device.kind == DeviceKind::kCpu && cell.threads != 1;
}

/// The reference drift in a few words, with the reference's own noise: "machine steady
/// (reference +1.2 %, its noise ±3.0 %)", "the candidate's machine was 18.0 % slower (reference
/// matmul +3.1 %, step +35.0 %; its noise ±3.0 %)"; "within its noise" where it has not moved
/// (ReferenceDrift::moved), and what made a drift within its noise count where it is beyond 20 %.
std::string drift_text(const ReferenceDrift& drift);

/// How far the machine's speed moved within a run, around each cell that timed the reference:
/// the cell's index, and its reference matrix product's time (the geometric mean of the times
/// just before and just after it) over the time before the run's first cell.
/// The share of the run's starting speed beyond which a cell counts as drifted.
inline constexpr double kDriftShare = 0.2;

struct CellDrift {
  std::size_t cell = 0;
  double ratio = 1.0;  ///< above 1 the machine was slower around the cell than at the start
};

/// The cells around which the reference drifted by more than a fifth from the run's start
/// (ratio above 1.2 or below 1/1.2), in the order of their index; none for a run without
/// per-cell references. A merged run's cells are read against their own shard's start.
std::vector<CellDrift> drifted_cells(const Environment& env);

/// The ratio furthest from 1 among them; 1 when there are none.
double furthest_drift(const std::vector<CellDrift>& drifted);

/// Their indices alone (ReportContext::drifted_cells).
std::set<std::size_t> drifted_cell_indices(const Environment& env);

/// One warning naming those cells, for every output of the run; "" when none drifted.
std::string drift_warning(const Environment& env);

/// One cell of a calibration.
struct CellCalibration {
  std::string name;
  nlohmann::ordered_json config;  ///< its identity keys (cell_identity_json)
  CellSpread epoch;               ///< time per epoch (also used for throughput)
  CellSpread step;                ///< time per step
  const CellSpread& spread(GateMetric metric) const;
};

/// What `crossover calibrate` measured on a runner, and what `compare --calibration` reads.
struct Calibration {
  std::string source;             ///< the file it was read from, for messages
  nlohmann::ordered_json runner;  ///< host, CPU model and cores of the machine it was measured on
  std::vector<CellCalibration> cells;

  /// The cell with this identity, or nullptr.
  const CellCalibration* find(const nlohmann::ordered_json& identity) const;
};

/// The host, CPU model and core count of an env.json record.
nlohmann::ordered_json runner_of(const Environment& environment);

/// Estimates each cell's spread from pairs of runs of the same binary (A/A pairs), using only
/// the cells that were ok in both runs of every pair, ignoring the pair at `leave_out` (for an
/// honest estimate of the gate's false alarms on that pair). Needs at least two pairs; throws
/// std::invalid_argument otherwise.
Calibration calibrate_pairs(const std::vector<std::pair<RunRecord, RunRecord>>& pairs,
                            std::optional<std::size_t> leave_out = std::nullopt);

/// The calibration part of calibrate.json, and back. from_json throws std::invalid_argument
/// naming what is wrong.
nlohmann::ordered_json calibration_json(const Calibration& calibration);
Calibration calibration_from_json(const nlohmann::json& json, const std::string& source);

}  // namespace crossover
