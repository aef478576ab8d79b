#pragma once
// Writes small files in the real IDX and CIFAR-10 formats, raw or gzip, for the loader tests.

#include <zlib.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace crossover::testing {

/// The bytes of an IDX file of unsigned bytes with these dimensions and data.
inline std::vector<std::uint8_t> idx_bytes(const std::vector<std::uint32_t>& dims,
                                           const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> out = {0, 0, 0x08, static_cast<std::uint8_t>(dims.size())};
  for (std::uint32_t d : dims) {
    out.push_back(static_cast<std::uint8_t>(d >> 24));
    out.push_back(static_cast<std::uint8_t>(d >> 16));
    out.push_back(static_cast<std::uint8_t>(d >> 8));
    out.push_back(static_cast<std::uint8_t>(d));
  }
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

/// Writes `bytes` to `path`, gzip-compressed when `gzip` is set.
inline void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes,
                        bool gzip = false) {
  if (gzip) {
    gzFile file = gzopen(path.c_str(), "wb");
    gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(file);
  } else {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
}

/// Writes an MNIST-format directory: `train` and `test` images of 28x28 whose pixels all equal
/// their label * 20, so a reader's output can be checked pixel for pixel.
inline void write_mnist_directory(const std::string& directory, std::uint32_t train,
                                  std::uint32_t test, bool gzip) {
  const auto split = [&](const std::string& prefix, std::uint32_t count) {
    std::vector<std::uint8_t> images, labels;
    for (std::uint32_t i = 0; i < count; ++i) {
      const auto label = static_cast<std::uint8_t>(i % 10);
      labels.push_back(label);
      images.insert(images.end(), 28 * 28, static_cast<std::uint8_t>(label * 20));
    }
    const std::string suffix = gzip ? ".gz" : "";
    write_bytes(directory + "/" + prefix + "-images-idx3-ubyte" + suffix,
                idx_bytes({count, 28, 28}, images), gzip);
    write_bytes(directory + "/" + prefix + "-labels-idx1-ubyte" + suffix,
                idx_bytes({count}, labels), gzip);
  };
  split("train", train);
  split("t10k", test);
}

/// The bytes of a CIFAR-10 batch of `count` records: label i % 10, every pixel of channel c equal
/// to label * 10 + c.
inline std::vector<std::uint8_t> cifar_bytes(std::uint32_t count) {
  std::vector<std::uint8_t> out;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto label = static_cast<std::uint8_t>(i % 10);
    out.push_back(label);
    for (int c = 0; c < 3; ++c)
      out.insert(out.end(), 32 * 32, static_cast<std::uint8_t>(label * 10 + c));
  }
  return out;
}

}  // namespace crossover::testing
