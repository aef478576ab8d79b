#pragma once
// Summary statistics of timing samples. Quantiles interpolate linearly between order
// statistics (the default of numpy and R, "type 7"), so small samples give stable values.

#include <vector>

namespace crossover {

/// Median, quartiles and moments of a sample.
struct Summary {
  std::size_t count = 0;
  double median = 0.0;
  double p25 = 0.0;
  double p75 = 0.0;
  double mean = 0.0;
  double stdev = 0.0;  ///< sample standard deviation (n - 1); 0 for fewer than two samples
  double min = 0.0;
  double max = 0.0;

  double iqr() const { return p75 - p25; }
};

/// The q-quantile (0 <= q <= 1) of `samples`; throws std::invalid_argument when empty.
double quantile(std::vector<double> samples, double q);

/// All of Summary at once; throws std::invalid_argument when `samples` is empty.
Summary summarize(const std::vector<double>& samples);

}  // namespace crossover
