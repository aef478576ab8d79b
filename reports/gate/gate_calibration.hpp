#pragma once
// How far to trust `compare` on this runner: from pairs of runs of identical code (A/A) and
// pairs with a planted slowdown, the gate's false-alarm and detection rates, each cell's
// run-to-run variation and the smallest slowdown the gate can promise to catch. The writers
// return text and do no I/O.

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "reports/gate/regression.hpp"
#include "reports/gate/run_drift.hpp"

namespace crossover {

using RunPairs = std::vector<std::pair<RunRecord, RunRecord>>;

/// How often a gate fired.
struct GateRate {
  std::size_t fired = 0;
  std::size_t pairs = 0;
  double rate() const { return pairs == 0 ? 0.0 : static_cast<double>(fired) / pairs; }
};

/// One cell's part of the calibration.
struct CellGate {
  std::string name;
  CellSpread spread;        ///< from every A/A pair, for the gate's metric
  double run_to_run = 0.0;  ///< one run's variation: sigma / sqrt(2), net of the machine's drift
  double run_to_run_raw = 0.0;       ///< the same without the reference
  double smallest_detectable = 0.0;  ///< the slowdown caught 9 times in 10 (at least the threshold)
  /// The same for compare without a calibration: the change must pass the assumed spread while
  /// this runner's runs vary by run_to_run_raw.
  double uncalibrated_detectable = 0.0;
  /// Cells measured in several processes (`processes`): the fewest processes per run, and the
  /// spread of the logarithm of one process's median within a run (pooled over the A/A runs),
  /// which the uncalibrated gate's Welch test on processes measures the change against.
  std::size_t processes = 0;
  double process_spread = 0.0;
  /// Rounds of `compare --rerun` with which the paired test catches a slowdown of twice the
  /// threshold 9 times in 10 on this cell (rounds_needed of its raw spread)
  int rounds = 0;
  double planted_change = 0.0;   ///< median change over the planted pairs
  std::size_t false_alarms = 0;  ///< A/A pairs in which this cell was called a regression
  std::size_t detections = 0;    ///< planted pairs in which it was
};

/// What `crossover calibrate` found.
struct GateCalibration {
  std::string grid;
  std::string grid_file;  ///< the grid's file as calibrate was given it: the commands it prints
  int load = 0;           ///< busy processes of the planted slowdown
  RegressionOptions options;
  Calibration calibration;  ///< from every A/A pair: what compare --calibration reads
  GateRate false_alarms;    ///< the calibrated gate on A/A pairs (each judged leaving itself out)
  GateRate detections;      ///< the calibrated gate on the planted pairs
  GateRate uncalibrated_false_alarms;  ///< compare without --calibration, for contrast
  GateRate uncalibrated_detections;
  double smallest_detectable = 0.0;  ///< the largest over the cells
  double uncalibrated_detectable = 0.0;
  int rounds = 0;  ///< the most rounds any cell needs: what compare --rerun should run
  std::vector<CellGate> cells;
  nlohmann::ordered_json pairs = nlohmann::ordered_json::array();  ///< each pair's verdicts
  /// The machine record the runs reused (CROSSOVER_MACHINE_RECORD, machine_record_of): their
  /// reference timings were not measured, so the rates hold the machine's drift out. "": none.
  std::string machine_record;
};

/// The machine record any of `pairs`' runs reused instead of measuring the machine, "" when
/// every run measured it.
std::string machine_record_of(const RunPairs& pairs);

/// The line every calibration output says of a reused machine record, "" without one.
std::string machine_record_line(const std::string& record);

/// Judges every pair with the gate compare would apply: each A/A pair with a calibration from
/// the other A/A pairs (so that a pair never vouches for itself), each planted pair (baseline:
/// the quiet run) with the calibration from all of them; and both without a calibration.
/// Throws std::invalid_argument with fewer than three A/A pairs.
GateCalibration assess_gate(const RunPairs& aa, const RunPairs& planted,
                            const RegressionOptions& options);

/// One counted cell's part of `calibrate --metric instructions` (or cycles).
struct CountedCellGate {
  std::string name;
  double aa_spread = 0.0;        ///< the largest epoch-by-epoch change in any A/A pair
  double planted_change = 0.0;   ///< median change over the planted pairs
  std::size_t false_alarms = 0;  ///< A/A pairs in which it was anything but "no change"
  std::size_t detections = 0;    ///< planted pairs in which it was a regression
};

/// The counted gate on this runner: pairs of counted runs of identical code (A/A) and pairs whose
/// candidate did `plant` more work (CROSSOVER_PLANT_WORK), judged as compare --metric
/// instructions judges one run per side. Counts need no calibration file: what it measures is
/// how far A/A counts move here, and so the smallest change the gate catches every time.
struct CountedGateCalibration {
  std::string grid;
  RegressionOptions options;
  double plant = 0.0;
  GateRate false_alarms;   ///< pairs with any cell not "no change"
  GateRate detections;     ///< planted pairs with every compared cell a regression
  double aa_spread = 0.0;  ///< the largest over the cells
  /// The threshold plus the A/A spread: a change this large is a regression in every epoch pair.
  double smallest_detectable = 0.0;
  std::vector<CountedCellGate> cells;
};

/// Judges every pair as compare does on counts; throws std::invalid_argument with fewer than
/// three A/A pairs or a metric that is not counted.
CountedGateCalibration assess_counted_gate(const RunPairs& aa, const RunPairs& planted,
                                           const RegressionOptions& options, double plant);
nlohmann::ordered_json counted_gate_json(const CountedGateCalibration& g);
std::string render_counted_gate_text(const CountedGateCalibration& g);
std::string render_counted_gate_markdown(const CountedGateCalibration& g);

/// calibrate.json: the rates, the cells, the pairs and the calibration compare reads.
nlohmann::ordered_json gate_calibration_json(const GateCalibration& g);

/// The terminal summary and calibrate.md.
std::string render_gate_calibration_text(const GateCalibration& g);
std::string render_gate_calibration_markdown(const GateCalibration& g);

}  // namespace crossover
