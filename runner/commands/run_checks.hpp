#pragma once
// `crossover run`'s options, and everything it checks before it looks at this machine's devices:
// the grid (--set included), --price, --shard, --label, the profiles of --profile and --predict,
// --compare, and the sweep's own refusals (runner/sweep/sweep_options.hpp). No LibTorch: the
// `crossover` program runs these checks itself and answers a run it refuses at once (exit 2, what
// it said as crossover-torch would say it); a run that passes them is handed to crossover-torch,
// which checks them again and runs (runner/commands/run_command.cpp).

#include <optional>
#include <string>
#include <vector>

#include "core/cells/key_contrast.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"  // CLI::App
#include "runner/grid/grid.hpp"
#include "runner/sweep/sweep_options.hpp"

namespace crossover {

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

/// `run` and its options on `app`, into `args`.
CLI::App* add_run_options(CLI::App& app, RunArgs& args);

/// A run's checked input: the grid, its whole expansion, the part this run measures (labelled),
/// the sweep's options with the prices and the profiles read, and the comparisons.
struct CheckedRun {
  Grid grid;
  Expansion whole;
  Expansion expansion;
  SweepOptions options;
  std::vector<CompareSpec> specs;
};

/// Everything `run` checks before it looks at the devices, logged; nullopt (exit 2) when one
/// fails. Throws NeedsLibTorch for a grid with models of its own where this program cannot load
/// them.
std::optional<CheckedRun> check_run(const RunArgs& args);

}  // namespace crossover
