#pragma once
// A run's result files as the sweep writes them: results.jsonl and results.csv appended and
// synced per result, the space a run of so many cells needs, and results.csv's rows: one per
// cell, the columns of results.jsonl (lists joined with ';') but the per-epoch samples, which
// results.jsonl keeps.

#include <cstdint>
#include <string>
#include <vector>

#include "core/files/file_writer.hpp"
#include "core/records/results.hpp"
#include "core/text/problem.hpp"

namespace crossover {

/// The header line, ending in a newline.
std::string csv_header();

/// One result as a CSV line (RFC 4180 quoting), ending in a newline.
std::string csv_row(const Result& result);

/// Header and every row.
std::string render_csv(const std::vector<Result>& results);

/// results.jsonl and results.csv in one directory, appended and synced per result.
class ResultFiles {
 public:
  /// Replaces both files in `directory` atomically with `first` (the cells a resumed run keeps),
  /// so that a run killed at any moment leaves either the earlier files or the new ones whole;
  /// throws std::runtime_error naming the file when it cannot.
  explicit ResultFiles(const std::string& directory, const std::vector<Result>& first = {});
  /// Appends and syncs one result; throws std::runtime_error naming the file and the system's
  /// reason (a full disk) when it cannot.
  void append(const Result& result);

 private:
  AppendFile jsonl_;
  AppendFile csv_;
};

/// Bytes a run of `cells` cells needs for its results and reports, generously.
std::uint64_t bytes_needed(std::size_t cells);

/// Why `directory` (which exists) cannot take a run of `cells` cells, with the free and the
/// needed space; nothing when it can (or when its free space cannot be asked: the writes tell).
Found space_problem(const std::string& directory, std::size_t cells);

}  // namespace crossover
