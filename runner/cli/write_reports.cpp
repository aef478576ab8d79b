#include "runner/cli/write_reports.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>

#include "core/files/file_writer.hpp"
#include "reports/render/reporter.hpp"

namespace crossover {

std::optional<std::vector<CompareSpec>> compare_specs(const std::vector<std::string>& texts) {
  std::vector<CompareSpec> specs;
  try {
    for (const auto& text : texts) specs.push_back(parse_compare(text));
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    return std::nullopt;
  }
  if (specs.empty()) specs.push_back(CompareSpec{});
  return specs;
}

void write_reports(const std::string& out_dir, const ReportContext& context,
                   const std::vector<Result>& results, const std::vector<CompareSpec>& specs,
                   const std::optional<Environment>& environment) {
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(terminal_report([](const std::string& text) { std::cout << text; }));
  // Each search's own comparison is analysed too, so its probes pair in the tables.
  std::vector<CompareSpec> all = specs;
  for (const auto& search : context.searches) {
    try {
      const CompareSpec spec = parse_compare(search.value("compare", "device=cpu:cuda"));
      const bool known = std::any_of(all.begin(), all.end(), [&](const CompareSpec& s) {
        return s.axis == spec.axis && s.baseline == spec.baseline && s.contender == spec.contender;
      });
      if (!known) all.push_back(spec);
    } catch (const std::invalid_argument& e) {
      spdlog::warn("a search's comparison: {}", e.what());
    }
  }
  for (auto& file : report_files(
           [&out_dir](const std::string&name, const std::string&text) {
             write_text_file(out_dir + "/" + name, text);
           },
           environment))
    reporters.push_back(std::move(file));
  report(reporters, context, results, all);
}

}  // namespace crossover
