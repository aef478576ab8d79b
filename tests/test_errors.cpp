// docs/errors.md, end to end: every entry's files are written to a scratch directory, its command
// is run with the built crossover first on PATH, and the exit code and the message must be what
// the page says. Entries planted by another end-to-end test (signals, a full disk) must name a test
// that exists and asserts the same message.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tests/test_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::slurp;

struct Entry {
  std::string id;
  std::vector<std::pair<std::string, std::string>> files;  // path, content
  std::string command;
  int exit_code = -1;
  std::string message;  // lines; "…" stands for varying text
  std::string planted_by;
};

std::vector<Entry> catalogue() {
  std::istringstream in(slurp(std::string(CROSSOVER_SOURCE_DIR) + "/docs/errors.md"));
  const std::regex heading("^### `([a-z0-9-]+)`.*");
  const std::regex exit_code("^Exit code: \\*\\*([0-9]+)\\*\\*");
  const std::regex planted("Planted by the end-to-end test `([A-Za-z]+)\\.([A-Za-z0-9_]+)`");
  std::vector<Entry> entries;
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, m, heading)) {
      entries.emplace_back();
      entries.back().id = m[1];
      continue;
    }
    if (entries.empty()) continue;
    Entry& e = entries.back();
    if (std::regex_search(line, m, exit_code)) e.exit_code = std::stoi(m[1]);
    if (std::regex_search(line, m, planted)) e.planted_by = std::string(m[1]) + ", " + m[2].str();
    if (line.rfind("```", 0) != 0 || line.size() == 3) continue;
    const std::string info = line.substr(3);
    std::string body;
    while (std::getline(in, line) && line != "```") body += line + "\n";
    if (info.rfind("file ", 0) == 0) e.files.emplace_back(info.substr(5), body);
    if (info == "command") e.command = body;
    if (info == "stderr") e.message = body;
  }
  return entries;
}

// Whether every line of `message` occurs in `output`, its "…"-separated parts in order.
std::string first_missing(const std::string& message, const std::string& output) {
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) {
    std::size_t at = 0;
    for (std::size_t start = 0; start <= line.size();) {
      const std::size_t gap = line.find("…", start);
      const std::string part =
          line.substr(start, gap == std::string::npos ? std::string::npos : gap - start);
      if (!part.empty()) {
        at = output.find(part, at);
        if (at == std::string::npos) return part;
        at += part.size();
      }
      if (gap == std::string::npos) break;
      start = gap + std::string("…").size();
    }
  }
  return "";
}

// The test sources with adjacent string literals joined, as the compiler sees them.
std::string test_sources() {
  std::string text;
  for (const auto& file : fs::directory_iterator(std::string(CROSSOVER_SOURCE_DIR) + "/tests")) {
    if (file.path().extension() == ".cpp") text += slurp(file.path().string());
  }
  return std::regex_replace(text, std::regex("\"\\s*\\n\\s*\""), "");
}

TEST(Errors, TheCatalogueIsWellFormed) {
  const auto entries = catalogue();
  EXPECT_GE(entries.size(), 40u);
  std::set<std::string> ids;
  for (const auto& e : entries) {
    EXPECT_TRUE(ids.insert(e.id).second) << "two entries named " << e.id;
    // 0 for a warning the page shows (the command still does its job), else an error's code.
    EXPECT_TRUE(e.exit_code == 0 || e.exit_code == 1 || e.exit_code == 2 || e.exit_code == 130)
        << e.id;
    EXPECT_FALSE(e.message.empty()) << e.id << " shows no message";
    EXPECT_NE(e.command.empty(), e.planted_by.empty())
        << e.id << ": needs either a command or the test that plants it";
  }
}

TEST(Errors, EveryEntryPlantedByAnotherTestNamesOneThatAssertsItsMessage) {
  const std::string sources = test_sources();
  for (const auto& e : catalogue()) {
    if (e.planted_by.empty()) continue;
    const std::size_t at = sources.find("TEST(" + e.planted_by + ")");
    ASSERT_NE(at, std::string::npos) << e.id << ": no test " << e.planted_by;
    const std::size_t end = sources.find("\nTEST(", at + 1);
    const std::string body = sources.substr(at, end == std::string::npos ? end : end - at);
    std::string message = e.message;
    message.erase(message.find_last_not_of('\n') + 1);
    EXPECT_NE(body.find(message), std::string::npos)
        << e.id << ": " << e.planted_by << " does not assert \"" << message << "\"";
  }
}

// The entries with a command, one test each, so that ctest runs them side by side (in one test they
// took 156 s on the VM and were the whole suite's longest wait on a 16-core GPU host).
std::vector<Entry> commands() {
  std::vector<Entry> entries;
  for (auto& e : catalogue()) {
    if (!e.command.empty()) entries.push_back(std::move(e));
  }
  return entries;
}

void PrintTo(const Entry& e, std::ostream* out) { *out << e.id; }

TEST(Errors, TheCatalogueHasACommandForMostEntries) { EXPECT_GE(commands().size(), 30u); }

class ErrorsCommand : public ::testing::TestWithParam<Entry> {};

TEST_P(ErrorsCommand, ExitsAndSaysWhatTheCataloguePromises) {
  const Entry& e = GetParam();
  const std::string binary_dir = fs::path(CROSSOVER_BINARY).parent_path().string();
  ScratchDir dir;
  for (const auto& [path, content] : e.files) {
    fs::create_directories(fs::path(dir.file(path)).parent_path());
    dir.write(path, content);
  }
  const std::string script = dir.write("command.sh", e.command);
  // As a user's shell would run it: crossover first on PATH, no CROSSOVER_DATA_DIR of the tests.
  const std::string shell = "cd " + dir.path() + " && CROSSOVER_DATA_DIR= PATH=" + binary_dir +
                            ":$PATH bash command.sh >output 2>&1 </dev/null";
  const int status = std::system(shell.c_str());
  const std::string output = slurp(dir.file("output"));
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, e.exit_code) << e.id << "\n" << output;
  const std::string missing = first_missing(e.message, output);
  EXPECT_EQ(missing, "") << e.id << ": the output lacks this part of the message\n" << output;
}

// Named by the entry's id ("unknown-key" runs as Errors/ErrorsCommand.….../unknown_key).
INSTANTIATE_TEST_SUITE_P(Errors, ErrorsCommand, ::testing::ValuesIn(commands()),
                         [](const ::testing::TestParamInfo<Entry>& info) {
                           std::string name = info.param.id;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace crossover
