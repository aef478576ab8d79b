#include "reports/charts/svg_text.hpp"

#include <cstdio>
#include <map>

#include "core/text/text.hpp"

namespace crossover {

std::string svg_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

std::string html_escape(const std::string& text) {
  // No control character reaches the page; the renderers quote attributes with single quotes.
  static const std::map<char, std::string> entities = {
      {'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&#39;"}};
  return replaced(printable_text(text), entities);
}

}  // namespace crossover
