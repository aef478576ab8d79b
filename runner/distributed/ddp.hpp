#pragma once
// One rank of a ddp cell: `crossover worker`. It joins a c10d process group (Gloo; rendezvous
// through rank 0's TCP store at MASTER_ADDR:MASTER_PORT), trains the cell as one of WORLD_SIZE
// replicas, and hands its measurements to rank 0, which writes the cell's result. The environment
// is torchrun's, so `torchrun --no-python ... crossover worker ...` runs ranks on several
// machines.

#include <string>

namespace crossover {

/// Arguments of `crossover worker`.
struct WorkerArgs {
  std::string cell_file;  ///< a results.jsonl line whose configuration is the cell to run, or:
  std::string grid;       ///< a grid file, with
  int cell_index = -1;    ///< the index of the cell in it (as `run --dry-run` lists them)
  std::string out_file;   ///< where rank 0 writes the cell's result (other ranks write nothing)
  std::string data_dir = "data";
  std::string
      serve_dir;  ///< serve cells as a warm worker in this folder (runner/execution/launch.hpp)
  double timeout_seconds = 120.0;  ///< for the rendezvous and every collective
  bool timing_only = false;        ///< RunOptions::timing_only
};

/// Runs this process's rank; returns 0 when the rank finished its part, 1 when it failed, 2 on bad
/// input (no RANK/WORLD_SIZE, an unreadable cell).
int worker_command(const WorkerArgs& args);

}  // namespace crossover
