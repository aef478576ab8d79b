#pragma once
// A table as the analysis builds it: rows of text cells under a header. How it is written, as
// Markdown or for a terminal, is reports/render/table_writer.hpp's.

#include <string>
#include <vector>

namespace crossover {

/// Rows of already-formatted cells under a header.
struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right_aligned;  ///< per column; numbers read best aligned right
  /// Said once under the table, for marks its cells carry ("[1] 12 rows (6-11): why"):
  /// footnote_column (reports/render/table_writer.hpp) makes them.
  std::vector<std::string> notes;
};

}  // namespace crossover
