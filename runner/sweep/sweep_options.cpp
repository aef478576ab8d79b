#include "runner/sweep/sweep_options.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <set>

#include "core/text/text.hpp"
#include "runner/execution/busy_load.hpp"
#include "runner/hardware/counter.hpp"
#include "runner/machine/machine_record.hpp"
#include "runner/sweep/output_dir.hpp"
#include "workloads/data/datasets.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

// Whether `dataset` is read from files under the data directory (not made in memory); a data set
// the catalog does not know reads nothing.
bool reads_files(const std::string& dataset) {
  const DatasetInfo* info = find_dataset(dataset);
  return info != nullptr && info->kind != DatasetKind::kMadeInMemory;
}

// Each data set `cells` read from files that is not under `data_dir`, with why: "mnist (no
// data/mnist: run scripts/fetch-data.sh --download)".
std::vector<std::string> missing_data(const std::vector<Cell>& cells, const std::string& data_dir) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  std::error_code error;
  const bool folder = fs::is_directory(data_dir, error);
  for (const Cell& cell : cells) {
    if (!reads_files(cell.dataset) || !seen.insert(cell.dataset).second) continue;
    const DatasetInfo& d = dataset_info(cell.dataset);
    if (have_dataset_files(d, data_dir)) continue;
    out.push_back(d.name + " (" +
                  (folder ? "no " + (fs::path(data_dir) / d.location).string()
                          : "no data folder " + data_dir) +
                  ": " + d.fetch + ")");
  }
  return out;
}

}  // namespace

void check_sweep(const SweepOptions& options, const std::vector<Cell>& cells) {
  std::error_code error;
  if (!options.resume.empty() && !options.out_dir.empty() &&
      fs::weakly_canonical(options.out_dir, error) != fs::weakly_canonical(options.resume, error)) {
    spdlog::error("--resume {} writes into that directory; drop --out {}", options.resume,
                  options.out_dir);
    throw SweepRefused("--resume with another --out");
  }
  for (const std::string& given : {options.resume, options.out_dir}) {
    if (const Found problem = given.empty() ? std::nullopt : output_folder_problem(given)) {
      spdlog::error("cannot write results to {}: {}", given, problem->text);
      throw SweepRefused(problem->text);
    }
  }
  // A live run's folder is in use, whatever files that run has written yet.
  const std::string& folder = options.resume.empty() ? options.out_dir : options.resume;
  if (const Found problem = folder.empty() ? std::nullopt : in_use_problem(folder)) {
    spdlog::error("{}", problem->text);
    throw SweepRefused(problem->text);
  }
  if (options.resume.empty() && !options.out_dir.empty() && !options.overwrite &&
      holds_run(options.out_dir)) {
    spdlog::error(
        "{} already holds the results of a run; nothing was overwritten. Continue it with "
        "--resume {}, write into another --out, or add --overwrite to move its files into "
        "{}/previous-<time>/ first",
        options.out_dir, options.out_dir, options.out_dir);
    throw SweepRefused("the folder holds a run");
  }
  try {
    (void)planted_load_from_environment();
    (void)planted_slowdown_from_environment();
    (void)planted_work_from_environment();
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    throw SweepRefused(e.what());
  }
  // A counted cell's counter, chosen now: a wrong CROSSOVER_COUNTER, or no counter at all (no
  // hardware counter and no valgrind), refuses the run before anything is measured.
  for (const Cell& cell : cells) {
    if (cell.count == Count::kNone) continue;
    try {
      if (counter_for(cell.count) == CounterKind::kCallgrind)
        (void)callgrind_command(cell.count, "check");
    } catch (const std::exception& e) {
      spdlog::error("{}: {}", cell_label(cell), e.what());
      throw SweepRefused(e.what());
    }
  }
  std::optional<MachineRecord> record;
  try {
    record = machine_record_from_environment();  // read again, and used, by the sweep
  } catch (const std::runtime_error& e) {
    spdlog::error("{}", e.what());
    throw SweepRefused(e.what());
  }
  const std::string& into = options.resume.empty() ? options.out_dir : options.resume;
  if (const Found problem = record ? machine_record_in_output(record->file, into) : std::nullopt) {
    spdlog::error("{}", problem->text);
    throw SweepRefused(problem->text);
  }
  const std::vector<std::string> missing = missing_data(cells, options.data_dir);
  if (missing.empty()) return;
  if (options.real_data) {
    spdlog::error(
        "--real-data: {} not found, and nothing was run. Give --data-dir (or CROSSOVER_DATA_DIR) "
        "the folder scripts/fetch-data.sh filled, or fetch them",
        join(missing, "; "));
    throw SweepRefused("--real-data");
  }
  spdlog::warn(
      "synthetic data will stand in for {}. Give --data-dir (or CROSSOVER_DATA_DIR) the folder "
      "scripts/fetch-data.sh filled, or add --real-data to refuse instead",
      join(missing, "; "));
}

}  // namespace crossover
