#pragma once
// Helpers shared by the tests: a scratch directory per test, reading a file whole, and the real
// data directory.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/files/user_files.hpp"
#include "workloads/data/catalog.hpp"

namespace crossover::testing {

/// COLUMNS=0 for every command a test starts: crossover prints each sentence on one line, as the
/// tests look for them. A test of the wrapping sets COLUMNS on its command (`COLUMNS=` for a
/// pipe's 100 columns).
inline const bool kSentencesOnOneLine = ::setenv("COLUMNS", "0", 1) == 0;

/// The environment that lets the binary run the tests' stand-in workload.
inline const std::string kStandin = std::string(kTestWorkloadsVariable) + "=1";

/// A fresh directory for one test, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // A parameterised test's names hold '/' ("Errors/ErrorsCommand", "Exits…/unknown_key").
    std::string name = "crossover-test-" + std::string(info->test_suite_name()) + "-" +
                       info->name() + "-" + std::to_string(::getpid());
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = std::filesystem::temp_directory_path() / name;
    remove_tree(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { remove_tree(path_); }
  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name), std::ios::binary) << text;
    return file(name);
  }

 private:
  std::filesystem::path path_;
};

/// The whole text of a file ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The real data sets' directory: $CROSSOVER_DATA_DIR, else the source tree's data/.
inline std::string data_dir() {
  const char* env = std::getenv("CROSSOVER_DATA_DIR");
  return env != nullptr ? env : std::string(CROSSOVER_SOURCE_DIR) + "/data";
}

/// True when `file` exists under data_dir(). Otherwise the test is skipped, or fails when
/// CROSSOVER_REQUIRE_REAL_DATA is set (scripts/test.sh sets it, after fetching the data).
inline bool have_real_data(const std::string& file) {
  if (std::filesystem::exists(data_dir() + "/" + file)) return true;
  if (std::getenv("CROSSOVER_REQUIRE_REAL_DATA") != nullptr) {
    ADD_FAILURE() << data_dir() << "/" << file << " is missing; run scripts/fetch-data.sh";
  }
  return false;
}

}  // namespace crossover::testing
