#pragma once
// Summary statistics of timing samples. Quantiles interpolate linearly between order
// statistics (the default of numpy and R, "type 7"), so small samples give stable values.

#include <array>
#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/text/words.hpp"

namespace crossover {

/// Median, quartiles and moments of a sample.
struct Summary {
  std::size_t count = 0;
  double median = 0.0;
  double p25 = 0.0;
  double p75 = 0.0;
  double mean = 0.0;
  double stdev = 0.0;  ///< sample standard deviation (n - 1); 0 for fewer than two samples
  double min = 0.0;
  double max = 0.0;

  double iqr() const { return p75 - p25; }
};

/// The q-quantile (0 <= q <= 1) of `samples`; throws std::invalid_argument when empty.
double quantile(std::vector<double> samples, double q);

/// All of Summary at once; throws std::invalid_argument when `samples` is empty.
Summary summarize(const std::vector<double>& samples);

}  // namespace crossover

namespace crossover {

/// A closed interval.
struct Interval {
  double low = 0.0;
  double high = 0.0;
};

/// The distribution-free confidence interval of the median: the order statistics whose ranks
/// are n/2 -+ z*sqrt(n)/2 (the normal approximation of the binomial), clamped to the sample.
/// Small samples give the whole range. Throws std::invalid_argument when empty.
Interval median_ci(std::vector<double> samples, double confidence = 0.95);

/// When adaptive repetition stops. Repeats run at least `min_repeats` times, then go on while the
/// median's confidence interval is wider than `ci_target` (relative to the median), fewer than
/// `max_repeats` have run and less than `time_budget_seconds` has passed.
struct StoppingRule {
  int min_repeats = 3;
  int max_repeats = 10;
  double time_budget_seconds = 60.0;
  double ci_target = 0.02;
};

/// Why repeating stopped.
enum class StopReason {
  kNone,        ///< not stopped: go on (or the cell did not run)
  kCiTarget,    ///< the median's interval is within `ci_target`
  kMaxRepeats,  ///< `max_repeats` ran (or a fixed count did)
  kTimeBudget,  ///< `time_budget_seconds` passed
};

/// "", "ci_target", "max_repeats", "time_budget": results.jsonl's `stop_reason`.
inline constexpr auto words(StopReason) {
  return std::array{std::pair{StopReason::kNone, std::string_view("")},
                    std::pair{StopReason::kCiTarget, std::string_view("ci_target")},
                    std::pair{StopReason::kMaxRepeats, std::string_view("max_repeats")},
                    std::pair{StopReason::kTimeBudget, std::string_view("time_budget")}};
}
CROSSOVER_JSON_AS_WORD(StopReason)
inline std::ostream& operator<<(std::ostream& out, StopReason r) { return out << text_of(r); }

/// Why to stop after `repeats` repeats taking `elapsed_seconds`, with these timing samples;
/// kNone to go on.
StopReason stop_reason(const StoppingRule& rule, int repeats, double elapsed_seconds,
                       const std::vector<double>& samples);

/// Adaptive repetition as an object, in the manner of nvbench's stopping criteria: fed every timed
/// epoch (add) and the end of every repeat (end_repeat), it says when to stop (finished) and why
/// (reason).
class AdaptiveRepeats {
 public:
  /// `reserve`: room for this many samples up front, so that adding one between two clock reads
  /// never grows the vector (which would bill an epoch for it).
  explicit AdaptiveRepeats(StoppingRule rule, std::size_t reserve = 0) : rule_(rule) {
    samples_.reserve(reserve);
  }
  /// One timed epoch, in seconds.
  void add(double epoch_seconds) { samples_.push_back(epoch_seconds); }
  /// Ends a repeat, `elapsed_seconds` after the first began, and decides whether to stop.
  void end_repeat(double elapsed_seconds) {
    ++repeats_;
    reason_ = stop_reason(rule_, repeats_, elapsed_seconds, samples_);
  }
  /// Replaces the decision: replicas that run in lockstep follow rank 0's.
  void decide(StopReason reason) { reason_ = reason; }
  bool finished() const { return reason_ != StopReason::kNone; }
  StopReason reason() const { return reason_; }
  int repeats() const { return repeats_; }
  const std::vector<double>& samples() const { return samples_; }

 private:
  StoppingRule rule_;
  std::vector<double> samples_;
  int repeats_ = 0;
  StopReason reason_ = StopReason::kNone;
};

}  // namespace crossover
