#include "core/text/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <numeric>

namespace crossover {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  // A typo changes a few characters; anything further is a different word.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  return best_distance <= limit ? best : std::string();
}

std::vector<std::string> nearest(const std::string& word,
                                 const std::vector<std::string>& candidates, std::size_t count) {
  std::vector<std::pair<std::size_t, std::size_t>> ranked;  // distance, position
  for (std::size_t i = 0; i < candidates.size(); ++i)
    ranked.emplace_back(edit_distance(word, candidates[i]), i);
  std::stable_sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranked.size() && i < count; ++i)
    out.push_back(candidates[ranked[i].second]);
  return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::string format_seconds(double seconds) {
  char buffer[64];
  if (!std::isfinite(seconds)) return "-";
  if (seconds > 0.0 && seconds < 1e-6) {
    // Below a microsecond (a profile at the fast edge): never "0 us" for a time that is not 0.
    std::snprintf(buffer, sizeof buffer, "%.3g ns", seconds * 1e9);
  } else if (seconds < 1e-3) {
    std::snprintf(buffer, sizeof buffer, "%.0f us", seconds * 1e6);
  } else if (seconds < 1.0) {
    std::snprintf(buffer, sizeof buffer, "%.3g ms", seconds * 1e3);
  } else if (seconds < 120.0) {
    std::snprintf(buffer, sizeof buffer, "%.3g s", seconds);
  } else if (seconds >= kSecondsPerYear) {
    // Minutes of a duration beyond a year say nothing (and beyond 10^18 s do not fit a long).
    std::snprintf(buffer, sizeof buffer, "%.3g s", seconds);
  } else {
    const auto whole = static_cast<long>(seconds);
    std::snprintf(buffer, sizeof buffer, "%ld min %02ld s", whole / 60, whole % 60);
  }
  return buffer;
}

std::string format_number(double value) {
  char buffer[64];
  if (!std::isfinite(value)) return "-";
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

std::string format_significant(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  digits = std::clamp(digits, 1, 15);
  if (std::fabs(value) >= std::pow(10.0, digits - 1) && std::fabs(value) < 1e15) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);  // the rounding to the digits
    const double rounded = std::strtod(buffer, nullptr);
    std::string digits = std::to_string(static_cast<long long>(std::fabs(rounded)));
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
      digits.insert(static_cast<std::size_t>(i), ",");
    return (rounded < 0 ? "-" : "") + digits;
  }
  char buffer[64];
  // Fixed, so a small value never reads as an exponent: three digits from the first that counts.
  const int decimals =
      value == 0.0
          ? 0
          : std::max(0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(value)))));
  std::snprintf(buffer, sizeof buffer, "%.*f", std::min(decimals, 20), value);
  std::string text = buffer;
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

TimeUnit time_unit_for(const std::vector<double>& seconds) {
  static const TimeUnit units[] = {{"s", 1.0}, {"ms", 1e3}, {"us", 1e6}, {"ns", 1e9}};
  TimeUnit best = units[1];
  std::size_t best_width = std::string::npos;
  for (const TimeUnit& unit : units) {
    std::size_t width = 0;
    for (double s : seconds)
      if (std::isfinite(s)) width = std::max(width, format_significant(s * unit.per_second).size());
    if (width < best_width) {
      best = unit;
      best_width = width;
    }
  }
  return best;
}

std::string format_axis_value(double value) {
  if (value >= 1000 && value < 1e15 && value == std::floor(value)) {
    std::string digits = std::to_string(static_cast<long long>(value));
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
      digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
  }
  return format_number(value);
}

std::string format_percent(double fraction, bool sign) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, sign ? "%+.1f %%" : "%.1f %%", 100.0 * fraction);
  return buffer;
}

std::string timestamp() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y%m%d-%H%M%S", std::localtime(&now));
  return buffer;
}

std::string clock_text(double seconds) {
  if (!(seconds >= 0.0 && seconds < kSecondsPerYear)) return format_seconds(seconds);
  const auto s = static_cast<long>(seconds + 0.5);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buffer;
}

std::string replaced(const std::string& text, const std::map<char, std::string>& replacements) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto it = replacements.find(c);
    if (it == replacements.end())
      out += c;
    else
      out += it->second;
  }
  return out;
}

std::string printable_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\t' || c == '\n') {
      out += text[i];
    } else if (c < 0x20 || c == 0x7f) {
      continue;  // C0 controls (ESC among them) and DEL
    } else if (c == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      ++i;  // a C1 control in UTF-8 (U+0080 to U+009F: CSI among them)
    } else {
      out += text[i];
    }
  }
  return out;
}

namespace {

// The length of the UTF-8 sequence at text[i], 0 where it is not one (a stray continuation, an
// overlong form, a surrogate, past U+10FFFF, cut short).
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  const std::size_t n = c >= 0xc2 && c <= 0xdf   ? 2
                        : c >= 0xe0 && c <= 0xef ? 3
                        : c >= 0xf0 && c <= 0xf4 ? 4
                                                 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  const unsigned char d = byte(i + 1);
  if ((c == 0xe0 && d < 0xa0) || (c == 0xed && d > 0x9f) || (c == 0xf0 && d < 0x90) ||
      (c == 0xf4 && d > 0x8f))
    return 0;
  return n;
}

}  // namespace

bool valid_utf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string terminal_text(const std::string& text) {
  std::string valid;
  valid.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    valid += n == 0 ? std::string("?") : text.substr(i, n);
    i += n == 0 ? 1 : n;
  }
  std::string out = printable_text(valid);
  for (std::size_t at = 0; (at = out.find("::", at)) != std::string::npos; at += 2) {
    if (at == 0 || out[at - 1] == '\n') out.insert(at++, " ");
  }
  return out;
}

std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80 ? 1 : 0;
  return width;
}

namespace {

// One line (no line feed) broken at spaces into lines of at most `width` columns where words
// allow.
std::string wrap_line(const std::string& line, std::size_t width) {
  const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
  if (display_width(line) <= width || line.find("  ", indent) != std::string::npos) return line;
  std::size_t hang = indent + 2;
  if (line.compare(indent, 1, "[") == 0)  // a footnote: "[12] " hangs its own width
    if (const std::size_t close = line.find("] ", indent);
        close != std::string::npos && close < indent + 8)
      hang = close + 2;
  if (hang >= width / 2) hang = indent < width / 2 ? indent : 0;
  // The words, a percent sign kept with its number ("-55.4 %" is one).
  std::vector<std::string> words;
  for (std::size_t at = indent; at < line.size();) {
    std::size_t end = line.find(' ', at);
    if (end == std::string::npos) end = line.size();
    const std::string word = line.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (word[0] == '%' && !words.empty())
      words.back() += " " + word;
    else
      words.push_back(word);
  }
  std::string out = line.substr(0, indent);
  std::size_t used = indent;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::size_t w = display_width(words[i]);
    if (i > 0 && used + 1 + w > width) {
      out += "\n" + std::string(hang, ' ');
      used = hang;
    } else if (i > 0) {
      out += ' ';
      ++used;
    }
    out += words[i];
    used += w;
  }
  return out;
}

}  // namespace

std::string wrap_prose(const std::string& text, std::size_t width) {
  if (width == 0) return text;
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string::npos;
    if (last) end = text.size();
    out += wrap_line(text.substr(start, end - start), width);
    if (!last) out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace crossover
