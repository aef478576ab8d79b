// The verdict every output opens with: who wins and where, in at most three lines, and the
// series that fold into the pair tables instead of becoming crossover sentences.
#include <gtest/gtest.h>

#include <cmath>

#include "reports/analysis/workload_verdict.hpp"
#include "reports/gate/run_drift.hpp"
#include "sample_results.hpp"

namespace crossover {
namespace {

// A cell of mnist_mlp at `batch` on `device` whose 21 epochs spread +-`spread` of `median`.
Result timed(std::size_t index, const std::string& device, std::int64_t batch, double median,
             double spread = 0.01) {
  std::vector<double> samples;
  for (int i = 0; i < 21; ++i) samples.push_back(median * (1.0 + spread * (i - 10) / 10.0));
  Result r = testing::sample_result(index, "mnist_mlp", samples);
  r.cell.device = parse_device(device).value();
  r.cell.gpus = device == "cpu" ? 0 : 1;
  r.cell.batch_size = batch;
  r.epoch_seconds = median;
  r.epoch_seconds_p25 = median * (1.0 - spread / 2.0);
  r.epoch_seconds_p75 = median * (1.0 + spread / 2.0);
  return r;
}

// CPU cells at 1 s and CUDA cells at 1 s / speedup, one pair per batch size.
std::vector<Result> verdict_sweep(const std::vector<std::int64_t>& batches,
                                  const std::vector<double>& speedups) {
  std::vector<Result> out;
  for (std::size_t i = 0; i < batches.size(); ++i) {
    out.push_back(timed(out.size(), "cpu", batches[i], 1.0));
    out.push_back(timed(out.size(), "cuda", batches[i], 1.0 / speedups[i]));
  }
  return out;
}

std::vector<WorkloadVerdict> verdicts_of(const std::vector<Result>& results) {
  return verdicts(analyse(results, {parse_compare("device=cpu:cuda")}));
}

TEST(Verdict, AMeasuredCrossingIsOneLineWithWhereItLies) {
  const auto found = verdicts_of(verdict_sweep({100, 1000, 10000}, {0.5, 2.0, 3.0}));
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].lines.size(), 1u);
  EXPECT_FALSE(found[0].predicted);
  EXPECT_EQ(found[0].lines[0].rfind(
                "mnist_mlp: cuda wins from batch_size 1,000 on; below that cpu wins: the crossing "
                "lies near ",
                0),
            0u)
      << found[0].lines[0];
}

TEST(Verdict, APredictedSideIsUndecidedWhereItsBandAllowsATieAndTheCaveatIsSaidOnce) {
  std::vector<Result> r = verdict_sweep({100, 1000, 10000}, {1.0, 8.0, 20.0});
  for (Result& x : r) {
    if (x.cell.device != Device::cuda()) continue;
    x.status = CellStatus::kPredicted;
    x.prediction.prediction_error = 0.5;  // a factor of 1.5 either way: 1x is a tie, 8x a win
    x.prediction.prediction_profile = "H100 80GB";
  }
  const Analysis analysis = analyse(r, {parse_compare("device=cpu:cuda")});
  const auto found = verdicts(analysis);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].predicted);
  EXPECT_EQ(found[0].lines[0],
            "mnist_mlp: cuda (predicted) wins from batch_size 1,000 on; undecided at 100 (the "
            "predicted crossing lies between 100 and 1,000)");
  EXPECT_EQ(verdict_heading(analysis), "Verdict (device=cpu vs cuda)");
  const std::string caveat = verdict_caveat(r);
  EXPECT_EQ(caveat.rfind("cuda predicted with the profile H100 80GB, not measured", 0), 0u)
      << caveat;
  // Against which CPU: the one measured here, not the GPU host's; and how far the band holds,
  // as the run's env.json says (else no claim of held-out cells).
  EXPECT_NE(caveat.find("against the CPU measured here, not the GPU host's"), std::string::npos)
      << caveat;
  EXPECT_NE(caveat.find("80 % band excludes a tie; the band is split conformal on real runs"),
            std::string::npos)
      << caveat;
  EXPECT_EQ(caveat.find("held-out"), std::string::npos) << caveat;
  EXPECT_NE(verdict_caveat(r, "the band held 27 of 33 measured cells")
                .find("excludes a tie; the band held 27 of 33"),
            std::string::npos);
  // The crossover statement itself no longer repeats the profile's caveat.
  const auto& crossovers = analysis.comparisons.front().crossovers;
  ASSERT_EQ(crossovers.size(), 1u);
  EXPECT_EQ(crossovers[0].statement.rfind("predicted: ", 0), 0u);
  EXPECT_NE(crossovers[0].statement.find("so the predicted crossing lies between"),
            std::string::npos)
      << crossovers[0].statement;
  EXPECT_EQ(crossovers[0].statement.find("H100"), std::string::npos) << crossovers[0].statement;
}

// A workload measured along batch_size at two num_workers: one clause when both series say the
// same, else each clause with where it holds (b-mnist's mnist_cnn once named only num_workers=0).
TEST(Verdict, EverySeriesOfAWorkloadIsInItsVerdict) {
  const auto at_workers = [](const std::vector<double>& none, const std::vector<double>& one) {
    std::vector<Result> r = verdict_sweep({100, 1000, 10000}, none);
    for (Result& x : verdict_sweep({100, 1000, 10000}, one)) {
      x.cell.index += 6;
      x.cell.num_workers = 1;
      r.push_back(x);
    }
    return verdicts_of(r);
  };
  const auto same = at_workers({2.0, 3.0, 4.0}, {4.0, 3.0, 2.0});
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].lines[0], "mnist_mlp: cuda wins at every batch_size measured (100 to 10,000)");
  const auto apart = at_workers({2.0, 3.0, 4.0}, {0.5, 2.0, 3.0});
  ASSERT_EQ(apart.size(), 1u);
  const std::string& line = apart[0].lines[0];
  EXPECT_EQ(line.rfind("mnist_mlp: cuda wins at every batch_size measured (100 to 10,000) (at "
                       "num_workers=0); at num_workers=1: cuda wins from batch_size 1,000 on; "
                       "below that cpu wins",
                       0),
            0u)
      << line;
  // Where two series part only at the crossing, the second says only that.
  const auto near = at_workers({0.5, 2.0, 3.0}, {0.5, 4.0, 5.0});
  ASSERT_EQ(near.size(), 1u);
  const std::string& crossings = near[0].lines[0];
  EXPECT_NE(crossings.find("(at num_workers=0); at num_workers=1: the crossing lies near "),
            std::string::npos)
      << crossings;
  EXPECT_EQ(crossings.rfind("mnist_mlp: cuda wins from batch_size 1,000 on; below that cpu wins: "
                            "the crossing lies near ",
                            0),
            0u)
      << crossings;
}

TEST(Verdict, TwoValuesFoldIntoThePairsAndTheVerdictCountsThem) {
  const std::vector<Result> r = verdict_sweep({100, 1000}, {0.5, 2.0});
  const Analysis analysis = analyse(r, {parse_compare("device=cpu:cuda")});
  EXPECT_TRUE(analysis.comparisons.front().crossovers.empty());
  EXPECT_EQ(analysis.comparisons.front().pairs.size(), 2u);
  const auto found = verdicts(analysis);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].lines[0],
            "mnist_mlp: cuda wins 1 of 2 pair(s), cpu wins 1 (speedup 0.5x to 2x)");
}

TEST(Verdict, ThreadsWithTheLibraryDefaultIsNoLineButACountOfThreadsIs) {
  const auto along_threads = [](const std::vector<int>& counts) {
    std::vector<Result> r;
    for (int threads : counts) {
      r.push_back(timed(r.size(), "cpu", 100, 1.0));
      r.back().cell.threads = threads;
      r.push_back(timed(r.size(), "cuda", 100, 0.5));
      r.back().cell.threads = threads;
    }
    const CompareSpec spec = parse_compare("device=cpu:cuda");
    return find_crossovers(pair_results(r, spec), spec);
  };
  EXPECT_TRUE(along_threads({0, 1, 2}).empty());
  const auto counted = along_threads({1, 2, 4});
  ASSERT_EQ(counted.size(), 1u);
  EXPECT_EQ(counted[0].axis, "threads");
}

TEST(Verdict, AMeasuredWinnerSaysWhenItsStartUpIsPaidBack) {
  std::vector<Result> r = verdict_sweep({10000}, {2.0});
  r[0].first_epoch_seconds = 1.0;
  r[1].startup_seconds = 3.0;  // totals: cpu n, cuda 3.5 + 0.5 (n - 1): ahead from 7 epochs
  r[1].first_epoch_seconds = 0.5;
  const auto found = verdicts_of(r);
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].lines.size(), 2u);
  EXPECT_EQ(
      found[0].lines[1].rfind(
          "counting its start-up (3 s + first epoch 500 ms), cuda is ahead after 7 epochs", 0),
      0u)
      << found[0].lines[1];
}

TEST(Verdict, NoisyCellsBehindItAreNamed) {
  std::vector<Result> r = verdict_sweep({100, 1000, 10000}, {0.5, 2.0, 3.0});
  r[3] = timed(3, "cuda", 1000, 0.5, 0.9);  // an interquartile range of 90 % of its median
  const auto found = verdicts_of(r);
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].lines.size(), 2u);
  EXPECT_EQ(found[0].lines[1],
            "noisy: of the 6 cells behind this, 1 (cell 3) varied by more than a third of its "
            "median: measure it again before acting on it");
  // Several cells: "cells", "each", "them".
  r[4] = timed(4, "cpu", 10000, 1.0, 0.9);
  const auto two = verdicts_of(r);
  ASSERT_EQ(two.size(), 1u);
  ASSERT_EQ(two[0].lines.size(), 2u);
  EXPECT_EQ(two[0].lines[1],
            "noisy: of the 6 cells behind this, 2 (cells 3, 4) each varied by more than a third "
            "of its median: measure them again before acting on it");
}

// A cell timed while the machine's reference product ran more than a fifth off its speed at the
// run's start is named, from the run's env.json, beside the noisy ones.
TEST(Verdict, CellsRunWhileTheMachineSpeedMovedAreNamed) {
  const auto times = [](double matmul) {
    return nlohmann::ordered_json{{"matmul_seconds", matmul}, {"step_seconds", 1e-4}};
  };
  // As env.json holds it; "x" is no cell's index, and is not read as one.
  const Environment env =
      environment_from_json({{"reference",
                              {{"before", times(1e-3)},
                               {"cells",
                                {{"0", {{"before", times(1e-3)}, {"after", times(1.1e-3)}}},
                                 {"4", {{"before", times(1.1e-3)}, {"after", times(2e-3)}}},
                                 {"5", {{"before", times(2e-3)}, {"after", times(6e-4)}}},
                                 {"x", {{"before", times(9.0)}, {"after", times(9.0)}}}}}}}});
  EXPECT_EQ(env.reference.cells.size(), 3u);
  const std::vector<CellDrift> drifted = drifted_cells(env);
  ASSERT_EQ(drifted.size(), 1u);  // cell 5's geometric mean, 1.1 ms, is within a fifth
  EXPECT_EQ(drifted[0].cell, 4u);
  EXPECT_NEAR(drifted[0].ratio, std::sqrt(1.1 * 2.0), 1e-9);
  EXPECT_NE(drift_warning(env).find("by the reference matrix product: around cell 4 it took up to "
                                    "48.3 % longer than before the first cell (the machine got "
                                    "slower)"),
            std::string::npos)
      << drift_warning(env);
  // Faster says faster: a time ratio of 0.354 is not "-64.6 %".
  Environment faster = env;
  ReferenceSpan quick;
  quick.before = quick.after = ReferenceTimes{3.54e-4, 1e-4};
  faster.reference.set_around(4, quick);
  EXPECT_NE(drift_warning(faster).find("ran up to 2.825x as fast as before the first cell (the "
                                       "machine got faster"),
            std::string::npos)
      << drift_warning(faster);
  EXPECT_EQ(drift_warning(Environment{}), "");
  // Merged shards: each shard's cells against its own start. The second shard started slower;
  // its cell is steady within it, and only the first shard's cell 4 moved.
  Environment slower_shard;
  const ReferenceTimes slower{2e-3, 1e-4};
  slower_shard.reference.before = slower;
  slower_shard.reference.set_around(7, {slower, slower});
  Environment merged = env;
  merged.reference.set_around(7, *slower_shard.reference.around(7));
  merged.shards = {{"part-1", env}, {"part-2", slower_shard}};
  const std::vector<CellDrift> merged_drift = drifted_cells(merged);
  ASSERT_EQ(merged_drift.size(), 1u);
  EXPECT_EQ(merged_drift[0].cell, 4u);
  // Shards that moved both ways: the merged run says each way with its cells, as each shard
  // said its own (it once said only the faster one's "1.673x as fast").
  Environment quick_shard;
  quick_shard.reference.before = ReferenceTimes{1e-3, 1e-4};
  quick_shard.reference.set_around(9, quick);
  Environment both = merged;
  both.shards.push_back({"part-3", quick_shard});
  const std::string said = drift_warning(both);
  EXPECT_NE(said.find("around cell 4 it took up to 48.3 % longer"), std::string::npos) << said;
  EXPECT_NE(said.find("; around cell 9 it ran up to 2.825x as fast"), std::string::npos) << said;

  std::vector<Result> r = verdict_sweep({100, 1000, 10000}, {0.5, 2.0, 3.0});
  const auto found = verdicts(analyse(r, {parse_compare("device=cpu:cuda")}), {4});
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].lines.size(), 2u);
  EXPECT_EQ(found[0].lines[1],
            "noisy: of the 6 cells behind this, 1 (cell 4) ran while the machine's speed had "
            "moved by more than a fifth: measure it again before acting on it");
}

}  // namespace
}  // namespace crossover
