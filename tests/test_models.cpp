// Model shapes and the tensor workload's training loop.
#include <gtest/gtest.h>

#include "workloads/mlp.hpp"
#include "workloads/tensor_workload.hpp"

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
  d.data_source = "synthetic";
  return d;
}

TEST_F(Models, MiniBatchesCoverTheEpochAndTrainingLowersTheLoss) {
  TrainingSpec spec;
  spec.batch_size = 30;
  TensorWorkload w(
      separable(100),
      [] {
        return torch::nn::AnyModule(mlp({2, 16, 2}));
      },
      spec, torch::Device("cpu"));
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
  TrainingSpec spec;
  TensorWorkload w(
      separable(50),
      [] {
        return torch::nn::AnyModule(mlp({2, 4, 2}));
      },
      spec, torch::Device("cpu"));
  w.reset(3);
  const double a = w.train_epoch().item<double>();
  w.reset(3);
  const double b = w.train_epoch().item<double>();
  w.reset(4);
  const double c = w.train_epoch().item<double>();
  EXPECT_DOUBLE_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST_F(Models, SgdAndAdamAndNothingElse) {
  Mlp m = mlp({2, 2});
  EXPECT_NE(make_optimizer("sgd", m->parameters(), 0.1, 0.9), nullptr);
  EXPECT_NE(make_optimizer("adam", m->parameters(), 0.1, 0.0), nullptr);
  EXPECT_THROW(make_optimizer("adamw", m->parameters(), 0.1, 0.0), std::invalid_argument);
}

}  // namespace
}  // namespace crossover
