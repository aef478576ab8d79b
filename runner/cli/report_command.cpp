// crossover report: the reports of a results file again, comparing any axis.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "core/user_files.hpp"
#include "reports/table.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/env.hpp"
#include "runner/output_dir.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

struct ReportArgs {
  std::string results;  ///< a results.jsonl file or the directory holding it
  std::string out_dir;  ///< "" = the results' directory
  std::vector<std::string> compare = {"device=cpu:cuda"};  ///< AXIS=BASELINE:CONTENDER
};

// Why the reports of the run in `run_dir` cannot go to `out_dir`: "" when they can. A file is no
// folder, and another run's folder keeps reports of its own results.
std::string out_problem(const std::string& out_dir, const std::string& run_dir) {
  std::error_code error;
  if (fs::exists(out_dir, error) && !fs::is_directory(out_dir, error))
    return "is a file, not a folder; give a folder for the reports";
  if (holds_run(out_dir) && !fs::equivalent(out_dir, run_dir, error)) {
    return "holds the results of another run, whose reports would be replaced by these; give "
           "an empty folder, or the run's own (the default)";
  }
  return "";
}

int report_command(const ReportArgs& args) {
  const auto specs = compare_specs(args.compare);
  if (!specs) return kExitBadInput;
  if (!fs::exists(args.results)) {
    spdlog::error("{} does not exist: give a run's directory or its results.jsonl", args.results);
    return kExitBadInput;
  }
  const std::string file =
      fs::is_directory(args.results) ? args.results + "/results.jsonl" : args.results;
  const fs::path parent = fs::path(file).parent_path();
  const std::string directory = parent.empty() ? "." : parent.string();
  std::vector<Result> results;
  try {
    results = read_results(file);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  const std::string out_dir = args.out_dir.empty() ? directory : args.out_dir;
  if (const std::string problem = out_problem(out_dir, directory); !problem.empty()) {
    spdlog::error("--out {}: {}; nothing was written", out_dir, problem);
    return kExitBadInput;
  }
  ReportContext context;
  context.title = fs::absolute(directory).lexically_normal().filename().string();
  nlohmann::ordered_json record;
  if (fs::exists(directory + "/env.json")) {
    try {
      record = nlohmann::ordered_json::parse(
          read_json_text(directory + "/env.json", kMaxRecordBytes, "an env.json"));
      context.environment = environment_summary(record);
      context.warnings = environment_warnings(record);
    } catch (const std::exception& e) {
      spdlog::warn("{}/env.json: unreadable ({}); the report has no environment section", directory,
                   e.what());
    }
  }
  if (fs::exists(directory + "/searches.json")) {
    try {
      context.searches = nlohmann::ordered_json::parse(
          read_json_text(directory + "/searches.json", kMaxRecordBytes, "a searches.json"));
      if (const std::string problem = searches_problem(context.searches); !problem.empty())
        throw std::runtime_error(problem);
    } catch (const std::exception& e) {
      spdlog::warn("{}/searches.json: unreadable ({}); the report has no searches section",
                   directory, e.what());
      context.searches = nlohmann::ordered_json::array();
    }
  }
  try {
    fs::create_directories(out_dir);
    write_reports(out_dir, context, results, *specs, record);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitRunFailed;
  }
  std::cout << "Reports: " << out_dir
            << "/report.md, report.html, results.csv, summary.json, gbench.json\n";
  return kExitOk;
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* report = app.add_subcommand("report",
                                        "Regenerate report.md, report.html, results.csv, "
                                        "summary.json and gbench.json from a results file, "
                                        "comparing any axis");
  report->add_option("results", args->results, "results.jsonl, or the directory holding it")
      ->required();
  report->add_option("--out", args->out_dir, "Output directory (default: the results' directory)");
  report
      ->add_option("--compare", args->compare,
                   "AXIS=BASELINE:CONTENDER, e.g. device=cpu:cuda (default), threads=1:0, "
                   "loader=dataloader:tensor; give it again for more comparisons")
      ->allow_extra_args(false)
      ->take_all();

  return {report, [args] { return report_command(*args); }};
}

}  // namespace crossover
