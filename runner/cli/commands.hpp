#pragma once
// What every command of `crossover` is made of (one file each, runner/commands/<name>_command.cpp,
// each declared in runner/main/command_list.hpp): it adds its options to its subcommand and
// returns what runs it: the process exit code (0 success, 1 a run failed, 2 bad input or usage,
// 130 interrupted). Results go to stdout and files; diagnostics to the log (stderr).

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

}  // namespace crossover
