#include "reports/render/report_html.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/costmodel/cost_model.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/cell_names.hpp"
#include "reports/analysis/comparison.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/analysis/scaling.hpp"
#include "reports/analysis/workload_verdict.hpp"
#include "reports/charts/svg_charts.hpp"

namespace crossover {
namespace {

std::string table_html(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows) {
  std::string s = "<table class='sortable'><thead><tr>";
  for (const auto& h : header) s += "<th>" + html_escape(h) + "</th>";
  s += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    s += "<tr>";
    for (const auto& cell : row) s += "<td>" + html_escape(cell) + "</td>";
    s += "</tr>";
  }
  return s + "</tbody></table>";
}

constexpr const char* kStyle =
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#222}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:28px}table{border-collapse:collapse;margin:8px "
    "0;font-size:12px}"
    "th,td{border:1px solid #ddd;padding:3px "
    "6px;text-align:right}th{background:#f4f4f4;cursor:pointer}"
    ".warning{background:#fff3cd;border:1px solid #e0c060;padding:8px}.chart{font:11px "
    "sans-serif;display:block}"
    "li{margin:4px 0}li.predicted{border-left:4px dashed #9467bd;padding-left:6px}"
    "p.predicted{color:#555;font-style:italic;margin-top:-6px}";

// Clicking a header sorts its table by that column, numbers as numbers.
constexpr const char* kScript =
    "document.querySelectorAll('table.sortable "
    "th').forEach(function(th,i){th.addEventListener('click',function(){"
    "var "
    "tb=th.closest('table').tBodies[0],rows=Array.from(tb.rows),up=th.dataset.up!=='1';th.dataset."
    "up=up?'1':'0';"
    "rows.sort(function(a,b){var "
    "x=a.cells[i].innerText,y=b.cells[i].innerText,p=parseFloat(x.replace(/,/g,'')),"
    "q=parseFloat(y.replace(/,/g,''));"
    "var r=(!isNaN(p)&&!isNaN(q))?p-q:x.localeCompare(y);return "
    "up?r:-r;});rows.forEach(function(r){tb.appendChild(r);});});});";

}  // namespace

std::string render_html(const ReportContext& context, const std::vector<Result>& results,
                        const CompareSpec& spec, const std::vector<Pair>& pairs,
                        const std::vector<Crossover>& crossovers,
                        const std::vector<Recommendation>& recommendations) {
  Analysis analysis = analyse(results, {});
  analysis.comparisons = {{spec, pairs, crossovers, recommendations, {}}};
  return render_html(context, results, analysis);
}

namespace {

// One comparison: its crossover statements, its charts, its recommendations.
std::string comparison_html(const ComparisonFindings& f, bool several) {
  const CompareSpec& spec = f.spec;
  const auto& pairs = f.pairs;
  const auto& crossovers = f.crossovers;
  std::string s =
      "<h2>Crossovers" + (spec.measure == Measure::kTime ? "" : " " + measure_words(spec.measure)) +
      ": " +
      html_escape(spec.axis + "=" + spec.baseline + " vs " + spec.axis + "=" + spec.contender) +
      "</h2><ul>";
  if (pairs.empty()) {
    s += "<li>No pair of cells that ran differs only in " + html_escape(spec.axis) + ".</li>";
  }
  for (const Crossover& c : crossovers) {
    s += "<li" + std::string(c.predicted ? " class='predicted'" : "") + "><b>" +
         html_escape(c.workload) + "</b>: " + html_escape(c.statement) +
         (c.why.empty() ? "" : "<br><i>Why:</i> " + html_escape(c.why)) + "</li>";
  }
  for (const std::string& line : measure_statements(f)) s += "<li>" + html_escape(line) + "</li>";
  for (const std::string& line : pair_verdicts(f)) s += "<li>" + html_escape(line) + "</li>";
  s += "</ul>";
  const std::string versus = spec.axis + "=" + spec.baseline + " vs " + spec.contender;
  for (const Crossover& c : crossovers) {
    const std::string chart = time_chart(c, pairs, spec);
    if (chart.empty()) continue;
    s += "<h3>" +
         html_escape(
             chart_subject(c) + ": " +
             (spec.measure == Measure::kTime ? "time per epoch" : measure_noun(spec.measure)) +
             " against " + c.axis + " (" + versus + ")") +
         "</h3>" + chart;
  }
  for (const Crossover& c : crossovers) {
    const std::string chart = speedup_chart(c, pairs, spec);
    if (chart.empty()) continue;
    s += "<h3>" +
         html_escape(
             chart_subject(c) + ": " +
             (spec.measure == Measure::kTime ? "speedup" : text_of(spec.measure) + " ratio") +
             " of " + spec.axis + "=" + spec.contender + " over " + spec.baseline + " against " +
             c.axis + (c.predicted ? " (predicted)" : "")) +
         "</h3>" + chart;
  }
  for (const SurfaceChart& chart : surface_charts(pairs, crossovers, spec))
    s += "<h3>" + html_escape(chart.title) + "</h3>" + chart.svg;
  if (!f.recommendations.empty()) {
    s += "<h2>Recommendations" + (several ? " (" + html_escape(versus) + ")" : std::string()) +
         "</h2><ul>";
    for (const auto& r : f.recommendations)
      s += "<li><b>" + html_escape(r.workload) + "</b>: " + html_escape(r.statement) + "</li>";
    s += "</ul>";
  }
  return s;
}

// The charts over every cell: epoch time per workload, phases, scaling.
std::string cell_charts_html(const std::vector<Result>& results, const Analysis& analysis) {
  const std::vector<Result>& compared = compared_results(analysis, results);
  std::string s;
  std::vector<std::string> workloads;
  for (const Result& r : results) {
    if (std::find(workloads.begin(), workloads.end(), r.cell.workload) == workloads.end())
      workloads.push_back(r.cell.workload);
  }
  for (const auto& workload : workloads) {
    // One configuration is a dot per device, the numbers of the cell table: no chart.
    const std::string chart = epoch_chart(compared, workload, analysis.measure);
    if (chart.empty()) continue;
    s += "<h2>" + html_escape(workload) + ": median " + measure_noun(analysis.measure) +
         " per configuration and device</h2>" + chart;
  }
  for (const auto& workload : workloads) {
    const std::string bounds = bound_chart(results, workload);
    if (bounds.empty()) continue;
    s += "<h2>" + html_escape(workload) +
         ": where each step's time goes</h2><p>The cost model's account of each step: the share "
         "of its dispatch, compute, memory, transfer and loader terms (from the step's anatomy "
         "and the machine's profile) in the modelled step, one bar per cell; hover a bar for the "
         "modelled and the measured step. A predicted cell is hatched: it was not measured.</p>" +
         bounds;
  }
  const std::string phases = phase_chart(results);
  if (!phases.empty()) {
    s += "<h2>Phases per step</h2><p>Phase mode synchronises the device at every phase boundary, "
         "so these steps "
         "are slower than end-to-end ones.</p>" +
         phases;
  }
  // A section only where it has something to show: no empty "Scaling with replicas".
  if (const std::string scaling = scaling_chart(analysis.scaling); !scaling.empty())
    s += "<h2>Scaling with replicas</h2>" + scaling;
  return s;
}

// The sortable tables: every cell, then every pair.
// Every cell: times in one unit (the one its medians read shortest in, said in the header),
// throughputs in whole numbers, each reason said once under the table and marked [k] in its rows.
std::string cells_table_html(const std::vector<Result>& results) {
  std::vector<double> medians;
  for (const Result& r : results)
    if (r.status == CellStatus::kOk || r.status == CellStatus::kPredicted)
      medians.push_back(r.epoch_seconds);
  const TimeUnit unit = time_unit_for(medians);
  const auto in_unit = [&](double seconds) {
    return format_significant(seconds * unit.per_second);
  };
  std::vector<std::string> reasons;
  std::vector<std::vector<std::string>> rows;
  for (const Result& r : results) {
    const bool ok = r.status == CellStatus::kOk;
    const bool predicted = r.status == CellStatus::kPredicted;
    const double band = band_factor(r.prediction.prediction_error);
    const bool banded = predicted && band > 1.0;
    std::string reason;
    if (!r.reason.empty()) {
      auto at = std::find(reasons.begin(), reasons.end(), r.reason);
      if (at == reasons.end()) at = reasons.insert(reasons.end(), r.reason);
      reason = "[" + std::to_string(at - reasons.begin() + 1) + "]";
    }
    rows.push_back({std::to_string(r.cell.index), r.cell.workload, device_column(r.cell),
                    size_text(r.cell.batch_size),
                    ok ? std::to_string(r.train_rows) : size_text(r.cell.dataset_size),
                    data_path_text(r.cell), std::to_string(r.cell.threads), text_of(r.status),
                    ok || predicted ? in_unit(r.epoch_seconds) + (ok ? "" : " (predicted)") : "",
                    ok ? in_unit(r.epoch_seconds_ci_low) + "-" + in_unit(r.epoch_seconds_ci_high)
                    : banded ? in_unit(r.epoch_seconds / band) + "-" +
                                   in_unit(r.epoch_seconds * band) + " (80 % band)"
                    : predicted ? "no validated band"
                                : "",
                    ok ? format_significant(r.samples_per_second) : "",
                    ok ? format_significant(r.achieved_gflops) : "",
                    ok ? r.metric + " " + format_number(r.metric_value) : "",
                    r.prediction.bound == Bound::kNone ? "" : text_of(r.prediction.bound), reason});
  }
  std::string s =
      "<h2>Every cell</h2><p>Click a column to sort.</p>" +
      table_html({"#", "workload", "device", "batch", "rows", "data path", "threads", "status",
                  std::string("epoch ") + unit.name, std::string("95 % CI or band, ") + unit.name,
                  "samples/s", "GFLOP/s", "metric", "bound", "reason"},
                 rows);
  if (reasons.empty()) return s;
  s += "<ol class='reasons'>";
  for (const std::string& reason : reasons) s += "<li>" + html_escape(reason) + "</li>";
  return s + "</ol>";
}

std::string tables_html(const std::vector<Result>& results,
                        const std::vector<ComparisonFindings>& comparisons) {
  std::string s = cells_table_html(results);
  std::vector<std::vector<std::string>> pair_rows;
  for (const ComparisonFindings& f : comparisons) {
    const CompareSpec& spec = f.spec;
    for (const Pair& p : f.pairs) {
      pair_rows.push_back({p.baseline->cell.workload,
                           "#" + std::to_string(p.baseline->cell.index) + " / #" +
                               std::to_string(p.contender->cell.index),
                           format_number(p.speedup), format_number(p.ci.low),
                           format_number(p.ci.high), winner_text(p, spec)});
    }
  }
  if (!pair_rows.empty()) {
    s += "<h2>Pairs</h2>" + table_html({"workload", "cells",
                                        comparisons.front().spec.measure == Measure::kTime
                                            ? "speedup"
                                            : text_of(comparisons.front().spec.measure) + " ratio",
                                        "CI low", "CI high", "winner"},
                                       pair_rows);
  }
  return s;
}

}  // namespace

std::string render_html(const ReportContext& context, const std::vector<Result>& results,
                        const Analysis& analysis) {
  const std::vector<ComparisonFindings>& comparisons = analysis.comparisons;
  std::string s = "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>crossover: " +
                  html_escape(context.title) + "</title><style>" + kStyle + "</style></head><body>";
  s += "<h1>crossover: " + html_escape(context.title) + "</h1>";
  if (!context.description.empty()) s += "<p>" + html_escape(context.description) + "</p>";
  for (const auto& w : context.warnings)
    s += "<p class='warning'><b>Warning:</b> " + html_escape(w) + "</p>";
  const auto predicted = std::count_if(results.begin(), results.end(), [](const Result& r) {
    return r.status == CellStatus::kPredicted;
  });
  if (predicted > 0) {
    s += "<p class='warning'><b>Predicted:</b> " +
         html_escape(predicted_cells_note(static_cast<std::size_t>(predicted))) + "</p>";
  }
  if (const std::vector<WorkloadVerdict> found = verdicts(analysis, context.drifted_cells);
      !found.empty()) {
    s += "<h2>" + html_escape(verdict_heading(analysis)) + "</h2>";
    if (const std::string caveat = verdict_caveat(results, context.band_validation);
        !caveat.empty())
      s += "<p class='predicted'>" + html_escape(caveat) + ".</p>";
    s += "<ul class='verdict'>";
    for (const WorkloadVerdict& v : found) {
      s += std::string("<li") + (v.predicted ? " class='predicted'" : "") + "><b>" +
           html_escape(v.workload) +
           "</b>: " + html_escape(v.lines.front().substr(v.workload.size() + 2));
      for (std::size_t i = 1; i < v.lines.size(); ++i) s += "<br>" + html_escape(v.lines[i]);
      s += "</li>";
    }
    s += "</ul>";
  }
  for (const auto& search : context.searches) {
    s += "<h2>Search: " +
         html_escape(search.value("workload", "") + ", " + search.value("compare", "") + " along " +
                     search.value("key", "")) +
         "</h2><p><b>" + html_escape(search.value("statement", "")) + "</b></p>" +
         search_chart(search);
  }
  for (const ComparisonFindings& f : comparisons) s += comparison_html(f, comparisons.size() > 1);
  s += "<h2>Environment</h2><ul>";
  for (const auto& line : context.environment) s += "<li>" + html_escape(line) + "</li>";
  s += "</ul>";
  if (const std::string energy = energy_summary(results); !energy.empty()) {
    s += "<p>" + html_escape(energy) +
         ". Energy covers the timed epochs only; a CPU package or a GPU counts every process on "
         "it.</p>";
  }
  s += cell_charts_html(results, analysis);
  s += tables_html(results, comparisons);
  return s + "<script>" + kScript + "</script></body></html>\n";
}

}  // namespace crossover
