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
#include "runner/execution/executor.hpp"
#include "runner/grid/grid.hpp"
#include "runner/hardware/devices.hpp"
#include "runner/machine/machine_record.hpp"
#include "runner/sweep/output_dir.hpp"
#include "runner/sweep/resume.hpp"
#include "runner/sweep/sweep_options.hpp"

namespace crossover {

/// What a sweep leaves.
struct SweepOutcome {
  std::vector<Result> results;  ///< the kept cells and the new ones, in grid order
  /// The searches' state (searches.json): per line its probes, bracket and statement.
  nlohmann::ordered_json searches = nlohmann::ordered_json::array();
  bool write_failed = false;  ///< a result, env.json or the like could not be written
};

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
  void in_grid_order(SweepOutcome& outcome) const;
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
  std::optional<MachineRecord> reused_;  ///< CROSSOVER_MACHINE_RECORD's record, checked
  int planted_load_ = 0;
  double planted_slowdown_ = 0.0;
  double planted_work_ = 0.0;
  Prices prices_;                                  // the grid's, with --price over them
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
