// What users and files put into a report reaches it as text, escaped for where it lands: one
// Markdown writer, no control character in any report or on the terminal, spreadsheet formulas
// defused in results.csv; and a results file that no run could have written is refused with the
// line that says why.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/records/result_files.hpp"
#include "core/text/text.hpp"
#include "reports/render/table_writer.hpp"
#include "tests/cli_support.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

using namespace testing;  // crossover::testing: the binary, scratch directories
namespace fs = std::filesystem;

using testing::kStandin;

TEST(Escaping, MarkdownTextShowsDataAsItIs) {
  EXPECT_EQ(markdown_text("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(markdown_text("a|b `c` \\d & e"), "a\\|b \\`c\\` \\\\d &amp; e");
  EXPECT_EQ(markdown_text("two\nlines\tand\x1b[31mred\x07"), "two lines and[31mred");
  EXPECT_EQ(markdown_text("plain iris_mlp cpu=1.5x"), "plain iris_mlp cpu=1.5x");
  // A table cell cannot break out of its row or column.
  TextTable t;
  t.header = {"a"};
  t.rows = {{"x|y\n| z |"}};
  const std::string table = render_markdown_table(t);
  EXPECT_EQ(table, "| a |\n|---|\n| x\\|y \\| z \\| |\n");
}

TEST(Escaping, ControlCharactersAreDroppedAndDurationsBeyondAYearAreSeconds) {
  EXPECT_EQ(printable_text("ok\x1b]0;title\x07 \x7f\xc2\x9b"
                           "2J done\n\ttab"),
            "ok]0;title 2J done\n\ttab");
  EXPECT_EQ(printable_text("caf\xc3\xa9 \xc2\xb1"), "caf\xc3\xa9 \xc2\xb1");  // é and ± stay
  EXPECT_EQ(format_seconds(1e308), "1e+308 s");
  EXPECT_EQ(format_seconds(4e7), "4e+07 s");
  EXPECT_EQ(format_seconds(3600), "60 min 00 s");
  EXPECT_EQ(clock_text(1e308), "1e+308 s");
  EXPECT_EQ(clock_text(3725), "1:02:05");
  EXPECT_EQ(format_axis_value(1e300), "1e+300");
}

TEST(Escaping, SpreadsheetFormulasInResultsCsvAreDefused) {
  Result r;
  r.cell.workload = "iris_mlp";
  r.status = CellStatus::kFailed;
  r.reason = "=HYPERLINK(\"http://x\",\"click\")";
  r.cell.host = "@SUM(1)";
  const std::string row = csv_row(r);
  EXPECT_NE(row.find("\"'=HYPERLINK(\"\"http://x\"\",\"\"click\"\")\""), std::string::npos) << row;
  EXPECT_NE(row.find("\"'@SUM(1)\""), std::string::npos) << row;
  r.reason = "+1-2\x1b[2J";
  EXPECT_NE(csv_row(r).find("\"'+1-2[2J\""), std::string::npos) << csv_row(r);
  EXPECT_NE(csv_row(Result{}).find(",0,"), std::string::npos);  // numbers stay numbers
}

// A run whose every label, reason and environment field is hostile, reported end to end.
TEST(Escaping, HostileTextReachesReportMdEscapedAndTheTerminalWithoutControls) {
  ScratchDir dir;
  const std::string run = dir.file("run");
  fs::create_directories(run);
  Result r;
  r.cell.workload = "standin_mlp";
  r.cell.dataset = "standin";
  r.cell.host = "<script>x</script>|`\n# heading";
  r.data_source = DataSource::kReal;
  r.train_rows = 64;
  r.epoch_seconds_samples = {0.010, 0.011, 0.012};
  r.epoch_seconds = 0.011;
  Result failed = r;
  failed.cell.index = 1;
  failed.cell.dataset_size = 32;
  failed.cell.host = "other";
  failed.status = CellStatus::kFailed;
  failed.reason = "boom \x1b[2J\x1b]0;pwned\x07 <img src=x onerror=alert(1)>";
  std::ofstream(run + "/results.jsonl") << result_to_json(r).dump() << "\n"
                                        << result_to_json(failed).dump() << "\n";
  std::ofstream(run + "/env.json") << R"({"cpu": {"model": "<b>evil</b>\u001b[31m|cpu"},
    "prices": {"cuda@<i>node</i>": 2.5}})";
  const Outcome o = crossover(dir, "report " + run);
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string md = slurp(run + "/report.md");
  for (const char* raw : {"<script>", "<img", "<b>evil", "<i>node", "\x1b", "\n# heading"})
    EXPECT_EQ(md.find(raw), std::string::npos) << raw << "\n" << md;
  EXPECT_NE(md.find("&lt;b&gt;evil&lt;/b&gt;"), std::string::npos) << md;
  EXPECT_NE(md.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << md;
  for (const std::string& terminal : {o.out, o.err})
    EXPECT_EQ(terminal.find('\x1b'), std::string::npos) << terminal;
  EXPECT_EQ(slurp(run + "/results.csv").find('\x1b'), std::string::npos);
  EXPECT_EQ(slurp(run + "/report.html").find('\x1b'), std::string::npos);
}

// Markdown that a label would start: an image, a link, emphasis, a heading.
constexpr const char* kMarkdownAttack =
    "![x](http://evil.example/p.png)[click](javascript:alert(1)) **bold** # heading";
// And one that starts with a heading's mark.
constexpr const char* kHeadingAttack = "# owned";

TEST(Escaping, MarkdownTextShowsLinksImagesEmphasisAndHeadingsAsText) {
  EXPECT_EQ(markdown_text(kMarkdownAttack),
            "!\\[x\\](http://evil.example/p.png)[click\\](javascript:alert(1)) \\*\\*bold\\*\\* "
            "# heading");
  EXPECT_EQ(markdown_text("# heading, cells #3"), "\\# heading, cells #3");
  EXPECT_EQ(markdown_text("#0 / #4"), "#0 / #4");
  EXPECT_EQ(markdown_text("1.2x [1.1, 1.3]"), "1.2x [1.1, 1.3]");
  EXPECT_EQ(markdown_text("[ref][1] [def]: x"), "[ref\\][1] [def\\]: x");
  EXPECT_EQ(markdown_text("_under_ snake_case ~~gone~~"),
            "\\_under\\_ snake_case \\~\\~gone\\~\\~");
}

// The same label in every .md a command writes: report.md, history.md and compare --markdown.
TEST(Escaping, NoMarkdownOutputTurnsALabelIntoALinkAnImageOrAHeading) {
  ScratchDir dir;
  std::vector<std::string> runs;
  for (const char* name : {"a", "b"}) {
    const std::string run = dir.file(name);
    fs::create_directories(run);
    Result r;
    r.cell.workload = "mnist_mlp";
    r.cell.dataset = "mnist";
    r.cell.host = kMarkdownAttack;
    r.cell.dataset = kHeadingAttack;
    r.data_source = DataSource::kReal;
    r.train_rows = 64;
    r.epoch_seconds_samples = {0.010, 0.011, 0.012};
    r.epoch_seconds = 0.011;
    std::ofstream(run + "/results.jsonl") << result_to_json(r).dump() << "\n";
    std::ofstream(run + "/env.json") << nlohmann::json{
        {"label", kMarkdownAttack},
        {"crossover_revision",
         kMarkdownAttack}}.dump();
    runs.push_back(run);
  }
  ASSERT_EQ(crossover(dir, "report " + runs[0]).code, 0);
  ASSERT_EQ(crossover(dir, "history " + runs[0] + " " + runs[1] + " --out " + dir.file("h")).code,
            0);
  const Outcome compared = crossover(
      dir, "compare " + runs[0] + " " + runs[1] + " --markdown " + dir.file("compare.md"));
  ASSERT_LE(compared.code, 1) << compared.err;
  for (const std::string& file :
       {runs[0] + "/report.md", dir.file("h/history.md"), dir.file("compare.md")}) {
    const std::string md = slurp(file);
    ASSERT_FALSE(md.empty()) << file;
    for (const char* raw : {"[x](", "[click](", "**bold**", "\n# owned", "| # owned", "- # owned"})
      EXPECT_EQ(md.find(raw), std::string::npos) << file << ": " << raw << "\n" << md;
  }
}

TEST(Escaping, ALabelWithAControlCharacterIsRefused) {
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g", "defaults": {"repeats": 1,
    "epochs": 1}, "experiments": [{"workload": "standin_mlp", "grid": {}}]})");
  const Outcome o =
      crossover(dir, "run " + grid + " --label \"$(printf 'a\\033b')\" --dry-run", kStandin);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("--label holds a control character"), std::string::npos) << o.err;
}

TEST(Escaping, AResultsFileNoRunCouldWriteIsRefusedWithItsLine) {
  ScratchDir dir;
  Result r;
  r.cell.workload = "standin_mlp";
  r.cell.dataset = "standin";
  r.data_source = DataSource::kReal;
  r.train_rows = 64;
  r.epoch_seconds_samples = {0.010, 0.011};
  r.epoch_seconds = 0.011;
  const std::string line = result_to_json(r).dump();
  // One run given twice counts nothing twice: refused.
  const std::string run = dir.file("run");
  fs::create_directories(run);
  std::ofstream(run + "/results.jsonl") << line << "\n";
  const Outcome twice =
      crossover(dir, "report " + run + " " + run + "/results.jsonl --out " + dir.file("joint"));
  EXPECT_EQ(twice.code, 2);
  EXPECT_NE(twice.err.find("are one run, given twice"), std::string::npos) << twice.err;
  // A duplicated line: refused with its line number.
  std::ofstream(run + "/results.jsonl") << line << "\n" << line << "\n";
  const Outcome duplicated = crossover(dir, "report " + run);
  EXPECT_EQ(duplicated.code, 2);
  EXPECT_NE(duplicated.err.find("results.jsonl:2:"), std::string::npos) << duplicated.err;
  EXPECT_NE(duplicated.err.find("cell 0 is on line 1 already"), std::string::npos)
      << duplicated.err;
  // A null epoch_seconds names the field and the line.
  auto j = nlohmann::json::parse(line);
  j["epoch_seconds"] = nullptr;
  std::ofstream(run + "/results.jsonl") << j.dump() << "\n";
  const Outcome null = crossover(dir, "report " + run);
  EXPECT_NE(null.err.find("results.jsonl:1: cell 0 is marked ok, but epoch_seconds is null"),
            std::string::npos)
      << null.err;
  // More samples than a run stores (2,000 per process): refused, not minutes of bootstrap.
  j = nlohmann::json::parse(line);
  j["epoch_seconds_samples"] = std::vector<double>(2001, 0.01);
  std::ofstream(run + "/results.jsonl") << j.dump() << "\n";
  const Outcome many = crossover(dir, "report " + run);
  EXPECT_EQ(many.code, 2);
  EXPECT_NE(many.err.find("epoch_seconds_samples holds 2001 samples; a run stores at most 2000 "
                          "per process"),
            std::string::npos)
      << many.err;
  j["processes"] = 2;  // two processes store up to 4,000
  std::ofstream(run + "/results.jsonl") << j.dump() << "\n";
  EXPECT_EQ(crossover(dir, "report " + run).code, 0);
  // A duration beyond what a run can record is no measurement: the cell reads as failed, naming
  // the field and its ceiling, and never prints as a time (nor as a negative count of minutes).
  j = nlohmann::json::parse(line);
  j["epoch_seconds"] = 1e308;
  j["epoch_seconds_samples"] = {1e308, 1e308};
  std::ofstream(run + "/results.jsonl") << j.dump() << "\n";
  const Outcome huge = crossover(dir, "report " + run);
  EXPECT_EQ(huge.code, 0) << huge.err;
  EXPECT_EQ(huge.out.find("-153722867280912930"), std::string::npos) << huge.out;
  EXPECT_EQ(huge.out.find("1e+308 s"), std::string::npos) << huge.out;
  EXPECT_NE(huge.out.find("epoch_seconds is 1e+308, above the largest a run can record"),
            std::string::npos)
      << huge.out;
}

}  // namespace
}  // namespace crossover
