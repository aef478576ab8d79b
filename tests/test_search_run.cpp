// A grid's searches: the axis given as {"search": ...} parsed and checked, expanded into lines of
// two template cells, and run through the SearchRunner against a stand-in whose speedup curve is
// known exactly; then the built binary end to end (results, searches.json, reports, --resume).
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "runner/grid/grid.hpp"
#include "runner/sweep/search_run.hpp"
#include "tests/cli_support.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

using namespace testing;  // crossover::testing: the binary, scratch directories

std::vector<GridIssue> issues_of(const std::string& text) {
  try {
    expand_grid(parse_grid(text, "g.json"));
  } catch (const GridError& e) {
    return e.issues();
  }
  return {};
}

// The grid of one iris experiment whose `dataset_size` axis is `axis`, with `more` axes.
std::string grid_with(const std::string& axis, const std::string& more = "") {
  return R"({"name": "s", "experiments": [{"workload": "iris_mlp", "grid": {)" + more +
         R"("dataset_size": )" + axis + "}}]}";
}

std::string all_messages(const std::vector<GridIssue>& issues) {
  std::string text;
  for (const auto& i : issues) text += i.path + ": " + i.message + "\n";
  return text;
}

TEST(SearchGrid, ASearchAxisBecomesLinesOfTwoTemplatesAndNoListedCells) {
  const Expansion e = expand_grid(
      parse_grid(grid_with(R"({"search": {"from": 112, "to": 100000, "max_probes": 6}})",
                           R"("execution": ["eager", "graph"], )"),
                 "g.json"));
  EXPECT_TRUE(e.cells.empty());
  ASSERT_EQ(e.searches.size(), 2u);  // one line per execution
  for (const SearchLine& line : e.searches) {
    EXPECT_EQ(line.spec.key, "dataset_size");
    EXPECT_EQ(line.spec.compare, "device=cpu:cuda");  // the default comparison
    EXPECT_EQ(line.spec.max_probes, 6);
    EXPECT_TRUE(line.spec.integer);
    EXPECT_EQ(line.baseline.device, Device::cpu());
    EXPECT_EQ(line.contender.device, Device::cuda());
    EXPECT_EQ(line.baseline_name, "cpu");
  }
  // The CPU side of the graph line is the CPU cell: execution means nothing there.
  EXPECT_EQ(e.searches[1].fixed, "execution=graph");
  EXPECT_EQ(e.searches[1].contender.execution, Execution::kGraph);
  EXPECT_EQ(e.searches[1].baseline.execution, Execution::kEager);
  EXPECT_EQ(most_probes(e.searches), 12u);
  // A probe is the template with the searched key set.
  const Cell probe = probe_cell(e.searches[0].contender, "dataset_size", 5785);
  EXPECT_EQ(probe.dataset_size, 5785);
  EXPECT_EQ(probe.device, Device::cuda());
  // Another comparison: its axis, listed with the two values only, is the search's.
  const Expansion threads = expand_grid(
      parse_grid(grid_with(R"({"search": {"from": 112, "to": 1000, "compare": "threads=1:0"}})",
                           R"("threads": [0, 1], )"),
                 "g.json"));
  ASSERT_EQ(threads.searches.size(), 1u);
  EXPECT_EQ(threads.searches[0].baseline.threads, 1);
  EXPECT_EQ(threads.searches[0].contender.threads, 0);
  EXPECT_EQ(threads.searches[0].contender_name, "threads=0");
}

TEST(SearchGrid, EveryWrongSearchIsNamedWithWhatToFix) {
  const auto said = [](const std::string& axis, const std::string& more = "") {
    return all_messages(issues_of(grid_with(axis, more)));
  };
  EXPECT_NE(said(R"({"search": {"from": 1000, "to": 112}})").find("must be below \"to\""),
            std::string::npos);
  EXPECT_NE(said(R"({"search": {"to": 112}})").find("missing \"from\""), std::string::npos);
  EXPECT_NE(said(R"({"search": {"from": 0.5, "to": 112}})").find("dataset_size.search.from"),
            std::string::npos);
  EXPECT_NE(said(R"({"search": {"from": 1, "to": 9, "step": 2}})").find("unknown key \"step\""),
            std::string::npos);
  EXPECT_NE(said(R"({"search": {"from": 1, "to": 9, "precision": 0}})")
                .find("a fraction above 0 and at most 1"),
            std::string::npos);
  EXPECT_NE(said(R"({"search": {"from": 1, "to": 9, "max_probes": 1000}})")
                .find("an integer from 2 to 64"),
            std::string::npos);
  EXPECT_NE(said(R"({"search": {"from": 1, "to": 9, "compare": "thread=1:0"}})")
                .find("unknown axis \"thread\" (did you mean \"threads\"?)"),
            std::string::npos);
  EXPECT_NE(said(R"({"search": {"from": 1, "to": 9, "compare": "dataset_size=1:2"}})")
                .find("cannot also be the one compared"),
            std::string::npos);
  EXPECT_NE(said(R"({"search": {"from": 1, "to": 9, "compare": "threads=one:0"}})")
                .find("\"one\" is not"),
            std::string::npos);
  EXPECT_NE(
      said(R"({"search": {"from": 1, "to": 9, "compare": "threads=1:9999"}})").find("out of range"),
      std::string::npos);
  EXPECT_NE(said(R"({"search": {"from": 1, "to": 9, "compare": "threads=1:0"}})",
                 R"("threads": [0, 1, 2], )")
                .find("this axis also lists 2"),
            std::string::npos);
  EXPECT_NE(said(R"({"search": {"from": 1, "to": 9, "scale": "linear"}})",
                 R"("device": {"search": {"from": 1, "to": 2}}, )")
                .find("device cannot be searched"),
            std::string::npos);
  EXPECT_NE(said(R"({"from": 1, "to": 9})").find("{\"search\": {\"from\": ..."), std::string::npos);
  // A valid search is no issue.
  EXPECT_EQ(said(R"({"search": {"from": 1, "to": 9, "scale": "linear", "precision": 0.2}})"), "");
}

// A stand-in for the sweep's cell runner: the baseline's epochs take 1 ms, the contender's
// 5785 / dataset_size ms, each sample within +-0.1 %: the contender wins from 5,785 rows on.
struct StandIn {
  std::vector<Cell> measured;
  std::vector<Result> operator()(const std::vector<Cell>& cells) {
    std::vector<Result> out;
    for (const Cell& cell : cells) {
      measured.push_back(cell);
      Result r;
      r.cell = cell;
      const double ms =
          cell.device == Device::cpu() ? 1.0 : 5785.0 / static_cast<double>(cell.dataset_size);
      for (int i = 0; i < 20; ++i)
        r.epoch_seconds_samples.push_back(ms / 1000 * (1.0 + 0.001 * (i % 5 - 2)));
      r.epoch_seconds = ms / 1000;
      out.push_back(r);
    }
    return out;
  }
};

// The grid's search along dataset_size from 112 to 1,000,000 rows.
Expansion stand_in_search() {
  return expand_grid(
      parse_grid(grid_with(R"({"search": {"from": 112, "to": 1000000}})"), "g.json"));
}

TEST(SearchRunner, FindsTheStandInsCrossingAndReusesWhatWasMeasured) {
  const Expansion e = stand_in_search();
  StandIn stand_in;
  SearchRunner runner(e.searches, {}, 10);
  nlohmann::ordered_json last;
  runner.run([&](const std::vector<Cell>& cells) { return stand_in(cells); },
             [&](const nlohmann::ordered_json& state) { last = state; });
  ASSERT_EQ(last.size(), 1u);
  const auto& search = last[0];
  EXPECT_EQ(search["outcome"], "crossing") << search.dump(2);
  EXPECT_FALSE(search["uncertain"].get<bool>());  // quiet cells
  EXPECT_LE(search["probes"].size(), 8u);
  const double low = search["bracket"][0], high = search["bracket"][1];
  EXPECT_LE(low, 5785.0);
  EXPECT_GE(high, 5785.0);
  EXPECT_LE((high - low) / low, 0.1);
  // Two new cells per probe, numbered from 10 on, each at its probe's value.
  ASSERT_EQ(stand_in.measured.size(), 2 * search["probes"].size());
  for (std::size_t i = 0; i < stand_in.measured.size(); ++i) {
    EXPECT_EQ(stand_in.measured[i].index, 10 + i);
    EXPECT_EQ(stand_in.measured[i].dataset_size, search["probes"][i / 2]["value"].get<double>());
  }
  EXPECT_EQ(runner.measured().size(), stand_in.measured.size());
  // Again with those results known (a --resume): the same probes, nothing measured.
  StandIn again;
  SearchRunner resumed(e.searches, runner.measured(), 10);
  nlohmann::ordered_json second;
  resumed.run([&](const std::vector<Cell>& cells) { return again(cells); },
              [&](const nlohmann::ordered_json& state) { second = state; });
  EXPECT_TRUE(again.measured.empty());
  EXPECT_EQ(second, last);
}

// A crossing bracketed by cells whose times varied by more than a third of their median is said
// to be uncertain, naming them, in the statement and in searches.json.
TEST(SearchRunner, ACrossingBracketedByNoisyCellsIsSaidToBeUncertain) {
  const Expansion e = stand_in_search();
  StandIn stand_in;
  SearchRunner runner(e.searches, {}, 10);
  nlohmann::ordered_json last;
  runner.run(
      [&](const std::vector<Cell>& cells) {
        std::vector<Result> out = stand_in(cells);
        for (Result& r : out) {  // every contender cell's quartiles half its median apart
          if (r.cell.device == Device::cpu()) continue;
          r.epoch_seconds_p25 = r.epoch_seconds * 0.75;
          r.epoch_seconds_p75 = r.epoch_seconds * 1.25;
        }
        return out;
      },
      [&](const nlohmann::ordered_json& state) { last = state; });
  ASSERT_EQ(last[0]["outcome"], "crossing") << last.dump(2);
  EXPECT_TRUE(last[0]["uncertain"].get<bool>());
  const std::string statement = last[0]["statement"];
  EXPECT_TRUE(std::regex_search(
      statement, std::regex("; uncertain: cell [0-9]+, [0-9]+, bracketing it, varied by more than "
                            "a third of the median, so the crossing may lie outside the bracket")))
      << statement;
}

TEST(SearchRunner, ACellThatDoesNotRunStopsItsSearchWithTheReason) {
  const Expansion e = stand_in_search();
  SearchRunner runner(e.searches, {}, 0);
  nlohmann::ordered_json last;
  runner.run(
      [](const std::vector<Cell>& cells) {
        std::vector<Result> out;
        for (const Cell& cell : cells) {
          Result r;
          r.cell = cell;
          r.status = CellStatus::kSkipped;
          r.reason = "no CUDA device";
          out.push_back(r);
        }
        return out;
      },
      [&](const nlohmann::ordered_json& state) { last = state; });
  EXPECT_EQ(last[0]["outcome"], "stopped");
  EXPECT_NE(last[0]["statement"].get<std::string>().find("skipped: no CUDA device"),
            std::string::npos);
  EXPECT_EQ(runner.measured().size(), 2u);  // both cells of the first probe, in results.jsonl
}

TEST(Cli, ASearchRunsItsProbesAsCellsReportsThemAndResumesWithoutMeasuringAgain) {
  ScratchDir dir;
  const std::string grid = dir.write("search.json", R"({
    "name": "search", "defaults": {"repeats": 2, "epochs": 2, "warmup_epochs": 1},
    "experiments": [{"workload": "standin_mlp", "settings": {"device": "cpu"},
      "grid": {"dataset_size": {"search": {"from": 16, "to": 512, "precision": 0.5,
                                           "max_probes": 4, "compare": "threads=1:0"}}}}]})");
  const std::string env = std::string(kTestWorkloadsVariable) + "=1";
  const Outcome validated = crossover(dir, "validate " + grid, env);
  EXPECT_EQ(validated.code, 0) << validated.err;
  EXPECT_NE(validated.out.find("1 search(es) of at most 4 probes (8 cells)"), std::string::npos)
      << validated.out;
  const Outcome dry = crossover(dir, "run " + grid + " --dry-run", env);
  EXPECT_NE(dry.out.find("threads=1:0 along dataset_size from 16 to 512, precision 50.0 %: at "
                         "most 4 probes (8 cells)"),
            std::string::npos)
      << dry.out;
  const std::string out = dir.file("out");
  const Outcome run = crossover(dir, "run " + grid + " --out " + out, env);
  ASSERT_EQ(run.code, 0) << run.err;
  const auto results = read_results(out + "/results.jsonl");
  const auto searches = nlohmann::json::parse(slurp(out + "/searches.json"));
  ASSERT_EQ(searches.size(), 1u);
  const auto& probes = searches[0]["probes"];
  ASSERT_GE(probes.size(), 2u);
  ASSERT_EQ(results.size(), 2 * probes.size());
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto& cells = probes[i]["cells"];
    for (std::size_t side = 0; side < 2; ++side) {
      const Result& r = results[cells[side].get<std::size_t>()];
      EXPECT_EQ(r.cell.index, cells[side].get<std::size_t>());
      EXPECT_EQ(r.cell.dataset_size, probes[i]["value"].get<double>());
      EXPECT_EQ(r.cell.threads, side == 0 ? 1 : 0);
    }
  }
  const std::string statement = searches[0]["statement"];
  EXPECT_NE(run.out.find(statement), std::string::npos) << run.out;
  EXPECT_NE(slurp(out + "/report.md").find("## Searches"), std::string::npos);
  EXPECT_NE(slurp(out + "/report.md").find(statement), std::string::npos);
  EXPECT_NE(slurp(out + "/report.html").find("class='probe'"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(slurp(out + "/summary.json"))["searches"], searches);
  // The probes pair in the analysis of the search's own comparison, without --compare.
  EXPECT_NE(run.out.find("Crossovers (threads=1 vs 0)"), std::string::npos) << run.out;
  // --resume: every probe is reused, nothing is measured again, the search ends the same.
  const Outcome resumed = crossover(dir, "run " + grid + " --resume " + out, env);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(std::to_string(results.size()) + " of them searches' probes"),
            std::string::npos)
      << resumed.err;
  EXPECT_EQ(read_results(out + "/results.jsonl").size(), results.size());
  EXPECT_EQ(nlohmann::json::parse(slurp(out + "/searches.json")), searches);
  // `report` of the folder reads searches.json again.
  ASSERT_EQ(crossover(dir, "report " + out).code, 0);
  EXPECT_NE(slurp(out + "/report.md").find(statement), std::string::npos);
  // A searches.json edited by hand into nonsense costs the section, not the reports.
  std::ofstream(out + "/searches.json")
      << R"([{"key": "dataset_size", "probes": [{"value": "x"}]}])";
  const Outcome hostile = crossover(dir, "report " + out);
  ASSERT_EQ(hostile.code, 0) << hostile.err;
  EXPECT_NE(hostile.err.find("searches.json: unreadable"), std::string::npos) << hostile.err;
  EXPECT_EQ(slurp(out + "/report.md").find("## Searches"), std::string::npos);
}

// run --predict and a search along the device on a machine without CUDA: the CUDA probes are
// predicted, the search runs on them (a tie within the band undecided) and its statement says it
// was predicted; it never stops at its first probe and leaves an empty section.
TEST(Cli, ASearchAgainstAPredictedGpuSearchesOnThePredictionsAndSaysSo) {
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "s",
    "defaults": {"epochs": 2, "warmup_epochs": 1, "repeats": 2},
    "experiments": [{"workload": "iris_mlp", "grid": {"dataset_size": {"search":
      {"from": 112, "to": 100000, "precision": 0.5, "max_probes": 4}}}}]})");
  const std::string predict =
      " --predict cuda=" + std::string(CROSSOVER_SOURCE_DIR) + "/profiles/h100-80gb.json";
  const Outcome dry = crossover(dir, "run " + grid + predict + " --dry-run", kNoGpu);
  EXPECT_NE(dry.out.find("its cuda probes would be predicted"), std::string::npos) << dry.out;
  const Outcome run = crossover(
      dir, "run " + grid + predict + " --out " + dir.file("out") + " --data-dir " + data_dir(),
      kNoGpu);
  ASSERT_EQ(run.code, 0) << run.err;
  const auto searches = nlohmann::json::parse(slurp(dir.file("out/searches.json")));
  ASSERT_EQ(searches.size(), 1u);
  EXPECT_TRUE(searches[0]["predicted"].get<bool>());
  EXPECT_GE(searches[0]["probes"].size(), 2u) << searches[0];
  const std::string statement = searches[0]["statement"];
  EXPECT_EQ(statement.rfind("predicted with the profile H100 80GB: ", 0), 0u) << statement;
  for (const Result& r : read_results(dir.file("out/results.jsonl")))
    EXPECT_EQ(r.status, r.cell.device == Device::cpu() ? CellStatus::kOk : CellStatus::kPredicted);
}

}  // namespace
}  // namespace crossover
