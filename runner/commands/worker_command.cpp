// crossover worker: one cell in this process, as `run` starts isolated cells and ddp ranks.
#include <memory>

#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/distributed/ddp.hpp"

namespace crossover {

Command add_worker_command(CLI::App& subcommand) {
  auto args = std::make_shared<WorkerArgs>();
  CLI::App* worker = &subcommand;
  CLI::Option* worker_cell =
      worker->add_option("--cell", args->cell_file, "The cell, as one results.jsonl line");
  CLI::Option* worker_grid =
      worker->add_option("--grid", args->grid, "Or a grid file, with --cell-index");
  worker
      ->add_option("--cell-index", args->cell_index,
                   "The cell's index in --grid (as run --dry-run lists them)")
      ->needs(worker_grid);
  worker_cell->excludes(worker_grid);
  CLI::Option* serve = worker->add_option(
      "--serve", args->serve_dir,
      "Serve cells as `run`'s warm worker in this folder (their files there, one line each way "
      "on fd 3; see docs/methodology.md)");
  serve->excludes(worker_cell)->excludes(worker_grid);
  add_output_option(*worker, "--out", args->out_file, "Where rank 0 writes the cell's result",
                    OutputKind::kFile)
      ->excludes(serve);
  add_data_dir_option(*worker, args->data_dir);
  worker->add_flag("--timing-only", args->timing_only,
                   "Time the cell only: no evaluation, no step anatomy (the shares of a "
                   "multi-process cell before its last, whose metric and anatomy the merge keeps)");
  worker->add_option("--timeout", args->timeout_seconds,
                     "Seconds to wait for the other ranks in the rendezvous and in every "
                     "collective (default 120)");

  return {worker, [args] { return worker_command(*args); }};
}

}  // namespace crossover
