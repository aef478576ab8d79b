#include "workloads/image_files.hpp"

#include <unistd.h>

#include "workloads/catalog.hpp"
#include "workloads/idx.hpp"

namespace crossover {

std::vector<std::string> cifar_files() {
  return {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
          "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"};
}

std::pair<std::size_t, std::size_t> image_files_present(const std::string& dataset,
                                                        const std::string& directory) {
  std::size_t present = 0;
  if (dataset == "cifar10") {
    for (const auto& f : cifar_files()) present += access((directory + "/" + f).c_str(), F_OK) == 0;
    return {present, cifar_files().size()};
  }
  static const std::vector<std::string> mnist_stems = {
      "train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
      "t10k-labels-idx1-ubyte"};
  for (const auto& stem : mnist_stems) present += find_idx_file(directory, stem).empty() ? 0 : 1;
  return {present, mnist_stems.size()};
}

bool have_image_files(const std::string& dataset, const std::string& data_dir) {
  const auto [present, total] =
      image_files_present(dataset, data_dir + "/" + image_directory(dataset));
  return present == total;
}

}  // namespace crossover
