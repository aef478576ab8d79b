#include "workloads/data/datasets.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "core/files/user_files.hpp"
#include "workloads/data/idx.hpp"

namespace crossover {
namespace {

std::vector<DatasetInfo> build_datasets() {
  const std::vector<std::string> idx_files = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                              "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
  const std::string sklearn = "scikit-learn's copy, in Debian's python3-sklearn";
  return {
      DeclareDataset("iris").table("iris.csv", 150, 4, 3).from(sklearn),
      DeclareDataset("boston").table("boston_house_prices.csv", 506, 13, 0).from(sklearn),
      DeclareDataset("mnist")
          .idx_images("mnist", idx_files)
          .shaped(1, 28)
          .training_images(60000)
          .from("the published IDX files, checked against their MD5 sums")
          .fetched_by("scripts/fetch-data.sh --download"),
      DeclareDataset("fashion_mnist")
          .idx_images("fashion-mnist", idx_files)
          .shaped(1, 28)
          .training_images(60000)
          .from("Debian's dataset-fashion-mnist")
          .fetched_by("scripts/fetch-data.sh"),
      DeclareDataset("cifar10")
          .images("cifar-10-batches-bin",
                  {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin",
                   "data_batch_5.bin", "test_batch.bin"},
                  false)
          .shaped(3, 32)
          .training_images(50000)
          .from("cifar-10-binary.tar.gz, checked against its published MD5")
          .fetched_by("scripts/fetch-data.sh --download"),
      DeclareDataset("synthetic")
          .made_in_memory(0, 0, 0)
          .stands_in("Gaussian classes (mlp) or samples of the model's input shape "
                     "(torchscript), sized by the cell"),
      DeclareDataset("standin").made_in_memory(64, 4, 3).stands_in(
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
