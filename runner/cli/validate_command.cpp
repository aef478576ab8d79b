// crossover validate: every problem of a grid at once; runs nothing.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"

namespace crossover {
namespace {

int validate_command(const std::string& grid_path) {
  const auto loaded = load_and_expand(grid_path);
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

Command add_validate_command(CLI::App& app) {
  auto args = std::make_shared<std::string>();
  CLI::App* validate =
      app.add_subcommand("validate", "Check a grid and report every problem; runs nothing");
  validate->add_option("grid", *args, "Grid file (JSON)")->required();

  return {validate, [args] { return validate_command(*args); }};
}

}  // namespace crossover
