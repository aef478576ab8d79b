// Fuzzes the CIFAR-10 binary batch reader. A malformed file must be a std::runtime_error naming it.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/data/idx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = crossover::fuzz::write_input(data, size);
  try {
    const crossover::CifarBatch batch = crossover::read_cifar_batch(path);
    if (batch.labels.size() != batch.count ||
        batch.pixels.size() != batch.count * (crossover::kCifarRecordBytes - 1)) {
      __builtin_trap();  // the reader's own promise
    }
    for (const auto label : batch.labels) {
      if (label > 9) __builtin_trap();
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
