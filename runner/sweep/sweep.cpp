#include "runner/sweep/sweep.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <set>

#include "core/files/file_writer.hpp"
#include "core/files/run_files.hpp"
#include "core/files/user_files.hpp"
#include "core/text/text.hpp"
#include "reports/render/reporter.hpp"
#include "reports/render/table_writer.hpp"
#include "runner/distributed/shard.hpp"
#include "runner/execution/busy_load.hpp"
#include "runner/execution/executor.hpp"
#include "runner/execution/reference.hpp"
#include "runner/hardware/counter.hpp"
#include "runner/machine/env.hpp"
#include "runner/machine/machine_record.hpp"
#include "runner/machine/profile_measure.hpp"
#include "runner/sweep/progress_line.hpp"
#include "runner/sweep/search_run.hpp"
#include "workloads/data/datasets.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

// results.jsonl and results.csv: each result appended and synced as it comes. After a write
// failed (the error went to the sweep) it writes nothing more.
class ResultAppender : public Reporter {
 public:
  explicit ResultAppender(ResultFiles& files) : files_(files) {}
  void cell(const Result& r) override {
    if (failed_) return;
    failed_ = true;  // stays set when append throws
    files_.append(r);
    failed_ = false;
  }

 private:
  ResultFiles& files_;
  bool failed_ = false;
};

// The run's folder, created: --resume's, --out's, or a new runs/<grid name>-<time> (with
// -2, -3, ... when a run started in the same second took that name). Throws std::runtime_error.
std::string create_output(const SweepOptions& options, const std::string& grid_name) {
  for (const std::string& given : {options.resume, options.out_dir}) {
    if (const Found problem = given.empty() ? std::nullopt : output_folder_problem(given))
      throw std::runtime_error(problem->text);
  }
  if (!options.resume.empty()) return options.resume;
  if (!options.out_dir.empty()) {
    fs::create_directories(options.out_dir);
    return options.out_dir;
  }
  return create_unique_directory("runs/" + grid_name + "-" + timestamp());
}

// Says what was planted to check a gate (CROSSOVER_PLANT_LOAD, _SLOWDOWN, _WORK).
void warn_planted(int load, double slowdown, double work) {
  if (work > 0)
    spdlog::warn("{}={}: every timed epoch does {} % more work (a planted regression)",
                 kPlantWorkVariable, work, format_number(100 * work));
  if (load > 0)
    spdlog::warn("{}={}: {} busy process(es) compete with the cells (a planted slowdown)",
                 kPlantLoadVariable, load, load);
  if (slowdown > 0)
    spdlog::warn("{}={}: every timed epoch spins for {} % more of its time (a planted regression)",
                 kPlantSlowdownVariable, slowdown, format_number(100 * slowdown));
}

// What counts the counted cells, and why that counter ("" when none is counted).
std::string counter_record(const Expansion& expansion) {
  for (std::size_t i = 0; i < expansion.cells.size(); ++i) {
    const Cell& cell = expansion.cells[i];
    if (cell.count == Count::kNone ||
        (i < expansion.plans.size() && expansion.plans[i].action != CellPlan::Action::kRun))
      continue;
    const CounterKind kind = counter_for(cell.count);
    if (kind == CounterKind::kPerf) return "perf: the CPU's counter of user-space instructions";
    const Found perf = perf_unavailable_reason();
    const char* forced = std::getenv(kCounterVariable);
    return "callgrind: " + valgrind_path() + " (" +
           (cell.count == Count::kCycles ? std::string("count \"cycles\"")
            : forced != nullptr && parse_word<CounterKind>(forced) == CounterKind::kCallgrind
                ? std::string(kCounterVariable) + "=callgrind"
                : "no hardware counter: " + (perf ? perf->text : "none found")) +
           ")";
  }
  return "";
}

}  // namespace

std::string dry_run_text(const Expansion& expansion) {
  TextTable table;
  table.header = {"#", "cell", "epochs", "repeats", "would", "why"};
  std::vector<std::string> ids;
  const auto repeats = [](const Cell& c) {
    return c.min_repeats == c.max_repeats
               ? std::to_string(c.min_repeats)
               : std::to_string(c.min_repeats) + "-" + std::to_string(c.max_repeats);
  };
  std::size_t runnable = 0, predicted = 0;
  for (std::size_t i = 0; i < expansion.cells.size(); ++i) {
    const Cell& cell = expansion.cells[i];
    const CellPlan& plan = expansion.plans.at(i);
    runnable += plan.action == CellPlan::Action::kRun ? 1 : 0;
    predicted += plan.action == CellPlan::Action::kPredict ? 1 : 0;
    table.rows.push_back({std::to_string(cell.index), cell_label(cell), std::to_string(cell.epochs),
                          repeats(cell), text_of(plan.action), plan.reason});
    ids.push_back(std::to_string(cell.index));
  }
  // A reason many cells share is said once, under the table.
  footnote_column(table, 5, ids);
  std::string text =
      (expansion.cells.empty() ? "" : render_text_table(table)) +
      std::to_string(expansion.cells.size()) + " cells: " + std::to_string(runnable) +
      " would run, " + (predicted > 0 ? std::to_string(predicted) + " would be predicted, " : "") +
      std::to_string(expansion.cells.size() - runnable - predicted) + " would be skipped";
  if (expansion.excluded > 0)
    text += "; " + std::to_string(expansion.excluded) + " excluded by rules";
  if (expansion.duplicates > 0)
    text += "; " + std::to_string(expansion.duplicates) + " duplicates dropped";
  if (expansion.folded > 0) text += "; " + folded_cells_text(expansion.folded);
  text += "\n";
  for (const SearchLine& line : expansion.searches) {
    text += "search experiments[" + std::to_string(line.experiment) + "]" +
            (line.fixed.empty() ? "" : " (" + line.fixed + ")") + ": " + line.spec.compare +
            " along " + line.spec.key + " from " + format_axis_value(line.spec.from) + " to " +
            format_axis_value(line.spec.to) + ", precision " +
            format_percent(line.spec.precision, false) + ": at most " +
            std::to_string(line.spec.max_probes) + " probes (" +
            std::to_string(2 * line.spec.max_probes) + " cells)";
    for (const auto& [cell, plan] : {std::pair{&line.baseline, &line.baseline_plan},
                                     std::pair{&line.contender, &line.contender_plan}}) {
      if (plan->action == CellPlan::Action::kPredict) {
        text += "; its " + cell->device.text() + " probes would be predicted (" + plan->reason +
                "), and so would its statement";
        break;
      }
      if (plan->action == CellPlan::Action::kSkip) {
        text +=
            "; would stop at its first probe: " + cell_label(*cell) + " skipped: " + plan->reason;
        break;
      }
    }
    text += "\n";
  }
  if (!expansion.searches.empty()) {
    text += std::to_string(expansion.searches.size()) + " search(es): at most " +
            std::to_string(2 * most_probes(expansion.searches)) +
            " cells more, fewer when probes share cells or a search ends early\n";
  }
  return text;
}

std::string dataset_fingerprint(const std::string& dataset, const std::string& data_dir) {
  const DatasetInfo* info = find_dataset(dataset);
  if (info == nullptr) return "synthetic";
  const DatasetFiles found = dataset_files(*info, data_dir);
  const std::vector<std::string>& files = found.paths;
  if (files.empty()) return "synthetic";
  uLong crc = crc32(0L, Z_NULL, 0);
  std::uint64_t bytes = 0;
  try {
    for (const auto& file : files) {
      read_user_file_chunks(
          file, found.max_bytes, "a data file", [&](const char* data, std::size_t size) {
            crc = crc32(crc, reinterpret_cast<const Bytef*>(data), static_cast<uInt>(size));
            bytes += size;
          });
    }
  } catch (const UserFileError& e) {
    spdlog::warn("data set {}: {}; its cells will fail with this reason", dataset, e.what());
    return std::string("unreadable: ") + e.what();
  }
  char text[64];
  std::snprintf(text, sizeof text, "real %ju bytes crc32 %08lx", static_cast<std::uintmax_t>(bytes),
                crc);
  return text;
}

// The machine record this run reuses (CROSSOVER_MACHINE_RECORD), checked against this machine.
static std::optional<MachineRecord> reused_machine_record() {
  std::optional<MachineRecord> reused;
  try {
    reused = machine_record_from_environment();
  } catch (const std::runtime_error& e) {
    spdlog::error("{}", e.what());
    throw SweepRefused(e.what());
  }
  if (!reused) return reused;
  if (const Found mismatch = machine_record_mismatch(machine_identity(), *reused)) {
    spdlog::error("{}", mismatch->text);
    throw SweepRefused(mismatch->text);
  }
  return reused;
}

Sweep::Sweep(SweepOptions options, const Grid& grid, const Expansion& expansion,
             DeviceInventory inventory)
    : options_(std::move(options)),
      inventory_(std::move(inventory)),
      grid_name_(grid.name),
      searches_(expansion.searches),
      grid_cells_(options_.first_probe_index > 0 ? options_.first_probe_index
                                                 : expansion.cells.size()) {
  check_sweep(options_, expansion.cells);
  reused_ = reused_machine_record();  // before the folder: a record refused leaves nothing
  open_output(grid.name);
  try {
    planted_load_ = planted_load_from_environment();
    planted_slowdown_ = planted_slowdown_from_environment();
    planted_work_ = planted_work_from_environment();
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    throw SweepRefused(e.what());
  }
  prices_ = grid.prices;
  for (const auto& [kind, price] : options_.prices) prices_[kind] = price;
  profile_ = options_.profile;
  record_environment(expansion);
  if (expansion.plans.size() != expansion.cells.size())
    throw std::logic_error("Sweep: the expansion's cells are not planned (plan_expansion)");
  for (std::size_t i = 0; i < expansion.cells.size(); ++i)
    cell_plans_[expansion.cells[i].index] = expansion.plans[i];
  // --resume: the cells already ok in the folder are kept, if the environment is the same.
  plan_.to_run = expansion.cells;
  if (!options_.resume.empty()) {
    ResumeRequest request{options_.resume, grid.file, options_.shard, {}};
    for (std::size_t i = 0; i < expansion.cells.size(); ++i)
      if (expansion.plans[i].action == CellPlan::Action::kSkip)
        request.skipped_here.insert(expansion.cells[i].index);
    auto resumed = plan_resume(request, expansion, record_);
    if (!resumed) throw SweepRefused("--resume refused");
    plan_ = std::move(*resumed);
  }
  write_first_files(grid, expansion.cells.size());
}

Sweep::~Sweep() = default;

// One run at a time writes into a folder, for the whole run (also when it resumes); an earlier
// run's files are moved aside only when asked.
void Sweep::open_output(const std::string& grid_name) {
  try {
    out_dir_ = create_output(options_, grid_name);
  } catch (const std::exception& e) {
    const std::string& given = !options_.resume.empty() ? options_.resume : options_.out_dir;
    spdlog::error("cannot write results to {}: {}", given.empty() ? "runs/" : given, e.what());
    throw SweepRefused(e.what());
  }
  try {
    std::error_code error;  // a --resume of nothing fails later, saying so
    if (fs::is_directory(out_dir_, error)) lock_.emplace(out_dir_);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    throw SweepRefused(e.what());
  }
  if (!options_.resume.empty() || !holds_run(out_dir_)) return;
  if (!options_.overwrite) {  // check_sweep said why; a run begun there since is refused alike
    spdlog::error("{} already holds the results of a run; nothing was overwritten", out_dir_);
    throw SweepRefused("the folder holds a run");
  }
  try {
    spdlog::info("moved the earlier run's files into {}", move_previous_run(out_dir_, timestamp()));
  } catch (const std::exception& e) {
    spdlog::error("--overwrite: {}", e.what());
    throw SweepRefused(e.what());
  }
}

void Sweep::record_environment(const Expansion& expansion) {
  const std::optional<MachineRecord>& reused = reused_;
  record_ = environment_record(!reused);
  if (reused) reuse_machine_record(record_, *reused);
  // This machine's profile: the cost model's constants for every cell's bound.
  if (!profile_)
    profile_ =
        std::make_shared<const MachineProfile>(reused ? *reused->env.profile : measure_profile({}));
  record_.profile = *profile_;
  record_.profile_file = profile_->file;
  if (options_.predict_cuda) {
    record_.predicted_with = *options_.predict_cuda;
    record_.predicted_with_file = options_.predict_cuda->file;
  }
  if (!reused) record_.reference.before = measure_reference();
  record_.planted_load = planted_load_;
  record_.planted_slowdown = planted_slowdown_;
  record_.planted_work = planted_work_;
  record_.counter = counter_record(expansion);
  // How isolated cells ran (each result's `worker` says which process ran it).
  record_.isolation =
      options_.fresh_processes ? "a fresh process per isolated cell" : "warm workers";
  record_.label = options_.label;
  record_.prices = prices_;
  if (options_.shard)
    record_.shard =
        ShardRecord{options_.shard->index, options_.shard->count, options_.shard->source};
  std::set<std::string> fingerprinted;
  for (const Cell& cell : expansion.cells) {
    if (fingerprinted.insert(cell.dataset).second)
      record_.datasets.emplace_back(cell.dataset,
                                    dataset_fingerprint(cell.dataset, options_.data_dir));
  }
  warnings_ = environment_warnings(record_);
  for (const auto& w : warnings_) spdlog::warn("{}", w);
}

void Sweep::write_first_files(const Grid& grid, std::size_t cells) {
  try {
    if (const Found problem = space_problem(out_dir_, cells)) {
      spdlog::error("{}", problem->text);
      throw SweepRefused(problem->text);
    }
    // Each replaced whole or not at all: a run killed here leaves the earlier files as they were.
    files_ = std::make_unique<ResultFiles>(out_dir_, plan_.kept);
    write_text_file(run_file(out_dir_, kGridFile), grid.text);
    write_text_file(run_file(out_dir_, kEnvFile), json_text(environment_json(record_), 2) + "\n");
  } catch (const SweepRefused&) {
    throw;
  } catch (const std::exception& e) {
    spdlog::error("cannot write results to {}: {}", out_dir_, e.what());
    throw SweepRefused(e.what());
  }
}

std::vector<PlannedCell> Sweep::planned(const std::vector<Cell>& cells) const {
  std::vector<PlannedCell> out;
  for (const Cell& cell : cells) out.push_back({cell, cell_plans_.at(cell.index)});
  return out;
}

namespace {
// The sweep stops after the running cell: said once, with how to go on.
void warn_stopped(int signal, const std::string& out_dir) {
  const bool sigint = signal == SIGINT;
  spdlog::warn(
      "{}: the cells after this one are not run; the reports are written for what "
      "finished, and the same run with --resume {} runs the rest{}",
      sigint ? "interrupted" : "stopped (SIGTERM)", out_dir,
      sigint ? " (Ctrl-C again stops at once)" : "");
}
}  // namespace

SweepOutcome Sweep::run() {
  spdlog::info("running {} cells of {} into {}{}", plan_.to_run.size(), grid_name_, out_dir_,
               options_.predict_cuda
                   ? predicted_cells_line(planned(plan_.to_run), options_.predict_cuda->name)
                   : "");
  RunOptions options;
  options.data_dir = options_.data_dir;
  options.interrupted = options_.interrupted;
  options.isolate = options_.isolate;
  options.fresh_processes = options_.fresh_processes;
  options.workers = make_worker_pool(options);
  options.prices = prices_;
  options.profile = profile_;
  options.predict_cuda = options_.predict_cuda;
  for (const auto& [words, gflops] : record_.peak_gflops)  // env.json's words, as it writes them
    if (const std::optional<Device> device = parse_device(words))
      options.peak_gflops[*device] = gflops;
  warn_planted(planted_load_, planted_slowdown_, planted_work_);
  BusyLoad load(planted_load_);
  // The reference is timed again after every cell that ran, so that each cell has the machine's
  // speed just before and just after it (env.json: reference.cells.<index>).
  std::optional<ReferenceTimes> last_reference = record_.reference.before;
  const auto time_reference_after = [&](const Result& r) {
    if (r.status != CellStatus::kOk && r.status != CellStatus::kFailed) return;
    if (!record_.machine_record.empty()) return;  // the reused reference stands
    load.pause();
    const ReferenceTimes now = measure_reference();
    load.resume();
    record_.reference.set_around(r.cell.index, {last_reference, now});
    last_reference = now;
  };
  SweepOutcome outcome;
  // The per-cell outputs, in order: the result files, then the progress line.
  std::vector<std::unique_ptr<Reporter>> outputs;
  outputs.push_back(std::make_unique<ResultAppender>(*files_));
  const std::vector<PlannedCell> to_run = planned(plan_.to_run);
  auto progress_line = std::make_unique<ProgressLine>(to_run);
  ProgressLine* progress = progress_line.get();
  outputs.push_back(std::move(progress_line));
  bool announced = false;
  const ResultCallback on_result = [&](const Result& r) {
    time_reference_after(r);
    for (const auto& output : outputs) {
      try {
        output->cell(r);
      } catch (const std::exception& e) {
        // The results before this one are on disk; the next cells would be measured for
        // nothing, so the sweep stops here (a signal that came first keeps its meaning).
        spdlog::error("{}; the sweep stops after this cell", e.what());
        outcome.write_failed = true;
        int none = 0;
        if (options_.interrupted != nullptr)
          options_.interrupted->compare_exchange_strong(none, kStopWriteFailed);
      }
    }
    if (options_.interrupted != nullptr && options_.interrupted->load() > 0 && !announced) {
      announced = true;
      warn_stopped(options_.interrupted->load(), out_dir_);
    }
  };
  outcome.results = run_cells(to_run, options, on_result);
  if (!searches_.empty()) {
    run_searches(
        options, on_result, [&](const std::vector<PlannedCell>& cells) { progress->add(cells); },
        outcome);
  }
  load.stop();
  // How fast the machine was after the last cell: with the first, how much it moved in the run.
  record_.reference.after = last_reference;
  try {
    write_text_file(run_file(out_dir_, kEnvFile), json_text(environment_json(record_), 2) + "\n");
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    outcome.write_failed = true;
  }
  in_grid_order(outcome);
  return outcome;
}

// The reports cover the whole grid: the kept cells and the new ones, in grid order; a resumed
// run's files too (the kept cells were written first, the new ones after them), both replaced
// at once.
void Sweep::in_grid_order(SweepOutcome& outcome) const {
  outcome.results.insert(outcome.results.end(), plan_.kept.begin(), plan_.kept.end());
  std::stable_sort(outcome.results.begin(), outcome.results.end(),
                   [](const Result& a, const Result& b) { return a.cell.index < b.cell.index; });
  if (plan_.kept.empty()) return;
  try {
    ResultFiles in_order(out_dir_, outcome.results);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    outcome.write_failed = true;
  }
}

// The searches after the listed cells: each probe's new cells run as any cell (`expect` tells the
// progress line they come), the searches' state rewritten after every probe (an interrupted run
// keeps its trace).
void Sweep::run_searches(const RunOptions& options, const ResultCallback& on_result,
                         const std::function<void(const std::vector<PlannedCell>&)>& expect,
                         SweepOutcome& outcome) {
  std::vector<Result> known = plan_.kept;
  known.insert(known.end(), outcome.results.begin(), outcome.results.end());
  SearchRunner searches(searches_, known, grid_cells_);
  searches.run(
      [&](const std::vector<Cell>& cells) {
        // A probe's cells are made as the search goes, and planned as they are made.
        const std::vector<PlannedCell> probe =
            plan_cells(cells, inventory_, options.predict_cuda != nullptr);
        expect(probe);
        return run_cells(probe, options, on_result);
      },
      [&](const nlohmann::ordered_json& state) {
        outcome.searches = state;
        try {
          write_text_file(out_dir_ + "/searches.json", json_text(state, 2) + "\n");
        } catch (const std::exception& e) {
          spdlog::error("{}", e.what());
          outcome.write_failed = true;
        }
      },
      options_.interrupted);
  outcome.results.insert(outcome.results.end(), searches.measured().begin(),
                         searches.measured().end());
}

}  // namespace crossover
