#pragma once
// How the step runs (`execution`, `optimizer_impl`, `precision`) moves the answer: per device,
// the fastest mode measured, and along each axis, whether the crossover moves with the mode.

#include <string>
#include <vector>

#include "core/cells/keys.hpp"
#include "reports/analysis/pairing.hpp"

namespace crossover {

/// The keys that say how a step runs (GridKey::mode, in declaration order).
const std::vector<std::string>& mode_keys();

/// A cell's mode in words: "eager, loop, fp32".
std::string mode_text(const Cell& cell);

/// For one workload's `ok` results and the crossovers found among them: on each device that ran
/// several modes, the fastest (the geometric mean of its epoch-time ratios to the device's first
/// mode, over cells equal in everything else; in time only) where it is faster in every pair —
/// else the crossover between the modes where the comparison found one, or the split; along each
/// axis whose crossover was
/// measured in several modes, where each mode's crossover lies.
std::vector<Recommendation> mode_findings(const std::vector<Result>& results,
                                          const CompareSpec& spec,
                                          const std::vector<Crossover>& crossovers);

}  // namespace crossover
