// Iris and Boston: the seeded split, dataset_size resampling and the synthetic fallback.
#include <gtest/gtest.h>

#include "tests/test_support.hpp"
#include "workloads/data/catalog.hpp"
#include "workloads/data/tabular.hpp"

namespace crossover {
namespace {

TEST(Tabular, SplitsSeventyFiveTwentyFiveLikeScikitLearn) {
  const CsvTable iris = synthetic_table("iris", 0);
  const TensorData d = split_table(iris, true, kFull, 0);
  EXPECT_EQ(d.x_train.size(0), 112);
  EXPECT_EQ(d.x_test.size(0), 38);
  EXPECT_EQ(d.y_train.scalar_type(), torch::kLong);
  EXPECT_EQ(d.y_train.dim(), 1);
  const TensorData b = split_table(synthetic_table("boston", 0), false, kFull, 0);
  EXPECT_EQ(b.x_train.size(0), 379);
  EXPECT_EQ(b.x_test.size(0), 127);
  EXPECT_EQ(b.y_train.sizes(), (std::vector<std::int64_t>{379, 1}));  // the model's output shape
  // The declaration (which the shard estimate and `crossover list` read) says the same.
  EXPECT_EQ(dataset_info("iris").train_rows(), 112);
  EXPECT_EQ(dataset_info("iris").test_rows(), 38);
  EXPECT_EQ(dataset_info("boston").train_rows(), 379);
  EXPECT_EQ(dataset_info("boston").test_rows(), 127);
}

// docs/development.md, "Adding a data set": a table declared once is read by the tabular reader.
TEST(Tabular, AThrowAwayDataSetIsReadAsItsDeclarationSays) {
  DatasetInfo tiny;
  tiny.name = "tiny";
  tiny.location = "tiny.csv";
  tiny.rows = 8;
  tiny.features = 2;
  tiny.classes = 2;
  const ScopedDataset declared(tiny);
  testing::ScratchDir dir;
  const TensorData synthetic_only = [&] {
    try {
      return load_tabular("tiny", dir.path(), kFull, 0);
    } catch (const std::exception&) {
      return TensorData{};  // no synthetic stand-in of its own: the reader says so
    }
  }();
  EXPECT_FALSE(synthetic_only.x_train.defined());
  dir.write("tiny.csv", "8,2,a,b\n0,1,0\n1,0,1\n0,2,0\n2,0,1\n0,3,0\n3,0,1\n0,4,0\n4,0,1\n");
  const TensorData d = load_tabular("tiny", dir.path(), kFull, 0);
  EXPECT_EQ(d.data_source, DataSource::kReal);
  EXPECT_EQ(d.x_train.sizes(), (std::vector<std::int64_t>{6, 2}));
  EXPECT_EQ(d.x_test.sizes(), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(d.y_train.scalar_type(), torch::kLong);  // two classes: a classification target
}

TEST(Tabular, TheSplitIsSeededAndTheTestSetNeverMeetsTraining) {
  const CsvTable t = synthetic_table("iris", 0);
  const TensorData a = split_table(t, true, kFull, 5);
  const TensorData b = split_table(t, true, kFull, 5);
  const TensorData c = split_table(t, true, kFull, 6);
  EXPECT_TRUE(torch::equal(a.x_train, b.x_train));
  EXPECT_FALSE(torch::equal(a.x_train, c.x_train));
  // No test row appears among the training rows (synthetic rows are all distinct).
  const torch::Tensor distances = torch::cdist(a.x_test, a.x_train);
  EXPECT_GT(distances.min().item<float>(), 0.0f);
}

TEST(Tabular, DatasetSizeShrinksAndGrowsTheTrainingSplitOnly) {
  const CsvTable t = synthetic_table("boston", 1);
  const TensorData small = split_table(t, false, 100, 0);
  EXPECT_EQ(small.x_train.size(0), 100);
  EXPECT_EQ(small.x_test.size(0), 127);
  const TensorData big = split_table(t, false, 1000000, 0);
  EXPECT_EQ(big.x_train.size(0), 1000000);
  EXPECT_EQ(big.y_train.size(0), 1000000);
  EXPECT_EQ(big.x_test.size(0), 127);
  // Grown rows repeat real rows: every one of the first 379 is there, in order.
  const TensorData full = split_table(t, false, kFull, 0);
  EXPECT_TRUE(torch::equal(big.x_train.slice(0, 0, 379), full.x_train));
}

TEST(Tabular, RealFilesAreUsedWhenPresentAndSyntheticOtherwise) {
  testing::ScratchDir empty;
  const TensorData synthetic = load_tabular("iris", empty.path(), kFull, 0);
  EXPECT_EQ(synthetic.data_source, DataSource::kSynthetic);
  if (!testing::have_real_data("iris.csv")) GTEST_SKIP() << "no real data";
  const TensorData real = load_tabular("iris", testing::data_dir(), kFull, 0);
  EXPECT_EQ(real.data_source, DataSource::kReal);
  EXPECT_EQ(real.x_train.size(0), 112);
  EXPECT_EQ(std::get<0>(at::_unique(real.y_train)).numel(), 3);
}

TEST(Tabular, AMalformedRealFileIsAnErrorNotSilentlySynthetic) {
  testing::ScratchDir dir;
  dir.write("boston_house_prices.csv", "506,13\nnot,a,number\n");
  EXPECT_THROW(load_tabular("boston", dir.path(), kFull, 0), std::runtime_error);
}

}  // namespace
}  // namespace crossover
