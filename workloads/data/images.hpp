#pragma once
// MNIST, Fashion-MNIST and CIFAR-10 from their real files under the data directory, or a
// synthetic data set of the same shape with learnable class structure when the files are absent.
//
//   data/mnist/          train-images-idx3-ubyte[.gz]  train-labels-idx1-ubyte[.gz]
//   data/fashion-mnist/  t10k-images-idx3-ubyte[.gz]   t10k-labels-idx1-ubyte[.gz]
//   data/cifar-10-batches-bin/  data_batch_1.bin ... data_batch_5.bin  test_batch.bin

#include <cstdint>
#include <string>

#include "workloads/data/data.hpp"
#include "workloads/data/datasets.hpp"

namespace crossover {

/// Reads an MNIST-format directory: uint8 images [N, 1, 28, 28] and int64 labels. Throws
/// std::runtime_error naming the file for anything malformed or inconsistent.
TensorData read_mnist_directory(const std::string& directory);

/// Reads a CIFAR-10 binary directory: uint8 images [N, 3, 32, 32] and int64 labels.
TensorData read_cifar_directory(const std::string& directory);

/// A synthetic stand-in of `dataset`'s image shape (datasets.hpp): each class is a fixed random
/// pattern plus noise.
TensorData synthetic_images(const std::string& dataset, std::int64_t train_rows,
                            std::int64_t test_rows, std::int64_t seed);

/// The data set a cell uses: real files when all are present (read once per process), then its
/// training split resampled to `dataset_size`; synthetic when none are, made at `dataset_size`
/// rows (the real set's when full) with a test split in the real set's proportion; some but not
/// all is an error. `mean`/`stdev` are recorded for the batches' normalisation.
TensorData load_images(const std::string& dataset, const std::string& data_dir,
                       std::int64_t dataset_size, std::int64_t seed,
                       const std::vector<double>& mean, const std::vector<double>& stdev);

}  // namespace crossover
