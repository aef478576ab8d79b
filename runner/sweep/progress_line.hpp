#pragma once
// The progress line of a sweep: one line per cell as it ends, with the time so far and to go.

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "reports/render/reporter.hpp"
#include "runner/grid/skip.hpp"

namespace crossover {

/// The progress line of every cell: its outcome (a predicted one with its band), the time so far,
/// and the time to go, from each cell's estimated cost (skipped and predicted cells take none).
class ProgressLine : public Reporter {
 public:
  explicit ProgressLine(const std::vector<PlannedCell>& cells);

  /// More cells to come: a search's probe.
  void add(const std::vector<PlannedCell>& cells);

  void cell(const Result& r) override;

 private:
  std::chrono::steady_clock::time_point start_;
  std::vector<double> cost_;                    // each cell's estimated cost; 0: it will not run
  std::vector<std::pair<double, double>> ran_;  // the cells that ran: cost, wall seconds
  std::map<std::string, std::size_t> said_;     // each reason said in full, and its first cell
  std::size_t done_ = 0;
};

/// The run's first line's note of the cells `--predict cuda=PROFILE` predicts: "; 12 CUDA cells
/// predicted (no CUDA here) by the cost model with the profile H100 80GB"; "" when none.
std::string predicted_cells_line(const std::vector<PlannedCell>& cells,
                                 const std::string& profile_name);

}  // namespace crossover
