#pragma once
// A table of text cells, rendered as GitHub Markdown or as aligned terminal text.

#include <string>
#include <vector>

namespace crossover {

/// Rows of already-formatted cells under a header.
struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right_aligned;  ///< per column; numbers read best aligned right
};

/// GitHub-flavoured Markdown (pipes in cells escaped).
std::string render_markdown_table(const TextTable& table);

/// Space-aligned text for a terminal.
std::string render_text_table(const TextTable& table);

}  // namespace crossover
