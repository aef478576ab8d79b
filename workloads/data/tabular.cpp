#include "workloads/data/tabular.hpp"

#include <array>
#include <cmath>
#include <numeric>
#include <random>

#include "workloads/data/catalog.hpp"

namespace crossover {
namespace {

torch::Tensor gather_rows(const std::vector<float>& values, std::size_t width,
                          const std::vector<std::int64_t>& rows) {
  torch::Tensor out =
      torch::empty({static_cast<std::int64_t>(rows.size()), static_cast<std::int64_t>(width)});
  float* dst = out.data_ptr<float>();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::copy_n(
        values.begin() + static_cast<std::ptrdiff_t>(rows[r] * static_cast<std::int64_t>(width)),
        width, dst + r * width);
  }
  return out;
}

CsvTable synthetic_iris(std::mt19937_64& rng) {
  // Per-class means and spreads of the real Iris measurements (cm).
  const std::array<std::array<float, 4>, 3> mean = {
      {{5.01f, 3.43f, 1.46f, 0.25f}, {5.94f, 2.77f, 4.26f, 1.33f}, {6.59f, 2.97f, 5.55f, 2.03f}}};
  const std::array<std::array<float, 4>, 3> spread = {
      {{0.35f, 0.38f, 0.17f, 0.11f}, {0.52f, 0.31f, 0.47f, 0.20f}, {0.64f, 0.32f, 0.55f, 0.27f}}};
  CsvTable t;
  t.rows = static_cast<std::size_t>(dataset_info("iris").rows);
  t.features = mean.front().size();
  t.class_names = {"setosa", "versicolor", "virginica"};
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (std::size_t r = 0; r < t.rows; ++r) {
    const std::size_t k = r * 3 / t.rows;
    for (std::size_t f = 0; f < 4; ++f) t.x.push_back(mean[k][f] + spread[k][f] * normal(rng));
    t.y.push_back(static_cast<float>(k));
  }
  return t;
}

CsvTable synthetic_boston(std::mt19937_64& rng) {
  // Means and spreads of the real columns, unscaled as in the seed; the price follows rooms,
  // lower-status share and pupil-teacher ratio, as the real one does, plus noise.
  const std::array<float, 13> mean = {3.6f, 11.4f, 11.1f,  0.07f, 0.55f,  6.28f, 68.6f,
                                      3.8f, 9.5f,  408.2f, 18.5f, 356.7f, 12.7f};
  const std::array<float, 13> spread = {8.6f, 23.3f, 6.9f,   0.25f, 0.12f, 0.70f, 28.1f,
                                        2.1f, 8.7f,  168.5f, 2.2f,  91.3f, 7.1f};
  CsvTable t;
  t.rows = static_cast<std::size_t>(dataset_info("boston").rows);
  t.features = mean.size();
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (std::size_t r = 0; r < t.rows; ++r) {
    std::array<float, 13> z{};
    for (std::size_t f = 0; f < 13; ++f) {
      z[f] = normal(rng);
      t.x.push_back(mean[f] + spread[f] * z[f]);
    }
    const float price = 22.5f + 5.0f * z[5] - 6.0f * z[12] - 2.0f * z[10] + 3.0f * normal(rng);
    t.y.push_back(std::min(50.0f, std::max(5.0f, price)));
  }
  return t;
}

// The test-only stand-in: 64 rows of three well-separated classes, four features.
CsvTable synthetic_standin(std::mt19937_64& rng) {
  CsvTable t;
  t.rows = static_cast<std::size_t>(dataset_info("standin").rows);
  t.features = 4;
  t.class_names = {"a", "b", "c"};
  std::normal_distribution<float> normal(0.0f, 0.5f);
  for (std::size_t r = 0; r < t.rows; ++r) {
    const std::size_t k = r % 3;
    for (std::size_t f = 0; f < 4; ++f) t.x.push_back((f == k ? 3.0f : 0.0f) + normal(rng));
    t.y.push_back(static_cast<float>(k));
  }
  return t;
}

}  // namespace

CsvTable synthetic_table(const std::string& dataset, std::int64_t seed) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed) ^ 0x5eedda7aULL);
  if (dataset == "iris") return synthetic_iris(rng);
  if (dataset == "boston") return synthetic_boston(rng);
  if (dataset == "standin") return synthetic_standin(rng);
  throw std::invalid_argument("no synthetic data set called \"" + dataset + "\"");
}

TensorData synthetic_classes(int features, int classes, std::int64_t dataset_size,
                             std::int64_t seed) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed) ^ 0xc1a55e5ULL);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const auto f = static_cast<std::size_t>(features);
  // Centres two standard deviations apart on average in each feature: learnable, not trivial.
  std::vector<float> centres(static_cast<std::size_t>(classes) * f);
  for (float& c : centres) c = 1.4f * normal(rng);
  CsvTable t;
  // The rows the catalog declares: its training rows, and its test rows after the 75/25 split.
  const WorkloadInfo& sized = *find_workload(kSizedMlpWorkload);
  t.rows = static_cast<std::size_t>(sized.made_train_rows + sized.made_test_rows);
  t.features = f;
  std::uniform_int_distribution<int> any_class(0, classes - 1);
  t.x.reserve(t.rows * f);
  for (std::size_t r = 0; r < t.rows; ++r) {
    const auto k = static_cast<std::size_t>(any_class(rng));
    for (std::size_t j = 0; j < f; ++j) t.x.push_back(centres[k * f + j] + normal(rng));
    t.y.push_back(static_cast<float>(k));
  }
  TensorData data = split_table(t, true, dataset_size, seed);
  data.data_source = DataSource::kGenerated;  // made in memory by design: no real data set to fetch
  return data;
}

TensorData split_table(const CsvTable& table, bool classification, std::int64_t dataset_size,
                       std::int64_t seed) {
  const auto rows = static_cast<std::int64_t>(table.rows);
  TORCH_CHECK(rows >= 2, "a data set needs at least two rows to split");
  const std::vector<std::int64_t> order =
      seeded_permutation(rows, static_cast<std::uint64_t>(seed));
  const std::int64_t test_rows = table_test_rows(rows);
  std::vector<std::int64_t> test(order.begin(), order.begin() + test_rows);
  std::vector<std::int64_t> train(order.begin() + test_rows, order.end());

  TensorData data;
  data.x_train = gather_rows(table.x, table.features, train);
  data.x_test = gather_rows(table.x, table.features, test);
  torch::Tensor y_train = gather_rows(table.y, 1, train);
  torch::Tensor y_test = gather_rows(table.y, 1, test);
  if (classification) {
    data.y_train = y_train.squeeze(1).to(torch::kLong);
    data.y_test = y_test.squeeze(1).to(torch::kLong);
  } else {
    data.y_train = y_train;
    data.y_test = y_test;
  }
  resample_training(data, dataset_size, seed);
  return data;
}

TensorData load_tabular(const std::string& dataset, const std::string& data_dir,
                        std::int64_t dataset_size, std::int64_t seed) {
  const DatasetInfo& info = dataset_info(dataset);
  const DatasetFiles files = dataset_files(info, data_dir);
  const bool real = !files.paths.empty();
  const CsvTable table =
      real ? read_sklearn_csv(files.paths.front(), info.features) : synthetic_table(dataset, seed);
  TensorData data = split_table(table, info.classes > 0, dataset_size, seed);
  data.data_source = real ? DataSource::kReal : DataSource::kSynthetic;
  return data;
}

}  // namespace crossover
