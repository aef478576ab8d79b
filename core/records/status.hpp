#pragma once
// What happened to a cell, as a type: compared as a value everywhere, turned into text only where
// results.jsonl, results.csv and the reports are read or written.

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "core/text/words.hpp"

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
inline constexpr auto words(CellStatus) {
  return std::array{std::pair{CellStatus::kOk, std::string_view("ok")},
                    std::pair{CellStatus::kSkipped, std::string_view("skipped")},
                    std::pair{CellStatus::kFailed, std::string_view("failed")},
                    std::pair{CellStatus::kNotRun, std::string_view("not run")},
                    std::pair{CellStatus::kPredicted, std::string_view("predicted")}};
}

/// The word, for logs and test messages.
inline std::ostream& operator<<(std::ostream& out, CellStatus status) {
  return out << text_of(status);
}

/// JSON: the word. Reading anything else throws std::runtime_error naming it.
template <typename BasicJson>
void to_json(BasicJson& json, CellStatus status) {
  json = text_of(status);
}
template <typename BasicJson>
void from_json(const BasicJson& json, CellStatus& status) {
  const auto found = json.is_string() ? parse_word<CellStatus>(json.template get<std::string>())
                                      : std::optional<CellStatus>();
  if (!found) {
    std::string expected;
    const auto all = word_list<CellStatus>();
    for (std::size_t i = 0; i < all.size(); ++i)
      expected += (i == 0 ? "\"" : i + 1 == all.size() ? " or \"" : ", \"") + all[i] + "\"";
    throw std::runtime_error("unknown status " + json.dump() + "; expected " + expected);
  }
  status = *found;
}

}  // namespace crossover
