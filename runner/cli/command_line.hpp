#pragma once
// The command line both programs share: `crossover` runs the commands that only read and write
// files, and starts `crossover-torch` (beside it) in its place for those that load LibTorch;
// `crossover-torch` runs every command (runner/main/main.cpp, main_torch.cpp).

#include <string>
#include <vector>

#include "runner/cli/commands.hpp"

namespace crossover {

/// What adds one command's options to its subcommand (add_run_command, ...).
using AddCommand = Command (*)(CLI::App& subcommand);

/// A command as runner/main/command_list.hpp declares it, for one program.
struct CommandDeclaration {
  const char* name;
  const char* help;  ///< its line in --help
  AddCommand add;
};

/// The command a command line names: its first argument that is not a global option (-v, -q,
/// --help, --version), or "" when none.
std::string named_command(int argc, char** argv);

/// Parses the command line with `commands` (in the order of --help) and runs the one it names; the
/// process's exit code.
int run_command_line(int argc, char** argv, const std::vector<CommandDeclaration>& commands);

}  // namespace crossover
