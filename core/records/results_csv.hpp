#pragma once
// results.csv: one row per cell, the columns of results.jsonl (lists joined with ';') but the
// per-epoch samples, which results.jsonl keeps.

#include <string>
#include <vector>

#include "core/records/results.hpp"

namespace crossover {

/// The header line, ending in a newline.
std::string csv_header();

/// One result as a CSV line (RFC 4180 quoting), ending in a newline.
std::string csv_row(const Result& result);

/// Header and every row.
std::string render_csv(const std::vector<Result>& results);

}  // namespace crossover
