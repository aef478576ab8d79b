#include "reports/render/several_runs.hpp"

#include <algorithm>

namespace crossover {

std::vector<Result> combine_runs(std::vector<LabelledRun> runs, ReportContext& context) {
  std::vector<Result> results;
  std::size_t offset = 0;
  for (LabelledRun& run : runs) {
    std::size_t next = offset;
    for (Result& r : run.results) {
      if (r.cell.host.empty()) r.cell.host = run.label;
      r.cell.index += offset;
      next = std::max(next, r.cell.index + 1);
      results.push_back(std::move(r));
    }
    for (auto search : run.searches) {
      for (auto& probe : search["probes"])
        for (auto& cell : probe["cells"]) cell = cell.get<std::size_t>() + offset;
      const std::string fixed = search.value("fixed", "");
      search["fixed"] = "host=" + run.label + (fixed.empty() ? "" : ", " + fixed);
      context.searches.push_back(search);
    }
    for (std::size_t cell : run.drifted_cells) context.drifted_cells.insert(cell + offset);
    offset = next;
    for (const auto& line : run.environment) context.environment.push_back(run.label + ": " + line);
    for (const auto& w : run.warnings) context.warnings.push_back(run.label + ": " + w);
  }
  return results;
}

}  // namespace crossover
