// crossover: when does the GPU beat the CPU? main only wires the command line to the commands.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "runner/cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "crossover: measures when the GPU beats the CPU for training workloads, from a JSON grid."};
  app.set_version_flag("--version", std::string("crossover ") + CROSSOVER_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // -v and -q work after the subcommand too
  bool verbose = false;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbose, "Log debug detail on stderr");
  app.add_flag("-q,--quiet", quiet, "Log only warnings and errors on stderr");

  // In the order of --help.
  const std::vector<crossover::Command> commands = {
      crossover::add_run_command(app),     crossover::add_report_command(app),
      crossover::add_compare_command(app), crossover::add_calibrate_command(app),
      crossover::add_worker_command(app),  crossover::add_validate_command(app),
      crossover::add_keys_command(app),    crossover::add_list_command(app),
      crossover::add_bench_command(app),   crossover::add_env_command(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  auto logger = spdlog::stderr_color_mt("crossover");
  logger->set_pattern("%^%l%$: %v");
  logger->set_level(verbose ? spdlog::level::debug
                    : quiet ? spdlog::level::warn
                            : spdlog::level::info);
  spdlog::set_default_logger(logger);

  for (const auto& command : commands) {
    if (*command.app) return command.run();
  }
  return 2;  // require_subcommand(1) makes this unreachable
}
