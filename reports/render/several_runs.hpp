#pragma once
// Several runs as one report (`report A B --out DIR`: one grid run on several machines): each
// run's cells labelled with its machine and numbered after the runs before it (its searches' and
// drifted cells too), its environment's lines and warnings under its label.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/records/results.hpp"
#include "reports/render/report_context.hpp"

namespace crossover {

/// One run of a report of several.
struct LabelledRun {
  std::string label;  ///< its machine in the report: its cells' host, where they have none
  std::vector<Result> results;
  nlohmann::ordered_json searches = nlohmann::ordered_json::array();  ///< its searches.json
  std::set<std::size_t> drifted_cells;   ///< its cells that ran while the machine had drifted
  std::vector<std::string> environment;  ///< its environment's lines, and its warnings
  std::vector<std::string> warnings;
};

/// The runs' results as one run's, in the order given; `context` gets their searches (each fixed
/// at host=LABEL), drifted cells, environment lines and warnings (each under its label).
std::vector<Result> combine_runs(std::vector<LabelledRun> runs, ReportContext& context);

}  // namespace crossover
