#pragma once
// An axis given as {"search": {...}} in a grid (runner/grid/grid.cpp's part of it): the search's
// own keys checked, and its contenders read as the compared key takes them.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/cells/keys.hpp"
#include "core/stats/search.hpp"
#include "runner/grid/cell_plan.hpp"
#include "runner/grid/experiment.hpp"
#include "runner/grid/grid_error.hpp"

namespace crossover {

/// One line of a search: the two contenders' cells, every key fixed but the one searched.
struct SearchLine {
  std::size_t experiment = 0;
  SearchSpec spec;
  std::string baseline_name, contender_name;  ///< the compared values as text ("cpu", "cuda")
  Cell baseline, contender;                   ///< the probes' templates (at spec.from)
  std::string fixed;  ///< the experiment's other axes in this line ("execution=graph"), or ""
  CellPlan baseline_plan, contender_plan;  ///< what this run does with them (plan_expansion)
};

/// The value of a search's defaults and limits, as docs/grids.md states them.
inline constexpr int kMostProbes = 64;

/// The search given for `key` at `path` (the axis's JSON path), or none with the problems added
/// to `issues`: an object {"search": {"from", "to", "precision", "max_probes", "scale",
/// "compare"}} on a numeric identity key.
std::optional<SearchSpec> parse_search(const std::string& path, const GridKey& key,
                                       const nlohmann::ordered_json& value,
                                       std::vector<GridIssue>& issues);

/// The compared key of a search and its two values as that key takes them (threads=1:0: the
/// integers 1 and 0).
struct Contenders {
  const GridKey* key = nullptr;
  std::string baseline_text, contender_text;
  nlohmann::ordered_json baseline, contender;
};

/// The contenders of `spec.compare`; throws std::invalid_argument saying what is wrong.
Contenders search_contenders(const SearchSpec& spec);

/// A search experiment's axes against its contenders: an axis of the compared key may list only
/// the two values (it is dropped: the search sets them); problems go to `issues` at `path`.
void fit_search_axes(const std::string& path, Experiment& experiment,
                     std::vector<GridIssue>& issues);

/// Cells and results of `lines` (identity equal to a line's template in every key but the one
/// searched): --resume keeps such results of an earlier run, and merge takes them as probes.
bool belongs_to_search(const Cell& cell, const std::vector<SearchLine>& lines);

}  // namespace crossover
