// Fuzzes the grid parser, validator and expander with arbitrary text. Every bad grid must be a
// GridError (a message for the user); any other exception, crash, leak or sanitizer report is a
// bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runner/grid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const crossover::Grid grid = crossover::parse_grid(text, "fuzz.json");
    (void)crossover::expand_grid(grid);
  } catch (const crossover::GridError&) {
  }
  return 0;
}
