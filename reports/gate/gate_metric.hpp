#pragma once
// The words of compare's gate settings: what it gates on (--metric) and when it fails
// (--fail-on), each an enum with its words (core/text/words.hpp), read and written as those words.

#include <array>
#include <string_view>
#include <utility>

#include "core/text/words.hpp"

namespace crossover {

/// What compare gates on: the time per epoch or per step, the throughput (samples per second),
/// the energy per epoch (where both runs measured it), or a counted cell's instructions or
/// estimated cycles per epoch (the `count` key).
enum class GateMetric { kEpoch, kStep, kThroughput, kEnergy, kInstructions, kCycles };

/// "epoch", "step", "throughput", "energy": the words of --metric and of the verdict file.
inline constexpr auto words(GateMetric) {
  return std::array{std::pair{GateMetric::kEpoch, std::string_view("epoch")},
                    std::pair{GateMetric::kStep, std::string_view("step")},
                    std::pair{GateMetric::kThroughput, std::string_view("throughput")},
                    std::pair{GateMetric::kEnergy, std::string_view("energy")},
                    std::pair{GateMetric::kInstructions, std::string_view("instructions")},
                    std::pair{GateMetric::kCycles, std::string_view("cycles")}};
}
CROSSOVER_JSON_AS_WORD(GateMetric)

/// compare's default --threshold, in percent: 5 for times, throughput and energy; for counts the
/// smallest change this project's A/A pairs leave room for (docs/ci.md, "Counted cells").
inline constexpr double kTimeThresholdPercent = 5.0;
inline constexpr double kCountThresholdPercent = 0.5;
inline constexpr double default_threshold_percent(GateMetric metric) {
  return metric == GateMetric::kInstructions || metric == GateMetric::kCycles
             ? kCountThresholdPercent
             : kTimeThresholdPercent;
}

/// When compare's exit code is 1: on a regression or a cell that failed in the candidate, also
/// on an improvement, also on an inconclusive cell, or never.
enum class FailOn { kRegression, kAnyChange, kInconclusive, kNone };

/// "regression", "any-change", "inconclusive", "none": the words of --fail-on and of the verdict
/// file. "inconclusive" fails on a regression, a failed cell or a cell the evidence could not
/// decide: a job that must know, not merely not see a regression.
inline constexpr auto words(FailOn) {
  return std::array{std::pair{FailOn::kRegression, std::string_view("regression")},
                    std::pair{FailOn::kAnyChange, std::string_view("any-change")},
                    std::pair{FailOn::kInconclusive, std::string_view("inconclusive")},
                    std::pair{FailOn::kNone, std::string_view("none")}};
}
CROSSOVER_JSON_AS_WORD(FailOn)

}  // namespace crossover
