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
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "reports/gate/run_drift.hpp"
#include "reports/render/run_outputs.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/named_profiles.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/commands/run_checks.hpp"
#include "runner/distributed/shard.hpp"
#include "runner/hardware/devices.hpp"
#include "runner/machine/env.hpp"
#include "runner/sweep/sweep.hpp"

namespace crossover {
namespace {

// --predict: the CUDA cells this machine lacks, each predicted once for every `threads`.
void fold_predictions(Expansion& expansion, const Expansion& whole,
                      const DeviceInventory& inventory, SweepOptions& options) {
  expansion.folded = fold_predicted_cells(expansion.cells, inventory);
  if (expansion.folded == 0) return;
  spdlog::info("{}", folded_cells_text(expansion.folded));
  // Probes are numbered after every listed cell, the folded ones too.
  if (options.first_probe_index == 0) options.first_probe_index = whole.cells.size();
}

int run_command(const RunArgs& args) {
  std::optional<CheckedRun> checked = check_run(args);
  if (!checked) return kExitBadInput;
  const Grid& grid = checked->grid;
  const Expansion& whole = checked->whole;
  Expansion& expansion = checked->expansion;
  SweepOptions& options = checked->options;
  const std::vector<CompareSpec>& specs = checked->specs;
  const DeviceInventory inventory = probe_devices();
  if (options.predict_cuda) fold_predictions(expansion, whole, inventory, options);
  // What this run does with each cell, decided once: the dry run and the sweep read it.
  plan_expansion(expansion, inventory, options.predict_cuda != nullptr);
  if (args.dry_run) {
    // What the run would refuse before its first cell, the dry run refuses alike (crossover
    // checked the cells before they were folded; these are the cells as planned).
    check_sweep(options, expansion.cells);  // SweepRefused: exit 2, logged
    std::cout << wrap_prose(dry_run_text(expansion), output_columns());
    return kExitOk;
  }

  // Everything that can be known to fail is checked before the first cell runs.
  std::optional<Sweep> sweep;
  options.interrupted = &interrupted;
  sweep.emplace(options, grid, expansion, inventory);  // SweepRefused: exit 2, logged
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
  if (const Found failed = problem_of(
          [&] { write_reports(sweep->out_dir(), context, results, specs, sweep->record()); })) {
    spdlog::error("{}", failed->text);
    outcome.write_failed = true;
  }
  std::cout << wrap_prose(
      "Reports: " + written_files_text(sweep->out_dir(), run_files_in(sweep->out_dir())) + "\n",
      output_columns());
  const auto failed = std::count_if(results.begin(), results.end(), [](const Result& r) {
    return r.status == CellStatus::kFailed;
  });
  if (failed > 0)
    spdlog::error("{} of {} cells failed; see the reasons above and in report.md", failed,
                  results.size());
  if (interrupted.load() > 0) return 128 + interrupted.load();  // 130 for Ctrl-C, 143 for SIGTERM
  const bool required = required_devices_measured(args.require, results, "this run");
  return failed > 0 || outcome.write_failed || !required ? kExitRunFailed : kExitOk;
}

}  // namespace

Command add_run_command(CLI::App& subcommand) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = add_run_options(subcommand, *args);
  return {run, [args] { return run_command(*args); }};
}

}  // namespace crossover
