// Model shapes and the tensor workload's training loop.
#include <gtest/gtest.h>

#include "workloads/data/catalog.hpp"
#include "workloads/data/tabular.hpp"
#include "workloads/models/cnn.hpp"
#include "workloads/models/mlp.hpp"
#include "workloads/models/resnet.hpp"
#include "workloads/training/supervised.hpp"
#include "workloads/training/workload.hpp"

namespace crossover {
namespace {

class Models : public ::testing::Test {
 protected:
  void SetUp() override { torch::manual_seed(0); }
};

Mlp mlp(std::vector<std::int64_t> sizes) { return Mlp(sizes); }

std::int64_t parameter_count(torch::nn::Module& m) {
  std::int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

TEST_F(Models, SeedOneNetworksHaveTheirShapesAndSizes) {
  Mlp iris = mlp({4, 64, 32, 16, 3});
  EXPECT_EQ(iris->forward(torch::randn({7, 4})).sizes(), (std::vector<std::int64_t>{7, 3}));
  EXPECT_EQ(parameter_count(*iris), 4 * 64 + 64 + 64 * 32 + 32 + 32 * 16 + 16 + 16 * 3 + 3);
  Mlp boston = mlp({13, 16, 32, 16, 1});
  EXPECT_EQ(boston->forward(torch::randn({5, 13})).sizes(), (std::vector<std::int64_t>{5, 1}));
  EXPECT_THROW(mlp({4}), c10::Error);
}

TEST_F(Models, NoReluAfterTheLastLayerSoOutputsCanBeNegative) {
  Mlp m = mlp({3, 8, 2});
  EXPECT_LT(m->forward(torch::randn({256, 3})).min().item<float>(), 0.0f);
}

TensorData separable(std::int64_t rows) {
  TensorData d;
  d.x_train = torch::randn({rows, 2});
  d.y_train = (d.x_train.select(1, 0) > 0).to(torch::kLong);
  d.x_test = torch::randn({64, 2});
  d.y_test = (d.x_test.select(1, 0) > 0).to(torch::kLong);
  d.data_source = DataSource::kSynthetic;
  return d;
}

SupervisedWorkload separable_workload(std::int64_t rows, std::int64_t batch) {
  DataPath path;
  path.batch_size = batch;
  return SupervisedWorkload(
      separable(rows),
      [] {
        return torch::nn::AnyModule(mlp({2, 16, 2}));
      },
      TrainingSpec{}, path, torch::Device("cpu"), 0.0);
}

TEST_F(Models, MiniBatchesCoverTheEpochAndTrainingLowersTheLoss) {
  SupervisedWorkload w = separable_workload(100, 30);
  EXPECT_EQ(w.facts().steps_per_epoch, 4);  // 30 + 30 + 30 + 10
  EXPECT_EQ(w.facts().train_rows, 100);
  w.reset(1);
  const double first = w.train_epoch().item<double>();
  double last = first;
  for (int e = 0; e < 40; ++e) last = w.train_epoch().item<double>();
  EXPECT_LT(last, first * 0.5);
  EXPECT_GT(w.evaluate(), 0.9);
}

TEST_F(Models, ResetGivesTheSameStartForTheSameSeed) {
  SupervisedWorkload w = separable_workload(50, -1);
  w.reset(3);
  const double a = w.train_epoch().item<double>();
  w.reset(3);
  const double b = w.train_epoch().item<double>();
  w.reset(4);
  const double c = w.train_epoch().item<double>();
  EXPECT_DOUBLE_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST_F(Models, SeedThreeCnnShapesAndSize) {
  Seed003Cnn cnn;
  EXPECT_EQ(cnn->forward(torch::randn({3, 1, 28, 28})).sizes(), (std::vector<std::int64_t>{3, 10}));
  // conv1 6*25+6, conv2 12*6*25+12, fc1 192*120+120, fc2 120*60+60, out 60*10+10.
  EXPECT_EQ(parameter_count(*cnn), 156 + 1812 + 23160 + 7260 + 610);
}

TEST_F(Models, ResNet18HasTorchvisionsSizeWithATenClassHead) {
  ResNet18 net(10);
  EXPECT_EQ(net->forward(torch::randn({2, 3, 32, 32})).sizes(), (std::vector<std::int64_t>{2, 10}));
  // torchvision's resnet18 has 11,689,512 parameters with its 1000-class head (513,000 of them).
  EXPECT_EQ(parameter_count(*net), 11689512 - 513000 + 5130);
}

TEST_F(Models, AnalyticalFlopsMatchHandCounts) {
  EXPECT_DOUBLE_EQ(mlp_forward_macs({784, 400, 200, 100, 10}), 414600.0);
  EXPECT_DOUBLE_EQ(seed003_cnn_forward_macs(), 86400.0 + 115200.0 + 30840.0);
  // Stem 2,408,448; layer1 4 x 2,359,296; layers 2-4 8,388,608 each; head 5,120 (counted by hand).
  EXPECT_DOUBLE_EQ(resnet18_forward_macs(32, 32), 2408448.0 + 9437184.0 + 3 * 8388608.0 + 5120.0);
  EXPECT_DOUBLE_EQ(find_workload("mnist_mlp")->flops_per_sample, 6.0 * 414600.0);
}

// The generic mlp: its layers, its FLOPs and its data follow the cell's model keys, and it learns.
TEST_F(Models, TheGenericMlpIsSizedByItsCell) {
  Cell c;
  c.workload = "mlp";
  c.dataset = "synthetic";
  c.features = 5;
  c.classes = 4;
  c.width = 24;
  c.depth = 3;
  c.batch_size = 64;
  c.dataset_size = 512;
  c.lr = 0.01;
  EXPECT_EQ(generic_mlp_sizes(c), (std::vector<std::int64_t>{5, 24, 24, 24, 4}));
  EXPECT_DOUBLE_EQ(flops_per_sample(c), 6.0 * (5 * 24 + 24 * 24 * 2 + 24 * 4));
  Cell unsized = c;
  unsized.classes = 0;  // a cell no grid normalised
  EXPECT_THROW(make_workload(unsized, torch::Device("cpu"), "/nonexistent"), std::invalid_argument);
  auto w = make_workload(c, torch::Device("cpu"), "/nonexistent");
  EXPECT_EQ(w->facts().train_rows, 512);
  EXPECT_DOUBLE_EQ(w->facts().flops_per_sample, flops_per_sample(c));
  w->reset(0);
  std::int64_t parameters = 0;
  for (const auto& p : w->parameters()) parameters += p.numel();
  EXPECT_EQ(parameters, 5 * 24 + 24 + 2 * (24 * 24 + 24) + 24 * 4 + 4);
  const double first = w->train_epoch().item<double>();
  double last = first;
  for (int e = 0; e < 10; ++e) last = w->train_epoch().item<double>();
  EXPECT_LT(last, first * 0.5);
  EXPECT_GT(w->evaluate(), 0.8);  // four classes: chance is 0.25
  // The data: `features` columns, labels among `classes`, the same rows for the same seed.
  const TensorData d = synthetic_classes(5, 4, 512, 3);
  EXPECT_EQ(d.x_train.sizes(), (std::vector<std::int64_t>{512, 5}));
  EXPECT_EQ(d.y_train.max().item<std::int64_t>(), 3);
  EXPECT_TRUE(torch::equal(d.x_train, synthetic_classes(5, 4, 512, 3).x_train));
  EXPECT_FALSE(torch::equal(d.x_train, synthetic_classes(5, 4, 512, 4).x_train));
  // At dataset_size "full", the rows the catalog declares.
  const WorkloadInfo& declared = *find_workload(kSizedMlpWorkload);
  const TensorData full = synthetic_classes(5, 4, kFull, 3);
  EXPECT_EQ(full.x_train.size(0), declared.made_train_rows);
  EXPECT_EQ(full.x_test.size(0), declared.made_test_rows);
}

TEST_F(Models, SgdAndAdamAndNothingElse) {
  Mlp m = mlp({2, 2});
  EXPECT_NE(dynamic_cast<torch::optim::SGD*>(
                make_optimizer(Optimizer::kSgd, m->parameters(), 0.1, 0.9).get()),
            nullptr);
  EXPECT_NE(dynamic_cast<torch::optim::Adam*>(
                make_optimizer(Optimizer::kAdam, m->parameters(), 0.1, 0.0).get()),
            nullptr);
  // Nothing else: the optimiser is an enum of the two, and a grid's other word is refused by its
  // key (Keys tests).
  EXPECT_EQ(word_list<Optimizer>(), (std::vector<std::string>{"sgd", "adam"}));
}

}  // namespace
}  // namespace crossover

namespace crossover {
namespace {

// DataParallel replicates a model with clone(): every model must clone into an equal, independent
// copy — parameters, buffers and outputs — whose training does not touch the original.
template <typename Model>
void expect_clones_faithfully(Model model, const torch::Tensor& input) {
  model->eval();
  const auto copy = std::dynamic_pointer_cast<typename Model::Impl>(model->clone());
  ASSERT_NE(copy, nullptr);
  const auto a = model->named_parameters(), b = copy->named_parameters();
  ASSERT_EQ(a.size(), b.size());
  for (const auto& p : a) {
    EXPECT_TRUE(torch::equal(p.value(), b[p.key()])) << p.key();
    EXPECT_NE(p.value().data_ptr(), b[p.key()].data_ptr()) << p.key();  // a copy, not a share
  }
  EXPECT_EQ(model->buffers().size(), copy->buffers().size());
  EXPECT_TRUE(torch::allclose(model->forward(input), copy->forward(input)));
  {
    torch::NoGradGuard no_grad;
    for (auto& p : copy->parameters()) p.add_(1.0);
  }
  EXPECT_FALSE(torch::allclose(model->forward(input), copy->forward(input)));
}

TEST(ModelClones, EveryModelClonesForDataParallel) {
  torch::manual_seed(0);
  expect_clones_faithfully(Mlp(std::vector<std::int64_t>{4, 64, 32, 16, 3}), torch::randn({5, 4}));
  expect_clones_faithfully(Seed003Cnn(), torch::randn({2, 1, 28, 28}));
  expect_clones_faithfully(ResNet18(10), torch::randn({2, 3, 32, 32}));
}

}  // namespace
}  // namespace crossover
