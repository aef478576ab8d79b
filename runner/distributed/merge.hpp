#pragma once
// `crossover merge`: the shards of one grid (`run --shard K/N` on several machines) become one
// run — one results.jsonl in grid order, each shard's environment kept, the searches of all —
// checked first, so that nothing is merged half-way. Every input is hostile until checked: its
// folder and files are read where they are (never through a link), env.json's fields are checked
// for type and range before use, and every result must be a cell of the grid, once. No LibTorch.

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/records/environment.hpp"
#include "core/records/results.hpp"

namespace crossover {

/// Why shards cannot be merged (bad input, exit 2): what differs or is missing, naming folders.
class MergeRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One run made of shards.
struct MergedRun {
  std::string grid_text;        ///< the grid as run (every shard's is the same)
  Environment env;              ///< the first shard's record, with `shards`: each one's own
  std::vector<Result> results;  ///< every cell of the grid in grid order; missing ones `not run`
  nlohmann::ordered_json searches = nlohmann::ordered_json::array();  ///< every shard's
  std::vector<std::string> warnings;  ///< parts missing (one line), machines that differ
  std::size_t not_run = 0;            ///< the grid's cells that no folder holds
};

/// Merges the runs in `dirs`. Throws MergeRefused when a folder is not a run (or is a link, or
/// holds a link where a run's file goes), when an env.json field has the wrong type or range,
/// when the grids differ (naming the first difference), when two folders are the same part
/// (overlapping --shard values) or parts of different counts, when two folders hold one cell,
/// and when a folder holds a cell that is not in the grid. Reads the folders only.
MergedRun merge_runs(const std::vector<std::string>& dirs);

}  // namespace crossover
