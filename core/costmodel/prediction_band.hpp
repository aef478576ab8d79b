#pragma once
// How far a prediction may be off: a band fitted by split conformal prediction on real cells
// (the kBandCoverage quantile of |log(predicted / measured)|), one per bound class where the class
// has enough cells (Mondrian conformal) and else one per device kind, and its coverage measured
// the only honest way, leave one run out: each run's cells against a band fitted without them.
// No LibTorch.

#include <optional>
#include <string>
#include <vector>

#include "core/cells/modes.hpp"
#include "core/costmodel/bound.hpp"

namespace crossover {

/// The share of real cells a prediction band is fitted to hold.
inline constexpr double kBandCoverage = 0.8;
/// A bound class gets a band of its own from this many cells; fewer share their kind's.
inline constexpr int kMinBandCells = 8;

/// A prediction interval: a predicted time t lies in [t / factor, t * factor].
struct PredictionBand {
  double factor = 0.0;  ///< >= 1; 0: no band
  int cells = 0;        ///< the cells behind it
};

/// The split-conformal band of `log_ratios` (|log(predicted / measured)| of real cells): rank
/// ceil((n + 1) kBandCoverage) of the n sorted; none (factor 0) when that rank is past n.
PredictionBand fit_band(std::vector<double> log_ratios);

/// One real cell as a band sees it: its run, device kind, bound class and
/// |log(predicted / measured)|.
struct BandCell {
  std::string run;
  DeviceKind kind = DeviceKind::kCpu;
  Bound bound = Bound::kNone;
  double log_ratio = 0.0;
};

/// The band of a prediction of `kind` bound by `bound`, fitted on `cells` less those of the run
/// `left_out` ("": none left out): the bound class's own where it has kMinBandCells cells, else
/// the kind's (factor 0 where even that has too few); Bound::kNone asks for the kind's.
PredictionBand band_without(const std::vector<BandCell>& cells, const std::string& left_out,
                            DeviceKind kind, Bound bound);

/// What leaving each run out in turn gave for the cells of `kind`: how many had a band, and how
/// many of those lay inside it.
struct Coverage {
  int cells = 0, inside = 0;
  double share() const { return cells > 0 ? static_cast<double>(inside) / cells : 0.0; }
};

/// How a band's coverage is measured, as a profile's validation records it.
inline constexpr const char* kLeaveOneRunOut = "leave-one-run-out";

/// Every cell of `kind` (every kind: none) against the band fitted without its run.
Coverage leave_one_run_out(const std::vector<BandCell>& cells, std::optional<DeviceKind> kind);

}  // namespace crossover
