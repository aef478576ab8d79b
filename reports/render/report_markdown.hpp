#pragma once
// report.md: the environment summary, then per workload the device comparison and every cell,
// then the cells that did not run and why. Turns results into text; writes nothing.

#include <set>
#include <string>
#include <vector>

#include "core/records/results.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/render/report_context.hpp"

namespace crossover {

/// The searches of a run as Markdown: each line's statement and its probes in order; "" if none.
std::string render_searches_markdown(const nlohmann::ordered_json& searches);

/// The whole report.md text: the analysis's crossover sections right after the environment.
std::string render_markdown(const ReportContext& context, const std::vector<Result>& results,
                            const Analysis& analysis);
/// The same without a crossover section (the analysis of no comparison).
std::string render_markdown(const ReportContext& context, const std::vector<Result>& results);

/// The device comparison tables alone, for the terminal after a run: their legend in `measure`
/// (the tables' own), why cells did not run, and where the energy came from (energy_summary).
/// Below Detail::kVerbose, without what the verdict's caveat said (the predicted cells' reason)
/// and without energy where none was measured. `threads`: what `threads` 0 leaves on the machine,
/// where known.
std::string render_comparison_text(const std::vector<Result>& results,
                                   const std::vector<Comparison>& devices,
                                   Measure measure = Measure::kTime,
                                   Detail detail = Detail::kVerbose,
                                   const std::optional<DefaultThreads>& threads = std::nullopt);
/// The same with the device tables made from `results`.
std::string render_comparison_text(const std::vector<Result>& results);

}  // namespace crossover
