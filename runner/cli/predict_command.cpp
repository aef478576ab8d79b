// crossover predict --check: the cost model scored against measured runs (their cells predicted
// by runner/cli/predict_check), per cell, per device, the band's coverage, the winner of every
// pair and the crossovers the predictions would have found against the measured ones. With
// --fit-band, the profile is written again with the band these cells give (split conformal,
// core/model/machine_profile.hpp).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "core/files/file_writer.hpp"
#include "core/files/run_files.hpp"
#include "core/model/cost_model.hpp"
#include "core/records/prediction.hpp"
#include "core/stats/stats.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/render/table.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/predict_check.hpp"
#include "runner/cli/write_reports.hpp"
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
};

// The measured result of a predicted one.
const Result& measured_of(const Checked& c, const Result& p) {
  return *std::find_if(c.measured.begin(), c.measured.end(),
                       [&](const Result& r) { return r.cell.index == p.cell.index; });
}

// Inside its band: the measured epoch within [predicted / factor, predicted * factor].
bool inside_band(const Result& p, double measured) {
  const double factor = 1.0 + p.prediction.prediction_error;
  return measured >= p.prediction.predicted_epoch_seconds / factor &&
         measured <= p.prediction.predicted_epoch_seconds * factor;
}

// What the cells of one device kind (and one bound class) add up to.
struct Score {
  std::vector<double> errors;  ///< |predicted / measured - 1|
  std::vector<double> logs;    ///< |log(predicted / measured)|
  int banded = 0, inside = 0;  ///< cells with a band, and inside it
};

Json score_json(const Score& s) {
  Json j = {{"cells", s.errors.size()}, {"median_abs_error", summarize(s.errors).median}};
  if (s.banded > 0) {
    j["band_cells"] = s.banded;
    j["band_inside"] = s.inside;
    j["band_coverage"] = static_cast<double>(s.inside) / s.banded;
  }
  return j;
}

std::string score_text(const std::string& kind, const Score& s) {
  std::string text = kind + " " + format_percent(summarize(s.errors).median, false) + " (" +
                     std::to_string(s.errors.size()) + " cells";
  if (s.banded > 0)
    text += "; " + std::to_string(s.inside) + " of " + std::to_string(s.banded) +
            " inside their band, " + format_percent(static_cast<double>(s.inside) / s.banded, false);
  return text + ")";
}

// Per cell: measured, predicted with its band, error, bound; into `scores` by kind and by
// "kind/bound".
Json cells_json(const Checked& c, TextTable& table, std::map<std::string, Score>& scores) {
  Json cells = Json::array();
  for (const Result& p : c.predicted) {
    const Result& m = measured_of(c, p);
    const double error = p.prediction.predicted_epoch_seconds / m.epoch_seconds - 1.0;
    const std::string kind = text_of(device_kind(p.cell.device));
    const bool banded = p.prediction.prediction_error > 0.0,
               inside = banded && inside_band(p, m.epoch_seconds);
    for (const std::string& key : {kind, kind + "/" + text_of(p.prediction.bound)}) {
      Score& s = scores[key];
      s.errors.push_back(std::abs(error));
      s.logs.push_back(std::abs(std::log(p.prediction.predicted_epoch_seconds / m.epoch_seconds)));
      s.banded += banded ? 1 : 0;
      s.inside += inside ? 1 : 0;
    }
    table.rows.push_back({c.run, std::to_string(p.cell.index), cell_label(p.cell),
                          format_seconds(m.epoch_seconds),
                          predicted_interval_text(p.prediction.predicted_epoch_seconds,
                                                  p.prediction.prediction_error),
                          format_percent(error), text_of(p.prediction.bound)});
    Json j = {{"run", c.run},
              {"cell", p.cell.index},
              {"label", cell_label(p.cell)},
              {"device", p.cell.device},
              {"measured_epoch_seconds", m.epoch_seconds},
              {"predicted_epoch_seconds", p.prediction.predicted_epoch_seconds},
              {"error", error},
              {"bound", p.prediction.bound}};
    if (banded) {
      j["predicted_low_seconds"] =
          p.prediction.predicted_epoch_seconds / (1.0 + p.prediction.prediction_error);
      j["predicted_high_seconds"] =
          p.prediction.predicted_epoch_seconds * (1.0 + p.prediction.prediction_error);
      j["inside_band"] = inside;
    }
    j.update(p.prediction.terms_json());
    cells.push_back(j);
  }
  return cells;
}

// The winners of a run's pairs, measured and predicted: right, wrong or undecided (the predicted
// speedup's interval holds 1). Scored twice: as `run --predict` decides on a machine with this
// CPU and no GPU (the CPU side measured, with its 95 % interval; the CUDA side predicted, with
// its band), and with both sides predicted.
struct Winners {
  int right = 0, wrong = 0, undecided = 0;
  Json pairs = Json::array();

  Json json() const {
    return {{"right", right}, {"wrong", wrong}, {"undecided", undecided}, {"pairs", pairs}};
  }
  std::string text() const {
    return std::to_string(right) + " right, " + std::to_string(wrong) + " wrong, " +
           std::to_string(undecided) + " undecided";
  }
};

const Result* predicted_of(const Checked& c, const Result& m) {
  const auto it = std::find_if(c.predicted.begin(), c.predicted.end(),
                               [&](const Result& p) { return p.cell.index == m.cell.index; });
  return it == c.predicted.end() ? nullptr : &*it;
}

// One side of a pair: its epoch and interval, measured or predicted.
Interval side_interval(const Result& m, const Result& p, bool measured, double& point) {
  if (measured) {
    point = m.epoch_seconds;
    const bool has = m.epoch_seconds_ci_low > 0.0 && m.epoch_seconds_ci_high >= m.epoch_seconds_ci_low;
    return has ? Interval{m.epoch_seconds_ci_low, m.epoch_seconds_ci_high}
               : Interval{m.epoch_seconds, m.epoch_seconds};
  }
  point = p.prediction.predicted_epoch_seconds;
  return {point / (1.0 + p.prediction.prediction_error),
          point * (1.0 + p.prediction.prediction_error)};
}

void score_pair(const Checked& c, const Pair& m, const Result& b, const Result& k,
                bool measured_cpu, Winners& w) {
  const auto cpu = [&](const Result& r) {
    return measured_cpu && device_kind(r.cell.device) == DeviceKind::kCpu;
  };
  double bp = 0.0, kp = 0.0;
  const Interval bi = side_interval(*m.baseline, b, cpu(b), bp);
  const Interval ki = side_interval(*m.contender, k, cpu(k), kp);
  const double speedup = bp / kp, low = bi.low / ki.high, high = bi.high / ki.low;
  std::string verdict = "undecided";
  if (low > 1.0 || high < 1.0) verdict = (low > 1.0) == (m.speedup > 1.0) ? "right" : "wrong";
  (verdict == "right" ? w.right : verdict == "wrong" ? w.wrong : w.undecided) += 1;
  w.pairs.push_back({{"run", c.run},
                     {"cells", {m.baseline->cell.index, m.contender->cell.index}},
                     {"label", cell_label(m.contender->cell)},
                     {"measured_speedup", m.speedup},
                     {"predicted_speedup", speedup},
                     {"predicted_low", low},
                     {"predicted_high", high},
                     {"verdict", verdict}});
}

void score_winners(const Checked& c, const CompareSpec& spec, Winners& as_run, Winners& both) {
  for (const Pair& m : pair_results(c.measured, spec)) {
    const Result* b = predicted_of(c, *m.baseline);
    const Result* k = predicted_of(c, *m.contender);
    if (b == nullptr || k == nullptr) continue;
    score_pair(c, m, *b, *k, true, as_run);
    score_pair(c, m, *b, *k, false, both);
  }
}

// The crossovers of the measured cells and of the predicted ones, matched by workload, axis and
// setting: the same side wins, and where the crossing lies. Counts the measured crossings and
// those reproduced within a factor of 2 into `within`.
Json crossovers_json(const Checked& c, const std::vector<CompareSpec>& specs, std::string& text,
                     std::pair<int, int>& within) {
  Json out = Json::array();
  const Analysis measured = analyse(c.measured, specs), predicted = analyse(c.predicted, specs);
  for (std::size_t s = 0; s < specs.size(); ++s) {
    for (const Crossover& m : measured.comparisons[s].crossovers) {
      const auto& candidates = predicted.comparisons[s].crossovers;
      const auto p = std::find_if(candidates.begin(), candidates.end(), [&](const Crossover& x) {
        return x.workload == m.workload && x.axis == m.axis && x.fixed == m.fixed;
      });
      Json j = {{"run", c.run},
                {"workload", m.workload},
                {"axis", m.axis},
                {"fixed", m.fixed},
                {"measured", m.statement}};
      const std::optional<double> mc = m.crossing ? m.crossing : m.from;
      const std::optional<double> pc =
          p == candidates.end() ? std::nullopt : (p->crossing ? p->crossing : p->from);
      const bool same_side = p != candidates.end() && m.from.has_value() == p->from.has_value();
      const bool within_two = mc && pc && *pc <= 2.0 * *mc && *pc >= *mc / 2.0;
      if (m.crossing) {
        ++within.second;
        within.first += within_two ? 1 : 0;
      }
      j["predicted"] = p == candidates.end() ? "" : p->statement;
      j["same_side"] = same_side;
      j["within_factor_2"] = mc && pc ? Json(within_two) : Json();
      text += "  " + c.run + ": " + m.workload + " along " + m.axis +
              (m.fixed.empty() ? "" : " (" + m.fixed + ")") + ":\n    measured:  " + m.statement +
              "\n    predicted: " + (p == candidates.end() ? std::string("none") : p->statement) +
              "\n    " + (same_side ? "the same side wins" : "ANOTHER SIDE WINS") +
              (mc && pc ? std::string(within_two ? ", the crossing within a factor of 2"
                                                 : ", the crossing more than a factor of 2 off")
                        : std::string()) +
              "\n";
      out.push_back(j);
    }
  }
  return out;
}

// The profile with the band of these cells, by kind and by bound class.
MachineProfile fitted_profile(MachineProfile profile, const std::map<std::string, Score>& scores,
                              const std::vector<std::string>& runs) {
  profile.validation.clear();
  for (const auto& [key, s] : scores) {
    if (key.find('/') != std::string::npos) continue;
    Validation v;
    v.median_abs_error = summarize(s.errors).median;
    v.band = fit_band(s.logs);
    v.runs = runs;
    for (const auto& [other, t] : scores) {
      if (other.rfind(key + "/", 0) != 0 || static_cast<int>(t.logs.size()) < kMinBandCells)
        continue;
      if (const PredictionBand b = fit_band(t.logs); b.factor > 0.0)
        v.by_bound[other.substr(key.size() + 1)] = b;
    }
    if (v.band.factor > 0.0) profile.validation[key] = v;
  }
  return profile;
}

// Where --json and --fit-band may not write: the profile read, a lock, a run's or a history's
// file, a file this check reads.
bool output_refused(const PredictArgs& args) {
  for (const auto& [option, path] : {std::pair{"--json", args.json}, {"--fit-band", args.fit_band}}) {
    if (path.empty()) continue;
    std::error_code error;
    if (fs::exists(path, error) && fs::equivalent(path, args.profile, error)) {
      spdlog::error("{} {}: that is the profile read (--profile); write the new one beside it",
                    option, path);
      return true;
    }
    std::vector<std::string> inputs = args.runs;
    for (const std::string& run : args.runs)
      for (const char* file : {kResultsFile, kEnvFile, "anatomy.jsonl"})
        inputs.push_back(run_file(run, file));
    if (const std::string problem = output_file_problem(path, inputs); !problem.empty()) {
      spdlog::error("{} {}", option, problem);
      return true;
    }
  }
  return false;
}

// Writes what this check took and fitted: anatomy.jsonl beside each run, the fitted profile.
int write_outputs(const PredictArgs& args, const std::vector<Checked>& checked,
                  const MachineProfile& target, const std::map<std::string, Score>& scores) {
  try {
    for (const Checked& c : checked)
      if (args.save_anatomy) save_anatomy(c);
    if (!args.fit_band.empty()) {
      std::vector<std::string> runs;
      for (const Checked& c : checked) runs.push_back(fs::path(c.run).filename().string());
      write_text_file(args.fit_band,
                      json_text(profile_to_json(fitted_profile(target, scores, runs)), 2) + "\n");
      std::cout << "The profile with the band of these cells: " << args.fit_band << "\n";
    }
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitRunFailed;
  }
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

std::string summary_text(const std::map<std::string, Score>& scores, const Winners& as_run,
                         const Winners& both, const std::pair<int, int>& within, Json& report) {
  std::string out = "\nMedian absolute error:";
  report["scores"] = Json::object();
  for (const auto& [key, s] : scores) {
    report["scores"][key] = score_json(s);
    if (key.find('/') == std::string::npos) out += " " + score_text(key, s);
  }
  out += "\nWinners of " + std::to_string(as_run.pairs.size()) + " pairs as run --predict " +
         "decides them (the CPU side measured, the CUDA side predicted with its band): " +
         as_run.text() + "; with both sides predicted: " + both.text() +
         " (undecided: the interval holds a tie)\n";
  out += "Measured crossings reproduced within a factor of 2: " + std::to_string(within.first) +
         " of " + std::to_string(within.second) + "\n";
  report["winners"] = as_run.json();
  report["winners_both_predicted"] = both.json();
  report["crossings"] = {{"measured", within.second}, {"within_factor_2", within.first}};
  return out;
}

int predict_command(const PredictArgs& args) {
  const auto specs = compare_specs(args.compare);
  if (!specs || output_refused(args)) return kExitBadInput;
  MachineProfile target;
  std::vector<Checked> checked;
  try {
    target = load_profile(args.profile);
    checked = check_runs(args, target);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  TextTable table;
  table.header = {"run", "#", "cell", "measured epoch", "predicted", "error", "bound"};
  table.right_aligned = {false, true, false, true, true, true, false};
  std::map<std::string, Score> scores;
  Winners as_run, both;
  std::pair<int, int> within{0, 0};
  std::string crossings;
  Json report = {{"runs", args.runs}, {"profile", target.name}, {"cells", Json::array()}};
  report["crossovers"] = Json::array();
  for (const Checked& c : checked) {
    for (const Json& cell : cells_json(c, table, scores)) report["cells"].push_back(cell);
    score_winners(c, specs->front(), as_run, both);
    for (const Json& x : crossovers_json(c, *specs, crossings, within))
      report["crossovers"].push_back(x);
  }
  if (table.rows.empty()) {
    spdlog::error("{}: no ok cell could be predicted with {}", join(args.runs), target.name);
    return kExitBadInput;
  }
  std::string out = "Predicted with " + target.name + " against " + join(args.runs) + ":\n" +
                    render_text_table(table) + summary_text(scores, as_run, both, within, report);
  out += crossings.empty() ? std::string() : "\nCrossovers, measured and predicted:\n" + crossings;
  std::cout << out;
  if (!args.json.empty()) {
    try {
      write_text_file(args.json, json_text(report, 2) + "\n");
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      return kExitRunFailed;
    }
  }
  return write_outputs(args, checked, target, scores);
}

}  // namespace

Command add_predict_command(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* predict = app.add_subcommand(
      "predict",
      "Score the cost model against measured runs: predict their every ok cell with a profile "
      "(from the anatomy the run recorded, its anatomy.jsonl, or taken again on this machine's "
      "CPU) and print predicted (with the profile's band) against measured per cell, the median "
      "absolute error and the band's coverage per device, the winner of every pair (right, "
      "wrong or undecided) and the crossovers the predictions find against the measured ones");
  predict
      ->add_option("--check", args->runs, "The measured runs (their folders or results.jsonl)")
      ->required()
      ->take_all();
  predict->add_option("--profile", args->profile, "The profile to predict with")->required();
  add_data_dir_option(*predict, args->data_dir, "To take a cell's anatomy again: ");
  predict->add_option("--json", args->json, "Also write the check as JSON to this file");
  predict->add_flag("--save-anatomy", args->save_anatomy,
                    "Keep the anatomy taken here beside each run (anatomy.jsonl), which later "
                    "checks read instead of taking it again");
  predict->add_option("--fit-band", args->fit_band,
                      "Write the profile again to this file with the band these cells give: for "
                      "each device kind (and each bound class with 8 cells or more), the factor "
                      "that held 80 % of them (split conformal). Check other runs with it");
  predict
      ->add_option("--compare", args->compare,
                   "AXIS=BASELINE:CONTENDER for the winners and crossovers (default "
                   "device=cpu:cuda)")
      ->allow_extra_args(false)
      ->take_all();
  return {predict, [args] { return predict_command(*args); }};
}

}  // namespace crossover
