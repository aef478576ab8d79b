// How often `crossover compare --rerun` flags a regression, by simulation: for a run-to-run
// coefficient of variation, a number of rounds and a true slowdown, the share of comparisons whose
// verdict is `regression` (default alpha 0.05 and threshold 5 %). With no slowdown that share is
// the false-alarm rate. Each round's two runs share a phase of the machine (a slow or fast
// stretch, 10 % from round to round) that the paired test cancels, and each run varies on its own
// by the CV. docs/ci.md quotes this table; it tells a CI job how many rounds it needs.
#include <cmath>
#include <cstdio>
#include <random>

#include "reports/gate/regression.hpp"

int main() {
  using crossover::Result;
  constexpr int kTrials = 2000;
  constexpr int kEpochsPerRun = 20;
  constexpr double kEpochNoise = 0.01;
  constexpr double kRoundPhase = 0.10;
  std::mt19937_64 rng(1);
  std::normal_distribution<double> z(0.0, 1.0);
  std::printf(
      "| run-to-run CV | rounds | false alarms (no change) | 10 %% slower | 25 %% slower | 50 %% "
      "slower |\n|---|---|---|---|---|---|\n");
  for (double cv : {0.02, 0.05, 0.10, 0.20}) {
    for (int rounds : {3, 5, 10}) {
      std::printf("| %.0f %% | %d |", cv * 100.0, rounds);
      for (double slowdown : {0.0, 0.10, 0.25, 0.50}) {
        int flagged = 0;
        for (int trial = 0; trial < kTrials; ++trial) {
          std::vector<Result> sides[2];
          for (int round = 0; round < rounds; ++round) {
            const double phase = std::exp(kRoundPhase * z(rng));
            for (int side = 0; side < 2; ++side) {
              Result r;
              r.cell.workload = "simulated";
              r.data_source = crossover::DataSource::kSynthetic;
              r.train_rows = 1;
              const double level =
                  phase * (side == 1 ? 1.0 + slowdown : 1.0) * std::exp(cv * z(rng));
              for (int k = 0; k < kEpochsPerRun; ++k)
                r.epoch_seconds_samples.push_back(level * std::exp(kEpochNoise * z(rng)));
              sides[side].push_back(r);
            }
          }
          flagged += crossover::compare_runs(sides[0], sides[1], {}).cells[0].verdict ==
                     crossover::Verdict::kRegression;
        }
        std::printf(" %.1f %% |", 100.0 * flagged / kTrials);
      }
      std::printf("\n");
    }
  }
}
