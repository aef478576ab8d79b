#pragma once
// env.json's `reference`, typed: the reference timings (runner/execution/reference.hpp) before a
// run's first cell, around each cell that ran, and after its last. Read by environment.cpp's one
// reader; written here. No LibTorch.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace crossover {

/// One timing of the reference (runner/execution/reference.hpp), in seconds per operation; 0 where
/// not recorded (read back, a time outside a nanosecond to a day is not one).
struct ReferenceTimes {
  double matmul_seconds = 0.0;      ///< a 256 x 256 float32 matrix product on one thread
  double step_seconds = 0.0;        ///< a small MLP's training step on one thread
  double matmul_all_seconds = 0.0;  ///< a 384 x 384 product on every core
  double step_all_seconds = 0.0;    ///< a step of a wider batch on every core
};

/// The reference timed before and after something: the run, or one cell.
struct ReferenceSpan {
  std::optional<ReferenceTimes> before, after;
};

/// env.json's `reference`: timed before the first cell, after each cell that ran (so each has the
/// machine's speed just before and just after it) and after the last. The sweep writes it, resume
/// and merge carry cells' spans over, reports/gate/run_drift.cpp reads it.
struct ReferenceRecord {
  std::optional<ReferenceTimes> before, after;
  std::vector<std::pair<std::size_t, ReferenceSpan>> cells;  ///< by cell index, as they ran

  /// The span around the cell `cell`, or nullptr.
  const ReferenceSpan* around(std::size_t cell) const;
  /// Sets the span around `cell`, replacing one it had.
  void set_around(std::size_t cell, ReferenceSpan span);
  /// The run's own span: before its first cell, after its last.
  ReferenceSpan run() const { return {before, after}; }
  bool empty() const { return !before && !after && cells.empty(); }
};

/// The record as env.json holds it: before, the cells as they ran, after (the order the sweep
/// measures them in); a time not recorded (0) is left out.
nlohmann::ordered_json reference_json(const ReferenceRecord& reference);

}  // namespace crossover
