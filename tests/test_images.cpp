// Image data sets from real-format files the tests write, the synthetic stand-ins, and the data
// path: the tensor loader and the DataLoader deliver every sample exactly once per epoch.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/idx_writer.hpp"
#include "tests/test_support.hpp"
#include "workloads/data/batches.hpp"
#include "workloads/data/catalog.hpp"
#include "workloads/data/images.hpp"

namespace crossover {
namespace {

using testing::ScratchDir;

TEST(Images, ReadsAnMnistDirectoryRawOrGzip) {
  for (const bool gzip : {false, true}) {
    ScratchDir dir;
    testing::write_mnist_directory(dir.path(), 30, 10, gzip);
    const TensorData d = read_mnist_directory(dir.path());
    EXPECT_EQ(d.x_train.sizes(), (std::vector<std::int64_t>{30, 1, 28, 28}));
    EXPECT_EQ(d.x_test.sizes(), (std::vector<std::int64_t>{10, 1, 28, 28}));
    EXPECT_EQ(d.x_train.scalar_type(), torch::kByte);
    EXPECT_EQ(d.y_train[13].item<std::int64_t>(), 3);
    EXPECT_EQ(d.x_train[13].max().item<int>(), 60);  // every pixel of a label-3 image is 60
    EXPECT_EQ(d.data_source, DataSource::kReal);
  }
}

TEST(Images, ReadsACifarDirectory) {
  ScratchDir dir;
  for (int b = 1; b <= 5; ++b) {
    testing::write_bytes(dir.file("data_batch_" + std::to_string(b) + ".bin"),
                         testing::cifar_bytes(4));
  }
  testing::write_bytes(dir.file("test_batch.bin"), testing::cifar_bytes(3));
  const TensorData d = read_cifar_directory(dir.path());
  EXPECT_EQ(d.x_train.sizes(), (std::vector<std::int64_t>{20, 3, 32, 32}));
  EXPECT_EQ(d.x_test.size(0), 3);
  EXPECT_EQ(d.x_train[7][2][31][31].item<int>(),
            3 * 10 + 2);  // 2nd file, record 3: label 3, channel 2
  EXPECT_EQ(d.y_train[7].item<std::int64_t>(), 3);
}

TEST(Images, InconsistentFilesAreErrorsNamingTheFile) {
  ScratchDir dir;
  testing::write_mnist_directory(dir.path(), 20, 10, false);
  // 20 training images but 5 labels.
  testing::write_bytes(dir.file("train-labels-idx1-ubyte"),
                       testing::idx_bytes({5}, {0, 1, 2, 3, 4}));
  try {
    read_mnist_directory(dir.path());
    FAIL() << "mismatched counts were accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("train-labels-idx1-ubyte: 5 labels for 20 images"),
              std::string::npos)
        << e.what();
  }
}

TEST(Images, SomeButNotAllFilesIsAnErrorNoneIsSynthetic) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.file("mnist"));
  testing::write_bytes(dir.file("mnist/train-labels-idx1-ubyte"), testing::idx_bytes({1}, {0}));
  EXPECT_THROW(load_images("mnist", dir.path(), 100, 0, {}, {}), std::runtime_error);
  const TensorData synthetic =
      load_images("cifar10", dir.path(), 100, 0, {0.5, 0.5, 0.5}, {0.2, 0.2, 0.2});
  EXPECT_EQ(synthetic.data_source, DataSource::kSynthetic);
  EXPECT_EQ(synthetic.x_train.sizes(), (std::vector<std::int64_t>{100, 3, 32, 32}));
  // Made at the cell's size, its test split in CIFAR-10's proportion (50,000:10,000).
  EXPECT_EQ(synthetic.x_test.size(0), 20);
  EXPECT_EQ(synthetic.mean.size(), 3u);
  // At its full size the stand-in is the real set's: 60,000 and 10,000 for MNIST.
  const TensorData full = load_images("mnist", dir.file("none"), kFull, 0, {}, {});
  EXPECT_EQ(full.x_train.size(0), 60000);
  EXPECT_EQ(full.x_test.size(0), 10000);
  EXPECT_EQ(load_images("mnist", dir.file("none"), 7, 0, {}, {}).x_test.size(0), 2);
}

TEST(Images, SyntheticClassesDifferSoAModelCanLearnThem) {
  const TensorData d = synthetic_images("mnist", 2000, 100, 0);
  const torch::Tensor x = d.x_train.to(torch::kFloat).flatten(1);
  const torch::Tensor zeros = x.index({d.y_train == 0}).mean(0);
  const torch::Tensor ones = x.index({d.y_train == 1}).mean(0);
  const torch::Tensor zeros_again = x.index({d.y_train == 0}).slice(0, 0, 50).mean(0);
  // Class means are far apart compared with two estimates of the same class mean.
  EXPECT_GT((zeros - ones).norm().item<float>(), 4 * (zeros - zeros_again).norm().item<float>());
}

TEST(Images, NormalisationMatchesTheSeedsTransform) {
  const torch::Tensor pixel = torch::full({1, 1, 1, 1}, 255, torch::kByte);
  EXPECT_NEAR(to_features(pixel, {0.1307}, {0.3081}).item<float>(), (1.0 - 0.1307) / 0.3081, 1e-5);
  EXPECT_FLOAT_EQ(to_features(pixel, {}, {}).item<float>(), 1.0f);    // ToTensor only
  const torch::Tensor image = torch::zeros({3, 2, 2}, torch::kByte);  // one sample, channels first
  const torch::Tensor f = to_features(image, {0.4914, 0.4822, 0.4465}, {0.2023, 0.1994, 0.2010});
  EXPECT_NEAR(f[2][0][0].item<float>(), -0.4465 / 0.2010, 1e-5);
}

// Training rows whose first feature is their own index, so batches reveal which rows came.
TensorData numbered(std::int64_t rows) {
  TensorData d;
  d.x_train = torch::arange(rows, torch::kFloat).unsqueeze(1).repeat({1, 3});
  d.y_train = torch::arange(rows, torch::kLong);
  d.x_test = d.x_train.slice(0, 0, 2);
  d.y_test = d.y_train.slice(0, 0, 2);
  return d;
}

std::vector<std::int64_t> one_epoch(BatchSource& source, std::int64_t& batches) {
  std::vector<std::int64_t> seen;
  torch::Tensor x, y;
  batches = 0;
  source.start_epoch();
  while (source.next(x, y)) {
    EXPECT_TRUE(
        torch::equal(x.select(1, 0).to(torch::kLong), y));  // features and targets stay paired
    for (std::int64_t i = 0; i < y.size(0); ++i) seen.push_back(y[i].item<std::int64_t>());
    ++batches;
  }
  std::sort(seen.begin(), seen.end());
  return seen;
}

TEST(DataPath, EveryLoaderDeliversEverySampleOncePerEpoch) {
  torch::manual_seed(0);
  const TensorData d = numbered(103);
  std::vector<std::int64_t> all(103);
  std::iota(all.begin(), all.end(), 0);
  struct Case {
    Loader loader;
    Placement placement;
    int workers;
  };
  for (const Case& c : std::vector<Case>{{Loader::kTensor, Placement::kDevice, 0},
                                         {Loader::kTensor, Placement::kHost, 0},
                                         {Loader::kDataLoader, Placement::kHost, 0},
                                         {Loader::kDataLoader, Placement::kHost, 2}}) {
    DataPath path;
    path.loader = c.loader;
    path.placement = c.placement;
    path.num_workers = c.workers;
    path.batch_size = 10;
    auto source = make_batches(d, path, torch::Device("cpu"));
    EXPECT_EQ(source->steps_per_epoch(), 11);
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::int64_t batches = 0;
      EXPECT_EQ(one_epoch(*source, batches), all) << c.loader << " workers=" << c.workers;
      EXPECT_EQ(batches, 11);
    }
  }
}

// The per-sample DataLoader path normalises each image as the tensor loader normalises them all:
// the same features, within float rounding, for every sample (uint8 CIFAR-like images, three
// channels).
TEST(DataPath, BothLoadersDeliverTheSameFeatures) {
  torch::manual_seed(0);
  TensorData d;
  d.x_train = torch::randint(0, 256, {12, 3, 2, 2}, torch::kByte);
  d.y_train = torch::arange(12, torch::kLong);
  d.x_test = d.x_train.slice(0, 0, 2);
  d.y_test = d.y_train.slice(0, 0, 2);
  d.mean = {0.4914, 0.4822, 0.4465};
  d.stdev = {0.2023, 0.1994, 0.2010};
  const torch::Tensor expected = to_features(d.x_train, d.mean, d.stdev);
  EXPECT_NEAR(expected[5][2][1][0].item<float>(),
              (d.x_train[5][2][1][0].item<float>() / 255.0 - 0.4465) / 0.2010, 1e-5);
  for (const Loader loader : {Loader::kTensor, Loader::kDataLoader}) {
    DataPath path;
    path.loader = loader;
    path.batch_size = 5;
    auto source = make_batches(d, path, torch::Device("cpu"));
    source->start_epoch();
    torch::Tensor x, y;
    std::int64_t seen = 0;
    while (source->next(x, y)) {
      ASSERT_EQ(x.scalar_type(), torch::kFloat);
      EXPECT_LT((x - expected.index_select(0, y)).abs().max().item<float>(), 1e-6) << loader;
      seen += y.size(0);
    }
    EXPECT_EQ(seen, 12) << loader;
  }
}

TEST(DataPath, EpochsAreShuffledDifferently) {
  torch::manual_seed(0);
  DataPath path;
  path.batch_size = 50;
  auto source = make_batches(numbered(100), path, torch::Device("cpu"));
  torch::Tensor x, y;
  source->start_epoch();
  source->next(x, y);
  const torch::Tensor first = y.clone();
  source->start_epoch();
  source->next(x, y);
  EXPECT_FALSE(torch::equal(first, y));
}

// A CUDA graph's captured inputs take the tensor loader's batches straight from the data on the
// device: the same rows, in the same shuffled order, as next() gives, and the epoch's end. One
// batch of everything and the DataLoader cannot, and say so.
TEST(DataPath, TheTensorLoaderGathersInPlaceTheRowsNextWouldGive) {
  DataPath path;
  path.batch_size = 4;
  auto source = make_batches(numbered(10), path, torch::Device("cpu"));
  torch::manual_seed(3);
  source->start_epoch();
  std::vector<torch::Tensor> expected_x, expected_y;
  torch::Tensor x, y;
  while (source->next(x, y)) {
    expected_x.push_back(x.clone());
    expected_y.push_back(y.clone());
  }
  torch::manual_seed(3);
  source->start_epoch();
  std::vector<std::int64_t> rows;
  for (std::int64_t n = source->rows_gathered_in_place(); n > 0;
       n = source->rows_gathered_in_place()) {
    rows.push_back(n);
    torch::Tensor into_x = torch::full({n, 3}, -1.0f), into_y = torch::full({n}, -1, torch::kLong);
    source->next_into(into_x, into_y);
    ASSERT_LE(rows.size(), expected_y.size());
    EXPECT_TRUE(torch::equal(into_x, expected_x[rows.size() - 1]));
    EXPECT_TRUE(torch::equal(into_y, expected_y[rows.size() - 1]));
  }
  EXPECT_EQ(rows, (std::vector<std::int64_t>{4, 4, 2}));
  EXPECT_EQ(source->rows_gathered_in_place(), 0);

  path.batch_size = 10;
  EXPECT_EQ(make_batches(numbered(10), path, torch::Device("cpu"))->rows_gathered_in_place(), -1);
  path.batch_size = 4;
  path.loader = Loader::kDataLoader;
  EXPECT_EQ(make_batches(numbered(10), path, torch::Device("cpu"))->rows_gathered_in_place(), -1);
}

TEST(DataPath, UnknownLoaderIsAnError) {
  DataPath path;
  path.loader = static_cast<Loader>(7);  // no such loader
  EXPECT_THROW(make_batches(numbered(4), path, torch::Device("cpu")), std::invalid_argument);
}

}  // namespace
}  // namespace crossover
