#pragma once
// The workloads the suite knows, as plain facts: what the grid validator, `crossover list` and
// the reports need without LibTorch, each declared once with DeclareWorkload. Its network's model
// is built from the same declaration in workloads/registry.cpp.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cells/cell.hpp"
#include "core/files/scoped_entry.hpp"
#include "core/text/words.hpp"

namespace crossover {

/// What a workload learns: a class (cross-entropy loss, scored by accuracy) or a number (mean
/// squared error, scored by its root on the test split).
enum class Task { kClassification, kRegression };

/// "classification", "regression".
inline constexpr auto words(Task) {
  return std::array{std::pair{Task::kClassification, std::string_view("classification")},
                    std::pair{Task::kRegression, std::string_view("regression")}};
}

/// The test metric a task is scored by: "accuracy" or "rmse".
inline std::string metric_name(Task task) {
  return task == Task::kRegression ? "rmse" : "accuracy";
}

/// The network a workload trains, declared once with the workload: the catalog's FLOPs per sample
/// and the registry's model (workloads/registry.cpp) both come from it.
enum class Network {
  kMlp,         ///< Linear layers of the declared widths, ReLU between them
  kSeed003Cnn,  ///< seed 003's CNN on 1 x 28 x 28 images
  kResNet18,    ///< ResNet-18, torchvision's layout, on 3 x 32 x 32 images, 10 classes
  kSizedMlp,    ///< an MLP whose widths are the cell's model keys (the `mlp` workload)
  kScripted,    ///< the cell's TorchScript file (the `torchscript` workload)
};

/// What a workload is and how its seed ran it.
struct WorkloadInfo {
  std::string name;
  std::string seed;   ///< which seed post it reproduces
  std::string model;  ///< human description of the network
  Network network = Network::kMlp;
  std::vector<std::int64_t> layers;   ///< kMlp: the widths, input to output
  std::vector<std::string> datasets;  ///< accepted `dataset` values; the first is the default
  Task task = Task::kClassification;  ///< its loss and test metric: loss_name, metric_name
  Optimizer optimizer = Optimizer::kAdam;
  double lr = 0.01;
  double momentum = 0.0;
  std::int64_t batch_size = kFull;
  int epochs = 1;
  std::string notes;
  Loader loader = Loader::kTensor;  ///< the default data path
  std::vector<double> mean;         ///< per-channel normalisation after scaling pixels to [0, 1]
  std::vector<double> stdev;        ///< (empty: none, as for tabular data)
  double flops_per_sample = 0.0;    ///< analytical training FLOPs per sample (3x forward)
  /// A workload whose data set is made in memory (`synthetic`): the training rows it makes at
  /// dataset_size "full" (dataset_size resizes them), and its test rows. 0 for the others.
  std::int64_t made_train_rows = 0;
  std::int64_t made_test_rows = 0;
};

/// Analytical training FLOPs per sample of a declared network (3x its forward pass's
/// multiply-accumulates, 2 FLOPs each); 0 where the cell decides (kSizedMlp, kScripted).
double network_training_flops(Network network, const std::vector<std::int64_t>& layers);

/// The builder every workload is declared with (workloads/data/catalog.cpp), read as a sentence:
///
///   DeclareWorkload("iris_mlp", "001").mlp({4, 64, 32, 16, 3}).trains_on({"iris"})
///       .adam(0.01).batch(kFull).epochs(1000).notes("...")
///
/// The network is stated once: `mlp` sets the widths, the model's description and the FLOPs.
class DeclareWorkload {
 public:
  /// `seed`: the seed post it reproduces ("001"), "-" for none.
  DeclareWorkload(std::string name, std::string seed) {
    w_.name = std::move(name);
    w_.seed = std::move(seed);
  }
  /// An MLP of these widths: "Linear(784, 10)" for one layer, "MLP 4-64-3, ReLU" for more.
  DeclareWorkload& mlp(std::vector<std::int64_t> layers);
  /// Another network, with its description.
  DeclareWorkload& network(Network network, std::string model);
  /// The data sets it accepts, the default first.
  DeclareWorkload& trains_on(std::vector<std::string> datasets) {
    w_.datasets = std::move(datasets);
    return *this;
  }
  DeclareWorkload& task(Task task) {
    w_.task = task;
    return *this;
  }
  DeclareWorkload& adam(double lr) { return optimiser(Optimizer::kAdam, lr, 0.0); }
  DeclareWorkload& sgd(double lr, double momentum = 0.0) {
    return optimiser(Optimizer::kSgd, lr, momentum);
  }
  DeclareWorkload& batch(std::int64_t batch_size) {
    w_.batch_size = batch_size;
    return *this;
  }
  DeclareWorkload& epochs(int epochs) {
    w_.epochs = epochs;
    return *this;
  }
  /// Batches through a DataLoader by default (the seed's data path), not cut from one tensor.
  DeclareWorkload& data_loader() {
    w_.loader = Loader::kDataLoader;
    return *this;
  }
  /// Per-channel normalisation after pixels are scaled to [0, 1].
  DeclareWorkload& normalised(std::vector<double> mean, std::vector<double> stdev) {
    w_.mean = std::move(mean);
    w_.stdev = std::move(stdev);
    return *this;
  }
  /// The rows it makes in memory at dataset_size "full", and its test rows.
  DeclareWorkload& makes_rows(std::int64_t train, std::int64_t test) {
    w_.made_train_rows = train;
    w_.made_test_rows = test;
    return *this;
  }
  DeclareWorkload& notes(std::string notes) {
    w_.notes = std::move(notes);
    return *this;
  }
  operator WorkloadInfo() const { return w_; }  // NOLINT(google-explicit-constructor)
  const WorkloadInfo& info() const { return w_; }

 private:
  DeclareWorkload& optimiser(Optimizer optimizer, double lr, double momentum) {
    w_.optimizer = optimizer;
    w_.lr = lr;
    w_.momentum = momentum;
    return *this;
  }
  WorkloadInfo w_;
};

/// Multiply-accumulates of one forward pass through an MLP with these layer widths.
double mlp_forward_macs(const std::vector<std::int64_t>& sizes);

/// Seed 003's CNN, stated once: its model (workloads/models/cnn.cpp) is built from these, and its
/// FLOPs counted from them. Two convolutions of kKernel x kKernel, each followed by ReLU and a
/// 2 x 2 max-pool, then dense layers of kDense widths with ReLU between them.
/// The side of an image after a convolution of `kernel` x `kernel` and a 2 x 2 max-pool.
constexpr std::int64_t conv_pooled_side(std::int64_t side, std::int64_t kernel) {
  return (side - kernel + 1) / 2;
}
struct Seed003CnnShape {
  static constexpr std::int64_t kSide = 28;  ///< the input: kChannels[0] x kSide x kSide
  static constexpr std::int64_t kKernel = 5;
  static constexpr std::array<std::int64_t, 3> kChannels = {1, 6, 12};
  static constexpr std::int64_t kLastSide =
      conv_pooled_side(conv_pooled_side(kSide, kKernel), kKernel);  // 28 -> 12 -> 4
  static constexpr std::int64_t kFlat = kChannels[2] * kLastSide * kLastSide;
  static constexpr std::array<std::int64_t, 4> kDense = {kFlat, 120, 60, 10};
};

/// ResNet-18 as torchvision lays it out, stated once for its model (workloads/models/resnet.cpp)
/// and its FLOPs: a kStemKernel stem of stride 2 to kStages[0] channels and a 3 x 3 max-pool of
/// stride 2, then kBlocksPerStage basic blocks per stage (the first of each stage after the first
/// of stride 2, with a 1 x 1 downsample), average pooling and one dense layer.
struct ResNet18Shape {
  static constexpr std::int64_t kStemKernel = 7;
  static constexpr std::array<std::int64_t, 4> kStages = {64, 128, 256, 512};
  static constexpr int kBlocksPerStage = 2;
};

/// Multiply-accumulates of one forward pass of seed 003's CNN on a 1x28x28 image.
double seed003_cnn_forward_macs();

/// Multiply-accumulates of one forward pass of ResNet-18 (torchvision's layout, 10 classes)
/// on a 3 x height x width image.
double resnet18_forward_macs(std::int64_t height, std::int64_t width);

/// The generic `mlp` workload's layer widths for a cell: features, `depth` hidden layers of
/// `width` units, classes.
std::vector<std::int64_t> generic_mlp_sizes(const Cell& cell);

/// A cell's analytical training FLOPs per sample: the catalog's for a seed's workload, computed
/// from the cell's model keys for `mlp`.
double flops_per_sample(const Cell& cell);

/// Every workload, in the order `crossover list` shows them.
const std::vector<WorkloadInfo>& workload_catalog();

/// The training rows of `cell`'s data set at dataset_size "full": the data set's declared split,
/// or the rows its workload makes in memory.
std::int64_t full_training_rows(const Cell& cell);

/// The workload called `name`, or nullptr.
const WorkloadInfo* find_workload(const std::string& name);

/// The names of every workload.
std::vector<std::string> workload_names();

/// Declares one more workload until this ends (a test's throw-away workload:
/// docs/development.md, "Adding a workload").
class ScopedWorkload : public ScopedEntry<WorkloadInfo> {
 public:
  explicit ScopedWorkload(WorkloadInfo workload);
};

/// The environment variable that adds the test-only workloads to the catalog (set to anything):
/// `standin_mlp`, a 4-16-3 MLP on `standin`, 64 synthetic rows made in memory — no data files and
/// about a millisecond an epoch, for tests of the sweep, the reports and the command line.
inline constexpr const char* kTestWorkloadsVariable = "CROSSOVER_TEST_WORKLOADS";

}  // namespace crossover
