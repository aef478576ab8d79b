// history.md and history.html (reports/gate/history.hpp).
#include <algorithm>
#include <cmath>
#include <string>

#include "core/text.hpp"
#include "reports/gate/history.hpp"
#include "reports/render/svg_plot.hpp"
#include "reports/render/table.hpp"

namespace crossover {
namespace {

// "+12.3 % [+8.1, +16.0] from abc123 to def456 (p = 0.002)".
std::string change_text(const HistoryChange& c) {
  return format_percent(c.change) + " [" + format_percent(c.interval.low) + ", " +
         format_percent(c.interval.high) + "] from " + c.last_before + " to " + c.first_after +
         " (p = " + format_number(c.p_value) + ")";
}

double best_median(const HistoryCell& cell) {
  double best = cell.points.front().median;
  for (const HistoryPoint& p : cell.points) best = std::min(best, p.median);
  return best;
}

std::string span_text(const History& history) {
  if (history.runs.empty()) return "no runs";
  const HistoryRun &first = history.runs.front(), &last = history.runs.back();
  return std::to_string(history.runs.size()) + " run(s), from " + first.name + " (" + first.commit +
         ", " + first.recorded_at + ") to " + last.name + " (" + last.commit + ", " +
         last.recorded_at + ")";
}

// One cell's series: each run's median with its interquartile range, every change point a
// dashed line named by the commit after it; hovering a point names its run.
std::string history_chart(const History& history, const HistoryCell& cell) {
  double low = cell.points.front().median, high = low;
  for (const HistoryPoint& p : cell.points) {
    low = std::min({low, p.median, p.p25 > 0.0 ? p.p25 : p.median});
    high = std::max({high, p.median, p.p75});
  }
  const double pad = (high - low) * 0.1 + high * 1e-3;
  // Runs numbered from 1; the axis ends on a multiple of 4 runs past the first, so that its five
  // ticks fall on whole runs.
  const double span =
      4.0 * std::ceil(std::max<double>(static_cast<double>(history.runs.size()) - 1.0, 1.0) / 4.0);
  const svg::Plot plot{1.0, 1.0 + span, std::max(low - pad, 0.0), high + pad, false, false};
  std::string s = svg::svg_open("epoch time of " + cell.label + " over the runs") +
                  plot.axes("run (oldest first)", "epoch time (s)");
  for (const HistoryChange& c : cell.changes) {
    const double x = plot.sx(static_cast<double>(cell.points[c.point].run) + 0.5);
    s += "<line x1='" + svg::num(x) + "' y1='" + svg::num(plot.kTop) + "' x2='" + svg::num(x) +
         "' y2='" + svg::num(plot.kTop + plot.kHeight) +
         "' stroke='#d62728' stroke-dasharray='4 3'><title>" + html_escape(change_text(c)) +
         "</title></line><text x='" + svg::num(x + 3) + "' y='" + svg::num(plot.kTop + 12) +
         "' fill='#d62728'>" + html_escape(c.first_after + " " + format_percent(c.change)) +
         "</text>";
  }
  std::string path;
  for (const HistoryPoint& p : cell.points) {
    const double x = plot.sx(static_cast<double>(p.run) + 1.0);
    path += (path.empty() ? "M" : " L") + svg::num(x) + " " + svg::num(plot.sy(p.median));
    const HistoryRun& run = history.runs[p.run];
    s += "<line x1='" + svg::num(x) + "' y1='" + svg::num(plot.sy(p.p25 > 0 ? p.p25 : p.median)) +
         "' x2='" + svg::num(x) + "' y2='" + svg::num(plot.sy(p.p75 > 0 ? p.p75 : p.median)) +
         "' stroke='#9ecae1' stroke-width='3'/><circle cx='" + svg::num(x) + "' cy='" +
         svg::num(plot.sy(p.median)) + "' r='3' fill='#1f77b4'><title>" +
         html_escape(run.name + " (" + run.commit + ", " + run.recorded_at +
                     "): " + format_seconds(p.median) + ", interquartile " + format_seconds(p.p25) +
                     " to " + format_seconds(p.p75)) +
         "</title></circle>";
  }
  return s + "<path d='" + path + "' fill='none' stroke='#1f77b4'/></svg>";
}

}  // namespace

std::string render_history_markdown(const History& history) {
  std::string md = "## crossover history\n\n" + markdown_text(span_text(history)) +
                   ". Change points: E-divisive means on each cell's run medians, each kept at "
                   "permutation p < 0.01; a cell is **slower** when its newest segment is slower "
                   "than the one before it by more than its threshold.\n\n";
  md +=
      "| cell | runs | latest | best | threshold | changes (newest last) |\n"
      "|---|---:|---:|---:|---:|---|\n";
  int failing = 0;
  for (const HistoryCell& cell : history.cells) {
    if (cell.points.empty()) continue;
    std::string changes;
    for (const HistoryChange& c : cell.changes)
      changes += (changes.empty() ? "" : "; ") + markdown_text(change_text(c));
    if (newest_slowdown(cell)) {
      changes += " **slower**";
      ++failing;
    }
    md += "| " + markdown_text(cell.label) + " | " + std::to_string(cell.points.size()) + " | " +
          format_seconds(cell.points.back().median) + " | " + format_seconds(best_median(cell)) +
          " | " + format_percent(cell.threshold, false) + " | " +
          (changes.empty() ? "none" : changes) + " |\n";
  }
  md += "\n" +
        (failing == 0 ? std::string("No cell's newest segment is slower.")
                      : std::to_string(failing) + " cell(s) slower in their newest segment.") +
        "\n";
  return md;
}

std::string render_history_html(const History& history) {
  std::string html =
      "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'><title>crossover "
      "history</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
      ".chart text{font-size:11px}.slower{color:#d62728}</style></head><body>\n<h1>crossover "
      "history</h1>\n<p>" +
      html_escape(span_text(history)) +
      ". Each point: a run's median epoch time, its bar the interquartile range; a dashed line: a "
      "change point (E-divisive means, permutation p &lt; 0.01), named by the first commit after "
      "it. Hover a point for its run.</p>\n";
  for (const HistoryCell& cell : history.cells) {
    if (cell.points.empty()) continue;
    html += "<h2>" + html_escape(cell.label) + "</h2>\n";
    if (const auto slower = newest_slowdown(cell))
      html +=
          "<p class='slower'>Slower in its newest segment: " + html_escape(change_text(*slower)) +
          "</p>\n";
    html += history_chart(history, cell) + "\n";
  }
  return html + "</body></html>\n";
}

}  // namespace crossover
