// Fuzzes report.html with hostile strings: the input, split at NUL bytes, fills every free-text
// field of a report whose cells form a crossover (tests/hostile_report.hpp). The page must hold no
// element or attribute that the renderer's source does not write, and its one script unchanged:
// otherwise a value escaped its context and could run as script in a reader's browser.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/hostile_report.hpp"
#include "tests/html_markup.hpp"

namespace {

const crossover::testing::Markup& allowed() {
  static const crossover::testing::Markup markup =
      crossover::testing::renderer_markup(CROSSOVER_SOURCE_DIR);
  return markup;
}

const std::vector<std::string>& renderer_scripts() {
  static const std::vector<std::string> scripts =
      crossover::testing::read_markup(crossover::testing::hostile_report({})).scripts;
  return scripts;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A source tree the allowlist cannot be read from would pass everything: refuse to start.
  if (allowed().elements.count("svg") == 0 || renderer_scripts().size() != 1) __builtin_trap();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> strings(1);
  for (std::size_t i = 0; i < size && strings.size() < 64; ++i) {
    if (data[i] == 0) {
      strings.emplace_back();
    } else {
      strings.back() += static_cast<char>(data[i]);
    }
  }
  const std::string html = crossover::testing::hostile_report(strings);
  const auto page = crossover::testing::read_markup(html);
  if (!crossover::testing::foreign_markup(page, allowed(), renderer_scripts()).empty())
    __builtin_trap();
  return 0;
}
