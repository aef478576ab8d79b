#pragma once
// Starts cells in child processes: the ranks of a ddp cell as local processes, the way torchrun
// does: `crossover worker` once per rank with MASTER_ADDR, WORLD_SIZE, RANK and LOCAL_RANK set,
// and CROSSOVER_STORE_FILE naming the file store the ranks meet through (so nothing listens
// beyond loopback). Rank 0 gathers every rank's measurements and writes the cell's result; the
// launcher waits for all, and a rank that fails, is killed or hangs past the timeout ends the cell
// as `failed` with the reason, after the other ranks are stopped.

#include <string>

#include "core/results.hpp"

namespace crossover {

/// How to start the ranks.
struct LaunchOptions {
  std::string binary;  ///< the crossover binary ("" = this process's executable)
  std::string data_dir = "data";
  double timeout_seconds = 0.0;  ///< 0: 4 x the cell's time budget + 120 s
};

/// Runs one ddp cell as `cell.nproc` local rank processes, or any other cell as one child process
/// (isolation). Never throws: a child that fails, is killed or outlives the timeout (the cell's
/// `timeout_seconds`, else the options', else 4 x its time budget + 120 s) makes a `failed` result
/// with the signal or status and the last lines the child wrote to stderr.
Result run_ranks(const Cell& cell, const LaunchOptions& options);

/// The path of this process's executable (read with readlink, not std::filesystem: see
/// remove_tree in launch.cpp); throws std::runtime_error when /proc/self/exe cannot be read.
std::string self_executable();

}  // namespace crossover
