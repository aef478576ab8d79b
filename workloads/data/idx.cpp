#include "workloads/data/idx.hpp"

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <stdexcept>

#include "core/files/user_files.hpp"

namespace crossover {
namespace {

std::runtime_error error(const std::string& path, const std::string& what) {
  return std::runtime_error(path + ": " + what);
}

// access(), not opening it: opening a FIFO would wait for a writer.
bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

}  // namespace

std::vector<std::uint8_t> read_file_maybe_gzip(const std::string& path) {
  if (!exists(path)) throw error(path, "missing file (run scripts/fetch-data.sh)");
  // Checked before zlib opens it (a FIFO would block); a data set's link is followed.
  check_regular_file(path, kMaxImageFileBytes, "an IDX file", Links::kFollow);
  gzFile file = gzopen(path.c_str(), "rb");  // reads uncompressed files transparently
  if (file == nullptr) throw error(path, "cannot open");
  std::vector<std::uint8_t> bytes;
  std::uint8_t chunk[1 << 16];
  while (true) {
    const int got = gzread(file, chunk, sizeof chunk);
    if (got < 0) {
      int code = 0;
      const std::string message = gzerror(file, &code);
      gzclose(file);
      throw error(path, "corrupt gzip data (" + message + ")");
    }
    if (got == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  int code = 0;
  const std::string message = gzerror(file, &code);
  gzclose(file);
  // A gzip stream cut short ends without an error from gzread but sets Z_BUF_ERROR.
  if (code != Z_OK && code != Z_STREAM_END)
    throw error(path, "corrupt gzip data (" + message + ")");
  return bytes;
}

IdxArray read_idx(const std::string& path, std::size_t expected_dims) {
  const std::vector<std::uint8_t> bytes = read_file_maybe_gzip(path);
  if (bytes.size() < 4)
    throw error(path, "truncated: no IDX header (" + std::to_string(bytes.size()) + " bytes)");
  if (bytes[0] != 0 || bytes[1] != 0) {
    char magic[16];
    std::snprintf(magic, sizeof magic, "0x%02x%02x%02x%02x", bytes[0], bytes[1], bytes[2],
                  bytes[3]);
    throw error(path,
                std::string("bad magic number ") + magic + "; an IDX file starts with 0x0000");
  }
  if (bytes[2] != 0x08) {
    char type[8];
    std::snprintf(type, sizeof type, "0x%02x", bytes[2]);
    throw error(
        path, std::string("unsupported IDX data type ") + type + "; expected 0x08 (unsigned byte)");
  }
  const std::size_t dims = bytes[3];
  if (dims != expected_dims) {
    throw error(path, "has " + std::to_string(dims) + " dimensions, expected " +
                          std::to_string(expected_dims));
  }
  const std::size_t header = 4 + 4 * dims;
  if (bytes.size() < header)
    throw error(path, "truncated: the header needs " + std::to_string(header) + " bytes");
  IdxArray array;
  std::size_t expected = 1;
  for (std::size_t d = 0; d < dims; ++d) {
    const std::uint8_t* p = bytes.data() + 4 + 4 * d;
    const std::int64_t size = (std::int64_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
    if (size <= 0 || size > (1 << 28))
      throw error(path,
                  "dimension " + std::to_string(d) + " has a bad size " + std::to_string(size));
    array.dims.push_back(size);
    expected *= static_cast<std::size_t>(size);
    // Checked per dimension so that three large sizes cannot overflow the product.
    if (d + 1 < dims && expected > bytes.size() - header) {
      throw error(path, "truncated: the header declares at least " + std::to_string(expected) +
                            " bytes of data, the file has " +
                            std::to_string(bytes.size() - header));
    }
  }
  const std::size_t have = bytes.size() - header;
  if (have < expected) {
    throw error(path, "truncated: the header declares " + std::to_string(expected) +
                          " bytes of data, the file has " + std::to_string(have));
  }
  if (have > expected) {
    throw error(path, "header/size mismatch: the header declares " + std::to_string(expected) +
                          " bytes of data, the file has " + std::to_string(have));
  }
  array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return array;
}

std::string find_idx_file(const std::string& directory, const std::string& stem) {
  const std::string raw = directory + "/" + stem;
  if (exists(raw)) return raw;
  if (exists(raw + ".gz")) return raw + ".gz";
  return "";
}

CifarBatch read_cifar_batch(const std::string& path) {
  if (!exists(path))
    throw error(path,
                "missing file (run scripts/fetch-data.sh --download; docs/grids.md#data-sets)");
  std::vector<std::uint8_t> bytes;
  read_user_file_chunks(
      path, kMaxImageFileBytes, "a CIFAR-10 batch",
      [&](const char* data, std::size_t size) { bytes.insert(bytes.end(), data, data + size); },
      Links::kFollow);
  if (bytes.empty()) throw error(path, "empty file");
  if (bytes.size() % kCifarRecordBytes != 0) {
    throw error(path, "truncated or not a CIFAR-10 binary batch: " + std::to_string(bytes.size()) +
                          " bytes is not a whole number of " + std::to_string(kCifarRecordBytes) +
                          "-byte records");
  }
  CifarBatch batch;
  batch.count = bytes.size() / kCifarRecordBytes;
  batch.labels.reserve(batch.count);
  batch.pixels.reserve(batch.count * (kCifarRecordBytes - 1));
  for (std::size_t r = 0; r < batch.count; ++r) {
    const auto* record = bytes.data() + r * kCifarRecordBytes;
    if (record[0] > 9) {
      throw error(path, "record " + std::to_string(r) + " has label " + std::to_string(record[0]) +
                            "; CIFAR-10 labels are 0 to 9");
    }
    batch.labels.push_back(record[0]);
    batch.pixels.insert(batch.pixels.end(), record + 1, record + kCifarRecordBytes);
  }
  return batch;
}

}  // namespace crossover
