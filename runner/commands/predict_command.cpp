// crossover predict --check: the cost model scored against measured runs (their cells predicted
// by runner/commands/predict_check), per cell, per device, the band's coverage, the winner of
// every pair and the crossovers the predictions would have found against the measured ones. With
// --fit-band, the profile is written again with the band these cells give (split conformal,
// core/costmodel/prediction_band.hpp).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "core/costmodel/cost_model.hpp"
#include "core/files/file_writer.hpp"
#include "core/files/run_files.hpp"
#include "core/records/prediction.hpp"
#include "core/stats/stats.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/render/table_writer.hpp"
#include "reports/scores/prediction_scores.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/named_profiles.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/commands/predict_check.hpp"
#include "runner/sweep/output_dir.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

struct PredictArgs {
  std::vector<std::string> runs;  ///< --check RUN...
  std::string profile;            ///< --profile FILE
  std::string data_dir = "data";
  std::string json;  ///< --json FILE
  std::vector<std::string> compare = {"device=cpu:cuda"};
  bool save_anatomy = false;  ///< --save-anatomy
  std::string fit_band;       ///< --fit-band FILE
  std::string band_from;      ///< --band-from PROFILE
};

// Where --json and --fit-band may not write: the profile read, a lock, a run's or a history's
// file, a file this check reads.
bool output_refused(const PredictArgs& args) {
  std::string profile = args.profile;  // not found: said when it is read
  (void)problem_of([&] { profile = find_profile(args.profile); });
  for (const auto& [option, path] :
       {std::pair{"--json", args.json}, {"--fit-band", args.fit_band}}) {
    if (path.empty()) continue;
    std::error_code error;
    if (fs::exists(path, error) && fs::equivalent(path, profile, error)) {
      spdlog::error("{} {}: that is the profile read (--profile); write the new one beside it",
                    option, path);
      return true;
    }
    std::vector<std::string> inputs = args.runs;
    for (const std::string& run : args.runs)
      for (const char* file : {kResultsFile, kEnvFile, "anatomy.jsonl"})
        inputs.push_back(run_file(run, file));
    if (const Found problem = output_file_problem(path, inputs)) {
      spdlog::error("{} {}", option, problem->text);
      return true;
    }
  }
  // --save-anatomy writes beside each run: never through a link, to the folder or the file.
  for (const std::string& run : args.runs) {
    if (!args.save_anatomy) break;
    std::error_code error;
    std::string folder = fs::is_directory(run, error) ? run : fs::path(run).parent_path().string();
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();  // "LINK/" is the link
    if (fs::is_symlink(folder, error) || fs::is_symlink(folder + "/" + kAnatomyFile, error)) {
      spdlog::error(
          "--save-anatomy: {} is reached through a symbolic link; crossover never writes "
          "through a link: give the run's folder itself",
          run);
      return true;
    }
  }
  return false;
}

// Writes what this check took and fitted: anatomy.jsonl beside each run, the fitted profile.
int write_outputs(const PredictArgs& args, const std::vector<Checked>& checked,
                  const MachineProfile& target, const Scores& scores) {
  or_exit(kExitRunFailed, [&] {
    for (const Checked& c : checked)
      if (args.save_anatomy) save_anatomy(c);
    if (!args.fit_band.empty()) {
      std::vector<std::string> runs;
      for (const Checked& c : checked) runs.push_back(run_name(c.run));
      const MachineProfile fitted = fitted_profile(target, band_cells(checked), runs, scores);
      write_text_file(args.fit_band, json_text(profile_to_json(fitted), 2) + "\n");
      std::cout << "The profile with the band of these cells: " << args.fit_band << "\n";
    }
  });
  return kExitOk;
}

std::vector<Checked> check_runs(const PredictArgs& args, const MachineProfile& target) {
  std::vector<Checked> checked;
  for (const std::string& path : args.runs) {
    const RunRecord run = load_run(path);
    warn_other_cpu(path, run, target);
    checked.push_back(check_run(path, run, target, args.data_dir));
  }
  return checked;
}

std::string summary_text(const Scores& scores, const Winners& as_run, const Winners& both,
                         const Crossings& crossings, Json& report) {
  std::string out = "\nMedian absolute error:";
  report["scores"] = Json::object();
  for (const auto& [key, s] : scores) {
    report["scores"][key.text()] = score_json(s);
    if (key.bound == Bound::kNone) out += " " + score_text(key.kind, s);
  }
  out += "\nWinners of " + std::to_string(as_run.pairs.size()) + " pairs as run --predict " +
         "decides them (the CPU side measured, the CUDA side predicted with its band): " +
         as_run.text() + "; with both sides predicted: " + both.text() +
         " (undecided: the interval holds a tie)\n";
  const std::string of = " of " + std::to_string(crossings.measured);
  out +=
      "Measured crossings as run --predict places them: " + std::to_string(crossings.within_two) +
      of + " within a factor of 2, " + std::to_string(crossings.inside) + of +
      " inside the printed range; with both sides predicted: " +
      std::to_string(crossings.both_within_two) + of + " within a factor of 2\n";
  report["winners"] = as_run.json();
  report["winners_both_predicted"] = both.json();
  report["crossings"] = crossings.json();
  return out;
}

int predict_command(const PredictArgs& args) {
  // Before anything is said: crossover, without LibTorch, hands a check that must take a cell's
  // anatomy on this CPU to crossover-torch (runner/main/main.cpp).
  if (!take_twin_anatomy && anatomy_to_take(args.runs)) hand_to_libtorch();
  const auto specs = compare_specs(args.compare);
  if (output_refused(args)) return kExitBadInput;
  MachineProfile target, source;
  std::vector<Checked> checked;
  or_exit(kExitBadInput, [&] {
    target = load_named_profile(args.profile);
    source = args.band_from.empty() ? target : load_named_profile(args.band_from);
    checked = check_runs(args, target);
    assign_bands(checked, source, !args.fit_band.empty());
  });
  TextTable table;
  table.header = {"run", "#", "cell", "measured epoch", "predicted", "error", "bound"};
  table.right_aligned = {false, true, false, true, true, true, false};
  Scores scores;
  Winners as_run, both;
  Crossings crossings;
  Json report = {{"runs", args.runs},
                 {"profile", target.name},
                 {"band_from", source.name},
                 {"bands", Json::object()},
                 {"cells", Json::array()}};
  std::string bands;
  for (const Checked& c : checked) {
    for (const Json& cell : score_cells(c, table, scores)) report["cells"].push_back(cell);
    score_winners(c, specs.front(), as_run, both);
    score_crossings(c, specs, crossings);
    report["bands"][c.run] = c.band;
    bands += "  " + c.run + ": " + c.band + "\n";
  }
  if (table.rows.empty()) {
    spdlog::error("{}: no ok cell could be predicted with {}", join(args.runs), target.name);
    return kExitBadInput;
  }
  std::string out = "Predicted with " + target.name + " against " + join(args.runs) + ":\n" +
                    render_text_table(table) + "\nBands:\n" + bands +
                    summary_text(scores, as_run, both, crossings, report);
  out += crossings.text.empty() ? std::string()
                                : "\nCrossovers, measured and predicted:\n" + crossings.text;
  std::cout << wrap_prose(out, output_columns());
  if (!args.json.empty())
    or_exit(kExitRunFailed, [&] { write_text_file(args.json, json_text(report, 2) + "\n"); });
  return write_outputs(args, checked, target, scores);
}

}  // namespace

Command add_predict_command(CLI::App& subcommand) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* predict = &subcommand;
  predict->add_option("--check", args->runs, "The measured runs (their folders or results.jsonl)")
      ->required()
      ->take_all();
  predict
      ->add_option("--profile", args->profile,
                   "The profile to predict with: a shipped one by name (h100, h200; crossover "
                   "list), a file, or a GPU of the catalog (h100-sxm, l4, ...: its profile from "
                   "its datasheet)")
      ->required();
  add_data_dir_option(*predict, args->data_dir, "To take a cell's anatomy again: ");
  add_output_option(*predict, "--json", args->json, "Also write the check as JSON to this file",
                    OutputKind::kFile);
  predict->add_flag("--save-anatomy", args->save_anatomy,
                    "Keep the anatomy taken here beside each run (anatomy.jsonl), which later "
                    "checks read instead of taking it again");
  add_output_option(*predict, "--fit-band", args->fit_band,
                    "Write the profile again to this file with the band these cells give: for "
                    "each device kind (and each bound class with 8 cells or more), the factor "
                    "that held 80 % of them (split conformal over every run's cells), its "
                    "coverage measured leave one run out (every run scored against a band "
                    "fitted without it)",
                    OutputKind::kFile);
  predict->add_option("--band-from", args->band_from,
                      "Score with another profile's band (a name or a file): one card's band on "
                      "another card's runs");
  predict
      ->add_option("--compare", args->compare,
                   "AXIS=BASELINE:CONTENDER for the winners and crossovers (default "
                   "device=cpu:cuda)")
      ->allow_extra_args(false)
      ->take_all();
  return {predict, [args] { return predict_command(*args); }};
}

}  // namespace crossover
