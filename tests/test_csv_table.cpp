// The scikit-learn CSV reader on the real files and on every kind of malformed one.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/test_support.hpp"
#include "workloads/data/csv_table.hpp"

namespace crossover {
namespace {

using testing::ScratchDir;

std::string error_of(const std::string& path, std::size_t features = 0) {
  try {
    read_sklearn_csv(path, features);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " was accepted";
  return "";
}

TEST(CsvTable, ReadsTheRealIris) {
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real iris.csv";
  const CsvTable t = read_sklearn_csv(testing::data_dir() + "/iris.csv", 4);
  EXPECT_EQ(t.rows, 150u);
  EXPECT_EQ(t.features, 4u);
  EXPECT_EQ(t.x.size(), 600u);
  EXPECT_EQ(t.class_names, (std::vector<std::string>{"setosa", "versicolor", "virginica"}));
  EXPECT_FLOAT_EQ(t.x[0], 5.1f);  // first row: 5.1,3.5,1.4,0.2,0
  EXPECT_FLOAT_EQ(t.y[0], 0.0f);
  EXPECT_FLOAT_EQ(t.y[149], 2.0f);
}

TEST(CsvTable, ReadsTheRealBostonWithItsLineOfColumnNames) {
  if (!testing::have_real_data("boston_house_prices.csv")) GTEST_SKIP() << "no real Boston CSV";
  const CsvTable t = read_sklearn_csv(testing::data_dir() + "/boston_house_prices.csv", 13);
  EXPECT_EQ(t.rows, 506u);
  EXPECT_EQ(t.features, 13u);
  EXPECT_FLOAT_EQ(t.x[0], 0.00632f);  // CRIM of the first row
  EXPECT_FLOAT_EQ(t.y[0], 24.0f);     // MEDV of the first row
}

TEST(CsvTable, ReadsASmallFileInTheSameFormat) {
  ScratchDir dir;
  const CsvTable t = read_sklearn_csv(dir.write("t.csv", "2,2,a,b\r\n1,2,0\r\n3.5,-4e-1,1\r\n"));
  EXPECT_EQ(t.rows, 2u);
  EXPECT_EQ(t.x, (std::vector<float>{1, 2, 3.5f, -0.4f}));
  EXPECT_EQ(t.y, (std::vector<float>{0, 1}));
}

TEST(CsvTable, EveryMalformedFileIsAnErrorNamingFileLineAndProblem) {
  ScratchDir dir;
  EXPECT_NE(error_of(dir.file("absent.csv")).find("absent.csv: cannot open"), std::string::npos);
  EXPECT_NE(error_of(dir.write("empty.csv", "")).find("empty.csv:1: empty file"),
            std::string::npos);
  EXPECT_NE(
      error_of(dir.write("header.csv", "rows,cols\n1,2,3\n")).find("header.csv:1: bad header"),
      std::string::npos);
  EXPECT_NE(error_of(dir.write("features.csv", "1,3\n1,2,3,4\n"), 4)
                .find("declares 3 features, expected 4"),
            std::string::npos);
  EXPECT_NE(
      error_of(dir.write("short.csv", "2,2\n1,2,0\n1,2\n")).find("short.csv:3: expected 3 values"),
      std::string::npos);
  EXPECT_NE(error_of(dir.write("nan.csv", "1,2\n1,abc,0\n"))
                .find("nan.csv:2: column 2 is not a finite number"),
            std::string::npos);
  EXPECT_NE(error_of(dir.write("inf.csv", "1,2\n1,inf,0\n")).find("not a finite number"),
            std::string::npos);
  // Found by fuzz_csv: the header's counts sized a reserve(), so a typo there asked for gigabytes
  // (or threw std::length_error, which is no message for the user).
  EXPECT_NE(error_of(dir.write("huge.csv", "999999999,999999999\n1,2\n"))
                .find("huge.csv:2: expected 1000000000 values"),
            std::string::npos);
  EXPECT_NE(error_of(dir.write("truncated.csv", "3,2\n1,2,0\n1,2,0\n"))
                .find("truncated: the header declares 3 rows, the file has 2"),
            std::string::npos);
  EXPECT_NE(error_of(dir.write("long.csv", "1,2\n1,2,0\n1,2,0\n")).find("long.csv:3: more rows"),
            std::string::npos);
}

}  // namespace
}  // namespace crossover
