#pragma once
// The JSON grid: parsing, validation and expansion into cells. Everything a grid can get wrong
// is found here, before anything runs, and reported all at once.

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/records/prices.hpp"
#include "runner/grid/cell_plan.hpp"
#include "runner/grid/experiment.hpp"
#include "runner/grid/grid_error.hpp"
#include "runner/grid/grid_search.hpp"

namespace crossover {

/// A validated grid.
struct Grid {
  std::string file;
  std::string text;  ///< the file's text as read (a run saves it as grid.json)
  std::string name;
  std::string description;
  Prices prices;  ///< "prices": per hour by device kind (core/records/prices.hpp)
  std::vector<Experiment> experiments;
};

/// Cells one experiment may expand to before it is an error (before exclude rules apply), and
/// cells a whole grid may have: more is no sweep one machine runs, and would only fill memory.
inline constexpr std::size_t kMaxCells = 100000;

/// The longest grid name: runs/<name>-<time>[-N] must fit a file system's 255 characters.
inline constexpr std::size_t kMaxGridNameLength = 200;

/// The cells of a grid, in order, and what expansion dropped.
struct Expansion {
  std::vector<Cell> cells;
  std::vector<SearchLine> searches;  ///< the lines of every search, whose cells come as probed
  std::size_t excluded = 0;          ///< cells removed by `exclude` rules
  std::size_t duplicates =
      0;  ///< cells identical to an earlier one (for example `gpus` on the CPU)
  /// `run --predict`: predicted CUDA cells made once for every value of `threads`
  /// (fold_predicted_cells)
  std::size_t folded = 0;
  /// Per cell, what this machine does with it: filled once by plan_expansion (runner/grid/skip),
  /// before which it is empty.
  std::vector<CellPlan> plans;
};

/// Parses and validates grid text; `file` names it in messages. Throws GridError.
Grid parse_grid(const std::string& text, const std::string& file);

/// Reads and validates a grid file. Throws GridError (a missing file is one too).
Grid load_grid(const std::string& path);

/// The Cartesian product of every experiment's axes, less the excluded and duplicate cells.
/// Throws GridError for cells that cannot work as a whole (batch smaller than the replicas, an
/// output device outside the GPUs used, several GPUs without a parallel mode).
Expansion expand_grid(const Grid& grid);

/// A probe of a search line: `cell` (a line's template) with the searched key at `value`,
/// normalised; its index is the caller's.
Cell probe_cell(const Cell& cell, const std::string& key, double value);

/// The most probe pairs a grid's searches may take in all (each max_probes), for --dry-run.
std::size_t most_probes(const std::vector<SearchLine>& searches);

/// A value as the grid's messages quote it: its JSON, cut to 60 characters ("got [1, 2, ...").
std::string shown(const nlohmann::ordered_json& value);

}  // namespace crossover
