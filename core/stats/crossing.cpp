#include "core/stats/crossing.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/text/text.hpp"

namespace crossover {
namespace {

// Where y crosses 1 between (x0, y0) and (x1, y1): on a log-x scale, or a linear one from an
// axis value of 0 (num_workers 0 and 2), which has no logarithm.
double log_crossing(double x0, double y0, double x1, double y1) {
  const double l0 = std::log(y0);
  const double l1 = std::log(y1);
  const double t = l1 == l0 ? 0.5 : -l0 / (l1 - l0);
  if (x0 <= 0.0) return x0 + t * (x1 - x0);
  return std::exp(std::log(x0) + t * (std::log(x1) - std::log(x0)));
}

// The crossing of one measure (the speedup, or a bound of its interval) between points k-1 and k.
template <typename Measure>
double crossing_before(const std::vector<Probe>& p, std::size_t k, Measure y) {
  if (y(p[k - 1]) >= 1.0) return p[k - 1].value;
  if (y(p[k]) <= 1.0) return p[k].value;
  return log_crossing(p[k - 1].value, y(p[k - 1]), p[k].value, y(p[k]));
}

}  // namespace

std::string speedup_text(const Probe& p) {
  return format_number(p.speedup) + "x [" + format_number(p.low) + ", " + format_number(p.high) +
         "]";
}

CrossingFinding find_crossing(const std::vector<Probe>& p) {
  CrossingFinding f;
  f.from = p.size();
  while (f.from > 0 && p[f.from - 1].winner == Winner::kContender) --f.from;
  f.tie_first = f.from;
  if (f.from == 0 || f.from == p.size()) return f;
  while (f.tie_first > 0 && p[f.tie_first - 1].winner == Winner::kTie) --f.tie_first;
  for (std::size_t i = 0; i < f.tie_first; ++i) f.earlier_win |= p[i].winner == Winner::kContender;
  const std::size_t k = f.from;
  f.neighbours = p[k].value - p[k - 1].value <= 1.0;
  if (f.tie_region()) {
    f.low = p[k - 1].value;
    f.high = p[k].value;
    return f;
  }
  f.at = crossing_before(p, k, [](const Probe& q) { return q.speedup; });
  // The interval's upper bound crosses 1 first, its lower bound last.
  double low = crossing_before(p, k, [](const Probe& q) { return q.high; });
  double high = crossing_before(p, k, [](const Probe& q) { return q.low; });
  if (low > high) std::swap(low, high);
  f.low = low;
  f.high = high;
  return f;
}

std::string crossing_statement(const std::vector<Probe>& p, const CrossingFinding& f,
                               const std::string& axis, const std::string& baseline,
                               const std::string& contender, bool predicted) {
  const std::string crossing = predicted ? "the predicted crossing" : "the crossing";
  const std::string range =
      format_axis_value(p.front().value) + " to " + format_axis_value(p.back().value);
  if (f.from == p.size()) {
    const bool baseline_everywhere = std::all_of(
        p.begin(), p.end(), [](const Probe& q) { return q.winner == Winner::kBaseline; });
    if (baseline_everywhere)
      return baseline + " wins everywhere up to " + axis + " " + format_axis_value(p.back().value) +
             ": no crossover in the measured range (" + range + ")";
    return "no crossover in the measured range of " + axis + " (" + range + "): " +
           (p.back().winner == Winner::kBaseline
                ? baseline + " wins at the largest, "
                : baseline + " and " + contender + " tie at the largest, ") +
           format_axis_value(p.back().value) + " (" + contender + "'s speedup " +
           speedup_text(p.back()) + ")";
  }
  if (f.from == 0)
    return contender + " wins at every measured " + axis + " (" + range + "), from " +
           speedup_text(p.front()) + " to " + speedup_text(p.back());
  const Probe& first = p[f.from];
  const Probe& below = p[f.from - 1];
  std::string text = contender + " wins from " + axis + " " + format_axis_value(first.value) +
                     " on (speedup " + speedup_text(first) + "); ";
  if (f.tie_region()) {
    const double tie_low = p[f.tie_first].value;
    // The baseline's side of the tie region, where it was measured.
    const Probe* side = f.tie_first > 0 && p[f.tie_first - 1].winner == Winner::kBaseline
                            ? &p[f.tie_first - 1]
                            : nullptr;
    text += "the two tie " +
            (tie_low == below.value
                 ? "at " + format_axis_value(below.value)
                 : "from " + format_axis_value(tie_low) + " to " + format_axis_value(below.value)) +
            " (neither wins within the intervals" +
            (side != nullptr ? "; " + baseline + " wins at " + format_axis_value(side->value) +
                                   ", " + speedup_text(*side)
                             : std::string()) +
            "), so " + crossing + " lies between " + format_axis_value(below.value) + " and " +
            format_axis_value(first.value);
  } else if (f.neighbours) {
    text += crossing + " lies between " + axis + " " + format_axis_value(below.value) + " and " +
            format_axis_value(first.value);
  } else {
    text += crossing + " lies near " + axis + " " + format_axis_value(std::round(*f.at)) + " (" +
            format_axis_value(std::round(*f.low)) + "-" + format_axis_value(std::round(*f.high)) +
            (predicted ? ", its 80 % band" : "") + ")";
  }
  if (f.earlier_win) text += "; it also won at some smaller values, but not at every one";
  return text;
}

}  // namespace crossover
