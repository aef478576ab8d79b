#pragma once
// The environment record: what explains a number. Attached to every results directory as
// env.json (its type and its reading: core/records/environment.hpp), summarised at the top of every
// report, printed by `crossover env`.

#include <string>
#include <vector>

#include "core/records/environment.hpp"

namespace crossover {

/// Everything known about this machine and its libraries. With `measure_peak`, also times a
/// 1024x1024 float32 matrix product on the CPU (tens of milliseconds) to show the BLAS at work.
Environment environment_record(bool measure_peak);

/// This machine as a machine record is checked against (machine_record_mismatch): its CPU and its
/// LibTorch, nothing measured, nothing asked of a GPU.
Environment machine_identity();

/// The record as short lines for a report ("CPU: ...", "BLAS: ...").
std::vector<std::string> environment_summary(const Environment& record);

/// How far the band of the profile that predicted the run's CUDA cells (run --predict) can be
/// trusted, as its validation says (band_validation_text); "" when none was predicted.
std::string band_validation(const Environment& record);

/// What in the record makes figures untrustworthy (reference BLAS, ...), as sentences.
std::vector<std::string> environment_warnings(const Environment& record);

}  // namespace crossover
