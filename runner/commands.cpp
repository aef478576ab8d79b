#include "runner/commands.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "reports/analysis.hpp"
#include "reports/regression.hpp"
#include "reports/report_csv.hpp"
#include "reports/report_gbench.hpp"
#include "reports/report_html.hpp"
#include "reports/report_markdown.hpp"
#include "reports/scaling.hpp"
#include "reports/table.hpp"
#include "runner/busy_load.hpp"
#include "runner/command_support.hpp"
#include "runner/devices.hpp"
#include "runner/env.hpp"
#include "runner/executor.hpp"
#include "runner/grid.hpp"
#include "runner/launch.hpp"
#include "runner/output_dir.hpp"
#include "runner/reference.hpp"
#include "runner/text.hpp"
#include "runner/user_files.hpp"
#include "workloads/catalog.hpp"
#include "workloads/image_files.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

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

// The crossover statements of one comparison as terminal lines.
std::string crossover_text(const CompareSpec& spec, const std::vector<Crossover>& crossovers,
                           bool paired) {
  std::string out =
      "\nCrossovers (" + spec.axis + "=" + spec.baseline + " vs " + spec.contender + "):\n";
  for (const auto& c : crossovers) out += "  " + c.workload + ": " + c.statement + "\n";
  if (!paired) {
    out += "  no pair of cells that ran differs only in " + spec.axis + " (" + spec.baseline +
           " vs " + spec.contender + ")\n";
  }
  return out;
}

// Writes report.md, report.html, results.csv, summary.json and gbench.json for `results` into
// `out_dir`, with one analysis per comparison (the first one is also the top level of
// summary.json); returns the crossover statements, for the terminal.
std::string write_reports(const std::string& out_dir, ReportContext context,
                          const std::vector<Result>& results,
                          const std::vector<CompareSpec>& specs,
                          const nlohmann::json& environment) {
  std::string terminal;
  nlohmann::ordered_json summary;
  nlohmann::ordered_json comparisons = nlohmann::ordered_json::array();
  std::vector<ComparisonFindings> findings;
  for (const CompareSpec& spec : specs) {
    ComparisonFindings f{spec, pair_results(results, spec), {}, {}};
    f.crossovers = find_crossovers(f.pairs, spec);
    f.recommendations = recommend(results, spec, f.crossovers);
    context.analysis += render_analysis_markdown(spec, f.pairs, f.crossovers, f.recommendations);
    comparisons.push_back(analysis_json(spec, f.pairs, f.crossovers, f.recommendations));
    if (findings.empty()) summary = comparisons.back();
    terminal += crossover_text(spec, f.crossovers, !f.pairs.empty());
    findings.push_back(std::move(f));
  }
  write_text_file(out_dir + "/report.html", render_html(context, results, findings));
  write_text_file(out_dir + "/report.md", render_markdown(context, results));
  write_text_file(out_dir + "/results.csv", render_csv(results));
  summary["comparisons"] = comparisons;
  summary["title"] = context.title;
  summary["warnings"] = context.warnings;
  summary["environment"] = context.environment;
  nlohmann::ordered_json not_run = nlohmann::ordered_json::array();
  std::size_t ok = 0;
  for (const auto& r : results) {
    if (r.status == "ok") {
      ++ok;
    } else {
      not_run.push_back({{"cell", r.cell.index},
                         {"workload", r.cell.workload},
                         {"device", r.cell.device},
                         {"status", r.status},
                         {"reason", r.reason}});
    }
  }
  summary["cells"] = {{"total", results.size()}, {"ok", ok}, {"not_run", not_run}};
  summary["scaling"] = scaling_json(results);
  write_text_file(out_dir + "/summary.json", summary.dump(2) + "\n");
  write_text_file(out_dir + "/gbench.json",
                  render_gbench_json(results, environment).dump(2) + "\n");
  return terminal;
}

// What a data set is on this machine: "synthetic" when none of its files are under `data_dir`,
// else "real" with the size and CRC-32 of its files. run records it per data set in env.json, so
// that --resume runs again the cells of a data set that changed since.
std::string dataset_fingerprint(const std::string& dataset, const std::string& data_dir) {
  std::vector<fs::path> files;
  if (dataset == "iris" || dataset == "boston") {
    files.push_back(fs::path(data_dir) / tabular_file(dataset));
  } else {
    std::error_code error;
    for (const auto& entry :
         fs::directory_iterator(fs::path(data_dir) / image_directory(dataset), error)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
  }
  uLong crc = crc32(0L, Z_NULL, 0);
  std::uintmax_t bytes = 0;
  std::vector<char> chunk(1 << 20);
  bool any = false;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) continue;
    any = true;
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
      crc =
          crc32(crc, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(in.gcount()));
      bytes += static_cast<std::uintmax_t>(in.gcount());
    }
  }
  if (!any) return "synthetic";
  char text[64];
  std::snprintf(text, sizeof text, "real %ju bytes crc32 %08lx", bytes, crc);
  return text;
}

// The comparison a --compare option names, or nothing (logged) when it is malformed.
// The comparisons of --compare (each may be given several times); nothing when one is bad.
std::optional<std::vector<CompareSpec>> compare_specs(const std::vector<std::string>& texts) {
  std::vector<CompareSpec> specs;
  try {
    for (const auto& text : texts) specs.push_back(parse_compare(text));
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    return std::nullopt;
  }
  if (specs.empty()) specs.push_back(CompareSpec{});
  return specs;
}

// Runs the baseline and the candidate binary on one grid `rounds` times, alternating which goes
// first (AB BA AB ...), so that a slow drift of the machine weighs on both alike; each side's
// rounds are pooled (compare_runs pools cells that occur several times). A binary that rejects
// the grid throws std::invalid_argument; one that crashes, std::runtime_error.
std::pair<RunRecord, RunRecord> rerun(const CompareArgs& args, const std::string& out_dir) {
  const std::string binaries[2] = {args.baseline, args.candidate};
  const char* sides[2] = {"baseline", "candidate"};
  for (int side = 0; side < 2; ++side) {
    if (access(binaries[side].c_str(), X_OK) != 0 || fs::is_directory(binaries[side])) {
      throw std::invalid_argument("--rerun: the " + std::string(sides[side]) + " " +
                                  binaries[side] + " is not an executable crossover binary");
    }
  }
  if (!fs::is_regular_file(args.rerun))
    throw std::invalid_argument("--rerun: grid " + args.rerun + " does not exist");
  // The rounds' runs never replace an earlier comparison's (each would refuse its --out).
  for (const char* side : sides) {
    const std::string first = out_dir + "/" + side + "/round-1";
    if (holds_run(first)) {
      throw std::invalid_argument(out_dir + " already holds the runs of a comparison (" + first +
                                  "); give another --out");
    }
  }
  RunRecord runs[2];
  for (int round = 1; round <= args.rounds; ++round) {
    for (int k = 0; k < 2; ++k) {
      const int side = round % 2 == 1 ? k : 1 - k;
      const std::string dir = out_dir + "/" + sides[side] + "/round-" + std::to_string(round);
      fs::create_directories(dir);
      spdlog::info("round {}/{}: {} ({}) into {}", round, args.rounds, sides[side], binaries[side],
                   dir);
      const int status = run_program({binaries[side], "run", args.rerun, "--out", dir, "--data-dir",
                                      args.data_dir, "--quiet"});
      if (status == kExitBadInput)
        throw std::invalid_argument(binaries[side] + " rejected " + args.rerun +
                                    " (exit 2); run it alone to see why");
      if (status != kExitOk && status != kExitRunFailed)
        throw std::runtime_error(binaries[side] + " run " + args.rerun + " ended with status " +
                                 std::to_string(status));
      RunRecord one = load_run(dir);
      runs[side].results.insert(runs[side].results.end(), one.results.begin(), one.results.end());
      if (round == 1) runs[side].environment = one.environment;
    }
  }
  for (int side = 0; side < 2; ++side) {
    runs[side].label = binaries[side] + " (" + std::to_string(args.rounds) + " rounds in " +
                       out_dir + "/" + sides[side] + ")";
  }
  return {std::move(runs[0]), std::move(runs[1])};
}

}  // namespace

int report_command(const ReportArgs& args) {
  const auto specs = compare_specs(args.compare);
  if (!specs) return kExitBadInput;
  if (!fs::exists(args.results)) {
    spdlog::error("{} does not exist: give a run's directory or its results.jsonl", args.results);
    return kExitBadInput;
  }
  const std::string file =
      fs::is_directory(args.results) ? args.results + "/results.jsonl" : args.results;
  const fs::path parent = fs::path(file).parent_path();
  const std::string directory = parent.empty() ? "." : parent.string();
  std::vector<Result> results;
  try {
    results = read_results(file);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  const std::string out_dir = args.out_dir.empty() ? directory : args.out_dir;
  ReportContext context;
  context.title = fs::absolute(directory).lexically_normal().filename().string();
  nlohmann::ordered_json record;
  if (fs::exists(directory + "/env.json")) {
    try {
      record = nlohmann::ordered_json::parse(
          read_json_text(directory + "/env.json", kMaxRecordBytes, "an env.json"));
      context.environment = environment_summary(record);
      context.warnings = environment_warnings(record);
    } catch (const std::exception& e) {
      spdlog::warn("{}/env.json: unreadable ({}); the report has no environment section", directory,
                   e.what());
    }
  }
  std::string statements;
  try {
    fs::create_directories(out_dir);
    statements = write_reports(out_dir, context, results, *specs, record);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitRunFailed;
  }
  std::cout << render_comparison_text(results) << statements;
  std::cout << "Reports: " << out_dir
            << "/report.md, report.html, results.csv, summary.json, gbench.json\n";
  return kExitOk;
}

int compare_command(const CompareArgs& args) {
  RegressionOptions options;
  options.threshold = args.threshold_percent / 100.0;
  options.alpha = args.alpha;
  options.metric = args.metric;
  options.fail_on = args.fail_on;
  try {
    check_options(options);
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  RunRecord baseline, candidate;
  std::string markdown = args.markdown, json = args.json;
  try {
    if (args.rerun.empty()) {
      baseline = load_run(args.baseline);
      candidate = load_run(args.candidate);
    } else {
      const std::string out_dir =
          args.out_dir.empty() ? "reports/compare-" + timestamp() : args.out_dir;
      std::tie(baseline, candidate) = rerun(args, out_dir);
      if (markdown.empty()) markdown = out_dir + "/compare.md";
      if (json.empty()) json = out_dir + "/compare.json";
    }
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  } catch (const std::runtime_error& e) {
    spdlog::error("{}", e.what());
    return args.rerun.empty() ? kExitBadInput : kExitRunFailed;
  }

  std::optional<Calibration> calibration;
  if (!args.calibration.empty()) {
    try {
      calibration = calibration_from_json(
          nlohmann::json::parse(
              read_json_text(args.calibration, kMaxRecordBytes, "a calibrate.json")),
          args.calibration);
    } catch (const std::exception& e) {
      spdlog::error("--calibration {}: {}", args.calibration, e.what());
      return kExitBadInput;
    }
  }
  RegressionReport report =
      compare_records(baseline, candidate, options, calibration ? &*calibration : nullptr);
  if (report.cells.empty()) {
    spdlog::error(
        "no cell of {} has the configuration of a cell of {}: are they runs of the same grid?",
        baseline.label, candidate.label);
    return kExitBadInput;
  }
  std::cout << render_regression_text(report);
  for (const auto& d : report.environment) {
    if (d.unfair) spdlog::warn("the runs differ in {}: {} vs {}", d.what, d.baseline, d.candidate);
  }
  try {
    if (!markdown.empty()) write_text_file(markdown, render_regression_markdown(report));
    if (!json.empty()) write_text_file(json, regression_json(report).dump(2) + "\n");
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  }
  std::vector<std::string> written;
  for (const auto& file : {markdown, json}) {
    if (!file.empty()) written.push_back(file);
  }
  if (!written.empty()) std::cout << "Written: " << join(written) << "\n";
  return report.fails() ? kExitRunFailed : kExitOk;
}

int bench_command(const BenchArgs& args) {
  // The benchmark binary is built beside crossover (build/bench/crossover_bench) or installed
  // next to it.
  const fs::path self = fs::path(self_executable()).parent_path();
  std::string binary;
  for (const fs::path& candidate : {self / "bench" / "crossover_bench", self / "crossover_bench"}) {
    if (fs::exists(candidate)) binary = candidate.string();
  }
  if (binary.empty()) {
    spdlog::error(
        "crossover_bench not found beside {}; build it (cmake -DCROSSOVER_ENABLE_BENCH=ON)",
        self.string());
    return kExitBadInput;
  }
  const std::string out_dir = args.out_dir.empty() ? "reports/bench-" + timestamp() : args.out_dir;
  std::error_code error;
  fs::create_directories(out_dir, error);
  if (error) {
    spdlog::error("cannot create {}: {}", out_dir, error.message());
    return kExitBadInput;
  }
  const std::string out_file = out_dir + "/bench.json";
  char min_time[32];
  std::snprintf(min_time, sizeof min_time, "%g", args.min_time);
  std::vector<std::string> argv = {binary, "--benchmark_out=" + out_file,
                                   "--benchmark_out_format=json",
                                   std::string("--benchmark_min_time=") + min_time};
  if (!args.filter.empty()) argv.push_back("--benchmark_filter=" + args.filter);
  spdlog::info("running {} into {}", binary, out_file);
  const int status = run_program(argv);
  if (status != 0) {
    spdlog::error("{} failed ({})", binary,
                  status < 0 ? "could not start" : "exit status " + std::to_string(status));
    return kExitRunFailed;
  }
  std::cout << "Benchmarks: " << out_file << " (Google Benchmark JSON)\n";
  return kExitOk;
}

int validate_command(const std::string& grid_path) {
  const auto loaded = load_and_expand(grid_path);
  if (!loaded) return kExitBadInput;
  const auto& [grid, expansion] = *loaded;
  std::cout << grid_path << ": valid grid \"" << grid.name << "\": " << grid.experiments.size()
            << " experiment(s), " << expansion.cells.size() << " cells";
  if (expansion.excluded > 0) std::cout << " (" << expansion.excluded << " excluded)";
  if (expansion.duplicates > 0) std::cout << " (" << expansion.duplicates << " duplicates dropped)";
  std::cout << "\n";
  return kExitOk;
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
  const std::string out_dir = !args.resume.empty()   ? args.resume
                              : args.out_dir.empty() ? "reports/" + grid.name + "-" + timestamp()
                                                     : args.out_dir;

  // One run at a time writes into a directory, for the whole run (also when it resumes); an
  // earlier run's files are moved aside only when asked.
  std::optional<DirectoryLock> lock;
  try {
    if (args.resume.empty()) fs::create_directories(out_dir);
  } catch (const std::exception& e) {
    spdlog::error("cannot write results to {}: {}", out_dir, e.what());
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
  std::vector<Result> kept;
  std::vector<Cell> to_run = expansion.cells;
  if (!args.resume.empty()) {
    std::vector<Result> before;
    nlohmann::json before_env;
    try {
      before = read_results(args.resume + "/results.jsonl");
      before_env = nlohmann::json::parse(
          read_json_text(args.resume + "/env.json", kMaxRecordBytes, "an env.json"));
    } catch (const std::exception& e) {
      spdlog::error("--resume {}: {} (it must hold results.jsonl and env.json of a run)",
                    args.resume, e.what());
      return kExitBadInput;
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
      return kExitBadInput;
    }
    std::map<std::string, const Result*> done;
    for (const Result& r : before) {
      if (r.status == "ok") done[cell_config_json(r.cell).dump()] = &r;
    }
    // A data set that changed (fetched, replaced, or missing now) makes its cells run again.
    std::set<std::string> changed_data;
    for (const auto& [dataset, now] : record["datasets"].items()) {
      const auto then = before_env.contains("datasets") ? before_env["datasets"].value(dataset, "")
                                                        : std::string();
      if (then == now.get<std::string>()) continue;
      changed_data.insert(dataset);
      spdlog::warn("--resume {}: data set {} changed ({} then, {} now): its cells run again",
                   args.resume, dataset, then.empty() ? "not recorded" : then,
                   now.get<std::string>());
    }
    to_run.clear();
    for (const Cell& cell : expansion.cells) {
      const auto it = done.find(cell_config_json(cell).dump());
      if (it == done.end() || changed_data.count(cell.dataset) != 0) {
        to_run.push_back(cell);
        continue;
      }
      kept.push_back(*it->second);
      kept.back().cell = cell;  // its place in the grid as it is now
    }
    spdlog::info("resuming {}: {} cell(s) already ok, {} to run", args.resume, kept.size(),
                 to_run.size());
  }

  std::unique_ptr<ResultFiles> files;
  try {
    fs::create_directories(out_dir);
    if (const std::string problem = space_problem(out_dir, expansion.cells.size());
        !problem.empty()) {
      spdlog::error("{}", problem);
      return kExitBadInput;
    }
    files = std::make_unique<ResultFiles>(out_dir);
    for (const Result& r : kept) files->append(r);
    fs::copy_file(args.grid, out_dir + "/grid.json", fs::copy_options::overwrite_existing);
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
  write_text_file(out_dir + "/env.json", record.dump(2) + "\n");

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
    if (r.status != "ok" && r.status != "failed") return;
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
        std::string outcome = r.status;
        if (r.status == "ok") {
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
    write_text_file(out_dir + "/env.json", record.dump(2) + "\n");
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
  for (const auto& r : results) failed += r.status == "failed" ? 1 : 0;
  if (failed > 0)
    spdlog::error("{} of {} cells failed; see the reasons above and in report.md", failed,
                  results.size());
  if (interrupted.load() > 0) return kExitInterrupted;
  return failed > 0 || write_failed ? kExitRunFailed : kExitOk;
}

int list_command(const std::string& data_dir) {
  TextTable workloads;
  workloads.header = {"workload", "seed",  "model",  "datasets", "optimizer",
                      "lr",       "batch", "epochs", "loader",   "MFLOP/sample"};
  workloads.right_aligned = {false, false, false, false, false, true, true, true, false, true};
  for (const auto& w : workload_catalog()) {
    workloads.rows.push_back({w.name, w.seed, w.model, join(w.datasets), w.optimizer,
                              format_number(w.lr), size_text(w.batch_size),
                              std::to_string(w.epochs), w.loader,
                              format_number(w.flops_per_sample / 1e6)});
  }
  std::cout
      << "Workloads (defaults as in their seed; MFLOP/sample: analytical, one training step)\n"
      << render_text_table(workloads) << "\n";
  for (const auto& w : workload_catalog()) std::cout << "  " << w.name << ": " << w.notes << "\n";

  const DeviceInventory inventory = probe_devices();
  std::cout << "\nDevices\n  cpu\n";
  for (int i = 0; i < inventory.cuda_devices; ++i) std::cout << "  cuda:" << i << "\n";
  if (!inventory.cuda_compiled) {
    std::cout << "  (no CUDA: this build's LibTorch has none)\n";
  } else if (inventory.cuda_devices == 0) {
    std::cout << "  (CUDA compiled in, but no CUDA device found)\n";
  }

  const std::string missing = "missing: synthetic data will be used (run scripts/fetch-data.sh)";
  std::cout << "\nData sets under " << data_dir << "/\n";
  for (const auto& dataset : {"iris", "boston"}) {
    const std::string path = data_dir + "/" + tabular_file(dataset);
    std::cout << "  " << dataset << ": " << (fs::exists(path) ? path : missing) << "\n";
  }
  for (const auto& dataset : {"mnist", "fashion_mnist", "cifar10"}) {
    const std::string path = data_dir + "/" + image_directory(dataset);
    const std::string fetch = std::string(dataset) == "fashion_mnist" ? "" : " --download";
    std::cout << "  " << dataset << ": "
              << (have_image_files(dataset, data_dir)
                      ? path + "/"
                      : "missing: synthetic data will be used (run scripts/fetch-data.sh" + fetch +
                            ")")
              << "\n";
  }
  return kExitOk;
}

int env_command(bool json) {
  const auto record = environment_record(true);
  if (json) {
    std::cout << record.dump(2) << "\n";
  } else {
    for (const auto& line : environment_summary(record)) std::cout << line << "\n";
  }
  for (const auto& w : environment_warnings(record)) spdlog::warn("{}", w);
  return kExitOk;
}

}  // namespace crossover
