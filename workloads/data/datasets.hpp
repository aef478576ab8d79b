#pragma once
// Every data set a grid can name, declared once: its files, shape, rows, where it comes from, how
// it is fetched and what stands in for it. The readers, the shard estimate, `crossover list`, the
// run's data fingerprints and the fetch script's checks (a test compares them) all read this.
// No LibTorch.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/files/scoped_entry.hpp"

namespace crossover {

enum class DatasetKind {
  kTable,         ///< rows and columns in one CSV file, split 75/25 by the reader
  kImages,        ///< a folder of image files with a training and a test split
  kMadeInMemory,  ///< no files: the workload makes its rows from the cell
};

struct DatasetInfo {
  std::string name;  ///< the grid's `dataset` value
  DatasetKind kind = DatasetKind::kTable;
  /// Under the data directory: a table's CSV file or an image set's folder; "" when made in memory.
  std::string location;
  /// An image set's files in that folder, the training files first (IDX names count with or
  /// without .gz).
  std::vector<std::string> files;
  bool idx = false;       ///< the files are IDX (MNIST's format); else CIFAR-10's binary batches
  std::int64_t rows = 0;  ///< a table's rows before its split; an image set's training images
  std::int64_t test_images = 0;  ///< an image set's test images
  std::int64_t features = 0;     ///< a table's feature columns (its last column is the target)
  std::int64_t classes = 0;      ///< 0: the target is a number (regression)
  std::int64_t channels = 0;     ///< an image's channels
  std::int64_t side = 0;         ///< an image's height and width
  std::string source;            ///< where the real files come from
  std::string fetch;             ///< the command that puts them under the data directory
  std::string stand_in;          ///< what a cell trains on when they are not there

  /// The rows a cell trains on at `dataset_size` "full": a table's after its 75/25 split (test
  /// rows = ceil(25 %), as scikit-learn splits), an image set's training images; 0 when the
  /// workload decides (made in memory).
  std::int64_t train_rows() const;
  std::int64_t test_rows() const;
};

/// The builder every data set is declared with (workloads/data/datasets.cpp), read as a sentence:
///
///   DeclareDataset("fashion_mnist").idx_images("fashion-mnist", files).shaped(1, 28)
///       .training_images(60000).from("Debian's dataset-fashion-mnist")
///       .fetched_by("scripts/fetch-data.sh")
class DeclareDataset {
 public:
  explicit DeclareDataset(std::string name) { d_.name = std::move(name); }
  /// A table in scikit-learn's CSV format (`file` under the data directory; its last column the
  /// target, `classes` 0 for a number), fetched by scripts/fetch-data.sh.
  DeclareDataset& table(std::string file, std::int64_t rows, std::int64_t features,
                        std::int64_t classes) {
    d_.kind = DatasetKind::kTable;
    d_.location = std::move(file);
    d_.rows = rows;
    d_.features = features;
    d_.classes = classes;
    d_.fetch = "scripts/fetch-data.sh";
    d_.stand_in = "a synthetic table of the same shape whose target follows its features";
    return *this;
  }
  /// An image set in MNIST's IDX format (`idx`) or CIFAR-10's binary batches, in `folder` under
  /// the data directory, the training files first; 10 classes and 10,000 test images.
  DeclareDataset& images(std::string folder, std::vector<std::string> files, bool idx) {
    d_.kind = DatasetKind::kImages;
    d_.location = std::move(folder);
    d_.files = std::move(files);
    d_.idx = idx;
    d_.test_images = 10000;
    d_.classes = 10;
    d_.stand_in = "synthetic images of the same shape: one noisy prototype per class";
    return *this;
  }
  DeclareDataset& idx_images(std::string folder, std::vector<std::string> files) {
    return images(std::move(folder), std::move(files), true);
  }
  /// An image's channels, and its height and width.
  DeclareDataset& shaped(std::int64_t channels, std::int64_t side) {
    d_.channels = channels;
    d_.side = side;
    return *this;
  }
  DeclareDataset& training_images(std::int64_t images) {
    d_.rows = images;
    return *this;
  }
  /// No files: the workload makes the rows (0: as the cell says).
  DeclareDataset& made_in_memory(std::int64_t rows, std::int64_t features, std::int64_t classes) {
    d_.kind = DatasetKind::kMadeInMemory;
    d_.rows = rows;
    d_.features = features;
    d_.classes = classes;
    return *this;
  }
  DeclareDataset& from(std::string source) {
    d_.source = std::move(source);
    return *this;
  }
  DeclareDataset& fetched_by(std::string command) {
    d_.fetch = std::move(command);
    return *this;
  }
  DeclareDataset& stands_in(std::string what) {
    d_.stand_in = std::move(what);
    return *this;
  }
  operator DatasetInfo() const { return d_; }  // NOLINT(google-explicit-constructor)

 private:
  DatasetInfo d_;
};

/// The test rows of a table of `rows` rows split 75/25: ceil(25 %).
std::int64_t table_test_rows(std::int64_t rows);

/// Every data set, in the order `crossover list` shows them (the test-only `standin` last).
const std::vector<DatasetInfo>& dataset_catalog();

/// Declares one more data set until this ends (a test's throw-away data set:
/// docs/development.md).
class ScopedDataset : public ScopedEntry<DatasetInfo> {
 public:
  explicit ScopedDataset(DatasetInfo dataset);
};

/// The data set called `name`, or nullptr.
const DatasetInfo* find_dataset(const std::string& name);

/// The data set called `name`; throws std::invalid_argument naming the known ones.
const DatasetInfo& dataset_info(const std::string& name);

/// The files of `dataset` present under `data_dir`, sorted (none: the workload uses synthetic
/// data), and the most bytes one of them may have. What --resume's data fingerprints read.
struct DatasetFiles {
  std::vector<std::string> paths;
  std::uint64_t max_bytes = 0;
};
DatasetFiles dataset_files(const DatasetInfo& dataset, const std::string& data_dir);

/// How many of an image set's files exist in `directory`, and how many it has.
std::pair<std::size_t, std::size_t> image_files_present(const DatasetInfo& dataset,
                                                        const std::string& directory);

/// True when the data set's real files are all under `data_dir` (a table's one file exists, an
/// image set has every file); false for one made in memory.
bool have_dataset_files(const DatasetInfo& dataset, const std::string& data_dir);

}  // namespace crossover
