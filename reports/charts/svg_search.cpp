// A search's chart in report.html: the speedup at each probe with its interval, numbered in the
// order the search measured them, the line y = 1, and what its statement says shaded: the
// crossing's interval (core/stats/crossing.hpp), and the tie region below it where there is one,
// both ends of each marked.
#include <algorithm>
#include <optional>

#include "core/stats/crossing.hpp"
#include "core/stats/search.hpp"
#include "reports/charts/svg_charts.hpp"
#include "reports/charts/svg_plot.hpp"

namespace crossover {
namespace {

using svg::num;
using svg::Plot;

// Blue where the contender won, red where the baseline did, grey for a tie.
const char* winner_colour(const std::string& word) {
  // Each side its own colour, as in every chart: the baseline blue, the contender orange.
  const std::optional<Winner> winner = parse_word<Winner>(word);
  return winner == Winner::kContender  ? svg::kColors[1]
         : winner == Winner::kBaseline ? svg::kColors[0]
                                       : "#888";
}

// A shaded span between two axis values, its ends labelled: `what` "crossing", "tie region", on
// text line `line` (0, 1) from the top, so that the labels of adjacent spans do not overlap.
std::string span(const Plot& plot, const nlohmann::ordered_json& ends, const std::string& what,
                 const char* colour, const char* css_class, int line) {
  const double a = ends[0].get<double>(), b = ends[1].get<double>();
  const double x0 = plot.sx(a), x1 = plot.sx(b);
  return "<rect class='" + std::string(css_class) + "' x='" + num(x0) + "' y='" + num(Plot::kTop) +
         "' width='" + num(std::max(1.0, x1 - x0)) + "' height='" + num(Plot::kHeight) +
         "' fill='" + colour + "' fill-opacity='0.10' stroke='" + colour +
         "' stroke-dasharray='4 3'/><text x='" + num(x1 + 4) + "' y='" +
         num(Plot::kTop + 12 + 14 * line) + "' fill='" + colour + "'>" +
         html_escape(what + " " + svg::axis_text(a) + "–" + svg::axis_text(b)) + "</text>";
}

}  // namespace

std::string search_chart(const nlohmann::ordered_json& search) {
  const auto& probes = search.at("probes");
  if (probes.size() < 2) return "";
  const bool x_log = parse_word<SearchScale>(search.value("scale", "log")) == SearchScale::kLog &&
                     search.at("from").get<double>() > 0;
  double y_min = 1.0, y_max = 1.0;
  for (const auto& p : probes) {
    y_min = std::min(y_min, p.at("low").get<double>());
    y_max = std::max(y_max, p.at("high").get<double>());
  }
  if (!(y_min > 0)) return "";
  const Plot plot{search.at("from").get<double>(),
                  search.at("to").get<double>(),
                  y_min / 1.2,
                  y_max * 1.2,
                  x_log,
                  true};
  const std::string key = search.at("key").get<std::string>();
  std::string s = svg::svg_open("speedup of " + search.at("contender").get<std::string>() +
                                " over " + search.at("baseline").get<std::string>() +
                                " at each probe of the search along " + key);
  s += plot.axes(key + (x_log ? " (log scale)" : ""),
                 "speedup of " + search.at("contender").get<std::string>() + " (log scale)");
  if (search.contains("tie_region"))
    s += span(plot, search["tie_region"], "tie region", "#888", "search-tie-region", 1);
  if (search.contains("bracket"))
    s += span(plot, search["bracket"], "crossing", "#d62728", "search-bracket", 0);
  s += "<line x1='" + num(Plot::kLeft) + "' y1='" + num(plot.sy(1.0)) + "' x2='" +
       num(Plot::kLeft + Plot::kWidth) + "' y2='" + num(plot.sy(1.0)) +
       "' stroke='#444' stroke-dasharray='2 2'/>";
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto& p = probes[i];
    const double x = plot.sx(p.at("value").get<double>());
    const char* colour = winner_colour(p.at("winner").get<std::string>());
    s += "<line class='probe-interval' x1='" + num(x) + "' y1='" + num(plot.sy(p["low"])) +
         "' x2='" + num(x) + "' y2='" + num(plot.sy(p["high"])) + "' stroke='" + colour + "'/>";
    s += "<circle class='probe' cx='" + num(x) + "' cy='" + num(plot.sy(p["speedup"])) +
         "' r='4' fill='" + colour + "'><title>" +
         html_escape("probe " + std::to_string(i + 1) + ": " + key + " " +
                     format_axis_value(p["value"]) + ", " + format_number(p["speedup"]) + "x [" +
                     format_number(p["low"]) + ", " + format_number(p["high"]) + "], " +
                     p["winner"].get<std::string>()) +
         "</title></circle>";
    s += "<text class='probe-order' x='" + num(x + 5) + "' y='" + num(plot.sy(p["speedup"]) - 6) +
         "'>" + std::to_string(i + 1) + "</text>";
  }
  return s + "</svg>";
}

}  // namespace crossover
