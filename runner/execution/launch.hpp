#pragma once
// Starts cells in child processes: the ranks of a ddp cell as local processes, the way torchrun
// does: `crossover worker` once per rank with MASTER_ADDR, WORLD_SIZE, RANK and LOCAL_RANK set,
// and CROSSOVER_STORE_FILE naming the file store the ranks meet through (so nothing listens
// beyond loopback). Rank 0 gathers every rank's measurements and writes the cell's result; the
// launcher waits for all, and a rank that fails, is killed or hangs past the timeout ends the cell
// as `failed` with the reason, after the other ranks are stopped.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/records/results.hpp"

namespace crossover {

/// How to start the ranks.
struct LaunchOptions {
  std::string binary;  ///< the crossover binary ("" = this process's executable)
  std::string data_dir = "data";
  double timeout_seconds = 0.0;  ///< 0: 4 x the cell's time budget + 120 s
  bool timing_only = false;      ///< `worker --timing-only` (RunOptions::timing_only)
  /// The run's stop signal (RunOptions::interrupted): a SIGTERM there stops a running cell's
  /// processes at once, each started in a process group of its own (core/process/child.hpp).
  const std::atomic<int>* interrupted = nullptr;
};

/// Runs one ddp cell as `cell.nproc` local rank processes, or any other cell as one child process
/// (isolation). Never throws: a child that fails, is killed or outlives the timeout (the cell's
/// `timeout_seconds`, else the options', else 4 x its time budget + 120 s) makes a `failed` result
/// with the signal or status and the last lines the child wrote to stderr.
Result run_ranks(const Cell& cell, const LaunchOptions& options);

/// Runs isolated cells in child processes: on warm workers (`crossover worker --serve DIR`, kept
/// alive between cells) or, with `warm` false, in a fresh process each (run_ranks). A worker
/// serves only cells with its device, `threads` and `deterministic`; a cell that does not end ok,
/// crashes or outlives its timeout retires its worker (killed), and the next cell starts a fresh
/// one. ddp cells always run in fresh processes. Each result says which process ran it (`worker`,
/// numbered from 1 in the order the pool started them) and how many cells that process had run
/// before (`worker_cells_before`).
///
/// The protocol, one line each way on the worker's fd 3 (a socket pair): the pool writes the cell
/// to DIR/cell-N.json and sends "N"; the worker sends "N" back once DIR/result-N.json holds the
/// result; its stderr for that cell is DIR/cell-N.log. End of file on fd 3 ends the worker.
class WorkerPool {
 public:
  WorkerPool(LaunchOptions options, bool warm);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Runs an isolated cell (a warm worker's or a fresh process); never throws, as run_ranks.
  Result run(const Cell& cell);
  /// Runs `cell` in a fresh process (run_ranks) and numbers that process as a worker.
  Result run_fresh(const Cell& cell, bool timing_only = false);
  bool warm() const { return warm_; }

 private:
  struct Worker;
  /// The warm worker of `key`, started for `cell` when there is none (under Callgrind for a
  /// counted cell that needs it).
  Worker& worker_for(const std::string& key, const Cell& cell);
  void retire(std::size_t index);

  LaunchOptions options_;
  bool warm_;
  int started_ = 0;                               ///< processes started, fresh ones included
  std::size_t requests_ = 0;                      ///< cells sent to warm workers
  std::vector<std::unique_ptr<Worker>> workers_;  ///< alive, least recently used first
};

/// Serves cells on fd 3 as a warm worker in folder `dir` (the other end of WorkerPool):
/// `run_one(cell file, result file)` runs one cell and returns false when the worker cannot go
/// on. Returns 0 at end of file, 1 when a cell could not be run or the channel broke.
int serve_cells(const std::string& dir,
                const std::function<bool(const std::string&, const std::string&)>& run_one);

/// The path of this process's executable (read with readlink, not std::filesystem: see
/// remove_tree in launch.cpp); throws std::runtime_error when /proc/self/exe cannot be read.
std::string self_executable();

}  // namespace crossover
