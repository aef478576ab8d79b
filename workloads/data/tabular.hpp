#pragma once
// Iris and Boston housing (seed 001): the real scikit-learn CSVs when present, a synthetic data
// set of the same shape when not; a seeded 75/25 split; `dataset_size` resampling of the
// training split.

#include <cstdint>
#include <string>

#include "workloads/data/csv_table.hpp"
#include "workloads/data/data.hpp"
#include "workloads/data/datasets.hpp"

namespace crossover {

/// A synthetic table shaped like `dataset` ("iris": 150x4, 3 classes; "boston": 506x13) whose
/// targets follow its features, so a model can learn it.
CsvTable synthetic_table(const std::string& dataset, std::int64_t seed);

/// The generic `mlp` workload's data: rows of `features` Gaussian features around one random
/// centre per class (`classes` of them, equally likely), 5,462 rows before the 75/25 split (4,096
/// training rows, then resized to `dataset_size` as every table is); seeded.
TensorData synthetic_classes(int features, int classes, std::int64_t dataset_size,
                             std::int64_t seed);

/// Splits a table 75/25 (test rows = ceil(25 %), as scikit-learn does) with a seeded shuffle,
/// then grows or shrinks the training split to `dataset_size` rows (kFull keeps it): fewer rows
/// are a seeded subsample, more rows repeat the split's rows drawn with replacement.
TensorData split_table(const CsvTable& table, bool classification, std::int64_t dataset_size,
                       std::int64_t seed);

/// The data set for a cell: its file under data_dir (datasets.hpp) or, when that file does not
/// exist, the synthetic table. A file that exists but is malformed is an error, never replaced.
TensorData load_tabular(const std::string& dataset, const std::string& data_dir,
                        std::int64_t dataset_size, std::int64_t seed);

}  // namespace crossover
