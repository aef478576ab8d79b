#include "reports/render/reporter.hpp"

#include <set>
#include <utility>

#include "reports/analysis/measures.hpp"
#include "reports/analysis/verdict.hpp"
#include "reports/render/report_markdown.hpp"
#include "reports/render/run_outputs.hpp"

namespace crossover {
namespace {

// A report written at the end as one file: `render` makes its text from what the reporter kept.
class FileReporter : public Reporter {
 public:
  using Render =
      std::function<std::string(const ReportContext&, const std::vector<Result>&, const Analysis&)>;
  FileReporter(std::string name, TextSink sink, Render render)
      : name_(std::move(name)), sink_(std::move(sink)), render_(std::move(render)) {}
  void begin(const ReportContext& context) override { context_ = context; }
  void finish(const std::vector<Result>& results, const Analysis& analysis) override {
    sink_(name_, render_(context_, results, analysis));
  }

 private:
  std::string name_;
  TextSink sink_;
  Render render_;
  ReportContext context_;
};

// The crossover statements of one comparison as terminal lines.
std::string crossover_text(const ComparisonFindings& f) {
  const CompareSpec& spec = f.spec;
  std::string out;
  for (const auto& c : f.crossovers) {
    out += "  " + c.workload + ": " + c.statement + "\n";
    if (!c.why.empty()) out += "    why: " + c.why + "\n";
  }
  for (const auto& line : measure_statements(f)) out += "  " + line + "\n";
  // Where no numeric axis varies there is nothing to cross along: each pair's own verdict, but
  // for the CPU against a device, whose pairs are the device tables' rows above, with their
  // speedup and winner.
  const bool in_device_tables =
      spec.axis == "device" && device_kind(spec.baseline) == DeviceKind::kCpu;
  if (!in_device_tables)
    for (const auto& line : pair_verdicts(f)) out += "  " + line + "\n";
  if (f.pairs.empty()) {
    out += "  no pair of cells that ran differs only in " + spec.axis + " (" + spec.baseline +
           " vs " + spec.contender + ")\n";
  }
  if (out.empty()) return "";  // every pair is a row of the device tables: no empty section
  return "\nCrossovers" + (spec.measure == Measure::kTime ? "" : " on " + text_of(spec.measure)) +
         " (" + spec.axis + "=" + spec.baseline + " vs " + spec.contender + "):\n" + out;
}

// The verdicts, first: the answer before the tables it comes from.
std::string verdict_text(const Analysis& analysis, const std::vector<Result>& results,
                         const std::set<std::size_t>& drifted, const std::string& band) {
  const std::vector<WorkloadVerdict> found = verdicts(analysis, drifted);
  if (found.empty()) return "";
  // The caveat under the heading, a clause a line, so that no line runs on.
  std::string caveat = verdict_caveat(results, band);
  for (std::size_t at; (at = caveat.find("; ")) != std::string::npos;) caveat.replace(at, 2, ";\n");
  std::string out = verdict_heading(analysis) + ":\n" + (caveat.empty() ? "" : caveat + ".\n");
  for (const WorkloadVerdict& v : found) {
    for (std::size_t i = 0; i < v.lines.size(); ++i)
      out += (i == 0 ? "  " : "    ") + v.lines[i] + "\n";
  }
  return out + "\n";
}

class TerminalReporter : public Reporter {
 public:
  explicit TerminalReporter(std::function<void(const std::string&)> print)
      : print_(std::move(print)) {}
  void begin(const ReportContext& context) override {
    searches_ = context.searches;
    drifted_ = context.drifted_cells;
    band_ = context.band_validation;
  }
  void finish(const std::vector<Result>& results, const Analysis& analysis) override {
    std::string out = verdict_text(analysis, results, drifted_, band_);
    out += render_comparison_text(results, analysis.devices, analysis.measure);
    for (const ComparisonFindings& f : analysis.comparisons) out += crossover_text(f);
    if (!searches_.empty()) out += "\nSearches:\n";
    for (const auto& search : searches_) {
      const std::string fixed = search.value("fixed", "");
      out += "  " + search.value("workload", "") + (fixed.empty() ? "" : " (" + fixed + ")") +
             ", " + search.value("compare", "") + ": " + search.value("statement", "") + "\n";
    }
    print_(out);
  }

 private:
  std::function<void(const std::string&)> print_;
  nlohmann::ordered_json searches_;
  std::set<std::size_t> drifted_;
  std::string band_;
};

}  // namespace

std::vector<std::unique_ptr<Reporter>> report_files(TextSink sink,
                                                    std::optional<Environment> environment) {
  std::vector<std::unique_ptr<Reporter>> out;
  for (const RunFile& file : run_folder_files()) {
    if (!file.render) continue;  // the sweep's
    out.push_back(std::make_unique<FileReporter>(
        file.name, sink,
        [render = file.render, environment](const ReportContext& context,
                                            const std::vector<Result>& results,
                                            const Analysis& analysis) {
          return render(context, results, analysis, environment);
        }));
  }
  return out;
}

std::unique_ptr<Reporter> terminal_report(std::function<void(const std::string&)> print) {
  return std::make_unique<TerminalReporter>(std::move(print));
}

void report(const std::vector<std::unique_ptr<Reporter>>& reporters, const ReportContext& context,
            const std::vector<Result>& results, const std::vector<CompareSpec>& specs) {
  const Analysis analysis = analyse(results, specs, context.measure, context.machines_apart);
  for (const auto& reporter : reporters) reporter->begin(context);
  for (const Result& r : results) {
    for (const auto& reporter : reporters) reporter->cell(r);
  }
  for (const auto& reporter : reporters) reporter->finish(results, analysis);
}

}  // namespace crossover
