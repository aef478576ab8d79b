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
