// A validated grid into its flat list of cells: the Cartesian product of each experiment's axes,
// the keys that mean nothing for a cell set to one value, exclude rules and duplicates dropped.
#include <algorithm>
#include <filesystem>
#include <unordered_set>

#include "runner/grid.hpp"
#include "workloads/catalog.hpp"

namespace crossover {
namespace {

using Json = nlohmann::ordered_json;

// Sets one key of a cell; the key and value were validated.
void apply(Cell& cell, const std::string& key, const Json& value) {
  find_grid_key(key)->set(cell, value);
}

bool excluded(const Json& config, const std::vector<Json>& rules) {
  for (const auto& rule : rules) {
    bool all = true;
    for (const auto& [key, wanted] : rule.items()) {
      const Json& actual = config.at(key);
      // A list is "any of these" (a shape is itself a list: equal to it is a hit too).
      const bool hit =
          wanted == actual ||
          (wanted.is_array() && std::find(wanted.begin(), wanted.end(), actual) != wanted.end());
      if (!hit) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

// Whether an experiment sets `key`, as a setting (its own or a default) or as an axis.
bool sets(const Experiment& experiment, const std::string& key) {
  return experiment.settings.contains(key) ||
         std::any_of(experiment.axes.begin(), experiment.axes.end(),
                     [&](const auto& axis) { return axis.first == key; });
}

// The cells each experiment multiplies out to (before exclude rules), checked against the limits
// before any is made: a few long axes multiply into more cells than any sweep can run, or memory
// can hold. Each problem is added to `issues`.
void check_cell_counts(const Grid& grid, std::vector<GridIssue>& issues) {
  std::size_t planned = 0;  // cells of the experiments so far
  for (std::size_t e = 0; e < grid.experiments.size(); ++e) {
    std::size_t product = 1;
    for (const auto& axis : grid.experiments[e].axes)
      product = std::min(product * std::max<std::size_t>(axis.second.size(), 1), kMaxCells + 1);
    const std::string path = "experiments[" + std::to_string(e) + "].grid";
    if (product > kMaxCells) {
      issues.push_back({path, "expands to more than " + std::to_string(kMaxCells) +
                                  " cells; split the experiment or shorten its lists"});
      continue;
    }
    if (planned + product > kMaxCells) {
      issues.push_back({path, "takes the grid past " + std::to_string(kMaxCells) +
                                  " cells in all (the experiments before it have " +
                                  std::to_string(planned) +
                                  "); split the grid into several files, each its own run"});
      return;
    }
    planned += product;
  }
}

}  // namespace

Expansion expand_grid(const Grid& grid) {
  Expansion out;
  std::vector<GridIssue> issues;
  check_cell_counts(grid, issues);
  if (!issues.empty()) throw GridError(grid.file, issues);
  std::unordered_set<std::string> seen;
  for (std::size_t e = 0; e < grid.experiments.size(); ++e) {
    const Experiment& experiment = grid.experiments[e];
    const WorkloadInfo* info = find_workload(experiment.workload);
    Cell base;
    base.experiment = e;
    base.workload = experiment.workload;
    if (info != nullptr) {
      base.dataset = info->datasets.front();
      base.batch_size = info->batch_size;
      base.epochs = info->epochs;
      base.optimizer = info->optimizer;
      base.lr = info->lr;
      base.momentum = info->momentum;
      base.loader = info->loader;
    }
    for (const auto& [key, value] : experiment.settings.items()) apply(base, key, value);

    // Odometer over the axes: the last axis varies fastest.
    std::vector<std::size_t> position(experiment.axes.size(), 0);
    const auto advance = [&] {
      for (std::size_t a = experiment.axes.size(); a-- > 0;) {
        if (++position[a] < experiment.axes[a].second.size()) return true;
        position[a] = 0;
      }
      return false;
    };
    do {
      Cell cell = base;
      for (std::size_t a = 0; a < experiment.axes.size(); ++a) {
        apply(cell, experiment.axes[a].first, experiment.axes[a].second[position[a]]);
      }
      if (excluded(cell_config_json(cell), experiment.excludes)) {
        ++out.excluded;
        continue;
      }
      cell.max_repeats = std::max(cell.max_repeats, cell.min_repeats);
      // Settings without meaning for this cell take one value, so equal cells are not run twice;
      // keys with a CUDA default of their own get it where the grid leaves them unset.
      const bool cuda = is_cuda_device(cell.device);
      for (const auto& key : grid_keys()) {
        if (!cuda && key.cpu_value) key.set(cell, *key.cpu_value);
        if (cuda && key.cuda_default && !sets(experiment, key.name))
          key.set(cell, *key.cuda_default);
      }
      normalise_cell(cell);  // each key's own rule (core/keys.cpp)
      if (cell.workload == "torchscript") {
        // A user's model is code from outside: in a child process unless the grid says, so that
        // a crash in it costs its cell alone; its file relative to the grid's folder.
        if (!sets(experiment, "isolate")) cell.isolate = true;
        if (!cell.model.empty() && std::filesystem::path(cell.model).is_relative()) {
          cell.model = (std::filesystem::absolute(grid.file).parent_path() / cell.model)
                           .lexically_normal()
                           .string();
        }
      }
      if (const std::string problem = cell_problem(cell); !problem.empty()) {
        issues.push_back({"experiments[" + std::to_string(e) + "]",
                          problem + " (cell: " + cell_label(cell) + ")"});
        continue;
      }
      if (!seen.insert(cell_config_json(cell).dump()).second) {
        ++out.duplicates;
        continue;
      }
      cell.index = out.cells.size();
      out.cells.push_back(cell);
    } while (advance());
  }
  if (!issues.empty()) throw GridError(grid.file, issues);
  return out;
}

}  // namespace crossover
