// The IDX and CIFAR-10 readers on files in the real formats that the tests write, raw and gzip,
// and on every kind of malformed file.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <stdexcept>

#include "tests/idx_writer.hpp"
#include "tests/test_support.hpp"
#include "workloads/data/idx.hpp"

namespace crossover {
namespace {

using testing::idx_bytes;
using testing::ScratchDir;
using testing::write_bytes;

std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(Idx, ReadsRawAndGzipFilesAlike) {
  ScratchDir dir;
  const std::vector<std::uint8_t> pixels = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  write_bytes(dir.file("raw"), idx_bytes({3, 2, 2}, pixels));
  write_bytes(dir.file("packed.gz"), idx_bytes({3, 2, 2}, pixels), true);
  for (const char* name : {"raw", "packed.gz"}) {
    const IdxArray a = read_idx(dir.file(name), 3);
    EXPECT_EQ(a.dims, (std::vector<std::int64_t>{3, 2, 2})) << name;
    EXPECT_EQ(a.data, pixels) << name;
  }
}

TEST(Idx, FindsTheRawOrTheGzipFile) {
  ScratchDir dir;
  EXPECT_EQ(find_idx_file(dir.path(), "labels"), "");
  write_bytes(dir.file("labels.gz"), idx_bytes({1}, {7}), true);
  EXPECT_EQ(find_idx_file(dir.path(), "labels"), dir.file("labels.gz"));
  write_bytes(dir.file("labels"), idx_bytes({1}, {7}));
  EXPECT_EQ(find_idx_file(dir.path(), "labels"), dir.file("labels"));
}

TEST(Idx, EveryMalformedFileIsAnErrorNamingFileAndProblem) {
  ScratchDir dir;
  const auto idx = [&](const std::string& name, int dims = 1) {
    return error_of([&] { read_idx(dir.file(name), static_cast<std::size_t>(dims)); });
  };
  EXPECT_NE(idx("absent").find(dir.file("absent") + ": missing file"), std::string::npos);
  write_bytes(dir.file("magic"), {0x12, 0x34, 0x08, 0x01, 0, 0, 0, 1, 5});
  EXPECT_NE(idx("magic").find("bad magic number 0x12340801"), std::string::npos);
  write_bytes(dir.file("type"), {0, 0, 0x0D, 0x01, 0, 0, 0, 1, 0, 0, 0, 0});
  EXPECT_NE(idx("type").find("unsupported IDX data type 0x0d"), std::string::npos);
  write_bytes(dir.file("dims"), idx_bytes({1, 1}, {5}));
  EXPECT_NE(idx("dims").find("has 2 dimensions, expected 1"), std::string::npos);
  write_bytes(dir.file("short"), idx_bytes({4}, {1, 2}));
  EXPECT_NE(idx("short").find("truncated: the header declares 4 bytes of data, the file has 2"),
            std::string::npos);
  // Three sizes of 2^28 multiply to 2^84, which wrapped to 0 in 64 bits before the per-dimension
  // check, so a header alone read as an empty array (found by reasoning after fuzz_csv's find).
  write_bytes(dir.file("overflow"), idx_bytes({1 << 28, 1 << 28, 1 << 28}, {}));
  EXPECT_NE(idx("overflow", 3).find("truncated: the header declares at least"), std::string::npos);
  write_bytes(dir.file("long"), idx_bytes({1}, {1, 2, 3}));
  EXPECT_NE(idx("long").find("header/size mismatch"), std::string::npos);
  write_bytes(dir.file("header"), {0, 0, 0x08});
  EXPECT_NE(idx("header").find("truncated: no IDX header"), std::string::npos);
  write_bytes(dir.file("cut_header"), {0, 0, 0x08, 0x03, 0, 0});
  EXPECT_NE(idx("cut_header", 3).find("truncated: the header needs 16 bytes"), std::string::npos);
}

TEST(Idx, CorruptAndTruncatedGzipAreErrors) {
  ScratchDir dir;
  std::vector<std::uint8_t> pixels(5000);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 7);
  write_bytes(dir.file("good.gz"), idx_bytes({5000}, pixels), true);
  std::ifstream in(dir.file("good.gz"), std::ios::binary);
  std::vector<std::uint8_t> packed((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  ASSERT_GT(packed.size(), 40u);

  std::vector<std::uint8_t> flipped = packed;
  for (std::size_t i = 20; i < 30; ++i) flipped[i] ^= 0xFF;  // inside the deflate stream
  write_bytes(dir.file("corrupt.gz"), flipped);
  EXPECT_NE(error_of([&] { read_idx(dir.file("corrupt.gz"), 1); }).find("corrupt gzip data"),
            std::string::npos);

  write_bytes(dir.file("cut.gz"),
              std::vector<std::uint8_t>(packed.begin(), packed.begin() + packed.size() / 2));
  const std::string cut = error_of([&] { read_idx(dir.file("cut.gz"), 1); });
  EXPECT_NE(cut.find(dir.file("cut.gz")), std::string::npos) << cut;
  EXPECT_TRUE(cut.find("corrupt gzip data") != std::string::npos ||
              cut.find("truncated") != std::string::npos)
      << cut;
}

TEST(Cifar, ReadsRecordsOfLabelAndChannelMajorPixels) {
  ScratchDir dir;
  write_bytes(dir.file("data_batch_1.bin"), testing::cifar_bytes(12));
  const CifarBatch b = read_cifar_batch(dir.file("data_batch_1.bin"));
  EXPECT_EQ(b.count, 12u);
  EXPECT_EQ(b.labels[11], 1);
  EXPECT_EQ(b.pixels.size(), 12u * 3072u);
  EXPECT_EQ(b.pixels[11 * 3072 + 2 * 1024], 1 * 10 + 2);  // record 11, channel 2
}

TEST(Cifar, EveryMalformedFileIsAnErrorNamingFileAndProblem) {
  ScratchDir dir;
  const auto cifar = [&](const std::string& name) {
    return error_of([&] { read_cifar_batch(dir.file(name)); });
  };
  EXPECT_NE(cifar("absent.bin").find("absent.bin: missing file"), std::string::npos);
  write_bytes(dir.file("empty.bin"), {});
  EXPECT_NE(cifar("empty.bin").find("empty file"), std::string::npos);
  auto bytes = testing::cifar_bytes(3);
  bytes.pop_back();
  write_bytes(dir.file("cut.bin"), bytes);
  EXPECT_NE(cifar("cut.bin").find("not a whole number of 3073-byte records"), std::string::npos);
  bytes = testing::cifar_bytes(3);
  bytes[3073] = 11;
  write_bytes(dir.file("label.bin"), bytes);
  EXPECT_NE(cifar("label.bin").find("record 1 has label 11"), std::string::npos);
}

}  // namespace
}  // namespace crossover
