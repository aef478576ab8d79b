// crossover history: runs of one grid over time, each cell's series of epoch medians and where it
// shifted (reports/gate/history.hpp). history.json holds the series, so one more run is appended
// without reading the earlier ones again.
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "core/files/file_writer.hpp"
#include "core/files/run_files.hpp"
#include "core/files/user_files.hpp"
#include "core/text/text.hpp"
#include "reports/gate/history.hpp"
#include "reports/gate/regression.hpp"
#include "reports/gate/run_drift.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/sweep/output_dir.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

struct HistoryArgs {
  std::vector<std::string> runs;
  std::string out_dir;
  std::string append;  ///< --append RUN
  std::string into;    ///< --into DIR
  std::string order;   ///< --order FILE: commits, oldest first
  std::string calibration;
  double threshold = -1.0;  ///< percent; below 0: not given
  bool fail_on_change = false;
  bool overwrite = false;  ///< --out may hold a history: move it aside
  bool fail_on_suspect = false;
};

// Why a run's machine was not quiet, from its env.json: a load average above its cores at the
// start, or a reference that moved more than a fifth within the run; "" when neither.
std::string busy_machine_text(const Environment& env) {
  std::vector<std::string> why;
  const auto& load = env.cpu.load_average;
  const auto cores = env.cpu.logical_cores;
  if (!load.empty() && cores && *cores > 0 && load.front() > static_cast<double>(*cores))
    why.push_back("load " + format_number(load.front()) + " on " + std::to_string(*cores) +
                  " cores");
  const double furthest = furthest_drift(drifted_cells(env));
  if (furthest != 1.0)
    why.push_back("its reference moved " + format_percent(furthest - 1.0) + " within the run");
  return join(why, "; ");
}

// A run of the history from its folder and env.json: its name, commit, start and machine.
HistoryRun history_run(const std::string& path, const RunRecord& record) {
  HistoryRun run;
  fs::path folder = fs::path(path).lexically_normal();
  if (folder.filename() == kResultsFile) folder = folder.parent_path();
  if (folder.filename().empty()) folder = folder.parent_path();
  run.name = folder.string();
  const Environment none;
  const Environment& env = record.environment ? *record.environment : none;
  run.commit = env.crossover_revision;
  if (run.commit.empty()) run.commit = env.label;
  if (run.commit.empty()) run.commit = "unknown";
  run.recorded_at = env.recorded_at;
  run.machine = busy_machine_text(env);
  if (record.environment) run.setup = timing_setup(env);
  return run;
}

// The commits of an --order file, one a line, oldest first.
std::vector<std::string> order_commits(const std::string& order_file) {
  std::istringstream lines(read_user_file(order_file, kMaxRecordBytes, "an --order file"));
  std::vector<std::string> commits;
  for (std::string line; std::getline(lines, line);) {
    line.erase(std::remove_if(line.begin(), line.end(),
                              [](unsigned char c) { return std::isspace(c) != 0; }),
               line.end());
    if (!line.empty()) commits.push_back(line);
  }
  return commits;
}

// A run still running has no point yet, and a history that took it would refuse it once it ended:
// throws a CommandError (bad input) saying so.
void refuse_running(const std::string& path) {
  const std::string dir = fs::is_directory(path) ? path : fs::path(path).parent_path().string();
  or_exit<std::runtime_error>(
      kExitBadInput, [&] { ReadingLock running(dir.empty() ? "." : dir); }, "",
      ": add it to the history when it ends, with its every cell measured");
}

// A run appended to a history whose cells it shares only in part: said, since the rows it adds
// cannot be told from the history's own.
void warn_about_another_grid(const History& history, const std::string& path,
                             const std::vector<Result>& results) {
  std::set<std::string> known;
  // Compared as plain JSON: a stored history's keys may come back in another order.
  for (const HistoryCell& cell : history.cells) known.insert(nlohmann::json(cell.identity).dump());
  std::size_t shared = 0, cells = 0;
  std::set<std::string> seen;
  for (const Result& r : results) {
    const std::string identity = nlohmann::json(cell_identity_json(r.cell)).dump();
    if (!seen.insert(identity).second) continue;
    ++cells;
    shared += known.count(identity);
  }
  if (known.empty() || shared == cells) return;
  spdlog::warn(
      "{} shares {} of its {} cell(s) with the history: a run of another grid; its other cells "
      "start series of their own",
      path, shared, cells);
}

// The runs read and put in order: by --order's commits, else by when each started.
History read_runs(const HistoryArgs& args) {
  std::vector<std::pair<HistoryRun, RunRecord>> runs;
  std::set<std::pair<dev_t, ino_t>> files;  // each results file once, whatever its name
  std::map<std::string, int> names_given;
  const auto started = std::chrono::steady_clock::now();
  auto said = started;
  for (const std::string& path : args.runs) {
    // Past two seconds (about 5,000 runs here), a line every two seconds says how far it is.
    if (const auto now = std::chrono::steady_clock::now();
        now - started > std::chrono::seconds(2) && now - said > std::chrono::seconds(2)) {
      said = now;
      spdlog::info("read {} of {} runs", runs.size(), args.runs.size());
    }
    refuse_running(path);
    RunRecord record = load_run(path);
    HistoryRun run = history_run(path, record);
    // One run given twice (its folder and its results.jsonl) is refused; two runs of one folder
    // name (a nightly job's) are told apart.
    const std::string file = fs::is_directory(path) ? run_file(path, kResultsFile) : path;
    struct stat info {};
    if (stat(file.c_str(), &info) == 0 && !files.emplace(info.st_dev, info.st_ino).second)
      throw std::invalid_argument(path + " is given twice; give each run once");
    if (const int same = ++names_given[run.name]; same > 1) run.name += " #" + std::to_string(same);
    runs.emplace_back(std::move(run), std::move(record));
  }
  for (const std::string& warning : mixed_run_warnings(runs, !args.order.empty()))
    spdlog::warn("{}", warning);
  std::vector<HistoryRun> names;
  for (const auto& run : runs) names.push_back(run.first);
  std::vector<std::size_t> rank(runs.size(), 0);
  if (!args.order.empty())
    rank = or_exit<std::invalid_argument>(
        kExitBadInput, [&] { return commit_positions(order_commits(args.order), names); },
        "--order " + args.order + " ");
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (rank[a] != rank[b]) return rank[a] < rank[b];
    const bool dated_a = is_recorded_time(runs[a].first.recorded_at);
    const bool dated_b = is_recorded_time(runs[b].first.recorded_at);
    if (dated_a != dated_b) return dated_a;  // an undated run after the dated ones, as given
    return dated_a && runs[a].first.recorded_at < runs[b].first.recorded_at;
  });
  History history;
  for (std::size_t i : order) append_run(history, runs[i].first, runs[i].second.results);
  return history;
}

// Each cell's threshold: --threshold, else twice the cell's run-to-run spread in --calibration,
// else 5 %.
void set_thresholds(History& history, const HistoryArgs& args) {
  std::optional<Calibration> calibration;
  if (!args.calibration.empty()) {
    calibration = calibration_from_json(
        read_json_file(args.calibration, kMaxRecordBytes, "a calibrate.json"), args.calibration);
  }
  for (HistoryCell& cell : history.cells) {
    cell.threshold = 0.05;
    if (args.threshold >= 0.0) {
      cell.threshold = args.threshold / 100.0;
    } else if (calibration) {
      if (const CellCalibration* c = calibration->find(cell.identity))
        cell.threshold = std::exp(2.0 * c->epoch.sigma) - 1.0;
    }
  }
}

int history_command(const HistoryArgs& args) {
  const bool appending = !args.append.empty();
  const std::string out =
      appending ? args.into : (args.out_dir.empty() ? "runs/history-" + timestamp() : args.out_dir);
  History history;
  // One command at a time in a history's folder: two appends at once would each write the
  // history read before the other's run, and lose it.
  std::optional<DirectoryLock> lock;
  or_exit(kExitBadInput, [&] {
    if (appending) {
      check_real_folder(args.into, "--into");
      or_exit(
          kExitBadInput, [&] { lock.emplace(args.into); }, "--into ");
      const std::string file = args.into + "/history.json";
      const auto json = read_json_file(file, kMaxRecordBytes, "a history.json");
      history = or_exit(
          kExitBadInput, [&] { return history_from_json(json); }, file + ": ");
      refuse_running(args.append);
      RunRecord record = load_run(args.append);
      warn_about_another_grid(history, args.append, record.results);
      append_run(history, history_run(args.append, record), record.results);
    } else {
      history = read_runs(args);
    }
    set_thresholds(history, args);
  });
  find_changes(history);
  if (!appending) {
    // The lock first, then the look at what the folder holds: of two commands writing one
    // folder at once, the second is refused (exit 2) whichever comes first.
    or_exit(
        kExitBadInput,
        [&] {
          if (const Found problem = output_folder_problem(out))
            throw std::invalid_argument(problem->text);
          fs::create_directories(out);
          lock.emplace(out);
          if (fs::exists(out + "/history.json") && !args.overwrite)
            throw std::invalid_argument(
                "holds a history already; `--append RUN --into " + out +
                "` adds one run to it, and --overwrite moves its files into previous-<timestamp>/");
          if (fs::exists(out + "/history.json"))
            spdlog::info("moved the earlier history's files into {}",
                         move_previous(out, timestamp(), history_file_names()));
        },
        "--out " + out + ": ", "; nothing was written");
  }
  or_exit(kExitRunFailed, [&] {
    // history.json last: when a report cannot be written, the stored history is not advanced,
    // and the same --append can be tried again.
    write_text_file(out + "/history.md", render_history_markdown(history));
    write_text_file(out + "/history.html", render_history_html(history));
    write_text_file(out + "/history.json", json_text(history_json(history), 2) + "\n");
  });
  std::cout << render_history_markdown(history) << "Written: " << out
            << "/history.json, history.md, history.html\n";
  int slower = 0, suspect = 0;
  for (const HistoryCell& cell : history.cells) {
    slower += newest_slowdown(cell) ? 1 : 0;
    suspect += newest_suspect(cell) ? 1 : 0;
  }
  if (args.fail_on_change && slower > 0) return kExitRunFailed;
  return args.fail_on_suspect && suspect > 0 ? kExitRunFailed : kExitOk;
}

}  // namespace

Command add_history_command(CLI::App& subcommand) {
  auto args = std::make_shared<HistoryArgs>();
  CLI::App* history = &subcommand;
  CLI::Option* runs =
      history->add_option("runs", args->runs, "The runs' folders (or results.jsonl)");
  add_output_option(*history, "--out", args->out_dir,
                    "Where history.json, .md and .html go (default runs/history-<timestamp>)",
                    OutputKind::kFolder)
      ->excludes(add_output_option(*history, "--into", args->into,
                                   "With --append: the folder of the history to extend",
                                   OutputKind::kFolder));
  history->add_flag("--overwrite", args->overwrite,
                    "--out may hold a history: move its files into previous-<timestamp>/ there "
                    "(as run --overwrite does)");
  CLI::Option* append = history->add_option(
      "--append", args->append, "Add this one run to the history in --into, as its newest");
  append->excludes(runs);
  history->get_option("--into")->needs(append);
  append->needs(history->get_option("--into"));
  history
      ->add_option("--order", args->order,
                   "A file of commits, oldest first (git rev-list --reverse HEAD): the runs' "
                   "order (default: when each run started)")
      ->excludes(append);
  history
      ->add_option("--threshold", args->threshold,
                   "A slowdown larger than this, in percent, is one (default: twice each "
                   "cell's run-to-run spread in --calibration, else 5)")
      ->check(finite_range(0.0, 1000.0));
  history->add_option("--calibration", args->calibration,
                      "calibrate.json of this runner: each cell's threshold from its spread");
  history->add_flag("--fail-on-change", args->fail_on_change,
                    "Exit 1 when a cell's newest segment is slower than the one before it by "
                    "more than its threshold");
  history->add_flag("--fail-on-suspect", args->fail_on_suspect,
                    "Exit 1 also when a cell is suspect: its newest run(s) slower than the runs "
                    "before them by more than its threshold (or three times their spread, where "
                    "that is larger), too few for a change point yet. The nightly recipe uses it "
                    "with --fail-on-change, so that a slowdown fails the night it lands");
  return {history, [args] {
            if (args->runs.empty() && args->append.empty()) {
              spdlog::error("crossover history needs runs, or --append RUN --into DIR");
              return kExitBadInput;
            }
            return history_command(*args);
          }};
}

}  // namespace crossover
