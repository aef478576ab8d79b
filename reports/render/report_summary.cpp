#include "reports/render/report_summary.hpp"

#include "core/costmodel/cost_model.hpp"
#include "core/records/prediction.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/analysis/scaling.hpp"
#include "reports/analysis/workload_verdict.hpp"

namespace crossover {
namespace {

// A cell's step as the cost model accounts for it: its bound, each term, what it was measured.
nlohmann::ordered_json bound_json(const Result& r) {
  nlohmann::ordered_json j = {
      {"cell", r.cell.index},
      {"status", r.status},
      {"bound", r.prediction.bound},
      {"profile", r.prediction.prediction_profile},
      {"measured_step_seconds", r.status == CellStatus::kOk ? r.step_seconds : 0.0},
      {"predicted_step_seconds", r.prediction.predicted_step_seconds}};
  j.update(r.prediction.terms_json());
  j["operators"] = r.anatomy.ops();
  j["flops"] = r.anatomy.step_flops;
  j["bytes"] = r.anatomy.step_bytes;
  j["h2d_bytes"] = r.anatomy.step_h2d_bytes;
  return j;
}

}  // namespace

nlohmann::ordered_json render_summary_json(const ReportContext& context,
                                           const std::vector<Result>& results,
                                           const Analysis& analysis) {
  nlohmann::ordered_json summary;
  nlohmann::ordered_json comparisons = nlohmann::ordered_json::array();
  for (const ComparisonFindings& f : analysis.comparisons) {
    comparisons.push_back(analysis_json(f.spec, f.pairs, f.crossovers, f.recommendations));
    comparisons.back()["by_measure"] = measures_json(f);
    if (comparisons.size() == 1) summary = comparisons.back();
  }
  summary["comparisons"] = comparisons;
  // The verdict every output opens with, as the terminal, report.md and report.html say it.
  nlohmann::ordered_json workloads = nlohmann::ordered_json::array();
  for (const WorkloadVerdict& v : verdicts(analysis, context.drifted_cells))
    workloads.push_back({{"workload", v.workload}, {"lines", v.lines}, {"predicted", v.predicted}});
  summary["verdict"] = {{"heading", verdict_heading(analysis)},
                        {"caveat", verdict_caveat(results, context.band_validation)},
                        {"workloads", workloads}};
  summary["title"] = context.title;
  summary["warnings"] = context.warnings;
  summary["environment"] = context.environment;
  // The cells that were not measured, each status its own list: skipped (could not run here),
  // failed (ran and failed), not_run (the sweep stopped before them).
  nlohmann::ordered_json unmeasured = {{"skipped", nlohmann::ordered_json::array()},
                                       {"failed", nlohmann::ordered_json::array()},
                                       {"not_run", nlohmann::ordered_json::array()}};
  nlohmann::ordered_json bounds = nlohmann::ordered_json::array();
  std::size_t ok = 0, predicted = 0;
  for (const auto& r : results) {
    if (r.prediction.bound != Bound::kNone) bounds.push_back(bound_json(r));
    if (r.status == CellStatus::kOk) {
      ++ok;
    } else if (r.status == CellStatus::kPredicted) {
      ++predicted;
    } else {
      const char* list = r.status == CellStatus::kSkipped  ? "skipped"
                         : r.status == CellStatus::kFailed ? "failed"
                                                           : "not_run";
      unmeasured[list].push_back({{"cell", r.cell.index},
                                  {"workload", r.cell.workload},
                                  {"device", r.cell.device.text()},
                                  {"status", r.status},
                                  {"reason", r.reason}});
    }
  }
  summary["cells"] = {{"total", results.size()}, {"ok", ok}, {"predicted", predicted}};
  summary["cells"].update(unmeasured);
  summary["bounds"] = bounds;
  // Counted cells: what their timed epochs executed, a metric of its own (the `count` key).
  nlohmann::ordered_json counted = nlohmann::ordered_json::array();
  for (const auto& r : results) {
    if (r.status != CellStatus::kOk || !r.counts.counted()) continue;
    const Counts& c = r.counts;
    counted.push_back({{"cell", r.cell.index},
                       {"workload", r.cell.workload},
                       {"counter", c.counter},
                       {"counter_version", c.counter_version},
                       {"counted_isa", c.counted_isa},
                       {"instructions_per_epoch", c.instructions_per_epoch},
                       {"instructions_per_step", c.instructions_per_step},
                       {"instructions_spread", c.instructions_spread},
                       {"estimated_cycles_per_epoch", c.estimated_cycles_per_epoch}});
  }
  summary["counted"] = counted;
  summary["scaling"] = scaling_json(analysis.scaling);
  summary["searches"] = context.searches;
  return summary;
}

}  // namespace crossover
