#include "runner/cli/command_support.hpp"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/files/run_files.hpp"
#include "core/files/user_files.hpp"
#include "core/process/child.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/execution/launch.hpp"
#include "runner/grid/grid_file.hpp"
#include "runner/grid/grid_overrides.hpp"

namespace crossover {

namespace fs = std::filesystem;

std::atomic<int> interrupted{0};

namespace {
// A SIGTERM is never taken back by a SIGINT after it: the run stops now, not after the cell.
extern "C" void on_interrupt(int signal) {
  if (signal == SIGTERM || interrupted.load() != SIGTERM) interrupted.store(signal);
}
}  // namespace

void catch_interrupts() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // A second SIGINT (Ctrl-C again) stops at once: the handler is taken back after the first.
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
  // A SIGTERM often comes twice: timeout(1) sends it to the run and then to its process group,
  // and a scheduler may repeat it. The handler stays, so that the second cannot kill the run
  // before it has said why it stops and kept what finished (on a 16-core GPU host it did).
  action.sa_flags = 0;
  sigaction(SIGTERM, &action, nullptr);
}

namespace {

// What run_program's wait forwards: the signals this process was sent while its child ran.
std::atomic<int> forward_signal{0};
extern "C" void on_signal_to_forward(int signal) {
  forward_signal.store(signal);
  if (signal == SIGTERM || interrupted.load() != SIGTERM) interrupted.store(signal);
}

// For the wait of one child: SIGINT and SIGTERM are noted (every one, for the child), never the
// end of this process before its child; the handlers before it come back after.
class ForwardSignals {
 public:
  ForwardSignals() {
    struct sigaction action {};
    action.sa_handler = on_signal_to_forward;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &int_);
    sigaction(SIGTERM, &action, &term_);
  }
  ~ForwardSignals() {
    sigaction(SIGINT, &int_, nullptr);
    sigaction(SIGTERM, &term_, nullptr);
  }
  ForwardSignals(const ForwardSignals&) = delete;
  ForwardSignals& operator=(const ForwardSignals&) = delete;

 private:
  struct sigaction int_ {
  }, term_{};
};

}  // namespace

int run_program(std::vector<std::string> argv, const std::string& stdout_file,
                const std::vector<std::string>& extra_environment, double timeout_seconds,
                const std::string& stderr_file) {
  ChildSpec spec;
  spec.argv = std::move(argv);
  spec.environment = extra_environment;
  spec.stdout_file = stdout_file;
  spec.stderr_file = stderr_file;
  const ForwardSignals forwarding;
  forward_signal.store(0);
  const pid_t child = start_child(spec);
  if (child < 0) return -1;
  // Waits, passing on each SIGINT and SIGTERM this process gets to the child's group, and past
  // `timeout_seconds` stops it (SIGTERM, then SIGKILL 10 s later).
  const auto started = std::chrono::steady_clock::now();
  bool timed_out = false;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0 && errno != EINTR) return -1;
    if (const int sig = forward_signal.exchange(0); sig != 0) kill(-child, sig);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (timeout_seconds > 0.0 && seconds > timeout_seconds && !timed_out) {
      timed_out = true;
      kill(-child, SIGTERM);
    }
    if (timed_out && seconds > timeout_seconds + 10.0) kill(-child, SIGKILL);
    usleep(20000);
  }
  return timed_out ? kChildTimedOut : shell_status(status);
}

void say_new_warnings(const std::string& path, std::set<std::string>& said) {
  std::string text;
  if (problem_of([&] { text = read_user_file(path, 16 << 20, "a child's log"); })) return;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("warning: ", 0) != 0 && line.rfind("error: ", 0) != 0) continue;
    if (said.insert(line).second) std::cerr << terminal_text(line) << "\n";
  }
}

Found why_not_a_run(const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) {
    if (fs::exists(run_file(path, kResultsFile), error)) return std::nullopt;
    std::vector<std::string> runs;
    std::size_t looked = 0;
    for (auto it = fs::directory_iterator(path, error);
         !error && it != fs::directory_iterator() && ++looked <= 10000; it.increment(error)) {
      std::error_code ignored;  // an entry that cannot be examined is no run
      if (it->is_directory(ignored) && fs::exists(it->path() / kResultsFile, ignored))
        runs.push_back(it->path().filename().string());
    }
    std::sort(runs.begin(), runs.end());
    std::string text = path + " holds no results.jsonl: it is not a run's folder";
    if (runs.empty()) return Problem(text);
    const std::size_t more = runs.size() > 10 ? runs.size() - 10 : 0;
    runs.resize(runs.size() - more);
    return Problem(text + "; the runs in it: " + join(runs) +
                   (more > 0 ? " and " + std::to_string(more) + " more" : "") +
                   " (give one, or join a sharded run's parts with crossover merge)");
  }
  bool grid = false;  // a grid given where a run belongs; not JSON at all: read_results says why
  (void)problem_of([&] {
    const auto json = nlohmann::json::parse(read_json_text(path, kMaxGridBytes, "a grid"));
    grid = json.is_object() && json.contains("experiments");
  });
  if (grid)
    return Problem(path + " is a grid, not a run's results: run it (crossover run " + path +
                   "), then give the run's folder");
  return std::nullopt;
}

RunRecord load_run(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status))
    throw std::runtime_error(path +
                             (error && error != std::errc::no_such_file_or_directory
                                  ? " cannot be read (" + error.message() + ")"
                                  : " does not exist") +
                             ": give a results.jsonl or the directory holding it");
  const std::string file = fs::is_directory(status) ? run_file(path, kResultsFile) : path;
  RunRecord run;
  run.label = path;
  if (const Found unreadable =
          problem_of<std::runtime_error>([&] { run.results = read_results(file); })) {
    const Found why = why_not_a_run(path);  // a folder of runs, or a grid, said as such
    throw std::runtime_error(why ? why->text : unreadable->text);
  }
  const fs::path env = fs::path(file).parent_path() / kEnvFile;
  if (fs::exists(fs::symlink_status(env, error))) {  // a link too: refused with its name
    const Found unreadable = problem_of([&] {
      const auto document = nlohmann::ordered_json::parse(
          read_json_text(env.string(), kMaxRecordBytes, "an env.json"));
      if (!document.is_object())
        throw std::runtime_error(std::string("the document is ") + document.type_name() +
                                 ", expected an object");
      run.environment = environment_from_json(document, env.string());
    });
    if (unreadable) {
      spdlog::warn("{}: unreadable ({}); the environments are not compared", env.string(),
                   unreadable->text);
      run.environment.reset();
    }
  }
  return run;
}

RegressionOptions gate_options(double threshold_percent, double alpha, const std::string& metric,
                               double assumed_spread_percent, const std::string& fail_on) {
  RegressionOptions options;
  options.threshold = threshold_percent / 100.0;
  options.assumed_spread = assumed_spread_percent / 100.0;
  options.alpha = alpha;
  or_exit<std::invalid_argument>(kExitBadInput, [&] {
    // The options' words are checked by CLI11 before they come here; a caller's are here.
    const auto metric_word = parse_word<GateMetric>(metric);
    const auto fail_word = parse_word<FailOn>(fail_on);
    if (!metric_word)
      throw std::invalid_argument("--metric must be one of " + join(word_list<GateMetric>()) +
                                  ", got " + metric);
    if (!fail_word)
      throw std::invalid_argument("--fail-on must be one of " + join(word_list<FailOn>()) +
                                  ", got " + fail_on);
    options.metric = *metric_word;
    options.fail_on = *fail_word;
    check_options(options);
  });
  return options;
}

bool required_devices_measured(const std::vector<std::string>& devices,
                               const std::vector<Result>& results, const std::string& whose) {
  bool measured_all = true;
  for (const std::string& device : devices) {
    std::size_t cells = 0, measured = 0;
    std::string why;
    for (const Result& r : results) {
      if (text_of(r.cell.device.kind) != device) continue;
      ++cells;
      if (r.status == CellStatus::kOk)
        ++measured;
      else if (why.empty())
        why = std::string("; the first was ") + text_of(r.status) + ": " + r.reason;
    }
    if (measured > 0) continue;
    measured_all = false;
    spdlog::error("--require {}: {} measured no {} cell ({}{})", device, whose, device,
                  cells == 0 ? "the grid has none" : std::to_string(cells) + " cell(s), none ok",
                  why);
  }
  return measured_all;
}

std::string checkout_dir() {
  fs::path dir;
  if (problem_of([&] { dir = fs::path(self_executable()).parent_path(); })) return "";
  std::error_code error;
  for (int up = 0; up < 4 && !dir.empty() && dir != dir.root_path();
       ++up, dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / "scripts" / "fetch-data.sh", error)) return dir.string();
  }
  return "";
}

std::string default_data_dir() {
  std::error_code error;
  if (fs::is_directory("data", error)) return "data";
  const std::string checkout = checkout_dir();
  if (!checkout.empty() && fs::is_directory(fs::path(checkout) / "data", error))
    return (fs::path(checkout) / "data").string();
  return "data";
}

std::vector<ShippedProfile> shipped_profiles() {
  std::vector<fs::path> folders;
  (void)problem_of([&] {  // no path to this binary: the checkout's folder alone
    const fs::path bin = fs::path(self_executable()).parent_path();
    folders = {bin / "profiles", bin / ".." / "share" / "crossover" / "profiles"};
  });
  if (const std::string checkout = checkout_dir(); !checkout.empty())
    folders.push_back(fs::path(checkout) / "profiles");
  std::vector<ShippedProfile> out;
  std::error_code error;
  for (const fs::path& folder : folders) {
    if (!fs::is_directory(folder, error)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder, error))
      if (entry.path().extension() == ".json" && fs::is_regular_file(entry.symlink_status(error)))
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files)
      out.push_back({file.stem().string().substr(0, file.stem().string().find('-')),
                     file.lexically_normal().string()});
    if (!out.empty()) break;  // the first folder that has them
  }
  return out;
}

bool is_profile_path(const std::string& given) {
  return given.find('/') != std::string::npos ||
         (given.size() > 5 && given.compare(given.size() - 5, 5, ".json") == 0);
}

std::string find_profile(const std::string& given) {
  std::error_code error;
  if (is_profile_path(given)) return given;
  const bool here = fs::exists(fs::symlink_status(given, error));
  const auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  const std::vector<ShippedProfile> shipped = shipped_profiles();
  std::vector<std::string> names;
  for (const ShippedProfile& p : shipped) {
    // A bare name is the shipped profile, whatever this folder holds of that name.
    if (lower(given) == p.name || lower(given) == fs::path(p.path).stem().string()) {
      static std::set<std::string> warned;  // once a name, however often it is looked up
      if (here && warned.insert(given).second)
        spdlog::warn(
            "{} names the shipped profile {}; this folder has a {} of that name too: give "
            "./{} to read that instead",
            given, p.path, fs::is_directory(given, error) ? "folder" : "file", given);
      return p.path;
    }
    names.push_back(p.name + " (" + fs::path(p.path).filename().string() + ")");
  }
  if (here) return given;
  throw std::runtime_error(replaced(printable_text(given), {{'\n', "\\n"}, {'\t', "\\t"}}) +
                           ": no such file, nor a shipped profile of that name" +
                           (names.empty() ? std::string(" (none was found beside this binary)")
                                          : "; the shipped ones: " + join(names, ", ")));
}

void add_data_dir_option(CLI::App& command, std::string& dir, const std::string& help_prefix) {
  dir = default_data_dir();
  command.add_option("--data-dir", dir, help_prefix + kDataDirHelp)->envname(kDataDirVariable);
}

UserModelCheck user_model_check;
TwinAnatomy take_twin_anatomy;

namespace {

// "experiments[1].grid.batch_size[2]" as a JSON pointer: /experiments/1/grid/batch_size/2.
nlohmann::json::json_pointer issue_pointer(const std::string& path) {
  std::string pointer;
  for (char c : path) {
    if (c == '.' || c == '[') {
      pointer += '/';
    } else if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else if (c != ']') {
      pointer += c;
    }
  }
  return nlohmann::json::json_pointer("/" + pointer);
}

// The grid's own models checked although other parts of the grid have problems (validate says
// every problem at once: a typo elsewhere once hid a model's wrong input_shape): the grid without
// the parts its problems name, its models checked, their problems added to `issues`. Nothing is
// added where what is left does not parse, or has no model of its own. Throws NeedsLibTorch in
// `crossover`, which cannot load a model.
void check_models_despite(const std::string& text, const std::string& path,
                          double model_check_seconds, std::vector<GridIssue>& issues) {
  // What is left may have problems of its own (the issues say why): no model checked then.
  (void)problem_of([&] {
    nlohmann::json json = nlohmann::json::parse(text);
    // From the last: an element taken out of an array moves those after it.
    for (auto it = issues.rbegin(); it != issues.rend(); ++it) {
      const GridIssue& issue = *it;
      if (issue.path.empty()) return;  // a problem of the whole file: nothing is left to check
      const auto pointer = issue_pointer(issue.path);
      if (!json.contains(pointer)) continue;
      auto& parent = json.at(pointer.parent_pointer());
      if (parent.is_array()) {
        parent.erase(std::stoul(pointer.back()));
      } else {
        parent.erase(pointer.back());
      }
    }
    const Expansion expansion = expand_grid(parse_grid(json.dump(), path));
    std::vector<Cell> models;
    for (const Cell& c : expansion.cells)
      if (c.workload == kUserModelWorkload) models.push_back(c);
    if (models.empty()) return;
    if (!user_model_check) hand_to_libtorch();  // crossover-torch says it all, models too
    spdlog::info("checking the grid's own models (up to {} s each; --model-check-seconds)",
                 format_number(model_check_seconds));
    for (GridIssue& problem : user_model_check(models, model_check_seconds)) {
      const bool said = std::any_of(issues.begin(), issues.end(), [&](const GridIssue& i) {
        return i.path == problem.path && i.message == problem.message;
      });
      if (!said) issues.push_back(std::move(problem));
    }
  });
}

// The grid at `path`, as --set changes it, expanded and its own models checked; throws GridError
// with its issues. `text` is the grid's text as read, for the checks that go on past a problem.
std::pair<Grid, Expansion> expanded_grid(const std::string& path, double model_check_seconds,
                                         const std::vector<std::string>& sets, std::string& text) {
  Grid grid;
  if (sets.empty()) {
    grid = load_grid(path);
  } else {
    text = or_exit<std::invalid_argument>(kExitBadInput,
                                          [&] { return apply_sets(read_grid_file(path), sets); });
    grid = parse_grid(text, path);
    grid.text = text;  // the run's grid.json: the grid as run
  }
  Expansion expansion = expand_grid(grid);
  // The grid's own models, each loaded in a child process (runner/grid/model_check.hpp).
  std::vector<Cell> models = expansion.cells;
  for (const SearchLine& line : expansion.searches) models.push_back(line.contender);
  if (std::any_of(models.begin(), models.end(),
                  [](const Cell& c) { return c.workload == kUserModelWorkload; })) {
    if (!user_model_check) hand_to_libtorch();
    // A check may take up to its limit: the wait is said before it starts, not after. (Here,
    // not in runner/grid/model_check.cpp: that unit sees LibTorch's headers, which spdlog may
    // not.)
    spdlog::info("checking the grid's own models (up to {} s each; --model-check-seconds)",
                 format_number(model_check_seconds));
    if (auto problems = user_model_check(models, model_check_seconds); !problems.empty())
      throw GridError(grid.file, std::move(problems));
  }
  return std::make_pair(std::move(grid), std::move(expansion));
}

// A grid's issues, each on its line, with its models checked despite them.
void say_grid_issues(const GridError& error, const std::string& path, std::string text,
                     double model_check_seconds, const std::vector<std::string>& sets) {
  std::vector<GridIssue> issues = error.issues();
  // The file's own problem, if it has one, is among the issues already.
  if (text.empty()) (void)problem_of([&] { text = read_grid_file(path); });
  if (!text.empty()) check_models_despite(text, path, model_check_seconds, issues);
  spdlog::error("{}: {} problem(s), nothing was run:", error.file(), issues.size());
  for (const auto& issue : issues)
    spdlog::error("{}: {}: {}", error.file(), issue.path, issue.message);
  if (!sets.empty()) {  // the keys, not the values: a value may be long, and is quoted above
    std::vector<std::string> keys;
    for (const std::string& set : sets) keys.push_back(set.substr(0, set.find('=')));
    spdlog::error("(the grid as --set changed it: {})", join(keys));
  }
}

}  // namespace

std::optional<std::pair<Grid, Expansion>> load_and_expand(const std::string& path,
                                                          double model_check_seconds,
                                                          const std::vector<std::string>& sets) {
  std::string text;
  auto loaded =
      attempt<GridError>([&] { return expanded_grid(path, model_check_seconds, sets, text); });
  if (const GridError* error = std::get_if<GridError>(&loaded)) {
    say_grid_issues(*error, path, text, model_check_seconds, sets);
    return std::nullopt;
  }
  auto& [grid, expansion] = std::get<0>(loaded);
  if (expansion.cells.empty() && expansion.searches.empty()) {
    spdlog::error("{}: every cell is excluded; nothing to run", path);
    return std::nullopt;
  }
  return std::make_pair(std::move(grid), std::move(expansion));
}

void hand_to_libtorch() {
  HeldLog::drop_held();
  throw NeedsLibTorch{};
}

}  // namespace crossover
