#pragma once
// What happened to a cell, as a type: compared as a value everywhere, turned into text only where
// results.jsonl, results.csv and the reports are read or written.

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>

namespace crossover {

/// A cell's outcome.
enum class CellStatus {
  kOk,       ///< measured
  kSkipped,  ///< could not run here (no GPU, a setting without meaning), with the reason
  kFailed,   ///< ran and failed (an error, a crash, a time-out), with the reason
  kNotRun,   ///< the sweep stopped before it (an interrupt, a write that failed)
  /// Not measured: its device is not here, and a machine profile (`run --predict`) gave its
  /// times from its anatomy. Never a measurement: no gate decides on it.
  kPredicted,
};

/// "ok", "skipped", "failed", "not run", "predicted": the words of results.jsonl and every report.
inline const char* status_text(CellStatus status) {
  switch (status) {
    case CellStatus::kOk:
      return "ok";
    case CellStatus::kSkipped:
      return "skipped";
    case CellStatus::kFailed:
      return "failed";
    case CellStatus::kNotRun:
      return "not run";
    case CellStatus::kPredicted:
      return "predicted";
  }
  return "unknown";
}

/// The status a word names; nothing for any other text.
inline std::optional<CellStatus> status_from_text(const std::string& text) {
  for (CellStatus s : {CellStatus::kOk, CellStatus::kSkipped, CellStatus::kFailed,
                       CellStatus::kNotRun, CellStatus::kPredicted}) {
    if (text == status_text(s)) return s;
  }
  return std::nullopt;
}

/// The word, for logs and test messages.
inline std::ostream& operator<<(std::ostream& out, CellStatus status) {
  return out << status_text(status);
}

/// JSON: the word. Reading anything else throws std::runtime_error naming it.
template <typename BasicJson>
void to_json(BasicJson& json, CellStatus status) {
  json = status_text(status);
}
template <typename BasicJson>
void from_json(const BasicJson& json, CellStatus& status) {
  const auto found = json.is_string() ? status_from_text(json.template get<std::string>())
                                      : std::optional<CellStatus>();
  if (!found) {
    throw std::runtime_error("unknown status " + json.dump() +
                             "; expected \"ok\", \"skipped\", \"failed\", \"not run\" or "
                             "\"predicted\"");
  }
  status = *found;
}

}  // namespace crossover
