// report.html's account of each step: the cost model's five terms stacked as shares of the
// modelled step, one bar per cell, the modelled and measured steps in its tooltip; a predicted
// cell (not measured) hatched.
#include <algorithm>
#include <array>

#include "core/cells/modes.hpp"
#include "core/text/words.hpp"
#include "reports/charts/svg_plot.hpp"

namespace crossover {
namespace {

using svg::kColors;
using svg::num;
using svg::Plot;
using svg::svg_open;

// The terms in the order of terms(), each named by its bound's word.
const std::array<std::string, 5> kTerms = {text_of(Bound::kDispatch), text_of(Bound::kCompute),
                                           text_of(Bound::kMemory), text_of(Bound::kTransfer),
                                           text_of(Bound::kLoader)};

std::array<double, 5> terms(const Result& r) {
  const StepTerms& t = r.prediction.terms;
  return {t.dispatch, t.compute, t.memory, t.transfer, t.loader};
}

}  // namespace

std::string bound_chart(const std::vector<Result>& results, const std::string& workload) {
  std::vector<const Result*> cells;
  for (const Result& r : results) {
    const auto t = terms(r);
    if (r.cell.workload == workload && r.prediction.bound != Bound::kNone &&
        (r.status == CellStatus::kOk || r.status == CellStatus::kPredicted) &&
        t[0] + t[1] + t[2] + t[3] + t[4] > 0.0)
      cells.push_back(&r);
  }
  if (cells.empty()) return "";
  // Each bar is its step's terms as shares of their sum: on a linear axis of seconds a
  // dispatch-bound step beside a compute-bound one was an invisible sliver.
  const Plot plot{0, static_cast<double>(cells.size()), 0, 100, false, false};
  std::string s = svg_open("where each step's time goes, " + workload);
  s += "<defs><pattern id='predicted-hatch' width='6' height='6' patternUnits='userSpaceOnUse' "
       "patternTransform='rotate(45)'><rect width='3' height='6' fill='#fff' "
       "fill-opacity='0.6'/></pattern></defs>";
  s += plot.axes("cells (# as in the tables; hover for the modelled and the measured step)",
                 "share of the modelled step (%)", false);
  const double width = Plot::kWidth / static_cast<double>(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const Result& r = *cells[i];
    const bool predicted = r.status == CellStatus::kPredicted;
    const double x = Plot::kLeft + static_cast<double>(i) * width + 2;
    const double bar = std::max(1.0, width - 4);
    const std::string measured =
        predicted
            ? "predicted, not measured"
            : "measured " + format_seconds(r.step_seconds) +
                  (r.step_seconds > 0.0 && r.prediction.predicted_step_seconds > 0.0
                       ? " (the model " +
                             format_number(r.prediction.predicted_step_seconds / r.step_seconds) +
                             "x of it)"
                       : "");
    const std::string who = "#" + std::to_string(r.cell.index) + " " + cell_label(r.cell) +
                            ": modelled step " +
                            format_seconds(r.prediction.predicted_step_seconds) + ", " + measured;
    const auto t = terms(r);
    const double total = t[0] + t[1] + t[2] + t[3] + t[4];
    double base = 0;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] <= 0.0) continue;
      const double share = 100.0 * t[k] / total;
      const double top = plot.sy(base + share);
      const std::string rect = "x='" + num(x) + "' y='" + num(top) + "' width='" + num(bar) +
                               "' height='" + num(plot.sy(base) - top) + "'";
      s += "<rect class='term' " + rect + " fill='" + kColors[k] + "'><title>" +
           html_escape(who + "; " + kTerms[k] + " " + format_seconds(t[k]) + " (" +
                       format_number(share) + " %)") +
           "</title></rect>";
      if (predicted) s += "<rect class='predicted' " + rect + " fill='url(#predicted-hatch)'/>";
      base += share;
    }
    s += "<text x='" + num(x + bar / 2) + "' y='" + num(Plot::kTop + Plot::kHeight + 14) +
         "' text-anchor='middle' font-size='9'>#" + std::to_string(r.cell.index) + "</text>";
  }
  for (std::size_t k = 0; k < kTerms.size(); ++k) {
    s += "<rect x='" + num(Plot::kLeft + 8 + 88 * static_cast<double>(k)) + "' y='" +
         num(Plot::kTop - 14) + "' width='10' height='10' fill='" + kColors[k] + "'/><text x='" +
         num(Plot::kLeft + 22 + 88 * static_cast<double>(k)) + "' y='" + num(Plot::kTop - 5) +
         "'>" + kTerms[k] + "</text>";
  }
  return s + "</svg>";
}

}  // namespace crossover
