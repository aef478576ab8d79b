// Pairing, bootstrap speedups and crossover detection on hand-made results with known answers.
#include <gtest/gtest.h>

#include <set>

#include "reports/analysis/analysis.hpp"
#include "reports/analysis/comparison.hpp"
#include "reports/render/analysis_markdown.hpp"
#include "tests/sample_results.hpp"

namespace crossover {
namespace {

// A cell of mnist_mlp at `batch` on `device` whose epoch samples spread +-`spread` around `median`.
Result cell(std::size_t index, const std::string& device, std::int64_t batch, double median,
            double spread = 0.01) {
  return testing::spread_cell(index, device, batch, median, spread);
}

// CPU and GPU cells over batch sizes; the GPU's medians are cpu[i] / speedup[i].
std::vector<Result> sweep(const std::vector<std::int64_t>& batches,
                          const std::vector<double>& speedups, double spread = 0.01) {
  std::vector<Result> out;
  for (std::size_t i = 0; i < batches.size(); ++i) {
    out.push_back(cell(out.size(), "cpu", batches[i], 1.0, spread));
    out.push_back(cell(out.size(), "cuda", batches[i], 1.0 / speedups[i], spread));
  }
  return out;
}

const CompareSpec kDevice = parse_compare("device=cpu:cuda");

// Two comparisons of one run: a recommendation the first made (the fastest configuration
// measured) is not made again under the second.
TEST(Analysis, ARecommendationIsMadeOnceAcrossComparisons) {
  std::vector<Result> results = sweep({100, 1000, 10000}, {0.5, 1.5, 4});
  for (std::size_t i = 0, n = results.size(); i < n; ++i) {
    Result other = results[i];
    other.cell.index = n + i;
    other.cell.threads = 1;
    other.epoch_seconds *= 1.3;
    for (double& x : other.epoch_seconds_samples) x *= 1.3;
    other.samples_per_second /= 1.3;
    results.push_back(other);
  }
  const CompareSpec threads = parse_compare("threads=1:0");
  const Analysis both = analyse(results, {kDevice, threads});
  const Analysis alone = analyse(results, {threads});
  ASSERT_EQ(both.comparisons.size(), 2u);
  std::set<std::string> first;
  for (const Recommendation& r : both.comparisons[0].recommendations) first.insert(r.statement);
  ASSERT_FALSE(first.empty());
  for (const Recommendation& r : both.comparisons[1].recommendations)
    EXPECT_EQ(first.count(r.statement), 0u) << r.statement;
  // Alone, the threads comparison makes it: it was dropped as said, not lost.
  std::size_t repeated = 0;
  for (const Recommendation& r : alone.comparisons[0].recommendations)
    repeated += first.count(r.statement);
  EXPECT_GT(repeated, 0u);
}

TEST(Analysis, ParsesCompareSpecsAndRejectsBadOnes) {
  const CompareSpec threads = parse_compare("threads=1:0");
  EXPECT_EQ(threads.axis, "threads");
  EXPECT_EQ(threads.baseline, "1");
  EXPECT_EQ(threads.contender, "0");
  EXPECT_EQ(parse_compare("device=cpu:cuda:1").contender, "cuda:1");
  EXPECT_THROW(parse_compare("device"), std::invalid_argument);
  EXPECT_THROW(parse_compare("devise=cpu:cuda"), std::invalid_argument);
}

TEST(Analysis, BootstrapIntervalSurroundsTheSpeedup) {
  const std::vector<Result> r = sweep({100}, {2.0}, 0.05);  // pairs point into r: keep it alive
  const auto pairs = pair_results(r, kDevice);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_DOUBLE_EQ(pairs[0].speedup, 2.0);
  EXPECT_LT(pairs[0].ci.low, 2.0);
  EXPECT_GT(pairs[0].ci.high, 2.0);
  EXPECT_GT(pairs[0].ci.low, 1.8);
  EXPECT_EQ(pairs[0].winner, Winner::kContender);
}

TEST(Analysis, OnlyCellsDifferingInTheAxisArePaired) {
  std::vector<Result> r = sweep({100, 1000}, {0.5, 2.0});
  r.push_back(cell(4, "cuda", 5000, 0.1));  // no CPU partner
  r.push_back(cell(5, "cpu", 100, 1.0));
  r.back().status = CellStatus::kSkipped;
  EXPECT_EQ(pair_results(r, kDevice).size(), 2u);
}

// The demo's threads comparison once paired its predicted CUDA cells with each other: a model
// compared with itself, a "tie" on a GPU the machine does not have.
TEST(Analysis, TwoPredictedCellsAreNoPairAndAPredictedAndAMeasuredOneAre) {
  std::vector<Result> r;
  for (int threads : {1, 0}) {
    r.push_back(cell(r.size(), "cpu", 100, threads == 1 ? 1.0 : 0.5));
    r.back().cell.threads = threads;
    r.push_back(cell(r.size(), "cuda", 100, 0.2));
    r.back().cell.threads = threads;
    r.back().status = CellStatus::kPredicted;
  }
  const auto threads = pair_results(r, parse_compare("threads=1:0"));
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads[0].baseline->cell.device, Device::cpu());
  EXPECT_EQ(pair_results(r, kDevice).size(), 2u);  // each measured CPU cell with its prediction
}

// "why" names each side: a device by itself, another axis's value with its key (the demo once
// said "0's step" for threads 0).
TEST(Analysis, TheWhyLineNamesEachSideWithItsKey) {
  std::vector<Result> r;
  for (std::int64_t batch : {100, 1000, 10000}) {
    for (int threads : {1, 0}) {
      r.push_back(cell(r.size(), "cpu", batch, threads == 1 ? 1.0 : 0.5));
      r.back().cell.threads = threads;
      r.back().prediction.bound = Bound::kDispatch;
      r.back().prediction.terms.dispatch = 1e-3;
      r.back().anatomy.step_ops_forward = 100;
    }
  }
  const auto threads =
      find_crossovers(pair_results(r, parse_compare("threads=1:0")), parse_compare("threads=1:0"));
  ASSERT_FALSE(threads.empty());
  EXPECT_NE(threads[0].why.find("threads=0 dispatch-bound"), std::string::npos) << threads[0].why;
  EXPECT_NE(threads[0].why.find("; threads=1 "), std::string::npos) << threads[0].why;
  for (Result& x : r) x.cell.device = x.cell.threads == 1 ? Device::cpu() : Device::cuda();
  for (Result& x : r) x.cell.threads = 0;
  for (Result& x : r) x.cell.gpus = x.cell.device == Device::cpu() ? 0 : 1;
  const auto devices = find_crossovers(pair_results(r, kDevice), kDevice);
  ASSERT_FALSE(devices.empty());
  EXPECT_NE(devices[0].why.find(": cuda "), std::string::npos) << devices[0].why;
}

TEST(Analysis, FindsTheCrossingOnALogScale) {
  // Speedup 0.5 at batch 100 and 2 at batch 10,000: log-linear, so 1 is crossed at batch 1,000.
  const auto results = sweep({100, 10000, 100000}, {0.5, 2.0, 4.0});
  const auto pairs = pair_results(results, kDevice);
  const auto crossovers = find_crossovers(pairs, kDevice);
  ASSERT_EQ(crossovers.size(), 1u);
  const Crossover& c = crossovers[0];
  EXPECT_EQ(c.axis, "batch_size");
  ASSERT_TRUE(c.from && c.crossing && c.crossing_low && c.crossing_high);
  EXPECT_DOUBLE_EQ(*c.from, 10000);
  EXPECT_NEAR(*c.crossing, 1000.0, 1e-6);
  EXPECT_LE(*c.crossing_low, *c.crossing);
  EXPECT_GE(*c.crossing_high, *c.crossing);
  EXPECT_NE(c.statement.find("device=cuda wins from batch_size 10,000 on"), std::string::npos)
      << c.statement;
  EXPECT_NE(c.statement.find("near batch_size 1,000"), std::string::npos) << c.statement;
}

// Seen on an H100 with num_workers 0 and 2: a log scale has no 0, and the crossing came out "-".
TEST(Analysis, ACrossingFromAnAxisValueOfZeroIsInterpolatedLinearly) {
  std::vector<Result> results = sweep({128, 128, 128}, {0.5, 2.0, 3.0});
  results[2].cell.num_workers = results[3].cell.num_workers = 2;
  results[4].cell.num_workers = results[5].cell.num_workers = 4;
  const auto crossovers = find_crossovers(pair_results(results, kDevice), kDevice);
  ASSERT_EQ(crossovers.size(), 1u);
  EXPECT_EQ(crossovers[0].axis, "num_workers");
  ASSERT_TRUE(crossovers[0].crossing);
  EXPECT_NEAR(*crossovers[0].crossing, 1.0, 1e-9);  // log speedup -0.69 at 0, +0.69 at 2
  EXPECT_NE(crossovers[0].statement.find("near num_workers 1 ("), std::string::npos)
      << crossovers[0].statement;
}

// Seen on an H100: a grid sweeping isolate on both devices paired every CPU cell with every CUDA
// cell (4 pairs of one setting) and then reported "no crossover in the measured range of
// batch_size (128 to 128)" for every numeric key.
TEST(Analysis, CellsRunAlikePairWithEachOtherAndOneSettingIsNoSeries) {
  std::vector<Result> results = sweep({128, 128}, {0.5, 0.6});
  results[2].cell.isolate = results[3].cell.isolate = true;  // cells 0/1 shared, 2/3 isolated
  const auto pairs = pair_results(results, kDevice);
  ASSERT_EQ(pairs.size(), 2u);
  for (const Pair& p : pairs) EXPECT_EQ(p.baseline->cell.isolate, p.contender->cell.isolate);
  EXPECT_TRUE(find_crossovers(pairs, kDevice).empty());
  // With no CUDA cell run like them (the defaults: CUDA isolated, CPU not), each CPU cell pairs
  // with every CUDA cell of its setting.
  results[0].cell.isolate = results[2].cell.isolate = false;
  results[1].cell.isolate = results[3].cell.isolate = true;
  EXPECT_EQ(pair_results(results, kDevice).size(), 4u);
}

TEST(Analysis, SaysWhenThereIsNoCrossover) {
  const auto results = sweep({1000, 10000, 20000}, {0.3, 0.5, 0.8});
  const auto crossovers = find_crossovers(pair_results(results, kDevice), kDevice);
  ASSERT_EQ(crossovers.size(), 1u);
  EXPECT_FALSE(crossovers[0].from);
  EXPECT_NE(crossovers[0].statement.find("device=cpu wins everywhere up to batch_size 20,000"),
            std::string::npos)
      << crossovers[0].statement;
}

// The equivalence margin, planted: 1.01x with an interval within 5 % of 1 is "no practical
// difference", never a win (the demo said "threads=0 wins ... (speedup 1.01x [1.001, 1.017])");
// 1.2x wins; the search's rule (margin 0) still calls 1.2x a win.
TEST(Analysis, ASpeedupWithinTheEquivalenceMarginIsNoWin) {
  const auto results = sweep({10, 100, 1000}, {0.5, 1.01, 1.2}, 0.002);
  const auto pairs = pair_results(results, kDevice);
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_TRUE(pairs[1].ci.low > 1.0 && pairs[1].ci.high < 1.05);
  EXPECT_EQ(pairs[1].winner, Winner::kTie);
  EXPECT_EQ(winner_text(pairs[1], kDevice), "no practical difference");
  EXPECT_EQ(pairs[2].winner, Winner::kContender);
  EXPECT_EQ(compare_pair(results[2], results[3], 0, 0.0).winner, Winner::kContender);
  const auto crossovers = find_crossovers(pairs, kDevice);
  ASSERT_TRUE(!crossovers.empty() && crossovers[0].from.has_value());
  EXPECT_EQ(*crossovers[0].from, 1000.0) << crossovers[0].statement;
}

TEST(Analysis, ATieBandIsNotAWin) {
  // 1.005 with 5 % noise: the interval contains 1, so the largest batch is a tie, not a win.
  const auto results = sweep({10, 100, 1000}, {0.4, 0.5, 1.005}, 0.05);
  const auto pairs = pair_results(results, kDevice);
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs[2].winner, Winner::kTie);
  const auto crossovers = find_crossovers(pairs, kDevice);
  EXPECT_FALSE(crossovers[0].from);
  EXPECT_NE(crossovers[0].statement.find("device=cpu and device=cuda tie at the largest, 1,000 "
                                         "(device=cuda's speedup 1."),
            std::string::npos)
      << crossovers[0].statement;
}

TEST(Analysis, ACrossingBetweenNeighbouringIntegersIsGivenAsThem) {
  // Batch 1 and 2 (as num_workers 0 and 1): the crossing lies between them, and a rounded "near
  // 1 (1-1)" would say nothing.
  const auto results = sweep({1, 2, 4}, {0.9, 2.0, 2.4}, 0.01);
  const auto crossovers = find_crossovers(pair_results(results, kDevice), kDevice);
  ASSERT_EQ(crossovers.size(), 1u);
  EXPECT_NE(crossovers[0].statement.find("the crossing lies between batch_size 1 and 2"),
            std::string::npos)
      << crossovers[0].statement;
}

TEST(Analysis, NoCrossoverNamesWhoWinsAtTheLargestValue) {
  // The contender wins at the smaller batch and loses at the larger: no crossover, and the
  // statement says the baseline wins at the largest value measured, with the speedup there.
  const auto results = sweep({10, 100, 1000}, {1.5, 1.2, 0.5}, 0.01);
  const auto crossovers = find_crossovers(pair_results(results, kDevice), kDevice);
  ASSERT_EQ(crossovers.size(), 1u);
  EXPECT_FALSE(crossovers[0].from);
  EXPECT_NE(crossovers[0].statement.find("device=cpu wins at the largest, 1,000 (device=cuda's "
                                         "speedup 0.5"),
            std::string::npos)
      << crossovers[0].statement;
}

TEST(Analysis, ANonMonotoneCurveCrossesWhereTheContenderKeepsWinning) {
  // Wins at 100, loses at 1,000, wins from 10,000 on: the crossover is the last one.
  const auto results = sweep({100, 1000, 10000, 100000}, {1.5, 0.8, 1.5, 3.0});
  const auto pairs = pair_results(results, kDevice);
  const auto crossovers = find_crossovers(pairs, kDevice);
  ASSERT_TRUE(crossovers[0].from);
  EXPECT_DOUBLE_EQ(*crossovers[0].from, 10000);
  EXPECT_GT(*crossovers[0].crossing, 1000);
  EXPECT_LT(*crossovers[0].crossing, 10000);
  EXPECT_NE(crossovers[0].statement.find("also won at some smaller values"), std::string::npos);
}

TEST(Analysis, MarkdownLeadsWithTheStatementAndCitesCells) {
  const auto results = sweep({100, 1000, 10000}, {0.5, 0.8, 2.0});
  const auto pairs = pair_results(results, kDevice);
  const std::string md = render_analysis_markdown(kDevice, pairs, find_crossovers(pairs, kDevice));
  EXPECT_EQ(md.rfind("## Crossovers: device=cpu vs device=cuda\n\n- **mnist_mlp**: device=cuda "
                     "wins from batch_size "
                     "10,000 on",
                     0),
            0u)
      << md;
  EXPECT_NE(md.find("Cells #0, #1, #2, #3, #4, #5."), std::string::npos) << md;
  EXPECT_NE(md.find("| mnist_mlp | #4 / #5 | 1 s | 500 ms | 2x |"), std::string::npos) << md;
  const auto summary = analysis_json(kDevice, pairs, find_crossovers(pairs, kDevice));
  EXPECT_EQ(summary["pairs"].size(), 3u);
  EXPECT_EQ(summary["pairs"][2]["winner"], "cuda");
  EXPECT_DOUBLE_EQ(summary["crossovers"][0]["from"].get<double>(), 10000);
}

TEST(Analysis, RecommendationsNameTheFastestCellAndTheKnobsThatMattered) {
  std::vector<Result> r;
  for (const Loader loader : {Loader::kDataLoader, Loader::kTensor}) {
    for (const int threads : {1, 2}) {
      Result c = cell(r.size(), "cpu", 100, loader == Loader::kTensor ? 0.5 : 1.0);
      c.cell.loader = loader;
      c.cell.threads = threads;
      r.push_back(c);
    }
  }
  const auto advice = recommend(r, kDevice, {});
  ASSERT_EQ(advice.size(), 3u);
  EXPECT_NE(advice[0].statement.find(
                "highest throughput measured: mnist_mlp cpu batch=100 size=full tensor"),
            std::string::npos)
      << advice[0].statement;
  EXPECT_EQ(advice[0].cells, (std::vector<std::size_t>{2}));
  // One wording for a ratio: the speedup, and the side it names faster or slower.
  EXPECT_EQ(advice[1].statement,
            "loader dataloader -> tensor: speedup 2x (loader=tensor faster; geometric mean of 2 "
            "pair(s))");
  EXPECT_EQ(advice[1].cells, (std::vector<std::size_t>{0, 2, 1, 3}));
  EXPECT_NE(advice[2].statement.find("threads 1 -> 2 did not matter: speedup 1x, every interval"),
            std::string::npos)
      << advice[2].statement;
  const std::string md = render_analysis_markdown(kDevice, {}, {}, advice);
  EXPECT_NE(md.find("## Recommendations\n\n- **mnist_mlp**: highest throughput measured"),
            std::string::npos)
      << md;
}

// The first pair that pays back after more than one epoch is the verdict's line; the others are
// recommendations, and one paid back in its first epoch says nothing.
TEST(Analysis, RecommendationsSayWhenTheStartUpIsPaidBack) {
  std::vector<Result> r = sweep({1000, 10000, 20000}, {2.0, 2.0, 2.0});
  for (Result& x : r) {
    x.first_epoch_seconds = x.cell.device == Device::cpu() ? 1.0 : 0.5;
    // totals: cpu n, cuda 3.5 + 0.5 (n - 1): equal at 6, ahead from 7; cell 5 from the first
    x.startup_seconds = x.cell.device == Device::cpu() || x.cell.index == 5 ? 0.0 : 3.0;
  }
  const auto advice = recommend(r, kDevice, {});
  std::vector<const Recommendation*> paybacks;
  for (const Recommendation& a : advice)
    if (a.statement.find("pays back") != std::string::npos) paybacks.push_back(&a);
  ASSERT_EQ(paybacks.size(), 1u);
  EXPECT_NE(paybacks[0]->statement.find(
                "device=cuda pays back its start-up (3 s + first epoch 500 ms) after 7 epochs"),
            std::string::npos)
      << paybacks[0]->statement;
  EXPECT_EQ(paybacks[0]->cells, (std::vector<std::size_t>{2, 3}));
}

// A knob that slows one device and speeds the other is said per device, not as their mean.
TEST(Analysis, AKnobTheDevicesDisagreeOnIsSaidPerDevice) {
  std::vector<Result> r;
  for (int workers : {0, 1}) {
    for (std::int64_t batch : {1000, 10000}) {
      r.push_back(cell(r.size(), "cpu", batch, workers == 0 ? 1.0 : 1.5));
      r.push_back(cell(r.size(), "cuda", batch, workers == 0 ? 0.5 : 0.4));
      r[r.size() - 2].cell.num_workers = r.back().cell.num_workers = workers;
    }
  }
  std::string said;
  for (const Recommendation& a : recommend(r, kDevice, {}))
    if (a.statement.rfind("num_workers", 0) == 0) said = a.statement;
  EXPECT_EQ(said,
            "num_workers 0 -> 1: on cpu speedup 0.6667x (num_workers=1 slower; geometric mean of 2 "
            "pair(s)); on cuda speedup 1.25x (num_workers=1 faster; geometric mean of 2 pair(s))");
}

TEST(Analysis, NothingToPairIsSaidPlainly) {
  std::vector<Result> cpu_only = {cell(0, "cpu", 100, 1.0)};
  const std::string md = render_analysis_markdown(kDevice, pair_results(cpu_only, kDevice), {});
  EXPECT_NE(md.find("No pair of cells that ran differs only in device"), std::string::npos);
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// Eager, the GPU wins from batch 1,000; captured in a graph, from batch 10. The findings say so,
// and name the fastest mode on each device.
TEST(Analysis, ModesNameTheFastestPerDeviceAndWhereEachCrossoverLies) {
  std::vector<Result> r;
  const std::vector<std::int64_t> batches = {10, 100, 1000};
  const std::vector<double> eager_speedup = {0.3, 0.7, 3.0}, graph_speedup = {2.0, 4.0, 6.0};
  for (const Execution execution : {Execution::kEager, Execution::kGraph}) {
    for (std::size_t i = 0; i < batches.size(); ++i) {
      for (const std::string device : {"cpu", "cuda"}) {
        const double speedup = (execution == Execution::kEager ? eager_speedup : graph_speedup)[i];
        Result c = cell(r.size(), device, batches[i], device == "cpu" ? 1.0 : 1.0 / speedup);
        // A graph cell's optimiser is fused; on the CPU, graph cells are skipped and the eager
        // fused cell is the one a CUDA graph cell pairs with.
        c.cell.execution = device == "cpu" ? Execution::kEager : execution;
        c.cell.optimizer_impl =
            execution == Execution::kGraph ? OptimizerImpl::kFused : OptimizerImpl::kLoop;
        r.push_back(c);
      }
    }
  }
  for (std::size_t i = 0; i < r.size(); ++i) r[i].cell.index = i;
  const auto pairs = pair_results(r, kDevice);
  EXPECT_EQ(pairs.size(), 6u);  // execution never splits a cpu/cuda pair
  const auto crossovers = find_crossovers(pairs, kDevice);
  ASSERT_EQ(crossovers.size(), 2u);
  EXPECT_NE(crossovers[1].statement.find("(at optimizer_impl=fused, cuda execution=graph)"),
            std::string::npos)
      << crossovers[1].statement;
  std::string all;
  for (const auto& a : recommend(r, kDevice, crossovers)) all += a.statement + "\n";
  EXPECT_NE(all.find("fastest mode on cuda: graph, fused, fp32 ("), std::string::npos) << all;
  EXPECT_NE(all.find("of 3 pair(s) of cells equal in everything else; faster in 3)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("the crossover along batch_size moves with the mode (device=cuda wins "
                     "eager, loop, fp32: from batch_size 1,000; graph, fused, fp32: from "
                     "batch_size 10)"),
            std::string::npos)
      << all;
}

// A graph cell's optimizer_impl is forced to fused: where the CPU has no fused cell, it pairs with
// the CPU cell as the grid has it (as a search along the device pairs them), in the pairs and on
// the device table's row alike; where the CPU has one, with it alone.
TEST(Analysis, AGraphCellWithoutAFusedCpuPartnerPairsWithTheCpuCellAsTheGridHasIt) {
  std::vector<Result> r = {cell(0, "cpu", 100, 1.0), cell(1, "cuda", 100, 0.5),
                           cell(2, "cuda", 100, 0.1)};
  r[2].cell.execution = Execution::kGraph;
  r[2].cell.optimizer_impl = OptimizerImpl::kFused;
  auto pairs = pair_results(r, kDevice);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[1].contender, &r[2]);
  const auto table = compare_devices(r)[0].table;
  ASSERT_EQ(table.rows.size(), 1u) << "the graph cell's own row, with no CPU cell, is folded";
  EXPECT_EQ(table.rows[0].back(), "cuda graph");
  Result fused = cell(3, "cpu", 100, 0.9);
  fused.cell.optimizer_impl = OptimizerImpl::kFused;
  r.push_back(fused);
  pairs = pair_results(r, kDevice);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[1].baseline, &r[3]);
  EXPECT_EQ(pairs[1].contender, &r[2]);
}

// fp32 wins on small sets and bf16 on large ones (issue 54's Iris search): no mode is "fastest"
// by a mean over the crossing; the recommendation is the crossover, and with no crossover of the
// modes compared, the split said as it is.
TEST(Analysis, AMeanOverACrossingIsNoRecommendation) {
  std::vector<Result> r;
  const std::vector<double> rows = {112, 1000, 10000, 100000};
  const std::vector<double> bf16_speedup = {0.5, 0.8, 1.5, 2.1};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (const Precision precision : {Precision::kFp32, Precision::kBf16}) {
      Result c =
          cell(r.size(), "cpu", 100, precision == Precision::kFp32 ? 1.0 : 1.0 / bf16_speedup[i]);
      c.cell.dataset_size = static_cast<std::int64_t>(rows[i]);
      c.train_rows = c.cell.dataset_size;
      c.cell.precision = precision;
      r.push_back(c);
    }
  }
  const CompareSpec precision = parse_compare("precision=fp32:bf16");
  const auto crossovers = find_crossovers(pair_results(r, precision), precision);
  ASSERT_EQ(crossovers.size(), 1u);
  std::string all;
  for (const auto& a : recommend(r, precision, crossovers)) all += a.statement + "\n";
  EXPECT_EQ(all.find("fastest mode"), std::string::npos) << all;
  EXPECT_NE(all.find("precision on cpu: fp32 below dataset_size ~"), std::string::npos) << all;
  EXPECT_NE(all.find(", bf16 from 10,000 on (the crossover: precision=bf16 wins from dataset_size "
                     "10,000 on"),
            std::string::npos)
      << all;
  // Compared along another axis, the modes' split is said as it is.
  std::string split;
  for (const auto& a : recommend(r, kDevice, {})) split += a.statement + "\n";
  EXPECT_NE(split.find("no mode is fastest throughout on cpu: eager, loop, bf16 faster in 2 of 4 "
                       "pair(s)"),
            std::string::npos)
      << split;
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// A merged run of a job array: each size's cpu/cuda pair ran on a node of its own. It reads as
// one run: one series along the axis (a crossover found across the nodes), plain device columns;
// with the machines kept apart (report of several runs) every node is its own series and column.
TEST(Analysis, TheNodesOfAMergedRunReadAsOneMachine) {
  std::vector<Result> results = sweep({100, 10000, 100000}, {0.5, 2.0, 4.0});
  for (Result& r : results) r.cell.host = "node" + std::to_string(r.cell.index / 2);
  const Analysis one = analyse(results, {kDevice});
  ASSERT_EQ(one.comparisons.front().pairs.size(), 3u);
  for (const Pair& p : one.comparisons.front().pairs)
    EXPECT_EQ(p.baseline->cell.host, p.contender->cell.host);  // pairs stay within a node
  ASSERT_EQ(one.comparisons.front().crossovers.size(), 1u);
  EXPECT_TRUE(one.comparisons.front().crossovers.front().from.has_value());
  ASSERT_EQ(one.devices.size(), 1u);
  EXPECT_EQ(one.devices.front().table.header[1], "cpu s");
  EXPECT_EQ(one.devices.front().table.rows.size(), 3u);
  const Analysis apart = analyse(results, {kDevice}, Measure::kTime, true);
  EXPECT_TRUE(apart.comparisons.front().crossovers.empty());  // three one-point series
  EXPECT_NE(apart.devices.front().table.header[1].find(" on node"), std::string::npos);
  // A node's cell pairs with its own node's partner where both nodes measured the setting.
  std::vector<Result> both = sweep({100}, {2.0});
  both[0].cell.host = both[1].cell.host = "a";
  std::vector<Result> other = sweep({100}, {0.5});
  for (Result& r : other) {
    r.cell.index += 2;
    r.cell.host = "b";
    both.push_back(r);
  }
  const auto pairs = pair_results(both, kDevice);
  ASSERT_EQ(pairs.size(), 2u);
  for (const Pair& p : pairs) EXPECT_EQ(p.baseline->cell.host, p.contender->cell.host);
}

}  // namespace
}  // namespace crossover
