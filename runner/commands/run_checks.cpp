#include "runner/commands/run_checks.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "core/cells/keys.hpp"
#include "core/text/text.hpp"
#include "runner/cli/named_profiles.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/distributed/shard.hpp"

namespace crossover {
namespace {

// --predict's "cuda=FILE": FILE, "" when not given; nullopt (logged) when it is not that.
std::optional<std::string> predict_file(const std::string& text) {
  if (text.empty()) return "";
  const auto equals = text.find('=');
  if (equals == std::string::npos ||
      parse_word<DeviceKind>(text.substr(0, equals)) != DeviceKind::kCuda ||
      equals + 1 == text.size()) {
    spdlog::error(
        "--predict {}: expected cuda=PROFILE, the profile of the GPU to predict the CUDA cells "
        "with: a shipped one by name (e.g. --predict cuda=h100; crossover list) or a file",
        text);
    return std::nullopt;
  }
  return text.substr(equals + 1);
}

// --price arguments into `prices`; throws CommandError (exit 2) naming one that is wrong.
void parse_prices(const std::vector<std::string>& texts, Prices& prices) {
  for (const auto& text : texts)
    or_exit<std::invalid_argument>(kExitBadInput, [&] { add_price(prices, text); });
}

// The part of the grid this run measures: all of it, or the shard --shard names (logged and
// numbered in `options`); nullopt (logged) when --shards is wrong, CommandError (exit 2) when
// --shard is.
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
  const Expansion expansion = or_exit<std::invalid_argument>(kExitBadInput, [&] {
    options.shard =
        args.shard == "auto"
            ? shard_from_environment([](const char* n) { return std::getenv(n); }, args.shards)
            : parse_shard(args.shard);
    return shard_of(whole, *options.shard);
  });
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

// The profiles of --predict and --profile, found by name or path and read once, before anything
// runs (a dry run included), into the sweep's options; false (logged) when --predict is wrong,
// CommandError (exit 2) when a profile cannot be read.
bool read_profiles(const RunArgs& args, SweepOptions& options) {
  const std::optional<std::string> predict = predict_file(args.predict);
  if (!predict) return false;
  or_exit<std::runtime_error>(kExitBadInput, [&] {
    if (!predict->empty())
      options.predict_cuda =
          std::make_shared<const MachineProfile>(load_named_gpu_profile(*predict));
    if (!args.profile.empty())
      options.profile = std::make_shared<const MachineProfile>(load_named_profile(args.profile));
  });
  return true;
}

}  // namespace

CLI::App* add_run_options(CLI::App& subcommand, RunArgs& args) {
  CLI::App* run = &subcommand;
  run->add_option("grid", args.grid, "Grid file (JSON)")->required();
  add_output_option(*run, "--out", args.sweep.out_dir,
                    "Results directory (default runs/<grid name>-<timestamp>, -2, -3, ... when "
                    "taken)",
                    OutputKind::kFolder);
  add_grid_and_data_options(*run, args);
  run->add_option("--compare", args.compare,
                  "AXIS=BASELINE:CONTENDER for the crossover analysis (default device=cpu:cuda); "
                  "give it again for more comparisons, e.g. --compare device=cpu:cuda --compare "
                  "threads=1:0")
      ->allow_extra_args(false)
      ->take_all();
  add_output_option(*run, "--resume", args.sweep.resume,
                    "Continue an interrupted run in its directory: keep the cells already ok there "
                    "(matched by their identity keys, see crossover keys; refused when the "
                    "environment changed), run the rest; refused when the grid lacks cells the run "
                    "measured (DIR/grid.json is the grid as run)",
                    OutputKind::kFolder);
  run->add_flag("--overwrite", args.sweep.overwrite,
                "When --out already holds a run's results, move its files into "
                "OUT/previous-<time>/ and run; without it such a directory is refused")
      ->excludes("--resume");
  // In the words of the grid key it sets for every cell (as crossover keys and docs/grids.md).
  const GridKey& isolate = *find_grid_key("isolate");
  run->add_flag("--isolate", args.sweep.isolate,
                "Set the grid key isolate to true for every cell (its default: " +
                    default_text(isolate) + "; true with timeout_seconds). " + isolate.description);
  run->add_flag("--fresh-process-per-cell", args.sweep.fresh_processes,
                "Start a new process for every isolated cell instead of a warm worker (each "
                "result's worker and worker_cells_before say which process ran it)");
  run->add_option("--label", args.sweep.label,
                  "This machine's name in the results (default: its host name), so that `report` "
                  "of several machines' runs tells them apart (--compare host=A:B)");
  run->add_option("--price", args.prices,
                  "KIND=PRICE: the price per hour of a device kind (cpu, cuda; cuda@LABEL for one "
                  "machine), over the grid's \"prices\"; each result gets its cost per epoch and "
                  "per million samples. Give it again for each kind")
      ->allow_extra_args(false)
      ->take_all();
  run->add_option("--require", args.require,
                  "DEVICE (cpu or cuda): exit 1, naming it, when none of its cells was measured "
                  "(a skipped or predicted cell is not), so that a CI job on a machine without "
                  "that device fails instead of passing on nothing. Give it again for each device")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->allow_extra_args(false)
      ->take_all();
  run->add_option("--shard", args.shard,
                  "K/N: run the K-th of N disjoint parts of the grid, the same parts on every "
                  "machine: cells compared with each other (differing only in the device or a "
                  "knob such as threads or precision) stay in one part, and the parts are "
                  "balanced by estimated cost; N may not exceed the grid's units. auto: K and N "
                  "from a Slurm job array or a Kubernetes Indexed Job (with --shards N). "
                  "`crossover merge` joins the parts");
  run->add_option("--shards", args.shards,
                  "With --shard auto in a Kubernetes Indexed Job: the number of parts")
      ->check(CLI::Range(1, 100000));
  run->add_option("--profile", args.profile,
                  "This machine's profile (crossover profile --out FILE; or a shipped one by "
                  "name) for every cell's bound, instead of the quick one measured at the "
                  "start; env.json records it");
  run->add_option("--predict", args.predict,
                  "cuda=PROFILE: predict the CUDA cells this machine cannot run with that "
                  "profile's GPU (status \"predicted\", marked so in every output; no gate "
                  "decides on them) instead of skipping them: a shipped profile by name "
                  "(cuda=h100, cuda=h200; crossover list names them, from any folder), a file, "
                  "or a GPU of the catalog (cuda=l4, cuda=t4, ...: its profile from its "
                  "datasheet; crossover catalog predicts them all)");
  add_model_check_option(*run, args.model_check_seconds);
  run->add_flag("--dry-run", args.dry_run,
                "List the cells that would run or be skipped, and the most probes each search "
                "may take; run nothing");
  return run;
}

std::optional<CheckedRun> check_run(const RunArgs& args) {
  auto loaded = load_and_expand(args.grid, args.model_check_seconds, args.sets);
  if (!loaded) return std::nullopt;
  CheckedRun checked;
  checked.grid = std::move(loaded->first);
  checked.whole = std::move(loaded->second);
  checked.options = args.sweep;
  parse_prices(args.prices, checked.options.prices);
  std::optional<Expansion> part = select_part(args, checked.whole, checked.options);
  if (!part || !label_cells(*part, checked.options)) return std::nullopt;
  checked.expansion = std::move(*part);
  if (!read_profiles(args, checked.options)) return std::nullopt;
  std::vector<CompareSpec> specs = compare_specs(args.compare);
  if (checked.expansion.searches.empty() &&
      !compare_values_present(args.compare, specs, checked.expansion.cells))
    return std::nullopt;
  checked.specs = std::move(specs);
  return checked;
}

// check_run and the sweep's checks with what they say held back: a run they refuse is said (as
// the HeldLog ends) and exits 2 here, or its error is said by run_one; any other is handed to
// crossover-torch (NeedsLibTorch), which says it all once.
Command add_run_checks_command(CLI::App& subcommand) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = add_run_options(subcommand, *args);
  return {run, [args] {
            const HeldLog held;
            std::optional<CheckedRun> checked = check_run(*args);
            if (!checked) return kExitBadInput;
            check_sweep(checked->options, checked->expansion.cells);
            hand_to_libtorch();
          }};
}

}  // namespace crossover
