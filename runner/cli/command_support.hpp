#pragma once
// What several commands share: their exit codes, interrupts, loading a grid, starting a child
// crossover, and reading a run's results with its environment record.

#include <atomic>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "reports/gate/regression.hpp"
#include "runner/grid/grid.hpp"
#include "runner/grid/model_check.hpp"

namespace crossover {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report Ctrl-C

/// Every --data-dir: where the data sets are, from this variable when the option is not given.
inline constexpr const char* kDataDirVariable = "CROSSOVER_DATA_DIR";
inline constexpr const char* kDataDirHelp =
    "Where the data sets are (default: $CROSSOVER_DATA_DIR, else data/ here, else the data/ "
    "scripts/fetch-data.sh filled in this binary's checkout)";

/// The data folder when neither --data-dir nor CROSSOVER_DATA_DIR says: data/ where the command
/// runs, else the data/ beside the checkout this binary was built in (a folder holding
/// scripts/fetch-data.sh, up to three levels above the binary), else "data".
std::string default_data_dir();

/// The checkout this binary was built in: the folder holding scripts/fetch-data.sh up to three
/// levels above it ("" when there is none, as for an installed binary).
std::string checkout_dir();

/// A profile crossover ships, by the short name a command line gives it.
struct ShippedProfile {
  std::string name;  ///< "h100": its file's name up to the first '-'
  std::string path;  ///< ".../profiles/h100-80gb.json"
};

/// The profiles shipped beside this binary: the profiles/ folder next to it, in
/// ../share/crossover/ above it, or in the checkout it was built in; by name.
std::vector<ShippedProfile> shipped_profiles();

/// Whether a --profile or --predict cuda= value is a path (it has a '/' or ends in .json), which
/// names a file; a bare name names a shipped profile or a catalogued GPU first.
bool is_profile_path(const std::string& given);

/// The file a --profile or --predict cuda= names: a path as given (is_profile_path); a bare name
/// the shipped profile of that name ("h100", "h100-80gb", case aside) found from any folder, even
/// where this folder has a file of that name (said in a warning: ./NAME reads it), else a file
/// of that name here; throws std::runtime_error naming the shipped ones.
std::string find_profile(const std::string& name_or_path);

/// The signal that asked the command to stop (0: none). The first SIGINT or SIGTERM asks a sweep
/// to stop after the running cell; the handler is installed with SA_RESETHAND, so a second one
/// ends the process at once.
extern std::atomic<int> interrupted;
void catch_interrupts();

/// What checks a grid's own models (workload "torchscript"), each for at most `seconds`: the
/// issues of those that fail.
using UserModelCheck =
    std::function<std::vector<GridIssue>(const std::vector<Cell>& models, double seconds)>;

/// The model check of this program: crossover-torch's main sets it to check_user_models (each
/// model loaded in a child process, runner/grid/model_check.hpp); in `crossover`, which links no
/// LibTorch, it is empty.
extern UserModelCheck user_model_check;

/// Takes a cell's anatomy on this machine's CPU, from the cell's definition, into a result
/// (record_twin_anatomy, runner/execution/anatomy.hpp), for predict --check: crossover-torch's main
/// sets it. In `crossover` it is empty, and predict hands its command line to crossover-torch
/// (NeedsLibTorch) when a cell's anatomy must be taken.
using TwinAnatomy = std::function<void(const Cell&, const std::string& data_dir, Result&)>;
extern TwinAnatomy take_twin_anatomy;

/// Thrown by load_and_expand for a grid with models of its own where user_model_check is empty:
/// `crossover` then hands its command line to crossover-torch (runner/main/main.cpp).
struct NeedsLibTorch {};

/// Throws NeedsLibTorch, dropping what a HeldLog holds: crossover-torch runs the command again
/// and says it all, so nothing is said twice.
[[noreturn]] void hand_to_libtorch();

/// Loads and expands a grid, logging every issue of the grid; nullopt means bad input. `sets`
/// (run's --set KEY=VALUE) change the grid's text first (runner/grid/grid_overrides.hpp); a --set
/// that is not one throws CommandError (exit 2). Its own models (workload "torchscript") are each
/// checked by user_model_check, for at most `model_check_seconds`; throws NeedsLibTorch (through
/// hand_to_libtorch) where there is none.
std::optional<std::pair<Grid, Expansion>> load_and_expand(
    const std::string& path, double model_check_seconds = kModelCheckSeconds,
    const std::vector<std::string>& sets = {});

/// The settings of compare's gate (compare, calibrate), checked; throws CommandError (exit 2)
/// naming the one out of range.
RegressionOptions gate_options(double threshold_percent, double alpha, const std::string& metric,
                               double assumed_spread_percent,
                               const std::string& fail_on = "regression");

/// run_program's status for a child stopped because it ran past its time.
inline constexpr int kChildTimedOut = -2;

/// The one way a command starts a crossover (or other) child and waits for it: argv[0] with
/// these arguments in a process group of its own, every SIGINT and SIGTERM this process gets
/// while it runs passed on to that group (this process never ends before its child; `interrupted`
/// records the signal), and past `timeout_seconds` (0: none) stopped (SIGTERM, SIGKILL 10 s
/// later). Its exit status, 128 + the signal that ended it, kChildTimedOut, or -1 when it could
/// not be started. `stdout_file` (when given) receives its standard output;
/// `extra_environment` ("NAME=value") is added to this process's environment for it;
/// `stderr_file` (when given) receives its standard error.
int run_program(std::vector<std::string> argv, const std::string& stdout_file = "",
                const std::vector<std::string>& extra_environment = {},
                double timeout_seconds = 0.0, const std::string& stderr_file = "");

/// Prints on standard error each warning and error line of the log `path` (a child's standard
/// error) that `said` does not hold yet, and adds it there: what many runs of one command warn
/// of is said once. A log that cannot be read is passed over.
void say_new_warnings(const std::string& path, std::set<std::string>& said);

/// `--require DEVICE` of run and compare (cpu or cuda, each given once or more): false, with an
/// error naming the device and why its first cell did not run, for each device none of whose cells
/// in `results` was measured. A predicted or skipped cell is not measured; `whose` names the run.
bool required_devices_measured(const std::vector<std::string>& devices,
                               const std::vector<Result>& results, const std::string& whose);

/// Why `path`, whose results could not be read, is not a run, when that is the likely reason: a
/// folder without results.jsonl (with the runs inside it), or a grid; nothing otherwise.
Found why_not_a_run(const std::string& path);

/// Reads a results.jsonl (or the directory holding it) and the env.json beside it; throws
/// std::runtime_error naming the file. An unreadable env.json is logged and left null.
RunRecord load_run(const std::string& path);

}  // namespace crossover
