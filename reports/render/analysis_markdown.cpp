#include "reports/render/analysis_markdown.hpp"

#include <algorithm>

#include "core/text/text.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/render/table_writer.hpp"

namespace crossover {

std::string render_analysis_markdown(const CompareSpec& spec, const std::vector<Pair>& pairs,
                                     const std::vector<Crossover>& crossovers,
                                     const std::vector<Recommendation>& recommendations) {
  const std::string title =
      spec.axis + "=" + spec.baseline + " vs " + spec.axis + "=" + spec.contender;
  std::string out = "## Crossovers" +
                    (spec.measure == Measure::kTime ? "" : " " + measure_words(spec.measure)) +
                    ": " + markdown_text(title) + "\n\n";
  std::string advice;
  for (const Recommendation& r : recommendations) {
    std::vector<std::string> cells;
    for (std::size_t i : r.cells) cells.push_back("#" + std::to_string(i));
    advice += "- **" + markdown_text(r.workload) + "**: " + markdown_text(r.statement) +
              " (cells " + join(cells) + ").\n";
  }
  const std::string recommendations_section =
      advice.empty() ? "" : "## Recommendations\n\n" + advice + "\n";
  if (pairs.empty()) {
    return out + "No pair of cells that ran differs only in " +
           markdown_text(spec.axis + " (" + spec.baseline + " vs " + spec.contender) +
           "), so there is nothing to compare.\n\n" + recommendations_section;
  }
  if (crossovers.empty()) {
    out +=
        "No numeric axis takes three values or more among the pairs, so there is no line to "
        "cross along: each pair's verdict is in the table below.\n\n";
  }
  for (const Crossover& c : crossovers) {
    std::vector<std::string> cells;
    for (std::size_t i : c.cells) cells.push_back("#" + std::to_string(i));
    out += "- **" + markdown_text(c.workload) + "**: " + markdown_text(c.statement) + ". Cells " +
           join(cells) + ".\n";
    if (!c.why.empty()) out += "  *Why:* " + markdown_text(c.why) + ".\n";
  }
  const std::string base = spec.axis + "=" + spec.baseline;
  const std::string cont = spec.axis + "=" + spec.contender;
  const bool time = spec.measure == Measure::kTime;
  const std::string ratio = time ? "speedup" : "ratio";
  const bool any_predicted =
      std::any_of(pairs.begin(), pairs.end(), [](const Pair& p) { return p.predicted; });
  out += "\n" + std::string(time ? "Speedup" : "Ratio") + " = the " + markdown_text(base) +
         " cell's median " + measure_noun(spec.measure) + " / the " + markdown_text(cont) +
         " cell's, with a bootstrap 95 % interval from the raw epoch samples" +
         (time ? ""
          : spec.measure == Measure::kEnergy
              ? " (each epoch's time times the cell's mean power)"
              : " (each epoch's time times the device's price per second)") +
         ". A winner is named only when the interval excludes 1." +
         (any_predicted ? " A row with a predicted side is no measurement: its interval is the "
                          "measured side's median 95 % interval against the prediction's 80 % "
                          "band (docs/methodology.md), and its winner says \"(predicted)\"."
                        : "") +
         "\n\n";
  TextTable t;
  t.header = {"workload",
              "cells",
              base + (time ? " epoch" : " " + text_of(spec.measure)),
              cont + (time ? " epoch" : " " + text_of(spec.measure)),
              ratio,
              any_predicted ? "interval" : "95 % CI",
              "winner"};
  t.right_aligned = {false, false, true, true, true, true, false};
  for (const Pair& p : pairs) {
    t.rows.push_back(
        {p.baseline->cell.workload,
         "#" + std::to_string(p.baseline->cell.index) + " / #" +
             std::to_string(p.contender->cell.index),
         format_measure(p.baseline->epoch_seconds, spec.measure) + predicted_mark(*p.baseline),
         format_measure(p.contender->epoch_seconds, spec.measure) + predicted_mark(*p.contender),
         format_number(p.speedup) + "x" + (p.predicted ? " (predicted)" : ""),
         format_number(p.ci.low) + " - " + format_number(p.ci.high) +
             (!any_predicted ? ""
              : p.predicted  ? " (80 % band)"
                             : " (95 % CI)"),
         winner_text(p, spec)});
  }
  return out + render_markdown_table(t) + "\n" + recommendations_section;
}

std::string render_scaling_markdown(const std::vector<Result>& results) {
  return render_scaling_markdown(scaling_rows(results));
}

std::string render_scaling_markdown(const std::vector<ScalingRow>& rows) {
  if (rows.empty()) return "";
  std::string out =
      "## Scaling\n\nEfficiency = throughput(N) / (N x throughput(1)), against the same cell with "
      "one replica; all-reduce: the gradient all-reduce per step on rank 0.\n\n";
  std::vector<std::string> workloads;
  for (const auto& row : rows) {
    if (std::find(workloads.begin(), workloads.end(), row.result->cell.workload) == workloads.end())
      workloads.push_back(row.result->cell.workload);
  }
  for (const auto& workload : workloads) {
    TextTable table;
    table.header = {"cell", "parallel",   "replicas",   "batch",      "samples/s",
                    "step", "all-reduce", "efficiency", "rank epochs"};
    table.right_aligned = {true, false, true, true, true, true, true, true, false};
    for (const auto& row : rows) {
      const Result& r = *row.result;
      if (r.cell.workload != workload) continue;
      std::vector<std::string> ranks;
      for (double s : r.rank_epoch_seconds) ranks.push_back(format_seconds(s));
      table.rows.push_back({"#" + std::to_string(r.cell.index), text_of(r.cell.parallel),
                            std::to_string(row.replicas), size_text(r.cell.batch_size),
                            format_number(r.samples_per_second), format_seconds(r.step_seconds),
                            r.allreduce_seconds > 0.0 ? format_seconds(r.allreduce_seconds) : "-",
                            row.efficiency ? format_number(100.0 * *row.efficiency) + " %" : "-",
                            join(ranks)});
    }
    out += "### " + markdown_text(workload) + "\n\n" + render_markdown_table(table) + "\n";
  }
  return out;
}

}  // namespace crossover
