#include "core/costmodel/prediction_band.hpp"

#include <algorithm>
#include <cmath>

namespace crossover {

PredictionBand fit_band(std::vector<double> logs) {
  PredictionBand band;
  const auto n = logs.size();
  // 1e-9 keeps a whole product (10 x 0.8) from rounding up past itself.
  const auto rank =
      static_cast<std::size_t>(std::ceil(static_cast<double>(n + 1) * kBandCoverage - 1e-9));
  if (n == 0 || rank > n) return band;
  std::sort(logs.begin(), logs.end());
  band.factor = std::exp(logs[rank - 1]);
  band.cells = static_cast<int>(n);
  return band;
}

PredictionBand band_without(const std::vector<BandCell>& cells, const std::string& left_out,
                            DeviceKind kind, Bound bound) {
  std::vector<double> of_kind, of_bound;
  for (const BandCell& c : cells) {
    if (c.kind != kind || (!left_out.empty() && c.run == left_out)) continue;
    of_kind.push_back(c.log_ratio);
    if (bound != Bound::kNone && c.bound == bound) of_bound.push_back(c.log_ratio);
  }
  if (static_cast<int>(of_bound.size()) >= kMinBandCells) {
    if (const PredictionBand own = fit_band(of_bound); own.factor > 0.0) return own;
  }
  return fit_band(of_kind);
}

Coverage leave_one_run_out(const std::vector<BandCell>& cells, std::optional<DeviceKind> kind) {
  Coverage out;
  for (const BandCell& c : cells) {
    if (kind && c.kind != *kind) continue;
    const PredictionBand band = band_without(cells, c.run, c.kind, c.bound);
    if (band.factor <= 0.0) continue;
    ++out.cells;
    out.inside += c.log_ratio <= std::log(band.factor) + 1e-12 ? 1 : 0;
  }
  return out;
}

}  // namespace crossover
