// Fuzzes the scikit-learn CSV reader (Iris, Boston), with any number of features and with Iris's
// four. A malformed file must be a std::runtime_error naming the file and line.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/data/csv_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = crossover::fuzz::write_input(data, size);
  for (const std::size_t features : {0, 4}) {
    try {
      const crossover::CsvTable table = crossover::read_sklearn_csv(path, features);
      if (table.x.size() != table.rows * table.features || table.y.size() != table.rows)
        __builtin_trap();  // the reader's own promise
    } catch (const std::runtime_error&) {
    }
  }
  return 0;
}
