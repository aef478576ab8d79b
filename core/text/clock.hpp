#pragma once
// Wall time as the runner takes it: the steady clock, in seconds. No LibTorch.

#include <chrono>

namespace crossover {

/// Seconds from `start` to now on the steady clock.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace crossover
