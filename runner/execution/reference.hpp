#pragma once
// The reference: two fixed pieces of CPU work timed the same way before the first cell of every
// run and after each cell, so that a comparison of two runs can tell a machine that changed speed
// (a busy neighbour, throttling) from a change in the code being measured. One thread, about a
// tenth of a second each time.

#include "core/records/environment.hpp"

namespace crossover {

/// Times, on one thread, a 256 x 256 float32 matrix product (compute-bound) and a training step
/// of a small MLP (dispatch-bound): the median over seven trials of each, in seconds per
/// operation, and the same kinds of work on every core. Leaves the thread counts at their defaults.
ReferenceTimes measure_reference();

}  // namespace crossover
