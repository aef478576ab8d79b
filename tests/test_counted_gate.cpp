// The counted gate (issue 98), one planted case each, on results the test makes: identical counts
// are "no change" and an A/A change exactly 0; +2 % and +1 % counts with a tiny spread are
// regressions; counts of two counters, or of two instruction sets, are refused; a cell that was
// not counted is not compared; counts that spread across the threshold are inconclusive. And the
// status word: INCONCLUSIVE where most cells are undecided, never "no regression" there, and an
// exit code of 1 that names its cells and its --fail-on rule. Callgrind's dumps are read as
// Callgrind writes them, and a hostile one is refused.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "reports/gate/gate_calibration.hpp"
#include "reports/gate/history.hpp"
#include "reports/gate/regression.hpp"
#include "runner/hardware/counter.hpp"
#include "tests/sample_results.hpp"
#include "tests/sample_runs.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

// A CPU cell counted by `counter` on `isa`, its epochs' instruction counts `counts`.
Result counted(std::size_t index, const std::string& workload, std::vector<double> counts,
               const std::string& counter = "callgrind", const std::string& isa = "avx2") {
  Result r = testing::sample_result(index, workload, std::vector<double>(counts.size(), 0.01));
  r.cell.count = Count::kInstructions;
  r.counts.counter = counter;
  r.counts.counter_version = counter == "callgrind" ? "valgrind-3.19.0" : "linux perf_event";
  r.counts.counted_isa = isa;
  r.counts.set_samples(std::move(counts), {}, 4.0);
  return r;
}

// Each count times `factor`.
std::vector<double> scaled(std::vector<double> counts, double factor) {
  for (double& c : counts) c *= factor;
  return counts;
}

// A counted A/A pair's epochs, as one of this VM's runs counted them: a repeat's first epoch
// counts ~1 % more than the others, in every run alike.
const std::vector<double> kEpochs = {2008122, 1988930, 1992540, 2003325, 1989825, 1986497};

RegressionOptions counted_options(double threshold = 0.005) {
  RegressionOptions o;
  o.metric = GateMetric::kInstructions;
  o.threshold = threshold;
  return o;
}

CellVerdict judge_one(const Result& base, const Result& cand, const RegressionOptions& o) {
  const RegressionReport report = compare_runs({base}, {cand}, o);
  EXPECT_EQ(report.cells.size(), 1u);
  return report.cells.at(0);
}

TEST(CountedGate, IdenticalCountsAreNoChangeAndTheChangeIsExactlyZero) {
  const CellVerdict v = judge_one(counted(0, "iris_mlp", kEpochs), counted(0, "iris_mlp", kEpochs),
                                  counted_options());
  EXPECT_EQ(v.verdict, Verdict::kNoChange) << v.reason;
  EXPECT_EQ(v.change, 0.0);
  EXPECT_EQ(v.decided_ci.low, 0.0);
  EXPECT_EQ(v.decided_ci.high, 0.0);
  EXPECT_EQ(v.decided_by, DecidedBy::kCounts);
  EXPECT_EQ(v.rule, Rule::kIdenticalCounts);
  EXPECT_EQ(v.reason, "identical counts");
}

TEST(CountedGate, TwoAndOnePercentMoreWorkWithATinySpreadAreRegressions) {
  for (double plant : {0.02, 0.01}) {
    // Each epoch +plant, give or take a few instructions.
    std::vector<double> cand = scaled(kEpochs, 1.0 + plant);
    for (std::size_t i = 0; i < cand.size(); ++i) cand[i] += static_cast<double>(i % 3) * 7.0;
    const CellVerdict v =
        judge_one(counted(0, "iris_mlp", kEpochs), counted(0, "iris_mlp", cand), counted_options());
    EXPECT_EQ(v.verdict, Verdict::kRegression) << plant << ": " << v.reason;
    EXPECT_EQ(v.rule, Rule::kCountedMore);
    EXPECT_NEAR(v.change, plant, 1e-4);
    EXPECT_GT(v.decided_ci.low, 0.005);
  }
  // The same +1 % under a 2 % threshold is no change: the threshold decides, not the spread.
  const CellVerdict v =
      judge_one(counted(0, "iris_mlp", kEpochs), counted(0, "iris_mlp", scaled(kEpochs, 1.01)),
                counted_options(0.02));
  EXPECT_EQ(v.verdict, Verdict::kNoChange) << v.reason;
  EXPECT_EQ(v.rule, Rule::kCountsWithin);
}

TEST(CountedGate, LessWorkIsAnImprovementAndFailsOnlyUnderAnyChange) {
  RegressionOptions o = counted_options();
  const auto base = counted(0, "iris_mlp", kEpochs);
  const auto cand = counted(0, "iris_mlp", scaled(kEpochs, 0.97));
  EXPECT_EQ(judge_one(base, cand, o).verdict, Verdict::kImprovement);
  EXPECT_EQ(judge_one(base, cand, o).rule, Rule::kCountedLess);
  EXPECT_FALSE(compare_runs({base}, {cand}, o).fails());
  o.fail_on = FailOn::kAnyChange;
  const RegressionReport report = compare_runs({base}, {cand}, o);
  EXPECT_TRUE(report.fails());
  EXPECT_EQ(report.status(), GateStatus::kFail);
  EXPECT_NE(report.exit_reason().find("--fail-on any-change"), std::string::npos);
}

TEST(CountedGate, CountsOfTwoCountersOrTwoInstructionSetsAreNeverCompared) {
  const CellVerdict counters = judge_one(
      counted(0, "iris_mlp", kEpochs), counted(0, "iris_mlp", kEpochs, "perf"), counted_options());
  EXPECT_EQ(counters.verdict, Verdict::kNotCompared);
  EXPECT_NE(counters.reason.find("two counters are never compared"), std::string::npos)
      << counters.reason;
  EXPECT_FALSE(counters.tested);
  const CellVerdict isas =
      judge_one(counted(0, "iris_mlp", kEpochs),
                counted(0, "iris_mlp", kEpochs, "callgrind", "avx512"), counted_options());
  EXPECT_EQ(isas.verdict, Verdict::kNotCompared);
  EXPECT_NE(isas.reason.find("avx2 in the baseline and on avx512"), std::string::npos)
      << isas.reason;
}

TEST(CountedGate, ACellNotCountedIsNotComparedOnCountsAndCyclesNeedTheCacheSimulation) {
  Result timed = testing::sample_result(0, "iris_mlp", {0.01, 0.011, 0.012, 0.01});
  timed.cell.count = Count::kInstructions;  // matched, but nothing counted (an older result)
  const CellVerdict v = judge_one(timed, counted(0, "iris_mlp", kEpochs), counted_options());
  EXPECT_EQ(v.verdict, Verdict::kNotCompared);
  EXPECT_NE(v.reason.find("baseline not counted"), std::string::npos) << v.reason;

  RegressionOptions cycles = counted_options();
  cycles.metric = GateMetric::kCycles;
  const CellVerdict c =
      judge_one(counted(0, "iris_mlp", kEpochs), counted(0, "iris_mlp", kEpochs), cycles);
  EXPECT_EQ(c.verdict, Verdict::kNotCompared);
  EXPECT_NE(c.reason.find("no cycles"), std::string::npos) << c.reason;
}

TEST(CountedGate, CountsThatSpreadAcrossTheThresholdAreInconclusive) {
  // Spinning threads: the candidate's epochs move -3 % to +4 % against the baseline's.
  std::vector<double> cand = kEpochs;
  const double moves[] = {1.04, 0.97, 1.0, 1.02, 0.99, 1.0};
  for (std::size_t i = 0; i < cand.size(); ++i) cand[i] *= moves[i];
  const CellVerdict v =
      judge_one(counted(0, "iris_mlp", kEpochs), counted(0, "iris_mlp", cand), counted_options());
  EXPECT_EQ(v.verdict, Verdict::kInconclusive) << v.reason;
  EXPECT_NE(v.reason.find("threads 1"), std::string::npos) << v.reason;
}

TEST(CountedGate, MostCellsUndecidedReadsInconclusiveFirstNeverNoRegression) {
  // The time gate, one run per side, a +25 % plant that the noise hides in two cells of three.
  std::mt19937_64 rng(7);
  std::vector<Result> base, cand;
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string w = i == 0 ? "iris_mlp" : i == 1 ? "boston_mlp" : "mnist_mlp";
    base.push_back(testing::sample_result(i, w, testing::noisy(rng, 6, 0.1, i < 2 ? 0.4 : 0.001)));
    cand.push_back(testing::sample_result(i, w, testing::noisy(rng, 6, 0.1, i < 2 ? 0.4 : 0.001)));
  }
  RegressionOptions o;
  o.assumed_spread = 0.0;
  const RegressionReport report = compare_runs(base, cand, o);
  ASSERT_GE(report.count(Verdict::kInconclusive), 2u);
  EXPECT_EQ(report.status(), GateStatus::kInconclusive);
  const std::string text = render_regression_text(report);
  EXPECT_EQ(text.rfind("INCONCLUSIVE: ", 0), 0u) << text;
  EXPECT_EQ(text.find("no regression in"), std::string::npos) << text;
  EXPECT_EQ(render_regression_markdown(report).rfind("## INCONCLUSIVE: ", 0), 0u);
  const auto json = regression_json(report);
  EXPECT_EQ(json.begin().key(), "status");
  EXPECT_EQ(json["status"], "INCONCLUSIVE");
  // Exit 0 under the default rule; under --fail-on inconclusive exit 1, and the output says why.
  EXPECT_FALSE(report.fails());
  EXPECT_EQ(report.exit_reason(), "");
  o.fail_on = FailOn::kInconclusive;
  const RegressionReport strict = compare_runs(base, cand, o);
  EXPECT_TRUE(strict.fails());
  const std::string why = strict.exit_reason();
  EXPECT_NE(why.find("--fail-on inconclusive"), std::string::npos) << why;
  EXPECT_NE(why.find("iris_mlp"), std::string::npos) << why;
  EXPECT_NE(render_regression_text(strict).find(why), std::string::npos);
  EXPECT_NE(regression_json(strict)["exit_reason"].get<std::string>().find("inconclusive"),
            std::string::npos);
}

TEST(CountedGate, EveryCellDecidedAndNoneWorseIsPass) {
  const RegressionReport report = compare_runs(
      {counted(0, "iris_mlp", kEpochs)}, {counted(0, "iris_mlp", kEpochs)}, counted_options());
  EXPECT_EQ(report.status(), GateStatus::kPass);
  EXPECT_EQ(render_regression_text(report).rfind("PASS: no regression in 1 measured", 0), 0u);
}

// A run of counted cells: iris and mnist_linear, each epoch's counts scaled by `factor`.
RunRecord counted_run(double factor, const std::string& label) {
  RunRecord run;
  run.results = {counted(0, "iris_mlp", scaled(kEpochs, factor)),
                 counted(1, "mnist_linear", scaled(scaled(kEpochs, 13.0), factor))};
  run.label = label;
  return run;
}

TEST(CountedGate, CalibrateMeasuresTheAASpreadAndTheSmallestChangeCaught) {
  RunPairs aa, planted;
  for (int i = 0; i < 4; ++i) {
    // One A/A pair's mnist_linear moved 0.1 % in one epoch: the spread the gate must allow.
    RunRecord second = counted_run(1.0, "second");
    if (i == 2) second.results[1].counts.instructions_samples[3] *= 1.001;
    aa.emplace_back(counted_run(1.0, "first"), std::move(second));
    planted.emplace_back(counted_run(1.0, "quiet"), counted_run(1.01, "planted"));
  }
  const CountedGateCalibration g = assess_counted_gate(aa, planted, counted_options(), 0.01);
  ASSERT_EQ(g.cells.size(), 2u);
  EXPECT_NEAR(g.aa_spread, 0.001, 1e-9);
  EXPECT_NEAR(g.smallest_detectable, 0.006, 1e-9);
  EXPECT_EQ(g.false_alarms.pairs, 4u);
  EXPECT_EQ(g.false_alarms.fired, 0u);  // 0.1 % is within the 0.5 % threshold
  EXPECT_EQ(g.detections.fired, 4u);
  EXPECT_NEAR(g.cells[0].planted_change, 0.01, 1e-9);
  const std::string text = render_counted_gate_text(g);
  EXPECT_NE(text.find("catches every change from +0.6 %"), std::string::npos) << text;
  EXPECT_EQ(counted_gate_json(g)["smallest_detectable_change"], g.smallest_detectable);
  // A time metric, or too few pairs, is refused.
  RegressionOptions timed;
  EXPECT_THROW(assess_counted_gate(aa, planted, timed, 0.01), std::invalid_argument);
  aa.resize(2);
  EXPECT_THROW(assess_counted_gate(aa, planted, counted_options(), 0.01), std::invalid_argument);
}

TEST(CountedGate, AHistoryKeepsTheCountsAsASeriesOfTheirOwn) {
  History history;
  for (int i = 0; i < 3; ++i) {
    Result r = counted(0, "iris_mlp", scaled(kEpochs, i == 2 ? 1.02 : 1.0));
    r.epoch_seconds = 0.5 + 0.1 * i;
    append_run(
        history,
        {"run-" + std::to_string(i), "c" + std::to_string(i), "2026-12-0" + std::to_string(i + 1)},
        {r});
  }
  ASSERT_EQ(history.cells.size(), 2u);
  EXPECT_EQ(history.cells[0].metric, GateMetric::kEpoch);
  EXPECT_EQ(history.cells[1].metric, GateMetric::kInstructions);
  EXPECT_NE(history.cells[1].label.find("(instructions)"), std::string::npos);
  EXPECT_NEAR(history.cells[1].points.back().median / history.cells[1].points.front().median, 1.02,
              1e-9);
  // It round-trips, counts well above a year of seconds included; a metric it does not know is
  // refused.
  const auto json = history_json(history);
  EXPECT_EQ(json["cells"][1]["metric"], "instructions");
  const History back = history_from_json(nlohmann::json::parse(json.dump()));
  ASSERT_EQ(back.cells.size(), 2u);
  EXPECT_EQ(back.cells[1].metric, GateMetric::kInstructions);
  EXPECT_EQ(back.cells[1].points.size(), 3u);
  auto bad = nlohmann::json::parse(json.dump());
  bad["cells"][1]["metric"] = "joules";
  EXPECT_THROW(history_from_json(bad), std::runtime_error);
  EXPECT_NE(render_history_markdown(history).find("1,991,183"), std::string::npos);
}

TEST(CountedGate, AReferenceThatMovedBeyondTwentyPercentIsNeverCalledSteady) {
  for (double after : {0.4, 0.6, 1.5, 2.5}) {
    const auto base =
        testing::one_cell_run(testing::around(0.100), testing::env_with_reference(1e-3, 5e-5));
    const auto cand = testing::one_cell_run(testing::around(0.100),
                                            testing::env_with_reference(1e-3, 5e-5, after));
    const RegressionReport report = compare_records(base, cand, {});
    EXPECT_EQ(report.machine.find("the machine steady"), std::string::npos)
        << after << ": " << report.machine;
    EXPECT_NE(report.machine.find("not steady"), std::string::npos) << report.machine;
  }
  const auto still = compare_records(
      testing::one_cell_run(testing::around(0.1), testing::env_with_reference(1e-3, 5e-5)),
      testing::one_cell_run(testing::around(0.1), testing::env_with_reference(1e-3, 5e-5)), {});
  EXPECT_NE(still.machine.find("the machine steady"), std::string::npos) << still.machine;
}

class CallgrindDump : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    return dir_.write(name, text);
  }
  testing::ScratchDir dir_;
};

TEST_F(CallgrindDump, ReadsInstructionsAndEstimatesCyclesAsIaiDoes) {
  // The header of a dump as valgrind-3.19.0 writes it with --cache-sim=yes.
  const std::string path = write("cg.1", R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4754
cmd:  ./t
part: 1

positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 900018 100003 100008 3 2 1 3 2 1

fn=(1) main
)");
  const CountReading r = read_callgrind_dump(path);
  EXPECT_EQ(r.instructions, 900018.0);
  // accesses 1,100,029; L1 misses 6; LL misses 6: 1,100,023 L1 hits + 0 LL hits + 35 x 6.
  EXPECT_EQ(r.estimated_cycles, 1100023.0 + 35.0 * 6.0);
  EXPECT_EQ(estimated_cycles(100, 0, 0, 10, 0, 0, 4, 0, 0), 90 + 5.0 * 6 + 35.0 * 4);
  const std::string plain = write("cg.2", "events: Ir\nsummary: 32739501\n");
  EXPECT_EQ(read_callgrind_dump(plain).instructions, 32739501.0);
  EXPECT_EQ(read_callgrind_dump(plain).estimated_cycles, 0.0);
}

TEST_F(CallgrindDump, AHostileDumpIsRefusedNamingTheFile) {
  for (const std::string& text :
       {std::string(""), std::string("events: Ir\n"), std::string("events: Ir Dr\nsummary: 1\n"),
        std::string("events: Ir\nsummary: 1e400\n"), std::string("events: Ir\nsummary: -5\n"),
        std::string("events: Ir\nsummary: 0x10\n"), std::string("events: Dr\nsummary: 7\n")}) {
    const std::string path = write("bad", text);
    try {
      (void)read_callgrind_dump(path);
      ADD_FAILURE() << "read: " << text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  // A link and a FIFO are not read (the one checked reader).
  const std::string target = write("target", "events: Ir\nsummary: 5\n");
  std::filesystem::create_symlink(target, dir_.file("link"));
  EXPECT_THROW((void)read_callgrind_dump(dir_.file("link")), std::runtime_error);
  ASSERT_EQ(mkfifo(dir_.file("fifo").c_str(), 0600), 0);
  EXPECT_THROW((void)read_callgrind_dump(dir_.file("fifo")), std::runtime_error);
}

TEST(PlantedWork, TheVariableIsAFractionAndNothingElse) {
  for (const char* bad : {"-0.1", "11", "0x10", "abc", "0.02x", "nan", "inf"}) {
    setenv(kPlantWorkVariable, bad, 1);
    EXPECT_THROW((void)planted_work_from_environment(), std::invalid_argument) << bad;
  }
  setenv(kPlantWorkVariable, "0.02", 1);
  EXPECT_EQ(planted_work_from_environment(), 0.02);
  unsetenv(kPlantWorkVariable);
  EXPECT_EQ(planted_work_from_environment(), 0.0);
  setenv(kCounterVariable, "papi", 1);
  EXPECT_THROW((void)counter_for(Count::kInstructions), std::invalid_argument);
  setenv(kCounterVariable, "perf", 1);
  EXPECT_THROW((void)counter_for(Count::kCycles), std::runtime_error);  // perf estimates nothing
  setenv(kCounterVariable, "callgrind", 1);
  EXPECT_EQ(counter_for(Count::kInstructions), CounterKind::kCallgrind);
  unsetenv(kCounterVariable);
  EXPECT_EQ(counter_for(Count::kCycles), CounterKind::kCallgrind);
}

}  // namespace
}  // namespace crossover
