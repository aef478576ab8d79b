#pragma once
// The analysis as Markdown, for report.md: the crossover statements and the table of pairs of
// each comparison, and the scaling over replicas. What they say is the analysis's
// (reports/analysis/); this is only how it is written.

#include <string>
#include <vector>

#include "reports/analysis/analysis.hpp"
#include "reports/analysis/scaling.hpp"

namespace crossover {

/// The analysis as Markdown: the crossover statements, then one table of pairs per workload.
std::string render_analysis_markdown(const CompareSpec& spec, const std::vector<Pair>& pairs,
                                     const std::vector<Crossover>& crossovers,
                                     const std::vector<Recommendation>& recommendations = {});

/// "## Scaling" with one table per workload; "" without parallel cells.
std::string render_scaling_markdown(const std::vector<ScalingRow>& rows);
std::string render_scaling_markdown(const std::vector<Result>& results);

}  // namespace crossover
