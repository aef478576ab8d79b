#pragma once
// Where along one axis the contender starts to beat the baseline: one rule, computed here once,
// that every output states the same way — a search's statement and its chart, the crossover
// section of every report, the charts' crossing and summary.json. No LibTorch.
//
// The rule: the contender wins from the first value at and above which it wins at every measured
// value. Directly below that, a baseline win places the crossing between the two values, where
// the speedup (and each bound of its interval) crosses 1 on log scales; a run of ties there is a
// tie region, and the crossing is never placed inside it: it lies between the highest tie and the
// first win.

#include <array>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text/words.hpp"

namespace crossover {

/// Who wins a pair or a probe: the contender when the speedup's interval lies above 1, the
/// baseline when it lies below 1, otherwise neither (the one rule of the search and the reports).
enum class Winner { kBaseline, kContender, kTie };

/// "baseline", "contender", "tie": for searches.json, logs and test messages.
inline constexpr auto words(Winner) {
  return std::array{std::pair{Winner::kBaseline, std::string_view("baseline")},
                    std::pair{Winner::kContender, std::string_view("contender")},
                    std::pair{Winner::kTie, std::string_view("tie")}};
}
inline std::ostream& operator<<(std::ostream& out, Winner w) { return out << text_of(w); }

/// One point along the axis (a search's probe, a grid's pair of cells): the speedup (baseline
/// time / contender time) and its interval.
struct Probe {
  double value = 0.0;
  double speedup = 1.0, low = 1.0, high = 1.0;
  Winner winner = Winner::kTie;
  std::vector<std::size_t> cells;  ///< the cells measured (baseline, contender)
};

/// What the rule finds along a series of points (Probe: value, speedup, interval, winner).
struct CrossingFinding {
  std::size_t from = 0;       ///< the first point from which the contender wins throughout;
                              ///< points.size() when it does not win at the largest value
  std::size_t tie_first = 0;  ///< the lowest of the ties directly below `from` (== from: none)
  std::optional<double> at;   ///< the crossing, interpolated: only after a baseline win
  std::optional<double> low, high;  ///< its interval; after a tie region, its highest tie and the
                                    ///< first win
  bool earlier_win = false;         ///< the contender also won below, but not at every value
  bool neighbours = false;  ///< the values either side of the crossing are adjacent integers

  bool crossing() const { return low.has_value(); }
  bool tie_region() const { return tie_first < from; }
};

/// The rule over `points`, ascending in value (at least one).
CrossingFinding find_crossing(const std::vector<Probe>& points);

/// The finding in words, with the sides named `baseline` and `contender`: "cuda wins from
/// dataset_size 11,579 on (speedup 1.157x [1.125, 1.199]); the crossing lies near dataset_size
/// 5,823 (5,252-6,435)", "... on (...); the two tie from 112 to 1,000 (neither wins within the
/// intervals), so the crossing lies between 1,000 and 10,000", "cpu wins everywhere up to ...".
/// With `predicted` (a side of the points is a prediction, their intervals its band): "the
/// predicted crossing lies near 1,205 (484-3,260, its 80 % band)".
std::string crossing_statement(const std::vector<Probe>& points, const CrossingFinding& finding,
                               const std::string& axis, const std::string& baseline,
                               const std::string& contender, bool predicted = false);

/// "1.157x [1.125, 1.199]".
std::string speedup_text(const Probe& probe);

}  // namespace crossover
