// Files users hand in: only regular files, only up to a size, JSON only up to a depth and without
// a key given twice.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "core/files/user_files.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

using testing::ScratchDir;

std::string error_of(const std::string& path, std::uint64_t max_bytes = kMaxGridBytes) {
  try {
    read_user_file(path, max_bytes, "a grid");
  } catch (const UserFileError& e) {
    return e.what();
  }
  return "";
}

TEST(UserFiles, ReadsARegularFileWhole) {
  ScratchDir dir;
  const std::string text = std::string(5000, 'x') + "\n";
  EXPECT_EQ(read_user_file(dir.write("a.json", text), kMaxGridBytes, "a grid"), text);
}

TEST(UserFiles, RefusesWhatIsNotARegularFileWithoutWaitingOrReading) {
  ScratchDir dir;
  EXPECT_NE(error_of(dir.path()).find(": a directory, not a regular file; give a grid as a file"),
            std::string::npos)
      << error_of(dir.path());
  // A FIFO with no writer: opening it for reading would block forever.
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_NE(error_of(fifo).find("a FIFO (named pipe), not a regular file"), std::string::npos);
  // /dev/zero never ends: reading it would grow without limit.
  EXPECT_NE(error_of("/dev/zero").find("a character device, not a regular file"),
            std::string::npos);
  EXPECT_THROW(check_regular_file(fifo, kMaxGridBytes, "a CSV data set"), UserFileError);
  EXPECT_NE(error_of(dir.file("missing")).find("No such file or directory"), std::string::npos);
}

TEST(UserFiles, RefusesAFileOverItsLimitNamingTheLimit) {
  ScratchDir dir;
  const std::string path = dir.write("big.json", std::string(2048, ' '));
  EXPECT_EQ(error_of(path, 1024), path + ": 2048 bytes, over the limit of 1024 bytes for a grid");
  EXPECT_EQ(error_of(path, 2048), "");
  EXPECT_EQ(bytes_text(16 * kMiB), "16 MiB");
  EXPECT_EQ(bytes_text(1024 * kMiB), "1 GiB");
}

TEST(UserFiles, NestingDeeperThanTheLimitIsAProblemAtItsPath) {
  EXPECT_FALSE(check_json_shape(std::string(64, '[') + std::string(64, ']')));
  const auto deep = check_json_shape(std::string(65, '[') + std::string(65, ']'));
  ASSERT_TRUE(deep);
  EXPECT_NE(deep->message.find("nested more than 64 deep"), std::string::npos);
  // 100,000 arrays, as a hostile grid: no recursion, no crash, the same answer.
  const auto hostile = check_json_shape(std::string(100000, '['));
  ASSERT_TRUE(hostile);
  EXPECT_EQ(hostile->path.substr(0, 9), "[0][0][0]");
  const auto in_object = check_json_shape(R"({"experiments": [{"grid": )" + std::string(70, '[') +
                                          "1" + std::string(70, ']') + "}]}");
  ASSERT_TRUE(in_object);
  EXPECT_EQ(in_object->path.substr(0, 25), "experiments[0].grid[0][0]");
}

TEST(UserFiles, AKeyGivenTwiceInOneObjectIsAProblemAtItsPath) {
  const auto twice = check_json_shape(R"({"grid": {"batch_size": [1, 2], "batch_size": [3]}})");
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->path, "grid.batch_size");
  EXPECT_NE(twice->message.find("the key \"batch_size\" is given twice in one object"),
            std::string::npos);
  const auto in_array = check_json_shape(
      R"({"experiments": [{"workload": "a"}, {"workload": "a", "grid": {}, "workload": "b"}]})");
  ASSERT_TRUE(in_array);
  EXPECT_EQ(in_array->path, "experiments[1].workload");
  // The same key in different objects, escaped spellings of different keys, and broken JSON
  // (left to the parser) are no problem here.
  EXPECT_FALSE(check_json_shape(R"({"a": {"x": 1}, "b": {"x": 2}, "x": [{"x": 3}]})"));
  EXPECT_FALSE(check_json_shape(R"({"a": 1, "b": )"));
  // One key written two ways is still one key twice.
  EXPECT_TRUE(check_json_shape(R"({"ab": 1, "a\u0062": 2})"));
}

}  // namespace
}  // namespace crossover
