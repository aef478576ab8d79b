// crossover validate: every problem of a grid at once; runs nothing. Without LibTorch (in
// `crossover`), unless the grid has models of its own to load (runner/main/main.cpp).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include "core/text/text.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/grid/model_check.hpp"

namespace crossover {

namespace {

struct ValidateArgs {
  std::string grid;
  double model_check_seconds = kModelCheckSeconds;
};

int validate_command(const ValidateArgs& args) {
  const std::string& grid_path = args.grid;
  const auto loaded = load_and_expand(grid_path, args.model_check_seconds);
  if (!loaded) return kExitBadInput;
  const auto& [grid, expansion] = *loaded;
  std::cout << grid_path << ": valid grid \"" << grid.name << "\": " << grid.experiments.size()
            << " experiment(s), " << expansion.cells.size() << " cells";
  if (expansion.excluded > 0) std::cout << " (" << expansion.excluded << " excluded)";
  if (expansion.duplicates > 0) std::cout << " (" << expansion.duplicates << " duplicates dropped)";
  if (!expansion.searches.empty()) {
    std::cout << ", " << expansion.searches.size() << " search(es) of at most "
              << most_probes(expansion.searches) << " probes ("
              << 2 * most_probes(expansion.searches) << " cells) in all";
  }
  std::cout << "\n";
  return kExitOk;
}

}  // namespace

void add_model_check_option(CLI::App& command, double& seconds) {
  command
      .add_option("--model-check-seconds", seconds,
                  "How long the check of each of the grid's own models (load it, run one batch "
                  "of input_shape, in a child process) may take before it is stopped and the "
                  "grid refused (default 60)")
      ->check(CLI::Range(0.1, 86400.0));
}

Command add_validate_command(CLI::App& subcommand) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* validate = &subcommand;
  validate->add_option("grid", args->grid, "Grid file (JSON)")->required();
  add_model_check_option(*validate, args->model_check_seconds);

  return {validate, [args] { return validate_command(*args); }};
}

}  // namespace crossover
