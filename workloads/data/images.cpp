#include "workloads/data/images.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>

#include "core/cells/cell.hpp"
#include "workloads/data/idx.hpp"

namespace crossover {
namespace {

torch::Tensor bytes_tensor(const std::vector<std::uint8_t>& bytes,
                           std::vector<std::int64_t> shape) {
  return torch::from_blob(const_cast<std::uint8_t*>(bytes.data()), shape, torch::kByte).clone();
}

std::pair<torch::Tensor, torch::Tensor> read_mnist_split(const std::string& directory,
                                                         const std::string& prefix) {
  const std::string images_path = find_idx_file(directory, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_idx_file(directory, prefix + "-labels-idx1-ubyte");
  if (images_path.empty())
    throw std::runtime_error(directory + "/" + prefix + "-images-idx3-ubyte[.gz]: missing file");
  if (labels_path.empty())
    throw std::runtime_error(directory + "/" + prefix + "-labels-idx1-ubyte[.gz]: missing file");
  const IdxArray images = read_idx(images_path, 3);
  const IdxArray labels = read_idx(labels_path, 1);
  if (images.dims[1] != 28 || images.dims[2] != 28) {
    throw std::runtime_error(images_path + ": images are " + std::to_string(images.dims[1]) + "x" +
                             std::to_string(images.dims[2]) + ", expected 28x28");
  }
  if (images.dims[0] != labels.dims[0]) {
    throw std::runtime_error(labels_path + ": " + std::to_string(labels.dims[0]) + " labels for " +
                             std::to_string(images.dims[0]) + " images in " + images_path);
  }
  for (std::size_t i = 0; i < labels.data.size(); ++i) {
    if (labels.data[i] > 9) {
      throw std::runtime_error(labels_path + ": label " + std::to_string(i) + " is " +
                               std::to_string(labels.data[i]) + "; expected 0 to 9");
    }
  }
  return {bytes_tensor(images.data, {images.dims[0], 1, 28, 28}),
          bytes_tensor(labels.data, {labels.dims[0]}).to(torch::kLong)};
}

std::pair<torch::Tensor, torch::Tensor> read_cifar_files(const std::string& directory,
                                                         const std::vector<std::string>& files) {
  std::vector<torch::Tensor> images, labels;
  for (const auto& f : files) {
    const CifarBatch batch = read_cifar_batch(directory + "/" + f);
    const auto count = static_cast<std::int64_t>(batch.count);
    images.push_back(bytes_tensor(batch.pixels, {count, 3, 32, 32}));
    labels.push_back(bytes_tensor(batch.labels, {count}).to(torch::kLong));
  }
  return {torch::cat(images), torch::cat(labels)};
}

}  // namespace

TensorData read_mnist_directory(const std::string& directory) {
  TensorData data;
  std::tie(data.x_train, data.y_train) = read_mnist_split(directory, "train");
  std::tie(data.x_test, data.y_test) = read_mnist_split(directory, "t10k");
  data.data_source = DataSource::kReal;
  return data;
}

TensorData read_cifar_directory(const std::string& directory) {
  auto files = dataset_info("cifar10").files;
  const std::string test = files.back();
  files.pop_back();
  TensorData data;
  std::tie(data.x_train, data.y_train) = read_cifar_files(directory, files);
  std::tie(data.x_test, data.y_test) = read_cifar_files(directory, {test});
  data.data_source = DataSource::kReal;
  return data;
}

TensorData synthetic_images(const std::string& dataset, std::int64_t train_rows,
                            std::int64_t test_rows, std::int64_t seed) {
  const DatasetInfo& info = dataset_info(dataset);
  const std::int64_t channels = info.channels, side = info.side;
  // A generator of its own: making data must not move the global one that seeds the models.
  at::Generator generator =
      at::make_generator<at::CPUGeneratorImpl>(static_cast<std::uint64_t>(seed) + 0x1A6EULL);
  const torch::Tensor prototypes =
      torch::rand({10, channels, side, side}, generator, torch::kFloat).mul_(255.0);
  const auto make = [&](std::int64_t rows) {
    const torch::Tensor labels = torch::randint(0, 10, {rows}, generator, torch::kLong);
    torch::Tensor images = torch::empty({rows, channels, side, side}, torch::kByte);
    constexpr std::int64_t kChunk = 5000;  // bounds the float temporaries
    for (std::int64_t start = 0; start < rows; start += kChunk) {
      const std::int64_t end = std::min(start + kChunk, rows);
      const torch::Tensor noise =
          torch::randn({end - start, channels, side, side}, generator, torch::kFloat);
      images.slice(0, start, end)
          .copy_(prototypes.index_select(0, labels.slice(0, start, end))
                     .add_(noise.mul_(60.0))
                     .clamp_(0, 255));
    }
    return std::make_pair(images, labels);
  };
  TensorData data;
  std::tie(data.x_train, data.y_train) = make(train_rows);
  std::tie(data.x_test, data.y_test) = make(test_rows);
  data.data_source = DataSource::kSynthetic;
  return data;
}

TensorData load_images(const std::string& dataset, const std::string& data_dir,
                       std::int64_t dataset_size, std::int64_t seed,
                       const std::vector<double>& mean, const std::vector<double>& stdev) {
  const DatasetInfo& info = dataset_info(dataset);
  const std::string directory = data_dir + "/" + info.location;
  const auto [present, total] = image_files_present(info, directory);
  if (present != 0 && present != total) {
    throw std::runtime_error(directory + ": " + std::to_string(present) + " of the " +
                             std::to_string(total) + " files of " + dataset +
                             " are present; fetch the rest (" + info.fetch +
                             ") or remove them all to use synthetic data");
  }
  const bool real = present == total;
  // A stand-in is made only as large as the cell trains on, with a test split in the real set's
  // proportion (CIFAR-10's 50,000:10,000): 256 rows of ResNet-18 need not make and evaluate
  // 60,000 images. Its full size is the real set's.
  const std::int64_t train_rows = real || dataset_size == kFull ? info.rows : dataset_size;
  const std::int64_t test_rows =
      std::min(info.test_images, (train_rows * info.test_images + info.rows - 1) / info.rows);
  // Reading and decompressing 60,000 images takes a while: once per process per data set. A
  // stand-in is kept at one size per data set, so that a sweep along dataset_size in one warm
  // worker does not hold a copy at every size.
  static std::mutex mutex;
  static std::map<std::string, TensorData> cache;
  const std::string stand_in = dataset + "#synthetic#";
  const std::string key =
      real ? directory : stand_in + std::to_string(seed) + "#" + std::to_string(train_rows);
  TensorData data;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it == cache.end()) {
      TensorData loaded;
      if (!real) {
        for (auto old = cache.begin(); old != cache.end();)
          old = old->first.rfind(stand_in, 0) == 0 ? cache.erase(old) : std::next(old);
        loaded = synthetic_images(dataset, train_rows, test_rows, seed);
      } else {
        loaded = info.idx ? read_mnist_directory(directory) : read_cifar_directory(directory);
      }
      it = cache.emplace(key, std::move(loaded)).first;
    }
    data = it->second;  // tensors are shared; resampling below makes new ones
  }
  if (real) resample_training(data, dataset_size, seed);
  data.mean = mean;
  data.stdev = stdev;
  return data;
}

}  // namespace crossover
