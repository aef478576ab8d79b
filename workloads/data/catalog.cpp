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

// "CNN conv 1-6 k5, conv 6-12 k5 (ReLU, 2x2 max-pool), 192-120-60-10", from its shape.
std::string seed003_cnn_text() {
  using S = Seed003CnnShape;
  std::string text = "CNN";
  for (std::size_t i = 0; i + 1 < S::kChannels.size(); ++i)
    text += std::string(i == 0 ? " " : ", ") + "conv " + std::to_string(S::kChannels[i]) + "-" +
            std::to_string(S::kChannels[i + 1]) + " k" + std::to_string(S::kKernel);
  std::vector<std::string> dense;
  for (const std::int64_t width : S::kDense) dense.push_back(std::to_string(width));
  return text + " (ReLU, 2x2 max-pool), " + join(dense, "-");
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
  DeclareWorkload sized(kSizedMlpWorkload, "-");
  sized.network(Network::kSizedMlp, "MLP features-width x depth-classes, ReLU (the model keys)")
      .trains_on({"synthetic"})
      .adam(0.001)
      .batch(256)
      .makes_rows(4096, table_test_rows(5462));  // 5,462 rows split 75/25, as a table is
  sized.notes(
      "Not a seed's: a generic MLP whose size is the grid's (features, classes, width, depth; "
      "defaults 32, 10, 256, 2) on synthetic rows of `features` Gaussian features around one "
      "centre per class (" +
      made_rows_text(sized.info()) +
      "), to find from which model size on the GPU wins. FLOPs per sample from the cell's model.");
  c.push_back(sized);

  DeclareWorkload scripted(kUserModelWorkload, "-");
  scripted.network(Network::kScripted, "your model: a TorchScript file (the model key)")
      .trains_on({"synthetic"})
      .adam(0.001)
      .batch(64)
      .makes_rows(1024, 256);
  scripted.notes(
      "Not a seed's: the model torch.jit.save wrote (model, relative to the grid's folder), "
      "trained on synthetic samples of input_shape (" +
      made_rows_text(scripted.info()) +
      ") with classes (cross entropy, accuracy) or outputs (MSE, RMSE); FLOPs per sample "
      "estimated from the matrix products and convolutions one sample runs. Cells run isolated "
      "unless the grid says.");
  c.push_back(scripted);
}

std::vector<WorkloadInfo> build_catalog() {
  std::vector<WorkloadInfo> c = {
      DeclareWorkload("iris_mlp", "001")
          .mlp({4, 64, 32, 16, 3})
          .trains_on({"iris"})
          .adam(0.01)
          .batch(kFull)
          .epochs(1000)
          .notes("Iris (150 rows), seeded 75/25 split, full batch, no feature scaling, as in "
                 "seed 001."),
      DeclareWorkload("boston_mlp", "001")
          .mlp({13, 16, 32, 16, 1})
          .trains_on({"boston"})
          .task(Task::kRegression)
          .adam(0.01)
          .batch(kFull)
          .epochs(10000)
          .notes("Boston housing (506 rows), seeded 75/25 split, full batch, no feature scaling, "
                 "as in seed 001."),
      DeclareWorkload("mnist_linear", "000")
          .mlp({784, 10})
          .trains_on({"mnist", "fashion_mnist"})
          .sgd(0.005)
          .batch(128)
          .epochs(30)
          .data_loader()
          .normalised({0.1307}, {0.3081})
          .notes("MNIST normalised with (0.1307, 0.3081); SGD lr 0.005, batch 128, as in seed 000 "
                 "(which trains on 50,000 of the 60,000 images: dataset_size 50000)."),
      DeclareWorkload("mnist_mlp", "001")
          .mlp({784, 400, 200, 100, 10})
          .trains_on({"mnist", "fashion_mnist"})
          .adam(0.001)
          .batch(100)
          .epochs(15)
          .data_loader()
          .notes("MNIST, pixels scaled to [0, 1] only (ToTensor), Adam lr 0.001, batch 100, as in "
                 "seed 001."),
      DeclareWorkload("mnist_mlp_fullbatch", "001")
          .mlp({784, 400, 200, 100, 10})
          .trains_on({"mnist", "fashion_mnist"})
          .adam(0.01)
          .batch(kFull)
          .epochs(100)
          .notes("Seed 001's full-batch MNIST run: the whole training split in every step, Adam "
                 "lr 0.01, 100 epochs (the post trains on 52,500 rows: dataset_size 52500)."),
      DeclareWorkload("mnist_cnn", "003")
          .network(Network::kSeed003Cnn, seed003_cnn_text())
          .trains_on({"fashion_mnist", "mnist"})
          .adam(0.01)
          .batch(1000)
          .epochs(1)
          .data_loader()
          .notes("deeplizard's network, pixels scaled to [0, 1] only, Adam lr 0.01; seed 003 "
                 "sweeps batch 1,000 / 10,000 / 20,000 and num_workers 0 / 1."),
      DeclareWorkload("cifar_resnet18", "002")
          .network(Network::kResNet18,
                   "ResNet-18 (BasicBlock, torchvision layout), Linear(512, 10) head")
          .trains_on({"cifar10"})
          .sgd(0.001, 0.9)
          .batch(256)
          .epochs(10)
          .data_loader()
          .normalised({0.4914, 0.4822, 0.4465}, {0.2023, 0.1994, 0.2010})
          .notes("CIFAR-10 normalised per channel, SGD lr 0.001 momentum 0.9, batch 256. Seed 002 "
                 "starts from ImageNet weights; nothing can be downloaded here, so crossover "
                 "trains from scratch and its accuracy is not the post's."),
  };
  add_workloads_on_data_made_in_memory(c);
  if (std::getenv(kTestWorkloadsVariable) != nullptr)
    c.push_back(DeclareWorkload("standin_mlp", "-")
                    .mlp({4, 16, 3})
                    .trains_on({"standin"})
                    .adam(0.05)
                    .batch(kFull)
                    .epochs(3)
                    .notes("A stand-in for tests: 64 synthetic rows made in memory, no data "
                           "files."));
  return c;
}

std::vector<WorkloadInfo>& declared_workloads() {
  static std::vector<WorkloadInfo> workloads = build_catalog();
  return workloads;
}

}  // namespace

double mlp_forward_macs(const std::vector<std::int64_t>& sizes) {
  double macs = 0.0;
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i)
    macs += static_cast<double>(sizes[i] * sizes[i + 1]);
  return macs;
}

double seed003_cnn_forward_macs() {
  using S = Seed003CnnShape;
  double macs = 0.0;
  std::int64_t side = S::kSide;
  for (std::size_t i = 0; i + 1 < S::kChannels.size(); ++i) {
    const std::int64_t out = side - S::kKernel + 1;  // 28 -> 24, pooled to 12; 12 -> 8, to 4
    macs += conv_macs(S::kChannels[i], S::kChannels[i + 1], S::kKernel, out, out);
    side = conv_pooled_side(side, S::kKernel);
  }
  return macs + mlp_forward_macs({S::kDense.begin(), S::kDense.end()});
}

double resnet18_forward_macs(std::int64_t height, std::int64_t width) {
  std::int64_t h = out_size(height, ResNet18Shape::kStemKernel, 2, 3);
  std::int64_t w = out_size(width, ResNet18Shape::kStemKernel, 2, 3);
  using S = ResNet18Shape;
  double macs = conv_macs(3, S::kStages.front(), S::kStemKernel, h, w);
  h = out_size(h, 3, 2, 1);  // max-pool
  w = out_size(w, 3, 2, 1);
  std::int64_t channels = S::kStages.front();
  for (const std::int64_t planes : S::kStages) {
    for (int block = 0; block < S::kBlocksPerStage; ++block) {
      const std::int64_t stride = block == 0 && planes != S::kStages.front() ? 2 : 1;
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
  return macs + static_cast<double>(S::kStages.back() * 10);
}

std::vector<std::int64_t> generic_mlp_sizes(const Cell& cell) {
  std::vector<std::int64_t> sizes = {cell.features};
  for (int layer = 0; layer < cell.depth; ++layer) sizes.push_back(cell.width);
  sizes.push_back(cell.classes);
  return sizes;
}

double flops_per_sample(const Cell& cell) {
  const WorkloadInfo* info = find_workload(cell.workload);
  if (info != nullptr && info->network == Network::kSizedMlp)
    return training_flops(mlp_forward_macs(generic_mlp_sizes(cell)));
  return info == nullptr ? 0.0 : info->flops_per_sample;
}

const std::vector<WorkloadInfo>& workload_catalog() { return declared_workloads(); }

ScopedWorkload::ScopedWorkload(WorkloadInfo workload)
    : ScopedEntry(declared_workloads(), std::move(workload), "workload") {}

double network_training_flops(Network network, const std::vector<std::int64_t>& layers) {
  switch (network) {
    case Network::kMlp:
      return training_flops(mlp_forward_macs(layers));
    case Network::kSeed003Cnn:
      return training_flops(seed003_cnn_forward_macs());
    case Network::kResNet18:
      return training_flops(resnet18_forward_macs(32, 32));
    case Network::kSizedMlp:
    case Network::kScripted:
      break;
  }
  return 0.0;
}

DeclareWorkload& DeclareWorkload::mlp(std::vector<std::int64_t> layers) {
  std::vector<std::string> widths;
  for (const std::int64_t width : layers) widths.push_back(std::to_string(width));
  const std::string model = layers.size() == 2 ? "Linear(" + widths[0] + ", " + widths[1] + ")"
                                               : "MLP " + join(widths, "-") + ", ReLU";
  w_.layers = std::move(layers);
  return network(Network::kMlp, model);
}

DeclareWorkload& DeclareWorkload::network(Network network, std::string model) {
  w_.network = network;
  w_.model = std::move(model);
  w_.flops_per_sample = network_training_flops(network, w_.layers);
  return *this;
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
