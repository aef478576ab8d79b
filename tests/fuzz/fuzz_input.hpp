#pragma once
// The readers under fuzzing take a path, as they do in the tool, so each input is written to one
// scratch file per fuzzing process and read back through the real entry point (gzip included).

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace crossover::fuzz {

/// Writes the input to this process's scratch file and returns its path.
inline std::string write_input(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/crossover-fuzz-" + std::to_string(getpid());
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw std::logic_error("cannot write the fuzz input to " + path);
  if (size > 0) std::fwrite(data, 1, size, file);
  std::fclose(file);
  return path;
}

}  // namespace crossover::fuzz
