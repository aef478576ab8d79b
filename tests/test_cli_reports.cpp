// The built `crossover` binary, end to end: report, compare, calibrate, several comparisons, the
// README's demo sample and real H100 results.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "core/records/results.hpp"
#include "core/text/text.hpp"
#include "reports/charts/svg_plot.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // crossover::testing: the binary, scratch directories, tiny grids

TEST(Cli, CompareExitsOneOnARegressionAndWritesMarkdownAndJson) {
  ScratchDir dir;
  const std::string base = results_dir(dir, "base", 0.100);
  const std::string same = results_dir(dir, "same", 0.100);
  const std::string slow = results_dir(dir, "slow", 0.150, "reference");

  Outcome o = crossover(dir, "compare " + base + " " + same);
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  // One run per side of identical timings, with no calibration: the assumed run-to-run spread
  // leaves the cell undecided, so the first word says so, never "no regression" (exit 0 all the
  // same under the default --fail-on regression).
  EXPECT_EQ(o.out.rfind("INCONCLUSIVE: 1 of 1 compared cell(s) undecided", 0), 0u) << o.out;
  EXPECT_EQ(o.out.find("no regression in"), std::string::npos) << o.out;

  const std::string md = dir.file("compare.md"), json = dir.file("verdict.json");
  o = crossover(
      dir, "compare " + base + " " + slow + "/results.jsonl --markdown " + md + " --json " + json);
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("regression  mnist_mlp device=cpu"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("the runs differ in BLAS: openblas vs reference"), std::string::npos);
  EXPECT_NE(slurp(md).find("### Regressions (1)"), std::string::npos);
  const auto verdict = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(verdict["verdict"], "regression");
  EXPECT_NEAR(verdict["cells"][0]["change"].get<double>(), 0.5, 1e-9);

  // Improvements do not fail a job unless asked to; --fail-on none never fails.
  EXPECT_EQ(crossover(dir, "compare " + slow + " " + base).code, 0);
  EXPECT_EQ(crossover(dir, "compare " + slow + " " + base + " --fail-on any-change").code, 1);
  EXPECT_EQ(crossover(dir, "compare " + base + " " + slow + " --fail-on none").code, 0);
  // A 60 % threshold lets a 50 % slowdown pass.
  EXPECT_EQ(crossover(dir, "compare " + base + " " + slow + " --threshold 60").code, 0);
}

TEST(Cli, CompareRejectsBadInputWithExitTwo) {
  ScratchDir dir;
  const std::string base = results_dir(dir, "base", 0.1);
  Outcome o = crossover(dir, "compare " + base + " " + dir.file("missing"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("missing does not exist"), std::string::npos) << o.err;
  EXPECT_EQ(crossover(dir, "compare " + base + " " + base + " --metric latency").code, 2);
  o = crossover(dir, "compare " + base + " " + base + " --alpha 2");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--alpha must lie between 0 and 1"), std::string::npos) << o.err;
  // No cell in common: not two runs of one grid.
  const std::string other = dir.file("other");
  fs::create_directories(other);
  Result r;
  r.cell.workload = "iris_mlp";
  std::ofstream(other + "/results.jsonl") << result_to_json(r).dump() << "\n";
  o = crossover(dir, "compare " + base + " " + other);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("are they runs of the same grid?"), std::string::npos) << o.err;
  o = crossover(dir, "compare " + base + " " + base + " --rerun " + dir.file("no-grid.json"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("is not an executable crossover binary"), std::string::npos) << o.err;
}

TEST(Cli, CompareRerunAlternatesTheBinariesAndPoolsTheRounds) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("iris.json", R"({
    "name": "iris", "defaults": {"epochs": 5, "warmup_epochs": 1, "repeats": 2},
    "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu"]}}]})");
  const std::string out = dir.file("cmp");
  const Outcome o = crossover(
      dir, std::string("compare ") + CROSSOVER_BINARY + " " + CROSSOVER_BINARY + " --rerun " +
               grid + " --rounds 2 --out " + out + " --data-dir " + testing::data_dir());
  EXPECT_NE(o.code, 2) << o.err;
  for (const char* side : {"baseline", "candidate"}) {
    for (const char* round : {"round-1", "round-2"}) {
      EXPECT_TRUE(fs::exists(out + "/" + side + "/" + round + "/results.jsonl")) << side << round;
      // The rounds' own tables are kept beside their results, not mixed into the verdict.
      EXPECT_NE(slurp(out + "/" + side + "/" + round + "/stdout.txt").find("iris_mlp"),
                std::string::npos);
    }
  }
  EXPECT_EQ(o.out.find("Reports:"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("crossover compare:"), std::string::npos) << o.out;
  // Progress: each run announced with the time left, learned from the runs done; each run's
  // cells with their own progress line.
  EXPECT_NE(o.err.find("run 1/4 (round 1/2, baseline: "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("; the time left is known after the first run"), std::string::npos);
  EXPECT_NE(o.err.find("run 4/4 (round 2/2, baseline: "), std::string::npos) << o.err;
  EXPECT_TRUE(std::regex_search(o.err, std::regex("about [0-9:]+ left, the runs so far took")))
      << o.err;
  EXPECT_NE(o.err.find("[1/1] cell 0 iris_mlp cpu"), std::string::npos) << o.err;
  // Rounds alternate which side goes first: AB, then BA.
  const auto started = [&](const std::string& side, const std::string& round) {
    return fs::last_write_time(out + "/" + side + "/" + round + "/grid.json");
  };
  EXPECT_LT(started("baseline", "round-1"), started("candidate", "round-1"));
  EXPECT_LT(started("candidate", "round-2"), started("baseline", "round-2"));
  const auto verdict = nlohmann::json::parse(slurp(out + "/compare.json"));
  ASSERT_EQ(verdict["cells"].size(), 1u);
  EXPECT_EQ(verdict["cells"][0]["baseline_samples"], 20);  // 2 rounds x 2 repeats x 5 epochs
  EXPECT_EQ(verdict["cells"][0]["candidate_samples"], 20);
  EXPECT_EQ(verdict["cells"][0]["baseline_runs"], 2);
  EXPECT_TRUE(fs::exists(out + "/compare.md"));
  // The same comparison into the same --out again: refused before any round replaces a run.
  const std::string first = slurp(out + "/baseline/round-1/results.jsonl");
  const Outcome again = crossover(
      dir, std::string("compare ") + CROSSOVER_BINARY + " " + CROSSOVER_BINARY + " --rerun " +
               grid + " --rounds 2 --out " + out + " --data-dir " + testing::data_dir());
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find(out + " already holds the runs of a comparison"), std::string::npos)
      << again.err;
  EXPECT_EQ(slurp(out + "/baseline/round-1/results.jsonl"), first);
}

TEST(Cli, SeveralComparisonsAreAnalysedInOneRun) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("g.json", R"({"name": "g",
    "defaults": {"epochs": 3, "warmup_epochs": 0, "repeats": 2},
    "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"],
                                                      "threads": [1, 0]}}]})");
  const std::string out = dir.file("out");
  const Outcome o =
      crossover(dir,
                "run " + grid + " --out " + out + " --data-dir " + testing::data_dir() +
                    " --compare device=cpu:cuda --compare threads=1:0",
                kNoGpu);
  ASSERT_EQ(o.code, 0) << o.err;
  const auto device = o.out.find("Crossovers (device=cpu vs cuda):");
  const auto threads = o.out.find("Crossovers (threads=1 vs 0):");
  ASSERT_NE(device, std::string::npos) << o.out;
  ASSERT_NE(threads, std::string::npos) << o.out;
  EXPECT_LT(device, threads);  // in the order given
  const auto summary = nlohmann::json::parse(slurp(out + "/summary.json"));
  ASSERT_EQ(summary["comparisons"].size(), 2u);
  EXPECT_EQ(summary["compare"]["axis"], "device");  // the first also at the top level
  EXPECT_EQ(summary["comparisons"][1]["compare"]["axis"], "threads");
  EXPECT_EQ(summary["comparisons"][1]["pairs"].size(), 1u);  // cpu threads=1 with threads=0
  // report regenerates the same comparisons from the results.
  const Outcome r = crossover(dir, "report " + out + " --compare threads=1:0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Verdict (threads=1 vs 0)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(device=cpu vs cuda)"), std::string::npos) << r.out;
  // --verbose says the verdict's comparison's statements again, with their "why" lines.
  const Outcome v = crossover(
      dir, "--verbose report " + out + " --out " + dir.file("v") + " --compare threads=1:0");
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_NE(v.out.find("Crossovers (threads=1 vs 0):"), std::string::npos) << v.out;
  // --brief: the verdict alone, a line per workload.
  const Outcome b = crossover(dir, "report " + out + " --out " + dir.file("b") + " --brief");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(b.out.rfind("Verdict (device=cpu vs cuda)", 0), 0u) << b.out;
  EXPECT_EQ(b.out.find("epoch: median"), std::string::npos) << b.out;
  EXPECT_EQ(b.out.find("\n\n"), std::string::npos) << b.out;
  EXPECT_EQ(crossover(dir, "report " + out + " --brief --verbose").code, 2);
}

// Words of a line, whatever the spacing.
std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(Cli, TheDemoSampleOfOutputsMdHasTheColumnsAndSectionsTheDemoPrints) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  // docs/outputs.md's sample: the first fenced block after "## What the demo prints".
  const std::string readme = slurp(std::string(CROSSOVER_SOURCE_DIR) + "/docs/outputs.md");
  const auto intro = readme.find("## What the demo prints");
  ASSERT_NE(intro, std::string::npos);
  const auto open = readme.find("```\n", intro) + 4;
  const std::string sample = readme.substr(open, readme.find("```", open) - open);
  // The line after a table's workload: its header.
  const auto header_after = [](const std::string& text, const std::string& workload) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      if (line == workload && std::getline(lines, line)) return line;
    return std::string();
  };
  const std::string readme_heading = sample.substr(0, sample.find('\n'));

  // The demo's grid and comparisons (scripts/demo.sh), shortened to one epoch: the columns and
  // sections do not depend on how long each cell runs. One warm-up epoch, as the demo has: the
  // verdict below depends on the CPU's time at 112 rows, which a cold first epoch (the run's
  // first cell, its threads not yet started) makes 2-9x slower on this machine.
  auto grid =
      nlohmann::json::parse(slurp(std::string(CROSSOVER_SOURCE_DIR) + "/configs/quick.json"));
  grid["defaults"] = {{"epochs", 1}, {"warmup_epochs", 1}, {"repeats", 1}, {"seed", 0}};
  ScratchDir dir;
  const std::string demo = slurp(std::string(CROSSOVER_SOURCE_DIR) + "/scripts/demo.sh");
  const std::string command = "\"$bin\" run configs/quick.json";
  const auto run = demo.find(command);
  ASSERT_NE(run, std::string::npos);
  const auto after = run + command.size();
  std::string options = demo.substr(after, demo.find('\n', run) - after);
  options = options.substr(0, options.find("\"${predict[@]}\""));
  // Without a GPU the demo predicts: its `predict` array's words.
  const auto predict = demo.find("predict=(--predict ");
  ASSERT_NE(predict, std::string::npos);
  options += demo.substr(predict + 9, demo.find(')', predict) - predict - 9);
  // The demo names the shipped profile from the repository's root; the test runs elsewhere.
  for (auto at = options.find(" cuda=profiles/"); at != std::string::npos;
       at = options.find(" cuda=profiles/", at + 1))
    options.replace(at, 6, " cuda=" + std::string(CROSSOVER_SOURCE_DIR) + "/");
  // The sample is a machine without a GPU, its CUDA cells predicted: a GPU here is hidden.
  const Outcome o = crossover(dir,
                              "run " + dir.write("quick.json", grid.dump()) + " --out " +
                                  dir.file("out") + " --data-dir " + testing::data_dir() + options,
                              "CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(o.code, 0) << o.err;
  // It opens with the verdict's heading, then each workload's table under the sample's header.
  EXPECT_EQ(o.out.substr(0, o.out.find('\n')), readme_heading);
  // One screen on a pipe: about 40 lines, none over 100 columns but a path longer than that (the
  // demo once printed 101 lines up to 243 columns), and so is the sample. The run's terminal
  // again, wrapped as on a pipe (the tests set COLUMNS=0, a sentence a line).
  const std::string both = " --compare device=cpu:cuda --compare threads=1:0";
  const Outcome piped = crossover(dir, "report " + dir.file("out") + both, "COLUMNS=");
  ASSERT_EQ(piped.code, 0) << piped.err;
  for (const std::string* text : {&piped.out, &sample}) {
    std::istringstream lines(*text);
    std::size_t count = 0;
    for (std::string line; std::getline(lines, line); ++count) {
      const bool one_word = line.find(' ', line.find_first_not_of(' ')) == std::string::npos;
      EXPECT_TRUE(one_word || display_width(line) <= 100u) << display_width(line) << ": " << line;
    }
    EXPECT_LE(count, 46u) << *text;
  }
  for (const std::string workload : {"iris_mlp", "boston_mlp"}) {
    const std::string header = header_after(o.out, workload);
    EXPECT_FALSE(header.empty()) << o.out;
    EXPECT_EQ(words(header_after(sample, workload)), words(header))
        << "outputs.md: " << header_after(sample, workload) << "\nnow:    " << header;
  }
  // Every comparison section the demo prints is in the sample too.
  for (std::size_t at = o.out.find("Crossovers ("); at != std::string::npos;
       at = o.out.find("Crossovers (", at + 1)) {
    const std::string section = o.out.substr(at, o.out.find('\n', at) - at);
    EXPECT_NE(sample.find(section), std::string::npos) << section;
  }
  // threads is the CPU's own: each CUDA cell is predicted once, at threads 0, and each of its
  // summary pairs is a CPU cell of either thread count against it.
  std::map<std::size_t, int> cuda_cells;
  for (const Result& r : read_results(dir.file("out/results.jsonl"))) {
    if (r.cell.device != Device::cuda()) continue;
    EXPECT_EQ(r.status, CellStatus::kPredicted);
    EXPECT_EQ(r.cell.threads, 0);
    cuda_cells[r.cell.index] = 0;
  }
  EXPECT_EQ(cuda_cells.size(), 6u);
  const auto summary = nlohmann::json::parse(slurp(dir.file("out/summary.json")));
  for (const auto& pair : summary["pairs"])
    ++cuda_cells.at(pair["contender_cell"].get<std::size_t>());
  for (const auto& [cell, pairs] : cuda_cells) EXPECT_EQ(pairs, 2) << "cell " << cell;
  EXPECT_NE(o.err.find("6 CUDA cell(s) not predicted twice: threads"), std::string::npos);
  // A predicted crossing says what it is everywhere: its sentence, the chart's marker, and
  // report.md's interval column (an 80 % band beside the measured rows' 95 % CI: the threads
  // comparison is measured on both sides) with a winner that says "(predicted)".
  EXPECT_NE(o.out.find("the predicted crossing lies"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find(": the crossing lies"), std::string::npos) << o.out;
  // Every chart marker is one the summary's crossings give, labelled "predicted" where a side of
  // its crossing is: a measured crossing of the threads comparison may be marked plainly (once,
  // in CI, its 1-thread and 2-thread cells crossed), a predicted one never.
  const std::string html = slurp(dir.file("out/report.html"));
  std::set<std::string> crossings;
  for (const auto& comparison : summary["comparisons"])
    for (const auto& c : comparison["crossovers"])
      if (!c["crossing"].is_null())
        crossings.insert(std::string(c["predicted"].get<bool>() ? "predicted " : "") +
                         "crossover ≈ " + svg::axis_text(c["crossing"].get<double>()));
  const std::regex marker(">((predicted )?crossover ≈ [0-9][0-9,.]*)");
  std::size_t markers = 0;
  for (std::sregex_iterator m(html.begin(), html.end(), marker), end; m != end; ++m, ++markers)
    EXPECT_EQ(crossings.count((*m)[1]), 1u) << (*m)[1];
  EXPECT_EQ(markers == 0, crossings.empty()) << markers << " markers";
  const std::string md = slurp(dir.file("out/report.md"));
  EXPECT_NE(md.find("| speedup | interval | winner |"), std::string::npos) << md;
  EXPECT_NE(md.find(" (80 % band) | device=cuda (predicted) |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| 95 % CI | winner |\n|---|---|---|---|---|---|---|\n| iris_mlp | #0 / #6"),
            std::string::npos)
      << md;
  // The data tools' lines of docs/outputs.md read results.csv and summary.json right: the fastest
  // row per device by epoch_seconds is never a predicted one (its measured columns are empty),
  // dataset_rows is a number, and jq finds the predicted side by its status.
  const std::string csv_check =
      "python3 -c \"import csv,sys\n"
      "rows=list(csv.DictReader(open(sys.argv[1])))\n"
      "timed=[r for r in rows if r['epoch_seconds']!='']\n"
      "assert all(r['status']=='ok' for r in timed), 'a timed row is not ok'\n"
      "assert any(r['status']=='predicted' for r in rows)\n"
      "best={}\n"
      "[best.__setitem__(r['device'], min(best.get(r['device'], 1e9), float(r['epoch_seconds']))) "
      "for r in timed]\n"
      "assert 'cuda' not in best and best['cpu']>0, best\n"
      "assert all(float(r['dataset_rows'])>0 for r in rows)\n"
      "assert all(r[f] in ('true','false') for r in rows for f in ('noisy','throttled')), "
      "'a flag pandas would not read as bool'\n"
      "assert all(r['prediction_error']=='' for r in rows if r['status']=='ok')\n"
      "print('csv ok')\" " +
      dir.file("out/results.csv");
  const Outcome py =
      testing::shell(dir, "python3 -c \"import csv\" 2>/dev/null || exit 77; " + csv_check);
  EXPECT_TRUE(py.code == 77 || py.out == "csv ok\n") << py.out << py.err;
  // results.jsonl too: a predicted row's measured fields are null, its figures in predicted_*,
  // so the fastest epoch_seconds per device is a measured one (docs/outputs.md's jq line).
  EXPECT_EQ(testing::shell(dir,
                           "python3 -c \"import json,sys\nrows=[json.loads(l) for l in "
                           "open(sys.argv[1])]\np=[r for r in rows if r['status']=="
                           "'predicted']\nassert p and all(r[k] is None and "
                           "r['predicted_epoch_seconds']>0 for r in p for k in ('epoch_"
                           "seconds','step_seconds','steps_per_second','samples_per_second'"
                           "))\nprint('json ok')\" " +
                               dir.file("out/results.jsonl"))
                .out,
            "json ok\n");
  const Outcome fastest = testing::shell(
      dir,
      "command -v jq >/dev/null || exit 77; jq -s -c '[group_by(.device)[] | min_by(."
      "epoch_seconds) | select(.epoch_seconds != null) | .status] | unique' " +
          dir.file("out/results.jsonl"));
  EXPECT_TRUE(fastest.code == 77 || fastest.out == "[\"ok\"]\n") << fastest.out << fastest.err;
  const Outcome jq = testing::shell(
      dir,
      "command -v jq >/dev/null || exit 77; jq '[.pairs[] | select(.contender_status == "
      "\"predicted\")] | length' " +
          dir.file("out/summary.json"));
  EXPECT_TRUE(jq.code == 77 || jq.out == std::to_string(summary["pairs"].size()) + "\n") << jq.err;
  // The README's sample verdict is what the demo prints: its first clause, and then one of the two
  // endings it names (which one depends on this CPU's time at 112 rows) — unless this CPU's epoch
  // at 112 rows (threads 0) lies above the whole band of the GPU's prediction (a busy machine: a
  // test beside this one), where the rule gives the README's third case, a GPU that wins at every
  // size.
  double cpu_at_112 = 0.0, band_high = 0.0;
  for (const Result& r : read_results(dir.file("out/results.jsonl"))) {
    if (r.cell.workload != "iris_mlp" || r.cell.dataset_size != kFull || r.cell.threads != 0)
      continue;
    if (r.cell.device == Device::cpu()) cpu_at_112 = r.epoch_seconds;
    if (r.status == CellStatus::kPredicted)
      band_high = r.epoch_seconds * (1.0 + r.prediction.prediction_error);
  }
  ASSERT_GT(cpu_at_112, 0.0);
  ASSERT_GT(band_high, 0.0);
  if (cpu_at_112 > band_high) {
    EXPECT_NE(o.out.find("\n  iris_mlp: cuda (predicted) wins at every dataset_size measured"),
              std::string::npos)
        << o.out;
    std::string readme = slurp(std::string(CROSSOVER_SOURCE_DIR) + "/README.md");
    std::replace(readme.begin(), readme.end(), '\n', ' ');  // as the page wraps it
    EXPECT_NE(readme.find("\"wins at every dataset_size measured\" where it falls above the band"),
              std::string::npos);
    return;
  }
  const std::string front_page = slurp(std::string(CROSSOVER_SOURCE_DIR) + "/README.md");
  const auto quoted = front_page.find("(\"iris_mlp: cuda (predicted) wins");
  ASSERT_NE(quoted, std::string::npos);
  std::string sample_verdict =
      front_page.substr(quoted + 2, front_page.find(" …\")", quoted) - quoted - 2);
  std::replace(sample_verdict.begin(), sample_verdict.end(), '\n', ' ');  // as the page wraps it
  const std::string clause = sample_verdict.substr(0, sample_verdict.find("; ") + 2);
  const auto said = o.out.find("\n  " + clause);
  ASSERT_NE(said, std::string::npos) << "README: " << sample_verdict << "\n" << o.out;
  const std::string ending = o.out.substr(said + 3 + clause.size(), 40);
  EXPECT_TRUE(ending.rfind(sample_verdict.substr(clause.size(), 40), 0) == 0 ||
              ending.rfind("undecided at 112 (the predicted crossing", 0) == 0)
      << ending;
  // Against which CPU, and how far the band held, said once under the verdict's heading.
  EXPECT_NE(o.out.find("against the CPU measured here, not the GPU host's"), std::string::npos);
  EXPECT_NE(o.out.find("each scored by a band fitted without its run"), std::string::npos);
}

TEST(Cli, OnRealH100ResultsEveryPairIsOneRowWhoseWinnerAgreesWithTheAnalysis) {
  // Real results of one H100 (shared/ beside the repository; absent in a bare clone).
  const std::string run = std::string(CROSSOVER_SOURCE_DIR) + "/../shared/gpu-results/a-seed001";
  if (!fs::exists(run + "/results.jsonl")) GTEST_SKIP() << run << " is not here";
  ScratchDir dir;
  const Outcome o = crossover(dir, "report " + run + " --out " + dir.file("out"));
  ASSERT_EQ(o.code, 0) << o.err;
  const auto results = read_results(run + "/results.jsonl");
  const auto summary = nlohmann::json::parse(slurp(dir.file("out/summary.json")));
  ASSERT_GE(summary["pairs"].size(), 8u);
  // The device tables on stdout: per workload, rows of "dataset_size ... winner".
  std::map<std::string, std::map<std::string, std::string>> winner_of;  // workload, size
  std::map<std::string, std::map<std::string, int>> rows_of;
  std::istringstream lines(o.out);
  std::string workload;
  for (std::string line; std::getline(lines, line);) {
    const auto w = words(line);
    if (w.size() == 1 && line.find(' ') == std::string::npos && line[0] != '-') workload = w[0];
    if (w.size() < 6 || w[0] == "dataset_size" ||
        w[0].find_first_not_of("0123456789full") != std::string::npos)
      continue;
    ++rows_of[workload][w[0]];
    winner_of[workload][w[0]] =
        line.find("tie (interval contains 1)") != std::string::npos ? "tie" : w.back();
  }
  for (const auto& pair : summary["pairs"]) {
    const Result* cpu = nullptr;
    for (const auto& r : results) {
      if (r.cell.index == pair["baseline_cell"].get<std::size_t>()) cpu = &r;
    }
    ASSERT_NE(cpu, nullptr);
    const std::string name = pair["workload"];
    const std::string size = size_text(cpu->cell.dataset_size);
    EXPECT_EQ(rows_of[name][size], 1) << name << " " << size << ": one row per pair";
    EXPECT_EQ(winner_of[name][size], pair["winner"].get<std::string>()) << name << " " << size;
  }
}

TEST(Cli, CalibrateMeasuresTheGateOnThisRunnerAndCompareReadsItsFile) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  ScratchDir dir;
  const std::string grid = dir.write("gate.json", R"({
    "name": "small-gate",
    "defaults": {"epochs": 4, "warmup_epochs": 1, "repeats": 1, "threads": 1},
    "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu"]}}]
  })");
  const std::string out = dir.file("cal");
  const std::string data = " --data-dir " + testing::data_dir();
  // The gate's calibration is a measurement of this runner, reference timings and drift included.
  Outcome o = crossover(dir, "calibrate " + grid + " --pairs 3 --load 1 --out " + out + data,
                        testing::kMeasureMachine);
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("3 A/A pairs and 3 pairs with 1 busy process(es)"), std::string::npos)
      << o.out;
  const auto cal = nlohmann::json::parse(slurp(out + "/calibrate.json"));
  EXPECT_EQ(cal["pairs"], 3);
  EXPECT_EQ(cal["planted_pairs"], 3);
  for (const char* rate : {"false_alarm_rate", "detection_rate"}) {
    EXPECT_GE(cal[rate].get<double>(), 0.0);
    EXPECT_LE(cal[rate].get<double>(), 1.0);
  }
  ASSERT_EQ(cal["cells"].size(), 1u);
  EXPECT_EQ(cal["cells"][0]["config"]["workload"], "iris_mlp");
  EXPECT_GT(cal["cells"][0]["epoch"]["sigma_raw"].get<double>(), 0.0);
  EXPECT_GE(cal["cells"][0]["smallest_detectable_slowdown"].get<double>(), 0.05);
  EXPECT_EQ(cal["pair_verdicts"].size(), 6u);
  EXPECT_NE(slurp(out + "/calibrate.md").find("| compare --calibration calibrate.json |"),
            std::string::npos);
  // Every run timed the reference before and after its cells; only the loaded runs had the
  // planted load, and their cells were slower.
  const auto quiet = nlohmann::json::parse(slurp(out + "/planted-01/quiet/env.json"));
  const auto loaded = nlohmann::json::parse(slurp(out + "/planted-01/loaded/env.json"));
  for (const auto* env : {&quiet, &loaded}) {
    EXPECT_GT((*env)["reference"]["before"]["matmul_seconds"].get<double>(), 0.0);
    EXPECT_GT((*env)["reference"]["after"]["step_seconds"].get<double>(), 0.0);
  }
  EXPECT_FALSE(quiet.contains("planted_load"));
  EXPECT_EQ(loaded["planted_load"], 1);

  // compare reads the file and says what the verdicts rest on.
  o = crossover(dir, "compare " + out + "/aa-01/first " + out + "/aa-01/second --calibration " +
                         out + "/calibrate.json --json " + dir.file("v.json"));
  EXPECT_TRUE(o.code == 0 || o.code == 1) << o.err;
  EXPECT_NE(o.out.find("evidence: one run per side; a regression must stand out"),
            std::string::npos)
      << o.out;
  const auto verdict = nlohmann::json::parse(slurp(dir.file("v.json")));
  EXPECT_EQ(verdict["calibration"], out + "/calibrate.json");
  EXPECT_FALSE(verdict["cells"][0]["decided_by"].get<std::string>().empty());

  // Bad input: exit 2, naming what to fix; an existing calibration is never replaced.
  o = crossover(dir, "calibrate " + grid + " --out " + out + data);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("already holds a calibration"), std::string::npos) << o.err;
  EXPECT_EQ(crossover(dir, "calibrate " + grid + " --pairs 2").code, 2);
  const std::string not_cal = dir.write("not-cal.json", R"({"grid": "x"})");
  o = crossover(
      dir, "compare " + out + "/aa-01/first " + out + "/aa-01/second --calibration " + not_cal);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("not-cal.json: not a calibration"), std::string::npos) << o.err;
  o = crossover(dir, "run " + grid + " --out " + dir.file("r") + data, "CROSSOVER_PLANT_LOAD=lots");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("CROSSOVER_PLANT_LOAD must be a number"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace crossover
