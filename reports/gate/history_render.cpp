// history.md and history.html (reports/gate/history.hpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/text/text.hpp"
#include "reports/charts/svg_plot.hpp"
#include "reports/gate/history.hpp"
#include "reports/render/table_writer.hpp"

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

// A value of a cell's series as its table prints it: a time, or a count.
std::string value_text(const HistoryCell& cell, double value) {
  return cell.metric == GateMetric::kEpoch ? format_seconds(value)
                                           : format_axis_value(std::round(value));
}

// The unit a series reads best in: its largest value as 1 to 999 of it.
std::pair<double, const char*> time_unit(double high) {
  if (high < 1e-3) return {1e6, "us"};
  if (high < 1.0) return {1e3, "ms"};
  return {1.0, "s"};
}

// "suspect: runs r8, r9 +41.0 % on the runs before them (threshold 5.0 %; too few after them for
// a change point)".
std::string suspect_text(const History& history, const HistoryCell& cell,
                         const HistorySuspect& suspect) {
  std::vector<std::string> names;
  for (std::size_t run : suspect.runs)
    names.push_back(history.runs[run].name + " (" + history.runs[run].commit + ")");
  std::vector<std::string> busy;
  for (std::size_t run : suspect.runs)
    if (!history.runs[run].machine.empty()) busy.push_back(history.runs[run].commit);
  const std::size_t first = suspect.runs.front();
  const auto earlier = std::find_if(cell.points.rbegin(), cell.points.rend(),
                                    [&](const HistoryPoint& p) { return p.run < first; });
  const std::vector<std::string> setup = earlier == cell.points.rend()
                                             ? std::vector<std::string>{}
                                             : setup_changes(history, earlier->run, first);
  return "suspect: " + join(names) + " " + format_percent(suspect.change) +
         " on the runs before them (threshold " + format_percent(cell.threshold, false) +
         (suspect.bar > cell.threshold ? ", raised to " + format_percent(suspect.bar, false) +
                                             " by the spread of the runs before them"
                                       : "") +
         "; too few runs after them for a change point)" +
         (setup.empty() ? "" : "; what can skew timings differs: " + join(setup, "; ")) +
         (busy.empty() ? ""
                       : ", and " + join(busy) +
                             " ran on a busy machine: run again on a quiet one before "
                             "believing it");
}

// The predicted cells left out of every series, one line; "" when none.
std::string predicted_text(const History& history) {
  if (history.predicted_left_out == 0) return "";
  return std::to_string(history.predicted_left_out) +
         " predicted cell(s) of these runs are left out of every series: a prediction is not a "
         "measurement, and no gate decides on it.";
}

// The runs whose machine was not quiet, one line: "Runs on a busy machine (shaded on the
// charts): r4 (abc123): load 10.8 on 2 cores; ..."; "" when none.
std::string busy_runs_text(const History& history) {
  std::vector<std::string> busy;
  for (const HistoryRun& run : history.runs)
    if (!run.machine.empty()) busy.push_back(run.name + " (" + run.commit + "): " + run.machine);
  return busy.empty() ? "" : "Runs on a busy machine (shaded on the charts): " + join(busy, "; ");
}

// The verdict over every cell: how many are slower, how many suspect.
std::string verdict_text(const History& history) {
  int slower = 0, suspect = 0;
  for (const HistoryCell& cell : history.cells) {
    slower += newest_slowdown(cell) ? 1 : 0;
    suspect += newest_suspect(cell) ? 1 : 0;
  }
  std::string text = slower == 0
                         ? "No cell's newest segment is slower."
                         : std::to_string(slower) + " cell(s) slower in their newest segment.";
  if (suspect > 0)
    text += " " + std::to_string(suspect) +
            " cell(s) suspect: their newest run(s) slower than the runs before them by more than "
            "the threshold, too few for a change point yet.";
  // Every cell suspect in the same runs: a slower machine moves them all together, as a change
  // to code every cell runs does.
  std::optional<std::vector<std::size_t>> same;
  for (const HistoryCell& cell : history.cells) {
    const auto s = newest_suspect(cell);
    if (!s || (same && *same != s->runs)) {
      same.reset();
      break;
    }
    same = s->runs;
  }
  if (same && history.cells.size() > 1) {
    std::vector<std::string> names;
    for (std::size_t r : *same) names.push_back(history.runs[r].name);
    text += " Every cell moved in the same run(s) (" + join(names) +
            "): a slower machine moves them all together, as a change every cell runs does; "
            "their env.json (load, the reference product) tells the two apart.";
  }
  return text;
}

// One cell's series: each run's median with its interquartile range, in a unit it reads in, the
// runs along the axis by commit; every change point a dashed line named by the commit after it;
// hovering a point names its run.
std::string history_chart(const History& history, const HistoryCell& cell) {
  double low = cell.points.front().median, high = low;
  for (const HistoryPoint& p : cell.points) {
    low = std::min({low, p.median, p.p25 > 0.0 ? p.p25 : p.median});
    high = std::max({high, p.median, p.p75});
  }
  const auto [scale, unit] = cell.metric == GateMetric::kEpoch
                                 ? time_unit(high)
                                 : std::pair<double, const char*>{1e-6, "millions"};
  const double pad = (high - low) * 0.1 + high * 1e-3;
  const double runs = static_cast<double>(std::max<std::size_t>(history.runs.size(), 1));
  const svg::Plot plot{0.5,   runs + 0.5, std::max(low - pad, 0.0) * scale, (high + pad) * scale,
                       false, false};
  std::string s =
      svg::svg_open(
          (cell.metric == GateMetric::kEpoch ? "epoch time of " : "instructions per epoch of ") +
          cell.label + " over the runs") +
      plot.axes("commit (oldest first)",
                std::string(cell.metric == GateMetric::kEpoch ? "epoch time ("
                                                              : "instructions per epoch (") +
                    unit + ")",
                false);
  // Each run's commit under it; at most 12 named, evenly.
  const std::size_t every = (history.runs.size() + 11) / 12;
  for (std::size_t r = 0; r < history.runs.size(); r += std::max<std::size_t>(every, 1))
    s += "<text x='" + svg::num(plot.sx(static_cast<double>(r) + 1.0)) + "' y='" +
         svg::num(plot.kTop + plot.kHeight + 16) + "' text-anchor='middle'>" +
         html_escape(run_tick(history, r)) + "</text>";
  // A run on a busy machine: its slot shaded, the reason on hover.
  for (std::size_t r = 0; r < history.runs.size(); ++r) {
    if (history.runs[r].machine.empty()) continue;
    const double x0 = plot.sx(static_cast<double>(r) + 0.5);
    const double x1 = plot.sx(static_cast<double>(r) + 1.5);
    s += "<rect class='busy-run' x='" + svg::num(x0) + "' y='" + svg::num(plot.kTop) + "' width='" +
         svg::num(x1 - x0) + "' height='" + svg::num(plot.kHeight) +
         "' fill='#7f7f7f' fill-opacity='0.15'><title>" +
         html_escape(history.runs[r].name + " (" + history.runs[r].commit +
                     ") ran on a busy machine: " + history.runs[r].machine) +
         "</title></rect>";
  }
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
    path += (path.empty() ? "M" : " L") + svg::num(x) + " " + svg::num(plot.sy(p.median * scale));
    const HistoryRun& run = history.runs[p.run];
    s += "<line x1='" + svg::num(x) + "' y1='" +
         svg::num(plot.sy((p.p25 > 0 ? p.p25 : p.median) * scale)) + "' x2='" + svg::num(x) +
         "' y2='" + svg::num(plot.sy((p.p75 > 0 ? p.p75 : p.median) * scale)) +
         "' stroke='#9ecae1' stroke-width='3'/><circle cx='" + svg::num(x) + "' cy='" +
         svg::num(plot.sy(p.median * scale)) + "' r='3' fill='#1f77b4'><title>" +
         html_escape(run.name + " (" + run.commit + ", " + run.recorded_at +
                     "): " + value_text(cell, p.median) + ", interquartile " +
                     value_text(cell, p.p25) + " to " + value_text(cell, p.p75)) +
         "</title></circle>";
  }
  return s + "<path d='" + path + "' fill='none' stroke='#1f77b4'/></svg>";
}

// Each cell's row of the table: label, runs, latest, best, threshold, and its changes with the
// verdict words (**slower**, suspect) as `text` writes them.
template <typename Text, typename Strong>
std::vector<std::vector<std::string>> table_rows(const History& history, Text text, Strong strong) {
  std::vector<std::vector<std::string>> rows;
  for (const HistoryCell& cell : history.cells) {
    if (cell.points.empty()) continue;
    std::string changes;
    for (const HistoryChange& c : cell.changes) {
      const std::vector<std::string> setup =
          setup_changes(history, cell.points[c.point - 1].run, cell.points[c.point].run);
      changes +=
          (changes.empty() ? "" : "; ") +
          text(
              change_text(c) +
              (setup.empty() ? "" : " (what can skew timings differs: " + join(setup, "; ") + ")"));
    }
    if (newest_slowdown(cell)) changes += " " + strong("slower");
    if (const auto suspect = newest_suspect(cell))
      changes += (changes.empty() ? "" : "; ") + text(suspect_text(history, cell, *suspect));
    rows.push_back({text(cell.label), std::to_string(cell.points.size()),
                    value_text(cell, cell.points.back().median),
                    value_text(cell, best_median(cell)), format_percent(cell.threshold, false),
                    changes.empty() ? "none" : changes});
  }
  return rows;
}

}  // namespace

std::string render_history_markdown(const History& history) {
  std::string md = "## crossover history\n\n" + markdown_text(span_text(history)) +
                   ". Change points: E-divisive means on each cell's run medians, each kept at "
                   "permutation p < 0.01; a cell is **slower** when its newest segment is slower "
                   "than the one before it by more than its threshold, and *suspect* when its "
                   "newest runs are, too few for a change point yet.\n\n";
  md +=
      "| cell | runs | latest | best | threshold | changes (newest last) |\n"
      "|---|---:|---:|---:|---:|---|\n";
  const auto rows = table_rows(
      history, [](const std::string& t) { return markdown_text(t); },
      [](const std::string& t) { return "**" + t + "**"; });
  for (const auto& row : rows) md += "| " + join(row, " | ") + " |\n";
  if (const std::string busy = busy_runs_text(history); !busy.empty())
    md += "\n" + markdown_text(busy) + "\n";
  if (const std::string left_out = predicted_text(history); !left_out.empty())
    md += "\n" + markdown_text(left_out) + "\n";
  return md + "\n" + verdict_text(history) + "\n";
}

std::string render_history_html(const History& history) {
  std::string html =
      "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'><title>crossover "
      "history</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
      ".chart text{font-size:11px}.slower{color:#d62728}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px "
      "6px}td.n{text-align:right;white-space:nowrap}</style></head><body>\n"
      "<h1>crossover history</h1>\n<p><strong>" +
      html_escape(verdict_text(history)) + "</strong></p>\n<p>" + html_escape(span_text(history)) +
      ".</p>\n<table><tr><th>cell</th><th>runs</th><th>latest</th><th>best</th><th>threshold</th>"
      "<th>changes (newest last)</th></tr>\n";
  const auto rows = table_rows(
      history, [](const std::string& t) { return html_escape(t); },
      [](const std::string& t) { return "<strong class='slower'>" + t + "</strong>"; });
  for (const auto& row : rows) {
    html += "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c)
      html += std::string(c >= 1 && c <= 4 ? "<td class='n'>" : "<td>") + row[c] + "</td>";
    html += "</tr>\n";
  }
  html +=
      "</table>\n<p>Each point: a run's median epoch time, its bar the interquartile range; a "
      "dashed line: a change point (E-divisive means, permutation p &lt; 0.01), named by the first "
      "commit after it. Hover a point for its run.</p>\n";
  if (const std::string busy = busy_runs_text(history); !busy.empty())
    html += "<p class='busy'>" + html_escape(busy) + "</p>\n";
  if (const std::string left_out = predicted_text(history); !left_out.empty())
    html += "<p class='predicted'>" + html_escape(left_out) + "</p>\n";
  for (const HistoryCell& cell : history.cells) {
    if (cell.points.empty()) continue;
    html += "<h2>" + html_escape(cell.label) + "</h2>\n";
    if (const auto slower = newest_slowdown(cell))
      html +=
          "<p class='slower'>Slower in its newest segment: " + html_escape(change_text(*slower)) +
          "</p>\n";
    if (const auto suspect = newest_suspect(cell))
      html += "<p class='slower'>" + html_escape(suspect_text(history, cell, *suspect)) + "</p>\n";
    html += history_chart(history, cell) + "\n";
  }
  return html + "</body></html>\n";
}

}  // namespace crossover
