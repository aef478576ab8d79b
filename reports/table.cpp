#include "reports/table.hpp"

#include <algorithm>

namespace crossover {
namespace {

bool right(const TextTable& table, std::size_t column) {
  return column < table.right_aligned.size() && table.right_aligned[column];
}

// Columns are as wide as they look: count UTF-8 code points ("±"), not bytes.
std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80 ? 1 : 0;
  return width;
}

std::string escape_pipes(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string render_markdown_table(const TextTable& table) {
  std::string out = "|";
  for (const auto& h : table.header) out += " " + escape_pipes(h) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < table.header.size(); ++c) out += right(table, c) ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (const auto& cell : row) out += " " + escape_pipes(cell) + " |";
    out += "\n";
  }
  return out;
}

std::string render_text_table(const TextTable& table) {
  std::vector<std::size_t> width(table.header.size(), 0);
  const auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], display_width(row[c]));
    }
  };
  measure(table.header);
  for (const auto& row : table.rows) measure(row);
  const auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      const std::string pad(width[c] - display_width(cell), ' ');
      out += right(table, c) ? pad + cell : cell + pad;
      if (c + 1 < width.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(table.header);
  std::size_t total = 0;
  for (std::size_t w : width) total += w + 2;
  out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& row : table.rows) out += line(row);
  return out;
}

}  // namespace crossover
