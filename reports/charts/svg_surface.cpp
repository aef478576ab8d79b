// The crossover surface of report.html: where two numeric axes vary together (width and batch
// size), the speedup of every pair as one heat map, each row's crossing marked along it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/cells/keys.hpp"
#include "core/text/text.hpp"
#include "reports/charts/svg_charts.hpp"
#include "reports/charts/svg_plot.hpp"

namespace crossover {
namespace {

using svg::num;

// Orange where the contender wins and blue where the baseline does (each side's colour in every
// chart: CUDA orange, the CPU blue), stronger with the ratio (full at 4x either way); a tie is
// grey, whatever its median says.
std::string fill_of(const Pair& p) {
  if (p.winner == Winner::kTie) return "#e0e0e0";
  const double strength = 0.25 + 0.75 * std::min(1.0, std::abs(std::log2(p.speedup)) / 2.0);
  // From white towards the side's colour: orange #ff7f0e, blue #1f77b4.
  const bool contender = p.winner == Winner::kContender;
  const int full[3] = {contender ? 0xff : 0x1f, contender ? 0x7f : 0x77, contender ? 0x0e : 0xb4};
  int rgb[3];
  for (int k = 0; k < 3; ++k)
    rgb[k] = static_cast<int>(std::lround(255.0 - (255.0 - full[k]) * strength));
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buffer;
}

// One heat map: the pairs of a workload that agree in everything but the two axes.
struct Surface {
  std::string workload, fixed;
  std::map<std::pair<double, double>, const Pair*> at;  ///< (x, y) -> pair
  std::set<double> xs, ys;
};

// Whether a pair of the heat map has a predicted side.
bool any_predicted(const Surface& s) {
  return std::any_of(s.at.begin(), s.at.end(),
                     [](const auto& entry) { return entry.second->predicted; });
}

// The heat map's legend, a line each, below its squares.
std::vector<std::string> legend_lines(const CompareSpec& spec, bool predicted) {
  std::vector<std::string> lines = {"orange: " + spec.axis + "=" + spec.contender +
                                    " faster, blue: " + spec.axis + "=" + spec.baseline +
                                    " faster,"};
  if (predicted) {
    lines.push_back("grey: a tie or undecided; black bar: the crossing;");
    lines.push_back("*: predicted (one side by the cost model)");
  } else {
    lines.push_back("grey: a tie; black bar: the crossing");
  }
  return lines;
}

std::string legend(double bottom, const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += "<text x='12' y='" + num(bottom + 52 + 14.0 * static_cast<double>(i)) +
           "' fill='#555'>" + html_escape(lines[i]) + "</text>";
  return out;
}

std::string draw(const Surface& s, const std::string& x_axis, const std::string& y_axis,
                 const std::vector<Crossover>& crossovers, const CompareSpec& spec) {
  const std::vector<double> xs(s.xs.begin(), s.xs.end()), ys(s.ys.begin(), s.ys.end());
  const double left = 100, top = 30, cell_w = std::min(96.0, 560.0 / xs.size()), cell_h = 34;
  // Wide enough for the legend's lines below the squares, however few the columns: at about 7
  // pixels a character of the page's 12-pixel text, the longest line whole.
  const std::vector<std::string> lines = legend_lines(spec, any_predicted(s));
  std::size_t longest = 0;
  for (const std::string& line : lines) longest = std::max(longest, line.size());
  const double width =
      std::max({left + cell_w * xs.size() + 20, 480.0, 24.0 + 7.0 * static_cast<double>(longest)});
  const double height = top + cell_h * ys.size() + 58 + 14.0 * static_cast<double>(lines.size());
  const auto column = [&](double x) {
    return static_cast<double>(std::lower_bound(xs.begin(), xs.end(), x) - xs.begin());
  };
  std::string svg = "<svg xmlns='http://www.w3.org/2000/svg' class='surface' width='" + num(width) +
                    "' height='" + num(height) + "' role='img' aria-label='" +
                    html_escape("speedup of " + spec.contender + " over " + spec.baseline + " by " +
                                x_axis + " and " + y_axis + ", " + s.workload) +
                    "' font-family='sans-serif' font-size='12'>";
  // Squares, then the crossings over them, then the numbers over both.
  std::string squares, marks, labels;
  for (std::size_t row = 0; row < ys.size(); ++row) {
    // Largest y on top, as on a chart's vertical axis.
    const double y0 = top + cell_h * static_cast<double>(ys.size() - 1 - row);
    labels += "<text x='" + num(left - 6) + "' y='" + num(y0 + cell_h / 2 + 4) +
              "' text-anchor='end'>" + html_escape(format_axis_value(ys[row])) + "</text>";
    for (std::size_t col = 0; col < xs.size(); ++col) {
      const auto found = s.at.find({xs[col], ys[row]});
      const double x0 = left + cell_w * static_cast<double>(col);
      if (found == s.at.end()) continue;  // not measured: left blank
      const Pair& p = *found->second;
      squares += "<rect class='surface-cell' data-winner='" + text_of(p.winner) + "' x='" +
                 num(x0) + "' y='" + num(y0) + "' width='" + num(cell_w - 2) + "' height='" +
                 num(cell_h - 2) + "' fill='" + fill_of(p) + "'><title>" +
                 html_escape(x_axis + " " + format_axis_value(xs[col]) + ", " + y_axis + " " +
                             format_axis_value(ys[row]) + ": " + speedup_text(p) +
                             (p.predicted ? " (predicted)" : "")) +
                 "</title></rect>";
      // A predicted speedup is marked in its square too: "2.39x*", the legend says what * is.
      labels += "<text x='" + num(x0 + cell_w / 2 - 1) + "' y='" + num(y0 + cell_h / 2 + 4) +
                "' text-anchor='middle'>" +
                html_escape(format_number(p.speedup) + "x" + (p.predicted ? "*" : "")) + "</text>";
    }
    // This row's crossing along x: the crossover whose cells are this row's pairs.
    for (const Crossover& c : crossovers) {
      if (c.axis != x_axis || !c.crossing || c.cells.empty()) continue;
      const auto mine = std::find_if(s.at.begin(), s.at.end(), [&](const auto& entry) {
        return entry.first.second == ys[row] && entry.second->baseline->cell.index == c.cells[0];
      });
      if (mine == s.at.end()) continue;
      // Between the columns it falls between, on a log scale where the values allow.
      const double k = column(*c.crossing);
      double at = k;
      if (k > 0 && k < static_cast<double>(xs.size())) {
        const double a = xs[static_cast<std::size_t>(k) - 1], b = xs[static_cast<std::size_t>(k)];
        const double t =
            a > 0 ? std::log(*c.crossing / a) / std::log(b / a) : (*c.crossing - a) / (b - a);
        at = k - 1 + std::clamp(t, 0.0, 1.0);
      }
      const double x = left + cell_w * (at + 0.5) - 1;
      marks += "<line class='surface-crossing' x1='" + num(x) + "' y1='" + num(y0 - 1) + "' x2='" +
               num(x) + "' y2='" + num(y0 + cell_h - 1) +
               "' stroke='#000' stroke-width='3' stroke-opacity='0.7'><title>" +
               html_escape(svg::crossing_label(c) + " " + x_axis) + "</title></line>";
    }
  }
  svg += squares + marks + labels;
  const double bottom = top + cell_h * ys.size();
  for (std::size_t col = 0; col < xs.size(); ++col) {
    svg += "<text x='" + num(left + cell_w * (col + 0.5) - 1) + "' y='" + num(bottom + 16) +
           "' text-anchor='middle'>" + html_escape(format_axis_value(xs[col])) + "</text>";
  }
  svg += "<text x='" + num(left + cell_w * xs.size() / 2) + "' y='" + num(bottom + 36) +
         "' text-anchor='middle'>" + html_escape(x_axis) + "</text>";
  svg += "<text x='12' y='" + num(top - 10) + "'>" + html_escape(y_axis) + "</text>";
  svg += legend(bottom, lines);
  return svg + "</svg>";
}

}  // namespace

std::vector<SurfaceChart> surface_charts(const std::vector<Pair>& pairs,
                                         const std::vector<Crossover>& crossovers,
                                         const CompareSpec& spec) {
  std::vector<SurfaceChart> charts;
  std::set<std::string> workloads;
  for (const Pair& p : pairs) workloads.insert(p.baseline->cell.workload);
  for (const std::string& workload : workloads) {
    // The numeric axes this workload's pairs vary along, most values first. One that is "full"
    // in every cell (a full batch) only follows the rows: derived, not an axis.
    std::vector<std::pair<std::size_t, std::string>> varying;
    for (const std::string& axis : numeric_axis_names()) {
      if (axis == spec.axis) continue;
      std::set<double> values;
      bool derived = true;
      for (const Pair& p : pairs) {
        if (p.baseline->cell.workload != workload) continue;
        if (const auto v = axis_value(*p.baseline, axis)) values.insert(*v);
        derived &= cell_config_json(p.baseline->cell)[axis] == kFullWord;
      }
      if (values.size() >= 2 && !derived) varying.emplace_back(values.size(), axis);
    }
    if (varying.size() < 2) continue;
    std::stable_sort(varying.begin(), varying.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::string x_axis = varying[0].second, y_axis = varying[1].second;
    // One surface per setting of everything else.
    std::map<std::string, Surface> surfaces;
    for (const Pair& p : pairs) {
      if (p.baseline->cell.workload != workload) continue;
      const auto x = axis_value(*p.baseline, x_axis), y = axis_value(*p.baseline, y_axis);
      if (!x || !y) continue;
      auto key = pairing_key(p.baseline->cell, spec.axis);
      key.erase(x_axis);
      key.erase(y_axis);
      if (!spec.machines_apart) key.erase("host");
      std::string fixed;
      for (std::size_t i = 2; i < varying.size(); ++i) {
        const auto v = axis_value(*p.baseline, varying[i].second);
        if (v)
          fixed += (fixed.empty() ? "" : ", ") + varying[i].second + "=" + format_axis_value(*v);
      }
      Surface& s = surfaces[key.dump()];
      s.workload = workload;
      s.fixed = fixed;
      s.at[{*x, *y}] = &p;
      s.xs.insert(*x);
      s.ys.insert(*y);
    }
    for (const auto& [key, s] : surfaces) {
      // Two axes that vary independently: some value of one meets several of the other. Where
      // each x has one y, one follows the other, and the map would be a diagonal of single cells.
      if (s.xs.size() < 2 || s.ys.size() < 2 || s.at.size() <= std::max(s.xs.size(), s.ys.size()))
        continue;
      std::string title = workload + ": speedup of " + spec.axis + "=" + spec.contender + " over " +
                          spec.baseline + " by " + x_axis + " and " + y_axis;
      if (any_predicted(s)) title += " (predicted)";
      if (!s.fixed.empty()) title += " (" + s.fixed + ")";
      charts.push_back({title, draw(s, x_axis, y_axis, crossovers, spec)});
    }
  }
  return charts;
}

}  // namespace crossover
