#pragma once
// What `run` and `report` both write at their end: report.md, report.html, results.csv,
// summary.json and gbench.json, with one crossover analysis per --compare.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/records/environment.hpp"
#include "reports/analysis/analysis.hpp"
#include "reports/render/report_markdown.hpp"

namespace crossover {

/// The comparisons of --compare (each may be given several times; none means device=cpu:cuda);
/// throws CommandError (exit 2) naming one that is malformed.
std::vector<CompareSpec> compare_specs(const std::vector<std::string>& texts);

/// Whether each of `specs` (given with --compare) names two values its axis takes among `cells`:
/// two different ones, each held by some cell. False (logged, naming the values the cells have)
/// otherwise: before anything runs, a comparison that can pair nothing is refused. An axis no
/// cell's configuration has, and the device's values, are left to the analysis to say.
bool compare_values_present(const std::vector<std::string>& given,
                            const std::vector<CompareSpec>& specs, const std::vector<Cell>& cells);

/// How much write_reports prints on the terminal for the rest of the process (the command line's
/// --brief and --verbose); Detail::kDefault until set.
void set_terminal_detail(Detail detail);

/// Writes the reports of `results` into `out_dir` (reports/render/reporter.hpp's report_files),
/// with one analysis per comparison (the first one is also the top level of summary.json; each
/// search's comparison is added when --compare did not name it), after printing the terminal's
/// summary (the device tables and the crossover statements) on standard output. Throws
/// std::runtime_error when a file cannot be written.
void write_reports(const std::string& out_dir, const ReportContext& context,
                   const std::vector<Result>& results, const std::vector<CompareSpec>& specs,
                   const std::optional<Environment>& environment);

}  // namespace crossover
