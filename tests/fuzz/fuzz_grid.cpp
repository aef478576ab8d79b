// Fuzzes the grid parser, validator and expander with arbitrary text. Every bad grid must be a
// GridError (a message for the user); any other exception, crash, leak or sanitizer report is a
// bug, and so is a grid accepted with a key given twice or nested past the limit.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/files/user_files.hpp"
#include "runner/grid/grid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const crossover::Grid grid = crossover::parse_grid(text, "fuzz.json");
    // An accepted grid has no key twice and no nesting past the limit: its shape was checked.
    if (crossover::check_json_shape(text)) __builtin_trap();
    (void)crossover::expand_grid(grid);
  } catch (const crossover::GridError&) {
  }
  return 0;
}
