#pragma once
// Whether two sets of timing samples differ: the Mann-Whitney U test on the samples of one run per
// side, and Welch's t on the logarithms of run medians when each side has several runs. compare's
// gate is built on them (reports/gate/regression.hpp).

#include <cstddef>
#include <vector>

#include "core/stats/stats.hpp"

namespace crossover {

/// Two-sided p-value of the Mann-Whitney U test that `a` and `b` come from one distribution:
/// exact for small samples without ties (both sides up to 30), otherwise the normal approximation
/// with tie and continuity corrections. 1 when either sample is empty.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

/// Welch's t-test on the logarithms of the per-run medians, for sides of two or more runs
/// (processes) each: the run, not the epoch, is then the unit of replication, because the epochs
/// of one process share its state (memory layout, neighbours on a shared machine).
struct RunLevelTest {
  double p_value = 1.0;
  double change = 0.0;  ///< geometric mean of the candidate's run medians / the baseline's - 1
  Interval change_ci;   ///< 95 % interval of the change, from the t distribution
  double degrees_of_freedom = 0.0;
  /// The geometric means of each side's run medians: change is their ratio - 1 exactly, so a
  /// table that prints them beside the change agrees with it.
  double baseline_center = 0.0, candidate_center = 0.0;
};

/// Throws std::invalid_argument for a side of fewer than two runs or a run without samples.
RunLevelTest run_level_test(const std::vector<std::vector<double>>& baseline_runs,
                            const std::vector<std::vector<double>>& candidate_runs);

/// The paired run-level test, for runs made in pairs (the rounds of `compare --rerun`, each
/// baseline run next to its candidate run in time; or the k-th processes of two runs): each pair
/// gives one log ratio log(candidate median / baseline median), and a one-sample Student t on
/// those ratios gives the p-value and the exact t interval of their mean. A slow phase of the
/// machine that weighs on both runs of a pair cancels in its ratio, where Welch's t on unpaired
/// medians counts it as noise (a round 2x slower on both sides once hid a +32 % regression at
/// p = 0.43). `baseline_runs[i]` pairs with `candidate_runs[i]`; change is exp(mean log ratio)
/// - 1, and the centres are the sides' geometric means rescaled so that their ratio is it.
/// Throws std::invalid_argument for fewer than two pairs, unequal sides, or a run without
/// positive samples.
RunLevelTest paired_run_test(const std::vector<std::vector<double>>& baseline_runs,
                             const std::vector<std::vector<double>>& candidate_runs);

/// The smallest two-sided p-value the test can give for samples of `n` and `m` (2 / C(n+m, n)):
/// with fewer samples than that allows, no difference can ever be significant.
double smallest_p_value(std::size_t n, std::size_t m);

/// The fewest samples per side (equal sides) with which a difference can reach `alpha`.
std::size_t samples_needed(double alpha);

}  // namespace crossover
