#pragma once
// `crossover profile`: this machine's constants for the cost model
// (core/costmodel/machine_profile.hpp), measured. No LibTorch in this header.

#include <string>

#include "core/costmodel/machine_profile.hpp"

namespace crossover {

/// How thoroughly to measure.
struct ProfileOptions {
  /// A quick profile, the one every run records in env.json (about a quarter of a second on
  /// two cores): fewer rungs, shorter timings. Otherwise `crossover profile`'s (well under a
  /// minute per device).
  bool quick = true;
  std::string name;  ///< the profile's name ("" = the host name)
};

/// Measures this machine: per device (the CPU at one thread and at every core, the first CUDA
/// device when there is one) the cost per dispatched operator (a chain of tiny autograd operators
/// and its backward, synchronised, per operator), matrix-multiply throughput on a ladder of sizes,
/// element-wise bandwidth (c = a + b), and on a GPU host-to-device bandwidth from pageable and
/// pinned memory and the latency of one synchronisation; with the CPU model, cores, LibTorch
/// version, GPU name, and in `provenance` the machine, date, revision and how each was measured.
/// Leaves the thread counts at the libraries' defaults.
MachineProfile measure_profile(const ProfileOptions& options);

}  // namespace crossover
