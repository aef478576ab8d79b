#pragma once
// report.html: one self-contained page that opens offline — the crossover statements and
// recommendations, charts drawn as inline SVG (speedup along each crossover axis with its interval
// band, the line y = 1 and the crossing marked; epoch time per cell and device; the phase
// breakdown as stacked bars; throughput against GPU count), and sortable tables. Text only: no I/O.

#include <string>
#include <vector>

#include "reports/analysis/analysis.hpp"
#include "reports/render/report_context.hpp"

namespace crossover {

/// The whole report.html text, with a section of statements and charts per comparison.
std::string render_html(const ReportContext& context, const std::vector<Result>& results,
                        const Analysis& analysis);

/// The same for one comparison.
std::string render_html(const ReportContext& context, const std::vector<Result>& results,
                        const CompareSpec& spec, const std::vector<Pair>& pairs,
                        const std::vector<Crossover>& crossovers,
                        const std::vector<Recommendation>& recommendations);

}  // namespace crossover
