#include "core/results_csv.hpp"

#include <cstdio>

#include "core/text.hpp"

namespace crossover {
namespace {

// Every epoch's and step's time has no place in a spreadsheet row; results.jsonl keeps them.
bool long_column(const std::string& key) {
  return key == "epoch_seconds_samples" || key == "step_seconds_samples" || key == "step_op_groups";
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
  row.epoch_seconds_samples.clear();
  row.step_seconds_samples.clear();
  row.step_op_groups.clear();
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
