// compare's decision rules (issue 82), one planted case each, on results the test makes: rounds
// made in pairs are tested paired; a drift of the machine corrects a change and never excuses
// more of it than it explains, and a yardstick noisier than what it judges corrects nothing
// unless the machine moved beyond 20 %; the header and the cells give one account of the
// machine; the heading counts what was measured, names the next step, and --fail-on
// inconclusive fails on what could not be decided.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reports/gate/regression.hpp"
#include "reports/render/table_writer.hpp"
#include "tests/sample_runs.hpp"

namespace crossover {
namespace {

using testing::around;
using testing::cell;
using testing::env_with_reference;
using testing::noisy;
using testing::one_cell_run;

// A cell of `workload` whose samples are `samples`.
Result workload_cell(std::size_t index, const std::string& workload,
                     const std::vector<double>& samples) {
  return testing::sample_result(index, workload, samples);
}

// The one cell of a report, by value.
CellVerdict sole(const RegressionReport& report) {
  EXPECT_EQ(report.cells.size(), 1u);
  return report.cells.front();
}

TEST(GateRules, APlantedFiftyPercentWithTheReferenceStillIsARegression) {
  const auto base = one_cell_run(around(0.100), env_with_reference(1e-3, 5e-5));
  const auto cand = one_cell_run(around(0.150), env_with_reference(1e-3, 5e-5));
  const CellVerdict v = compare_records(base, cand, {}).cells.at(0);
  EXPECT_EQ(v.verdict, Verdict::kRegression) << v.reason;
  EXPECT_FALSE(v.machine_used);
  EXPECT_FALSE(v.decided_net);
}

TEST(GateRules, SixtyPercentNetOfATenPercentReferenceIsARegressionNetOfTheDrift) {
  const auto base = one_cell_run(around(0.100), env_with_reference(1e-3, 5e-5));
  // The cell +76 % = 1.6 x 1.1, the machine +10 %.
  const auto cand = one_cell_run(around(0.176), env_with_reference(1.1e-3, 5.5e-5));
  const RegressionReport report = compare_records(base, cand, {});
  const CellVerdict& v = report.cells.at(0);
  EXPECT_EQ(v.verdict, Verdict::kRegression) << v.reason;
  EXPECT_TRUE(v.machine_used);
  EXPECT_NEAR(v.decided_change, 0.60, 0.03);
  // The interval printed beside the net change is the net change's, centred on it, not the raw
  // change's (+76 %).
  EXPECT_NEAR((std::log1p(v.decided_ci.low) + std::log1p(v.decided_ci.high)) / 2.0, std::log(1.6),
              0.03);
  EXPECT_NE(v.reason.find("net of the machine's drift"), std::string::npos) << v.reason;
  EXPECT_TRUE(report.fails());
}

TEST(GateRules, TwentyFivePercentWithTheReferenceAtTwentyFiveIsInconclusive) {
  const auto base = one_cell_run(around(0.100), env_with_reference(1e-3, 5e-5));
  const auto cand = one_cell_run(around(0.125), env_with_reference(1.25e-3, 6.25e-5));
  const CellVerdict v = compare_records(base, cand, {}).cells.at(0);
  EXPECT_EQ(v.verdict, Verdict::kInconclusive) << v.reason;
  EXPECT_EQ(v.decided_by, DecidedBy::kReferenceDrift);
  EXPECT_EQ(v.rule, Rule::kExplainedByDrift);
  EXPECT_NEAR(v.net_change, 0.0, 0.02);
}

// A verdict's rule is a value, worded apart from where it was decided: the words come from the
// rule, the cell's numbers and the gate's settings alone.
TEST(GateRules, ARuleIsWordedFromTheCellsNumbersAlone) {
  CellVerdict v;
  RegressionOptions o;
  o.threshold = 0.05;
  EXPECT_EQ(rule_text(v, o), "");
  v.rule = Rule::kSignificantWithin;
  v.decided_by = DecidedBy::kRunLevel;  // with a calibration: the larger of the two p-values
  v.p_value = 0.001;
  v.run_level_p = 0.02;
  EXPECT_EQ(rule_text(v, o), "significant (p = 0.020) but within ±5.0 %");
  v.rule = Rule::kBeyond;
  EXPECT_EQ(rule_text(v, o), "significant and beyond ±5.0 %");
  v.decided_net = v.machine_used = true;
  v.machine = 1.03;
  EXPECT_EQ(rule_text(v, o),
            "significant and beyond ±5.0 % net of the machine's drift (its reference +3.0 % around "
            "the cell)");
  v.rule = Rule::kTooNoisy;
  v.test = TestUsed::kMannWhitney;
  EXPECT_EQ(rule_text(v, o),
            "too noisy: not significant, and the interval reaches past ±5.0 %; more repeats or a "
            "quieter machine");
  v.test = TestUsed::kPairedRuns;
  EXPECT_NE(rule_text(v, o).find("the runs (processes) differ"), std::string::npos);
  v.rule = Rule::kCountsWithin;
  v.change_ci = {-0.01, 0.02};
  EXPECT_EQ(rule_text(v, o), "within ±5.0 % (epoch by epoch [-1.0, +2.0] %)");
}

TEST(GateRules, AReferenceNoisierThanTheCellExcusesNothing) {
  // A quiet machine: the baseline's reference moved +47 % between its timings before and after
  // the cell, so the candidate's reference reads +15 % against it; the cell is +86 % (a planted
  // +50 % and a slow phase). The yardstick's own noise is larger than its drift, and the drift is
  // within the 20 % a run calls drifted: no correction, and the cell is a regression as measured.
  Environment noisy_base = env_with_reference(1e-3, 5e-5);
  noisy_base.reference.set_around(0,
                                  {ReferenceTimes{1e-3, 5e-5}, ReferenceTimes{1.474e-3, 7.37e-5}});
  const Environment cand_env = env_with_reference(1.40e-3, 7.0e-5);
  const auto report = compare_records(one_cell_run(around(0.100), noisy_base),
                                      one_cell_run(around(0.186), cand_env), {});
  const CellVerdict& v = report.cells.at(0);
  ASSERT_TRUE(v.machine.has_value());
  EXPECT_GT(*v.machine, 1.1);
  EXPECT_FALSE(v.machine_used);
  EXPECT_EQ(v.verdict, Verdict::kRegression) << v.reason << " / " << v.evidence;
  EXPECT_NE(v.evidence.find("machine steady within its noise"), std::string::npos) << v.evidence;
  // One account of the machine: the header says what the cell read, not the whole runs'.
  EXPECT_NE(report.machine.find("steady within its reference's noise around all 1 cell"),
            std::string::npos)
      << report.machine;
  EXPECT_NE(report.evidence.find(report.machine), std::string::npos);
}

TEST(GateRules, AMachineSixtyEightPercentSlowerIsNeverSteadyHoweverNoisyItsReference) {
  // The planted load that CI once blamed on the code: the candidate ran beside busy processes,
  // its reference +68 % against a baseline whose own reference moved +90 % around the cell (a
  // neighbour came and went), the cell +136 %. The drift is within the reference's noise, but
  // beyond the 20 % a run calls drifted: the change is judged net of it, with that noise, and
  // one run per side cannot call it a regression.
  Environment noisy_base = env_with_reference(1e-3, 5e-5);
  noisy_base.reference.set_around(0, {ReferenceTimes{1e-3, 5e-5}, ReferenceTimes{1.9e-3, 9.5e-5}});
  const Environment busy_env = env_with_reference(2.32e-3, 11.6e-5);
  const auto report = compare_records(one_cell_run(around(0.100), noisy_base),
                                      one_cell_run(around(0.236), busy_env), {});
  const CellVerdict& v = report.cells.at(0);
  ASSERT_TRUE(v.machine.has_value());
  EXPECT_NEAR(*v.machine, 1.683, 0.01);
  EXPECT_LT(std::abs(std::log(*v.machine)), 1.96 * v.machine_noise) << "not beyond its noise";
  EXPECT_TRUE(v.machine_used);
  EXPECT_EQ(v.verdict, Verdict::kInconclusive) << v.reason << " / " << v.evidence;
  EXPECT_EQ(v.decided_by, DecidedBy::kReferenceDrift) << v.reason;
  EXPECT_EQ(v.evidence.find("machine steady"), std::string::npos) << v.evidence;
  EXPECT_NE(v.evidence.find("so not steady"), std::string::npos) << v.evidence;
  EXPECT_NE(
      report.machine.find("moved (beyond its own noise or by more than 20.0 %) around 1 of 1"),
      std::string::npos)
      << report.machine;
  EXPECT_FALSE(report.fails());
}

TEST(GateRules, TheHeaderAndTheCellsGiveOneAccountOfTheMachine) {
  // Two cells: around the first the candidate's machine was 30 % slower, around the second it
  // was steady. The header counts the one cell judged net of the drift, with its figure.
  Environment cand_env = env_with_reference(1e-3, 5e-5);
  cand_env.reference.set_around(0,
                                {ReferenceTimes{1.3e-3, 6.5e-5}, ReferenceTimes{1.3e-3, 6.5e-5}});
  cand_env.reference.set_around(1, {ReferenceTimes{1e-3, 5e-5}, ReferenceTimes{1e-3, 5e-5}});
  Environment base_env = env_with_reference(1e-3, 5e-5);
  base_env.reference.set_around(0, {ReferenceTimes{1e-3, 5e-5}, ReferenceTimes{1e-3, 5e-5}});
  base_env.reference.set_around(1, {ReferenceTimes{1e-3, 5e-5}, ReferenceTimes{1e-3, 5e-5}});
  RunRecord base, cand;
  base.results = {cell(0, 512, around(0.100)), cell(1, 4096, around(0.080))};
  cand.results = {cell(0, 512, around(0.130)), cell(1, 4096, around(0.080))};
  base.environment = base_env;
  cand.environment = cand_env;
  const RegressionReport report = compare_records(base, cand, {});
  ASSERT_EQ(report.cells.size(), 2u);
  EXPECT_NE(report.machine.find("around 1 of 2 cell(s) compared (+30.0 %)"), std::string::npos)
      << report.machine;
  for (const CellVerdict& v : report.cells) {
    ASSERT_TRUE(v.machine.has_value());
    EXPECT_EQ(v.machine_used, *v.machine > 1.1) << v.name;
  }
  const std::string text = render_regression_text(report);
  EXPECT_EQ(text.find("machine steady"), std::string::npos) << text;
}

TEST(GateRules, ThePairedTestMatchesHandComputedValues) {
  // Log ratios 0.2, 0.3, 0.4: mean 0.3, standard deviation 0.1, standard error 0.1 / sqrt(3),
  // t = 5.196 on 2 degrees of freedom -> p = 2 (1 - F(5.196)) = 0.03510; 95 % interval
  // exp(0.3 -+ 4.303 * 0.0577) - 1 = [0.0530, 0.7305].
  const auto run = [](double log_median) { return std::vector<double>{std::exp(log_median)}; };
  const auto t = paired_run_test({run(0.0), run(1.0), run(-0.5)}, {run(0.2), run(1.3), run(-0.1)});
  EXPECT_NEAR(t.degrees_of_freedom, 2.0, 1e-12);
  EXPECT_NEAR(t.p_value, 0.03510, 2e-4);
  EXPECT_NEAR(t.change, std::exp(0.3) - 1.0, 1e-9);
  EXPECT_NEAR(t.change_ci.low, 0.0530, 1e-3);
  EXPECT_NEAR(t.change_ci.high, 0.7305, 1e-3);
  EXPECT_NEAR(t.candidate_center / t.baseline_center - 1.0, t.change, 1e-12);
  EXPECT_THROW(paired_run_test({run(0.0)}, {run(0.1)}), std::invalid_argument);
  EXPECT_THROW(paired_run_test({run(0.0), run(0.1)}, {run(0.1)}), std::invalid_argument);
}

TEST(GateRules, RoundsThatPairACommonSlowRoundAreARegression) {
  // Issue 82's mnist_mlp: the rounds' ratios were 1.30, 1.32 and 1.39, and round 3 ran about 2x
  // slower on both sides. Welch's t on the unpaired medians counts round 3 as noise (p = 0.43);
  // paired, each round's ratio cancels it.
  std::mt19937_64 rng(3);
  std::vector<Result> base, cand;
  const double levels[] = {1.0, 1.05, 2.0}, ratios[] = {1.30, 1.32, 1.39};
  for (int r = 0; r < 3; ++r) {
    base.push_back(workload_cell(0, "mnist_mlp", noisy(rng, 20, 0.01 * levels[r], 0.002)));
    cand.push_back(
        workload_cell(0, "mnist_mlp", noisy(rng, 20, 0.01 * levels[r] * ratios[r], 0.002)));
  }
  const CellVerdict v = sole(compare_runs(base, cand, {}));
  EXPECT_EQ(v.test, TestUsed::kPairedRuns);
  EXPECT_EQ(v.verdict, Verdict::kRegression) << v.reason;
  EXPECT_LT(v.p_value, 0.01);
  EXPECT_NEAR(v.decided_change, std::cbrt(1.30 * 1.32 * 1.39) - 1.0, 0.01);
  EXPECT_NE(v.reason.find("paired t on 3 run pairs"), std::string::npos) << v.reason;
  // Unpaired, the same runs are too noisy to call: what the paired test is for.
  const RunLevelTest welch = run_level_test(
      {base[0].epoch_seconds_samples, base[1].epoch_seconds_samples, base[2].epoch_seconds_samples},
      {cand[0].epoch_seconds_samples, cand[1].epoch_seconds_samples,
       cand[2].epoch_seconds_samples});
  EXPECT_GT(welch.p_value, 0.2);
  // A round that failed on one side leaves its pair out; two pairs still decide.
  std::vector<Result> gap = cand;
  gap[1].status = CellStatus::kFailed;
  const CellVerdict two = sole(compare_runs(base, gap, {}));
  EXPECT_EQ(two.test, TestUsed::kPairedRuns);
  EXPECT_NE(two.reason.find("paired t on 2 run pairs"), std::string::npos) << two.reason;
}

TEST(GateRules, CellsMeasuredOnNeitherSideAreNotCountedAsCompared) {
  std::mt19937_64 rng(4);
  Result skipped = workload_cell(1, "iris_mlp", {});
  skipped.status = CellStatus::kSkipped;
  skipped.reason = "no CUDA";
  const RegressionReport report =
      compare_runs({workload_cell(0, "mnist_mlp", noisy(rng, 30, 1.0, 0.01)), skipped},
                   {workload_cell(0, "mnist_mlp", noisy(rng, 30, 1.0, 0.01)), skipped}, {});
  EXPECT_EQ(report.count(Verdict::kNotMeasured), 1u);
  EXPECT_EQ(report.count(Verdict::kNotCompared), 0u);
  EXPECT_EQ(report.measured(), 1u);
  const std::string text = render_regression_text(report);
  EXPECT_NE(text.find("in 1 measured cell(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("1 cell(s) measured on neither side"), std::string::npos) << text;
  EXPECT_EQ(regression_json(report)["counts"]["not measured"], 1);
}

TEST(GateRules, MostlyInconclusiveCellsNameTheNextStepAndCanFailTheJob) {
  // Three cells, one run per side, no calibration: +3 % (the assumed spread cannot tell), so
  // every cell is inconclusive.
  std::mt19937_64 rng(6);
  std::vector<Result> base, cand;
  for (std::size_t i = 0; i < 3; ++i) {
    base.push_back(workload_cell(i, "w" + std::to_string(i), noisy(rng, 30, 1.0, 0.01)));
    cand.push_back(workload_cell(i, "w" + std::to_string(i), noisy(rng, 30, 1.03, 0.01)));
  }
  RegressionReport report = compare_runs(base, cand, {});
  ASSERT_EQ(report.count(Verdict::kInconclusive), 3u);
  EXPECT_FALSE(report.fails());
  EXPECT_NE(report.next_step().find("3 of 3 measured cells are inconclusive"), std::string::npos)
      << report.next_step();
  EXPECT_NE(report.next_step().find("--rerun GRID --rounds 5"), std::string::npos)
      << report.next_step();
  EXPECT_NE(render_regression_text(report).find("next: 3 of 3"), std::string::npos);
  EXPECT_NE(render_regression_markdown(report).find("**Next:**"), std::string::npos);
  // Issue 101: the command to copy stays a code span in Markdown, never escaped backticks.
  EXPECT_NE(render_regression_markdown(report).find("`crossover compare BASELINE_BIN CANDIDATE_BIN "
                                                    "--rerun GRID --rounds 5`"),
            std::string::npos)
      << render_regression_markdown(report);
  EXPECT_EQ(render_regression_markdown(report).find("\\`"), std::string::npos)
      << render_regression_markdown(report);
  EXPECT_EQ(markdown_with_code("a `b|c` *d* `e"), "a `b|c` \\*d\\* \\`e");
  report.options.fail_on = FailOn::kInconclusive;
  EXPECT_TRUE(report.fails());
  EXPECT_EQ(parse_word<FailOn>("inconclusive"), FailOn::kInconclusive);
  // Half or fewer inconclusive: no next step (the within-run test alone calls identical runs
  // unchanged).
  RegressionOptions within;
  within.assumed_spread = 0.0;
  const RegressionReport same = compare_runs(base, base, within);
  EXPECT_EQ(same.count(Verdict::kNoChange), 3u);
  EXPECT_EQ(same.next_step(), "");
  // Rounds that were not enough: more of them.
  std::vector<Result> base2 = base, cand2 = cand;
  base2.insert(base2.end(), base.begin(), base.end());
  cand2.insert(cand2.end(), cand.begin(), cand.end());
  const RegressionReport rounds = compare_runs(base2, cand2, {});
  EXPECT_EQ(rounds.rounds_run, 2);
}

TEST(GateRules, TheRoundsNeededFollowTheRunnersSpread) {
  RegressionOptions o;  // twice the 5 % threshold, 9 times in 10 at alpha 0.05
  EXPECT_EQ(rounds_needed(0.0, o), 2);
  EXPECT_LT(rounds_needed(0.02, o), rounds_needed(0.05, o));
  // sigma 0.05: n = 6 gives (2.571 + 1.476) * 0.05 / sqrt(6) = 0.0826 <= log(1.1) = 0.0953;
  // n = 5 gives (2.776 + 1.533) * 0.05 / sqrt(5) = 0.0963, not quite.
  EXPECT_EQ(rounds_needed(0.05, o), 6);
  EXPECT_EQ(rounds_needed(1.0, o), 30);
}

}  // namespace
}  // namespace crossover
