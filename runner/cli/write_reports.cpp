#include "runner/cli/write_reports.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>

#include "core/cells/keys.hpp"
#include "core/files/file_writer.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "reports/analysis/cell_names.hpp"
#include "reports/render/reporter.hpp"
#include "runner/cli/command_support.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/terminal.hpp"

namespace crossover {

std::vector<CompareSpec> compare_specs(const std::vector<std::string>& texts) {
  std::vector<CompareSpec> specs;
  for (const auto& text : texts)
    specs.push_back(
        or_exit<std::invalid_argument>(kExitBadInput, [&] { return parse_compare(text); }));
  if (specs.empty()) specs.push_back(CompareSpec{});
  return specs;
}

bool compare_values_present(const std::vector<std::string>& given,
                            const std::vector<CompareSpec>& specs, const std::vector<Cell>& cells) {
  if (cells.empty()) return true;
  for (std::size_t i = 0; i < given.size() && i < specs.size(); ++i) {
    const CompareSpec& spec = specs[i];
    if (spec.baseline == spec.contender) {
      spdlog::error("--compare {}: both sides are {}; give two different values of {}", given[i],
                    spec.baseline, spec.axis);
      return false;
    }
    std::vector<std::string> values;
    bool known = false;
    for (const Cell& cell : cells) {
      const auto config = cell_config_json(cell);
      if (!config.contains(spec.axis)) continue;
      known = true;
      const std::string value = value_text(config[spec.axis]);
      if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
    }
    // A grid of one device asked device=cpu:cuda gets the analysis's "no pair" and the reason its
    // other cells did not run; device values are checked where they are parsed.
    if (!known || is_key(spec.axis, Key::kDevice)) continue;
    for (const std::string& side : {spec.baseline, spec.contender}) {
      if (std::find(values.begin(), values.end(), side) != values.end()) continue;
      const std::string guess = did_you_mean(side, values);
      spdlog::error("--compare {}: no cell of this grid has {}={}{}; its values: {}", given[i],
                    spec.axis, side, guess.empty() ? "" : " (did you mean " + guess + "?)",
                    join(values));
      return false;
    }
  }
  return true;
}

namespace {

Detail& terminal_detail() {
  static Detail detail = Detail::kDefault;
  return detail;
}

}  // namespace

void set_terminal_detail(Detail detail) { terminal_detail() = detail; }

void write_reports(const std::string& out_dir, const ReportContext& given,
                   const std::vector<Result>& results, const std::vector<CompareSpec>& specs,
                   const std::optional<Environment>& environment) {
  ReportContext context = given;
  context.detail = terminal_detail();
  if (environment && environment->shards.empty() && !environment->cpu.model.empty())
    context.machine =
        environment->cpu.model +
        (environment->cpu.logical_cores
             ? ", " + std::to_string(*environment->cpu.logical_cores) + " logical cores"
             : "");
  if (environment && environment->threads.intra_op)
    context.default_threads =
        DefaultThreads{*environment->threads.intra_op, environment->threads.blas.value_or(0)};
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(terminal_report(
      [](const std::string& text) { std::cout << wrap_prose(text, output_columns()); }));
  // Each search's own comparison is analysed too, so its probes pair in the tables.
  std::vector<CompareSpec> all = specs;
  for (const auto& search : context.searches) {
    const Found wrong = problem_of<std::invalid_argument>([&] {
      const CompareSpec spec = parse_compare(search.value("compare", "device=cpu:cuda"));
      const bool known = std::any_of(all.begin(), all.end(), [&](const CompareSpec& s) {
        return s.axis == spec.axis && s.baseline == spec.baseline && s.contender == spec.contender;
      });
      if (!known) all.push_back(spec);
    });
    if (wrong) spdlog::warn("a search's comparison: {}", wrong->text);
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
