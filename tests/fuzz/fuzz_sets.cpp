// Fuzzes what the command line hands a run as text: each line of the input is a `--set` value and
// the first is a `--label` too (a byte that is not UTF-8 in either once aborted the run, in
// nlohmann's dump). A bad --set must be a std::invalid_argument naming it; a grid it changes must
// still be a grid's text, which the grid's reader accepts or refuses with a GridError; a label
// that passes the run's UTF-8 check must be writable as JSON. Any other exception, crash or
// sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/text/text.hpp"
#include "runner/grid/grid.hpp"
#include "runner/grid/grid_overrides.hpp"

namespace {

constexpr const char* kGrid = R"({"name": "sets", "defaults": {"epochs": 1, "repeats": 1},
  "experiments": [{"workload": "iris_mlp", "grid": {"device": ["cpu", "cuda"]}},
                  {"workload": "mnist_mlp", "settings": {"batch_size": 64}}]})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> sets;
  std::istringstream lines(text);
  for (std::string line; sets.size() < 8 && std::getline(lines, line);) sets.push_back(line);
  if (!sets.empty() && crossover::valid_utf8(sets.front()))
    (void)nlohmann::json{{"label", sets.front()}}.dump();  // throws, and so fails, if it cannot
  std::string changed;
  try {
    changed = crossover::apply_sets(kGrid, sets);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  try {
    (void)crossover::expand_grid(crossover::parse_grid(changed, "fuzz.json"));
  } catch (const crossover::GridError&) {
  }
  return 0;
}
