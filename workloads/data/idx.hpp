#pragma once
// Readers for the image data sets' real file formats: IDX (MNIST, Fashion-MNIST), raw or
// gzip-compressed, and the CIFAR-10 binary version. Every malformed input is an error naming the
// file and what is wrong.

#include <cstdint>
#include <string>
#include <vector>

namespace crossover {

/// An IDX array of unsigned bytes.
struct IdxArray {
  std::vector<std::int64_t> dims;
  std::vector<std::uint8_t> data;
};

/// The whole file, decompressed when it is gzip (raw files are read as they are).
/// Throws std::runtime_error for a missing, unreadable or corrupt file.
std::vector<std::uint8_t> read_file_maybe_gzip(const std::string& path);

/// Reads an IDX file of unsigned bytes with `expected_dims` dimensions (3 for images, 1 for
/// labels). Throws std::runtime_error naming the file for a bad magic number, an unsupported
/// type, a wrong number of dimensions, or a size that does not match the header.
IdxArray read_idx(const std::string& path, std::size_t expected_dims);

/// `directory/stem` if it exists, else `directory/stem.gz` if that exists, else "".
std::string find_idx_file(const std::string& directory, const std::string& stem);

/// Records of a CIFAR-10 binary batch file: one label byte and 3x32x32 channel-major pixels each.
struct CifarBatch {
  std::size_t count = 0;
  std::vector<std::uint8_t> labels;  ///< count values in 0..9
  std::vector<std::uint8_t> pixels;  ///< count * 3072 values
};

/// Bytes per CIFAR-10 record: a label and a 3x32x32 image.
inline constexpr std::size_t kCifarRecordBytes = 1 + 3 * 32 * 32;

/// Reads a CIFAR-10 binary batch (data_batch_N.bin, test_batch.bin). Throws std::runtime_error
/// naming the file when it is missing, empty, not a whole number of records, or has a label > 9.
CifarBatch read_cifar_batch(const std::string& path);

}  // namespace crossover
