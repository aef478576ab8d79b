// The analysis's findings as JSON: the analysis of summary.json (report.md's crossover section is
// reports/render/analysis_markdown.cpp). Every renderer prints what the analysis found; none
// derives its own.
#include <nlohmann/json.hpp>

#include "core/text/text.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/analysis/energy_and_cost.hpp"

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
                          {"predicted", p.predicted},
                          {"baseline_status", p.baseline->status},
                          {"contender_status", p.contender->status}});
  }
  return j;
}

}  // namespace crossover
