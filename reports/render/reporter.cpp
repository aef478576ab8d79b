#include "reports/render/reporter.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "core/cells/keys.hpp"
#include "reports/analysis/energy_and_cost.hpp"
#include "reports/analysis/workload_verdict.hpp"
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

// The crossover statements of one comparison as terminal lines, each with its "why" line in
// `verbose`; without them where the verdict said them (`in_verdict`), its pairs' lines kept.
std::string crossover_text(const ComparisonFindings& f, bool verbose, bool in_verdict) {
  const CompareSpec& spec = f.spec;
  std::string out;
  for (const auto& c : f.crossovers) {
    if (in_verdict) break;
    out += "  " + c.workload + ": " + c.statement + "\n";
    if (verbose && !c.why.empty()) out += "    why: " + c.why + "\n";
  }
  for (const auto& line : measure_statements(f)) out += "  " + line + "\n";
  // Where no numeric axis varies there is nothing to cross along: each pair's own verdict, but
  // for the CPU against a device, whose pairs are the device tables' rows above, with their
  // speedup and winner.
  const bool in_device_tables =
      is_key(spec.axis, Key::kDevice) && device_kind(spec.baseline) == DeviceKind::kCpu;
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

// The verdicts, first: the answer before the tables it comes from, on `machine` (its CPU, where
// known); `brief`, one line a workload.
std::string verdict_text(const Analysis& analysis, const std::vector<Result>& results,
                         const std::set<std::size_t>& drifted, const std::string& band,
                         const std::string& machine, bool brief) {
  const std::vector<WorkloadVerdict> found = verdicts(analysis, drifted);
  if (found.empty()) return "";
  // The caveat under the heading, one paragraph (the terminal wraps it).
  // Only where the verdict's comparison has a predicted side (not threads against threads).
  const bool predicted =
      std::any_of(found.begin(), found.end(), [](const WorkloadVerdict& v) { return v.predicted; });
  const std::string caveat = predicted ? verdict_caveat(results, band) : "";
  std::string out = verdict_heading(analysis) + (machine.empty() ? "" : ", on " + machine) + ":\n" +
                    (caveat.empty() ? "" : caveat + ".\n");
  for (const WorkloadVerdict& v : found) {
    for (std::size_t i = 0; i < (brief ? 1 : v.lines.size()); ++i)
      out += (i == 0 ? "  " : "    ") + v.lines[i] + "\n";
  }
  return out + "\n";
}

class TerminalReporter : public Reporter {
 public:
  explicit TerminalReporter(std::function<void(const std::string&)> print)
      : print_(std::move(print)) {}
  void begin(const ReportContext& context) override { context_ = context; }
  // Brief: the verdict alone. Default: the verdict, the tables, and the comparisons the verdict
  // does not say (its own one is said in it). Verbose: each comparison with its "why" lines.
  void finish(const std::vector<Result>& results, const Analysis& analysis) override {
    const Detail detail = context_.detail;
    std::string out =
        verdict_text(analysis, results, context_.drifted_cells, context_.band_validation,
                     context_.machine, detail == Detail::kBrief);
    if (detail == Detail::kBrief && out.empty() && !analysis.comparisons.empty()) {
      const CompareSpec& spec = analysis.comparisons.front().spec;
      out = "Verdict (" + spec.axis + "=" + spec.baseline + " vs " + spec.contender +
            "): none, no pair of cells that ran differs only in " + spec.axis + "\n";
    }
    if (detail == Detail::kBrief) {
      while (out.size() > 1 && out[out.size() - 2] == '\n') out.pop_back();  // no blank line
      print_(out);
      return;
    }
    out += render_comparison_text(results, analysis.devices, analysis.measure, detail,
                                  context_.default_threads);
    const bool verdict_said = !verdicts(analysis, context_.drifted_cells).empty();
    for (std::size_t i = 0; i < analysis.comparisons.size(); ++i) {
      const bool in_verdict = i == 0 && verdict_said && detail != Detail::kVerbose;
      out += crossover_text(analysis.comparisons[i], detail == Detail::kVerbose, in_verdict);
    }
    if (!context_.searches.empty()) out += "\nSearches:\n";
    for (const auto& search : context_.searches) {
      const std::string fixed = search.value("fixed", "");
      out += "  " + search.value("workload", "") + (fixed.empty() ? "" : " (" + fixed + ")") +
             ", " + search.value("compare", "") + ": " + search.value("statement", "") + "\n";
    }
    print_(out);
  }

 private:
  std::function<void(const std::string&)> print_;
  ReportContext context_;
};

}  // namespace

std::vector<std::unique_ptr<Reporter>> report_files(TextSink sink,
                                                    std::optional<Environment> environment) {
  std::vector<std::unique_ptr<Reporter>> out;
  for (const RunFile& file : run_folder_files()) {
    if (!file.render) continue;  // the sweep's
    out.push_back(std::make_unique<FileReporter>(
        file.name, sink,
        [render = file.render, environment](
            const ReportContext& context, const std::vector<Result>& results,
            const Analysis& analysis) { return render(context, results, analysis, environment); }));
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
