#include "reports/render/run_outputs.hpp"

#include <unistd.h>

#include <utility>

#include "core/files/file_writer.hpp"
#include "core/records/result_files.hpp"
#include "reports/render/report_gbench.hpp"
#include "reports/render/report_html.hpp"
#include "reports/render/report_markdown.hpp"
#include "reports/render/report_summary.hpp"

namespace crossover {
namespace {

using Results = std::vector<Result>;
using Record = std::optional<Environment>;

std::vector<RunFile>& declared_files() {
  static std::vector<RunFile> files = {
      {"report.md", "the report for a pull request", true,
       [](const ReportContext& c, const Results& r, const Analysis& a, const Record&) {
         return render_markdown(c, r, a);
       }},
      {"report.html", "the report with its charts, one self-contained page", true,
       [](const ReportContext& c, const Results& r, const Analysis& a, const Record&) {
         return render_html(c, r, a);
       }},
      {"summary.json", "the crossover statements and pairs, machine-readable", true,
       [](const ReportContext& c, const Results& r, const Analysis& a, const Record&) {
         return json_text(render_summary_json(c, r, a), 2) + "\n";
       }},
      {kResultsFile, "one line per cell, as each cell ends", true, nullptr},
      {"results.csv", "the same columns as a table", true,
       [](const ReportContext&, const Results& r, const Analysis&, const Record&) {
         return render_csv(r);
       }},
      {"gbench.json", "the cells in Google Benchmark's format", true,
       [](const ReportContext&, const Results& r, const Analysis&, const Record& environment) {
         return json_text(render_gbench_json(r, environment), 2) + "\n";
       }},
      {"bmf.json", "the cells in Bencher's Metric Format", true,
       [](const ReportContext&, const Results& r, const Analysis&, const Record&) {
         return json_text(render_bmf_json(r), 2) + "\n";
       }},
      {"benchmark-action.json", "the cells for github-action-benchmark (customSmallerIsBetter)",
       true,
       [](const ReportContext&, const Results& r, const Analysis&, const Record&) {
         return json_text(render_benchmark_action_json(r), 2) + "\n";
       }},
      {kEnvFile, "the machine, the libraries and the reference timings", true, nullptr},
      {kGridFile, "the grid as run", true, nullptr},
      {"searches.json", "each search's probes (a grid with a search)", false, nullptr},
  };
  return files;
}

}  // namespace

const std::vector<RunFile>& run_folder_files() { return declared_files(); }

ScopedRunFile::ScopedRunFile(RunFile file)
    : ScopedEntry(declared_files(), std::move(file), "run file") {}

std::vector<std::string> run_file_names() {
  std::vector<std::string> names;
  for (const RunFile& f : run_folder_files()) names.push_back(f.name);
  return names;
}

std::vector<std::string> run_file_names(RunFileWriter writer) {
  std::vector<std::string> names;
  for (const RunFile& f : run_folder_files())
    if (f.writer() == writer) names.push_back(f.name);
  return names;
}

std::vector<std::string> run_files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const RunFile& file : run_folder_files()) {
    if (file.always || access((dir + "/" + file.name).c_str(), F_OK) == 0)
      names.push_back(file.name);
  }
  return names;
}

}  // namespace crossover
