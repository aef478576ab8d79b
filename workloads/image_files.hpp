#pragma once
// Which files make up each image data set, and whether they are there. No LibTorch: the command
// line uses it to list the data sets.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace crossover {

/// CIFAR-10's binary files, the five training batches then the test batch.
std::vector<std::string> cifar_files();

/// How many of `dataset`'s files exist in `directory`, and how many it has (MNIST-format files
/// count with or without .gz).
std::pair<std::size_t, std::size_t> image_files_present(const std::string& dataset,
                                                        const std::string& directory);

/// True when every file of `dataset` is present under `data_dir`.
bool have_image_files(const std::string& dataset, const std::string& data_dir);

}  // namespace crossover
