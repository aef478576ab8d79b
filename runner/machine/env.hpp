#pragma once
// The environment record: what explains a number. Attached to every results directory as
// env.json, summarised at the top of every report, printed by `crossover env`.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace crossover {

/// Everything known about this machine and its libraries. With `measure_peak`, also times a
/// 1024x1024 float32 matrix product on the CPU (tens of milliseconds) to show the BLAS at work.
nlohmann::ordered_json environment_record(bool measure_peak);

/// The record as short lines for a report ("CPU: ...", "BLAS: ...").
std::vector<std::string> environment_summary(const nlohmann::ordered_json& record);

/// What in the record makes figures untrustworthy (reference BLAS, ...), as sentences.
std::vector<std::string> environment_warnings(const nlohmann::ordered_json& record);

}  // namespace crossover
