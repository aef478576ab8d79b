// The one writer of files: whole or not at all, never through a link, and a result whose text is
// not UTF-8 is still written.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/files/file_writer.hpp"
#include "core/records/result_files.hpp"
#include "core/records/results.hpp"
#include "tests/test_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::slurp;

TEST(FileWriter, ReplacesAFileWholeAndLeavesNoTemporary) {
  ScratchDir dir;
  const std::string path = dir.write("report.md", "old\n");
  write_text_file(path, "new\n");
  EXPECT_EQ(slurp(path), "new\n");
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "report.md");
  }
  EXPECT_EQ(files, 1u);
}

TEST(FileWriter, RefusesALinkOrAFolderAndTouchesNeither) {
  ScratchDir dir;
  const std::string victim = dir.write("victim", "precious\n");
  fs::create_symlink(victim, dir.file("link"));
  try {
    write_text_file(dir.file("link"), "overwritten\n");
    ADD_FAILURE() << "wrote through a link";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is a symbolic link -> " + victim +
                                         "; crossover never writes through a link"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_TRUE(fs::is_symlink(dir.file("link")));
  fs::create_directory(dir.file("folder"));
  EXPECT_THROW(write_text_file(dir.file("folder"), "x"), std::runtime_error);
  EXPECT_THROW(AppendFile(dir.file("link"), "x"), std::runtime_error);
  EXPECT_EQ(slurp(victim), "precious\n");
}

TEST(FileWriter, AppendsAfterTheFirstText) {
  ScratchDir dir;
  AppendFile file(dir.file("results.jsonl"), "a\n");
  file.append("b\n");
  AppendFile moved = std::move(file);
  moved.append("c\n");
  EXPECT_EQ(slurp(dir.file("results.jsonl")), "a\nb\nc\n");
}

TEST(FileWriter, AResultWhoseReasonIsNotUtf8IsWrittenWithAReplacement) {
  ScratchDir dir;
  Result r;
  r.status = CellStatus::kFailed;
  r.reason = "cannot read /data/caf\xe9.csv";  // Latin-1, not UTF-8
  {
    ResultFiles files(dir.path());
    files.append(r);  // nlohmann's dump would throw here
  }
  const auto back = read_results(dir.file("results.jsonl"));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].reason, "cannot read /data/caf\xef\xbf\xbd.csv");
}

}  // namespace
}  // namespace crossover
