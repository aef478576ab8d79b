// Every output of a run is a Reporter: told what the run is, handed each result, then the results
// and one analysis. The report files go through a sink, with the text their renderers make.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/files/run_files.hpp"
#include "core/records/result_files.hpp"
#include "reports/charts/svg_charts.hpp"
#include "reports/render/report_html.hpp"
#include "reports/render/report_markdown.hpp"
#include "reports/render/reporter.hpp"
#include "reports/render/run_outputs.hpp"
#include "reports/render/several_runs.hpp"
#include "runner/sweep/output_dir.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

Result timed(std::size_t index, const std::string& device, double seconds) {
  Result r;
  r.cell.index = index;
  r.cell.workload = "iris_mlp";
  r.cell.dataset = "iris";
  r.cell.device = parse_device(device).value();
  r.cell.dataset_size = 1000;
  r.status = CellStatus::kOk;
  r.data_source = DataSource::kReal;
  r.train_rows = 1000;
  r.epoch_seconds = seconds;
  r.epoch_seconds_samples = {seconds * 0.99, seconds, seconds * 1.01, seconds, seconds};
  r.epoch_samples = 5;
  return r;
}

// Writes down what it was handed, in order.
class Recorder : public Reporter {
 public:
  std::vector<std::string> calls;
  std::size_t pairs = 0;
  void begin(const ReportContext& context) override { calls.push_back("begin " + context.title); }
  void cell(const Result& r) override { calls.push_back("cell " + std::to_string(r.cell.index)); }
  void finish(const std::vector<Result>& results, const Analysis& analysis) override {
    calls.push_back("finish " + std::to_string(results.size()) + " " +
                    std::to_string(analysis.comparisons.size()));
    pairs = analysis.comparisons.front().pairs.size();
  }
};

TEST(Reporter, EachReporterIsToldTheRunThenEachCellThenTheResultsWithOneAnalysis) {
  const std::vector<Result> results = {timed(0, "cpu", 0.2), timed(1, "cuda", 0.1)};
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(std::make_unique<Recorder>());
  reporters.push_back(std::make_unique<Recorder>());
  ReportContext context;
  context.title = "g";
  report(reporters, context, results, {CompareSpec{}, CompareSpec{"threads", "1", "0"}});
  for (const auto& reporter : reporters) {
    const auto& recorder = static_cast<const Recorder&>(*reporter);
    EXPECT_EQ(recorder.calls,
              (std::vector<std::string>{"begin g", "cell 0", "cell 1", "finish 2 2"}));
    EXPECT_EQ(recorder.pairs, 1u);  // the cpu/cuda pair
  }
}

TEST(Reporter, TheReportFilesAreTheRenderersTextsThroughTheSink) {
  const std::vector<Result> results = {timed(0, "cpu", 0.2), timed(1, "cuda", 0.1)};
  std::map<std::string, std::string> files;
  const auto reporters = report_files(
      [&files](const std::string& name, const std::string& text) {
        EXPECT_TRUE(files.emplace(name, text).second) << name << " written twice";
      },
      Environment{});
  ReportContext context;
  context.title = "g";
  report(reporters, context, results, {CompareSpec{}});
  // The files the reporters write are the run folder's report files as declared
  // (core/files/run_files.hpp), which the commands' "Reports:" lines and docs/outputs.md name.
  std::vector<std::string> written;
  for (const auto& [name, text] : files) written.push_back(name);
  std::vector<std::string> declared = run_file_names(RunFileWriter::kReports);
  std::sort(declared.begin(), declared.end());
  EXPECT_EQ(written, declared);
  const Analysis analysis = analyse(results, {CompareSpec{}});
  EXPECT_EQ(files["results.csv"], render_csv(results));
  EXPECT_EQ(files["report.md"], render_markdown(context, results, analysis));
  EXPECT_EQ(files["report.html"], render_html(context, results, analysis));
  // The terminal, report.md and summary.json state the same winner from the same analysis: in
  // the terminal, the device table's row (no "Crossovers" section to repeat it, and none empty).
  std::string terminal;
  terminal_report([&terminal](const std::string& text) {
    terminal = text;
  })->finish(results, analysis);
  ASSERT_EQ(analysis.comparisons.front().pairs.size(), 1u);
  const auto summary = nlohmann::json::parse(files["summary.json"]);
  EXPECT_EQ(summary["pairs"][0]["winner"], "cuda");
  // summary.json opens with the same verdict as the terminal, line for line.
  ASSERT_EQ(summary["verdict"]["workloads"].size(), 1u);
  const std::string first_line = summary["verdict"]["workloads"][0]["lines"][0];
  EXPECT_NE(terminal.find("  " + first_line + "\n"), std::string::npos) << terminal;
  EXPECT_EQ(summary["verdict"]["heading"], "Verdict (device=cpu vs cuda)");
  EXPECT_NE(terminal.find("  2x ["), std::string::npos) << terminal;
  EXPECT_EQ(terminal.find("Crossovers (device=cpu vs cuda)"), std::string::npos) << terminal;
}

// With no numeric axis to cross along, the terminal still says who won each pair, and by how much.
TEST(Reporter, WithoutANumericAxisTheTerminalGivesEachPairsVerdict) {
  std::vector<Result> results = {timed(0, "cpu", 0.2), timed(1, "cpu", 0.1), timed(2, "cpu", 0.2),
                                 timed(3, "cpu", 0.2)};
  results[1].cell.optimizer_impl = OptimizerImpl::kFlat;
  results[2].cell.workload = results[3].cell.workload = "boston_mlp";
  results[3].cell.optimizer_impl = OptimizerImpl::kFlat;
  const CompareSpec spec{"optimizer_impl", "loop", "flat"};
  const Analysis analysis = analyse(results, {spec});
  ASSERT_EQ(analysis.comparisons.front().pairs.size(), 2u);
  EXPECT_TRUE(analysis.comparisons.front().crossovers.empty());
  std::string terminal;
  terminal_report([&terminal](const std::string& text) {
    terminal = text;
  })->finish(results, analysis);
  const Pair& faster = analysis.comparisons.front().pairs.front();
  EXPECT_NE(terminal.find("  " + cell_label(results[1].cell) + ": " + speedup_text(faster) +
                          " against loop, flat faster\n"),
            std::string::npos)
      << terminal;
  EXPECT_NE(terminal.find("  " + cell_label(results[3].cell) + ": "), std::string::npos);
  EXPECT_NE(terminal.find(" against loop, a tie\n"), std::string::npos) << terminal;
  // The HTML lists the same verdicts under its crossovers heading, never an empty list.
  ReportContext context;
  const std::string html = render_html(context, results, analysis);
  EXPECT_EQ(html.find("optimizer_impl=flat</h2><ul></ul>"), std::string::npos) << html;
  EXPECT_NE(html.find("<li>" + html_escape(cell_label(results[1].cell)) + ": " +
                      html_escape(speedup_text(faster)) + " against loop, flat faster</li>"),
            std::string::npos);
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// docs/development.md: a new file of a run's folder is one entry in reports/render/run_outputs.cpp
// (its name, what it holds, its renderer). Declared for this test only, it reaches every rule that
// reads the list, and the reporters write it.
// Two machines' runs as one report: the second's cells, its searches' cells and its drifted cells
// numbered after the first's; a cell keeps a host of its own; each line under its run's label.
TEST(Reporter, SeveralRunsAreNumberedAfterEachOtherUnderTheirLabels) {
  LabelledRun a{"a",
                {timed(0, "cpu", 1.0), timed(2, "cpu", 2.0)},
                nlohmann::ordered_json::array(),
                {2},
                {"CPU: x"},
                {}};
  Result hosted = timed(0, "cpu", 3.0);
  hosted.cell.host = "own";
  LabelledRun b{"b",
                {hosted, timed(1, "cpu", 4.0)},
                nlohmann::ordered_json::array(),
                {1},
                {"CPU: y"},
                {"reference BLAS"}};
  b.searches.push_back({{"fixed", "workload=iris_mlp"}, {"probes", {{{"cells", {0, 1}}}}}});
  ReportContext context;
  const std::vector<Result> results = combine_runs({a, b}, context);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[2].cell.index, 3u);  // after the first run's highest cell, 2
  EXPECT_EQ(results[3].cell.index, 4u);
  EXPECT_EQ(results[0].cell.host, "a");
  EXPECT_EQ(results[2].cell.host, "own");
  EXPECT_EQ(results[3].cell.host, "b");
  EXPECT_EQ(context.drifted_cells, (std::set<std::size_t>{2, 4}));
  ASSERT_EQ(context.searches.size(), 1u);
  EXPECT_EQ(context.searches[0]["fixed"], "host=b, workload=iris_mlp");
  EXPECT_EQ(context.searches[0]["probes"][0]["cells"], nlohmann::ordered_json({3, 4}));
  EXPECT_EQ(context.environment, (std::vector<std::string>{"a: CPU: x", "b: CPU: y"}));
  EXPECT_EQ(context.warnings, (std::vector<std::string>{"b: reference BLAS"}));
}

TEST(RunFiles, AThrowAwayFileIsOneDeclaration) {
  const std::string name = "throwaway.txt";
  const testing::ScratchDir dir;
  dir.write("results.jsonl", "");
  dir.write(name, "the run's own");
  EXPECT_FALSE(run_file_problem(dir.file(name)));  // not declared: any file may be written
  {
    const ScopedRunFile declared(
        {name, "a test's own file", true,
         [](const ReportContext& context, const std::vector<Result>& results, const Analysis&,
            const std::optional<Environment>&) {
           return context.title + " of " + std::to_string(results.size()) + " cells";
         }});
    const auto reports = run_file_names(RunFileWriter::kReports);
    EXPECT_NE(std::find(reports.begin(), reports.end(), name), reports.end());
    const auto sweep = run_file_names(RunFileWriter::kSweep);
    EXPECT_EQ(std::find(sweep.begin(), sweep.end(), name), sweep.end());
    // The reporters write it, with its renderer's text.
    std::map<std::string, std::string> files;
    ReportContext context;
    context.title = "g";
    report(report_files(
               [&files](const std::string& file, const std::string& text) { files[file] = text; },
               std::nullopt),
           context, {timed(0, "cpu", 0.2)}, {CompareSpec{}});
    EXPECT_EQ(files[name], "g of 1 cells");
    // What `compare --markdown` and the verdict files may not replace.
    EXPECT_NE(run_file_problem(dir.file(name)).value().text.find("is a file of the run"),
              std::string::npos);
    // What `run --overwrite` moves aside, with the run's other files.
    const std::string previous = move_previous_run(dir.path(), "t");
    EXPECT_EQ(testing::slurp(previous + "/" + name), "the run's own");
    EXPECT_TRUE(std::filesystem::exists(previous + "/results.jsonl"));
    // The "Reports:" lines name it.
    EXPECT_NE(written_files_text("d", reports).find(name), std::string::npos);
    EXPECT_THROW(ScopedRunFile({name, "twice", true, nullptr}), std::invalid_argument);
  }
  const auto after = run_file_names();
  EXPECT_EQ(std::find(after.begin(), after.end(), name), after.end());
}

}  // namespace
}  // namespace crossover
