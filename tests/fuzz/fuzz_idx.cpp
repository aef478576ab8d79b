// Fuzzes the IDX reader (MNIST, Fashion-MNIST), raw and gzip, as image (3 dimensions) and label
// (1 dimension) files. A malformed file must be a std::runtime_error naming it.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/data/idx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = crossover::fuzz::write_input(data, size);
  for (const std::size_t dims : {3, 1}) {
    try {
      const crossover::IdxArray array = crossover::read_idx(path, dims);
      std::size_t elements = 1;
      for (const auto d : array.dims) elements *= static_cast<std::size_t>(d);
      if (elements != array.data.size()) __builtin_trap();  // the reader's own promise
    } catch (const std::runtime_error&) {
    }
  }
  return 0;
}
