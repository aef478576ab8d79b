// crossover run: every cell of a grid, one at a time, into a results directory, then the reports.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>

#include "core/cells/keys.hpp"
#include "core/costmodel/machine_profile.hpp"
#include "core/files/run_files.hpp"
#include "core/text/text.hpp"
#include "reports/gate/run_drift.hpp"
#include "reports/render/run_outputs.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/named_profiles.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/distributed/shard.hpp"
#include "runner/hardware/devices.hpp"
#include "runner/machine/env.hpp"
#include "runner/sweep/sweep.hpp"

namespace crossover {
namespace {

struct RunArgs {
  std::string grid;
  SweepOptions sweep;  ///< --out, --data-dir, --resume, --overwrite, --isolate, ...
  bool dry_run = false;
  std::string shard;  ///< "K/N", "auto" or "" (the whole grid)
  int shards = 0;     ///< --shards N: the parts of a Kubernetes Indexed Job (--shard auto)
  /// AXIS=BASELINE:CONTENDER comparisons for the crossover analysis, each reported in turn
  std::vector<std::string> compare = {"device=cpu:cuda"};
  std::vector<std::string> prices;  ///< --price KIND=PRICE
  double model_check_seconds = kModelCheckSeconds;
  std::string predict;               ///< --predict cuda=FILE
  std::string profile;               ///< --profile FILE or a shipped profile's name
  std::vector<std::string> require;  ///< --require DEVICE: devices that must have been measured
  std::vector<std::string> sets;     ///< --set KEY=VALUE[,VALUE...]: the grid changed
};

// --predict's "cuda=FILE": FILE, "" when not given; nullopt (logged) when it is not that.
std::optional<std::string> predict_file(const std::string& text) {
  if (text.empty()) return "";
  const auto equals = text.find('=');
  if (equals == std::string::npos || text.substr(0, equals) != "cuda" ||
      equals + 1 == text.size()) {
    spdlog::error(
        "--predict {}: expected cuda=PROFILE, the profile of the GPU to predict the CUDA cells "
        "with: a shipped one by name (e.g. --predict cuda=h100; crossover list) or a file",
        text);
    return std::nullopt;
  }
  return text.substr(equals + 1);
}

// --price arguments into `prices`; false (logged) when one is wrong.
bool parse_prices(const std::vector<std::string>& texts, Prices& prices) {
  try {
    for (const auto& text : texts) add_price(prices, text);
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    return false;
  }
  return true;
}

// The part of the grid this run measures: all of it, or the shard --shard names (logged and
// numbered in `options`); nullopt (logged) when --shard or --shards is wrong.
std::optional<Expansion> select_part(const RunArgs& args, const Expansion& whole,
                                     SweepOptions& options) {
  if (args.shards > 0 && args.shard != "auto") {
    spdlog::error("--shards {} counts the parts of --shard auto in a Kubernetes Indexed Job; {}",
                  args.shards,
                  args.shard.empty() ? "add --shard auto, or drop --shards"
                                     : "with --shard " + args.shard + " drop --shards");
    return std::nullopt;
  }
  if (args.shard.empty()) return whole;
  Expansion expansion;
  try {
    options.shard =
        args.shard == "auto"
            ? shard_from_environment([](const char* n) { return std::getenv(n); }, args.shards)
            : parse_shard(args.shard);
    expansion = shard_of(whole, *options.shard);
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    return std::nullopt;
  }
  // A shard's probes are numbered after every listed cell and apart from the other shards'.
  options.first_probe_index =
      whole.cells.size() +
      static_cast<std::size_t>(options.shard->index - 1) * 2 * most_probes(whole.searches);
  spdlog::info("shard {} of {} (from {}): {} of the grid's {} cells, {} of its {} searches",
               options.shard->index, options.shard->count, options.shard->source,
               expansion.cells.size(), whole.cells.size(), expansion.searches.size(),
               whole.searches.size());
  return expansion;
}

// Every cell carries the machine's label (--label, else the host name): `report` of several
// machines' runs pairs on it. False (logged) when the label holds a control character.
bool label_cells(Expansion& expansion, SweepOptions& options) {
  if (printable_text(options.label) != options.label ||
      options.label.find_first_of("\n\t") != std::string::npos) {
    spdlog::error("--label holds a control character or a line break; give a plain name");
    return false;
  }
  if (!valid_utf8(options.label)) {
    spdlog::error(
        "--label {}: not UTF-8 text (\"?\" marks the bytes that are not); give a plain "
        "name in UTF-8",
        terminal_text(options.label));
    return false;
  }
  if (options.label.empty()) {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    options.label = name[0] != '\0' ? name : "this machine";
  }
  for (Cell& cell : expansion.cells) cell.host = options.label;
  for (SearchLine& line : expansion.searches)
    line.baseline.host = line.contender.host = options.label;
  return true;
}

// --set, --data-dir and --real-data: what changes the grid, and where its data comes from.
void add_grid_and_data_options(CLI::App& run, RunArgs& args) {
  run.add_option("--set", args.sets,
                 "KEY=VALUE or KEY=VALUE,VALUE,...: set one grid key in every experiment (over the "
                 "defaults and the experiment's own value: --set epochs=3), or make it an axis of "
                 "those values (--set batch_size=64,256); checked as the grid is. Give it again "
                 "for more keys; grid.json records the grid as run")
      ->allow_extra_args(false)
      ->take_all();
  add_data_dir_option(run, args.sweep.data_dir);
  run.add_flag("--real-data", args.sweep.real_data,
               "Refuse to run (exit 2, before anything runs) when a data set the grid reads is "
               "not under the data folder, instead of training on a synthetic stand-in");
}

// --predict: the CUDA cells this machine lacks, each predicted once for every `threads`.
void fold_predictions(Expansion& expansion, const Expansion& whole,
                      const DeviceInventory& inventory, SweepOptions& options) {
  expansion.folded = fold_predicted_cells(expansion.cells, inventory);
  if (expansion.folded == 0) return;
  spdlog::info("{}", folded_cells_text(expansion.folded));
  // Probes are numbered after every listed cell, the folded ones too.
  if (options.first_probe_index == 0) options.first_probe_index = whole.cells.size();
}

// The profiles of --predict and --profile, found by name or path and read once, before anything
// runs (a dry run included), into the sweep's options; false (logged) when one cannot be read.
bool read_profiles(const RunArgs& args, SweepOptions& options) {
  const std::optional<std::string> predict = predict_file(args.predict);
  if (!predict) return false;
  try {
    if (!predict->empty())
      options.predict_cuda =
          std::make_shared<const MachineProfile>(load_named_gpu_profile(*predict));
    if (!args.profile.empty())
      options.profile =
          std::make_shared<const MachineProfile>(load_named_profile(args.profile));
  } catch (const std::runtime_error& e) {
    spdlog::error("{}", e.what());
    return false;
  }
  return true;
}

int run_command(const RunArgs& args) {
  const auto loaded = load_and_expand(args.grid, args.model_check_seconds, args.sets);
  if (!loaded) return kExitBadInput;
  const auto& [grid, whole] = *loaded;
  SweepOptions options = args.sweep;
  if (!parse_prices(args.prices, options.prices)) return kExitBadInput;
  std::optional<Expansion> part = select_part(args, whole, options);
  if (!part || !label_cells(*part, options)) return kExitBadInput;
  Expansion& expansion = *part;
  if (!read_profiles(args, options)) return kExitBadInput;
  const auto specs = compare_specs(args.compare);
  if (!specs || (expansion.searches.empty() &&
                 !compare_values_present(args.compare, *specs, expansion.cells)))
    return kExitBadInput;
  const DeviceInventory inventory = probe_devices();
  if (options.predict_cuda) fold_predictions(expansion, whole, inventory, options);
  // What this run does with each cell, decided once: the dry run and the sweep read it.
  plan_expansion(expansion, inventory, options.predict_cuda != nullptr);
  if (args.dry_run) {
    // What the run would refuse before its first cell, the dry run refuses alike.
    try {
      check_sweep(options, expansion.cells);
    } catch (const SweepRefused&) {
      return kExitBadInput;  // logged
    }
    std::cout << wrap_prose(dry_run_text(expansion),
                            output_columns());
    return kExitOk;
  }

  // Everything that can be known to fail is checked before the first cell runs.
  std::optional<Sweep> sweep;
  try {
    options.interrupted = &interrupted;
    sweep.emplace(options, grid, expansion, inventory);
  } catch (const SweepRefused&) {
    return kExitBadInput;  // logged
  }
  catch_interrupts();
  SweepOutcome outcome = sweep->run();
  const std::vector<Result>& results = outcome.results;

  ReportContext context;
  context.title = grid.name;
  context.description = grid.description;
  context.environment = environment_summary(sweep->record());
  // The warnings of the run's start, and of its end: cells run while the machine's speed moved.
  context.warnings = environment_warnings(sweep->record());
  context.drifted_cells = drifted_cell_indices(sweep->record());
  context.band_validation = band_validation(sweep->record());
  if (std::string drift = drift_warning(sweep->record()); !drift.empty()) spdlog::warn("{}", drift);
  context.searches = outcome.searches;
  try {
    write_reports(sweep->out_dir(), context, results, *specs, sweep->record());
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    outcome.write_failed = true;
  }
  std::cout << "Reports: " << written_files_text(sweep->out_dir(), run_files_in(sweep->out_dir()))
            << "\n";
  const auto failed = std::count_if(results.begin(), results.end(), [](const Result& r) {
    return r.status == CellStatus::kFailed;
  });
  if (failed > 0)
    spdlog::error("{} of {} cells failed; see the reasons above and in report.md", failed,
                  results.size());
  if (interrupted.load() > 0) return kExitInterrupted;
  const bool required = required_devices_measured(args.require, results, "this run");
  return failed > 0 || outcome.write_failed || !required ? kExitRunFailed : kExitOk;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run =
      app.add_subcommand("run", "Run every cell of a grid and write results and reports");
  run->add_option("grid", args->grid, "Grid file (JSON)")->required();
  run->add_option("--out", args->sweep.out_dir,
                  "Results directory (default runs/<grid name>-<timestamp>, -2, -3, ... when "
                  "taken)");
  add_grid_and_data_options(*run, *args);
  run->add_option("--compare", args->compare,
                  "AXIS=BASELINE:CONTENDER for the crossover analysis (default device=cpu:cuda); "
                  "give it again for more comparisons, e.g. --compare device=cpu:cuda --compare "
                  "threads=1:0")
      ->allow_extra_args(false)
      ->take_all();
  run->add_option("--resume", args->sweep.resume,
                  "Continue an interrupted run in its directory: keep the cells already ok there "
                  "(matched by their identity keys, see crossover keys; refused when the "
                  "environment changed), run the rest; refused when the grid lacks cells the run "
                  "measured (DIR/grid.json is the grid as run)");
  run->add_flag("--overwrite", args->sweep.overwrite,
                "When --out already holds a run's results, move its files into "
                "OUT/previous-<time>/ and run; without it such a directory is refused")
      ->excludes("--resume");
  // In the words of the grid key it sets for every cell (as crossover keys and docs/grids.md).
  const GridKey& isolate = *find_grid_key("isolate");
  run->add_flag("--isolate", args->sweep.isolate,
                "Set the grid key isolate to true for every cell (its default: " +
                    default_text(isolate) + "; true with timeout_seconds). " + isolate.description);
  run->add_flag("--fresh-process-per-cell", args->sweep.fresh_processes,
                "Start a new process for every isolated cell instead of a warm worker (each "
                "result's worker and worker_cells_before say which process ran it)");
  run->add_option("--label", args->sweep.label,
                  "This machine's name in the results (default: its host name), so that `report` "
                  "of several machines' runs tells them apart (--compare host=A:B)");
  run->add_option("--price", args->prices,
                  "KIND=PRICE: the price per hour of a device kind (cpu, cuda; cuda@LABEL for one "
                  "machine), over the grid's \"prices\"; each result gets its cost per epoch and "
                  "per million samples. Give it again for each kind")
      ->allow_extra_args(false)
      ->take_all();
  run->add_option("--require", args->require,
                  "DEVICE (cpu or cuda): exit 1, naming it, when none of its cells was measured "
                  "(a skipped or predicted cell is not), so that a CI job on a machine without "
                  "that device fails instead of passing on nothing. Give it again for each device")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->allow_extra_args(false)
      ->take_all();
  run->add_option("--shard", args->shard,
                  "K/N: run the K-th of N disjoint parts of the grid, the same parts on every "
                  "machine: cells compared with each other (differing only in the device or a "
                  "knob such as threads or precision) stay in one part, and the parts are "
                  "balanced by estimated cost; N may not exceed the grid's units. auto: K and N "
                  "from a Slurm job array or a Kubernetes Indexed Job (with --shards N). "
                  "`crossover merge` joins the parts");
  run->add_option("--shards", args->shards,
                  "With --shard auto in a Kubernetes Indexed Job: the number of parts")
      ->check(CLI::Range(1, 100000));
  run->add_option("--profile", args->profile,
                  "This machine's profile (crossover profile --out FILE; or a shipped one by "
                  "name) for every cell's bound, instead of the quick one measured at the "
                  "start; env.json records it");
  run->add_option("--predict", args->predict,
                  "cuda=PROFILE: predict the CUDA cells this machine cannot run with that "
                  "profile's GPU (status \"predicted\", marked so in every output; no gate "
                  "decides on them) instead of skipping them: a shipped profile by name "
                  "(cuda=h100, cuda=h200; crossover list names them, from any folder), a file, "
                  "or a GPU of the catalog (cuda=l4, cuda=t4, ...: its profile from its "
                  "datasheet; crossover catalog predicts them all)");
  add_model_check_option(*run, args->model_check_seconds);
  run->add_flag("--dry-run", args->dry_run,
                "List the cells that would run or be skipped, and the most probes each search "
                "may take; run nothing");

  return {run, [args] { return run_command(*args); }};
}

}  // namespace crossover
