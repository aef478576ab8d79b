#pragma once
// What a browser would take for markup in report.html: its elements and attributes, found by a
// tokenizer that follows HTML's rules for tags, quoted and unquoted attribute values, comments
// and the raw text of <script> and <style>. The report tests and the HTML fuzz target compare it
// with what the renderer's own source writes, so a value that escapes its context (a quote that
// ends an attribute, a '<' that opens a tag) shows up as an element or attribute nobody wrote.

#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace crossover::testing {

/// The markup of a page: element names, attribute names, and the text of each script.
struct Markup {
  std::set<std::string> elements;
  std::set<std::string> attributes;
  std::vector<std::string> scripts;
};

inline std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

/// Tokenizes `html` as a browser's tokenizer would (simplified, but never more lenient).
inline Markup read_markup(const std::string& html) {
  Markup markup;
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::size_t i = 0;
  const std::size_t n = html.size();
  while (i < n) {
    if (html[i] != '<') {
      ++i;
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) {
      const std::size_t end = html.find("-->", i + 4);
      i = end == std::string::npos ? n : end + 3;
      continue;
    }
    const bool closing = i + 1 < n && html[i + 1] == '/';
    const std::size_t name_at = i + (closing ? 2 : 1);
    if (name_at >= n || !std::isalpha(static_cast<unsigned char>(html[name_at]))) {
      if (name_at < n && (html[name_at] == '!' || html[name_at] == '?')) {  // doctype, bogus
        const std::size_t end = html.find('>', name_at);
        i = end == std::string::npos ? n : end + 1;
      } else {
        ++i;  // a '<' that opens nothing is text
      }
      continue;
    }
    std::size_t j = name_at;
    while (j < n && !space(html[j]) && html[j] != '/' && html[j] != '>') ++j;
    const std::string element = lower(html.substr(name_at, j - name_at));
    if (!closing) markup.elements.insert(element);
    // Attributes: NAME, NAME=VALUE, NAME='VALUE', NAME="VALUE".
    while (j < n && html[j] != '>') {
      if (space(html[j]) || html[j] == '/') {
        ++j;
        continue;
      }
      std::size_t k = j;
      while (k < n && !space(html[k]) && html[k] != '/' && html[k] != '>' &&
             (html[k] != '=' || k == j))
        ++k;
      const std::string attribute = lower(html.substr(j, k - j));
      while (k < n && space(html[k])) ++k;
      if (k < n && html[k] == '=') {
        ++k;
        while (k < n && space(html[k])) ++k;
        if (k < n && (html[k] == '\'' || html[k] == '"')) {
          const std::size_t end = html.find(html[k], k + 1);
          k = end == std::string::npos ? n : end + 1;
        } else {
          while (k < n && !space(html[k]) && html[k] != '>') ++k;
        }
      }
      if (!closing) markup.attributes.insert(attribute);
      j = k;
    }
    i = j < n ? j + 1 : n;
    // The text of a script or a style is raw: only its end tag ends it.
    if (!closing && (element == "script" || element == "style")) {
      std::size_t end = i;
      const std::string close = "</" + element;
      while (end < n && lower(html.substr(end, close.size())) != close) ++end;
      if (element == "script") markup.scripts.push_back(html.substr(i, end - i));
      i = end;
    }
  }
  return markup;
}

/// Every element and attribute name that the renderers' sources write into their markup
/// (reports/render/report_html.cpp, svg_charts.cpp and svg_surface.cpp): what a page may contain.
/// Attributes are written as NAME=' in the source, elements as <NAME.
inline Markup renderer_markup(const std::string& source_dir) {
  std::string source;
  for (const char* file : {"/reports/render/report_html.cpp", "/reports/charts/svg_charts.cpp",
                           "/reports/charts/svg_surface.cpp"}) {
    std::ifstream in(source_dir + file);
    std::ostringstream text;
    text << in.rdbuf();
    source += text.str();
  }
  Markup allowed;
  static const std::regex tag("<([a-zA-Z][a-zA-Z0-9]*)");
  static const std::regex attribute("\\s([a-zA-Z][a-zA-Z0-9-]*)='");
  for (auto it = std::sregex_iterator(source.begin(), source.end(), tag);
       it != std::sregex_iterator(); ++it)
    allowed.elements.insert(lower((*it)[1]));
  for (auto it = std::sregex_iterator(source.begin(), source.end(), attribute);
       it != std::sregex_iterator(); ++it)
    allowed.attributes.insert(lower((*it)[1]));
  return allowed;
}

/// What of `page` the renderer did not write ("element img", "attribute onload"), one per line; ""
/// when nothing. `scripts` is the script text the page must have, once.
inline std::string foreign_markup(const Markup& page, const Markup& allowed,
                                  const std::vector<std::string>& scripts) {
  std::string out;
  for (const auto& e : page.elements) {
    if (allowed.elements.count(e) == 0) out += "element " + e + "\n";
  }
  for (const auto& a : page.attributes) {
    if (allowed.attributes.count(a) == 0) out += "attribute " + a + "\n";
  }
  if (page.scripts != scripts) out += "scripts other than the renderer's own\n";
  return out;
}

}  // namespace crossover::testing
