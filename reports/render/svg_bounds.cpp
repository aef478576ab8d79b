// report.html's account of each step: the cost model's five terms stacked, the step measured
// beside them; a predicted cell (not measured) hatched, with no measured bar.
#include <algorithm>
#include <array>

#include "reports/render/svg_plot.hpp"

namespace crossover {
namespace {

using svg::kColors;
using svg::num;
using svg::Plot;
using svg::svg_open;

constexpr std::array<const char*, 5> kTerms = {"dispatch", "compute", "memory", "transfer",
                                               "loader"};

std::array<double, 5> terms(const Result& r) {
  return {r.predicted_dispatch_seconds, r.predicted_compute_seconds, r.predicted_memory_seconds,
          r.predicted_transfer_seconds, r.predicted_loader_seconds};
}

}  // namespace

std::string bound_chart(const std::vector<Result>& results, const std::string& workload) {
  std::vector<const Result*> cells;
  for (const Result& r : results) {
    if (r.cell.workload == workload && r.bound != Bound::kNone &&
        (r.status == CellStatus::kOk || r.status == CellStatus::kPredicted))
      cells.push_back(&r);
  }
  if (cells.empty()) return "";
  double y_min = 1e300, y_max = 0.0;
  for (const Result* r : cells) {
    for (const double v : {r->predicted_step_seconds, r->step_seconds}) {
      if (v > 0.0) {
        y_min = std::min(y_min, v);
        y_max = std::max(y_max, v);
      }
    }
  }
  const Plot plot{0, static_cast<double>(cells.size()), 0, y_max * 1.1, false, false};
  std::string s = svg_open("where each step's time goes, " + workload);
  s += "<defs><pattern id='predicted-hatch' width='6' height='6' patternUnits='userSpaceOnUse' "
       "patternTransform='rotate(45)'><rect width='3' height='6' fill='#fff' "
       "fill-opacity='0.6'/></pattern></defs>";
  s += plot.axes("cells (left bar: the cost model's terms; right: the step measured)",
                 "seconds per step");
  const double width = Plot::kWidth / static_cast<double>(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const Result& r = *cells[i];
    const bool predicted = r.status == CellStatus::kPredicted;
    const double x = Plot::kLeft + static_cast<double>(i) * width + 3;
    const double bar = std::max(1.0, (width - 8) / 2);
    const std::string who = "#" + std::to_string(r.cell.index) + " " + cell_label(r.cell);
    double base = 0;
    const auto t = terms(r);
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] <= 0.0) continue;
      const double top = plot.sy(base + t[k]);
      const std::string rect = "x='" + num(x) + "' y='" + num(top) + "' width='" + num(bar) +
                               "' height='" + num(plot.sy(base) - top) + "'";
      s += "<rect class='term' " + rect + " fill='" + kColors[k] + "'><title>" +
           html_escape(who + (predicted ? " (predicted)" : "") + ": " + kTerms[k] + " " +
                       format_seconds(t[k])) +
           "</title></rect>";
      if (predicted) s += "<rect class='predicted' " + rect + " fill='url(#predicted-hatch)'/>";
      base += t[k];
    }
    if (!predicted && r.step_seconds > 0.0) {
      const double top = plot.sy(r.step_seconds);
      s += "<rect class='measured' x='" + num(x + bar + 2) + "' y='" + num(top) + "' width='" +
           num(bar) + "' height='" + num(plot.sy(0) - top) + "' fill='#555'><title>" +
           html_escape(who + ": measured step " + format_seconds(r.step_seconds)) +
           "</title></rect>";
    }
  }
  for (std::size_t k = 0; k < kTerms.size(); ++k) {
    s += "<rect x='" + num(Plot::kLeft + 8 + 88 * static_cast<double>(k)) + "' y='" +
         num(Plot::kTop + 2) + "' width='10' height='10' fill='" + kColors[k] + "'/><text x='" +
         num(Plot::kLeft + 22 + 88 * static_cast<double>(k)) + "' y='" + num(Plot::kTop + 11) +
         "'>" + kTerms[k] + "</text>";
  }
  return s + "</svg>";
}

}  // namespace crossover
