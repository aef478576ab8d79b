#pragma once
// How much a cell's time moves between two runs of the same code, and how much of that the
// machine's own drift explains: calibrate's estimate, on which compare's one-run gate stands.

#include <cstddef>
#include <vector>

namespace crossover {

/// How one cell's median moves between two runs of identical code on this runner, for one metric.
struct CellSpread {
  /// log(candidate median / baseline median) = beta * log(machine drift) + noise; the noise
  /// has standard deviation `sigma`, estimated from `pairs` A/A pairs with `degrees_of_freedom`.
  double beta = 0.0;  ///< the share of the machine's drift the cell feels, from 0 to 1
  double sigma = 0.0;
  double sigma_raw = 0.0;  ///< the same without the reference: sqrt(mean(log ratio^2))
  std::size_t pairs = 0;
  double degrees_of_freedom = 0.0;
};

/// The spread of one cell from its log ratios and machine drifts (log), as calibrate_pairs
/// (reports/gate/run_drift.hpp) does.
CellSpread estimate_spread(const std::vector<double>& log_ratios,
                           const std::vector<double>& log_machine);

}  // namespace crossover
