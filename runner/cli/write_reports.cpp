#include "runner/cli/write_reports.hpp"

#include <spdlog/spdlog.h>

#include <iostream>

#include "core/file_writer.hpp"
#include "reports/reporter.hpp"

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
                   const nlohmann::json& environment) {
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(terminal_report([](const std::string& text) { std::cout << text; }));
  for (auto& file : report_files(
           [&out_dir](const std::string&name, const std::string&text) {
             write_text_file(out_dir + "/" + name, text);
           },
           environment))
    reporters.push_back(std::move(file));
  report(reporters, context, results, specs);
}

}  // namespace crossover
