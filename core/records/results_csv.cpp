#include "core/records/results_csv.hpp"

#include <cstdio>
#include <set>

#include "core/text/text.hpp"

namespace crossover {
namespace {

// Every epoch's and step's time, and the step's operator groups, have no place in a spreadsheet
// row (their units say so, core/records/results.hpp); results.jsonl keeps them.
bool long_column(const std::string& key) {
  static const std::set<std::string> long_ones = [] {
    std::set<std::string> names;
    for (const FieldUnit& field : result_field_units()) {
      if (!in_csv(field.unit)) names.emplace(field.name);
    }
    return names;
  }();
  return long_ones.count(key) != 0;
}

// A text field as spreadsheets need it: control characters dropped; quoted when it holds a comma,
// a quote or a line break; and a text that begins with =, +, -, @ (which a spreadsheet would run
// as a formula: a label or a reason is the user's) starts with an apostrophe, quoted.
std::string quote(const std::string& raw) {
  std::string text = printable_text(raw);
  const bool formula = !text.empty() && std::string("=+-@").find(text.front()) != std::string::npos;
  if (formula) text.insert(0, "'");
  if (!formula && text.find_first_of(",\"\n\r\t") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return buffer;
}

std::string field(const nlohmann::ordered_json& value) {
  if (value.is_string()) return quote(value.get<std::string>());
  if (value.is_number_float()) return number(value.get<double>());
  if (value.is_array()) {
    std::string joined;
    for (const auto& item : value) {
      if (!joined.empty()) joined += ";";
      joined += item.is_number_float() ? number(item.get<double>()) : item.dump();
    }
    return quote(joined);
  }
  return value.dump();
}

}  // namespace

std::string csv_header() {
  std::string line;
  const auto columns = result_to_json(Result{});
  for (const auto& [key, value] : columns.items()) {
    if (long_column(key)) continue;
    if (!line.empty()) line += ",";
    line += key;
  }
  return line + "\n";
}

std::string csv_row(const Result& result) {
  std::string line;
  bool first = true;
  // The row leaves the samples out: they are not made into JSON only to be skipped.
  Result row = result;
#define CROSSOVER_CLEAR_LONG_FIELD(P, type, name, unit) \
  if (!in_csv(Unit::unit)) row.P name = type{};
  CROSSOVER_RESULT_FIELDS(CROSSOVER_CLEAR_LONG_FIELD)
#undef CROSSOVER_CLEAR_LONG_FIELD
  // A predicted row's measured columns hold no prediction: its times are in its predicted_*
  // columns, its band in prediction_error.
  if (row.status == CellStatus::kPredicted)
    row.epoch_seconds = row.step_seconds = row.steps_per_second = row.samples_per_second = 0.0;
  const auto values = result_to_json(row);
  for (const auto& [key, value] : values.items()) {
    if (long_column(key)) continue;
    if (!first) line += ",";
    first = false;
    line += field(value);
  }
  return line + "\n";
}

std::string render_csv(const std::vector<Result>& results) {
  std::string out = csv_header();
  for (const auto& r : results) out += csv_row(r);
  return out;
}

}  // namespace crossover
