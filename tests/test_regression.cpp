// The regression verdicts of `crossover compare`: the U test against hand-computed values, the
// false-alarm and detection rates on seeded samples, matching, pooling of runs, exit decisions,
// environment differences, and the Markdown, JSON and Google Benchmark writers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "reports/gate/regression.hpp"
#include "reports/render/report_gbench.hpp"
#include "tests/sample_results.hpp"

namespace crossover {
namespace {

using testing::noisy;

Result cell(std::size_t index, const std::string& workload, const std::vector<double>& samples) {
  return testing::sample_result(index, workload, samples);
}

// The one cell of a report, by value: reports are often temporaries here.
CellVerdict only(const RegressionReport& report) {
  EXPECT_EQ(report.cells.size(), 1u);
  return report.cells.front();
}

TEST(Regression, MannWhitneyMatchesHandComputedValues) {
  // Exact: no overlap at all, 3 against 3 -> 2 / C(6, 3) = 0.1; 4 against 4 -> 2 / 70.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
  EXPECT_NEAR(mann_whitney_p({5, 6, 7, 8}, {1, 2, 3, 4}), 2.0 / 70.0, 1e-12);
  // Exact, interleaved: U = 1 for {1, 3} vs {2, 4, 5}: P(U <= 1) = 2 / 10, two-sided 0.4.
  EXPECT_NEAR(mann_whitney_p({1, 3}, {2, 4, 5}), 0.4, 1e-12);
  // With ties, the normal approximation (tie and continuity corrections), computed by hand:
  // U = 4.5, mean 12.5, variance 22.5 -> z = 7.5 / sqrt(22.5), p = erfc(z / sqrt 2) = 0.1138.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {3, 4, 5, 6, 7}), 0.1138, 5e-4);
  EXPECT_DOUBLE_EQ(mann_whitney_p({2, 2, 2}, {2, 2, 2}), 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_p({}, {1.0}), 1.0);
}

TEST(Regression, TheSmallestReachablePValueSaysHowManySamplesAreNeeded) {
  EXPECT_NEAR(smallest_p_value(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(smallest_p_value(4, 4), 2.0 / 70.0, 1e-12);
  EXPECT_EQ(samples_needed(0.05), 4u);
  EXPECT_EQ(samples_needed(0.01), 5u);
  EXPECT_LT(smallest_p_value(30, 30), 1e-15);
  EXPECT_FALSE(std::isnan(smallest_p_value(1000, 1000)));  // logarithms: no overflow
}

TEST(Regression, FlagsATenPercentSlowdownAndRarelyFlagsNoise) {
  // The within-run test alone (no assumed spread between runs): 30 samples, 2 % noise, default
  // alpha and threshold.
  std::mt19937_64 rng(42);
  int detected = 0, false_alarms = 0;
  for (int trial = 0; trial < 100; ++trial) {
    RegressionOptions options;
    options.assumed_spread = 0.0;
    options.seed = static_cast<std::uint64_t>(trial);
    const auto base = noisy(rng, 30, 1.0, 0.02);
    const auto slow = noisy(rng, 30, 1.10, 0.02);
    const auto same = noisy(rng, 30, 1.0, 0.02);
    detected +=
        only(compare_runs({cell(0, "mnist_mlp", base)}, {cell(0, "mnist_mlp", slow)}, options))
            .verdict == Verdict::kRegression;
    false_alarms +=
        only(compare_runs({cell(0, "mnist_mlp", base)}, {cell(0, "mnist_mlp", same)}, options))
            .verdict == Verdict::kRegression;
  }
  EXPECT_GE(detected, 95);
  EXPECT_LE(false_alarms, 5);
}

// One run per side without a calibration: runs whose level drifts by 4 % from one process to
// the next (1 % noise within each). The within-run test alone calls that drift a regression
// often; against the default assumed spread the gate rarely does, and still catches +30 %.
TEST(Regression, TheAssumedSpreadKeepsAnUncalibratedOneRunGateFromCryingWolf) {
  std::mt19937_64 rng(2027);
  std::normal_distribution<double> z(0.0, 1.0);
  const auto run = [&](double level) {
    return noisy(rng, 20, level * std::exp(0.04 * z(rng)), 0.01);
  };
  RegressionOptions within_only;
  within_only.assumed_spread = 0.0;
  const RegressionOptions assumed;  // the default
  int wolf_within = 0, wolf_assumed = 0, caught = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const auto a = run(1.0), b = run(1.0), slow = run(1.3);
    const auto verdict = [&](const std::vector<double>& x, const std::vector<double>& y,
                             const RegressionOptions& o) {
      return only(compare_runs({cell(0, "mnist_mlp", x)}, {cell(0, "mnist_mlp", y)}, o));
    };
    wolf_within += verdict(a, b, within_only).verdict == Verdict::kRegression;
    const CellVerdict v = verdict(a, b, assumed);
    wolf_assumed += v.verdict == Verdict::kRegression;
    caught += verdict(a, slow, assumed).verdict == Verdict::kRegression;
    if (trial == 0 && v.verdict == Verdict::kInconclusive) {
      EXPECT_NE(v.reason.find("cannot tell this change from the difference between two "
                              "processes (an assumed 4.0 % per run)"),
                std::string::npos)
          << v.reason;
    }
  }
  EXPECT_GT(wolf_within, 20);   // the drift is seen as change: one pair in ten or more
  EXPECT_LE(wolf_assumed, 10);  // at most 5 %
  EXPECT_GE(caught, 180);       // +30 %: 9 times in 10
  // The verdict says what decided it.
  const CellVerdict big = only(
      compare_runs({cell(0, "mnist_mlp", run(1.0))}, {cell(0, "mnist_mlp", run(1.6))}, assumed));
  EXPECT_EQ(big.verdict, Verdict::kRegression);
  EXPECT_EQ(big.decided_by, DecidedBy::kAssumedSpread);
  EXPECT_NE(big.evidence.find("against an assumed run-to-run variation of 4.0 %"),
            std::string::npos)
      << big.evidence;
}

TEST(Regression, ASignificantChangeBelowTheThresholdIsNoChange) {
  std::mt19937_64 rng(7);
  const auto base = noisy(rng, 200, 1.0, 0.005);
  const auto cand = noisy(rng, 200, 1.02, 0.005);
  RegressionOptions within_only;  // the within-run test alone
  within_only.assumed_spread = 0.0;
  const auto& v =
      only(compare_runs({cell(0, "mnist_mlp", base)}, {cell(0, "mnist_mlp", cand)}, within_only));
  EXPECT_LT(v.p_value, 0.05);
  EXPECT_EQ(v.verdict, Verdict::kNoChange);
  EXPECT_EQ(v.rule, Rule::kSignificantWithin);
  EXPECT_NE(v.reason.find("within"), std::string::npos);
}

TEST(Regression, FewOrNoisySamplesAreInconclusiveAndSayWhy) {
  const auto& few = only(compare_runs({cell(0, "mnist_mlp", {1.0, 1.0, 1.0})},
                                      {cell(0, "mnist_mlp", {2.0, 2.0, 2.0})}, {}));
  EXPECT_EQ(few.verdict, Verdict::kInconclusive);
  EXPECT_NE(few.reason.find("too few samples (3 and 3)"), std::string::npos);
  EXPECT_NE(few.reason.find("at least 4"), std::string::npos);
  EXPECT_EQ(few.rule, Rule::kNone);  // refused, not decided

  std::mt19937_64 rng(3);
  RegressionOptions within_only;
  within_only.assumed_spread = 0.0;
  const auto& noise =
      only(compare_runs({cell(0, "mnist_mlp", noisy(rng, 8, 1.0, 0.5))},
                        {cell(0, "mnist_mlp", noisy(rng, 8, 1.0, 0.5))}, within_only));
  EXPECT_EQ(noise.verdict, Verdict::kInconclusive);
  EXPECT_EQ(noise.rule, Rule::kTooNoisy);
  EXPECT_NE(noise.reason.find("too noisy"), std::string::npos);
}

TEST(Regression, ThroughputRegressesWhenItFalls) {
  std::mt19937_64 rng(11);
  RegressionOptions options;
  options.metric = GateMetric::kThroughput;
  const auto& v = only(compare_runs({cell(0, "mnist_mlp", noisy(rng, 30, 1.0, 0.01))},
                                    {cell(0, "mnist_mlp", noisy(rng, 30, 1.25, 0.01))}, options));
  EXPECT_EQ(v.verdict, Verdict::kRegression);
  EXPECT_NEAR(v.change, 1.0 / 1.25 - 1.0, 0.02);  // 1,000 rows per epoch: samples/s fell 20 %
  EXPECT_NEAR(v.baseline_median, 1000.0, 20.0);
}

TEST(Regression, TheRunLevelTestMatchesHandComputedValues) {
  // Log run medians 0, 0.1, 0.2 against 0.5, 0.6, 0.7: difference 0.5, standard error
  // sqrt(2 * 0.01 / 3), t = 6.12 on 4 degrees of freedom -> p = 0.00360 (numerical integral of the
  // t density); 95 % interval exp(0.5 -+ 2.776 * se) - 1 = [0.3143, 1.0682].
  const auto run = [](double log_median) {
    return std::vector<double>{0.99 * std::exp(log_median), std::exp(log_median),
                               1.01 * std::exp(log_median)};
  };
  const auto t = run_level_test({run(0.0), run(0.1), run(0.2)}, {run(0.5), run(0.6), run(0.7)});
  EXPECT_NEAR(t.degrees_of_freedom, 4.0, 1e-9);
  EXPECT_NEAR(t.p_value, 0.003602, 2e-5);
  EXPECT_NEAR(t.change, std::exp(0.5) - 1.0, 1e-9);
  EXPECT_NEAR(t.change_ci.low, 0.3143, 1e-3);
  EXPECT_NEAR(t.change_ci.high, 1.0682, 1e-3);
  EXPECT_THROW(run_level_test({run(0.0)}, {run(0.0), run(0.1)}), std::invalid_argument);
}

TEST(Regression, SeveralRunsPerSideAreTestedRunByRun) {
  // Each run (process) has its own state: baseline runs at 1.0, 1.6, 1.0; candidate at 1.6, 1.0,
  // 1.6. Pooled, the epochs say "60 % slower" with a tiny p-value; the runs say it is noise.
  std::mt19937_64 rng(5);
  std::vector<Result> base, cand;
  for (double level : {1.0, 1.6, 1.0})
    base.push_back(cell(0, "mnist_mlp", noisy(rng, 20, level, 0.01)));
  for (double level : {1.6, 1.0, 1.6})
    cand.push_back(cell(0, "mnist_mlp", noisy(rng, 20, level, 0.01)));
  EXPECT_LT(mann_whitney_p(base[0].epoch_seconds_samples, cand[0].epoch_seconds_samples), 1e-6);
  const auto pooled = compare_runs(base, cand, {});
  EXPECT_EQ(only(pooled).baseline_runs, 3u);
  EXPECT_EQ(only(pooled).baseline_samples, 60u);
  EXPECT_EQ(only(pooled).test, TestUsed::kPairedRuns);
  EXPECT_GT(only(pooled).p_value, 0.2);
  EXPECT_EQ(only(pooled).verdict, Verdict::kInconclusive);
  EXPECT_NE(only(pooled).reason.find("paired t on 3 run pairs"), std::string::npos);
  EXPECT_TRUE(pooled.notes.empty());
  // The medians printed beside the change are the ones it is the ratio of: the pooled epochs'
  // medians (about 1.0 and 1.6 here) would read +60 % beside a change of about +17 %.
  const CellVerdict& v = only(pooled);
  EXPECT_NEAR(v.candidate_median / v.baseline_median - 1.0, v.decided_change, 1e-12);
  EXPECT_NEAR(v.decided_change, std::cbrt(1.6) - 1.0, 0.03);
  // The first runs alone: a "regression", with the note that one run per side hides the rest.
  const auto single = compare_runs({base[0]}, {cand[0]}, {});
  EXPECT_EQ(only(single).test, TestUsed::kMannWhitney);
  EXPECT_EQ(only(single).verdict, Verdict::kRegression);
  ASSERT_EQ(single.notes.size(), 1u);
  EXPECT_NE(single.notes[0].find("--rerun"), std::string::npos);
  // Runs that agree on a 50 % slowdown: a regression by the runs too.
  std::vector<Result> slow;
  for (double level : {1.5, 1.55, 1.45})
    slow.push_back(cell(0, "mnist_mlp", noisy(rng, 20, level, 0.01)));
  std::vector<Result> steady;
  for (double level : {1.0, 1.05, 0.95})
    steady.push_back(cell(0, "mnist_mlp", noisy(rng, 20, level, 0.01)));
  EXPECT_EQ(only(compare_runs(steady, slow, {})).verdict, Verdict::kRegression);
}

TEST(Regression, CellsMatchOnConfigurationAndTheRestIsListed) {
  std::mt19937_64 rng(1);
  Result a = cell(0, "mnist_mlp", noisy(rng, 20, 1.0, 0.01));
  Result b = cell(1, "iris_mlp", noisy(rng, 20, 1.0, 0.01));
  Result a2 = cell(5, "mnist_mlp", noisy(rng, 20, 1.0, 0.01));
  a2.cell.min_repeats = 7;  // the stopping rule is not part of a cell's identity
  a2.cell.max_repeats = 7;
  Result c = cell(6, "mnist_mlp", noisy(rng, 20, 1.0, 0.01));
  c.cell.batch_size = 64;  // a different cell
  const auto report = compare_runs({a, b}, {a2, c}, {});
  ASSERT_EQ(report.cells.size(), 1u);
  EXPECT_EQ(report.cells[0].baseline_cell, 0u);
  EXPECT_EQ(report.cells[0].candidate_cell, 5u);
  ASSERT_EQ(report.only_in_baseline.size(), 1u);
  EXPECT_EQ(report.only_in_baseline[0], "iris_mlp device=cpu");
  ASSERT_EQ(report.only_in_candidate.size(), 1u);
  EXPECT_EQ(report.only_in_candidate[0], "mnist_mlp device=cpu batch_size=64");
  EXPECT_EQ(report.cells[0].name, "mnist_mlp device=cpu batch_size=full");
  // ...but compare says that the two were measured with other stopping rules.
  const auto note = std::find_if(report.notes.begin(), report.notes.end(), [](const auto& n) {
    return n.find("min_repeats 3 -> 7; max_repeats 10 -> 7") != std::string::npos;
  });
  EXPECT_NE(note, report.notes.end());
}

TEST(Regression, DifferentDataIsNotCompared) {
  std::mt19937_64 rng(2);
  Result a = cell(0, "mnist_mlp", noisy(rng, 20, 1.0, 0.01));
  Result b = cell(0, "mnist_mlp", noisy(rng, 20, 2.0, 0.01));
  b.data_source = DataSource::kSynthetic;
  const auto& v = only(compare_runs({a}, {b}, {}));
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_NE(v.reason.find("the data differ"), std::string::npos);
}

TEST(Regression, ExitDecisionFollowsFailOn) {
  std::mt19937_64 rng(9);
  const auto base = noisy(rng, 30, 1.0, 0.01);
  const auto faster = noisy(rng, 30, 0.7, 0.01);
  RegressionOptions options;
  auto report = compare_runs({cell(0, "mnist_mlp", base)}, {cell(0, "mnist_mlp", faster)}, options);
  EXPECT_EQ(only(report).verdict, Verdict::kImprovement);
  EXPECT_FALSE(report.fails());  // improvements never fail a job by default
  report.options.fail_on = FailOn::kAnyChange;
  EXPECT_TRUE(report.fails());

  Result failed = cell(0, "mnist_mlp", {});
  failed.status = CellStatus::kFailed;
  failed.reason = "CUDA out of memory";
  report = compare_runs({cell(0, "mnist_mlp", base)}, {failed}, options);
  EXPECT_EQ(only(report).verdict, Verdict::kFailed);
  EXPECT_EQ(only(report).reason, "candidate failed: CUDA out of memory");
  EXPECT_TRUE(report.fails());
  report.options.fail_on = FailOn::kNone;
  EXPECT_FALSE(report.fails());

  Result skipped = cell(0, "mnist_mlp", {});
  skipped.status = CellStatus::kSkipped;
  report = compare_runs({skipped}, {skipped}, options);
  EXPECT_EQ(only(report).verdict, Verdict::kNotMeasured);
  EXPECT_EQ(only(report).reason, "baseline skipped");
  EXPECT_FALSE(report.fails());

  // The metric and the exit rule are enums: a word that names none is no value (compare's options
  // are checked against the words: Cli.CompareRejectsBadInputWithExitTwo).
  EXPECT_FALSE(parse_word<GateMetric>("latency").has_value());
  EXPECT_EQ(parse_word<FailOn>("any-change"), FailOn::kAnyChange);
  options.alpha = 1.5;
  EXPECT_THROW(check_options(options), std::invalid_argument);
}

TEST(Regression, EnvironmentDifferencesAreListedAndTheUnfairOnesMarked) {
  const Environment base =
      environment_from_json({{"cpu", {{"model", "Xeon"}, {"logical_cores", 2}}},
                             {"blas", {{"kind", "openblas"}}},
                             {"host", {{"hostname", "a"}}},
                             {"peak_gflops", {{"cpu", 200.0}}}});
  EXPECT_TRUE(environment_differences(base, base).empty());
  Environment cand = base;
  cand.host.hostname = "b";
  auto diffs = environment_differences(base, cand);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].what, "host");
  EXPECT_FALSE(diffs[0].unfair);
  cand.blas.kind = "reference";
  cand.peak_gflops = {{"cpu", 100.0}};  // half the matmul peak: a busy machine
  diffs = environment_differences(base, cand);
  ASSERT_EQ(diffs.size(), 3u);
  EXPECT_EQ(diffs[0].what, "BLAS");
  EXPECT_TRUE(diffs[0].unfair);
  EXPECT_NE(diffs[2].candidate.find("-50.0 %"), std::string::npos);
  EXPECT_TRUE(diffs[2].unfair);
  // A text a record lacks, or has empty, is "(none)"; a count it lacks is "(not recorded)"; an
  // empty text against a lacking one is no difference.
  Environment older = base;
  older.cpu.logical_cores.reset();
  Environment governed = base;
  governed.cpu.governor = "powersave";
  diffs = environment_differences(older, governed);
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_EQ(diffs[0].what, "logical cores");
  EXPECT_EQ(diffs[0].baseline, "(not recorded)");
  EXPECT_EQ(diffs[0].candidate, "2");
  EXPECT_EQ(diffs[1].baseline, "(none)");
  EXPECT_EQ(diffs[1].candidate, "powersave");
  governed =
      environment_from_json({{"cpu", {{"model", "Xeon"}, {"logical_cores", 2}, {"governor", ""}}},
                             {"blas", {{"kind", "openblas"}}},
                             {"host", {{"hostname", "a"}}},
                             {"peak_gflops", {{"cpu", 200.0}}}});
  EXPECT_TRUE(environment_differences(base, governed).empty());
}

TEST(Regression, MarkdownPutsRegressionsFirstAndFoldsTheUnchanged) {
  std::mt19937_64 rng(4);
  std::vector<Result> base = {cell(0, "iris_mlp", noisy(rng, 30, 1.0, 0.01)),
                              cell(1, "mnist_mlp", noisy(rng, 30, 1.0, 0.01))};
  std::vector<Result> cand = {cell(0, "iris_mlp", noisy(rng, 30, 1.0, 0.01)),
                              cell(1, "mnist_mlp", noisy(rng, 30, 1.5, 0.01))};
  RegressionOptions within_only;  // so that the unchanged cell can be "no change"
  within_only.assumed_spread = 0.0;
  RegressionReport report = compare_runs(base, cand, within_only);
  report.baseline_label = "main";
  report.candidate_label = "pr";
  report.environment = {{"BLAS", "openblas", "reference", true}};
  EXPECT_EQ(report.cells[0].verdict, Verdict::kRegression);  // sorted first although it is cell 1
  const std::string md = render_regression_markdown(report);
  EXPECT_EQ(md.rfind("## FAIL: 1 regression(s) in 2 measured cell(s)", 0), 0u);
  EXPECT_NE(md.find("**Warning:**"), std::string::npos);
  EXPECT_NE(md.find("| BLAS | openblas | reference | yes |"), std::string::npos);
  const auto regressions = md.find("### Regressions (1)");
  const auto unchanged = md.find("<details><summary>No change (1)</summary>");
  ASSERT_NE(regressions, std::string::npos);
  ASSERT_NE(unchanged, std::string::npos);
  EXPECT_LT(regressions, unchanged);
  EXPECT_NE(md.find("| mnist_mlp device=cpu |"), std::string::npos);

  const auto j = regression_json(report);
  EXPECT_EQ(j["verdict"], "regression");
  EXPECT_TRUE(j["fails"].get<bool>());
  EXPECT_EQ(j["counts"]["regression"], 1);
  EXPECT_EQ(j["counts"]["no change"], 1);
  EXPECT_TRUE(j["environment"]["unfair"].get<bool>());
  EXPECT_EQ(j["cells"][0]["name"], "mnist_mlp device=cpu");
  EXPECT_NEAR(j["cells"][0]["change"].get<double>(), 0.5, 0.03);

  const std::string text = render_regression_text(report);
  EXPECT_NE(text.find("WARNING environment differs: BLAS: openblas -> reference"),
            std::string::npos);
}

// compare.json says null where nothing was measured or tested: a cell that failed in the
// candidate has no candidate median, change, interval or p-value (they were 0, 0 and 1, which
// a tool reads as "no change, certainly").
TEST(Regression, TheJsonIsNullWhereNothingWasMeasuredOrTested) {
  std::mt19937_64 rng(9);
  std::vector<Result> base = {cell(0, "iris_mlp", noisy(rng, 30, 1.0, 0.01))};
  std::vector<Result> cand = {cell(0, "iris_mlp", {})};
  cand[0].status = CellStatus::kFailed;
  cand[0].reason = "planted";
  const auto j = regression_json(compare_runs(base, cand, RegressionOptions{}));
  ASSERT_EQ(j["cells"].size(), 1u);
  const auto& c = j["cells"][0];
  EXPECT_EQ(c["candidate_samples"], 0);
  for (const char* field : {"candidate_median", "change", "change_ci", "decided_change",
                            "decided_ci", "p_value", "run_level_p", "net_change"})
    EXPECT_TRUE(c[field].is_null()) << field << " is " << c[field];
  // A tested cell keeps its numbers.
  const auto tested = regression_json(compare_runs(base, base, RegressionOptions{}));
  EXPECT_TRUE(tested["cells"][0]["p_value"].is_number());
  EXPECT_GT(tested["cells"][0]["baseline_median"].get<double>(), 0.0);
  EXPECT_TRUE(tested["cells"][0]["change_ci"].is_array());
}

TEST(GbenchExport, ReadsBackAsTheResults) {
  std::vector<Result> results = {cell(0, "mnist_mlp", {0.5, 0.25, 0.75}),
                                 cell(1, "mnist_mlp", {1.0, 2.0}), cell(2, "iris_mlp", {})};
  results[1].cell.batch_size = 64;
  results[2].status = CellStatus::kSkipped;
  // The aggregates are the results' own statistics, as every measured result has them.
  for (int i : {0, 1}) set_epoch_statistics(results[i], results[i].epoch_seconds_samples);
  const Environment env =
      environment_from_json({{"host", {{"hostname", "box"}}},
                             {"cpu", {{"logical_cores", 2}, {"governor", "powersave"}}}});
  const auto parsed = nlohmann::json::parse(render_gbench_json(results, env).dump());
  EXPECT_EQ(parsed["context"]["host_name"], "box");
  EXPECT_EQ(parsed["context"]["num_cpus"], 2);
  EXPECT_TRUE(parsed["context"]["cpu_scaling_enabled"].get<bool>());
  const auto& benchmarks = parsed["benchmarks"];
  ASSERT_EQ(benchmarks.size(), 2u * 2u);  // mean and median of each ok cell, the skipped left out
  std::map<std::string, double> medians;
  std::map<std::string, std::string> units;
  for (const auto& b : benchmarks) {
    // One unit for every cell and run (compare.py drops a benchmark whose unit changed), in
    // which compare.py's whole-unit columns show at least three digits.
    EXPECT_EQ(b["time_unit"], "ns");
    EXPECT_EQ(b["run_type"], "aggregate");
    EXPECT_EQ(b["aggregate_unit"], "time");  // no ratio (cv) among them
    EXPECT_GE(b["real_time"].get<double>(), 100.0);
    EXPECT_EQ(b["name"],
              b["run_name"].get<std::string>() + "_" + b["aggregate_name"].get<std::string>());
    // github-action-benchmark's googlecpp extractor, as documented: every entry of "benchmarks"
    // is a benchmark named by "name", its value "real_time", its unit time_unit + "/iter". One
    // series per name: no two entries may share one.
    EXPECT_TRUE(units.emplace(b["name"], b["time_unit"].get<std::string>() + "/iter").second)
        << b["name"] << " twice";
    if (b["aggregate_name"] == "median") {
      medians[b["run_name"]] = b["real_time"].get<double>() / 1e9;
      EXPECT_EQ(b["repetitions"].get<std::size_t>(),
                b["run_name"] == "mnist_mlp/device:cpu/batch_size:full" ? 3u : 2u);
    }
  }
  ASSERT_EQ(medians.size(), 2u);
  EXPECT_DOUBLE_EQ(medians["mnist_mlp/device:cpu/batch_size:full"], 0.5);
  EXPECT_DOUBLE_EQ(medians["mnist_mlp/device:cpu/batch_size:64"], 1.5);
  EXPECT_NEAR(benchmarks[1]["items_per_second"].get<double>(), 1000.0 / 0.5, 1e-9);

  // The trackers' own forms, each checked by its documented rules. Bencher's Metric Format: per
  // benchmark name, measures of {value, lower_value <= value <= upper_value}.
  const auto bmf = nlohmann::json::parse(render_bmf_json(results).dump());
  ASSERT_EQ(bmf.size(), 2u);  // the skipped cell is left out
  for (const auto& [name, measures] : bmf.items()) {
    const auto& latency = measures.at("latency");
    EXPECT_LE(latency["lower_value"].get<double>(), latency["value"].get<double>()) << name;
    EXPECT_GE(latency["upper_value"].get<double>(), latency["value"].get<double>()) << name;
  }
  EXPECT_DOUBLE_EQ(bmf["mnist_mlp/device:cpu/batch_size:full"]["latency"]["value"], 0.5e9);
  // github-action-benchmark's customSmallerIsBetter: an array of {name, unit, value[, range,
  // extra]}, names unique, value a number, range a string, one unit for every entry.
  const auto action = nlohmann::json::parse(render_benchmark_action_json(results).dump());
  ASSERT_EQ(action.size(), 2u);
  std::set<std::string> names;
  for (const auto& e : action) {
    EXPECT_TRUE(names.insert(e["name"].get<std::string>()).second) << e;
    EXPECT_EQ(e["unit"], "ms/epoch");
    EXPECT_TRUE(e["value"].is_number());
    EXPECT_TRUE(e["range"].is_string());
    EXPECT_TRUE(e["extra"].is_string());
  }
  EXPECT_DOUBLE_EQ(action[1]["value"].get<double>(), 1500.0);
}

}  // namespace
}  // namespace crossover
