// crossover history (reports/gate/history.hpp, runner/commands/history_command.cpp): runs in commit
// order, cells matched on their identity keys, change points with their commits, the stored history
// extended by one run, a hostile history.json refused, and the exit code of --fail-on-change.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/files/file_writer.hpp"
#include "reports/gate/history.hpp"
#include "runner/sweep/output_dir.hpp"
#include "tests/cli_support.hpp"
#include "tests/sample_results.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

// One cell's result with this median epoch time (its quartiles 2 % either side).
Result timed(std::size_t index, const std::string& workload, double median) {
  Result r = testing::sample_result(index, workload, {median});
  r.epoch_seconds = median;
  r.epoch_seconds_p25 = median * 0.98;
  r.epoch_seconds_p75 = median * 1.02;
  return r;
}

// 12 runs: iris steady at 1 ms with 2 % noise, mnist 10 ms and 30 % slower from run 8 on.
History twelve_runs() {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, 0.02);
  History history;
  for (int i = 0; i < 12; ++i) {
    const std::string commit = "c" + std::to_string(100 + i);
    Result iris = timed(0, "iris_mlp", 1e-3 * std::exp(noise(rng)));
    Result mnist = timed(1, "mnist_mlp", 1e-2 * (i >= 8 ? 1.3 : 1.0) * std::exp(noise(rng)));
    if (i == 3) mnist.status = CellStatus::kFailed;  // a failed cell is a gap, not a point
    append_run(history, {"run-" + std::to_string(i), commit, "2026-11-" + std::to_string(10 + i)},
               {mnist, iris});
  }
  return history;
}

TEST(History, CellsAreMatchedOnTheirKeysAndAStepIsFoundWithItsCommits) {
  History history = twelve_runs();
  find_changes(history);
  ASSERT_EQ(history.runs.size(), 12u);
  ASSERT_EQ(history.cells.size(), 2u);
  const HistoryCell& mnist = history.cells[0];
  const HistoryCell& iris = history.cells[1];
  EXPECT_EQ(iris.points.size(), 12u);
  EXPECT_EQ(mnist.points.size(), 11u);  // run 3 failed
  EXPECT_TRUE(iris.changes.empty());
  ASSERT_EQ(mnist.changes.size(), 1u);
  const HistoryChange& c = mnist.changes.front();
  EXPECT_EQ(mnist.points[c.point].run, 8u);
  EXPECT_EQ(c.last_before, "c107");
  EXPECT_EQ(c.first_after, "c108");
  EXPECT_NEAR(c.change, 0.3, 0.05);
  EXPECT_GT(c.interval.low, 0.2);
  EXPECT_LT(c.interval.high, 0.4);
  EXPECT_TRUE(newest_slowdown(mnist).has_value());
  HistoryCell lenient = mnist;
  lenient.threshold = 0.5;
  EXPECT_FALSE(newest_slowdown(lenient).has_value()) << "30 % is within a 50 % threshold";
  // The same run again is refused; another run of the same name (a nightly folder) is not.
  EXPECT_THROW(append_run(history, history.runs.back(), {}), std::invalid_argument);
  EXPECT_NO_THROW(append_run(history, {"run-11", "c112", "2026-11-23"}, {}));
}

// Whether the nightly recipe (history --append ... --fail-on-change --fail-on-suspect) fails on
// the newest night of `history`.
bool nightly_fails(History history) {
  find_changes(history);
  for (const HistoryCell& cell : history.cells)
    if (newest_slowdown(cell) || newest_suspect(cell)) return true;
  return false;
}

// Ten nights of one cell whose run medians vary by `spread` (log-normal), from `slower_from` on
// (a night's index, 10 for never) 25 % slower; the first night on which the recipe fails, or 10.
int first_failing_night(std::mt19937_64& rng, double spread, int slower_from) {
  std::normal_distribution<double> z(0.0, spread);
  History history;
  for (int night = 0; night < 10; ++night) {
    const double level = 0.01 * (night >= slower_from ? 1.25 : 1.0) * std::exp(z(rng));
    append_run(history,
               {"night", "c" + std::to_string(night), "2026-11-" + std::to_string(10 + night)},
               {timed(0, "mnist_mlp", level)});
    if (nightly_fails(history)) return night;
  }
  return 10;
}

TEST(History, TheNightlyRecipeFailsBySecondBadNightAndPassesTenQuietOnes) {
  // A +25 % slowdown from night 7 (index 6) of ten, nights whose medians vary by 3 % (this
  // project's VM: the nightly series read 81.5, 79.4, 82.1, 83.4 ms): the recipe fails
  // on night 7 or 8 in at least 98 % of trials, and ten quiet nights pass in at least 95 %.
  // Nights that vary by 6 % are the limit of one run a night: the suspect's bar rises with their
  // spread, so that a noisy night is no suspect, and a quarter's slowdown then takes a third
  // night in up to a quarter of trials (docs/ci.md says so, and what to do: more processes).
  struct Case {
    double spread;
    int most_late, most_false;  // of 200
  };
  for (const Case c : {Case{0.03, 4, 10}, Case{0.06, 50, 16}}) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(c.spread * 1000));
    int late = 0, early = 0, false_fails = 0;
    const int trials = 200;
    for (int t = 0; t < trials; ++t) {
      const int failed = first_failing_night(rng, c.spread, 6);
      late += failed > 7 ? 1 : 0;
      early += failed < 6 ? 1 : 0;
      false_fails += first_failing_night(rng, c.spread, 10) < 10 ? 1 : 0;
    }
    std::printf(
        "nights varying by %.0f %%: planted +25 %% from night 7 failed after night 8 in "
        "%d of %d, before night 7 in %d; ten quiet nights failed in %d of %d\n",
        100.0 * c.spread, late, trials, early, false_fails, trials);
    EXPECT_LE(late, c.most_late) << "spread " << c.spread;
    EXPECT_LE(early + false_fails, 2 * c.most_false) << "spread " << c.spread;
    EXPECT_LE(false_fails, c.most_false) << "spread " << c.spread;
  }
}

// A suspect or a change point names what in env.json differs between the runs either side of it:
// a planted slowdown, another LibTorch.
TEST(History, ASuspectNamesWhatCanSkewTimingsThatChangedBesideIt) {
  History history;
  for (int night = 0; night < 6; ++night) {
    HistoryRun run{"night", "c" + std::to_string(night), "2026-11-" + std::to_string(10 + night)};
    run.setup = {{"LibTorch", "1.13.1"},
                 {"planted slowdown (each timed epoch, CROSSOVER_PLANT_SLOWDOWN)",
                  night >= 5 ? "+25 %" : "(none)"}};
    append_run(history, run, {timed(0, "mnist_mlp", night >= 5 ? 0.0125 : 0.01)});
  }
  find_changes(history);
  EXPECT_EQ(setup_changes(history, 4, 5),
            std::vector<std::string>{
                "planted slowdown (each timed epoch, CROSSOVER_PLANT_SLOWDOWN): (none) -> +25 %"});
  EXPECT_TRUE(setup_changes(history, 3, 4).empty());
  ASSERT_TRUE(newest_suspect(history.cells[0]).has_value());
  const std::string md = render_history_markdown(history);
  EXPECT_NE(md.find("what can skew timings differs: planted slowdown (each timed epoch, "
                    "CROSSOVER_PLANT_SLOWDOWN): (none) -&gt; +25 %"),
            std::string::npos)
      << md;
  // It survives the history file, and a mistyped setup reads as none.
  const History back = history_from_json(history_json(history));
  EXPECT_EQ(back.runs[5].setup, history.runs[5].setup);
  nlohmann::json hostile = history_json(history);
  hostile["runs"][5]["setup"] = {{"LibTorch", 3}};
  EXPECT_TRUE(history_from_json(hostile).runs[5].setup.empty());
}

// Six steady runs, then two where every cell is 50 % slower: each cell suspect in the same runs,
// and the verdict says that a slower machine moves them all together. One cell steady: no such
// line.
TEST(History, EveryCellSuspectInTheSameRunsIsSaidOnce) {
  const auto runs = [](double iris_after) {
    History history;
    for (int i = 0; i < 8; ++i) {
      const double f = i >= 6 ? 1.5 : 1.0;
      append_run(
          history,
          {"run-" + std::to_string(i), "c" + std::to_string(i), "2026-11-1" + std::to_string(i)},
          {timed(0, "iris_mlp", 1e-3 * (i >= 6 ? iris_after : 1.0)),
           timed(1, "mnist_mlp", 1e-2 * f)});
    }
    find_changes(history);
    return render_history_markdown(history);
  };
  const std::string together = runs(1.5);
  EXPECT_NE(together.find("2 cell(s) suspect"), std::string::npos) << together;
  EXPECT_NE(together.find("Every cell moved in the same run(s) (run-6, run-7): a slower machine"),
            std::string::npos)
      << together;
  const std::string alone = runs(1.0);
  EXPECT_NE(alone.find("1 cell(s) suspect"), std::string::npos) << alone;
  EXPECT_EQ(alone.find("Every cell moved"), std::string::npos) << alone;
}

TEST(History, TheStoredHistoryRoundTripsAndAHostileOneIsRefused) {
  History history = twelve_runs();
  find_changes(history);
  const nlohmann::json stored = nlohmann::json::parse(history_json(history).dump());
  History back = history_from_json(stored);
  find_changes(back);
  EXPECT_EQ(nlohmann::json(history_json(back)), nlohmann::json(history_json(history)));

  const auto refused = [&](const std::function<void(nlohmann::json&)>& spoil, const char* why) {
    nlohmann::json bad = stored;
    spoil(bad);
    try {
      (void)history_from_json(bad);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused([](nlohmann::json& j) { j["format"] = "something else"; }, "not a history");
  refused([](nlohmann::json& j) { j["runs"] = 7; }, "history.runs: not an array but number");
  refused([](nlohmann::json& j) { j["runs"][0]["commit"] = 3; },
          "runs[0].commit: not a string but number");
  refused([](nlohmann::json& j) { j["cells"][0]["points"][0][0] = 99; },
          "cells[0].points[0]: run 99 is not one of the history's runs");
  refused([](nlohmann::json& j) { j["cells"][0]["points"][0][1] = -1.0; },
          "a time that is not a positive number");
  refused([](nlohmann::json& j) { j["cells"][0]["points"][0][1] = 1e308; },
          "a time that is not a positive number of seconds up to");
  // Past a year, as a run's own results are held (clang's -Wuninitialized found the bound unset).
  refused([](nlohmann::json& j) { j["cells"][0]["points"][0][1] = 1e9; },
          "a time that is not a positive number of seconds up to 3.154e+07");
  refused([](nlohmann::json& j) { j["cells"][0]["points"][1][0] = 0; }, "runs out of order");
  // The quartiles are times around the median (the chart's axis ran to 1e+300).
  refused(
      [](nlohmann::json& j) {
        j["cells"][0]["points"][0][2] = -1e300;
        j["cells"][0]["points"][0][3] = 1e300;
      },
      "quartiles that are not times around the median");
  refused([](nlohmann::json& j) { j["cells"][0]["points"][0][3] = 1e-9; },
          "quartiles that are not times around the median");
  refused([](nlohmann::json& j) { j["cells"][1]["points"][2] = "x"; },
          "not [run, median, p25, p75]");
}

TEST(History, TheOutputsEscapeWhatTheRunsSayAndMarkTheSlowerCells) {
  History history = twelve_runs();
  history.runs[8].commit = "<b>|`x`";
  find_changes(history);
  const std::string md = render_history_markdown(history);
  EXPECT_NE(md.find("&lt;b&gt;\\|\\`x\\`"), std::string::npos) << md;
  EXPECT_EQ(md.find("<b>"), std::string::npos);
  EXPECT_NE(md.find("**slower**"), std::string::npos);
  EXPECT_NE(md.find("1 cell(s) slower in their newest segment."), std::string::npos);
  const std::string html = render_history_html(history);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;|`x`"), std::string::npos);
  EXPECT_NE(html.find("Slower in its newest segment: +"), std::string::npos);
  EXPECT_EQ(std::count(html.begin(), html.end(), '\n') > 0, true);
  EXPECT_EQ(html.find("<svg", html.find("<svg") + 1) != std::string::npos, true) << "two charts";
}

// Runs of one commit are told apart on the axis ("c100 #2"), and the runs' predicted cells are
// said to be left out, never drawn.
TEST(History, RunsOfOneCommitAreNumberedAndPredictedCellsAreSaidLeftOut) {
  History history;
  Result predicted = timed(1, "iris_mlp", 1e-3);
  predicted.cell.device = Device::cuda();
  predicted.status = CellStatus::kPredicted;
  for (int i = 0; i < 3; ++i)
    append_run(history,
               {"run-" + std::to_string(i), i < 2 ? "c100aaaa" : "c101bbbb",
                "2026-11-1" + std::to_string(i)},
               {timed(0, "iris_mlp", 1e-3), predicted});
  EXPECT_EQ(run_tick(history, 0), "c100aaa");
  EXPECT_EQ(run_tick(history, 1), "c100aaa #2");
  EXPECT_EQ(run_tick(history, 2), "c101bbb");
  ASSERT_EQ(history.cells.size(), 1u);  // the predicted cell has no series
  const std::string html = render_history_html(history);
  EXPECT_NE(html.find(">c100aaa #2</text>"), std::string::npos) << html;
  const std::string note = "3 predicted cell(s) of these runs are left out of every series";
  EXPECT_NE(html.find(note), std::string::npos);
  EXPECT_NE(render_history_markdown(history).find(note), std::string::npos);
}

// A run folder with one results line per result and an env.json of this revision and start.
std::string write_run(ScratchDir& dir, const std::string& name, const std::string& revision,
                      const std::string& at, const std::vector<Result>& results,
                      const nlohmann::json& more_env = nlohmann::json::object()) {
  const std::string folder = dir.file(name);
  fs::create_directories(folder);
  std::ofstream lines(folder + "/results.jsonl");
  for (const Result& r : results) lines << result_to_json(r).dump() << "\n";
  nlohmann::json env = {{"crossover_revision", revision}, {"recorded_at", at}};
  env.update(more_env);
  std::ofstream(folder + "/env.json") << env.dump();
  return folder;
}

TEST(History, TheCommandOrdersTheRunsAppendsOneAndFailsOnASlowdown) {
  ScratchDir dir;
  std::vector<std::string> folders;
  // Twelve runs, the last four slower: a permutation test can name a step of four from 12 runs
  // on (2 of C(12, 4) = 495 orders tie it, p ~ 0.004; 2 of C(10, 4) = 210 is not below 0.01).
  for (int i = 0; i < 12; ++i) {
    // Started in the reverse order of their commits: --order decides.
    const std::string revision = "abcdef" + std::to_string(10 + i) + "0000";
    folders.push_back(write_run(dir, "run-" + std::to_string(i), revision,
                                "2026-11-" + std::to_string(29 - i),
                                {timed(0, "iris_mlp", i >= 8 ? 1.5e-3 : 1e-3)}));
  }
  std::string order;
  for (int i = 0; i < 12; ++i) order += "abcdef" + std::to_string(10 + i) + "\n";
  const std::string order_file = dir.write("order.txt", order);
  std::string runs;
  for (const auto& f : folders) runs += " " + f;
  const std::string out = dir.file("history");
  testing::Outcome o = testing::crossover(
      dir, "history" + runs + " --order " + order_file + " --out " + out + " --fail-on-change");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.out.find("+50.0 % ["), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("from abcdef170000 to abcdef180000"), std::string::npos) << o.out;
  for (const char* file : {"history.json", "history.md", "history.html"})
    EXPECT_TRUE(fs::exists(out + "/" + file)) << file;
  // By start time instead, the same runs are in reverse: the step reads as a speed-up, no failure.
  o = testing::crossover(dir,
                         "history" + runs + " --out " + dir.file("by-time") + " --fail-on-change");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("-33.3 % ["), std::string::npos) << o.out;

  // One more run appended to the stored history, without the others.
  const std::string next =
      write_run(dir, "next-0", "abcdef300000", "2026-11-30", {timed(0, "iris_mlp", 1.5e-3)});
  o = testing::crossover(dir, "history --append " + next + " --into " + out);
  EXPECT_EQ(o.code, 0) << o.err;
  const auto stored = nlohmann::json::parse(testing::slurp(out + "/history.json"));
  EXPECT_EQ(stored["runs"].size(), 13u);
  EXPECT_EQ(stored["runs"][12]["commit"], "abcdef300000");
  EXPECT_EQ(stored["cells"][0]["points"].size(), 13u);

  // What is refused: an order that lacks a run's commit, a history.json that is not one.
  dir.write("short.txt", "abcdef10\n");
  o = testing::crossover(
      dir, "history" + runs + " --order " + dir.file("short.txt") + " --out " + dir.file("x"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("lacks the commit of"), std::string::npos) << o.err;
  fs::create_directories(dir.file("fake"));
  dir.write("fake/history.json", "{\"format\": 1}");
  o = testing::crossover(dir, "history --append " + next + " --into " + dir.file("fake"));
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find(dir.file("fake/history.json") + ": not a history"), std::string::npos)
      << o.err;
  // A report file that is a link: nothing is written through it, and the history is not advanced.
  const std::string later =
      write_run(dir, "next-1", "abcdef310000", "2026-12-01", {timed(0, "iris_mlp", 1.5e-3)});
  fs::remove(out + "/history.md");
  fs::create_symlink(dir.write("target.txt", "mine"), out + "/history.md");
  o = testing::crossover(dir, "history --append " + later + " --into " + out);
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("never writes through a link"), std::string::npos) << o.err;
  EXPECT_EQ(testing::slurp(dir.file("target.txt")), "mine");
  EXPECT_EQ(nlohmann::json::parse(testing::slurp(out + "/history.json"))["runs"].size(), 13u);
  // Another command holding the history's folder: the append waits for nothing and loses nothing.
  {
    const DirectoryLock held(out);
    o = testing::crossover(dir, "history --append " + later + " --into " + out);
    EXPECT_EQ(o.code, 2);
    EXPECT_NE(o.err.find(out), std::string::npos) << o.err;
  }
  EXPECT_EQ(nlohmann::json::parse(testing::slurp(out + "/history.json"))["runs"].size(), 13u);
  o = testing::crossover(dir, "history");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("needs runs, or --append RUN --into DIR"), std::string::npos) << o.err;
}

// Six steady runs and one 50 % slower: too few after it for a change point, so the newest run is
// suspect, named with its commit in the table, the verdict and history.html (whose table and
// verdict come first, its axis by commit, its times in ms); --fail-on-suspect fails on it.
TEST(History, ANewestRunSlowerThanTheThresholdIsSuspectUntilAChangePointCanNameIt) {
  ScratchDir dir;
  std::string runs;
  for (int i = 0; i < 7; ++i)
    runs +=
        " " + write_run(dir, "run-" + std::to_string(i), "abcdef" + std::to_string(10 + i) + "0000",
                        "2026-11-1" + std::to_string(i),
                        {timed(0, "iris_mlp", i == 6 ? 1.5e-3 : 1e-3)});
  const testing::Outcome o =
      testing::crossover(dir, "history" + runs + " --out " + dir.file("h") + " --fail-on-change");
  EXPECT_EQ(o.code, 0) << o.err;  // a suspect is not a change point
  EXPECT_NE(o.out.find("suspect: " + dir.file("run-6") +
                       " (abcdef160000) +50.0 % on the runs "
                       "before them (threshold 5.0 %"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("1 cell(s) suspect"), std::string::npos) << o.out;
  const std::string html = testing::slurp(dir.file("h/history.html"));
  EXPECT_LT(html.find("<table>"), html.find("<svg")) << html;
  EXPECT_LT(html.find("1 cell(s) suspect"), html.find("<svg"));
  EXPECT_NE(html.find(">abcdef1</text>"), std::string::npos);  // a commit under the axis
  EXPECT_NE(html.find("epoch time (ms)"), std::string::npos);
  const nlohmann::json stored = nlohmann::json::parse(testing::slurp(dir.file("h/history.json")));
  EXPECT_EQ(stored["cells"][0]["suspect"]["runs"], nlohmann::json::array({6}));
  EXPECT_EQ(
      testing::crossover(dir, "history" + runs + " --out " + dir.file("h2") + " --fail-on-suspect")
          .code,
      1);
  // One more steady run after it: the newest is no longer slower; nothing is suspect.
  runs += " " + write_run(dir, "run-7", "abcdef170000", "2026-11-18", {timed(0, "iris_mlp", 1e-3)});
  EXPECT_EQ(
      testing::crossover(dir, "history" + runs + " --out " + dir.file("h3") + " --fail-on-suspect")
          .code,
      0);
}

// Runs whose env.json shows a busy machine (a load above its cores, a reference that moved
// within the run) are shaded on the charts, listed under the table, and named beside a suspect
// built on them.
TEST(History, RunsOnABusyMachineAreMarkedAndNamedBesideTheSuspect) {
  ScratchDir dir;
  std::string runs;
  const auto reference = [](double matmul) {
    return nlohmann::json{{"matmul_seconds", matmul}, {"step_seconds", 1e-4}};
  };
  for (int i = 0; i < 7; ++i) {
    nlohmann::json env = nlohmann::json::object();
    if (i == 5)  // its reference 60 % slower around its cell than before it
      env["reference"] = {
          {"before", reference(1e-3)},
          {"cells", {{"0", {{"before", reference(1.6e-3)}, {"after", reference(1.6e-3)}}}}}};
    if (i == 6) env["cpu"] = {{"logical_cores", 2}, {"load_average", {10.8, 9.1, 7.0}}};
    runs +=
        " " + write_run(dir, "run-" + std::to_string(i), "abcdef" + std::to_string(10 + i) + "0000",
                        "2026-11-1" + std::to_string(i),
                        {timed(0, "iris_mlp", i >= 5 ? 2e-3 : 1e-3)}, env);
  }
  const testing::Outcome o = testing::crossover(dir, "history" + runs + " --out " + dir.file("h"));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("(threshold 5.0 %; too few runs after them for a change point), and "
                       "abcdef150000, abcdef160000 ran on a busy machine: run again on a quiet "
                       "one before believing it"),
            std::string::npos)
      << o.out;
  const std::string md = testing::slurp(dir.file("h/history.md"));
  EXPECT_NE(md.find("Runs on a busy machine (shaded on the charts): " + dir.file("run-5") +
                    " (abcdef150000): its reference moved +60.0 % within the run; " +
                    dir.file("run-6") + " (abcdef160000): load 10.8 on 2 cores"),
            std::string::npos)
      << md;
  const std::string html = testing::slurp(dir.file("h/history.html"));
  std::size_t shaded = 0;
  for (auto at = html.find("<rect class='busy-run'"); at != std::string::npos;
       at = html.find("<rect class='busy-run'", at + 1))
    ++shaded;
  EXPECT_EQ(shaded, 2u);  // two runs on the one cell's chart
  EXPECT_NE(html.find("ran on a busy machine: load 10.8 on 2 cores</title>"), std::string::npos);
  const nlohmann::json stored = nlohmann::json::parse(testing::slurp(dir.file("h/history.json")));
  EXPECT_FALSE(stored["runs"][4].contains("machine"));
  EXPECT_EQ(stored["runs"][6]["machine"], "load 10.8 on 2 cores");
  // Read back with the history, the marks stay.
  const History again = history_from_json(stored);
  EXPECT_EQ(again.runs[5].machine, "its reference moved +60.0 % within the run");
}

// --order's commits put runs in place by prefix either way ("-dirty" dropped), and a run whose
// commit is not among them is named; mixed runs are each warned about once.
TEST(History, CommitOrderAndMixedRunsAreDecidedBesideTheHistory) {
  const std::vector<HistoryRun> runs = {{"a", "abcdef1234-dirty", "2026-11-02"},
                                        {"b", "1234567", "2026-11-01"}};
  EXPECT_EQ(commit_positions({"1234567890", "abcdef1"}, runs), (std::vector<std::size_t>{1, 0}));
  try {
    (void)commit_positions({"abcdef1"}, runs);
    ADD_FAILURE() << "a run whose commit is not listed was placed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("lacks the commit of b (1234567)"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(is_recorded_time("2026-11-26T21:51:20Z"));
  EXPECT_FALSE(is_recorded_time("yesterday"));
  RunRecord one, other;
  one.results = {timed(0, "iris_mlp", 1e-3), timed(1, "mnist_mlp", 1e-2)};
  other.results = {timed(0, "iris_mlp", 1e-3)};
  one.environment = other.environment = Environment{};
  one.environment->cpu.model = "CPU A";
  other.environment->cpu.model = "CPU B";
  const std::vector<std::pair<HistoryRun, RunRecord>> mixed = {
      {{"first", "c1", "2026-11-01"}, one}, {{"second", "c2", "not a date"}, other}};
  const std::vector<std::string> warnings = mixed_run_warnings(mixed, false);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("second (1 of 1) share only some of their cells with first"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[1].find("second: recorded_at is not a date"), std::string::npos);
  EXPECT_NE(warnings[2].find("the runs come from 2 machines"), std::string::npos);
  EXPECT_EQ(mixed_run_warnings(mixed, true).size(), 2u);  // ordered by commits: dates not needed
  EXPECT_TRUE(mixed_run_warnings({mixed[0], mixed[0]}, false).empty());
}

}  // namespace
}  // namespace crossover
