#pragma once
// Reader for scikit-learn's bundled CSV data sets (iris.csv, boston_house_prices.csv): a first
// line "n_samples,n_features[,class names...]", an optional line of column names, then rows of
// n_features values and one target.

#include <string>
#include <vector>

namespace crossover {

/// A numeric table: row-major features and one target per row.
struct CsvTable {
  std::size_t rows = 0;
  std::size_t features = 0;
  std::vector<float> x;                  ///< rows * features values
  std::vector<float> y;                  ///< rows values
  std::vector<std::string> class_names;  ///< from the first line, when it lists them
};

/// Reads and checks a scikit-learn CSV. `expected_features` (0 = any) must match the header.
/// Throws std::runtime_error naming the file, the line and what is wrong.
CsvTable read_sklearn_csv(const std::string& path, std::size_t expected_features = 0);

}  // namespace crossover
