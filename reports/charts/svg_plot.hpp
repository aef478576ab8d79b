#pragma once
// What the charts of report.html share (svg_charts.cpp, svg_search.cpp): the plot area with its
// log or linear axes, the palette, the opening tag. Text only: no I/O.

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/text/text.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/charts/svg_text.hpp"

namespace crossover {
namespace svg {

constexpr auto num = svg_number;

// An axis value as the crossover statements write it: "19,098", "777" (rounded from 100 up), "0.5".
inline std::string axis_text(double value) {
  return format_axis_value(value >= 100 ? std::round(value) : value);
}

// A crossing's marker: "crossover ≈ 1,205", "predicted crossover ≈ 1,205" where a side of it is
// predicted.
inline std::string crossing_label(const Crossover& c) {
  return std::string(c.predicted ? "predicted crossover ≈ " : "crossover ≈ ") +
         axis_text(c.crossing.value_or(0.0));
}

// The palette: blue, then orange, then the rest. Red is kept for what a chart marks (the
// crossing, a search's bracket), never a series.
inline const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c",
                                      "#9467bd", "#8c564b", "#17becf"};

// One colour per device in every chart and legend: the CPU blue, CUDA orange (as the sides of a
// device comparison are), any other device from the rest of the palette by its `order`.
inline const char* device_colour(const std::string& device, std::size_t order) {
  if (device.rfind("cpu", 0) == 0) return kColors[0];
  if (device.rfind("cuda", 0) == 0) return kColors[1];
  return kColors[2 + order % 4];
}

// A plot area of 560 x 260 inside a 640 x 320 SVG, with log or linear axes.
struct Plot {
  double x_min, x_max, y_min, y_max;
  bool x_log, y_log;
  /// A linear x axis of a key's values (num_workers 0, 1, 2): a tick at each, none between,
  /// where ticks at a quarter of a worker would mean nothing. Empty: evenly spaced ticks.
  std::vector<double> x_values = {};
  /// The y axis's measure: ticks in its unit ("1 ms", "20 mJ").
  /// None: plain numbers (a speedup, samples per second).
  std::optional<Measure> y_measure = {};
  static constexpr double kLeft = 64, kTop = 16, kWidth = 556, kHeight = 250;

  double sx(double x) const {
    const double t = x_log ? (std::log(x) - std::log(x_min)) / (std::log(x_max) - std::log(x_min))
                           : (x - x_min) / (x_max - x_min);
    return kLeft + (std::isfinite(t) ? t : 0.5) * kWidth;
  }
  double sy(double y) const {
    const double t = y_log ? (std::log(y) - std::log(y_min)) / (std::log(y_max) - std::log(y_min))
                           : (y - y_min) / (y_max - y_min);
    return kTop + kHeight - (std::isfinite(t) ? t : 0.5) * kHeight;
  }
  // With `x_numbers` false the caller names the x positions itself (a category each).
  std::string axes(const std::string& x_label, const std::string& y_label,
                   bool x_numbers = true) const {
    std::string s = "<line x1='" + num(kLeft) + "' y1='" + num(kTop + kHeight) + "' x2='" +
                    num(kLeft + kWidth) + "' y2='" + num(kTop + kHeight) + "' stroke='#444'/>";
    s += "<line x1='" + num(kLeft) + "' y1='" + num(kTop) + "' x2='" + num(kLeft) + "' y2='" +
         num(kTop + kHeight) + "' stroke='#444'/>";
    const std::vector<double> x_ticks =
        !x_numbers ? std::vector<double>{}
                   : (x_log || x_values.empty() ? ticks(x_min, x_max, x_log) : x_values);
    for (double v : x_ticks) {
      // A label at the right end ends there: centred, "100,000" would run off the chart.
      const bool last = sx(v) > kLeft + kWidth - 24;
      s += "<text x='" + num(last ? std::min(sx(v) + 12, kLeft + kWidth + 16) : sx(v)) + "' y='" +
           num(kTop + kHeight + 16) + "' text-anchor='" + (last ? "end" : "middle") + "'>" +
           html_escape(axis_text(v)) + "</text>";
    }
    for (double v : ticks(y_min, y_max, y_log)) {
      s += "<text x='" + num(kLeft - 6) + "' y='" + num(sy(v) + 4) + "' text-anchor='end'>" +
           html_escape(y_text(v)) + "</text><line x1='" + num(kLeft) + "' y1='" + num(sy(v)) +
           "' x2='" + num(kLeft + kWidth) + "' y2='" + num(sy(v)) + "' stroke='#eee'/>";
    }
    s += "<text x='" + num(kLeft + kWidth / 2) + "' y='" + num(kTop + kHeight + 34) +
         "' text-anchor='middle'>" + html_escape(x_label) + "</text>";
    s += "<text transform='translate(14," + num(kTop + kHeight / 2) +
         ") rotate(-90)' text-anchor='middle'>" + html_escape(y_label) + "</text>";
    return s;
  }
  // A y tick's text: in the axis's measure where it has one.
  std::string y_text(double v) const {
    return y_measure ? format_measure(v, *y_measure) : format_number(v);
  }
  static std::vector<double> ticks(double lo, double hi, bool log_scale) {
    std::vector<double> out;
    // A degenerate range (one value, or values a log scale cannot show) gets its ends as ticks:
    // a loop over decades from 0 or from infinity would never end.
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi <= lo || (log_scale && lo <= 0)) {
      for (double v : {lo, hi}) {
        if (std::isfinite(v) && (out.empty() || v != out.back())) out.push_back(v);
      }
      return out;
    }
    if (log_scale) {
      // Decades; where fewer than three fit, 1-2-5 of each, then denser round values (a speedup
      // from 0.75 to 1.6 reads 0.8, 1, 1.2, 1.5, never its two ends alone).
      const std::vector<std::vector<double>> steps = {
          {1.0},
          {1.0, 2.0, 5.0},
          {1.0, 1.5, 2.0, 3.0, 5.0, 7.0},
          {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}};
      for (const auto& mantissas : steps) {
        out.clear();
        for (double p = std::pow(10.0, std::floor(std::log10(lo))); p <= hi * 1.0001; p *= 10) {
          for (double m : mantissas) {
            if (p * m >= lo * 0.9999 && p * m <= hi * 1.0001) out.push_back(p * m);
          }
        }
        if (out.size() >= 3) break;
      }
      if (out.size() < 2) out = {lo, hi};
    } else {
      // Round values 1, 2 or 5 x 10^k apart, the closest that give at most six (350, 400, 450
      // us, never 305.6, 366.9, 428.1); each an integer times a power of ten, so 0.6 is 0.6.
      const int unit = static_cast<int>(std::floor(std::log10((hi - lo) / 4.0))) - 1;
      const double power = std::pow(10.0, std::abs(unit));
      const auto value = [&](double units) { return unit < 0 ? units / power : units * power; };
      for (double m : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0}) {
        out.clear();
        for (double k = std::ceil(lo / value(m) - 1e-9); value(k * m) <= hi + value(m) * 1e-9; ++k)
          out.push_back(value(k * m) + 0.0);  // never -0
        if (out.size() <= 6) break;
      }
      if (out.size() < 2) out = {lo, hi};
    }
    return out;
  }
};

inline std::string svg_open(const std::string& label) {
  return "<svg class='chart' role='img' aria-label='" + html_escape(label) +
         "' viewBox='0 0 640 320' width='640' height='320' xmlns='http://www.w3.org/2000/svg'>";
}

}  // namespace svg
}  // namespace crossover
