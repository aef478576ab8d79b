#include "reports/charts/svg_charts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/text/text.hpp"
#include "reports/analysis/cell_names.hpp"
#include "reports/analysis/comparison.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/analysis/scaling.hpp"
#include "reports/charts/svg_plot.hpp"

namespace crossover {

namespace {

using svg::axis_text;
using svg::kColors;
using svg::num;
using svg::Plot;
using svg::svg_open;

// The pairs behind a crossover, in the order of its values.
std::vector<const Pair*> crossover_points(const Crossover& c, const std::vector<Pair>& pairs) {
  std::vector<const Pair*> points;
  for (std::size_t i = 0; i + 1 < c.cells.size(); i += 2) {
    for (const Pair& p : pairs) {
      if (p.baseline->cell.index == c.cells[i] && p.contender->cell.index == c.cells[i + 1])
        points.push_back(&p);
    }
  }
  return points;
}

}  // namespace

// "iris_mlp, threads=1" or "iris_mlp": a chart's subject.
std::string chart_subject(const Crossover& c) {
  return c.fixed.empty() ? c.workload : c.workload + ", " + c.fixed;
}

namespace {

// The y axis of an epoch's measure on a log scale.
std::string y_label(Measure measure) {
  return measure == Measure::kEnergy ? "median energy per epoch (log scale)"
         : measure == Measure::kCost ? "median cost per epoch (log scale)"
                                     : "median epoch time (log scale)";
}

}  // namespace

namespace {

// What a chart shows around a point: a measured median's 95 % interval, a prediction's band.
std::pair<double, double> shown_interval(const Result& r) {
  if (r.status == CellStatus::kPredicted) {
    const double e = r.prediction.prediction_error;
    const double factor = e > 0.0 && e < 1e6 ? 1.0 + e : 1.0;  // a band read from a file: sane
    return {r.epoch_seconds / factor, r.epoch_seconds * factor};
  }
  return {r.epoch_seconds_ci_low > 0 ? r.epoch_seconds_ci_low : r.epoch_seconds,
          r.epoch_seconds_ci_high > 0 ? r.epoch_seconds_ci_high : r.epoch_seconds};
}

}  // namespace

// The span the crossing lies in, shaded, with its legend: said in words where no crossing
// point is marked (the two tie between two values), else the crossing's own label names it.
std::string crossing_band(const Plot& plot, const Crossover& c) {
  if (!c.crossing_low || !c.crossing_high) return "";
  const double x0 = plot.sx(*c.crossing_low), x1 = plot.sx(*c.crossing_high);
  std::string s = "<rect class='crossing-band' x='" + num(std::min(x0, x1)) + "' y='" +
                  num(Plot::kTop) + "' width='" + num(std::max(1.0, std::abs(x1 - x0))) +
                  "' height='" + num(Plot::kHeight) + "' fill='#d62728' fill-opacity='0.08'/>";
  if (c.crossing) return s;
  const double x = std::max(x0, x1);
  const bool right = x < Plot::kLeft + Plot::kWidth * 0.6;
  return s + "<text class='crossing-band-label' x='" + num(right ? x + 4 : std::min(x0, x1) - 4) +
         "' y='" + num(Plot::kTop + Plot::kHeight - 8) + "' text-anchor='" +
         (right ? "start" : "end") + "' fill='#d62728'>" +
         html_escape(std::string(c.predicted ? "shaded: the predicted crossing lies here, "
                                             : "shaded: the crossing lies here, ") +
                     c.axis + " " + axis_text(*c.crossing_low) + "–" +
                     axis_text(*c.crossing_high)) +
         "</text>";
}

// The picture everyone draws for "when does the GPU beat the CPU": median epoch time against the
// swept axis on log-log scales, one line per side with its 95 % interval band, the crossing
// marked and labelled (with its interval, from the speedup's bounds, shaded).
std::string time_chart(const Crossover& c, const std::vector<Pair>& pairs,
                       const CompareSpec& spec) {
  const std::vector<const Pair*> points = crossover_points(c, pairs);
  if (points.size() < 2 || points.size() != c.values.size()) return "";
  double y_min = points.front()->baseline->epoch_seconds, y_max = y_min;
  for (const Pair* p : points) {
    for (const Result* r : {p->baseline, p->contender}) {
      const auto [low, high] = shown_interval(*r);
      y_min = std::min({y_min, r->epoch_seconds, low});
      y_max = std::max({y_max, r->epoch_seconds, high});
    }
  }
  if (!(y_min > 0)) return "";
  const bool x_log = c.values.front() > 0;
  const Plot plot{c.values.front(), c.values.back(), y_min / 1.5, y_max * 1.5, x_log, true,
                  c.values,         spec.measure};
  std::string s =
      svg_open("median " + measure_noun(spec.measure) + " of " + spec.baseline + " and " +
               spec.contender + " against " + c.axis + ", " + chart_subject(c));
  s += plot.axes(c.axis + (x_log ? " (log scale)" : ""), y_label(spec.measure));
  s += crossing_band(plot, c);
  const std::string sides[2] = {spec.baseline, spec.contender};
  for (int side = 0; side < 2; ++side) {
    const auto at = [&](std::size_t i) {
      return side == 0 ? points[i]->baseline : points[i]->contender;
    };
    const char* colour = kColors[side == 0 ? 0 : 1];  // blue and orange; red marks the crossing
    // A predicted side: a dashed line, its band the prediction's, "predicted" in its legend.
    std::string predicted;
    for (std::size_t i = 0; i < points.size(); ++i)
      if (at(i)->status == CellStatus::kPredicted) predicted = at(i)->prediction.prediction_profile;
    std::string upper, lower, line, dots;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const Result* r = at(i);
      const double high = shown_interval(*r).second;
      upper += num(plot.sx(c.values[i])) + "," + num(plot.sy(high)) + " ";
      line += num(plot.sx(c.values[i])) + "," + num(plot.sy(r->epoch_seconds)) + " ";
      dots +=
          "<circle cx='" + num(plot.sx(c.values[i])) + "' cy='" + num(plot.sy(r->epoch_seconds)) +
          "' r='4' fill='" + colour + "'><title>" +
          html_escape(spec.axis + "=" + sides[side] + ", " + c.axis + " " + axis_text(c.values[i]) +
                      ": " + format_measure(r->epoch_seconds, spec.measure) + predicted_mark(*r) +
                      " (cell " + std::to_string(r->cell.index) + ")") +
          "</title></circle>";
    }
    for (std::size_t i = points.size(); i-- > 0;) {
      const Result* r = at(i);
      lower += num(plot.sx(c.values[i])) + "," + num(plot.sy(shown_interval(*r).first)) + " ";
    }
    s += "<polygon class='band' points='" + upper + lower + "' fill='" + colour +
         "' fill-opacity='0.18'/>";
    s += "<polyline class='series' data-side='" + html_escape(sides[side]) + "' points='" + line +
         "' fill='none' stroke='" + colour + "' stroke-width='2'" +
         (predicted.empty() ? "" : " stroke-dasharray='6 4'") + "/>" + dots;
    const double y = Plot::kTop + 4 + 16 * side;
    s += "<rect x='" + num(Plot::kLeft + 8) + "' y='" + num(y) + "' width='10' height='10' fill='" +
         colour + "'/><text x='" + num(Plot::kLeft + 22) + "' y='" + num(y + 9) + "'>" +
         html_escape(spec.axis + "=" + sides[side] +
                     (predicted.empty() ? "" : " (predicted, " + predicted + ", 80 % band)")) +
         "</text>";
  }
  if (c.crossing) {
    const double x = plot.sx(*c.crossing);
    s += "<line class='crossing' x1='" + num(x) + "' y1='" + num(Plot::kTop) + "' x2='" + num(x) +
         "' y2='" + num(Plot::kTop + Plot::kHeight) + "' stroke='#d62728' stroke-width='2'/>";
    std::string label = svg::crossing_label(c) + " " + c.axis;
    if (c.crossing_low && c.crossing_high)
      label += " (" + axis_text(*c.crossing_low) + "–" + axis_text(*c.crossing_high) +
               (c.predicted ? ", 80 % band" : "") + ")";
    const bool right = x < Plot::kLeft + Plot::kWidth * 0.6;
    s += "<text class='crossing-label' x='" + num(right ? x + 4 : x - 4) + "' y='" +
         num(Plot::kTop + Plot::kHeight - 8) + "' text-anchor='" + (right ? "start" : "end") +
         "' fill='#d62728'>" + html_escape(label) + "</text>";
  }
  return s + "</svg>";
}

// Speedup along the crossover axis: the interval band, the points, y = 1, the crossing.
std::string speedup_chart(const Crossover& c, const std::vector<Pair>& pairs,
                          const CompareSpec& spec) {
  const std::vector<const Pair*> points = crossover_points(c, pairs);
  if (points.size() < 2) return "";
  double y_min = 1.0, y_max = 1.0;
  for (const Pair* p : points) {
    y_min = std::min(y_min, p->ci.low);
    y_max = std::max(y_max, p->ci.high);
  }
  const Plot plot{c.values.front(),     c.values.back(), y_min / 1.2, y_max * 1.2,
                  c.values.front() > 0, y_min > 0,       c.values};
  // In energy or cost the ratio is of joules or of money.
  const std::string ratio =
      spec.measure == Measure::kTime ? "speedup" : text_of(spec.measure) + " ratio";
  std::string s = svg_open(ratio + " of " + spec.contender + " over " + spec.baseline +
                           " against " + c.axis + ", " + chart_subject(c));
  s += plot.axes(c.axis + (plot.x_log ? " (log scale)" : ""),
                 ratio + " " + spec.baseline + " / " + spec.contender);
  std::string upper, lower;
  for (std::size_t i = 0; i < points.size(); ++i) {
    upper += num(plot.sx(c.values[i])) + "," + num(plot.sy(points[i]->ci.high)) + " ";
  }
  for (std::size_t i = points.size(); i-- > 0;) {
    lower += num(plot.sx(c.values[i])) + "," + num(plot.sy(points[i]->ci.low)) + " ";
  }
  s += crossing_band(plot, c);
  s += "<polygon class='band' points='" + upper + lower + "' fill='#1f77b4' fill-opacity='0.18'/>";
  s += "<line class='parity' x1='" + num(Plot::kLeft) + "' y1='" + num(plot.sy(1.0)) + "' x2='" +
       num(Plot::kLeft + Plot::kWidth) + "' y2='" + num(plot.sy(1.0)) +
       "' stroke='#888' stroke-dasharray='6 4'/>";
  s += "<text x='" + num(Plot::kLeft + Plot::kWidth - 4) + "' y='" + num(plot.sy(1.0) - 4) +
       "' text-anchor='end' fill='#666'>y = 1</text>";
  // A speedup with a predicted side is drawn as the predicted series are: dashed, hollow points,
  // named so in the legend and in every tooltip.
  std::string line;
  for (std::size_t i = 0; i < points.size(); ++i)
    line += num(plot.sx(c.values[i])) + "," + num(plot.sy(points[i]->speedup)) + " ";
  s += "<polyline points='" + line + "' fill='none' stroke='#1f77b4' stroke-width='2'" +
       (c.predicted ? " stroke-dasharray='6 3'" : "") + "/>";
  if (c.predicted) {
    // Above the plot: the crossing's label takes the plot's top line.
    s += "<text class='legend' x='" + num(Plot::kLeft + 8) + "' y='" + num(Plot::kTop - 4) + "'>" +
         html_escape(ratio + " (predicted: one side by the cost model, with its band)") + "</text>";
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const bool predicted = points[i]->predicted;
    s += "<circle cx='" + num(plot.sx(c.values[i])) + "' cy='" + num(plot.sy(points[i]->speedup)) +
         "' r='4' " +
         (predicted ? "fill='#fff' stroke='#1f77b4' stroke-width='2'" : "fill='#1f77b4'") +
         "><title>" +
         html_escape(c.axis + " " + axis_text(c.values[i]) + ": " +
                     format_number(points[i]->speedup) + "x" + (predicted ? " (predicted)" : "")) +
         "</title></circle>";
  }
  if (c.crossing) {
    const double x = plot.sx(*c.crossing);
    s += "<line class='crossing' x1='" + num(x) + "' y1='" + num(Plot::kTop) + "' x2='" + num(x) +
         "' y2='" + num(Plot::kTop + Plot::kHeight) + "' stroke='#d62728' stroke-width='2'/>";
    s += "<text x='" + num(x + 4) + "' y='" + num(Plot::kTop + 12) + "' fill='#d62728'>" +
         html_escape(svg::crossing_label(c)) + "</text>";
  }
  return s + "</svg>";
}

// The groups of an epoch chart: the identity keys but the device, in first-seen order, each
// named as lines, one per varying key ("batch_size=1000", "num_workers=0"); and its devices, the
// CPU first, as in the device table, so that a device keeps its colour in every chart.
struct BarGroups {
  std::vector<nlohmann::ordered_json> keys;
  std::vector<std::size_t> group_of;  // per bar
  std::vector<std::string> devices;
  std::vector<std::vector<std::string>> names;
  std::size_t lines = 1;  // the most lines a name takes
};

// A cell's device as an epoch chart's legend names it: "cuda (predicted)" apart from a measured
// "cuda", so that a prediction never passes for a measurement.
std::string shown_device(const Result& r) {
  return device_column(r.cell) + (r.status == CellStatus::kPredicted ? " (predicted)" : "");
}

BarGroups bar_groups(const std::vector<const Result*>& ok) {
  BarGroups g;
  for (const Result* r : ok) {
    nlohmann::ordered_json key = cell_identity_json(r->cell);
    key.erase("device");
    key.erase("gpus");
    const auto found = std::find(g.keys.begin(), g.keys.end(), key);
    g.group_of.push_back(static_cast<std::size_t>(found - g.keys.begin()));
    if (found == g.keys.end()) g.keys.push_back(key);
    const std::string device = shown_device(*r);
    if (std::find(g.devices.begin(), g.devices.end(), device) == g.devices.end())
      g.devices.push_back(device);
  }
  std::stable_sort(
      g.devices.begin(), g.devices.end(), [](const std::string& x, const std::string& y) {
        return device_kind(x) == DeviceKind::kCpu && device_kind(y) != DeviceKind::kCpu;
      });
  for (const auto& name : distinguishing_names(g.keys, "=", "\n")) {
    std::vector<std::string> parts;
    for (std::size_t at = name.find('\n'); at != std::string::npos;) {
      const std::size_t next = name.find('\n', at + 1);
      parts.push_back(name.substr(at + 1, next == std::string::npos ? next : next - at - 1));
      at = next;
    }
    if (parts.empty()) parts.push_back("all cells");
    g.lines = std::max(g.lines, parts.size());
    g.names.push_back(parts);
  }
  return g;
}

// A dot's paint: its device's colour, hollow and dashed for a prediction.
std::string dot_paint(const std::string& device, std::size_t order, bool predicted) {
  const std::string colour = svg::device_colour(device, order);
  return predicted ? "fill='#fff' stroke='" + colour + "' stroke-width='2' stroke-dasharray='3 2'"
                   : "fill='" + colour + "'";
}

// The group names under the x axis, shrunk with the room each group has (about 6 px a character
// at 11 px).
std::string group_names_svg(const BarGroups& g, double group_width) {
  std::size_t longest = 1;
  for (const auto& parts : g.names) {
    for (const auto& part : parts) longest = std::max(longest, part.size());
  }
  const double font = std::clamp(group_width / (0.62 * static_cast<double>(longest)), 6.0, 11.0);
  std::string s;
  for (std::size_t k = 0; k < g.keys.size(); ++k) {
    const double x = Plot::kLeft + k * group_width + group_width / 2;
    s += "<text class='group' x='" + num(x) + "' y='" + num(Plot::kTop + Plot::kHeight + 14) +
         "' text-anchor='middle' font-size='" + num(font) + "'>";
    for (std::size_t line = 0; line < g.names[k].size(); ++line) {
      s += "<tspan x='" + num(x) + "' dy='" + (line == 0 ? std::string("0") : num(font + 2)) +
           "'>" + html_escape(g.names[k][line]) + "</tspan>";
    }
    s += "</text>";
  }
  return s;
}

// Median epoch time of every cell of a workload that ran, one bar each: bars grouped by their
// configuration (named by the keys that vary, as the device table's rows are), the devices side by
// side within a group, coloured by device.
std::string epoch_chart(const std::vector<Result>& results, const std::string& workload,
                        Measure measure) {
  // The measured cells, and in time the predicted ones beside them (hollow, "(predicted)").
  std::vector<const Result*> ok;
  for (const Result& r : results) {
    const bool predicted =
        r.status == CellStatus::kPredicted && measure == Measure::kTime && r.epoch_seconds > 0.0;
    if ((r.status == CellStatus::kOk || predicted) && r.cell.workload == workload) ok.push_back(&r);
  }
  if (ok.empty()) return "";
  const BarGroups g = bar_groups(ok);
  if (g.keys.size() < 2) return "";  // one configuration: nothing to compare along
  double y_min = ok.front()->epoch_seconds, y_max = y_min;
  for (const Result* r : ok) {
    y_min = std::min(y_min, r->epoch_seconds);
    y_max = std::max(y_max, r->epoch_seconds);
  }
  const Plot plot{
      0, static_cast<double>(g.keys.size()), y_min / 2, y_max * 1.5, false, true, {}, measure};
  // Room below the plot for the group names, a line per key.
  const double height = Plot::kTop + Plot::kHeight + 16 + 13.0 * static_cast<double>(g.lines);
  std::string s =
      "<svg class='chart' role='img' aria-label='" +
      html_escape("median " + measure_noun(measure) + " per configuration of " + workload) +
      "' viewBox='0 0 640 " + num(height) + "' width='640' height='" + num(height) +
      "' xmlns='http://www.w3.org/2000/svg'>";
  // The y axis and its labels; the x axis carries the group names instead of numbers.
  s += "<line x1='" + num(Plot::kLeft) + "' y1='" + num(Plot::kTop + Plot::kHeight) + "' x2='" +
       num(Plot::kLeft + Plot::kWidth) + "' y2='" + num(Plot::kTop + Plot::kHeight) +
       "' stroke='#444'/><line x1='" + num(Plot::kLeft) + "' y1='" + num(Plot::kTop) + "' x2='" +
       num(Plot::kLeft) + "' y2='" + num(Plot::kTop + Plot::kHeight) + "' stroke='#444'/>";
  for (double v : Plot::ticks(plot.y_min, plot.y_max, true)) {
    s += "<text x='" + num(Plot::kLeft - 6) + "' y='" + num(plot.sy(v) + 4) +
         "' text-anchor='end'>" + html_escape(plot.y_text(v)) + "</text><line x1='" +
         num(Plot::kLeft) + "' y1='" + num(plot.sy(v)) + "' x2='" +
         num(Plot::kLeft + Plot::kWidth) + "' y2='" + num(plot.sy(v)) + "' stroke='#eee'/>";
  }
  s += "<text transform='translate(14," + num(Plot::kTop + Plot::kHeight / 2) +
       ") rotate(-90)' text-anchor='middle'>" + y_label(measure) + "</text>";
  const double group_width = Plot::kWidth / static_cast<double>(g.keys.size());
  const double bar_width = std::max(1.0, (group_width - 6) / static_cast<double>(g.devices.size()));
  s += group_names_svg(g, group_width);
  for (std::size_t i = 0; i < ok.size(); ++i) {
    const std::string device = shown_device(*ok[i]);
    const bool predicted = ok[i]->status == CellStatus::kPredicted;
    const auto d = static_cast<std::size_t>(std::find(g.devices.begin(), g.devices.end(), device) -
                                            g.devices.begin());
    // A dot, not a bar: on a log axis a bar's length means nothing.
    const double top = plot.sy(ok[i]->epoch_seconds);
    const double x = Plot::kLeft + g.group_of[i] * group_width + 3 + (d + 0.5) * bar_width;
    s += "<circle class='dot' cx='" + num(x) + "' cy='" + num(top) + "' r='5' " +
         dot_paint(device, d, predicted) + "><title>" +
         html_escape(join(g.names[g.group_of[i]], " ")) + ", " + html_escape(device) + ": " +
         html_escape(format_measure(ok[i]->epoch_seconds, measure) + predicted_mark(*ok[i])) +
         " (cell " + std::to_string(ok[i]->cell.index) + ")</title></circle>";
  }
  for (std::size_t d = 0; d < g.devices.size(); ++d) {
    const double y = Plot::kTop + 4 + 16 * d;
    const bool predicted = g.devices[d].find(" (predicted)") != std::string::npos;
    s += "<circle cx='" + num(Plot::kLeft + 13) + "' cy='" + num(y + 5) + "' r='5' " +
         dot_paint(g.devices[d], d, predicted) + "/><text x='" + num(Plot::kLeft + 22) + "' y='" +
         num(y + 9) + "'>" + html_escape(g.devices[d]) + "</text>";
  }
  return s + "</svg>";
}

// The phases of every phase-timed cell as stacked bars.
std::string phase_chart(const std::vector<Result>& results) {
  std::vector<const Result*> timed;
  for (const Result& r : results) {
    if (r.status == CellStatus::kOk && r.cell.timing == Timing::kPhases) timed.push_back(&r);
  }
  if (timed.empty()) return "";
  const char* names[] = {"data", "host→device", "forward", "backward", "optimizer"};
  double y_max = 0;
  const auto parts = [](const Result& r) {
    return std::vector<double>{r.phase_data_seconds, r.phase_copy_seconds, r.phase_forward_seconds,
                               r.phase_backward_seconds, r.phase_optimizer_seconds};
  };
  for (const Result* r : timed) {
    double sum = 0;
    for (double p : parts(*r)) sum += p;
    y_max = std::max(y_max, sum);
  }
  const Plot plot{
      0, static_cast<double>(timed.size()), 0, y_max * 1.1, false, false, {}, Measure::kTime};
  std::string s = svg_open("phase breakdown per step");
  s += plot.axes("phase-timed cells", "time per step");
  const double width = Plot::kWidth / static_cast<double>(timed.size());
  for (std::size_t i = 0; i < timed.size(); ++i) {
    double base = 0;
    const auto p = parts(*timed[i]);
    for (std::size_t k = 0; k < p.size(); ++k) {
      const double top = plot.sy(base + p[k]);
      s += "<rect class='phase' x='" + num(Plot::kLeft + i * width + 4) + "' y='" + num(top) +
           "' width='" + num(std::max(1.0, width - 8)) + "' height='" + num(plot.sy(base) - top) +
           "' fill='" + kColors[k] + "'><title>#" + std::to_string(timed[i]->cell.index) + " " +
           names[k] + ": " + html_escape(format_seconds(p[k])) + "</title></rect>";
      base += p[k];
    }
  }
  for (int k = 0; k < 5; ++k) {
    s += "<rect x='" + num(Plot::kLeft + 8 + 100 * k) + "' y='" + num(Plot::kTop + 2) +
         "' width='10' height='10' fill='" + kColors[k] + "'/><text x='" +
         num(Plot::kLeft + 22 + 100 * k) + "' y='" + num(Plot::kTop + 11) + "'>" + names[k] +
         "</text>";
  }
  return s + "</svg>";
}

// Samples per second against the number of replicas (GPUs under dp, processes under ddp), one
// line per workload, parallel mode and device; the one-replica cell starts each line.
std::string scaling_chart(const std::vector<ScalingRow>& rows) {
  std::map<std::string, std::map<int, double>> lines;
  for (const auto& row : rows) {
    const Cell& c = row.result->cell;
    double& best =
        lines[c.workload + " " + text_of(c.parallel) + " " + c.device.text()][row.replicas];
    best = std::max(best, row.result->samples_per_second);
  }
  bool several = false;
  double y_max = 0;
  int x_max = 1;
  for (const auto& [workload, points] : lines) {
    several |= points.size() > 1;
    for (const auto& [gpus, rate] : points) {
      y_max = std::max(y_max, rate);
      x_max = std::max(x_max, gpus);
    }
  }
  if (!several) return "";
  const Plot plot{1, static_cast<double>(x_max), 0, y_max * 1.1, false, false};
  std::string s =
      svg_open("throughput against replicas") + plot.axes("replicas", "samples per second");
  int colour = 0;
  for (const auto& [workload, points] : lines) {
    std::string line;
    for (const auto& [gpus, rate] : points)
      line += num(plot.sx(gpus)) + "," + num(plot.sy(rate)) + " ";
    s += "<polyline points='" + line + "' fill='none' stroke='" + kColors[colour++ % 6] +
         "' stroke-width='2'><title>" + html_escape(workload) + "</title></polyline>";
  }
  return s + "</svg>";
}

}  // namespace crossover
