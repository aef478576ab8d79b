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
#include "core/text/problem.hpp"

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

/// How `reused` was not measured on the machine `here` describes: its CPU model, its logical
/// cores and its LibTorch version, each that differs named with both values (nothing when none
/// does). A record of another machine would pass that machine's BLAS rate, peak and profile off as
/// this one's.
Found machine_record_mismatch(const Environment& here, const MachineRecord& reused);

/// Why the record `record_file` cannot serve a run into `out_dir`: it is inside that folder,
/// whose env.json the run replaces (and --overwrite moves aside) before it is read. Nothing when it
/// can.
Found machine_record_in_output(const std::string& record_file, const std::string& out_dir);

/// `record` with the measured parts of `reused` in place of its own: the BLAS rate, the peaks, the
/// profile and the reference before the run; `machine_record` names its file.
void reuse_machine_record(Environment& record, const MachineRecord& reused);

/// The warning of a run that reused a machine record (every report shows it); "" for one that
/// measured its machine.
std::string machine_record_warning(const Environment& record);

}  // namespace crossover
