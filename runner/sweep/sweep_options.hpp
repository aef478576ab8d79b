#pragma once
// What `crossover run` asks of a sweep, and what it checks before anything is touched: the
// options and the refusals that need no LibTorch, so that `crossover` answers a run it would
// refuse without starting crossover-torch (runner/commands/run_checks.hpp). The sweep itself is
// runner/sweep/sweep.hpp.

#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/costmodel/machine_profile.hpp"
#include "core/records/prices.hpp"
#include "runner/distributed/shard.hpp"

namespace crossover {

/// What a sweep was asked to do (`crossover run`'s options).
struct SweepOptions {
  std::string out_dir;  ///< "" = runs/<grid name>-<timestamp>
  std::string data_dir = "data";
  std::string resume;            ///< a run's folder to continue ("" = a new run)
  bool overwrite = false;        ///< move an earlier run in out_dir into previous-<time>/ first
  bool isolate = false;          ///< every cell in a child process
  bool fresh_processes = false;  ///< --fresh-process-per-cell: no warm workers
  /// Set by a signal handler: the sweep stops after the running cell.
  std::atomic<int>* interrupted = nullptr;
  /// `--label`: the machine's name in the results and env.json (run_command: the host name).
  std::string label;
  /// `--shard`: this run is part K of N of its grid (env.json records it, `merge` reads it).
  std::optional<Shard> shard;
  /// The number of a search's first new cell (0: after the grid's listed cells); a shard's
  /// probes are numbered apart from every other shard's.
  std::size_t first_probe_index = 0;
  /// `--price`: prices per hour by device kind, over the grid's "prices".
  Prices prices;
  /// `--profile`: this machine's profile, read once from its file (`crossover profile --out`);
  /// none = a quick one measured at the start. env.json records it; every ok cell's bound comes
  /// from it.
  std::shared_ptr<const MachineProfile> profile;
  /// `--predict cuda=FILE`, read once: CUDA cells this machine cannot run are predicted with
  /// that profile's GPU.
  std::shared_ptr<const MachineProfile> predict_cuda;
  /// `--real-data`: a data set whose files are not under data_dir is a refusal, not a synthetic
  /// stand-in.
  bool real_data = false;
};

/// Why a sweep cannot start (bad input, exit 2); the reasons are already logged.
class SweepRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the sweep of `cells` would refuse before it touches anything, logged: --resume with
/// another --out, an output folder that is a link or a file, or holds a run without --overwrite
/// or --resume, a planted load that is not a count, a machine record (CROSSOVER_MACHINE_RECORD)
/// that cannot be used, a data set missing under --real-data; and,
/// as one warning, every data set that will be synthetic and why. `run --dry-run` calls it too,
/// so that the two refuse the same. Throws SweepRefused.
void check_sweep(const SweepOptions& options, const std::vector<Cell>& cells);

}  // namespace crossover
