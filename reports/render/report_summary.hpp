#pragma once
// summary.json: what every crossover statement says, machine-readable (docs/outputs.md).

#include <nlohmann/json.hpp>
#include <vector>

#include "core/records/results.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/render/report_context.hpp"

namespace crossover {

/// summary.json: the first comparison's analysis at the top level, every comparison, the title,
/// warnings and environment, the cells that did not run, the scaling rows.
nlohmann::ordered_json render_summary_json(const ReportContext& context,
                                           const std::vector<Result>& results,
                                           const Analysis& analysis);

}  // namespace crossover
