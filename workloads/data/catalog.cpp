#include "workloads/data/catalog.hpp"

#include <cstdlib>

#include "core/text/text.hpp"
#include "workloads/data/datasets.hpp"

namespace crossover {
namespace {

// A training step costs about three forward passes (forward, and backward for activations and
// weights); a multiply-accumulate is two FLOPs.
double training_flops(double forward_macs) { return 3.0 * 2.0 * forward_macs; }

double conv_macs(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t h,
                 std::int64_t w) {
  return static_cast<double>(in * out * kernel * kernel * h * w);
}

// Output size of a convolution or pooling window.
std::int64_t out_size(std::int64_t size, std::int64_t kernel, std::int64_t stride,
                      std::int64_t pad) {
  return (size + 2 * pad - kernel) / stride + 1;
}

WorkloadInfo info(std::string name, std::string seed, std::string model,
                  std::vector<std::string> datasets, Task task, Optimizer optimizer, double lr,
                  double momentum, std::int64_t batch_size, int epochs, std::string notes) {
  WorkloadInfo w;
  w.name = std::move(name);
  w.seed = std::move(seed);
  w.model = std::move(model);
  w.datasets = std::move(datasets);
  w.task = task;
  w.optimizer = optimizer;
  w.lr = lr;
  w.momentum = momentum;
  w.batch_size = batch_size;
  w.epochs = epochs;
  w.notes = std::move(notes);
  return w;
}

// "4,096 training rows unless dataset_size says, 1,366 test rows"
std::string made_rows_text(const WorkloadInfo& w) {
  return format_axis_value(static_cast<double>(w.made_train_rows)) +
         " training rows unless dataset_size says, " +
         format_axis_value(static_cast<double>(w.made_test_rows)) + " test rows";
}

// The workloads not from a seed, whose data are made in memory: the rows each makes, declared here
// and read by the makers, the shard estimate and their notes.
void add_workloads_on_data_made_in_memory(std::vector<WorkloadInfo>& c) {
  c.push_back(info(kSizedMlpWorkload, "-",
                   "MLP features-width x depth-classes, ReLU (the model keys)", {"synthetic"},
                   Task::kClassification, Optimizer::kAdam, 0.001, 0.0, 256, 1, ""));
  c.back().made_train_rows = 4096;  // 5,462 rows split 75/25, as a table is
  c.back().made_test_rows = table_test_rows(5462);
  c.back().notes =
      "Not a seed's: a generic MLP whose size is the grid's (features, classes, width, depth; "
      "defaults 32, 10, 256, 2) on synthetic rows of `features` Gaussian features around one "
      "centre per class (" +
      made_rows_text(c.back()) +
      "), to find from which model size on the GPU wins. FLOPs per sample from the cell's model.";
  c.push_back(info(kUserModelWorkload, "-", "your model: a TorchScript file (the model key)",
                   {"synthetic"}, Task::kClassification, Optimizer::kAdam, 0.001, 0.0, 64, 1, ""));
  c.back().made_train_rows = 1024;
  c.back().made_test_rows = 256;
  c.back().notes =
      "Not a seed's: the model torch.jit.save wrote (model, relative to the grid's folder), "
      "trained on synthetic samples of input_shape (" +
      made_rows_text(c.back()) +
      ") with classes (cross entropy, accuracy) or outputs (MSE, RMSE); FLOPs per sample "
      "estimated from the matrix products and convolutions one sample runs. Cells run isolated "
      "unless the grid says.";
}

std::vector<WorkloadInfo> build_catalog() {
  std::vector<WorkloadInfo> c;
  c.push_back(
      info("iris_mlp", "001", "MLP 4-64-32-16-3, ReLU", {"iris"}, Task::kClassification,
           Optimizer::kAdam, 0.01, 0.0, kFull, 1000,
           "Iris (150 rows), seeded 75/25 split, full batch, no feature scaling, as in seed 001."));
  c.back().flops_per_sample = training_flops(mlp_forward_macs({4, 64, 32, 16, 3}));
  c.push_back(
      info("boston_mlp", "001", "MLP 13-16-32-16-1, ReLU", {"boston"}, Task::kRegression,
           Optimizer::kAdam, 0.01, 0.0, kFull, 10000,
           "Boston housing (506 rows), seeded 75/25 split, full batch, no feature scaling, as in "
           "seed 001."));
  c.back().flops_per_sample = training_flops(mlp_forward_macs({13, 16, 32, 16, 1}));

  c.push_back(
      info("mnist_linear", "000", "Linear(784, 10)", {"mnist", "fashion_mnist"},
           Task::kClassification, Optimizer::kSgd, 0.005, 0.0, 128, 30,
           "MNIST normalised with (0.1307, 0.3081); SGD lr 0.005, batch 128, as in seed 000 "
           "(which trains on 50,000 of the 60,000 images: dataset_size 50000)."));
  c.back().loader = Loader::kDataLoader;
  c.back().mean = {0.1307};
  c.back().stdev = {0.3081};
  c.back().flops_per_sample = training_flops(mlp_forward_macs({784, 10}));

  c.push_back(info(
      "mnist_mlp", "001", "MLP 784-400-200-100-10, ReLU", {"mnist", "fashion_mnist"},
      Task::kClassification, Optimizer::kAdam, 0.001, 0.0, 100, 15,
      "MNIST, pixels scaled to [0, 1] only (ToTensor), Adam lr 0.001, batch 100, as in seed 001."));
  c.back().loader = Loader::kDataLoader;
  c.back().flops_per_sample = training_flops(mlp_forward_macs({784, 400, 200, 100, 10}));

  c.push_back(
      info("mnist_mlp_fullbatch", "001", "MLP 784-400-200-100-10, ReLU", {"mnist", "fashion_mnist"},
           Task::kClassification, Optimizer::kAdam, 0.01, 0.0, kFull, 100,
           "Seed 001's full-batch MNIST run: the whole training split in every step, Adam lr 0.01, "
           "100 epochs (the post trains on 52,500 rows: dataset_size 52500)."));
  c.back().flops_per_sample = training_flops(mlp_forward_macs({784, 400, 200, 100, 10}));

  c.push_back(info(
      "mnist_cnn", "003", "CNN conv 1-6 k5, conv 6-12 k5 (ReLU, 2x2 max-pool), 192-120-60-10",
      {"fashion_mnist", "mnist"}, Task::kClassification, Optimizer::kAdam, 0.01, 0.0, 1000, 1,
      "deeplizard's network, pixels scaled to [0, 1] only, Adam lr 0.01; seed 003 sweeps batch "
      "1,000 / 10,000 / 20,000 and num_workers 0 / 1."));
  c.back().loader = Loader::kDataLoader;
  c.back().flops_per_sample = training_flops(seed003_cnn_forward_macs());

  c.push_back(info(
      "cifar_resnet18", "002", "ResNet-18 (BasicBlock, torchvision layout), Linear(512, 10) head",
      {"cifar10"}, Task::kClassification, Optimizer::kSgd, 0.001, 0.9, 256, 10,
      "CIFAR-10 normalised per channel, SGD lr 0.001 momentum 0.9, batch 256. Seed 002 starts "
      "from ImageNet weights; nothing can be downloaded here, so crossover trains from scratch "
      "and its accuracy is not the post's."));
  c.back().loader = Loader::kDataLoader;
  c.back().mean = {0.4914, 0.4822, 0.4465};
  c.back().stdev = {0.2023, 0.1994, 0.2010};
  c.back().flops_per_sample = training_flops(resnet18_forward_macs(32, 32));
  add_workloads_on_data_made_in_memory(c);
  if (std::getenv(kTestWorkloadsVariable) != nullptr) {
    c.push_back(info("standin_mlp", "-", "MLP 4-16-3, ReLU", {"standin"}, Task::kClassification,
                     Optimizer::kAdam, 0.05, 0.0, kFull, 3,
                     "A stand-in for tests: 64 synthetic rows made in memory, no data files."));
    c.back().flops_per_sample = training_flops(mlp_forward_macs({4, 16, 3}));
  }
  return c;
}

}  // namespace

double mlp_forward_macs(const std::vector<std::int64_t>& sizes) {
  double macs = 0.0;
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i)
    macs += static_cast<double>(sizes[i] * sizes[i + 1]);
  return macs;
}

double seed003_cnn_forward_macs() {
  const double conv1 = conv_macs(1, 6, 5, 24, 24);  // 28 -> 24, pooled to 12
  const double conv2 = conv_macs(6, 12, 5, 8, 8);   // 12 -> 8, pooled to 4
  return conv1 + conv2 + mlp_forward_macs({12 * 4 * 4, 120, 60, 10});
}

double resnet18_forward_macs(std::int64_t height, std::int64_t width) {
  std::int64_t h = out_size(height, 7, 2, 3);
  std::int64_t w = out_size(width, 7, 2, 3);
  double macs = conv_macs(3, 64, 7, h, w);
  h = out_size(h, 3, 2, 1);  // max-pool
  w = out_size(w, 3, 2, 1);
  std::int64_t channels = 64;
  for (const std::int64_t planes : {64, 128, 256, 512}) {
    for (int block = 0; block < 2; ++block) {
      const std::int64_t stride = block == 0 && planes != 64 ? 2 : 1;
      const std::int64_t oh = out_size(h, 3, stride, 1);
      const std::int64_t ow = out_size(w, 3, stride, 1);
      macs += conv_macs(channels, planes, 3, oh, ow) + conv_macs(planes, planes, 3, oh, ow);
      if (stride != 1 || channels != planes)
        macs += conv_macs(channels, planes, 1, oh, ow);  // downsample
      channels = planes;
      h = oh;
      w = ow;
    }
  }
  return macs + static_cast<double>(512 * 10);
}

std::vector<std::int64_t> generic_mlp_sizes(const Cell& cell) {
  std::vector<std::int64_t> sizes = {cell.features};
  for (int layer = 0; layer < cell.depth; ++layer) sizes.push_back(cell.width);
  sizes.push_back(cell.classes);
  return sizes;
}

double flops_per_sample(const Cell& cell) {
  if (cell.workload == kSizedMlpWorkload)
    return training_flops(mlp_forward_macs(generic_mlp_sizes(cell)));
  const WorkloadInfo* info = find_workload(cell.workload);
  return info == nullptr ? 0.0 : info->flops_per_sample;
}

const std::vector<WorkloadInfo>& workload_catalog() {
  static const std::vector<WorkloadInfo> catalog = build_catalog();
  return catalog;
}

std::int64_t full_training_rows(const Cell& cell) {
  const DatasetInfo* data = find_dataset(cell.dataset);
  if (data != nullptr && data->kind != DatasetKind::kMadeInMemory) return data->train_rows();
  const WorkloadInfo* w = find_workload(cell.workload);
  if (w != nullptr && w->made_train_rows > 0) return w->made_train_rows;
  return data != nullptr ? data->train_rows() : 0;
}

const WorkloadInfo* find_workload(const std::string& name) {
  for (const auto& info : workload_catalog()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const auto& info : workload_catalog()) names.push_back(info.name);
  return names;
}

}  // namespace crossover
