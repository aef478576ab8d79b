#pragma once
// The bootstrap interval of a speedup (the ratio of two medians), the one rule every report names
// a winner by, and compare's interval of a change.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/stats/stats.hpp"

namespace crossover {

/// Above this many samples on a side (more than five processes' worth) a resample is not made:
/// its median is drawn from its distribution over the sorted sample (the same distribution, in
/// constant time; a 200,000-sample pair took a minute), and a block bootstrap thins each series in
/// order to this many values first (a wider, conservative interval).
inline constexpr std::size_t kResampledBootstrapLimit = 10000;

/// Bootstrap 95 % interval of median(baseline) / median(contender), resampling both. With
/// `block` > 1, a moving-block bootstrap: each resample strings together runs of `block`
/// consecutive samples, so that epochs that drift together (a neighbour, a warming cache) are
/// not treated as independent.
Interval bootstrap_speedup(const std::vector<double>& baseline,
                           const std::vector<double>& contender, std::uint64_t seed,
                           int resamples = 2000, std::size_t block = 1);

/// The block length of the moving-block bootstrap for a sample of n: the cube root of n, at
/// least 1.
std::size_t bootstrap_block(std::size_t n);

}  // namespace crossover
