#include "workloads/data/csv_table.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "core/files/user_files.hpp"

namespace crossover {
namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  for (char c : line) {
    if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

bool parse_float(const std::string& text, float& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(x)) return false;
  value = static_cast<float>(x);
  return true;
}

bool parse_count(const std::string& text, std::size_t& value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
      text.size() > 9) {
    return false;
  }
  value = std::stoul(text);
  return true;
}

}  // namespace

CsvTable read_sklearn_csv(const std::string& path, std::size_t expected_features) {
  if (access(path.c_str(), F_OK) != 0)
    throw std::runtime_error(path + ": cannot open (missing? run scripts/fetch-data.sh)");
  // A data set is the user's own arrangement of a data folder (links to /usr/share included):
  // followed, still only a regular file of a bounded size.
  std::istringstream in(read_user_file(path, kMaxCsvBytes, "a CSV data set", Links::kFollow));
  const auto fail = [&](std::size_t line, const std::string& what) {
    return std::runtime_error(path + ":" + std::to_string(line) + ": " + what);
  };

  std::string line;
  if (!std::getline(in, line))
    throw fail(1, "empty file; expected a header \"n_samples,n_features,...\"");
  const auto header = split(line);
  CsvTable table;
  if (header.size() < 2 || !parse_count(header[0], table.rows) ||
      !parse_count(header[1], table.features) || table.rows == 0 || table.features == 0) {
    throw fail(1, "bad header \"" + line.substr(0, 60) +
                      "\"; expected \"n_samples,n_features,...\" with two positive counts");
  }
  if (expected_features != 0 && table.features != expected_features) {
    throw fail(1, "header declares " + std::to_string(table.features) + " features, expected " +
                      std::to_string(expected_features));
  }
  for (std::size_t i = 2; i < header.size(); ++i) {
    if (!header[i].empty()) table.class_names.push_back(header[i]);
  }

  // The header's counts are not trusted for memory: a typo there must not allocate gigabytes.
  constexpr std::size_t kReserveLimit = std::size_t{1} << 20;
  table.x.reserve(std::min(table.rows * table.features, kReserveLimit));
  table.y.reserve(std::min(table.rows, kReserveLimit));
  std::size_t number = 1;
  std::size_t read = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    const auto fields = split(line);
    float value = 0.0f;
    // A line of column names (Boston has one) is allowed once, right after the header.
    if (read == 0 && number == 2 && !parse_float(fields[0], value)) continue;
    if (fields.size() != table.features + 1) {
      throw fail(number, "expected " + std::to_string(table.features + 1) + " values (" +
                             std::to_string(table.features) + " features and a target), found " +
                             std::to_string(fields.size()));
    }
    if (read == table.rows) {
      throw fail(number,
                 "more rows than the " + std::to_string(table.rows) + " the header declares");
    }
    for (std::size_t c = 0; c < fields.size(); ++c) {
      if (!parse_float(fields[c], value)) {
        throw fail(number, "column " + std::to_string(c + 1) + " is not a finite number: \"" +
                               fields[c].substr(0, 40) + "\"");
      }
      (c < table.features ? table.x : table.y).push_back(value);
    }
    ++read;
  }
  if (read != table.rows) {
    throw fail(number, "truncated: the header declares " + std::to_string(table.rows) +
                           " rows, the file has " + std::to_string(read));
  }
  return table;
}

}  // namespace crossover
