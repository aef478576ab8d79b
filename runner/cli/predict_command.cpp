// crossover predict --check: the cost model scored against a measured run. Every ok cell is
// predicted with a profile (from its recorded anatomy, or its anatomy taken again on this
// machine's CPU when the run has none) and set beside what was measured: per cell, per device,
// and the crossovers the predictions would have found against the measured ones.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>

#include "core/cost_model.hpp"
#include "core/file_writer.hpp"
#include "core/stats.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/render/table.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/execution/anatomy.hpp"
#include "runner/machine/profile_measure.hpp"
#include "runner/sweep/output_dir.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

struct PredictArgs {
  std::string run;      ///< --check RUN
  std::string profile;  ///< --profile FILE
  std::string data_dir = "data";
  std::string json;  ///< --json FILE
  std::vector<std::string> compare = {"device=cpu:cuda"};
};

// The measured run's cells, each with its prediction. `anatomy_here` is set when the anatomy of
// some cell had to be taken on this machine.
struct Checked {
  std::vector<Result> measured;   ///< the run's ok cells
  std::vector<Result> predicted;  ///< the same cells, their epochs the model's
};

// The machine the run's anatomy was taken on: the run's own profile (env.json) when its cells
// carry anatomy, else this machine's (quick), on which it is taken again.
std::shared_ptr<const MachineProfile> anatomy_machine(const RunRecord& run, bool recorded) {
  if (recorded && run.environment && !run.environment->profile.is_null()) {
    try {
      return std::make_shared<const MachineProfile>(profile_from_json(run.environment->profile));
    } catch (const std::exception& e) {
      spdlog::warn(
          "{}'s env.json has no readable profile ({}); the loader's waits are not "
          "scaled",
          run.label, e.what());
      return nullptr;
    }
  }
  return recorded ? nullptr : std::make_shared<const MachineProfile>(measure_profile({}));
}

Checked check_run(const RunRecord& run, const MachineProfile& target, const std::string& data_dir) {
  Checked out;
  for (const Result& r : run.results)
    if (r.status == CellStatus::kOk && r.epoch_seconds > 0.0) out.measured.push_back(r);
  const bool recorded = std::all_of(out.measured.begin(), out.measured.end(),
                                    [](const Result& r) { return !r.step_op_groups.empty(); });
  const auto here = anatomy_machine(run, recorded);
  for (const Result& r : out.measured) {
    Result p = r;
    // A graph cell recorded before its anatomy came from its twin saw only the replay.
    const bool replay_only = r.cell.execution == Execution::kGraph && r.step_ops_forward == 0;
    if (r.step_op_groups.empty() || replay_only) {
      Result twin = r;
      try {
        record_twin_anatomy(r.cell, data_dir, twin);
      } catch (const std::exception& e) {
        spdlog::warn("cell {} ({}): its anatomy could not be taken here ({}); not predicted",
                     r.cell.index, cell_label(r.cell), e.what());
        continue;
      }
      for (auto field : {&Result::step_ops_data, &Result::step_ops_forward,
                         &Result::step_ops_backward, &Result::step_ops_optimizer})
        p.*field = twin.*field;
      p.step_flops = twin.step_flops;
      p.step_bytes = twin.step_bytes;
      p.step_h2d_bytes = twin.step_h2d_bytes;
      p.step_loader_seconds = twin.step_loader_seconds;
      p.step_loader_share = twin.step_loader_share;
      p.step_batch_seconds = twin.step_batch_seconds;
      p.step_op_groups = twin.step_op_groups;
    }
    apply_prediction(p, target, here.get());
    if (p.predicted_epoch_seconds <= 0.0) continue;
    // As the analysis reads it: the model's epoch, with the measured spread around it.
    const double scale = p.predicted_epoch_seconds / r.epoch_seconds;
    for (double& s : p.epoch_seconds_samples) s *= scale;
    p.epoch_seconds = p.predicted_epoch_seconds;
    p.epoch_seconds_ci_low *= scale;
    p.epoch_seconds_ci_high *= scale;
    out.predicted.push_back(p);
  }
  return out;
}

// The measured result of a predicted one.
const Result& measured_of(const Checked& c, const Result& p) {
  return *std::find_if(c.measured.begin(), c.measured.end(),
                       [&](const Result& r) { return r.cell.index == p.cell.index; });
}

// Per cell, then per device: measured, predicted, error, bound.
Json cells_json(const Checked& c, TextTable& table,
                std::map<std::string, std::vector<double>>& errors) {
  Json cells = Json::array();
  table.header = {"#", "cell", "measured epoch", "predicted", "error", "bound"};
  table.right_aligned = {true, false, true, true, true, false};
  for (const Result& p : c.predicted) {
    const Result& m = measured_of(c, p);
    const double error = p.predicted_epoch_seconds / m.epoch_seconds - 1.0;
    errors[text_of(device_kind(p.cell.device))].push_back(std::abs(error));
    table.rows.push_back(
        {std::to_string(p.cell.index), cell_label(p.cell), format_seconds(m.epoch_seconds),
         format_seconds(p.predicted_epoch_seconds), format_percent(error), text_of(p.bound)});
    cells.push_back({{"cell", p.cell.index},
                     {"label", cell_label(p.cell)},
                     {"device", p.cell.device},
                     {"measured_epoch_seconds", m.epoch_seconds},
                     {"predicted_epoch_seconds", p.predicted_epoch_seconds},
                     {"error", error},
                     {"bound", p.bound},
                     {"predicted_dispatch_seconds", p.predicted_dispatch_seconds},
                     {"predicted_compute_seconds", p.predicted_compute_seconds},
                     {"predicted_memory_seconds", p.predicted_memory_seconds},
                     {"predicted_transfer_seconds", p.predicted_transfer_seconds},
                     {"predicted_loader_seconds", p.predicted_loader_seconds}});
  }
  return cells;
}

// The crossovers of the measured cells and of the predicted ones, matched by workload, axis and
// setting: the same side wins, and where the crossing lies.
Json crossovers_json(const Checked& c, const std::vector<CompareSpec>& specs, std::string& text) {
  Json out = Json::array();
  const Analysis measured = analyse(c.measured, specs), predicted = analyse(c.predicted, specs);
  for (std::size_t s = 0; s < specs.size(); ++s) {
    for (const Crossover& m : measured.comparisons[s].crossovers) {
      const auto& candidates = predicted.comparisons[s].crossovers;
      const auto p = std::find_if(candidates.begin(), candidates.end(), [&](const Crossover& x) {
        return x.workload == m.workload && x.axis == m.axis && x.fixed == m.fixed;
      });
      Json j = {{"workload", m.workload},
                {"axis", m.axis},
                {"fixed", m.fixed},
                {"measured", m.statement}};
      const std::optional<double> mc = m.crossing ? m.crossing : m.from;
      const std::optional<double> pc =
          p == candidates.end() ? std::nullopt : (p->crossing ? p->crossing : p->from);
      const bool same_side = p != candidates.end() && m.from.has_value() == p->from.has_value();
      const bool within_two = mc && pc && *pc <= 2.0 * *mc && *pc >= *mc / 2.0;
      j["predicted"] = p == candidates.end() ? "" : p->statement;
      j["same_side"] = same_side;
      j["within_factor_2"] = mc && pc ? Json(within_two) : Json();
      text += "  " + m.workload + " along " + m.axis +
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

int predict_command(const PredictArgs& args) {
  const auto specs = compare_specs(args.compare);
  if (!specs) return kExitBadInput;
  if (!args.json.empty()) {
    if (const std::string problem = run_file_problem(args.json); !problem.empty()) {
      spdlog::error("--json {}", problem);
      return kExitBadInput;
    }
  }
  RunRecord run;
  MachineProfile target;
  try {
    run = load_run(args.run);
    target = load_profile(args.profile);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  const Checked checked = check_run(run, target, args.data_dir);
  if (checked.predicted.empty()) {
    spdlog::error("{}: no ok cell could be predicted with {}", args.run, target.name);
    return kExitBadInput;
  }
  TextTable table;
  std::map<std::string, std::vector<double>> errors;
  Json report = {{"run", args.run}, {"profile", target.name}};
  report["cells"] = cells_json(checked, table, errors);
  std::string out = "Predicted with " + target.name + " against " + args.run + ":\n" +
                    render_text_table(table) + "\nMedian absolute error:";
  report["median_abs_error"] = Json::object();
  for (const auto& [kind, e] : errors) {
    const double median = summarize(e).median;
    report["median_abs_error"][kind] = median;
    out += " " + kind + " " + format_percent(median, false) + " (" + std::to_string(e.size()) +
           " cells)";
  }
  std::string crossings;
  report["crossovers"] = crossovers_json(checked, *specs, crossings);
  out += "\n" + (crossings.empty() ? std::string()
                                   : "\nCrossovers, measured and predicted:\n" + crossings);
  std::cout << out;
  if (!args.json.empty()) {
    try {
      write_text_file(args.json, json_text(report, 2) + "\n");
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      return kExitRunFailed;
    }
  }
  return kExitOk;
}

}  // namespace

Command add_predict_command(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* predict = app.add_subcommand(
      "predict",
      "Score the cost model against a measured run: predict its every ok cell with a profile "
      "(from the anatomy the run recorded, or taken again on this machine's CPU) and print "
      "predicted against measured per cell, the median absolute error per device, and the "
      "crossovers the predictions find against the measured ones");
  predict->add_option("--check", args->run, "The measured run (its folder or results.jsonl)")
      ->required();
  predict->add_option("--profile", args->profile, "The profile to predict with")->required();
  predict
      ->add_option("--data-dir", args->data_dir,
                   std::string("To take a cell's anatomy again: ") + kDataDirHelp)
      ->envname(kDataDirVariable);
  predict->add_option("--json", args->json, "Also write the check as JSON to this file");
  predict
      ->add_option("--compare", args->compare,
                   "AXIS=BASELINE:CONTENDER for the crossovers (default device=cpu:cuda)")
      ->allow_extra_args(false)
      ->take_all();
  return {predict, [args] { return predict_command(*args); }};
}

}  // namespace crossover
