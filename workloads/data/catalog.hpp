#pragma once
// The workloads the suite knows, as plain facts: what the grid validator, `crossover list` and
// the reports need without LibTorch. The models themselves live in workloads/registry.cpp.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cells/cell.hpp"
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

/// What a workload is and how its seed ran it.
struct WorkloadInfo {
  std::string name;
  std::string seed;                   ///< which seed post it reproduces
  std::string model;                  ///< human description of the network
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

/// Multiply-accumulates of one forward pass through an MLP with these layer widths.
double mlp_forward_macs(const std::vector<std::int64_t>& sizes);

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

/// The environment variable that adds the test-only workloads to the catalog (set to anything):
/// `standin_mlp`, a 4-16-3 MLP on `standin`, 64 synthetic rows made in memory — no data files and
/// about a millisecond an epoch, for tests of the sweep, the reports and the command line.
inline constexpr const char* kTestWorkloadsVariable = "CROSSOVER_TEST_WORKLOADS";

}  // namespace crossover
