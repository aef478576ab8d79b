#include "core/stats/spread.hpp"

#include <algorithm>
#include <cmath>

namespace crossover {

CellSpread estimate_spread(const std::vector<double>& x, const std::vector<double>& m) {
  CellSpread s;
  s.pairs = x.size();
  if (x.empty()) return s;
  const double n = static_cast<double>(x.size());
  double xx = 0.0, xm = 0.0, mm = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xx += x[i] * x[i];
    if (m.size() == x.size()) {
      xm += x[i] * m[i];
      mm += m[i] * m[i];
    }
  }
  s.sigma_raw = std::sqrt(xx / n);
  // Least squares through the origin: the drift of two runs of the same code is zero on average.
  s.beta = mm > 1e-12 && n >= 2.0 ? std::clamp(xm / mm, 0.0, 1.0) : 0.0;
  if (s.beta > 0.0) {
    double rr = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
      rr += (x[i] - s.beta * m[i]) * (x[i] - s.beta * m[i]);
    s.degrees_of_freedom = n - 1.0;
    s.sigma = std::sqrt(rr / s.degrees_of_freedom);
  } else {
    s.degrees_of_freedom = n;
    s.sigma = s.sigma_raw;
  }
  return s;
}

}  // namespace crossover
