#include "core/records/result_files.hpp"

#include <sys/statvfs.h>

#include <cstdio>
#include <set>

#include "core/cells/keys.hpp"
#include "core/files/run_files.hpp"
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

// Columns a row that measured nothing (predicted, skipped, failed, not run) leaves empty: what
// is measured of a cell, its energy and what follows from its time. Empty, never 0: a data
// tool's minimum or mean would take a 0 for the fastest cell.
bool measured_column(const std::string& key) {
  static const std::set<std::string> measured = [] {
    std::set<std::string> names;
#define CROSSOVER_NAME_OF(P, type, name, unit) names.emplace(#name);
    CROSSOVER_MEASURED_FIELDS(CROSSOVER_NAME_OF, )
    CROSSOVER_ENERGY_FIELDS(CROSSOVER_NAME_OF, )
    CROSSOVER_RUN_FIELDS(CROSSOVER_NAME_OF, )
#undef CROSSOVER_NAME_OF
    // What a row says of the cell whatever became of it.
    for (const char* kept : {"status", "reason", "data_source", "train_rows", "test_rows",
                             "steps_per_epoch", "flops_per_sample", "flops_source",
                             "price_per_hour", "wall_seconds", "worker", "worker_cells_before"})
      names.erase(kept);
    return names;
  }();
  return measured.count(key) != 0;
}

// The prediction's columns: `predicted_*` hold a prediction made for the row (a predicted cell's
// time); a measured row's account by the model goes to `model_*` instead, which no one takes for
// its time.
bool prediction_column(const std::string& key) { return key.rfind("predicted_", 0) == 0; }

std::string model_column(const std::string& key) {
  return "model_" + key.substr(std::string("predicted_").size());
}

// The rows a cell's dataset_size means, as a number: "full" is the training rows it had.
std::string dataset_rows(const Result& r) {
  if (r.cell.dataset_size != kFull) return std::to_string(r.cell.dataset_size);
  return r.train_rows > 0 ? std::to_string(r.train_rows) : std::string();
}

}  // namespace

std::string csv_header() {
  std::vector<std::string> columns, model;
  const nlohmann::ordered_json keys = result_to_json(Result{});
  for (const auto& [key, value] : keys.items()) {
    if (long_column(key)) continue;
    columns.push_back(key);
    if (is_key(key, Key::kDatasetSize)) columns.push_back("dataset_rows");
    if (prediction_column(key)) model.push_back(model_column(key));
  }
  columns.insert(columns.end(), model.begin(), model.end());
  return join(columns, ",") + "\n";
}

std::string csv_row(const Result& result) {
  // The row leaves the samples out: they are not made into JSON only to be skipped.
  Result row = result;
#define CROSSOVER_CLEAR_LONG_FIELD_AT(P, type, name, member, unit) \
  if (!in_csv(Unit::unit)) row.P member = type{};
#define CROSSOVER_CLEAR_LONG_FIELD(P, type, name, unit) \
  CROSSOVER_CLEAR_LONG_FIELD_AT(P, type, name, name, unit)
  CROSSOVER_RESULT_FIELDS(CROSSOVER_CLEAR_LONG_FIELD)
#undef CROSSOVER_CLEAR_LONG_FIELD
#undef CROSSOVER_CLEAR_LONG_FIELD_AT
  const bool measured = row.status == CellStatus::kOk;
  const bool predicted = row.status == CellStatus::kPredicted;
  std::vector<std::string> fields, model;
  const nlohmann::ordered_json values = result_to_json(row);
  for (const auto& [key, value] : values.items()) {
    if (long_column(key)) continue;
    if (prediction_column(key)) {
      fields.push_back(predicted ? field(value) : "");
      model.push_back(measured ? field(value) : "");
      continue;
    }
    // A predicted cell's band; a measured row has none (it was a 0 there).
    if (key == "prediction_error") {
      fields.push_back(predicted ? field(value) : "");
      continue;
    }
    // A measured flag (noisy, throttled) is false where nothing was measured, so that pandas
    // reads the column as bool, not as objects with NaN (`df[df.noisy]` raised).
    if (!measured && measured_column(key))
      fields.push_back(value.is_boolean() ? "false" : "");
    else
      fields.push_back(field(value));
    if (is_key(key, Key::kDatasetSize)) fields.push_back(dataset_rows(row));
  }
  fields.insert(fields.end(), model.begin(), model.end());
  return join(fields, ",") + "\n";
}

std::string render_csv(const std::vector<Result>& results) {
  std::string out = csv_header();
  for (const auto& r : results) out += csv_row(r);
  return out;
}

namespace {

std::string jsonl_text(const std::vector<Result>& results) {
  std::string text;
  for (const Result& r : results) text += json_text(result_to_json(r)) + "\n";
  return text;
}

}  // namespace

ResultFiles::ResultFiles(const std::string& directory, const std::vector<Result>& first)
    : jsonl_(run_file(directory, kResultsFile), jsonl_text(first)),
      csv_(directory + "/results.csv", render_csv(first)) {}

void ResultFiles::append(const Result& result) {
  jsonl_.append(json_text(result_to_json(result)) + "\n", "a result");
  csv_.append(csv_row(result), "a result");
}

std::uint64_t bytes_needed(std::size_t cells) {
  // A result line is a few kilobytes (every sample is kept); the reports add about as much per
  // cell again, plus a fixed part (the HTML page's script and styles).
  return (std::uint64_t{1} << 20) + std::uint64_t{64 << 10} * cells;
}

Found space_problem(const std::string& directory, std::size_t cells) {
  struct statvfs info {};
  if (statvfs(directory.c_str(), &info) != 0) return std::nullopt;  // unknown: the writes will tell
  const std::uint64_t free_bytes = std::uint64_t{info.f_bavail} * info.f_frsize;
  const std::uint64_t needed = bytes_needed(cells);
  if (free_bytes >= needed) return std::nullopt;
  return Problem(directory + ": only " + std::to_string(free_bytes >> 10) +
                 " KiB free on its file system; the results and reports of " +
                 std::to_string(cells) + " cells need about " + std::to_string(needed >> 10) +
                 " KiB. Free some space or choose another --out");
}

}  // namespace crossover
