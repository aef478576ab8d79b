// crossover report: the reports of a results file again, comparing any axis.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "core/files/run_files.hpp"
#include "core/files/user_files.hpp"
#include "core/stats/search.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/gate/run_drift.hpp"
#include "reports/render/run_outputs.hpp"
#include "reports/render/several_runs.hpp"
#include "reports/render/table_writer.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/machine/env.hpp"
#include "runner/sweep/output_dir.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

struct ReportArgs {
  std::vector<std::string> results;  ///< results.jsonl files or the directories holding them
  std::string out_dir;               ///< "" = the results' directory
  std::vector<std::string> compare = {"device=cpu:cuda"};  ///< AXIS=BASELINE:CONTENDER
  std::string measure = "time";  ///< time | energy | cost (checked against Measure's words)
};

// Why `results` cannot be reported in `measure`: "" when a cell measured it.
Found measure_problem(const std::vector<Result>& results, Measure measure) {
  if (measure == Measure::kTime ||
      std::any_of(results.begin(), results.end(),
                  [&](const Result& r) { return has_measure(r, measure); }))
    return std::nullopt;
  if (measure == Measure::kCost) {
    return Problem(
        "no ok cell has a price: give the prices when running (\"prices\" in the grid, or "
        "run --price cpu=0.40 --price cuda=2.50); docs/energy.md");
  }
  std::vector<std::string> why;
  for (const Result& r : results) {
    // The notes come from a results file: no control characters reach the terminal.
    std::string note = r.energy.energy_note;
    note.erase(std::remove_if(note.begin(), note.end(),
                              [](char c) { return std::iscntrl(static_cast<unsigned char>(c)); }),
               note.end());
    if (r.status == CellStatus::kOk && !note.empty() &&
        std::find(why.begin(), why.end(), note) == why.end())
      why.push_back(note);
  }
  return Problem("no ok cell measured its energy" +
                 (why.empty() ? "" : " (" + join(why, "; ") + ")") +
                 ": run where RAPL or NVML can be read (docs/energy.md)");
}

// Why the reports of the run in `run_dir` cannot go to `out_dir`: "" when they can. A file is no
// folder, and another run's folder keeps reports of its own results.
Found out_problem(const std::string& out_dir, const std::string& run_dir) {
  if (Found problem = output_folder_problem(out_dir)) return problem;
  std::error_code error;
  if (fs::exists(out_dir, error) && !fs::is_directory(out_dir, error))
    return Problem("is a file, not a folder; give a folder for the reports");
  if (holds_run(out_dir) && !fs::equivalent(out_dir, run_dir, error)) {
    return Problem(
        "holds the results of another run, whose reports would be replaced by these; give "
        "an empty folder, or the run's own (the default)");
  }
  return std::nullopt;
}

// One run as `report` reads it: its results, env.json and searches.json (each optional).
struct RunRead {
  std::string directory;
  std::string file;  ///< its results.jsonl
  std::vector<Result> results;
  Environment record;            ///< empty when the run has no readable env.json
  bool has_environment = false;  ///< whether it had one
  nlohmann::ordered_json searches = nlohmann::ordered_json::array();
  std::string label;  ///< its cells' host, or env.json's label, or its folder's name
};

RunRead read_run(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status))
    throw CommandError(kExitBadInput, path + " " +
                                          (error && error != std::errc::no_such_file_or_directory
                                               ? "cannot be read (" + error.message() + ")"
                                               : "does not exist") +
                                          ": give a run's directory or its results.jsonl");
  RunRead run;
  const std::string file = fs::is_directory(status) ? run_file(path, kResultsFile) : path;
  run.file = file;
  const fs::path parent = fs::path(file).parent_path();
  run.directory = parent.empty() ? "." : parent.string();
  // A run still running is neither read as finished nor written into: it writes its own reports
  // when it ends.
  or_exit<std::runtime_error>(
      kExitBadInput, [&] { ReadingLock running(run.directory); }, "",
      ": report it when it ends (it writes its own reports then)");
  // A folder of runs, or a grid, given where a run belongs: said as such.
  if (const Found why = why_not_a_run(path)) throw CommandError(kExitBadInput, why->text);
  run.results = or_exit(kExitBadInput, [&] { return read_results(file); });
  const auto optional_json = [&](const std::string& name, nlohmann::ordered_json& into,
                                 const std::string& section) {
    if (!fs::exists(run.directory + "/" + name, error)) return;
    const Found unreadable = problem_of([&] {
      into = nlohmann::ordered_json::parse(
          read_json_text(run.directory + "/" + name, kMaxRecordBytes, "a " + name));
      if (name == "searches.json") {
        if (const Found problem = searches_problem(into)) throw std::runtime_error(problem->text);
      } else if (!into.is_object()) {
        throw std::runtime_error("not a JSON object");
      }
    });
    if (unreadable) {
      spdlog::warn("{}/{}: unreadable ({}); the report has no {} section", run.directory, name,
                   unreadable->text, section);
      into = name == "searches.json" ? nlohmann::ordered_json::array() : nlohmann::ordered_json();
    }
  };
  nlohmann::ordered_json environment;
  optional_json(kEnvFile, environment, "environment");
  run.record = environment_from_json(environment, run_file(run.directory, kEnvFile));
  run.has_environment = environment.is_object();
  optional_json("searches.json", run.searches, "searches");
  for (const Result& r : run.results)
    if (run.label.empty()) run.label = r.cell.host;
  if (run.label.empty()) run.label = run.record.label;
  if (run.label.empty())
    run.label = fs::absolute(run.directory).lexically_normal().filename().string();
  return run;
}

// The machine a run's env.json names, or "".
std::string hostname_of(const RunRead& run) { return run.record.host.hostname; }

// Several runs as one (reports/render/several_runs.hpp), their results into `results`. Refuses
// (false, logged) two runs with one label from different machines.
bool combine(std::vector<RunRead>& runs, ReportContext& context, std::vector<Result>& results) {
  std::map<std::string, const RunRead*> labels;
  std::vector<LabelledRun> labelled;
  for (RunRead& run : runs) {
    const auto [it, fresh] = labels.emplace(run.label, &run);
    if (!fresh && hostname_of(*it->second) != hostname_of(run)) {
      spdlog::error(
          "{} and {} are both labelled \"{}\" but ran on different machines ({}, {}); "
          "run them with --label apart. Nothing was written",
          it->second->directory, run.directory, run.label, hostname_of(*it->second),
          hostname_of(run));
      return false;
    }
    labelled.push_back({run.label, std::move(run.results), run.searches,
                        drifted_cell_indices(run.record), environment_summary(run.record),
                        environment_warnings(run.record)});
  }
  results = combine_runs(std::move(labelled), context);
  return true;
}

int report_command(const ReportArgs& args) {
  const auto specs = compare_specs(args.compare);
  std::vector<RunRead> runs;
  for (const std::string& path : args.results) {
    RunRead run = read_run(path);
    // One run given twice (by two names, or its folder and its results.jsonl) would count every
    // cell twice.
    for (const RunRead& before : runs) {
      std::error_code error;
      if (fs::equivalent(before.file, run.file, error)) {
        spdlog::error("{} and {} are one run, given twice; nothing was written", before.file,
                      run.file);
        return kExitBadInput;
      }
    }
    runs.push_back(std::move(run));
  }
  if (runs.size() > 1 && args.out_dir.empty()) {
    spdlog::error(
        "{} runs: give --out, a folder for their joint reports (each run's own stay "
        "as they are)",
        runs.size());
    return kExitBadInput;
  }
  const std::string out_dir = args.out_dir.empty() ? runs.front().directory : args.out_dir;
  for (const RunRead& run : runs) {
    if (const Found problem = out_problem(out_dir, run.directory)) {
      spdlog::error("--out {}: {}; nothing was written", out_dir, problem->text);
      return kExitBadInput;
    }
  }
  ReportContext context;
  std::vector<Result> results;
  if (runs.size() == 1) {
    RunRead& run = runs.front();
    context.title = fs::absolute(run.directory).lexically_normal().filename().string();
    // No environment is invented for a run without a readable env.json: "CUDA not compiled" and
    // "GPUs: none" would be false of an H100's run.
    if (run.has_environment) {
      context.environment = environment_summary(run.record);
      context.warnings = environment_warnings(run.record);
    } else {
      context.environment = {"Environment: not recorded (no readable env.json beside the results)"};
    }
    context.drifted_cells = drifted_cell_indices(run.record);
    context.band_validation = band_validation(run.record);
    context.searches = run.searches;
    results = std::move(run.results);
  } else {
    if (!combine(runs, context, results)) return kExitBadInput;
    context.machines_apart = true;
    for (const RunRead& run : runs)
      context.title += (context.title.empty() ? "" : " + ") + run.label;
  }
  // The warnings the reports open with, said here too.
  for (const std::string& w : context.warnings) spdlog::warn("{}", w);
  const Measure measure = parse_word<Measure>(args.measure).value_or(Measure::kTime);
  if (const Found problem = measure_problem(results, measure)) {
    spdlog::error("--measure {}: {}; nothing was written", args.measure, problem->text);
    return kExitBadInput;
  }
  context.measure = measure;
  or_exit(kExitRunFailed, [&] {
    fs::create_directories(out_dir);
    write_reports(out_dir, context, results, specs, runs.front().record);
  });
  std::cout << wrap_prose(
      "Reports: " + written_files_text(out_dir, run_file_names(RunFileWriter::kReports)) + "\n",
      output_columns());
  return kExitOk;
}

}  // namespace

Command add_report_command(CLI::App& subcommand) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* report = &subcommand;
  std::string files = "Files it writes (docs/outputs.md):\n";
  for (const RunFile& file : run_folder_files())
    if (file.writer() == RunFileWriter::kReports)
      files += "  " + file.name + ": " + file.holds + "\n";
  report->footer(files);
  report
      ->add_option("results", args->results,
                   "results.jsonl, or the directory holding it; several runs (of one grid on "
                   "several machines, each labelled by run --label) make one report with --out, "
                   "their cells paired across machines by --compare host=A:B")
      ->required();
  add_output_option(*report, "--out", args->out_dir,
                    "Output directory (default: the results' directory)", OutputKind::kFolder);
  report
      ->add_option("--compare", args->compare,
                   "AXIS=BASELINE:CONTENDER, e.g. device=cpu:cuda (default), threads=1:0, "
                   "loader=dataloader:tensor; give it again for more comparisons")
      ->allow_extra_args(false)
      ->take_all();
  report
      ->add_option("--measure", args->measure,
                   "What the device tables, crossovers, recommendations and charts compare: time "
                   "(default), energy (joules per epoch) or cost (money per epoch, from the run's "
                   "prices); the crossovers in the other measured ones are stated beside them")
      ->check(CLI::IsMember(word_list<Measure>()));

  return {report, [args] { return report_command(*args); }};
}

}  // namespace crossover
