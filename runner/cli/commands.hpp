#pragma once
// What every command of `crossover` is made of (one file each, runner/commands/<name>_command.cpp,
// each declared in runner/main/command_list.hpp): it adds its options to its subcommand and
// returns what runs it: the process exit code (0 success, 1 a run failed, 2 bad input or usage,
// 130 interrupted). Results go to stdout and files; diagnostics to the log (stderr).

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>

namespace crossover {

/// A subcommand on the command line and what runs it once the command line is parsed.
struct Command {
  CLI::App* app = nullptr;   ///< true when the user gave this subcommand
  std::function<int()> run;  ///< its exit code
};

/// A command that cannot go on: its exit code and what it says. Thrown where the problem is found;
/// run_command_line logs its message as an error and returns its code: the one place a command's
/// errors become exit codes.
class CommandError : public std::runtime_error {
 public:
  CommandError(int exit_code, const std::string& message)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

/// What `f` returns; a `Caught` it throws (any std::exception by default) becomes a CommandError
/// with `exit_code`, saying `prefix`, its message, then `suffix`. A CommandError passes as it is.
template <typename Caught = std::exception, typename F>
auto or_exit(int exit_code, F&& f, const std::string& prefix = "", const std::string& suffix = "")
    -> decltype(f()) {
  try {
    return f();
  } catch (const CommandError&) {
    throw;
  } catch (const Caught& e) {
    throw CommandError(exit_code, prefix + e.what() + suffix);
  }
}

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
