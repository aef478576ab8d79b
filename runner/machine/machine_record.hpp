#pragma once
// CROSSOVER_MACHINE_RECORD: a run that reuses an earlier run's measurement of this machine (the
// BLAS rate, each device's peak, the quick profile, the reference timings) instead of measuring
// it again, about 1.2 s of every run on a 2-core VM. For the test suite, whose hundreds of runs
// check what is done with a measurement, not the measurement; a run that reuses one says so in
// env.json (`machine_record`) and in every report's warnings, and cannot see the machine drift.
// No LibTorch.

#include <optional>
#include <string>

#include "core/records/environment.hpp"

namespace crossover {

inline constexpr const char* kMachineRecordVariable = "CROSSOVER_MACHINE_RECORD";

/// A record a run reuses, and the file it came from.
struct MachineRecord {
  std::string file;
  Environment env;
};

/// The env.json CROSSOVER_MACHINE_RECORD names, read as every env.json is (a link, a FIFO, a huge
/// or malformed file refused); nullopt when the variable is unset or empty. Throws
/// std::runtime_error naming the variable, the file and what to fix when the file cannot be read
/// or lacks a part a run reuses (blas.matmul_1024_gflops, peak_gflops, profile,
/// reference.before).
std::optional<MachineRecord> machine_record_from_environment();

/// `record` with the measured parts of `reused` in place of its own: the BLAS rate, the peaks, the
/// profile and the reference before the run; `machine_record` names its file.
void reuse_machine_record(Environment& record, const MachineRecord& reused);

/// The warning of a run that reused a machine record (every report shows it); "" for one that
/// measured its machine.
std::string machine_record_warning(const Environment& record);

}  // namespace crossover
