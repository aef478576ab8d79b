// crossover run: every cell of a grid, one at a time, into a results directory, then the reports.
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "core/results_csv.hpp"
#include "core/text.hpp"
#include "core/user_files.hpp"
#include "reports/regression.hpp"
#include "reports/table.hpp"
#include "runner/busy_load.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/write_reports.hpp"
#include "runner/devices.hpp"
#include "runner/env.hpp"
#include "runner/executor.hpp"
#include "runner/output_dir.hpp"
#include "runner/reference.hpp"
#include "workloads/catalog.hpp"
#include "workloads/image_files.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

struct RunArgs {
  std::string grid;
  std::string out_dir;  ///< "" = reports/<grid name>-<timestamp>
  std::string data_dir = "data";
  bool dry_run = false;
  bool isolate = false;  ///< every cell in a child process
  std::string resume;  ///< a results directory of an earlier run of this grid: run what is missing
  bool overwrite = false;  ///< move an earlier run's files in out_dir into previous-<time>/ first
  /// AXIS=BASELINE:CONTENDER comparisons for the crossover analysis, each reported in turn
  std::vector<std::string> compare = {"device=cpu:cuda"};
};

int dry_run(const Expansion& expansion, const DeviceInventory& inventory) {
  TextTable table;
  table.header = {"#", "cell", "epochs", "repeats", "would"};
  const auto repeats = [](const Cell& c) {
    return c.min_repeats == c.max_repeats
               ? std::to_string(c.min_repeats)
               : std::to_string(c.min_repeats) + "-" + std::to_string(c.max_repeats);
  };
  std::size_t runnable = 0;
  for (const Cell& cell : expansion.cells) {
    const auto reason = skip_reason(cell, inventory);
    runnable += reason ? 0 : 1;
    table.rows.push_back({std::to_string(cell.index), cell_label(cell), std::to_string(cell.epochs),
                          repeats(cell), reason ? "skip: " + *reason : "run"});
  }
  std::cout << render_text_table(table);
  std::cout << expansion.cells.size() << " cells: " << runnable << " would run, "
            << expansion.cells.size() - runnable << " would be skipped";
  if (expansion.excluded > 0) std::cout << "; " << expansion.excluded << " excluded by rules";
  if (expansion.duplicates > 0) std::cout << "; " << expansion.duplicates << " duplicates dropped";
  std::cout << "\n";
  return kExitOk;
}

// What a data set is on this machine: "synthetic" when none of its files are under `data_dir`,
// else "real" with the size and CRC-32 of its files. run records it per data set in env.json, so
// that --resume runs again the cells of a data set that changed since. Files are read through the
// checked reader: a FIFO, a device or a file over the limit is "unreadable: ..." (with a warning),
// never a hang; the cells that need it then fail with the same reason.
std::string dataset_fingerprint(const std::string& dataset, const std::string& data_dir) {
  std::vector<std::string> files;
  const bool tabular = dataset == "iris" || dataset == "boston";
  if (tabular) {
    const std::string file = data_dir + "/" + tabular_file(dataset);
    if (access(file.c_str(), F_OK) == 0) files.push_back(file);
  } else {
    std::error_code error;
    for (const auto& entry :
         fs::directory_iterator(fs::path(data_dir) / image_directory(dataset), error)) {
      std::error_code is_folder;
      if (!entry.is_directory(is_folder)) files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
  }
  if (files.empty()) return "synthetic";
  uLong crc = crc32(0L, Z_NULL, 0);
  std::uint64_t bytes = 0;
  try {
    for (const auto& file : files) {
      read_user_file_chunks(file, tabular ? kMaxCsvBytes : kMaxImageFileBytes, "a data file",
                            [&](const char* data, std::size_t size) {
                              crc = crc32(crc, reinterpret_cast<const Bytef*>(data),
                                          static_cast<uInt>(size));
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

// The run's directory, created: --resume's, --out's, or a new reports/<grid name>-<time> (with
// -2, -3, ... when a run started in the same second took that name). Throws std::runtime_error.
std::string create_output(const RunArgs& args, const Grid& grid) {
  if (!args.resume.empty()) return args.resume;
  if (!args.out_dir.empty()) {
    fs::create_directories(args.out_dir);
    return args.out_dir;
  }
  return create_unique_directory("reports/" + grid.name + "-" + timestamp());
}

// Up to five of `items`, then how many more.
std::string some_of(const std::vector<std::string>& items) {
  std::vector<std::string> shown(
      items.begin(),
      items.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(items.size(), 5)));
  std::string text = join(shown, "; ");
  if (items.size() > shown.size())
    text += "; and " + std::to_string(items.size() - shown.size()) + " more";
  return text;
}

// What --resume keeps of a run and what it runs again.
struct ResumePlan {
  std::vector<Result> kept;  ///< ok cells measured before, at their place in the grid now
  std::vector<Cell> to_run;
};

// The cells of `expansion` that --resume DIR keeps, when the environment is the same and the grid
// covers every result in DIR; nothing (logged) when it must refuse. The kept cells' reference
// timings go into `record`.
std::optional<ResumePlan> plan_resume(const RunArgs& args, const Expansion& expansion,
                                      nlohmann::ordered_json& record) {
  std::vector<Result> before;
  nlohmann::json before_env;
  try {
    before = read_results(args.resume + "/results.jsonl");
    before_env = nlohmann::json::parse(
        read_json_text(args.resume + "/env.json", kMaxRecordBytes, "an env.json"));
  } catch (const std::exception& e) {
    spdlog::error("--resume {}: {} (it must hold results.jsonl and env.json of a run)", args.resume,
                  e.what());
    return std::nullopt;
  }
  bool changed = false;
  for (const auto& d : environment_differences(before_env, record, false)) {
    spdlog::log(d.unfair ? spdlog::level::err : spdlog::level::warn,
                "--resume {}: the environment changed: {}: {} then, {} now", args.resume, d.what,
                d.baseline, d.candidate);
    changed |= d.unfair;
  }
  if (changed) {
    spdlog::error(
        "--resume {}: results from different environments would be mixed; run the "
        "grid into a new directory instead",
        args.resume);
    return std::nullopt;
  }
  // Every result already there must have its cell in the grid: resuming rewrites the file, and
  // what the grid does not name would be lost.
  std::set<std::string> in_grid;
  for (const Cell& cell : expansion.cells) in_grid.insert(cell_identity_json(cell).dump());
  std::vector<std::string> dropped;
  for (const Result& r : before) {
    if (in_grid.count(cell_identity_json(r.cell).dump()) == 0)
      dropped.push_back("cell " + std::to_string(r.cell.index) + " (" + cell_label(r.cell) + ", " +
                        status_text(r.status) + ")");
  }
  if (!dropped.empty()) {
    spdlog::error(
        "--resume {}: the grid {} does not have {} of the {} cell(s) in {}/results.jsonl, and "
        "resuming would drop them: {}. Nothing was changed; resume with the grid the run saved "
        "({}/grid.json), or run this grid into a new directory",
        args.resume, args.grid, dropped.size(), before.size(), args.resume, some_of(dropped),
        args.resume);
    return std::nullopt;
  }
  // Matched on identity keys: what is measured. A cell measured with other policy or
  // protection settings is kept as it was measured, and said so.
  std::map<std::string, const Result*> done;
  for (const Result& r : before) {
    if (r.status == CellStatus::kOk) done[cell_identity_json(r.cell).dump()] = &r;
  }
  // A data set that changed (fetched, replaced, or missing now) makes its cells run again.
  std::set<std::string> changed_data;
  for (const auto& [dataset, now] : record["datasets"].items()) {
    const auto then =
        before_env.contains("datasets") ? before_env["datasets"].value(dataset, "") : std::string();
    if (then == now.get<std::string>()) continue;
    changed_data.insert(dataset);
    spdlog::warn("--resume {}: data set {} changed ({} then, {} now): its cells run again",
                 args.resume, dataset, then.empty() ? "not recorded" : then,
                 now.get<std::string>());
  }
  const nlohmann::json no_reference;
  const nlohmann::json& references =
      before_env.contains("reference") && before_env["reference"].contains("cells")
          ? before_env["reference"]["cells"]
          : no_reference;
  ResumePlan plan;
  for (const Cell& cell : expansion.cells) {
    const auto it = done.find(cell_identity_json(cell).dump());
    if (it == done.end() || changed_data.count(cell.dataset) != 0) {
      plan.to_run.push_back(cell);
      continue;
    }
    plan.kept.push_back(*it->second);
    Result& kept = plan.kept.back();
    const auto changed_keys = measuring_differences(kept.cell, cell);
    if (!changed_keys.empty()) {
      spdlog::warn(
          "--resume {}: cell {} ({}) is kept as measured, with other policy or protection "
          "settings than the grid's now ({}); run the grid into a new directory to measure "
          "it with them",
          args.resume, cell.index, cell_label(cell), join(changed_keys, "; "));
    }
    // The machine's speed around it, as it was measured.
    const std::string then = std::to_string(kept.cell.index);
    if (references.is_object() && references.contains(then))
      record["reference"]["cells"][std::to_string(cell.index)] = references[then];
    // Its place in the grid as it is now; the settings it was measured with.
    kept.cell.index = cell.index;
    kept.cell.experiment = cell.experiment;
  }
  spdlog::info("resuming {}: {} cell(s) already ok, {} to run", args.resume, plan.kept.size(),
               plan.to_run.size());
  return plan;
}

int run_command(const RunArgs& args) {
  const auto loaded = load_and_expand(args.grid);
  if (!loaded) return kExitBadInput;
  const auto& [grid, expansion] = *loaded;
  const DeviceInventory inventory = probe_devices();
  if (args.dry_run) return dry_run(expansion, inventory);
  const auto specs = compare_specs(args.compare);
  if (!specs) return kExitBadInput;

  // Everything that can be known to fail is checked before the first cell runs.
  if (!args.resume.empty() && !args.out_dir.empty() &&
      fs::weakly_canonical(args.out_dir) != fs::weakly_canonical(args.resume)) {
    spdlog::error("--resume {} writes into that directory; drop --out {}", args.resume,
                  args.out_dir);
    return kExitBadInput;
  }

  // One run at a time writes into a directory, for the whole run (also when it resumes); an
  // earlier run's files are moved aside only when asked.
  std::string out_dir;
  std::optional<DirectoryLock> lock;
  try {
    out_dir = create_output(args, grid);
  } catch (const std::exception& e) {
    spdlog::error("cannot write results to {}: {}",
                  args.resume.empty() && args.out_dir.empty() ? "reports/" : args.out_dir,
                  e.what());
    return kExitBadInput;
  }
  try {
    if (fs::is_directory(out_dir)) lock.emplace(out_dir);  // a --resume of nothing fails below
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  if (args.resume.empty() && holds_run(out_dir)) {
    if (!args.overwrite) {
      spdlog::error(
          "{} already holds the results of a run; nothing was overwritten. Continue it with "
          "--resume {}, write into another --out, or add --overwrite to move its files into "
          "{}/previous-<time>/ first",
          out_dir, out_dir, out_dir);
      return kExitBadInput;
    }
    try {
      spdlog::info("moved the earlier run's files into {}",
                   move_previous_run(out_dir, timestamp()));
    } catch (const std::exception& e) {
      spdlog::error("--overwrite: {}", e.what());
      return kExitBadInput;
    }
  }
  int planted_load = 0;
  try {
    planted_load = planted_load_from_environment();
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  auto record = environment_record(true);
  record["reference"]["before"] = measure_reference();
  if (planted_load > 0) record["planted_load"] = planted_load;
  for (const Cell& cell : expansion.cells) {
    if (!record["datasets"].contains(cell.dataset))
      record["datasets"][cell.dataset] = dataset_fingerprint(cell.dataset, args.data_dir);
  }
  const auto warnings = environment_warnings(record);
  for (const auto& w : warnings) spdlog::warn("{}", w);

  // --resume: the cells already ok in DIR are kept, not run again, if the environment is the same.
  ResumePlan plan{{}, expansion.cells};
  if (!args.resume.empty()) {
    auto resumed = plan_resume(args, expansion, record);
    if (!resumed) return kExitBadInput;
    plan = std::move(*resumed);
  }
  const std::vector<Result>& kept = plan.kept;
  const std::vector<Cell>& to_run = plan.to_run;

  std::unique_ptr<ResultFiles> files;
  try {
    if (const std::string problem = space_problem(out_dir, expansion.cells.size());
        !problem.empty()) {
      spdlog::error("{}", problem);
      return kExitBadInput;
    }
    // Each replaced whole or not at all: a run killed here leaves the earlier files as they were.
    files = std::make_unique<ResultFiles>(out_dir, kept);
    write_text_file(out_dir + "/grid.json", grid.text);
    write_text_file(out_dir + "/env.json", json_text(record, 2) + "\n");
  } catch (const std::exception& e) {
    spdlog::error("cannot write results to {}: {}", out_dir, e.what());
    return kExitBadInput;
  }
  if (!fs::is_directory(args.data_dir)) {
    spdlog::warn(
        "data directory {} does not exist: workloads will use synthetic data "
        "(run scripts/fetch-data.sh for the real data sets)",
        args.data_dir);
  }

  spdlog::info("running {} cells of {} into {}", to_run.size(), grid.name, out_dir);
  const auto start = std::chrono::steady_clock::now();
  RunOptions options;
  options.data_dir = args.data_dir;
  if (record.contains("peak_gflops")) {
    for (const auto& [device, gflops] : record["peak_gflops"].items())
      options.peak_gflops[device] = gflops;
  }
  bool write_failed = false;
  // The ETA counts only cells that will run: skipped ones take no time.
  std::vector<bool> will_run;
  for (const Cell& cell : to_run) will_run.push_back(!skip_reason(cell, inventory));
  const auto runnable = [&](std::size_t from, std::size_t to) {
    return static_cast<double>(std::count(will_run.begin() + static_cast<std::ptrdiff_t>(from),
                                          will_run.begin() + static_cast<std::ptrdiff_t>(to),
                                          true));
  };
  options.interrupted = &interrupted;
  options.isolate = args.isolate;
  catch_interrupts();
  if (planted_load > 0)
    spdlog::warn("{}={}: {} busy process(es) compete with the cells (a planted slowdown)",
                 kPlantLoadVariable, planted_load, planted_load);
  BusyLoad load(planted_load);
  // The reference is timed again after every cell that ran, so that each cell has the machine's
  // speed just before and just after it (env.json: reference.cells.<index>).
  nlohmann::ordered_json last_reference = record["reference"]["before"];
  const auto time_reference_after = [&](const Result& r) {
    if (r.status != CellStatus::kOk && r.status != CellStatus::kFailed) return;
    load.pause();
    nlohmann::ordered_json now = measure_reference();
    load.resume();
    record["reference"]["cells"][std::to_string(r.cell.index)] = {{"before", last_reference},
                                                                  {"after", now}};
    last_reference = std::move(now);
  };
  bool announced = false;
  std::vector<Result> results = run_cells(
      to_run, inventory, options, [&](const Result& r, std::size_t done, std::size_t total) {
        time_reference_after(r);
        try {
          if (!write_failed) files->append(r);
        } catch (const std::exception& e) {
          // The results before this one are on disk; the next cells would be measured for
          // nothing, so the sweep stops here (a signal that came first keeps its meaning).
          spdlog::error("{}; the sweep stops after this cell", e.what());
          write_failed = true;
          int none = 0;
          interrupted.compare_exchange_strong(none, kStopWriteFailed);
        }
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double ran = runnable(0, done);
        const double eta = ran > 0 ? elapsed / ran * runnable(done, total) : 0.0;
        std::string outcome = status_text(r.status);
        if (r.status == CellStatus::kOk) {
          outcome += " " + format_seconds(r.epoch_seconds) + "/epoch, " + r.metric + " " +
                     format_number(r.metric_value);
          if (r.data_source == "synthetic") outcome += " (synthetic data)";
        } else {
          outcome += ": " + r.reason;
        }
        spdlog::info("[{}/{}] {}: {} | elapsed {} ETA {}", done, total, cell_label(r.cell), outcome,
                     clock_text(elapsed), clock_text(eta));
        if (interrupted.load() > 0 && !announced) {
          announced = true;
          spdlog::warn(
              "interrupted: the cells after this one are not run; the reports are "
              "written for what finished (interrupt again to stop at once)");
        }
      });
  load.stop();
  // How fast the machine was after the last cell: with the first, how much it moved in the run.
  record["reference"]["after"] = last_reference;
  try {
    write_text_file(out_dir + "/env.json", json_text(record, 2) + "\n");
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    write_failed = true;
  }
  if (!kept.empty()) {
    // The reports cover the whole grid: the kept cells and the new ones, in grid order.
    results.insert(results.end(), kept.begin(), kept.end());
    std::stable_sort(results.begin(), results.end(),
                     [](const Result& a, const Result& b) { return a.cell.index < b.cell.index; });
  }

  ReportContext context;
  context.title = grid.name;
  context.description = grid.description;
  context.environment = environment_summary(record);
  context.warnings = warnings;
  std::string statements;
  try {
    statements = write_reports(out_dir, context, results, *specs, record);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    write_failed = true;
  }

  std::cout << render_comparison_text(results) << statements;
  std::cout << "Reports: " << out_dir
            << "/report.md, report.html, summary.json, results.jsonl, results.csv, gbench.json, "
               "env.json\n";
  std::size_t failed = 0;
  for (const auto& r : results) failed += r.status == CellStatus::kFailed ? 1 : 0;
  if (failed > 0)
    spdlog::error("{} of {} cells failed; see the reasons above and in report.md", failed,
                  results.size());
  if (interrupted.load() > 0) return kExitInterrupted;
  return failed > 0 || write_failed ? kExitRunFailed : kExitOk;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run =
      app.add_subcommand("run", "Run every cell of a grid and write results and reports");
  run->add_option("grid", args->grid, "Grid file (JSON)")->required();
  run->add_option("--out", args->out_dir,
                  "Results directory (default reports/<grid name>-<timestamp>, -2, -3, ... when "
                  "taken)");
  run->add_option("--data-dir", args->data_dir, "Where the data sets are (default data)");
  run->add_option("--compare", args->compare,
                  "AXIS=BASELINE:CONTENDER for the crossover analysis (default device=cpu:cuda); "
                  "give it again for more comparisons, e.g. --compare device=cpu:cuda --compare "
                  "threads=1:0")
      ->allow_extra_args(false)
      ->take_all();
  run->add_option("--resume", args->resume,
                  "Continue an interrupted run in its directory: keep the cells already ok there "
                  "(same configuration, same environment), run the rest; refused when the grid "
                  "lacks cells the run measured (DIR/grid.json is the grid as run)");
  run->add_flag("--overwrite", args->overwrite,
                "When --out already holds a run's results, move its files into "
                "OUT/previous-<time>/ and run; without it such a directory is refused")
      ->excludes("--resume");
  run->add_flag("--isolate", args->isolate,
                "Run every cell in a child process, so that a crash or a hang costs only that "
                "cell (the default for CUDA cells and cells with timeout_seconds)");
  run->add_flag("--dry-run", args->dry_run,
                "List the cells that would run or be skipped, and run nothing");

  return {run, [args] { return run_command(*args); }};
}

}  // namespace crossover
