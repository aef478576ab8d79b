// crossover validate: every problem of a grid at once; runs nothing.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include "core/text/text.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/grid/grid_file.hpp"
#include "runner/grid/grid_overrides.hpp"
#include "runner/grid/model_check.hpp"

namespace crossover {

// Here rather than in command_support.cpp: the model check loads LibTorch, which `crossover`
// itself does not link (runner/cli/main.cpp).
std::optional<std::pair<Grid, Expansion>> load_and_expand(const std::string& path,
                                                          double model_check_seconds,
                                                          const std::vector<std::string>& sets) {
  try {
    Grid grid;
    if (sets.empty()) {
      grid = load_grid(path);
    } else {
      std::string text = apply_sets(read_grid_file(path), sets);
      grid = parse_grid(text, path);
      grid.text = std::move(text);  // the run's grid.json: the grid as run
    }
    Expansion expansion = expand_grid(grid);
    // The grid's own models, each loaded in a child process (runner/grid/model_check.hpp).
    std::vector<Cell> models = expansion.cells;
    for (const SearchLine& line : expansion.searches) models.push_back(line.contender);
    // A check may take up to its limit: the wait is said before it starts, not after. (Here, not in
    // runner/grid/model_check.cpp: that unit sees LibTorch's headers, which spdlog may not.)
    if (std::any_of(models.begin(), models.end(),
                    [](const Cell& c) { return c.workload == kUserModelWorkload; }))
      spdlog::info("checking the grid's own models (up to {} s each; --model-check-seconds)",
                   format_number(model_check_seconds));
    if (auto problems = check_user_models(models, {}, model_check_seconds); !problems.empty())
      throw GridError(grid.file, std::move(problems));
    if (expansion.cells.empty() && expansion.searches.empty()) {
      spdlog::error("{}: every cell is excluded; nothing to run", path);
      return std::nullopt;
    }
    return std::make_pair(std::move(grid), std::move(expansion));
  } catch (const GridError& e) {
    spdlog::error("{}: {} problem(s), nothing was run:", e.file(), e.issues().size());
    for (const auto& issue : e.issues())
      spdlog::error("{}: {}: {}", e.file(), issue.path, issue.message);
    if (!sets.empty()) {  // the keys, not the values: a value may be long, and is quoted above
      std::vector<std::string> keys;
      for (const std::string& set : sets) keys.push_back(set.substr(0, set.find('=')));
      spdlog::error("(the grid as --set changed it: {})", join(keys));
    }
    return std::nullopt;
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    return std::nullopt;
  }
}

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

Command add_validate_command(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* validate =
      app.add_subcommand("validate", "Check a grid and report every problem; runs nothing");
  validate->add_option("grid", args->grid, "Grid file (JSON)")->required();
  add_model_check_option(*validate, args->model_check_seconds);

  return {validate, [args] { return validate_command(*args); }};
}

}  // namespace crossover
