// crossover calibrate: how far to trust compare's one-run verdicts on this runner.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>

#include "core/files/file_writer.hpp"
#include "core/files/user_files.hpp"
#include "reports/gate/gate_calibration.hpp"
#include "reports/gate/gate_metric.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/execution/busy_load.hpp"
#include "runner/execution/launch.hpp"
#include "runner/hardware/counter.hpp"
#include "runner/sweep/output_dir.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

struct CalibrateArgs {
  std::string grid;
  int pairs = 10;       ///< A/A pairs, and as many pairs with a planted slowdown
  int load = 2;         ///< busy processes of the planted slowdown
  std::string out_dir;  ///< "" = runs/calibrate-<timestamp>
  std::string data_dir = "data";
  double threshold_percent = -1.0;  ///< the gate's settings, as compare's (-1: the metric's)
  double alpha = 0.05;
  std::string metric = "epoch";
  double assumed_spread_percent = 100.0 * kAssumedRunSpread;
  double plant_work_percent = -1.0;  ///< counted: the planted work (-1: twice the threshold)
  bool overwrite = false;  ///< --overwrite: move an earlier calibration's files aside first
};

// What the planted run of a pair has planted: busy processes, or (counted) extra work.
std::vector<std::string> planted_environment(const CalibrateArgs& args, double threshold) {
  if (!is_count_metric(*parse_word<GateMetric>(args.metric)))
    return {std::string(kPlantLoadVariable) + "=" + std::to_string(args.load)};
  const double percent = args.plant_work_percent >= 0.0 ? args.plant_work_percent : 2.0 * threshold;
  return {std::string(kPlantWorkVariable) + "=" + format_number(percent / 100.0)};
}

// One run of the grid into `dir`, with `environment` set (a planted load or work); nothing where
// a signal stopped it (the signal was passed on to the run, which kept what it finished). Throws
// CommandError: the runs so far are in `out_dir`.
std::optional<RunRecord> run_once(const CalibrateArgs& args, const std::string& self,
                                  const std::string& out_dir, const std::string& dir,
                                  const std::vector<std::string>& environment) {
  const auto run = [&]() -> std::optional<RunRecord> {
    fs::create_directories(dir);
    // Each run's warnings in its log, said once for all the runs (they warn of the same things).
    static std::set<std::string> said;
    const int status =
        run_program({self, "run", args.grid, "--out", dir, "--data-dir", args.data_dir, "--quiet"},
                    dir + "/stdout.txt", environment, 0.0, dir + "/stderr.txt");
    say_new_warnings(dir + "/stderr.txt", said);
    if (status == kExitBadInput)
      throw CommandError(kExitBadInput,
                         "crossover run " + args.grid + " into " + dir +
                             " rejected its input (exit 2); run it alone to see why");
    if (status != kExitOk && status != kExitRunFailed) {
      if (interrupted.load() > 0) return std::nullopt;
      throw std::runtime_error("crossover run " + args.grid + " into " + dir +
                               " ended with status " + std::to_string(status));
    }
    return load_run(dir);
  };
  return or_exit(kExitRunFailed, run, "", "; the runs so far are in " + out_dir);
}

// The A/A pairs and the planted pairs, until --pairs or an interrupt; false where a signal came
// during a pair (what it finished of that pair is left out). Throws what run_once throws.
bool run_pairs(const CalibrateArgs& args, const std::string& self, const std::string& out_dir,
               const std::vector<std::string>& plant, RunPairs& aa, RunPairs& planted) {
  const auto run_one = [&](const std::string& dir, bool planted_run, RunRecord& into) {
    if (interrupted.load() > 0) return false;  // no run starts after a signal
    std::optional<RunRecord> record =
        run_once(args, self, out_dir, dir, planted_run ? plant : std::vector<std::string>{});
    if (record) into = std::move(*record);
    return record.has_value();
  };
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1; i <= args.pairs && interrupted.load() == 0; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "%02d", i);
    const std::string a = out_dir + "/aa-" + name, p = out_dir + "/planted-" + name;
    RunRecord first, second, quiet, loaded_run;
    if (!run_one(a + "/first", false, first) || !run_one(a + "/second", false, second))
      return false;
    // The planted run goes first in every other pair, so that a drift weighs on both orders.
    const bool ran =
        i % 2 == 1
            ? run_one(p + "/quiet", false, quiet) && run_one(p + "/loaded", true, loaded_run)
            : run_one(p + "/loaded", true, loaded_run) && run_one(p + "/quiet", false, quiet);
    if (!ran) return false;
    aa.emplace_back(std::move(first), std::move(second));
    planted.emplace_back(std::move(quiet), std::move(loaded_run));
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spdlog::info("pair {}/{} done | elapsed {} ETA {}", i, args.pairs, clock_text(elapsed),
                 clock_text(elapsed / i * (args.pairs - i)));
  }
  return true;
}

// The counted gate's calibration, written and printed; its exit code.
int write_counted_calibration(const CalibrateArgs& args, const std::string& grid,
                              const std::string& out_dir, const RunPairs& aa,
                              const RunPairs& planted, const RegressionOptions& options,
                              double plant) {
  CountedGateCalibration gate = or_exit<std::invalid_argument>(
      kExitRunFailed, [&] { return assess_counted_gate(aa, planted, options, plant); });
  gate.grid = grid;
  if (gate.cells.empty()) {
    spdlog::error("no counted cell was compared in any A/A pair (is `count` set in {}?); see {}",
                  args.grid, out_dir);
    return kExitRunFailed;
  }
  or_exit(kExitRunFailed, [&] {
    write_text_file(out_dir + "/calibrate.json", json_text(counted_gate_json(gate), 2) + "\n");
    write_text_file(out_dir + "/calibrate.md", render_counted_gate_markdown(gate));
  });
  std::cout << render_counted_gate_text(gate) << "Written: " << out_dir
            << "/calibrate.json, calibrate.md\n";
  return interrupted.load() > 0 ? kExitInterrupted : kExitOk;
}

// The entries of an earlier calibration in `out_dir`: its runs (aa-NN, planted-NN) and files.
std::vector<std::string> calibration_entries(const std::string& out_dir) {
  static const std::regex entry("(aa|planted)-[0-9]+|calibrate[.](json|md)");
  std::vector<std::string> names;
  std::error_code error;
  for (auto it = fs::directory_iterator(out_dir, error); !error && it != fs::directory_iterator();
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (std::regex_match(name, entry)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Why --out cannot take a calibration (logged): a link, or a folder that holds one or the runs of
// one stopped before it was written, unless --overwrite moves them aside (said).
bool out_dir_refused(const std::string& out_dir, bool overwrite) {
  if (out_dir.empty()) return false;
  if (const Found problem = output_folder_problem(out_dir)) {
    spdlog::error("--out {} {}", out_dir, problem->text);
    return true;
  }
  const std::vector<std::string> earlier = calibration_entries(out_dir);
  if (earlier.empty()) return false;
  const bool written = fs::exists(out_dir + "/calibrate.json");
  if (!overwrite) {
    spdlog::error(
        "{} already holds {}; give another --out, or add --overwrite to move its files "
        "into {}/previous-<time>/ first",
        out_dir,
        written ? "a calibration"
                : "the runs of a calibration that was stopped before it was written",
        out_dir);
    return true;
  }
  spdlog::info("moved the earlier calibration's files into {}",
               or_exit(
                   kExitBadInput, [&] { return move_previous(out_dir, timestamp(), earlier); },
                   "--overwrite: "));
  return false;
}

// The pairs run; kExitOk to go on with those that finished (a signal during a run leaves at
// least three), else the exit code, said.
int run_all_pairs(const CalibrateArgs& args, const std::string& self, const std::string& out_dir,
                  const std::vector<std::string>& plant, RunPairs& aa, RunPairs& planted) {
  if (run_pairs(args, self, out_dir, plant, aa, planted)) return kExitOk;
  const int sig = interrupted.load();
  if (aa.size() >= 3) {
    spdlog::warn(
        "stopped by a signal during a run; the calibration uses the {} pair(s) that finished",
        aa.size());
    return kExitOk;
  }
  spdlog::error(
      "stopped by {} after {} finished pair(s); the runs so far are in {} (no calibration was "
      "written there): run calibrate again with --overwrite, or with another --out",
      sig == SIGTERM ? "SIGTERM" : "SIGINT", aa.size(), out_dir);
  return 128 + sig;
}

int calibrate_command(const CalibrateArgs& args) {
  const auto metric = parse_word<GateMetric>(args.metric);
  const double threshold = args.threshold_percent >= 0.0 || !metric
                               ? args.threshold_percent
                               : default_threshold_percent(*metric);
  const RegressionOptions options =
      gate_options(threshold, args.alpha, args.metric, args.assumed_spread_percent);
  const auto loaded = load_and_expand(args.grid);
  if (!loaded) return kExitBadInput;
  if (out_dir_refused(args.out_dir, args.overwrite)) return kExitBadInput;
  std::string out_dir = args.out_dir;
  or_exit(
      kExitBadInput,
      [&] {
        if (out_dir.empty()) {
          out_dir = create_unique_directory("runs/calibrate-" + timestamp());
        } else {
          fs::create_directories(out_dir);
        }
      },
      "cannot write to " + out_dir + ": ");
  const std::string self = or_exit(
      kExitBadInput, [] { return self_executable(); }, "cannot write to " + out_dir + ": ");

  catch_interrupts();
  RunPairs aa, planted;
  const std::vector<std::string> plant = planted_environment(args, threshold);
  spdlog::info("calibrating the gate on {}: {} A/A pairs and {} pairs planted with {} into {}",
               args.grid, args.pairs, args.pairs, plant.front(), out_dir);
  if (const int failed = run_all_pairs(args, self, out_dir, plant, aa, planted); failed != kExitOk)
    return failed;
  if (aa.size() < 3) {
    spdlog::error("stopped after {} pair(s): a calibration needs at least 3; the runs are in {}",
                  aa.size(), out_dir);
    return interrupted.load() > 0 ? 128 + interrupted.load() : kExitRunFailed;
  }
  if (interrupted.load() > 0)
    spdlog::warn("interrupted: the calibration uses the {} pair(s) that finished", aa.size());
  if (is_count_metric(options.metric))
    return write_counted_calibration(args, loaded->first.name, out_dir, aa, planted, options,
                                     std::stod(plant.front().substr(plant.front().find('=') + 1)));

  GateCalibration gate = or_exit<std::invalid_argument>(
      kExitRunFailed, [&] { return assess_gate(aa, planted, options); });
  gate.grid = loaded->first.name;
  gate.grid_file = args.grid;
  gate.load = args.load;
  gate.machine_record = machine_record_of(aa);
  if (gate.cells.empty()) {
    spdlog::error("no cell was ok in every A/A pair; nothing to calibrate (see {})", out_dir);
    return kExitRunFailed;
  }
  or_exit(kExitRunFailed, [&] {
    write_text_file(out_dir + "/calibrate.json", json_text(gate_calibration_json(gate), 2) + "\n");
    write_text_file(out_dir + "/calibrate.md", render_gate_calibration_markdown(gate));
  });
  std::cout << render_gate_calibration_text(gate);
  std::cout << "Written: " << out_dir << "/calibrate.json, calibrate.md\n"
            << "Use it: crossover compare BASELINE CANDIDATE --calibration " << out_dir
            << "/calibrate.json\n";
  return interrupted.load() > 0 ? kExitInterrupted : kExitOk;
}

}  // namespace

Command add_calibrate_command(CLI::App& subcommand) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* calibrate = &subcommand;
  calibrate->add_option("grid", args->grid, "Grid file (JSON)")->required();
  calibrate->add_option("--pairs", args->pairs, "Pairs of each kind (default 10)")
      ->check(CLI::Range(3, 100));
  calibrate->add_option("--load", args->load, "Busy processes of the planted slowdown (default 2)")
      ->check(CLI::Range(1, 64));
  add_output_option(*calibrate, "--out", args->out_dir,
                    "Where the runs, calibrate.json and calibrate.md go (default "
                    "runs/calibrate-<timestamp>)",
                    OutputKind::kFolder);
  calibrate->add_flag("--overwrite", args->overwrite,
                      "--out may hold a calibration, or the runs of one that was stopped: move "
                      "them into previous-<time>/ there first (as run --overwrite does)");
  add_data_dir_option(*calibrate, args->data_dir);
  calibrate
      ->add_option("--threshold", args->threshold_percent,
                   "The gate's threshold, as compare's (default 5; 0.5 for instructions and "
                   "cycles)")
      ->check(finite_range(0.0, 1000.0));
  calibrate->add_option("--alpha", args->alpha, "The gate's alpha (default 0.05)");
  // compare's metrics but energy, whose run-to-run spread calibrate does not estimate.
  std::vector<std::string> metrics = word_list<GateMetric>();
  metrics.erase(std::remove(metrics.begin(), metrics.end(), text_of(GateMetric::kEnergy)),
                metrics.end());
  calibrate
      ->add_option("--metric", args->metric,
                   "epoch (default), step, throughput, or instructions or cycles: the counted "
                   "gate of a grid whose cells set `count`, its planted pairs planted with extra "
                   "work instead of busy processes")
      ->check(CLI::IsMember(metrics));
  calibrate
      ->add_option("--plant-work", args->plant_work_percent,
                   "Counted: the planted pairs' extra work in percent of each epoch's "
                   "(CROSSOVER_PLANT_WORK; default twice the threshold)")
      ->check(finite_range(0.0, 1000.0));
  calibrate
      ->add_option("--assumed-spread", args->assumed_spread_percent,
                   "The uncalibrated gate's assumed run-to-run variation per run, as compare's "
                   "(default 4)")
      ->check(finite_range(0.0, 1000.0));

  return {calibrate, [args] { return calibrate_command(*args); }};
}

}  // namespace crossover
