#pragma once
// The subcommands of `crossover`, one file each (runner/commands/<name>_command.cpp;
// profile and predict in runner/costmodel/). Each adds its
// subcommand and options to the command line and returns what runs it: the process exit code
// (0 success, 1 a run failed, 2 bad input or usage, 130 interrupted). Results go to stdout and
// files; diagnostics to the log (stderr).

#include <CLI/CLI.hpp>
#include <functional>

namespace crossover {

/// A subcommand on the command line and what runs it once the command line is parsed.
struct Command {
  CLI::App* app = nullptr;   ///< true when the user gave this subcommand
  std::function<int()> run;  ///< its exit code
};

/// CLI::Range for a number option that must also be finite: "NaN" passes CLI::Range (every
/// comparison with it is false) and would become the option's default silently.
CLI::Validator finite_range(double low, double high);

/// What an output option names: a file, or a folder the command fills.
enum class OutputKind { kFile, kFolder };

/// The help group of every option that names a file or folder a command writes; `--help` lists
/// them under it, and tests/test_output_paths.cpp plants a link, a FIFO and a run's own file for
/// each option there, of every command.
inline constexpr const char* kOutputsGroup = "Outputs";

/// Adds an option (or, for a name without dashes, a positional) that names a file or folder the
/// command writes, in kOutputsGroup, checked as it is parsed, before anything runs: a symbolic
/// link there or on the way to it, a FIFO, a device, a folder given for a file (or a file for a
/// folder) and a file of a run or history (output_file_problem, runner/sweep/output_dir.hpp)
/// are refused with exit 2. The command checks again once its own folders exist, against the files
/// it reads too.
CLI::Option* add_output_option(CLI::App& command, const std::string& name, std::string& target,
                               const std::string& help, OutputKind kind);

/// `--model-check-seconds S` of run and validate: how long one model's check may take.
void add_model_check_option(CLI::App& command, double& seconds);

/// Every command's --data-dir: `dir` set to default_data_dir() (command_support.hpp), the option
/// read from CROSSOVER_DATA_DIR when not given, its help kDataDirHelp after `help_prefix`.
void add_data_dir_option(CLI::App& command, std::string& dir, const std::string& help_prefix = "");

Command add_run_command(CLI::App& app);
/// `run` in `crossover`, without LibTorch: its checks, and the run handed to crossover-torch when
/// they pass (runner/commands/run_checks.hpp).
Command add_run_checks_command(CLI::App& app);
Command add_report_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_calibrate_command(CLI::App& app);
Command add_worker_command(CLI::App& app);
Command add_validate_command(CLI::App& app);
Command add_keys_command(CLI::App& app);
Command add_list_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_env_command(CLI::App& app);
Command add_example_model_command(CLI::App& app);
Command add_merge_command(CLI::App& app);
Command add_profile_command(CLI::App& app);
Command add_predict_command(CLI::App& app);
Command add_history_command(CLI::App& app);
Command add_catalog_command(CLI::App& app);

}  // namespace crossover
