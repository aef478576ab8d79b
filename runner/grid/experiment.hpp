#pragma once
// One experiment of a grid as parsed (runner/grid/grid.cpp): what the grid and a search's axes
// (grid_search) both read.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/stats/search.hpp"

namespace crossover {

/// One experiment: a workload, its scalar settings (defaults merged with its own), and its axes.
struct Experiment {
  std::string workload;
  std::string label;                ///< the experiment's `name`, or the workload
  nlohmann::ordered_json settings;  ///< scalar settings, defaults overridden by its own
  std::vector<std::pair<std::string, std::vector<nlohmann::ordered_json>>> axes;
  std::vector<nlohmann::ordered_json> excludes;  ///< each maps keys to a value or a list of values
  /// An axis given as {"search": {...}}: found by probing, not listed (at most one).
  std::optional<SearchSpec> search;
};

}  // namespace crossover
