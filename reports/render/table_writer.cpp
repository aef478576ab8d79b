#include "reports/render/table_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

#include "core/text/text.hpp"

namespace crossover {
namespace {

bool right(const TextTable& table, std::size_t column) {
  return column < table.right_aligned.size() && table.right_aligned[column];
}

// Whether the #s at `at` open an ATX heading with text: one to six of them, then a space ("#3"
// does not, and a lone "#", a table's column of cell numbers, would head nothing).
bool heading_mark(const std::string& text, std::size_t at) {
  const std::size_t end = text.find_first_not_of('#', at);
  return end != std::string::npos && end - at <= 6 && text[end] == ' ';
}

}  // namespace

std::string markdown_with_code(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t open = text.find('`', at);
    const std::size_t close = open == std::string::npos ? open : text.find('`', open + 1);
    if (close == std::string::npos) return out + markdown_text(text.substr(at));
    // Inside a span nothing is markup; it keeps one line of printable text.
    std::string code = printable_text(text.substr(open + 1, close - open - 1));
    for (char& c : code)
      if (c == '\n' || c == '\t') c = ' ';
    out += markdown_text(text.substr(at, open - at)) + "`" + code + "`";
    at = close + 1;
  }
}

std::string markdown_text(const std::string& text) {
  // Each mark that starts something in GitHub Markdown: emphasis (*, ~, and _ at a word's edge:
  // iris_mlp stays as it is), a heading (# first: "cells #3" stays), code (`), a table's column
  // (|), an escape (\\), HTML (&, <, >: entities), and a link or an image: a ] that a ( [ or :
  // follows, a [ after a !. An interval [1.1, 1.3] stays as it is.
  static const std::map<char, std::string> marks = {
      {'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"},  {'\n', " "},  {'\t', " "},
      {'|', "\\|"},   {'`', "\\`"},  {'\\', "\\\\"}, {'*', "\\*"}, {'~', "\\~"}};
  const std::string plain = printable_text(text);
  std::string out;
  out.reserve(plain.size());
  const auto word = [&](std::size_t i) {
    return i < plain.size() && (std::isalnum(static_cast<unsigned char>(plain[i])) != 0 ||
                                static_cast<unsigned char>(plain[i]) >= 0x80);
  };
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const char c = plain[i];
    if (const auto mark = marks.find(c); mark != marks.end()) {
      out += mark->second;
    } else if (c == '_' && !(i > 0 && word(i - 1) && word(i + 1))) {
      out += "\\_";
    } else if ((c == '#' && plain.find_first_not_of(' ') == i && heading_mark(plain, i)) ||
               (c == '[' && i > 0 && plain[i - 1] == '!') ||
               (c == ']' && i + 1 < plain.size() && std::strchr("([:", plain[i + 1]) != nullptr)) {
      out += std::string("\\") + c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_markdown_table(const TextTable& table) {
  std::string out = "|";
  // The notes follow as a list: a table's last row and a line after it would run together.
  const auto with_notes = [&](std::string text) {
    if (table.notes.empty()) return text;
    text += "\n";
    for (const std::string& note : table.notes) text += "- " + markdown_text(note) + "\n";
    return text;
  };
  for (std::string h : table.header) {
    std::replace(h.begin(), h.end(), '\n', ' ');  // a stacked header reads as one line here
    out += " " + markdown_text(h) + " |";
  }
  out += "\n|";
  for (std::size_t c = 0; c < table.header.size(); ++c) out += right(table, c) ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (const auto& cell : row) out += " " + markdown_text(cell) + " |";
    out += "\n";
  }
  return with_notes(out);
}

std::string render_text_table(const TextTable& table) {
  std::vector<std::size_t> width(table.header.size(), 0);
  // A cell is one line of printable text: a newline in a label would break the table.
  const auto one_line = [](const std::vector<std::string>& row) {
    std::vector<std::string> out;
    for (const auto& cell : row) {
      std::string text = printable_text(cell);
      std::replace(text.begin(), text.end(), '\n', ' ');
      std::replace(text.begin(), text.end(), '\t', ' ');
      out.push_back(std::move(text));
    }
    return out;
  };
  // A header cell may hold a line break: its words stack in their column, the last line lowest.
  std::vector<std::vector<std::string>> header_lines;
  for (const auto& cell : table.header) {
    std::vector<std::string> parts;
    for (std::size_t at = 0;;) {
      const auto end = cell.find('\n', at);
      parts.push_back(cell.substr(at, end == std::string::npos ? end : end - at));
      if (end == std::string::npos) break;
      at = end + 1;
    }
    header_lines.push_back(one_line(parts));
  }
  std::size_t depth = 1;
  for (const auto& parts : header_lines) depth = std::max(depth, parts.size());
  std::vector<std::vector<std::string>> headers(depth);
  for (const auto& parts : header_lines)
    for (std::size_t d = 0; d < depth; ++d) {
      const std::size_t blank = depth - parts.size();
      headers[d].push_back(d < blank ? "" : parts[d - blank]);
    }
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : table.rows) rows.push_back(one_line(row));
  const auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], display_width(row[c]));
    }
  };
  for (const auto& header : headers) measure(header);
  for (const auto& row : rows) measure(row);
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
  std::string out;
  for (const auto& header : headers) out += line(header);
  std::size_t total = 0;
  for (std::size_t w : width) total += w + 2;
  out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& row : rows) out += line(row);
  for (const std::string& note : table.notes) out += printable_text(note) + "\n";
  return out;
}

namespace {

// " (6-11, 18-23)" for cell numbers; "" for names, which the rows show.
std::string ids_text(const std::vector<std::string>& ids) {
  std::vector<long long> numbers;
  for (const std::string& id : ids) {
    if (id.empty() || id.size() > 15 || id.find_first_not_of("0123456789") != std::string::npos)
      return "";
    numbers.push_back(std::stoll(id));
  }
  std::sort(numbers.begin(), numbers.end());
  std::vector<std::string> runs;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    runs.push_back(std::to_string(numbers[i]) +
                   (j > i ? "-" + std::to_string(numbers[j]) : std::string()));
    i = j + 1;
  }
  return " (" + join(runs) + ")";
}

}  // namespace

void footnote_column(TextTable& table, std::size_t column, const std::vector<std::string>& ids,
                     std::size_t longest) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> texts;  // text, its rows
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    if (column >= table.rows[r].size()) continue;
    const std::string& text = table.rows[r][column];
    auto it =
        std::find_if(texts.begin(), texts.end(), [&](const auto& t) { return t.first == text; });
    if (it == texts.end())
      texts.push_back({text, {r}});
    else
      it->second.push_back(r);
  }
  std::size_t mark = table.notes.size();
  for (const auto& [text, rows] : texts) {
    if (!(text.size() > longest || (text.size() > 12 && rows.size() > 1))) continue;
    const std::string label = "[" + std::to_string(++mark) + "]";
    std::vector<std::string> named;
    for (std::size_t r : rows) named.push_back(r < ids.size() ? ids[r] : "");
    const std::string numbered = ids_text(named);
    table.notes.push_back(label + " " + std::to_string(rows.size()) +
                          (numbered.empty() ? " row" : " cell") + (rows.size() == 1 ? "" : "s") +
                          numbered + ": " + text);
    for (std::size_t r : rows) table.rows[r][column] = label;
  }
}

}  // namespace crossover
