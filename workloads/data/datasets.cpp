#include "workloads/data/datasets.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "core/files/user_files.hpp"
#include "workloads/data/idx.hpp"

namespace crossover {
namespace {

DatasetInfo table(std::string name, std::string file, std::int64_t rows, std::int64_t features,
                  std::int64_t classes, std::string source) {
  DatasetInfo d;
  d.name = std::move(name);
  d.kind = DatasetKind::kTable;
  d.location = std::move(file);
  d.rows = rows;
  d.features = features;
  d.classes = classes;
  d.source = std::move(source);
  d.fetch = "scripts/fetch-data.sh";
  d.stand_in = "a synthetic table of the same shape whose target follows its features";
  return d;
}

DatasetInfo images(std::string name, std::string folder, std::vector<std::string> files, bool idx,
                   std::int64_t channels, std::int64_t side, std::int64_t train, std::string source,
                   std::string fetch) {
  DatasetInfo d;
  d.name = std::move(name);
  d.kind = DatasetKind::kImages;
  d.location = std::move(folder);
  d.files = std::move(files);
  d.idx = idx;
  d.rows = train;
  d.test_images = 10000;
  d.classes = 10;
  d.channels = channels;
  d.side = side;
  d.source = std::move(source);
  d.fetch = std::move(fetch);
  d.stand_in = "synthetic images of the same shape: one noisy prototype per class";
  return d;
}

DatasetInfo made_in_memory(std::string name, std::int64_t rows, std::int64_t features,
                           std::int64_t classes, std::string stand_in) {
  DatasetInfo d;
  d.name = std::move(name);
  d.kind = DatasetKind::kMadeInMemory;
  d.rows = rows;
  d.features = features;
  d.classes = classes;
  d.stand_in = std::move(stand_in);
  return d;
}

std::vector<DatasetInfo> build_datasets() {
  const std::vector<std::string> idx_files = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                              "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
  return {
      table("iris", "iris.csv", 150, 4, 3, "scikit-learn's copy, in Debian's python3-sklearn"),
      table("boston", "boston_house_prices.csv", 506, 13, 0,
            "scikit-learn's copy, in Debian's python3-sklearn"),
      images("mnist", "mnist", idx_files, true, 1, 28, 60000,
             "the published IDX files, checked against their MD5 sums",
             "scripts/fetch-data.sh --download"),
      images("fashion_mnist", "fashion-mnist", idx_files, true, 1, 28, 60000,
             "Debian's dataset-fashion-mnist", "scripts/fetch-data.sh"),
      images("cifar10", "cifar-10-batches-bin",
             {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin",
              "data_batch_5.bin", "test_batch.bin"},
             false, 3, 32, 50000, "cifar-10-binary.tar.gz, checked against its published MD5",
             "scripts/fetch-data.sh --download"),
      made_in_memory("synthetic", 0, 0, 0,
                     "Gaussian classes (mlp) or samples of the model's input shape "
                     "(torchscript), sized by the cell"),
      made_in_memory("standin", 64, 4, 3,
                     "64 rows of three well-separated classes, for the tests (test-only)"),
  };
}

}  // namespace

std::int64_t table_test_rows(std::int64_t rows) { return (rows + 3) / 4; }

std::int64_t DatasetInfo::train_rows() const {
  if (kind == DatasetKind::kImages) return rows;
  return rows - table_test_rows(rows);
}

std::int64_t DatasetInfo::test_rows() const {
  if (kind == DatasetKind::kImages) return test_images;
  return table_test_rows(rows);
}

namespace {

std::vector<DatasetInfo>& catalog() {
  static std::vector<DatasetInfo> datasets = build_datasets();
  return datasets;
}

}  // namespace

const std::vector<DatasetInfo>& dataset_catalog() { return catalog(); }

ScopedDataset::ScopedDataset(DatasetInfo dataset)
    : ScopedEntry(catalog(), std::move(dataset), "data set") {}

const DatasetInfo* find_dataset(const std::string& name) {
  for (const auto& d : dataset_catalog())
    if (d.name == name) return &d;
  return nullptr;
}

const DatasetInfo& dataset_info(const std::string& name) {
  if (const DatasetInfo* d = find_dataset(name)) return *d;
  std::string known;
  for (const auto& d : dataset_catalog()) known += (known.empty() ? "" : ", ") + d.name;
  throw std::invalid_argument("no data set called \"" + name + "\" (known: " + known + ")");
}

DatasetFiles dataset_files(const DatasetInfo& dataset, const std::string& data_dir) {
  DatasetFiles out;
  if (dataset.kind == DatasetKind::kMadeInMemory) return out;
  if (dataset.kind == DatasetKind::kTable) {
    out.max_bytes = kMaxCsvBytes;
    const std::string file = data_dir + "/" + dataset.location;
    // access(), not open(): a FIFO there must not block (its reader refuses it with the reason).
    if (access(file.c_str(), F_OK) == 0) out.paths.push_back(file);
    return out;
  }
  out.max_bytes = kMaxImageFileBytes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(data_dir) / dataset.location, error)) {
    std::error_code is_folder;
    if (!entry.is_directory(is_folder)) out.paths.push_back(entry.path().string());
  }
  std::sort(out.paths.begin(), out.paths.end());
  return out;
}

std::pair<std::size_t, std::size_t> image_files_present(const DatasetInfo& dataset,
                                                        const std::string& directory) {
  std::size_t present = 0;
  for (const auto& f : dataset.files) {
    present += dataset.idx ? !find_idx_file(directory, f).empty()
                           : access((directory + "/" + f).c_str(), F_OK) == 0;
  }
  return {present, dataset.files.size()};
}

bool have_dataset_files(const DatasetInfo& dataset, const std::string& data_dir) {
  if (dataset.kind == DatasetKind::kMadeInMemory) return false;
  if (dataset.kind == DatasetKind::kTable) return !dataset_files(dataset, data_dir).paths.empty();
  const auto [present, total] = image_files_present(dataset, data_dir + "/" + dataset.location);
  return present == total;
}

}  // namespace crossover
