// crossover env: the machine and library record.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "core/files/file_writer.hpp"
#include "core/text/text.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/machine/env.hpp"

namespace crossover {
namespace {

int env_command(bool json) {
  const auto record = environment_record(true);
  if (json) {
    std::cout << json_text(environment_json(record), 2) << "\n";
  } else {
    // Each line wrapped as the reports' sentences are (100 columns on a pipe).
    for (const auto& line : environment_summary(record))
      std::cout << wrap_prose(line + "\n", output_columns());
  }
  for (const auto& w : environment_warnings(record)) spdlog::warn("{}", w);
  return kExitOk;
}

}  // namespace

Command add_env_command(CLI::App& subcommand) {
  auto args = std::make_shared<bool>(false);
  CLI::App* env = &subcommand;
  env->add_flag("--json", *args, "Print the full record as JSON");

  return {env, [args] { return env_command(*args); }};
}

}  // namespace crossover
