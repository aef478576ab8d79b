#pragma once
// A sweep: the cells of a grid, run one at a time into an output folder. Planning checks what can
// be known to fail before the first cell — the folder, its lock, an earlier run there, the
// environment, the data sets, --resume's plan, the free space — and writes the run's first files;
// running measures the cells, times the reference around each, and hands every result to the
// per-cell outputs (results.jsonl and results.csv, the progress line) as it comes. Logs with
// spdlog; no LibTorch in this header.

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/costmodel/machine_profile.hpp"
#include "core/records/result_files.hpp"
#include "core/records/results.hpp"
#include "runner/distributed/shard.hpp"
#include "runner/hardware/devices.hpp"
#include "runner/execution/executor.hpp"
#include "runner/grid/grid.hpp"
#include "runner/sweep/output_dir.hpp"
#include "runner/sweep/resume.hpp"

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

/// What a sweep leaves.
struct SweepOutcome {
  std::vector<Result> results;  ///< the kept cells and the new ones, in grid order
  /// The searches' state (searches.json): per line its probes, bracket and statement.
  nlohmann::ordered_json searches = nlohmann::ordered_json::array();
  bool write_failed = false;  ///< a result, env.json or the like could not be written
};

/// What the sweep of `cells` would refuse before it touches anything, logged: --resume with
/// another --out, an output folder that is a link or a file, or holds a run without --overwrite
/// or --resume, a planted load that is not a count, a data set missing under --real-data; and,
/// as one warning, every data set that will be synthetic and why. `run --dry-run` calls it too,
/// so that the two refuse the same. Throws SweepRefused.
void check_sweep(const SweepOptions& options, const std::vector<Cell>& cells);

/// A planned sweep, holding its folder's lock until it is destroyed.
class Sweep {
 public:
  /// Plans the sweep of `expansion` (the cells of `grid`, each planned: plan_expansion); throws
  /// SweepRefused, logged.
  Sweep(SweepOptions options, const Grid& grid, const Expansion& expansion,
        DeviceInventory inventory);
  ~Sweep();
  Sweep(const Sweep&) = delete;
  Sweep& operator=(const Sweep&) = delete;

  /// Runs the planned cells; every result goes to the files and the progress line as it comes.
  SweepOutcome run();

  const std::string& out_dir() const { return out_dir_; }
  /// The environment record (env.json), with the reference timings once run.
  const Environment& record() const { return record_; }
  /// What in the environment makes the figures untrustworthy, as sentences.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void open_output(const std::string& grid_name);
  void record_environment(const Expansion& expansion);
  void write_first_files(const Grid& grid, std::size_t cells);
  /// `cells` (of the expansion) with the plans decided for them.
  std::vector<PlannedCell> planned(const std::vector<Cell>& cells) const;
  void run_searches(const RunOptions& options, const ResultCallback& on_result,
                    const std::function<void(const std::vector<PlannedCell>&)>& expect,
                    SweepOutcome& outcome);

  SweepOptions options_;
  DeviceInventory inventory_;
  std::string grid_name_;
  std::vector<SearchLine> searches_;
  std::size_t grid_cells_ = 0;  ///< the grid's listed cells; probes are numbered after them
  std::string out_dir_;
  std::optional<DirectoryLock> lock_;
  int planted_load_ = 0;
  double planted_slowdown_ = 0.0;
  Prices prices_;  // the grid's, with --price over them
  std::shared_ptr<const MachineProfile> profile_;  ///< --profile's, or measured at the start
  Environment record_;
  std::vector<std::string> warnings_;
  ResumePlan plan_;
  std::map<std::size_t, CellPlan> cell_plans_;  ///< the expansion's plans, by cell index
  std::unique_ptr<ResultFiles> files_;
};

/// The cells of a planned grid (plan_expansion), each with "run", "predict" (run --predict, a CUDA
/// cell this machine lacks) or "skip: <reason>", and their counts: `run --dry-run`.
std::string dry_run_text(const Expansion& expansion);

/// What a data set is on this machine: "synthetic" when none of its files are under `data_dir`,
/// "real <bytes> bytes crc32 <crc>" of its files, or "unreadable: <why>" (a FIFO, a device, a file
/// over the limit: never a hang). env.json records it, so that --resume runs again the cells of a
/// data set that changed.
std::string dataset_fingerprint(const std::string& dataset, const std::string& data_dir);

}  // namespace crossover
