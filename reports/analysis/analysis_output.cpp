// The analysis's findings as text and JSON: the crossover section of report.md and the analysis
// of summary.json. Every renderer prints what the analysis found; none derives its own.
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/analysis/measures.hpp"
#include "reports/render/table.hpp"

namespace crossover {

using Json = nlohmann::ordered_json;

Json analysis_json(const CompareSpec& spec, const std::vector<Pair>& pairs,
                   const std::vector<Crossover>& crossovers,
                   const std::vector<Recommendation>& recommendations) {
  Json j;
  j["compare"] = {{"axis", spec.axis}, {"baseline", spec.baseline}, {"contender", spec.contender}};
  j["measure"] = spec.measure;
  j["crossovers"] = Json::array();
  for (const Crossover& c : crossovers) {
    Json x = {{"workload", c.workload},   {"axis", c.axis},
              {"fixed", c.fixed},         {"values", c.values},
              {"statement", c.statement}, {"cells", c.cells},
              {"predicted", c.predicted}, {"why", c.why}};
    x["from"] = c.from ? Json(*c.from) : Json();
    x["crossing"] = c.crossing ? Json(*c.crossing) : Json();
    x["crossing_low"] = c.crossing_low ? Json(*c.crossing_low) : Json();
    x["crossing_high"] = c.crossing_high ? Json(*c.crossing_high) : Json();
    if (c.tie_low) x["tie_region"] = {*c.tie_low, *c.tie_high};
    j["crossovers"].push_back(x);
  }
  j["recommendations"] = Json::array();
  for (const Recommendation& r : recommendations) {
    j["recommendations"].push_back(
        {{"workload", r.workload}, {"statement", r.statement}, {"cells", r.cells}});
  }
  j["pairs"] = Json::array();
  for (const Pair& p : pairs) {
    j["pairs"].push_back({{"workload", p.baseline->cell.workload},
                          {"baseline_cell", p.baseline->cell.index},
                          {"contender_cell", p.contender->cell.index},
                          {"baseline_epoch_seconds", p.baseline->epoch_seconds},
                          {"contender_epoch_seconds", p.contender->epoch_seconds},
                          {"speedup", p.speedup},
                          {"speedup_ci_low", p.ci.low},
                          {"speedup_ci_high", p.ci.high},
                          {"winner", p.winner == Winner::kContender  ? spec.contender
                                     : p.winner == Winner::kBaseline ? spec.baseline
                                     : p.predicted                   ? "undecided"
                                                                     : "tie"},
                          {"predicted", p.predicted}});
  }
  return j;
}

std::string render_analysis_markdown(const CompareSpec& spec, const std::vector<Pair>& pairs,
                                     const std::vector<Crossover>& crossovers,
                                     const std::vector<Recommendation>& recommendations) {
  const std::string title =
      spec.axis + "=" + spec.baseline + " vs " + spec.axis + "=" + spec.contender;
  std::string out = "## Crossovers" +
                    (spec.measure == "time" ? "" : " " + measure_words(spec.measure)) + ": " +
                    markdown_text(title) + "\n\n";
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
  if (crossovers.empty()) out += "No numeric axis takes several values among the pairs.\n\n";
  for (const Crossover& c : crossovers) {
    std::vector<std::string> cells;
    for (std::size_t i : c.cells) cells.push_back("#" + std::to_string(i));
    out += "- **" + markdown_text(c.workload) + "**: " + markdown_text(c.statement) + ". Cells " +
           join(cells) + ".\n";
    if (!c.why.empty()) out += "  *Why:* " + markdown_text(c.why) + ".\n";
  }
  const std::string base = spec.axis + "=" + spec.baseline;
  const std::string cont = spec.axis + "=" + spec.contender;
  const bool time = spec.measure == "time";
  const std::string ratio = time ? "speedup" : "ratio";
  out += "\n" + std::string(time ? "Speedup" : "Ratio") + " = the " + markdown_text(base) +
         " cell's median " + measure_noun(spec.measure) + " / the " + markdown_text(cont) +
         " cell's, with a bootstrap 95 % interval from the raw epoch samples" +
         (time                       ? ""
          : spec.measure == "energy" ? " (each epoch's time times the cell's mean power)"
                                     : " (each epoch's time times the device's price per second)") +
         ". A winner is named only when the interval excludes 1.\n\n";
  TextTable t;
  t.header = {"workload",
              "cells",
              base + (time ? " epoch" : " " + spec.measure),
              cont + (time ? " epoch" : " " + spec.measure),
              ratio,
              "95 % CI",
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
         format_number(p.ci.low) + " - " + format_number(p.ci.high),
         p.winner == Winner::kContender  ? cont
         : p.winner == Winner::kBaseline ? base
                                         : "tie"});
  }
  return out + render_markdown_table(t) + "\n" + recommendations_section;
}

}  // namespace crossover
