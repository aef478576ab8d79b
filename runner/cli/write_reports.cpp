#include "runner/cli/write_reports.hpp"

#include <spdlog/spdlog.h>

#include "core/file_writer.hpp"
#include "core/results_csv.hpp"
#include "core/user_files.hpp"
#include "reports/report_gbench.hpp"
#include "reports/report_html.hpp"
#include "reports/scaling.hpp"

namespace crossover {
namespace {

// The crossover statements of one comparison as terminal lines.
std::string crossover_text(const CompareSpec& spec, const std::vector<Crossover>& crossovers,
                           bool paired) {
  std::string out =
      "\nCrossovers (" + spec.axis + "=" + spec.baseline + " vs " + spec.contender + "):\n";
  for (const auto& c : crossovers) out += "  " + c.workload + ": " + c.statement + "\n";
  if (!paired) {
    out += "  no pair of cells that ran differs only in " + spec.axis + " (" + spec.baseline +
           " vs " + spec.contender + ")\n";
  }
  return out;
}

}  // namespace

std::optional<std::vector<CompareSpec>> compare_specs(const std::vector<std::string>& texts) {
  std::vector<CompareSpec> specs;
  try {
    for (const auto& text : texts) specs.push_back(parse_compare(text));
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    return std::nullopt;
  }
  if (specs.empty()) specs.push_back(CompareSpec{});
  return specs;
}

std::string write_reports(const std::string& out_dir, ReportContext context,
                          const std::vector<Result>& results, const std::vector<CompareSpec>& specs,
                          const nlohmann::json& environment) {
  std::string terminal;
  nlohmann::ordered_json summary;
  nlohmann::ordered_json comparisons = nlohmann::ordered_json::array();
  std::vector<ComparisonFindings> findings;
  for (const CompareSpec& spec : specs) {
    ComparisonFindings f{spec, pair_results(results, spec), {}, {}};
    f.crossovers = find_crossovers(f.pairs, spec);
    f.recommendations = recommend(results, spec, f.crossovers);
    context.analysis += render_analysis_markdown(spec, f.pairs, f.crossovers, f.recommendations);
    comparisons.push_back(analysis_json(spec, f.pairs, f.crossovers, f.recommendations));
    if (findings.empty()) summary = comparisons.back();
    terminal += crossover_text(spec, f.crossovers, !f.pairs.empty());
    findings.push_back(std::move(f));
  }
  write_text_file(out_dir + "/report.html", render_html(context, results, findings));
  write_text_file(out_dir + "/report.md", render_markdown(context, results));
  write_text_file(out_dir + "/results.csv", render_csv(results));
  summary["comparisons"] = comparisons;
  summary["title"] = context.title;
  summary["warnings"] = context.warnings;
  summary["environment"] = context.environment;
  nlohmann::ordered_json not_run = nlohmann::ordered_json::array();
  std::size_t ok = 0;
  for (const auto& r : results) {
    if (r.status == CellStatus::kOk) {
      ++ok;
    } else {
      not_run.push_back({{"cell", r.cell.index},
                         {"workload", r.cell.workload},
                         {"device", r.cell.device},
                         {"status", r.status},
                         {"reason", r.reason}});
    }
  }
  summary["cells"] = {{"total", results.size()}, {"ok", ok}, {"not_run", not_run}};
  summary["scaling"] = scaling_json(results);
  write_text_file(out_dir + "/summary.json", json_text(summary, 2) + "\n");
  write_text_file(out_dir + "/gbench.json",
                  json_text(render_gbench_json(results, environment), 2) + "\n");
  return terminal;
}

}  // namespace crossover
